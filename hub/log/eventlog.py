"""The durable, append-only event log: SQLite in WAL mode, group commit, written by a process of its own.

The log is the source of truth. Every device report, derived anomaly and referee action that the hub
accepts is a row here before anyone else hears of it: `append` queues a record for the log's feeding thread,
which hands whatever has queued up to the writer process (`hub.log.writer`) as one transaction
(`synchronous=FULL`, so a commit survives power loss), then reports the batch back to the event loop in
commit order. Callers learn that an event is stored only from that report. The file's schema and body
encoding are `hub.log.store`'s; the hub reads the file through a connection of its own.

Device rows carry `(device_id, boot_epoch, seq)` under a UNIQUE index and are inserted with `OR IGNORE`, so
a frame resent by a device is stored once however often it arrives. Match rows carry `(match_id, offset)`,
a per-match counter that replay folds in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import orjson

from hub.log.store import (
    _JSON_OBJECT,
    _SCHEMA,
    SCHEMA_VERSION,
    EventLogError,
    connect,
    pack,
    pack_snapshot,
    unpack,
    unpack_snapshot,
)
from hub.log.writer import WriterProcess, wait_for_writers

log = logging.getLogger(__name__)

LOG_FILE = "events.sqlite3"  # the log's name in a hub's data directory

__all__ = [
    "LOG_FILE",
    "EventLog",
    "EventLogError",
    "EventRecord",
    "Snapshot",
    "pack",
    "unpack",
    "unpack_snapshot",
]


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One row of the log: what happened, when, to which match, reported by whom."""

    id: int
    kind: str
    at: float
    body: Any
    match_id: str | None = None
    offset: int | None = None
    device_id: str | None = None
    boot_epoch: int | None = None
    seq: int | None = None
    actor: str | None = None
    raw: bytes | None = None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A match's folded state at an offset, so replay starts there instead of at the first event."""

    match_id: str
    offset: int
    at: float
    state: Any


CommitListener = Callable[[list[EventRecord], list[bool]], None]


def _row(r: EventRecord) -> tuple[Any, ...]:
    """An event as the columns `_INSERT_EVENT` takes, its body as it is (the writer process packs it)."""
    return (
        r.id,
        r.kind,
        r.at,
        r.match_id,
        r.offset,
        r.device_id,
        r.boot_epoch,
        r.seq,
        r.actor,
        r.body,
        r.raw,
    )


PRIVATE_MODE = 0o600  # the log holds players' contacts and referees' notes: no other user reads it


def private_files(path: Path) -> None:
    """Make the log file (created empty if missing: SQLite takes an empty file as a new database) and the -wal,
    -shm, -journal and writer lock beside it 0600, as SQLite then creates them too."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE))
    except FileExistsError:
        pass
    except OSError as exc:
        raise EventLogError(
            f"{path}: the event log cannot be created ({exc.strerror or exc}) / olay kaydı oluşturulamıyor"
        ) from None
    for name in (
        path,
        *(path.with_name(path.name + end) for end in ("-wal", "-shm", "-journal", ".writer-lock")),
    ):
        try:
            if stat.S_IMODE(name.stat().st_mode) != PRIVATE_MODE:
                name.chmod(PRIVATE_MODE)
        except FileNotFoundError:
            continue
        except OSError as exc:  # another user's file: it opens, but its mode is not ours to change
            log.warning("%s: cannot make it private (%s)", name, exc.strerror or exc)


class EventLog:
    """The log file, its feeding thread and writer process; `append` from the event loop, commits reported back
    in order."""

    def __init__(self, path: Path | str, *, batch_max: int = 1000) -> None:
        self.path = Path(path)
        self.batch_max = batch_max
        self._queue: queue.SimpleQueue[tuple[str, Any] | None] = queue.SimpleQueue()
        self._listeners: list[CommitListener] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._writer: WriterProcess | None = None
        self._reader: sqlite3.Connection | None = None
        self._next_id = 1
        self._pending: dict[int, asyncio.Future[bool]] = {}
        self._failure: BaseException | None = None
        self.commits = 0
        self.committed_events = 0

    # -- opening and reading ------------------------------------------------------------------------------

    def open(self) -> None:
        """Create or check the file; refuse one that is damaged or from an unknown schema.

        The file and its -wal and -shm (SQLite gives them the file's mode) are the hub user's alone: 0600, in a
        directory made 0700 when it is made here."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        wait_for_writers(self.path)  # an earlier hub's writer may still be committing its last batch
        private_files(self.path)
        conn: sqlite3.Connection | None = None
        try:
            conn = connect(self.path)
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise EventLogError(
                    f"{self.path}: the event log is damaged ({check}). Restore it from a backup; "
                    f"Boardcast will not serve data it cannot trust. / Olay kaydı bozuk; yedekten geri yükleyin."
                )
            conn.executescript(_SCHEMA)
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                conn.execute("INSERT INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) != SCHEMA_VERSION:
                raise EventLogError(
                    f"{self.path}: event log schema {row[0]} is not the {SCHEMA_VERSION} this Boardcast reads."
                )
            self._next_id = (conn.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0]) + 1
        except sqlite3.DatabaseError as exc:
            raise EventLogError(
                f"{self.path}: not a readable Boardcast event log ({exc}). Restore it from a backup or start "
                f"with another --data directory. / Olay kaydı okunamıyor."
            ) from exc
        finally:
            if conn is not None:
                conn.close()
        self._reader = connect(self.path)

    def snapshots(self) -> dict[str, Snapshot]:
        """The latest snapshot of each match."""
        return {
            mid: Snapshot(mid, *found[:2], unpack_snapshot(found[2]))
            for mid, found in self.packed_snapshots().items()
        }

    def packed_snapshots(self) -> dict[str, tuple[int, float, bytes]]:
        """The latest snapshot of each match as `(offset, at, state as stored)`: a start decodes each state as
        it rebuilds that match, so the decoded snapshots of a whole hall are never all held at once (10,000
        finished table-tennis matches decode to 600 MiB of dicts, which then took longer to build than the
        states they are turned into)."""
        assert self._reader is not None
        rows = self._reader.execute(
            'SELECT s.match_id, s."offset", s.at, s.state FROM snapshots s '
            'JOIN (SELECT match_id, MAX("offset") AS o FROM snapshots GROUP BY match_id) m '
            'ON s.match_id = m.match_id AND s."offset" = m.o'
        )
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def match_events(self, match_id: str, after_offset: int = 0) -> Iterator[EventRecord]:
        """A match's events after an offset, in offset order."""
        assert self._reader is not None
        cur = self._reader.execute(
            'SELECT id, kind, at, match_id, "offset", device_id, boot_epoch, seq, actor, body, raw FROM events '
            'WHERE match_id = ? AND "offset" > ? ORDER BY "offset"',
            (match_id, after_offset),
        )
        for row in cur:
            yield _record(row)

    def match_tail(
        self, match_id: str, after_offset: int = 0
    ) -> list[tuple[int, str, float, str | None, Any]]:
        """A match's events after an offset, in offset order, as `(offset, kind, at, actor, body)`: what
        folding needs and no more (replay reads every event of the log through here)."""
        assert self._reader is not None
        rows = self._reader.execute(
            'SELECT "offset", kind, at, actor, body FROM events WHERE match_id = ? AND "offset" > ? '
            'ORDER BY "offset"',
            (match_id, after_offset),
        ).fetchall()
        json_loads, msgpack_loads = orjson.loads, msgpack.unpackb
        return [
            (  # `unpack`, inline
                offset,
                kind,
                at,
                actor,
                json_loads(body)
                if body[0] == _JSON_OBJECT and len(body) > 1
                else msgpack_loads(body, raw=False, strict_map_key=False),
            )
            for offset, kind, at, actor, body in rows
        ]

    def events(self, *, after_id: int = 0, limit: int = 1000) -> list[EventRecord]:
        """Events of every kind in log order, for audits and tests."""
        assert self._reader is not None
        cur = self._reader.execute(
            'SELECT id, kind, at, match_id, "offset", device_id, boot_epoch, seq, actor, body, raw FROM events '
            "WHERE id > ? ORDER BY id LIMIT ?",
            (after_id, limit),
        )
        return [_record(row) for row in cur]

    def match_ids(self) -> list[str]:
        """Every match the log holds events for (match events: `Hall.record` gives each its offset)."""
        assert self._reader is not None
        # one step of the (match_id, offset) index per match, not a pass over every row of the log
        return [
            r[0]
            for r in self._reader.execute(
                'WITH RECURSIVE m(id) AS (SELECT MIN(match_id) FROM events WHERE match_id IS NOT NULL AND "offset" '
                'IS NOT NULL UNION ALL SELECT (SELECT MIN(match_id) FROM events WHERE match_id > m.id AND "offset" '
                "IS NOT NULL) FROM m WHERE m.id IS NOT NULL) SELECT id FROM m WHERE id IS NOT NULL"
            )
        ]

    def device_high_water(self) -> dict[tuple[str, int], int]:
        """The highest stored seq of each (device, boot epoch)."""
        assert self._reader is not None
        rows = self._reader.execute(
            "SELECT device_id, boot_epoch, MAX(seq) FROM events WHERE device_id IS NOT NULL AND seq IS NOT NULL "
            "GROUP BY device_id, boot_epoch"
        )
        return {(r[0], r[1]): r[2] for r in rows}

    # -- writing ------------------------------------------------------------------------------------------

    def add_listener(self, listener: CommitListener) -> None:
        """Call `listener(records, inserted)` in the event loop after each commit, in commit order."""
        self._listeners.append(listener)

    def start(self) -> None:
        """Start the writer (its process starts with the first batch); appends must come from this event loop
        afterwards."""
        self._loop = asyncio.get_running_loop()
        self._writer = WriterProcess(self.path)
        self._thread = threading.Thread(target=self._write_loop, name="boardcast-eventlog", daemon=True)
        self._thread.start()

    @property
    def last_id(self) -> int:
        """The last log position handed out (committed or queued)."""
        return self._next_id - 1

    def next_id(self) -> int:
        """Reserve the next log position."""
        nid = self._next_id
        self._next_id += 1
        return nid

    def append(self, record: EventRecord) -> asyncio.Future[bool]:
        """Queue a record; the future says, after the commit, whether it was new (False: a duplicate)."""
        if self._failure is not None:
            raise EventLogError(f"{self.path}: the event log writer stopped: {self._failure}")
        assert self._loop is not None, "EventLog.start() first"
        future: asyncio.Future[bool] = self._loop.create_future()
        self._pending[record.id] = future
        self._queue.put(("event", record))
        return future

    def append_many(self, records: list[EventRecord]) -> None:
        """Queue records in one hand-over to the writer, without a future each: for a caller that learns of
        their commit from its listener (the hall folding a run of device reports)."""
        if self._failure is not None:
            raise EventLogError(f"{self.path}: the event log writer stopped: {self._failure}")
        assert self._loop is not None, "EventLog.start() first"
        self._queue.put(("events", records))

    async def flush(self) -> None:
        """Wait until everything appended so far is committed."""
        assert self._loop is not None, "EventLog.start() first"
        done: asyncio.Future[bool] = self._loop.create_future()
        self._queue.put(("barrier", done))
        await done

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Queue a snapshot; it commits after every event queued before it."""
        self._queue.put(("snapshot", snapshot))

    async def close(self) -> None:
        """Commit what is queued and stop the writer."""
        if self._thread is not None:
            self._queue.put(None)
            await asyncio.to_thread(self._thread.join)
            self._thread = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    @property
    def writer(self) -> WriterProcess | None:
        """The writer process's hub end, once started: its pid, how often it started, how each one ended."""
        return self._writer

    def _write_loop(self) -> None:
        assert self._writer is not None
        stop = False
        while not stop:
            item = self._queue.get()
            batch: list[tuple[str, Any]] = []
            while item is not None:
                if item[0] == "events":
                    batch.extend([("event", record) for record in item[1]])
                else:
                    batch.append(item)
                if len(batch) >= self.batch_max:
                    break
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            if item is None:
                stop = True
            if not batch:
                continue
            try:
                records, inserted, barriers = self._commit(self._writer, batch)
            except BaseException as exc:  # disk full, I/O error: stop accepting rather than pretend
                self._failure = exc
                assert self._loop is not None
                self._loop.call_soon_threadsafe(self._fail_pending, exc)
                break
            assert self._loop is not None
            self._loop.call_soon_threadsafe(self._committed, records, inserted, barriers)
        self._writer.close()

    @staticmethod
    def _commit(
        writer: WriterProcess, batch: list[tuple[str, Any]]
    ) -> tuple[list[EventRecord], list[bool], list[asyncio.Future[bool]]]:
        """Commit one batch of queued items through the writer; the records, whether each is stored, and
        the barriers it passed."""
        records: list[EventRecord] = [item for kind, item in batch if kind == "event"]
        snapshots = [
            (s.match_id, s.offset, s.at, pack_snapshot(s.state)) for kind, s in batch if kind == "snapshot"
        ]
        barriers = [item for kind, item in batch if kind == "barrier"]
        inserted = writer.commit([_row(r) for r in records], snapshots)
        return records, [True] * len(records) if inserted is None else inserted, barriers

    def _committed(
        self, records: list[EventRecord], inserted: list[bool], barriers: list[asyncio.Future[bool]]
    ) -> None:
        self.commits += 1
        self.committed_events += len(records)
        for listener in self._listeners:
            listener(records, inserted)
        for record, new in zip(records, inserted, strict=True):
            future = self._pending.pop(record.id, None)
            if future is not None and not future.done():
                future.set_result(new)
        for barrier in barriers:
            if not barrier.done():
                barrier.set_result(True)

    def _fail_pending(self, exc: BaseException) -> None:
        error = EventLogError(f"{self.path}: could not commit: {exc}")
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[EventLog]:
    """The log at `path` for reading only, beside a hub that may be writing it (WAL): nothing is created in it
    or changed, and every read sees the log as it stood when it was opened (one read transaction)."""
    if not path.is_file():
        raise EventLogError(f"{path}: no event log here / burada olay kaydı yok")
    eventlog = EventLog(path)
    try:
        conn = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA query_only=ON")
        conn.execute("PRAGMA busy_timeout=5000")
        conn.execute("BEGIN")
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise EventLogError(
            f"{path}: not a readable Boardcast event log ({exc}). / Olay kaydı okunamıyor."
        ) from exc
    if row is None or int(row[0]) != SCHEMA_VERSION:
        conn.close()
        raise EventLogError(
            f"{path}: event log schema {row[0] if row else 'missing'} is not the {SCHEMA_VERSION} this Boardcast reads. "
            f"/ Olay kaydının şeması bu sürümle okunamıyor."
        )
    eventlog._reader = conn
    try:
        yield eventlog
    finally:
        eventlog._reader = None
        conn.close()


def _record(row: tuple[Any, ...]) -> EventRecord:
    """An `EventRecord` from a row in the SELECT's column order."""
    return EventRecord(
        row[0], row[1], row[2], unpack(row[9]), row[3], row[4], row[5], row[6], row[7], row[8], row[10]
    )
