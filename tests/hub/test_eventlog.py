"""The event log: commits before acknowledging, stores a device frame once, refuses a damaged file."""

from __future__ import annotations

import asyncio
import math
import sqlite3
from pathlib import Path

import msgpack
import pytest

from hub.log.eventlog import (
    EventLog,
    EventLogError,
    EventRecord,
    Snapshot,
    pack,
    unpack,
    unpack_snapshot,
)
from hub.log.store import _INSERT_EVENT, _ROWS_PER_INSERT, connect, pack_snapshot
from hub.log.writer import WriterProcess


def device_record(log: EventLog, seq: int, body: dict | None = None) -> EventRecord:
    return EventRecord(
        id=log.next_id(),
        kind="device.heartbeat",
        at=1.0,
        body=body or {},
        device_id="d1",
        boot_epoch=7,
        seq=seq,
    )


async def open_log(path: Path) -> EventLog:
    log = EventLog(path)
    log.open()
    log.start()
    return log


async def test_future_resolves_only_after_the_row_is_readable_from_another_connection(tmp_path: Path) -> None:
    log = await open_log(tmp_path / "log.sqlite3")
    try:
        stored = await log.append(device_record(log, 1, {"battery": 80}))
        assert stored is True
        other = sqlite3.connect(tmp_path / "log.sqlite3")
        assert other.execute("SELECT COUNT(*) FROM events WHERE seq = 1").fetchone()[0] == 1
        other.close()
    finally:
        await log.close()


async def test_the_same_device_frame_is_stored_once(tmp_path: Path) -> None:
    log = await open_log(tmp_path / "log.sqlite3")
    try:
        first = log.append(device_record(log, 5))
        again = log.append(device_record(log, 5))
        assert await asyncio.gather(first, again) == [True, False]
        assert [e.seq for e in log.events()] == [5]
    finally:
        await log.close()


async def test_many_appends_are_grouped_into_few_commits(tmp_path: Path) -> None:
    log = await open_log(tmp_path / "log.sqlite3")
    try:
        results = await asyncio.gather(*(log.append(device_record(log, seq)) for seq in range(2000)))
        assert all(results)
        assert log.committed_events == 2000
        assert log.commits < 200, f"{log.commits} commits for 2000 events: no group commit"
    finally:
        await log.close()


async def test_records_handed_over_together_commit_in_order_among_single_appends(tmp_path: Path) -> None:
    log = await open_log(tmp_path / "log.sqlite3")
    heard: list[tuple[int, bool]] = []
    log.add_listener(
        lambda records, inserted: heard.extend(zip([r.seq for r in records], inserted, strict=True))
    )
    try:
        single = log.append(device_record(log, 1))
        log.append_many([device_record(log, seq) for seq in (2, 3, 4)])
        log.append_many([device_record(log, 3), device_record(log, 5)])  # 3 again: stored once
        last = log.append(device_record(log, 6))
        assert await asyncio.gather(single, last) == [True, True]
        assert [e.seq for e in log.events()] == [1, 2, 3, 4, 5, 6]
        assert heard == [(1, True), (2, True), (3, True), (4, True), (3, False), (5, True), (6, True)]
    finally:
        await log.close()


async def test_listeners_hear_commits_in_order(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    heard: list[int] = []
    log.add_listener(lambda records, inserted: heard.extend(r.seq for r in records))
    log.start()
    try:
        await asyncio.gather(*(log.append(device_record(log, seq)) for seq in range(300)))
        assert heard == list(range(300))
    finally:
        await log.close()


async def test_ids_continue_after_reopen_and_snapshots_keep_the_latest(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite3"
    log = await open_log(path)
    await log.append(device_record(log, 1))
    log.put_snapshot(Snapshot("m1", 10, 1.0, {"v": 10}))
    log.put_snapshot(Snapshot("m1", 20, 2.0, {"v": 20}))
    await log.close()

    log = await open_log(path)
    try:
        assert log.last_id == 1
        assert log.next_id() == 2
        assert log.snapshots()["m1"].state == {"v": 20}
        assert log.device_high_water() == {("d1", 7): 1}
    finally:
        await log.close()


def test_a_file_that_is_not_a_database_is_refused_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(EventLogError, match=r"events\.sqlite3"):
        EventLog(path).open()


async def test_a_torn_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite3"
    log = await open_log(path)
    await asyncio.gather(*(log.append(device_record(log, seq, {"pad": "x" * 500})) for seq in range(500)))
    await log.close()
    checkpoint = sqlite3.connect(path)
    checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    checkpoint.close()
    data = bytearray(path.read_bytes())
    size = len(data)
    del data[size // 2 :]  # a truncated copy, as after a failed disk or an interrupted backup
    data += b"\x00" * 4096
    path.write_bytes(bytes(data))
    with pytest.raises(EventLogError, match=r"damaged|not a readable"):
        EventLog(path).open()


def test_a_batch_holding_duplicates_says_which_rows_were_stored(tmp_path: Path) -> None:
    # the writer inserts a batch at once and falls back to row by row only when a row was a duplicate
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    writer = WriterProcess(log.path)
    try:
        assert EventLog._commit(writer, [("event", device_record(log, s)) for s in (1, 2)])[1] == [True, True]
        batch = [
            ("event", device_record(log, 3)),
            ("event", device_record(log, 2)),  # stored by the batch before
            ("snapshot", Snapshot("M1", 4, 1.0, {"version": 4})),
            ("event", device_record(log, 4)),
            ("event", device_record(log, 4)),  # twice in this batch
        ]
        records, inserted, barriers = EventLog._commit(writer, batch)
        assert [r.seq for r in records] == [3, 2, 4, 4]
        assert inserted == [True, False, True, False]
        assert barriers == []
        assert [e.seq for e in log.events()] == [1, 2, 3, 4]
        assert log.snapshots()["M1"].state == {"version": 4}
        assert writer.starts == 1
    finally:
        writer.close()
        if log._reader is not None:
            log._reader.close()


async def test_a_batch_larger_than_one_insert_statement_is_stored_whole(tmp_path: Path) -> None:
    # the writer inserts up to _ROWS_PER_INSERT rows per statement: a bigger batch goes as several, in order
    log = EventLog(tmp_path / "log.sqlite3", batch_max=5000)
    log.open()
    writer = WriterProcess(log.path)
    try:
        count = _ROWS_PER_INSERT * 2 + 17
        batch = [("event", device_record(log, s, {"n": s})) for s in range(count)]
        records, inserted, _ = EventLog._commit(writer, batch)
        assert inserted == [True] * count
        stored = log.events(limit=count + 10)
        assert [(e.id, e.seq, e.body) for e in stored] == [(r.id, r.seq, {"n": r.seq}) for r in records]
    finally:
        writer.close()
        if log._reader is not None:
            log._reader.close()


BODIES = [
    {"report": {"type": "display", "points": [3, 5], "server": None, "ends": "normal"}, "seq": 9},
    {"text": "null and NaN are words here", "n": None},
    {"nan": float("nan")},  # JSON would write null: kept as msgpack
    {"inf": float("-inf"), "list": [1.5, -0.0]},
    {"raw": b"\x00\xff"},  # bytes: msgpack
    {1: "integer key"},  # msgpack
    {"nested": {"ü": ["ş", {"deep": [True, False, None]}]}},
    {},
    {"deep": [None, {"nan": [1, float("nan")]}], "n": None},  # a NaN beside a None, nested
    {"inf": [None, float("inf")]},
    {
        "looks": [203, 127, -16],
        "n": None,
    },  # its msgpack bytes look like a NaN's (cc cb 7f f0): read back, JSON
]


def _same_body(a: object, b: object) -> bool:
    """Equal, with NaN equal to NaN (as stored bytes would be)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same_body(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_body(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("body", BODIES)
def test_a_body_reads_back_exactly_as_it_was_given(body: dict) -> None:
    stored = pack(body)
    assert _same_body(unpack(stored), body)
    plain = not any(isinstance(v, bytes) for v in body.values()) and all(isinstance(k, str) for k in body)
    finite = not any(word in repr(body) for word in ("nan", "inf"))
    assert (stored[:1] == b"{") == (plain and finite)  # JSON where it is exact, msgpack where it is not


@pytest.mark.parametrize("state", BODIES)
def test_a_snapshot_reads_back_exactly_as_it_was_given(state: dict) -> None:
    stored = pack_snapshot(state)
    assert _same_body(unpack(stored), state)
    assert stored[:1] != b"{"  # msgpack, in one call


@pytest.mark.parametrize("state", BODIES)
def test_a_start_decodes_a_snapshot_as_unpack_does(state: dict) -> None:
    """`unpack_snapshot` (msgspec, what a start uses) reads back what `pack_snapshot` wrote, and what `pack`
    wrote before it (JSON or msgpack), the same values `unpack` gives."""
    for stored in (pack_snapshot(state), pack(state)):
        assert _same_body(unpack_snapshot(stored), state)
        assert _same_body(unpack_snapshot(stored), unpack(stored))


@pytest.mark.parametrize("state", [{"odd": object()}, {"big": 2**70}])
def test_a_snapshot_msgspec_will_not_encode_goes_to_pack_and_fails_as_it_does(state: dict) -> None:
    with pytest.raises(Exception) as packed:
        pack(state)
    with pytest.raises(type(packed.value)):
        pack_snapshot(state)  # the log then stops and says why, as before


async def test_snapshots_of_a_finished_match_restore_it_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite3"
    log = await open_log(path)
    state = {"v": 3, "nan": float("nan"), "raw": b"\x00", 7: [1.5, None], "log": [{"at": 1.25, "p": [1, 2]}]}
    log.put_snapshot(Snapshot("m1", 3, 1.0, state))
    await log.close()
    log = await open_log(path)
    try:
        assert _same_body(log.snapshots()["m1"].state, state)
    finally:
        await log.close()


async def test_a_log_of_msgpack_bodies_reads_as_before(tmp_path: Path) -> None:
    # logs written before bodies went JSON hold msgpack: both kinds read back the same, row by row and per match
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    conn = connect(log.path)
    rows = []
    for body in BODIES[:2] + BODIES[6:8]:
        for encoded in (pack(body), msgpack.packb(body, use_bin_type=True)):
            rows.append(
                (
                    len(rows) + 1,
                    "device.report",
                    1.0,
                    "M1",
                    len(rows) + 1,
                    None,
                    None,
                    None,
                    None,
                    encoded,
                    None,
                )
            )
    conn.executemany(_INSERT_EVENT, rows)
    assert {bytes(r[9][:1]) for r in rows} == {
        b"{",
        b"\x82",
        b"\x81",
        b"\x80",
    }  # both formats are in the file
    try:
        bodies = [e.body for e in log.events()]
        assert bodies[0::2] == bodies[1::2]
        assert [row[4] for row in log.match_tail("M1")] == bodies
    finally:
        conn.close()
        if log._reader is not None:
            log._reader.close()
