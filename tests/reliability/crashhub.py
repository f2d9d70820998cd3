"""A hub that the crash tests SIGKILL: a real `HubRuntime` (log, hall, ingest, web server) under heavy ingest.

`python -m tests.reliability.crashhub` is a zygote: it imports the hub once, then forks one hub per line
`DATA PORT LEDGER` it reads and prints the child's pid, so fifty restarts cost fifty forks rather than fifty
interpreter start-ups. The test SIGKILLs the child by its pid. The child writes an append-only
ledger (one `os.write` per line, so a kill leaves at most one torn last line, which the reader ignores):

- `R match version digest` once per match after the log is opened and replayed (what the restart serves);
- `READY` once the web server listens;
- `A device boot seq` for every device frame the log committed (the acknowledgement a device would get);
- `S match version digest` after every commit that changed a match (the state the hub then served).

The feeder acts as four scoreboards that never lose power: after a hub restart each resends its last few
frames (which the log must store once) and carries on. Frame `seq` of a board always shows the same score, a
never-ending deuce, so a resent frame is identical to the original.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from devices.observations import Observation, ScoreboardState
from hub import referee
from hub.matches import MatchInfo, MatchState
from hub.referee.tokens import hash_token
from hub.server.app import HubRuntime
from hub.venue import RefereeConfig, TableConfig, Venue

TABLES = 4
BOOT_EPOCH = 1
RESEND = 5  # frames each board resends after a restart, as a device without acknowledgements would
TOKEN = "crash-test-referee-token"


def crash_venue() -> Venue:
    """Four table-tennis tables, one match each, and a chief referee holding TOKEN."""
    tables = tuple(TableConfig(id=f"T{i}", sport="tabletennis") for i in range(1, TABLES + 1))
    matches = tuple(
        MatchInfo(f"M-T{i}", "tabletennis", f"T{i}", 1, (f"A{i}", f"B{i}"), 5) for i in range(1, 5)
    )
    return Venue("Crash Hall", tables, matches, (RefereeConfig("Hakem", "chief", hash_token(TOKEN)),))


def device_id(table: int) -> str:
    """The scoreboard id on table `table`."""
    return f"crash-board-{table}"


def frame(table: int, seq: int) -> Observation:
    """Frame `seq` of a board: always the same score for the same seq (deuce forever, never a game end)."""
    report = ScoreboardState(points=((seq + 1) // 2, seq // 2), games=(0, 0))
    return Observation(device_id(table), BOOT_EPOCH, seq, time.time(), report, raw=f"{table}:{seq}".encode())


def digest(state: MatchState, venue: Venue) -> str:
    """A short fingerprint of everything the referee console shows of a match."""
    players = {p.name: p for p in venue.players}
    view: Any = referee.console_view(state, players, at=state.updated_at or 0.0)  # the same at every restart
    return hashlib.sha256(orjson.dumps(view, option=orjson.OPT_SORT_KEYS)).hexdigest()[:24]


def serve(data: str, port: int, ledger: str) -> None:
    """Run the hub on `data` until killed; the child's entry point."""
    asyncio.run(_serve(Path(data), port, ledger))


async def _serve(data: Path, port: int, ledger: str) -> None:
    venue = crash_venue()
    runtime = HubRuntime(venue, data, port=port)
    runtime.open()
    fd = os.open(ledger, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(lines: list[str]) -> None:
        if lines:
            os.write(fd, "".join(lines).encode())

    hall = runtime.hall
    write([f"R {mid} {s.version} {digest(s, venue)}\n" for mid, s in sorted(hall.committed.items())])
    high = runtime.log.device_high_water()

    def committed(records: list, inserted: list[bool]) -> None:
        lines = [f"A {r.device_id} {r.boot_epoch} {r.seq}\n" for r in records if r.seq is not None]
        touched = sorted({r.match_id for r in records if r.match_id is not None})
        lines += [f"S {m} {hall.committed[m].version} {digest(hall.committed[m], venue)}\n" for m in touched]
        write(lines)

    runtime.log.add_listener(committed)  # after the hall's own listener: hall.committed is current

    async def feed() -> None:
        assert runtime.ingest is not None
        await runtime.ready.wait()
        write(["READY\n"])
        sinks = {t: runtime.ingest.sink_for(venue.tables[t - 1]) for t in range(1, TABLES + 1)}
        seqs = {t: max(1, high.get((device_id(t), BOOT_EPOCH), 0) + 1 - RESEND) for t in sinks}
        while True:
            for t, sink in sinks.items():
                for _ in range(8):
                    sink.observe(frame(t, seqs[t]))
                    seqs[t] += 1
            await asyncio.sleep(0.005)

    await runtime.run(feed)


def zygote() -> None:
    """Fork one hub per `DATA PORT LEDGER` line on stdin and print its pid; children are reaped by the kernel."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # a killed child leaves no zombie: its pid disappears
    for line in sys.stdin:
        data, port, ledger = line.split()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                serve(data, int(port), ledger)
                code = 0
            finally:
                os._exit(code)
        print(pid, flush=True)


if __name__ == "__main__":
    zygote()
