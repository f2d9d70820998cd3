"""Hub-to-device commands over a real pty: acknowledged, resent with the same seq, never done twice, given
up clearly. The rest of what a command does (no-ACK devices, refusals) is in `test_wire_protocol.py`."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

import pytest

from boardcast_sim.pty import open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from devices.command import CommandFailed
from devices.observations import DeviceHello, ScoreboardState
from devices.wire.codec import Frame, MessageType, WireCodec
from devices.wire.messages import Command, encode_report
from devices.wire.session import DeviceSession
from tests.devices.support import FAST, RecordingSink, eventually, running


def hello(protocol: int = 1, capabilities: tuple[str, ...] = ("resync", "ack")) -> DeviceHello:
    return DeviceHello("man-1", "tt-scoreboard", "manual", "0.1", protocol, 77, capabilities)


class ManualDevice:
    """A device written by hand on the pty master: sends chosen frames, records the hub's commands."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.codec = WireCodec()
        self.received: list[Frame] = []

    def send(self, seq: int, report) -> None:
        os.write(self.fd, encode_report(report, seq))

    def poll(self) -> list[Frame]:
        try:
            data = os.read(self.fd, 4096)
        except BlockingIOError:
            return self.received
        self.received += [f for f in self.codec.feed(data) if isinstance(f, Frame)]
        return self.received

    def commands(self) -> list[str]:
        return [f.body["cmd"] for f in self.poll() if f.type is MessageType.COMMAND]


@contextlib.asynccontextmanager
async def manual_device() -> AsyncIterator[tuple[ManualDevice, RecordingSink, DeviceSession]]:
    """A hand-written device on a pty, a session reading it, and the session's first resync received."""
    with open_pty_pair() as pair:
        os.set_blocking(pair.master_fd, False)
        device = ManualDevice(pair.master_fd)
        sink = RecordingSink()
        session = DeviceSession.for_url(pair.slave_path, sink, backoff=FAST)
        async with running(session.run()):
            await eventually(lambda: "resync" in device.commands())
            yield device, sink, session


async def connected_board(**options):
    pair = open_pty_pair()
    board = TableTennisScoreboard("tt-c", seed=1, speed=1, **options)
    sink = RecordingSink()
    session = DeviceSession.for_url(pair.slave_path, sink, backoff=FAST)
    return pair, board, sink, session


async def test_a_command_is_acknowledged_and_done_once() -> None:
    pair, board, sink, session = await connected_board()
    with pair:
        async with running(board.run_on_fd(pair.master_fd), session.run()):
            await eventually(lambda: any(isinstance(o.report, ScoreboardState) for o in sink.observations))
            ack = await session.command(Command.show_text("Masa 4: mola / Table 4: break"))
    assert ack.ok is True and ack.attempts == 1
    assert board.shown_text == "Masa 4: mola / Table 4: break"


async def test_a_lost_ack_is_resent_with_the_same_seq_and_not_done_twice() -> None:
    pair, board, sink, session = await connected_board()
    with pair:
        async with running(board.run_on_fd(pair.master_fd), session.run()):
            await eventually(lambda: any(isinstance(o.report, ScoreboardState) for o in sink.observations))
            # the session's own first command (resync) is acknowledged before the fault is set: the lost ack
            # is the show_text's, however the session's start and the board's first report interleave
            await eventually(lambda: any(c.cmd == "resync" for c in board.commands))
            board.drop_acks = 1
            ack = await session.command(Command.show_text("tekrar"), interval=0.3)
    assert ack.ok is True and ack.attempts == 2
    shows = [c for c in board.commands if c.cmd == "show_text"]
    assert len(shows) == 2  # received twice...
    assert board.shown_text == "tekrar"  # ...done once (the second was acknowledged only)


async def test_a_device_that_never_acknowledges_fails_clearly_after_the_retries() -> None:
    async with manual_device() as (device, sink, session):
        device.send(0, hello())
        await eventually(lambda: len(sink.observations) == 1)
        with pytest.raises(CommandFailed, match="did not acknowledge 'show_text' after 3 tries"):
            await session.command(Command.show_text("x"), retries=2, interval=0.1)
        await eventually(lambda: device.commands().count("show_text") == 3)
        seqs = {
            f.seq for f in device.received if f.type is MessageType.COMMAND and f.body["cmd"] == "show_text"
        }
        assert len(seqs) == 1  # every resend carried the same seq
