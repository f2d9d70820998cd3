"""The simulated DGT board and DGT 3000, read by hand over a real pseudo-terminal: the answers to every command,
games replayed square by square, the clock (increment before move 1 and after each press, readings every
second in UPDATE mode and on change in UPDATE_NICE, acks only in the update modes), the faults, the CLI."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import subprocess
import sys
from pathlib import Path

import chess
import pytest
import serial

from boardcast_sim.dgt_board import (
    GARBAGE,
    LEFT,
    OPERA_GAME,
    RIGHT,
    Dgt3000,
    DgtBoard,
    Fault,
    games_from_pgn,
    parse_time_control,
)
from boardcast_sim.pty import PtyPair, open_pty_pair
from devices.dgt.codec import (
    ClockCommand,
    ClockRun,
    Command,
    DgtCodec,
    DgtError,
    DgtErrorKind,
    encode_clock_command,
    encode_clock_set_and_run,
    encode_clock_text,
)
from devices.dgt.messages import (
    BatteryStatus,
    BoardDump,
    ClockAck,
    ClockDisplay,
    ClockTimes,
    FieldUpdate,
    SerialNumber,
    Version,
)
from devices.dgt.reader import DgtReader, DgtReport
from devices.observations import ChessBoardState
from tests.devices.support import eventually, running

ROOT = Path(__file__).resolve().parents[2]
START = chess.STARTING_BOARD_FEN
# En passant (3. exf6), promotion with a capture (5. gxh8=Q), then mate: a short game the Opera game lacks.
SHARP_GAME = """[Event "En passant and promotion"]
[Result "1-0"]

1. e4 d5 2. e5 f5 3. exf6 Nc6 4. fxg7 Qd6 5. gxh8=Q Kd7 6. Qxg8 a6 7. Qxf8 b6 8. Qxc8+ Kxc8 1-0
"""
EMPTY_GAME = '[FEN "4k3/8/8/8/8/8/8/4K3 w - - 0 1"]\n\n*\n'


class Host:
    """The PC end of the pty, by hand: sends command bytes, decodes everything the board sends."""

    def __init__(self, pair: PtyPair) -> None:
        self.fd = pair.slave_fd
        os.set_blocking(self.fd, False)
        self.codec = DgtCodec()
        self.items: list = []
        self.raw = bytearray()

    def send(self, *commands: int | bytes) -> None:
        os.write(self.fd, b"".join(bytes([c]) if isinstance(c, int) else c for c in commands))

    def poll(self) -> list:
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self.fd, 4096):
                self.raw += chunk
                self.items += self.codec.feed(chunk)
        return self.items

    def of(self, kind: type) -> list:
        return [item for item in self.items if isinstance(item, kind)]

    async def until(self, condition, seconds: float = 5.0) -> None:
        await eventually(lambda: (self.poll(), condition())[1], seconds)


def board_states(raw: bytes) -> list[str]:
    return [
        item.report.board_fen
        for item in DgtReader().feed(raw)
        if isinstance(item, DgtReport) and isinstance(item.report, ChessBoardState)
    ]


def shown(seconds: int) -> ClockDisplay:
    return ClockDisplay(seconds // 3600, seconds // 60 % 60, seconds % 60, time_per_move=True)


# -- the DGT 3000 on its own ----------------------------------------------------------------------------------


def test_dgt3000_shows_the_increment_before_move_1_and_adds_it_after_each_press() -> None:
    clock = Dgt3000(5400, 30)
    assert clock.shown(0.0) == (5430, 5430)  # 1:30:30, as a DGT 3000 starts a 90+30 game
    clock.start(LEFT, 10.0)
    assert clock.shown(110.0) == (5330, 5430)
    clock.press(LEFT, 110.0)
    assert clock.shown(110.0) == (5360, 5430) and clock.running == RIGHT
    clock.press(LEFT, 120.0)  # the player who just moved presses again: nothing happens
    assert clock.shown(120.0) == (5360, 5420) and clock.running == RIGHT
    clock.press(RIGHT, 150.5)
    assert clock.shown(150.5) == (5360, 5420) and clock.running == LEFT  # 5389.5 + 30 shows 5420


def test_dgt3000_blocks_at_zero_with_the_flag_of_the_side_that_ran_out() -> None:
    clock = Dgt3000(60, 0)
    clock.start(RIGHT, 0.0)
    assert clock.until_change(0.25) == pytest.approx(0.75)
    reading = clock.reading(61.0)
    assert clock.running is None and clock.shown(61.0) == (60, 0)
    assert reading.right == ClockDisplay(0, 0, 0, final_flag=True) and not reading.running
    assert clock.until_change(70.0) == float("inf")


def test_dgt3000_without_its_increment_shows_no_icon_and_adds_nothing() -> None:
    clock = Dgt3000(5400, 30, adds_increment=False)
    assert clock.shown(0.0) == (5400, 5400)
    clock.start(LEFT, 0.0)
    clock.press(LEFT, 10.0)
    assert clock.shown(10.0) == (5390, 5400)
    assert not clock.reading(10.0).left.time_per_move


def test_dgt3000_set_and_run_and_the_lever_bits() -> None:
    clock = Dgt3000(300, 2)
    reading = clock.reading(0.0)
    assert (reading.running, reading.right_high, reading.left_turn) == (False, False, True)
    clock.set_and_run(600, 299, ClockRun.RIGHT | ClockRun.TOGGLE_ON_LEVER, 5.0)
    reading = clock.reading(6.0)
    assert reading.running and reading.right_high and reading.right_turn and not reading.left_turn
    assert (reading.left.remaining_s, reading.right.remaining_s) == (600, 298)
    clock.set_and_run(60, 60, ClockRun.PAUSE, 7.0)
    assert clock.running is None and clock.shown(100.0) == (60, 60)


def test_dgt3000_resumed_goes_on_from_where_it_stood() -> None:
    clock = Dgt3000(300, 3)
    clock.resume(250.5, 280.0, RIGHT, 0.0)  # a clock that stayed on while its host was away
    assert clock.shown(10.0) == (251, 270) and clock.running == RIGHT
    clock.press(RIGHT, 10.0)
    assert clock.shown(10.0) == (251, 273) and clock.running == LEFT
    clock.resume(0.0, 12.0, LEFT, 20.0)  # a side at zero shows its flag and does not run
    assert clock.running is None and clock.flags == [True, False]
    clock.resume(60.0, 61.0, None, 30.0)  # a stopped clock stays stopped
    assert clock.shown(100.0) == (60, 61)


def test_time_controls_and_pgn_are_read_or_refused_with_the_reason() -> None:
    assert parse_time_control("5400+30") == (5400, 30)
    assert parse_time_control(" 300 ") == (300, 0)
    with pytest.raises(ValueError, match="seconds\\+increment"):
        parse_time_control("90 min")
    with pytest.raises(ValueError, match="9:59:59"):
        parse_time_control("36000+0")
    assert len(games_from_pgn(OPERA_GAME + "\n" + SHARP_GAME)) == 2
    with pytest.raises(ValueError, match="no game"):
        games_from_pgn("")
    with pytest.raises(ValueError, match="game 1 of the PGN is broken"):
        games_from_pgn("1. e4 e5 2. Ke3 *")


# -- the board on a pty ---------------------------------------------------------------------------------------


async def test_an_idle_board_answers_every_command_and_sends_nothing_on_its_own() -> None:
    with open_pty_pair() as pair:
        board = DgtBoard(games_from_pgn(OPERA_GAME), speed=0.2, battery=77)
        host = Host(pair)
        async with running(board.run_on_fd(pair.master_fd)):
            host.send(Command.SEND_RESET, Command.RETURN_LONG_SERIALNR, Command.RETURN_SERIALNR)
            host.send(Command.SEND_VERSION, Command.SEND_BRD, Command.SEND_CLK, Command.SEND_BATTERY_STATUS)
            host.send(encode_clock_text("IDLE"), 0x4A)  # a clock command unanswered in IDLE, then bus mode
            await host.until(lambda: len(host.items) == 6)
            await asyncio.sleep(0.2)  # time enough for an ack, or a move, that must not come
            answers = [type(item) for item in host.poll()]

    assert answers == [SerialNumber, SerialNumber, Version, BoardDump, ClockTimes, BatteryStatus]
    long, short, version, dump, clock, battery = host.items
    assert (long.serial, long.long, short.serial, short.long) == ("2394600712", True, "00712", False)
    assert (version.major, version.minor) == (1, 7)
    assert dump.board_fen() == START
    assert clock.left == clock.right == shown(5430) and not clock.running and clock.left_turn
    assert battery.percent == 77
    assert board.shown_text == "" and board.plies_played == 0  # no ack, no game before the host follows


async def test_update_nice_replays_every_game_square_by_square_with_the_clock_on_change() -> None:
    games = games_from_pgn(OPERA_GAME + "\n" + SHARP_GAME)
    with open_pty_pair() as pair:
        board = DgtBoard(games, speed=500, time_control="300+2", seed=5, between_games_s=5)
        host = Host(pair)
        async with running(board.run_on_fd(pair.master_fd)):
            host.send(Command.SEND_UPDATE_NICE, Command.SEND_BRD)
            await board.done.wait()
            await host.until(lambda: board_states(bytes(host.raw))[-1] == board.placement.board_fen())

    states = board_states(bytes(host.raw))
    assert states == board.history  # the dump, then one state per square change, none lost
    finals = []
    for game in games:
        position = game.board()
        finals += [position.board_fen()]
        for move in game.mainline_moves():
            position.push(move)
            finals.append(position.board_fen())
    assert board.positions == finals  # every position of both games, the set-up of the second included
    assert len(board.history) > 2 * (len(finals) - 2)  # lifts and places, not whole moves
    assert board.games_played == 2 and board.plies_played == 33 + 16
    readings = host.of(ClockTimes)
    assert readings[0].left == readings[0].right == shown(302) and not readings[0].running
    assert all(a != b for a, b in itertools.pairwise(readings))  # UPDATE_NICE: only on change
    assert not host.of(DgtError)


async def test_update_mode_sends_the_clock_every_second_even_when_it_is_stopped() -> None:
    with open_pty_pair() as pair:
        board = DgtBoard(games_from_pgn(EMPTY_GAME), speed=40)
        host = Host(pair)
        async with running(board.run_on_fd(pair.master_fd)):
            host.send(Command.SEND_BRD, Command.SEND_UPDATE_NICE)
            await board.done.wait()
            host.poll()
            host.items.clear()
            await asyncio.sleep(0.25)  # 10 game seconds of a stopped clock in UPDATE_NICE
            nice = len(host.poll())
            host.send(Command.SEND_UPDATE)
            started = board.now()
            await asyncio.sleep(0.25)  # and about 10 in UPDATE
            update = len(host.poll()) - nice
            seconds = board.now() - started

    assert nice == 0
    assert seconds - 2 <= update <= seconds + 2  # one reading a game second, though nothing changes


async def test_clock_commands_are_done_and_acknowledged_in_the_update_modes() -> None:
    with open_pty_pair() as pair:
        board = DgtBoard(games_from_pgn(OPERA_GAME), speed=0.2)
        host = Host(pair)
        async with running(board.run_on_fd(pair.master_fd)):
            host.send(Command.SEND_UPDATE_NICE)
            host.send(encode_clock_text("HELLO", beep=1))
            await host.until(lambda: len(host.of(ClockAck)) == 1)
            text = board.shown_text
            host.send(encode_clock_set_and_run(600, 299, ClockRun.RIGHT))
            await host.until(lambda: len(host.of(ClockAck)) == 2)
            host.send(encode_clock_command(ClockCommand.VERSION))
            await host.until(lambda: len(host.of(ClockAck)) == 3)
            board.refuse_setnrun = True
            host.send(encode_clock_set_and_run(60, 60, ClockRun.LEFT))
            await host.until(lambda: len(host.of(ClockAck)) == 4)
            board.drop_acks = 1
            host.send(encode_clock_text("LOST"))
            await host.until(lambda: board.shown_text == "LOST")
            await host.until(lambda: any(r.right.remaining_s == 299 for r in host.of(ClockTimes)))

    text_ack, set_ack, version_ack, refused = host.of(ClockAck)
    assert text == "HELLO" and text_ack.ok and text_ack.command == 0x0C
    assert set_ack.ok and set_ack.command == 0x0A
    assert version_ack.clock_version == (2, 1)
    assert refused.error and refused.command == 0x0A
    assert board.clock is not None and board.clock.running == RIGHT
    assert len(host.of(ClockAck)) == 4  # the dropped ack never came


async def test_faults_garbage_silence_unplug_and_no_clock() -> None:
    with open_pty_pair() as pair:
        board = DgtBoard(
            games_from_pgn(OPERA_GAME), speed=500, time_control="300+2", faults=[Fault.GARBAGE, Fault.UNPLUG]
        )
        host = Host(pair)
        async with running(board.run_on_fd(pair.master_fd)):
            host.send(Command.SEND_UPDATE_NICE, Command.SEND_BRD)
            await eventually(lambda: board.unplugged)
            board_unplugged_at = len(host.poll())
            host.send(Command.RETURN_LONG_SERIALNR)
            await eventually(lambda: board.plies_played >= 24)
            after_unplug = len(host.poll())

    errors = host.of(DgtError)
    assert [e.kind for e in errors] == [DgtErrorKind.NOISE, DgtErrorKind.UNKNOWN_ID] * 2  # plies 7 and 14
    assert errors[0].raw + errors[1].raw == GARBAGE
    assert after_unplug == board_unplugged_at  # nothing after the unplug, not even an answer

    with open_pty_pair() as pair:
        board = DgtBoard(games_from_pgn(OPERA_GAME), speed=0.2, faults=[Fault.NO_CLOCK])
        host = Host(pair)
        async with running(board.run_on_fd(pair.master_fd)):
            board.pause(0.3)
            host.send(Command.RETURN_SERIALNR)
            await eventually(lambda: not board.muted, 1.0)
            host.send(Command.SEND_UPDATE_NICE, Command.SEND_CLK, encode_clock_text("NOCLOCK"))
            host.send(Command.RETURN_SERIALNR)
            await host.until(lambda: len(host.items) == 2)

    no_clock, serial_number = host.items  # the serial asked during the pause was never answered
    assert isinstance(no_clock, ClockTimes) and no_clock.no_clock
    assert isinstance(serial_number, SerialNumber)
    assert board.shown_text == ""


async def test_field_updates_reach_a_host_in_update_board_mode_without_any_clock_reading() -> None:
    with open_pty_pair() as pair:
        board = DgtBoard(games_from_pgn(SHARP_GAME), speed=500, time_control="60+1", seed=2)
        host = Host(pair)
        async with running(board.run_on_fd(pair.master_fd)):
            host.send(Command.SEND_BRD, Command.SEND_UPDATE_BRD)
            await board.done.wait()
            await host.until(lambda: board_states(bytes(host.raw))[-1] == board.placement.board_fen())

    assert board_states(bytes(host.raw)) == board.history
    assert host.of(ClockTimes) == []
    assert len(host.of(FieldUpdate)) == len(board.history) - 1
    final = games_from_pgn(SHARP_GAME)[0].end().board()
    assert board.placement.board_fen() == final.board_fen()


def test_the_simulator_runs_from_the_command_line_on_a_pty(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(SHARP_GAME, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardcast_sim.dgt_board", "--pgn", str(pgn), "--speed", "20"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        path = proc.stdout.readline().strip()
        with serial.Serial(path, 9600, timeout=2) as port:
            port.write(bytes([Command.RETURN_LONG_SERIALNR, Command.SEND_BRD]))
            data = port.read(13 + 67)
    finally:
        proc.terminate()
        proc.wait(timeout=5)
    serial_number, dump = DgtCodec().feed(data)
    assert serial_number == SerialNumber("2394600712", long=True, raw=data[:13])
    assert dump.board_fen() == START

    broken = subprocess.run(
        [sys.executable, "-m", "boardcast_sim.dgt_board", "--pgn", str(tmp_path / "missing.pgn")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert broken.returncode == 2 and broken.stderr.startswith("error: ")
