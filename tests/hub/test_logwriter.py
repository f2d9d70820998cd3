"""The event log's writer process: killed, it is started again and nothing is lost or stored twice; it
outlives a SIGTERM meant for the hub, ends with the hub, and stores what marshal cannot carry."""

from __future__ import annotations

import asyncio
import enum
import marshal
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hub.log.eventlog import EventLog, EventLogError, EventRecord
from hub.log.writer import WriterProcess, encode_batch, lock_path, wait_for_writers
from tests.hub import test_eventlog as eventlog_tests


def device_record(log: EventLog, seq: int, body: dict | None = None) -> EventRecord:
    return eventlog_tests.device_record(log, seq, body or {"seq": seq})


async def open_log(path: Path) -> EventLog:
    log = await eventlog_tests.open_log(path)
    await log.flush()  # the first batch starts the process
    return log


def writer_pid(log: EventLog) -> int:
    assert log.writer is not None and log.writer.pid is not None
    return log.writer.pid


def alive(pid: int) -> bool:
    """Running (a zombie nobody has reaped yet counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def stored_seqs(path: Path) -> list[int]:
    db = sqlite3.connect(path)
    try:
        return [row[0] for row in db.execute("SELECT seq FROM events ORDER BY id")]
    finally:
        db.close()


async def test_a_writer_killed_between_batches_is_started_again(tmp_path: Path) -> None:
    log = await open_log(tmp_path / "log.sqlite3")
    try:
        assert await log.append(device_record(log, 1)) is True
        first = writer_pid(log)
        os.kill(first, signal.SIGKILL)
        await asyncio.sleep(0.1)
        assert await log.append(device_record(log, 2)) is True
        assert writer_pid(log) != first
        assert log.writer is not None and log.writer.starts == 2
        assert log.writer.exits == [-signal.SIGKILL]
        assert stored_seqs(log.path) == [1, 2]
    finally:
        await log.close()


async def test_a_writer_killed_holding_a_batch_loses_nothing_and_stores_nothing_twice(tmp_path: Path) -> None:
    log = await open_log(tmp_path / "log.sqlite3")
    try:
        pid = writer_pid(log)
        os.kill(pid, signal.SIGSTOP)  # it takes no more batches: the next one waits in its pipe
        futures = [log.append(device_record(log, seq)) for seq in range(1, 201)]
        futures.append(log.append(device_record(log, 50)))  # a resent frame: not stored, said so
        await asyncio.sleep(0.3)
        assert not any(f.done() for f in futures)  # nothing is acknowledged before its commit
        os.kill(pid, signal.SIGKILL)
        results = await asyncio.wait_for(asyncio.gather(*futures), 10)
        assert results == [True] * 200 + [False]
        assert stored_seqs(log.path) == list(range(1, 201))
        assert log.writer is not None and log.writer.starts == 2
    finally:
        await log.close()


def test_a_batch_sent_again_after_its_commit_is_reported_stored(tmp_path: Path) -> None:
    # a writer that dies after committing and before answering: its successor gets the same batch
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    writer = WriterProcess(log.path)
    try:
        records = [device_record(log, seq) for seq in (1, 2, 3)]
        batch = [("event", r) for r in records]
        assert EventLog._commit(writer, batch)[1] == [True, True, True]
        assert EventLog._commit(writer, batch)[1] == [True, True, True]
        resent = [("event", device_record(log, 2))]  # the device's frame again, under a new id
        assert EventLog._commit(writer, resent)[1] == [False]
        assert stored_seqs(log.path) == [1, 2, 3]
    finally:
        writer.close()
        assert log._reader is not None
        log._reader.close()


async def test_the_writer_outlives_a_sigterm_meant_for_the_hub_and_ends_with_the_log(tmp_path: Path) -> None:
    log = await open_log(tmp_path / "log.sqlite3")
    pid = writer_pid(log)
    try:
        os.kill(pid, signal.SIGTERM)
        os.kill(pid, signal.SIGINT)
        assert await log.append(device_record(log, 1)) is True
        assert writer_pid(log) == pid
    finally:
        await log.close()
    assert not alive(pid)


class Side(enum.StrEnum):
    HOME = "home"


async def test_a_body_marshal_cannot_carry_is_packed_by_the_hub(tmp_path: Path) -> None:
    plain = (1, "k", 1.0, None, None, None, None, None, None, {"side": "home"}, None)
    assert marshal.loads(encode_batch([plain], []))[0] is False  # the process packs it
    enum_member = (*plain[:9], {"side": Side.HOME}, None)
    packed, rows, _ = marshal.loads(encode_batch([enum_member], []))
    assert packed is True and rows[0][9] == b'{"side":"home"}'
    log = await open_log(tmp_path / "log.sqlite3")
    try:
        assert await log.append(device_record(log, 1, {"side": Side.HOME, "n": None})) is True
        assert [e.body for e in log.events()] == [{"side": "home", "n": None}]
    finally:
        await log.close()


def test_a_writer_that_cannot_open_the_file_says_why(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    assert log._reader is not None
    log._reader.close()
    writer = WriterProcess(tmp_path)  # a directory: SQLite cannot open it
    with pytest.raises(EventLogError, match="writer process could not start"):
        writer.commit([], [])


def test_the_writer_ends_when_the_hub_is_killed(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        from hub.log.eventlog import EventLog, EventRecord

        async def main():
            log = EventLog({str(tmp_path / "log.sqlite3")!r})
            log.open()
            log.start()
            rec = EventRecord(id=log.next_id(), kind="k", at=1.0, body={{}}, device_id="d", boot_epoch=1, seq=1)
            await log.append(rec)
            print(log.writer.pid, flush=True)
            await asyncio.sleep(60)

        asyncio.run(main())
        """
    )
    hub = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert hub.stdout is not None
        pid = int(hub.stdout.readline())
        assert alive(pid)
        hub.kill()
        hub.wait()
        deadline = time.monotonic() + 10
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(pid), "the writer process outlived the hub"
    finally:
        hub.kill()
        hub.wait()
        if hub.stdout is not None:
            hub.stdout.close()


async def test_a_batch_the_writer_cannot_store_stops_the_log_with_the_reason(tmp_path: Path) -> None:
    # a set has no JSON or msgpack form: the process rolls the batch back and says why; the log takes no more
    log = await open_log(tmp_path / "log.sqlite3")
    try:
        with pytest.raises(EventLogError, match="could not commit: TypeError"):
            await log.append(device_record(log, 1, {"set": {1, 2}}))
        with pytest.raises(EventLogError, match="writer stopped"):
            log.append(device_record(log, 2))
        assert stored_seqs(log.path) == []
    finally:
        await log.close()


async def test_a_writer_left_by_a_killed_hub_finishes_before_the_next_hub_reads_the_log(
    tmp_path: Path,
) -> None:
    """A writer process holds the log's writer lock while it lives; opening the log waits for it, and says so
    when a writer is still at it (another hub on the same data directory)."""
    path = tmp_path / "events.sqlite3"
    log = await open_log(path)
    try:
        log.append(device_record(log, 1))
        await log.flush()
        with pytest.raises(EventLogError, match="another process is still writing this event log"):
            wait_for_writers(path, within=0.2)
    finally:
        await log.close()
    started = time.monotonic()
    wait_for_writers(path, within=5)  # the writer ended with the log: nothing to wait for
    assert time.monotonic() - started < 1.0


def test_opening_the_log_waits_for_a_writer_still_committing(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite3"
    holder = subprocess.Popen(  # a stand-in for a writer committing its last batch: it holds the lock 0.5 s
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import fcntl, os, sys, time
                fd = os.open({str(lock_path(path))!r}, os.O_RDWR | os.O_CREAT, 0o600)
                fcntl.flock(fd, fcntl.LOCK_EX)
                print("held", flush=True)
                time.sleep(0.5)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        EventLog(path).open()  # returns only once the holder has let go
        assert time.monotonic() - started >= 0.3, "the log was read while a writer still held it"
    finally:
        holder.wait(10)
