"""restart: seconds from spawning a hub on a 1,000,000-event log until its first pages are answered.

What is timed is a cold start as an operator makes one: `python -m hub serve --venue FILE --data DIR --port 0`
(the `boardcast serve` command) started as a process of its own on a data folder holding the log. The clock
runs from the spawn until both the wall page (`GET /`) and a match API (`GET /api/matches/ID`) have been
answered 200: interpreter start and imports, reading the venue file, `EventLog.open()` (its `quick_check`),
`Hall.load()` (each match's latest snapshot, then its tail through the live reducer), and the web server
coming up. The banner line (printed once the server listens) gives the port. The hub gets the environment
a shell would give it, so it restarts itself onto its allocator as it does for an operator (`hub.server.allocator`).

The log is `replay`'s (200 table-tennis tables, legal best-of-7 matches, cached in the temp dir), so the
venue file names its 200 tables and every match of its rounds. It is started twice, each on a fresh copy:

- **without snapshots**: the log as built, every event folded on start (a log whose snapshots were lost, or
  written by a hub that kept none: the worst case);
- **with snapshots**: the same log after the hub's own commit path has written the snapshots it writes in
  service. A hub folds a table's reports up to each change of a match's status (`Hall.record_reports`) and
  hands the state to its commit listener (`Hall._on_commit`), which queues a snapshot every `SNAPSHOT_EVERY`
  offsets and when the match is decided (`SNAPSHOT_ON`), and the event log's writer process commits it.
  The build does exactly that for every match of the log (the same fold, the same listener, the same
  `EventLog` and writer process), so the file holds the snapshots a hub that ingested these events would
  have left; the result is cached beside the log. This is the product's normal case and `seconds_1m`.

The page cache is warm (the copy was just written); dropping it needs root and would disturb other work on
the machine. Baseline: opening the same file and running the `PRAGMA quick_check` the hub runs, alone, in
this process: the floor no start can go under. The ratio is our start over that floor (lower is better).
Pass: the start with snapshots within 20 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import hashlib
import os
import re
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Any

from benchmarks.common import HOST, ROOT, Result, say, scratch, tt_venue
from benchmarks.common import sizes as pick_sizes
from benchmarks.replay import FORMAT, cached_log
from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.log.eventlog import EventLog, EventRecord
from hub.log.store import connect
from hub.matches import MatchState, fold_events, new_match
from hub.server.allocator import returning_environment
from hub.venue import Venue

NAME = "restart"
FULL = {"events": 1_000_000, "tables": 200, "best_of": 7, "start_limit_s": 90.0}
SMOKE = {"events": 5_000, "tables": 10, "best_of": 7, "start_limit_s": 30.0}
TARGET_S = 20.0
LOG_FILE = "events.sqlite3"  # the name the hub gives its log in the data folder (hub.server.app.LOG_FILE)
PR_SET_PDEATHSIG = 1  # prctl(2)
BANNER = re.compile(rb"Seyirciler: http://127\.0\.0\.1:(\d+)/")


# -- the logs -----------------------------------------------------------------------------------------------


def venue_toml(venue: Venue) -> str:
    """The venue as the TOML file `boardcast serve --venue` reads: its tables and every match."""
    lines = [f'[venue]\nname = "{venue.name}"\n']
    for table in venue.tables:
        lines.append(f'[[tables]]\nid = "{table.id}"\nsport = "{table.sport}"\n')
    for m in venue.matches:
        players = ", ".join(f'"{p}"' for p in m.players)
        lines.append(
            f'[[matches]]\nid = "{m.id}"\ntable = "{m.table}"\nround = {m.round}\n'
            f"players = [{players}]\nbest_of = {m.best_of}\n"
        )
    return "\n".join(lines)


async def _write_snapshots(path: Path, venue: Venue) -> int:
    """Have the hub's commit path write the snapshots it would have written while taking these events.

    For each match: fold its events up to each change of status, as `Hall.record_reports` does while a
    table reports, queue those states as uncommitted, and hand the match's records to the hall's commit
    listener, as the event log does after their commit. The listener decides which snapshots to take and
    queues them on the real `EventLog`, whose writer process commits them. Returns the snapshots stored.
    """
    log = EventLog(path)
    log.open()
    hall = Hall(venue, log, Fanout())
    log.start()
    try:
        for info in venue.matches:
            rows = log.match_tail(info.id)
            if not rows:
                continue
            state = start = new_match(info)
            states: deque[MatchState] = deque()
            done = 0
            while done < len(rows):
                state, folded = fold_events(state, rows[done:], until_status_changes=True)
                done += folded
                states.append(state)
            hall.committed[info.id] = start
            hall._uncommitted[info.id] = (
                states  # what `record_reports` leaves for the commit to make official
            )
            records = [EventRecord(0, kind, at, body, info.id, offset) for offset, kind, at, _, body in rows]
            hall._on_commit(records, [True] * len(records))  # the listener the log calls after a commit
        await log.flush()
    finally:
        await log.close()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0])


def _snapshot_code() -> str:
    """A digest of the code that folds matches and writes snapshots: cached snapshots it did not write are
    built again, so a start is never timed on a format the hub no longer writes."""
    digest = hashlib.sha256()
    sources = [*sorted((ROOT / "hub" / "hall").glob("*.py")), *sorted((ROOT / "hub" / "log").glob("*.py"))]
    sources += sorted((ROOT / "hub" / "matches").glob("*.py")) + sorted(
        (ROOT / "hub" / "rules").rglob("*.py")
    )
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


async def _snapshotted(source: Path, venue: Venue, key: str) -> tuple[Path, int, float, bool]:
    """The log with the hub's snapshots (built once, cached beside the log): path, snapshots, build s, cached."""
    cache = Path(tempfile.gettempdir()) / "boardcast-bench-cache"
    path = cache / f"restart-v{FORMAT}-{key}-snapshots.sqlite3"
    count_file = path.with_suffix(".count")
    if path.exists() and count_file.exists():
        return path, int(count_file.read_text()), 0.0, True
    tmp = path.with_suffix(".building")
    for leftover in tmp.parent.glob(tmp.name + "*"):
        leftover.unlink()
    started = time.perf_counter()
    shutil.copyfile(source, tmp)
    count = await _write_snapshots(tmp, venue)
    with contextlib.closing(sqlite3.connect(tmp)) as conn:  # one file, as the cache keeps it
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    tmp.rename(path)
    count_file.write_text(str(count))
    return path, count, time.perf_counter() - started, False


# -- one cold start -----------------------------------------------------------------------------------------


async def http_get(port: int, path: str) -> tuple[int, bytes]:
    """GET a path on the hub (HTTP/1.1, connection closed after): the status code and the body."""
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode())
        answer = await reader.read()  # the whole answer, to its end
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(maxsplit=2)[1]), body


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def dies_with_us() -> None:
    """In a hub process about to start (`preexec_fn`): be killed when this process ends, so a benchmark
    stopped at the runner's hard stop leaves no hub behind (the signal is kept across the hub's restart
    onto its allocator; its writer process ends when the hub's end of their pipe closes)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def operator_environment() -> dict[str, str]:
    """This environment as a shell gives it to `boardcast serve`: without the allocator settings the runner
    adds (`returning_environment`), so the hub makes its own choice and restarts itself onto it as it does
    when an operator starts it (that restart imports the hub twice: 0.6-0.8 s of a start here). Settings
    an operator chose (any other value) are kept."""
    env = dict(os.environ)
    added = returning_environment({}) or {}
    if added and all(env.get(k) == v for k, v in added.items()):
        for key in added:
            del env[key]
    return env


async def cold_start(venue_file: Path, data: Path, match_id: str, limit_s: float) -> dict[str, Any]:
    """Spawn `boardcast serve` on `data`; seconds until it listens and until both pages are answered."""
    errors = data.parent / f"{data.name}.stderr"
    with errors.open("wb") as err:
        started = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "hub", "serve", "--venue", str(venue_file), "--data", str(data)),
            *("--port", "0"),
            stdout=asyncio.subprocess.PIPE,
            stderr=err,
            cwd=ROOT,
            env=operator_environment(),
            preexec_fn=dies_with_us,
        )
    try:
        assert proc.stdout is not None
        async with asyncio.timeout(limit_s):
            port = None
            while port is None:
                line = await proc.stdout.readline()
                if not line:
                    raise RuntimeError(f"the hub exited ({await proc.wait()}): {errors.read_text()[-2000:]}")
                found = BANNER.search(line)
                port = int(found.group(1)) if found else None
            listening = time.perf_counter() - started
            wall, _ = await http_get(port, "/")
            api, _ = await http_get(port, f"/api/matches/{match_id}")
            answered = time.perf_counter() - started
        if (wall, api) != (200, 200):
            raise RuntimeError(f"the hub answered {wall} for / and {api} for /api/matches/{match_id}")
        return {"listening_s": listening, "answered_s": answered, "rss_mib": _rss_mib(proc.pid)}
    finally:
        await stop_hub(proc)


async def stop_hub(proc: asyncio.subprocess.Process) -> int | None:
    """Ctrl-C (SIGINT: the hub commits what it holds and stops), SIGKILL if it has not within 30 s; the exit
    code (None: it had to be killed). Not SIGTERM: uvicorn re-raises a SIGTERM it caught once the server has
    stopped, and the process then ends before the hub closes its log."""
    if proc.returncode is not None:
        return proc.returncode
    proc.send_signal(signal.SIGINT)
    try:
        async with asyncio.timeout(30):
            return await proc.wait()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return None


def _quick_check_s(path: Path) -> float:
    """The baseline: open the file and run the hub's integrity check, nothing else."""
    started = time.perf_counter()
    conn = connect(path)
    try:
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    return time.perf_counter() - started


# -- the benchmark ------------------------------------------------------------------------------------------


async def _start_on(source: Path, where: Path, venue_file: Path, match_id: str, limit_s: float) -> dict:
    data = where
    data.mkdir(mode=0o700)
    shutil.copyfile(source, data / LOG_FILE)  # a fresh copy: a start may write to its log
    return await cold_start(venue_file, data, match_id, limit_s)


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    events, tables, best_of = sizes["events"], sizes["tables"], sizes["best_of"]
    t = time.perf_counter()
    plain, rounds, log_cached = cached_log(events, tables, best_of)
    log_build_s = time.perf_counter() - t
    venue = tt_venue(tables, rounds=rounds, best_of=best_of)
    snapped, snapshots, snap_build_s, snap_cached = await _snapshotted(
        plain, venue, f"{events}-{tables}-{best_of}-{_snapshot_code()}"
    )
    say(
        f"{NAME}: log {'cached' if log_cached else f'built in {log_build_s:.0f} s'}, {snapshots:,} snapshots "
        f"{'cached' if snap_cached else f'written in {snap_build_s:.0f} s'}"
    )
    match_id = venue.matches[len(venue.matches) // 2].id  # a finished match, mid-log
    with scratch(NAME) as tmp:
        venue_file = tmp / "venue.toml"
        venue_file.write_text(venue_toml(venue), encoding="utf-8")
        without = await _start_on(plain, tmp / "plain", venue_file, match_id, sizes["start_limit_s"])
        say(f"{NAME}: without snapshots {without['answered_s']:.1f} s")
        with_snap = await _start_on(snapped, tmp / "snapped", venue_file, match_id, sizes["start_limit_s"])
        say(f"{NAME}: with snapshots {with_snap['answered_s']:.1f} s")
        check_s = _quick_check_s(tmp / "snapped" / LOG_FILE)
    ours = with_snap["answered_s"]
    return Result(
        name=NAME,
        unit="s",
        ours=ours,
        baseline=check_s,
        target=f"≤ {TARGET_S:.0f} s (with snapshots)",
        passed=ours <= TARGET_S,
        sizes={**sizes, "matches": len(venue.matches)},
        details={
            "seconds_1m": round(ours, 2),
            "seconds_1m_with_snapshots": round(ours, 2),
            "seconds_1m_without_snapshots": round(without["answered_s"], 2),
            "listening_s_with_snapshots": round(with_snap["listening_s"], 2),
            "listening_s_without_snapshots": round(without["listening_s"], 2),
            "hub_rss_mib_with_snapshots": round(with_snap["rss_mib"], 1),
            "hub_rss_mib_without_snapshots": round(without["rss_mib"], 1),
            "quick_check_s": round(check_s, 2),
            "snapshots": snapshots,
            "log_mib": round(plain.stat().st_size / 2**20, 1),
            "log_build_s": round(log_build_s, 1),
            "snapshot_build_s": round(snap_build_s, 1),
        },
        notes=[
            "ours: spawn of `python -m hub serve` on the log (with the snapshots a hub writes) until GET / and "
            "GET /api/matches/ID are answered; baseline: opening the same file and its quick_check alone; "
            "without snapshots is the worst case (every event folded)",
            "page cache warm (the log was just copied); logs built once and cached in the temp dir",
        ],
    )
