"""A session on a link that hands each read over as it comes (`PushReader`): nothing before the hand-over is
lost, every port read in one turn of the loop is taken in one callback in the order read, a fault of ours
still ends the session, and the link's end still ends it. Serial ports are read this way (`open_serial`)."""

from __future__ import annotations

import asyncio
import os

import pytest

from benchmarks.ingest import SilentWriter
from boardcast_sim.pty import open_pty_pair
from devices.observations import DeviceFamily, DeviceHello, LinkState, ScoreboardState
from devices.transports.base import PushReader
from devices.transports.serial import open_serial
from devices.wire.messages import encode_report
from devices.wire.session import DeviceSession
from tests.devices.support import EPOCH, FAST, RecordingSink, eventually, running


def frames(device_id: str, points: int, first: int = 0) -> list[bytes]:
    """A scoreboard's HELLO (frame `first`), then its display after each of `points` points to side A."""
    hello = DeviceHello(device_id, DeviceFamily.TT_SCOREBOARD.value, "test", "t-1", 1, EPOCH, ("ack",))
    out = [b"\x00" + encode_report(hello, first)]
    for n in range(1, points + 1):
        out.append(encode_report(ScoreboardState((n, 0), (0, 0)), first + n))
    return out


def in_memory(reader: PushReader):
    async def open_():
        return reader, SilentWriter()

    return open_


async def test_a_serial_port_is_read_by_push() -> None:
    with open_pty_pair() as pair:
        reader, writer = await open_serial(f"serial://{pair.slave_path}?baud=115200")
        try:
            assert isinstance(reader, PushReader)
            os.write(pair.master_fd, b"abc")
            assert await asyncio.wait_for(reader.read(10), 2) == b"abc"  # no push set: read as a stream
            got: list[bytes] = []
            reader.push = got.append
            os.write(pair.master_fd, b"def")
            async with asyncio.timeout(2):
                while not got:
                    await asyncio.sleep(0.005)
            assert got == [b"def"] and reader.reads == 2
        finally:
            writer.close()


async def test_what_came_before_the_hand_over_is_taken_first_and_nothing_is_lost() -> None:
    sent = frames("tt-1", 30)
    reader = PushReader()
    reader.feed_data(b"".join(sent[:5]))  # came before the session took the link
    sink = RecordingSink()
    session = DeviceSession("mem://tt-1", in_memory(reader), sink, backoff=FAST)
    async with running(session.run()):
        await eventually(lambda: len(sink.observations) == 5)
        for frame in sent[5:]:
            reader.feed_data(frame)
        await eventually(lambda: len(sink.observations) == 31)
    assert [o.seq for o in sink.observations] == list(range(31))
    assert [s.points for s in sink.states()] == [(n, 0) for n in range(1, 31)]


async def test_ports_read_in_one_turn_are_taken_together_each_in_its_order() -> None:
    readers = [PushReader() for _ in range(5)]
    sinks = [RecordingSink() for _ in readers]
    sessions = [
        DeviceSession(f"mem://tt-{i}", in_memory(r), s, backoff=FAST)
        for i, (r, s) in enumerate(zip(readers, sinks, strict=True))
    ]
    sent = [frames(f"tt-{i}", 11) for i in range(5)]
    async with running(*(s.run() for s in sessions)):
        await eventually(lambda: all(r.push is not None for r in readers))
        for n in range(12):
            for reader, stream in zip(readers, sent, strict=True):  # one turn: every port has bytes
                reader.feed_data(stream[n][:3])
                reader.feed_data(stream[n][3:])  # a frame in two reads is one frame
        await eventually(lambda: all(len(s.observations) == 12 for s in sinks))
    for i, sink in enumerate(sinks):
        assert {o.device_id for o in sink.observations} == {f"tt-{i}"}
        assert [o.seq for o in sink.observations] == list(range(12))
        assert sink.batches == [12]  # all of one turn's reads went to the sink at once, in order


class _FailingSink(RecordingSink):
    def observe_many(self, observations) -> None:  # type: ignore[no-untyped-def]
        super().observe_many(observations)
        if len(self.observations) >= 3:
            raise RuntimeError("a fault of the hub's")


async def test_a_fault_of_ours_ends_the_session_as_it_did_when_reading_in_a_loop() -> None:
    reader = PushReader()
    session = DeviceSession("mem://tt-1", in_memory(reader), _FailingSink(), backoff=FAST)
    task = asyncio.get_running_loop().create_task(session.run())
    await asyncio.sleep(0.05)
    for frame in frames("tt-1", 5):
        reader.feed_data(frame)
        await asyncio.sleep(0)
    with pytest.raises(BaseException) as raised:
        await asyncio.wait_for(task, 2)
    assert "a fault of the hub's" in repr(raised.value) or any(
        "a fault of the hub's" in repr(e) for e in getattr(raised.value, "exceptions", ())
    )


async def test_the_links_end_ends_the_read_and_the_session_opens_another() -> None:
    readers: list[PushReader] = []

    async def open_():
        readers.append(PushReader())
        return readers[-1], SilentWriter()

    sink = RecordingSink()
    session = DeviceSession("mem://tt-1", open_, sink, backoff=FAST)
    async with running(session.run()):
        await eventually(lambda: readers and readers[0].push is not None)
        first = readers[0]
        for frame in frames("tt-1", 3):
            first.feed_data(frame)
        first.feed_eof()  # the cable is pulled
        await eventually(lambda: sink.connects() == 2)
        assert first.push is None
        first.feed_data(b"bytes on a link the session has left")  # taken by no one, and no error
        await eventually(lambda: readers[1].push is not None)
        for frame in frames("tt-1", 1, first=4):  # the board, plugged in again, says HELLO and goes on
            readers[1].feed_data(frame)
        await eventually(lambda: len(sink.observations) == 6)
    assert LinkState.DISCONNECTED in sink.link_states() and sink.errors == []
    assert [o.seq for o in sink.observations] == [0, 1, 2, 3, 4, 5]
