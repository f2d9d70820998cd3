"""A DGT board session end to end on real pseudo-terminals through pyserial, reading the simulated board:
every board state in order with the clock, silence and unplug with the board read again, a clock command
acknowledged and resent. What the session decides (handshake, catch-up, keep-alive, refusals, garbage, the
clock command queue) is tested without a pty in `test_dgt_protocol.py`."""

from __future__ import annotations

import asyncio
import itertools
import os
from pathlib import Path
from typing import Any

import pytest

from boardcast_sim.dgt_board import OPERA_GAME, DgtBoard, games_from_pgn
from boardcast_sim.pty import PtyPair, open_pty_pair
from devices.command import CommandFailed
from devices.dgt.codec import (
    ClockCommand,
    DgtCodec,
    encode_message,
)
from devices.dgt.codec import (
    Command as DgtCommand,
)
from devices.dgt.messages import (
    BoardDump,
    FieldUpdate,
    SerialNumber,
    Version,
)
from devices.dgt.session import DgtSession, clock_text, dgt_device_id, parse_dgt_url
from devices.observations import (
    ChessBoardState,
    ChessClockState,
    DeviceEvent,
    DeviceHello,
    LinkState,
)
from devices.wire.messages import Command
from tests.devices.support import FAST, RecordingSink, eventually, running

SERIAL = "2394600712"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
CLOCK_ASCII = 0x2B00 | ClockCommand.ASCII


def board_for(**options: Any) -> DgtBoard:
    settings: dict[str, Any] = {"speed": 300, "time_control": "300+2", "seed": 3} | options
    return DgtBoard(games_from_pgn(OPERA_GAME), **settings)


def session_on(
    path: PtyPair | Path | str, sink: RecordingSink, query: str = "", **options: Any
) -> DgtSession:
    port = path.slave_path if isinstance(path, PtyPair) else str(path)
    settings: dict[str, Any] = {
        "backoff": FAST,
        "keepalive_s": 0.1,
        "silence_timeout": 0.6,
        "handshake_timeout": 1.0,
        "dump_retry_s": 0.2,
        "clock_retry_s": 0.3,
    } | options
    return DgtSession(f"serial://{port}?protocol=dgt{query}", sink, **settings)


def board_states(sink: RecordingSink) -> list[str]:
    return [o.report.board_fen for o in sink.observations if isinstance(o.report, ChessBoardState)]


def clock_states(sink: RecordingSink) -> list[ChessClockState]:
    return [o.report for o in sink.observations if isinstance(o.report, ChessClockState)]


def hellos(sink: RecordingSink) -> list[DeviceHello]:
    return [o.report for o in sink.observations if isinstance(o.report, DeviceHello)]


def acks(sink: RecordingSink) -> list[DeviceEvent]:
    return [
        o.report for o in sink.observations if isinstance(o.report, DeviceEvent) and o.report.kind == "ack"
    ]


def is_subsequence(wanted: list[str], seen: list[str]) -> bool:
    remaining = iter(seen)
    return all(any(item == other for other in remaining) for item in wanted)


async def test_hello_then_every_board_state_in_order_then_the_clock_with_its_increments() -> None:
    with open_pty_pair() as pair:
        board = board_for()
        sink = RecordingSink()
        session = session_on(pair, sink)
        async with running(board.run_on_fd(pair.master_fd), session.run()):
            await asyncio.wait_for(board.done.wait(), 10)
            await eventually(lambda: board_states(sink)[-1:] == [board.placement.board_fen()])
            await eventually(lambda: clock_states(sink)[-1].running is None)

    first = sink.observations[0]
    assert first.report == DeviceHello(
        f"dgt-{SERIAL}", "chess-board", "DGT e-board", "1.07", 1, first.boot_epoch, first.report.capabilities
    )
    assert first.raw == encode_message(SerialNumber(SERIAL, long=True)) + encode_message(Version(1, 7))
    assert all((o.device_id, o.boot_epoch) == (f"dgt-{SERIAL}", first.boot_epoch) for o in sink.observations)
    assert [o.seq for o in sink.observations] == list(range(len(sink.observations)))
    # Every square change the board made arrives, in order: the dump first, then one state per update.
    assert board_states(sink) == board.history
    assert is_subsequence(board.positions, board_states(sink))
    assert len(board.positions) == 34  # the start and 33 plies of the Opera game
    for observation in sink.observations[1:]:
        message = DgtCodec().feed(observation.raw)
        assert len(message) == 1 and message[0].raw == observation.raw  # the raw bytes of one message
        if isinstance(observation.report, ChessBoardState):
            assert isinstance(message[0], BoardDump | FieldUpdate)
    assert isinstance(DgtCodec().feed(sink.observations[1].raw)[0], BoardDump)
    clocks = clock_states(sink)
    assert (
        clocks[0].remaining_ms == (302_000, 302_000) and clocks[0].running is None
    )  # 5:00 + 2 s before move 1
    assert clocks[1].running == 0  # White on the left starts
    raises = sum(
        1
        for before, after in itertools.pairwise(clocks)
        for side in (0, 1)
        if after.remaining_ms[side] > before.remaining_ms[side]
    )
    assert raises == len(board.presses) == 33  # every press shows its increment
    assert all(clock.time_per_move for clock in clocks)
    assert sink.errors == []
    assert session.stats.reconnects == 0 and session.stats.keepalives_answered >= 3


async def test_a_silent_board_is_reconnected_and_read_again() -> None:
    with open_pty_pair() as pair:
        board = board_for(speed=40)
        sink = RecordingSink()
        session = session_on(pair, sink, silence_timeout=0.4)
        async with running(board.run_on_fd(pair.master_fd), session.run()):
            await eventually(lambda: board.plies_played >= 2)
            board.pause(0.8)  # a Bluetooth board out of range: moves go on, nothing reaches the hub
            await eventually(lambda: sink.connects() >= 2 and len(hellos(sink)) >= 2, 5)
            await eventually(lambda: board_states(sink)[-1] == board.placement.board_fen())

    dropped = next(change for change in sink.links if change.state is LinkState.DISCONNECTED)
    assert dropped.detail.startswith("no data from the board for 0.4 s; reconnecting; retrying in ")
    assert "tahtadan 0.4 sn veri gelmedi" in dropped.detail
    first, second = hellos(sink)[:2]
    assert second.boot_epoch > first.boot_epoch and second.device_id == first.device_id
    after = next(i for i, o in enumerate(sink.observations) if o.report == second)
    # The board is read again at once: the first board state of the new connection is a whole dump.
    dump = next(o for o in sink.observations[after:] if isinstance(o.report, ChessBoardState))
    assert isinstance(DgtCodec().feed(dump.raw)[0], BoardDump)
    assert board.commands[DgtCommand.SEND_BRD] >= 2
    assert session.stats.reconnects >= 1


async def test_clock_text_is_acknowledged_then_the_times_come_back() -> None:
    with open_pty_pair() as pair:
        board = board_for(speed=0.2)
        sink = RecordingSink()
        session = session_on(pair, sink)
        async with running(board.run_on_fd(pair.master_fd), session.run()):
            await eventually(lambda: session.identified and board.mode.value == "update_nice")
            ack = await session.command(Command.show_text("Süre doldu", seconds=0.3))
            shown = board.shown_text
            await eventually(lambda: board.shown_text == "" and len(acks(sink)) == 2)

    assert (ack.ok, ack.error, ack.attempts) == (True, "", 1)
    assert shown == "Sure dol"
    assert board.commands[0x2B00 | ClockCommand.END] == 1
    assert [a.data["clock_command"] for a in acks(sink)] == [ClockCommand.ASCII, ClockCommand.END]
    assert all(a.data["ok"] for a in acks(sink))


async def test_a_lost_clock_ack_is_resent_and_a_clock_that_never_answers_fails_clearly() -> None:
    with open_pty_pair() as pair:
        board = board_for(speed=0.2)
        sink = RecordingSink()
        session = session_on(pair, sink, clock_retry_s=0.15)
        async with running(board.run_on_fd(pair.master_fd), session.run()):
            await eventually(lambda: session.identified and board.mode.value == "update_nice")
            board.drop_acks = 1
            resent = await session.command(Command.show_text("RESENT", seconds=0))
            sent_before = board.commands[CLOCK_ASCII]
            board.drop_acks = 100
            with pytest.raises(CommandFailed) as failed:
                await session.command(Command.show_text("LOST", seconds=0), retries=2)
            board.drop_acks = 0
            board.refuse_setnrun = True
            refused = await session.command(Command.set_clock((60_000, 60_000), running=0))

    assert (resent.ok, resent.attempts) == (True, 2)
    assert board.commands[CLOCK_ASCII] - sent_before == 3  # one try and two resends
    assert "did not acknowledge ASCII after 3 tries" in str(failed.value)
    assert "saat komutu onaylamadı" in str(failed.value)
    assert refused.ok is False and "mode 23" in refused.error


async def test_an_unplugged_board_is_retried_and_the_new_board_read_when_plugged_in(tmp_path: Path) -> None:
    port = tmp_path / "ttyACM0"
    sink = RecordingSink()
    session = session_on(port, sink)
    first = open_pty_pair()
    try:
        os.symlink(first.slave_path, port)
        async with running(session.run()):
            async with asyncio.TaskGroup() as group:
                device = group.create_task(board_for(speed=1).run_on_fd(first.master_fd))
                await eventually(lambda: board_states(sink) == [START])
                device.cancel()
            unplugged_at = len(sink.links)
            first.close_master()  # the cable comes out
            port.unlink()
            await eventually(lambda: sink.link_states()[unplugged_at:].count(LinkState.DISCONNECTED) >= 2)
            with open_pty_pair() as second:
                later = DgtBoard(games_from_pgn('[FEN "8/8/8/4k3/8/8/8/4K3 w - - 0 1"]\n\n*'), speed=1)
                os.symlink(second.slave_path, port)  # the cable goes back in
                async with running(later.run_on_fd(second.master_fd)):
                    await eventually(lambda: board_states(sink)[-1] == "8/8/8/4k3/8/8/8/4K3")
    finally:
        first.close()

    after = sink.links[unplugged_at:]
    assert after[0].state is LinkState.DISCONNECTED and after[0].device_id == f"dgt-{SERIAL}"
    assert any("does not exist" in change.detail for change in after)
    assert len(hellos(sink)) == 2 and hellos(sink)[1].boot_epoch > hellos(sink)[0].boot_epoch


def test_dgt_urls_default_to_9600_baud_and_know_bluetooth_ports() -> None:
    usb = parse_dgt_url("serial:///dev/ttyACM0?protocol=dgt")
    assert (usb.port, usb.baudrate, usb.bluetooth) == ("/dev/ttyACM0", 9600, False)
    bt = parse_dgt_url("serial:///dev/rfcomm0?protocol=dgt&baud=19200")
    assert (bt.port, bt.baudrate, bt.bluetooth) == ("/dev/rfcomm0", 19200, True)
    with pytest.raises(ValueError, match="not a DGT board"):
        parse_dgt_url("serial:///dev/ttyACM0?protocol=wire")
    with pytest.raises(ValueError, match="baud must be a positive integer"):
        parse_dgt_url("serial:///dev/ttyACM0?protocol=dgt&baud=fast")


def test_device_ids_and_clock_texts_are_what_the_hub_and_the_clock_accept() -> None:
    assert dgt_device_id("2394600712") == "dgt-2394600712"
    assert dgt_device_id(" 3.25 0010 ") == "dgt-3.25_0010"
    assert clock_text("Şah mat! İyi oyunlar") == "Sah mat!"
    assert clock_text("€uro") == "?uro"
