"""The clock of `ChangeDriver.outside`: a process of its own that says when each table's next report is due.

Run as ``python -m benchmarks.changeclock`` with a pipe on stdout that the hub's loop reads. stdin, one line:
``{"steps": [reports of table 0, ...], "rate": per table per second, "start": epoch, "end": epoch, "cpu": n}``.
At ``start`` it writes a hello record for every table (step 0), then, spread evenly over each second, one
record per table and report (step 1, 2, ...) until ``end`` or a table's reports run out: ``RECORD`` (table,
step, stamp), the stamp being the wall clock as the record is written, in this process: outside the hub's
loop, its thread and its GIL, so a hub that is slow to read the pipe leaves the stamps as they were. Records
due together are written together. At the end it prints on stderr ``{"late_ms": {ms: n}, "written": n}``: how
late it woke against its schedule.
"""

from __future__ import annotations

import contextlib
import os
import struct
import sys
import time
from collections import Counter

import orjson

RECORD = struct.Struct("<HHd")  # table index, step (0: hello), stamp (epoch seconds)


def main() -> None:
    config = orjson.loads(sys.stdin.readline())
    if config.get("cpu") is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {config["cpu"]})
    steps: list[int] = config["steps"]
    n = len(steps)
    period = 1.0 / (n * config["rate"])
    out = sys.stdout.fileno()
    time.sleep(max(0.0, config["start"] - time.time()))
    now = time.time()
    os.write(out, b"".join(RECORD.pack(i, 0, now) for i in range(n)))
    next_at = time.monotonic()
    until = next_at + (config["end"] - time.time())
    late: Counter[int] = Counter()
    written = 0
    k = 0
    while next_at < until:
        woke = time.monotonic()
        at = time.time()  # the stamp of every record written now
        batch = bytearray()
        while next_at <= woke and next_at < until:
            table, step = k % n, k // n
            if step < steps[table]:
                batch += RECORD.pack(table, step + 1, at)
                late[int((woke - next_at) * 1000)] += 1
            k += 1
            next_at += period
        if batch:
            os.write(out, batch)  # a blocking pipe: all of it (the hub reads it without waiting on anything)
            written += len(batch) // RECORD.size
        time.sleep(max(0.0, next_at - time.monotonic()))
    sys.stderr.write(
        orjson.dumps({"late_ms": {str(k): v for k, v in late.items()}, "written": written}).decode()
    )
    sys.stderr.write("\n")


def late_quantile_ms(late_ms: Counter[int], q: float) -> float:
    """The q-quantile (0..1) of a whole-ms histogram (`ChangeDriver.late_ms`), in ms (bucket upper edge)."""
    total = sum(late_ms.values())
    seen = 0
    for k in sorted(late_ms):
        seen += late_ms[k]
        if seen >= q * total:
            return float(k + 1)
    return float("nan")


if __name__ == "__main__":
    main()
