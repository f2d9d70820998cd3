"""The event log's file: its schema, how a body is stored, and the one transaction that writes a batch.

Shared by the hub, which opens and reads the file (`hub.log.eventlog`), and the writer process, which commits to
it (`hub.log.writer`); it imports nothing else of the hub, so the writer process starts in a few imports.
"""

from __future__ import annotations

import contextlib
import functools
import re
import sqlite3
from pathlib import Path
from typing import Any

import msgpack
import msgspec
import orjson


class EventLogError(RuntimeError):
    """The log cannot be opened or trusted; the message says which file and what to do."""


SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    at REAL NOT NULL,
    match_id TEXT,
    "offset" INTEGER,
    device_id TEXT,
    boot_epoch INTEGER,
    seq INTEGER,
    actor TEXT,
    body BLOB NOT NULL,
    raw BLOB
);
CREATE UNIQUE INDEX IF NOT EXISTS events_device_key ON events (device_id, boot_epoch, seq)
    WHERE device_id IS NOT NULL AND seq IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS events_match_offset ON events (match_id, "offset")
    WHERE match_id IS NOT NULL AND "offset" IS NOT NULL;
CREATE TABLE IF NOT EXISTS snapshots (
    match_id TEXT NOT NULL,
    "offset" INTEGER NOT NULL,
    at REAL NOT NULL,
    state BLOB NOT NULL,
    PRIMARY KEY (match_id, "offset")
);
"""

_INSERT_EVENT = (
    'INSERT OR IGNORE INTO events (id, kind, at, match_id, "offset", device_id, boot_epoch, seq, actor, body, raw)'
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_EVENT_COLUMNS = 11
# Rows per INSERT statement at most (11,000 parameters: SQLite has allowed 32,766 since 3.32). A batch goes
# as a few statements of up to this many rows, not row by row: the sqlite3 module lets go of the GIL around
# each `sqlite3_step` and wins it back after each; while the writer was a thread beside a busy event loop,
# `executemany` (one step per row) cost 109 µs a row against 23 µs with the loop idle.
_ROWS_PER_INSERT = 1000
_INSERT_SNAPSHOT = 'INSERT OR REPLACE INTO snapshots (match_id, "offset", at, state) VALUES (?, ?, ?, ?)'


def pack(value: Any) -> bytes:
    """Encode a body (or a snapshot) for storage: a JSON object where it reads back equal, else msgpack.

    Bodies are dicts of plain data, and orjson reads them back in half the time msgpack takes (replay reads
    every body of the log). What JSON cannot hold exactly (bytes, integer keys, a non-finite float, which
    orjson would write as null) goes as msgpack, as every body did before; `unpack` reads both.
    """
    if type(value) is dict:
        try:
            data = orjson.dumps(value, option=_JSON_PLAIN_ONLY)
        except TypeError:
            pass
        else:
            if b"null" not in data or _no_non_finite_float(value) or orjson.loads(data) == value:
                return data
    return msgpack.packb(value, use_bin_type=True)  # type: ignore[no-any-return]  # msgpack ships no types


def pack_snapshot(state: Any) -> bytes:
    """Encode a match's snapshot for storage: msgpack, written by msgspec in one C call.

    A snapshot is read once, when the hub starts; written as every match finishes, in the hub (the writer
    process gets bytes), so the cheapest exact encoding wins: ~30 µs for a finished table-tennis match's
    9 KB, against 51 µs for `marshal` to carry it and 70 µs for `pack` (JSON and its check). msgpack keeps
    every value `pack` keeps (a NaN, bytes, integer keys); `unpack` reads it. Anything msgspec will not
    encode goes to `pack`, which stores it or says why not."""
    try:
        return msgspec.msgpack.encode(state)
    except (TypeError, ValueError, OverflowError):
        return pack(state)


def unpack_snapshot(data: bytes) -> Any:
    """Decode a stored snapshot: `pack_snapshot`'s msgpack read by msgspec in one C call, what `pack` stored
    (JSON, or msgpack from before) as `unpack` reads it.

    A start decodes every match's snapshot: for 10,000 finished table-tennis matches (80 MB) msgspec took
    1.9 s where `msgpack.unpackb` took 3.2. Both give the same values for what `pack_snapshot` writes (maps
    with any keys, bytes, NaN); they differ only on msgpack extension types, which it never writes."""
    if data[0] == _JSON_OBJECT and len(data) > 1:
        return orjson.loads(data)
    try:
        return msgspec.msgpack.decode(data)
    except msgspec.DecodeError:
        return unpack(data)


# a msgpack float 64 whose exponent is all ones: an infinity or a NaN (msgspec writes every float so)
_NON_FINITE_DOUBLE = re.compile(rb"\xcb[\x7f\xff][\xf0-\xff]")


def _no_non_finite_float(value: Any) -> bool:
    """True if value surely holds no NaN or infinity, which orjson would write as null like None.

    Nearly every body holds a None, and reading its JSON back to compare took 4 µs of the 5 a body cost. The
    msgpack encoding is written in C in under 1 µs and names each float's bytes; a match of the pattern
    anywhere (in a string, too) only means "not sure", and the caller then compares the round trip."""
    try:
        return _NON_FINITE_DOUBLE.search(msgspec.msgpack.encode(value)) is None
    except (TypeError, ValueError, OverflowError):
        return False


def unpack(data: bytes) -> Any:
    """Decode a stored body: a JSON object starts with "{", which as msgpack is a one-byte integer (123)."""
    if data[0] == _JSON_OBJECT and len(data) > 1:
        return orjson.loads(data)
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


_JSON_OBJECT = ord("{")
# what orjson would turn into something else (a datetime into text, a str subclass into str) raises instead:
# such a body goes as msgpack, which keeps it or refuses it as it always did
_JSON_PLAIN_ONLY = (
    orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS
)


@functools.lru_cache(maxsize=64)
def _insert_sql(rows: int, sql: str = _INSERT_EVENT, columns: int = _EVENT_COLUMNS) -> str:
    """`sql`, an INSERT of one row of `columns` values, for `rows` rows in one statement."""
    one = "(" + ", ".join("?" * columns) + ")"
    head, _, _ = sql.partition(" VALUES ")
    return head + " VALUES " + ", ".join([one] * rows)


def _insert_rows(
    conn: sqlite3.Connection,
    rows: list[tuple[Any, ...]],
    sql: str = _INSERT_EVENT,
    columns: int = _EVENT_COLUMNS,
) -> None:
    """Insert rows with as few statements as `_ROWS_PER_INSERT` allows (one GIL hand-over each)."""
    for start in range(0, len(rows), _ROWS_PER_INSERT):
        chunk = rows[start : start + _ROWS_PER_INSERT]
        conn.execute(_insert_sql(len(chunk), sql, columns), [value for row in chunk for value in row])


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the log file in WAL mode with `synchronous=FULL` (a commit survives power loss)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=5000")
    if conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) < _ROWS_PER_INSERT * _EVENT_COLUMNS:
        conn.close()
        raise EventLogError(
            f"SQLite {sqlite3.sqlite_version} takes too few parameters per statement for the event log "
            f"(needs {_ROWS_PER_INSERT * _EVENT_COLUMNS}; SQLite 3.32 or newer has 32,766). "
            f"/ SQLite sürümü çok eski: 3.32 veya daha yenisi gerekli."
        )
    return conn


def commit(
    conn: sqlite3.Connection, rows: list[tuple[Any, ...]], snapshots: list[tuple[Any, ...]]
) -> list[bool] | None:
    """Write event rows and snapshot rows (bodies packed) in one transaction; None if every event row is new,
    else for each whether it is stored.

    The usual batch, every row new, goes as a few multi-row statements and one count of changed rows proves
    it. A batch holding a duplicate is rolled back and written row by row, so each row learns whether it is
    stored: inserted now, or already there under its own id with the same identity (a batch sent again
    because the writer process stopped after committing it). A device's resent frame comes with a new id
    and is ignored by its device key: not stored.
    """
    conn.execute("BEGIN")
    try:
        before = conn.total_changes
        _insert_rows(conn, rows)
        if conn.total_changes - before == len(rows):
            _insert_rows(conn, snapshots, _INSERT_SNAPSHOT, 4)
            conn.execute("COMMIT")
            return None
        conn.execute("ROLLBACK")
        conn.execute("BEGIN")
        inserted = [
            conn.execute(_INSERT_EVENT, row).rowcount == 1 or _stored_before(conn, row) for row in rows
        ]
        _insert_rows(conn, snapshots, _INSERT_SNAPSHOT, 4)
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    return inserted


def _stored_before(conn: sqlite3.Connection, row: tuple[Any, ...]) -> bool:
    """Whether the log holds this row's id for this very event (kind, match offset and device key)."""
    found: tuple[Any, ...] | None = conn.execute(
        'SELECT kind, match_id, "offset", device_id, boot_epoch, seq FROM events WHERE id = ?', (row[0],)
    ).fetchone()
    return found == (row[1], *row[3:8])
