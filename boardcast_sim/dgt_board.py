"""A simulated DGT e-board with a DGT 3000 clock attached, for demos and tests, on a pseudo-terminal.

`DgtBoard` is the device: it answers the DGT commands (reset, SEND_BRD, serial numbers, version, update
modes, SEND_CLK, battery, clock commands with their acks), and replays games move by move with the square
changes `chess_motion.motions` makes for each move, the think time drawn from a seeded rng and the lever
pressed after each move. Its clock is `dgt_clock.Dgt3000`, the pure part. Clock readings go out at
least every second in UPDATE mode and when the display changes in UPDATE_NICE. Time runs `speed` times
faster than the wall clock. Faults: garbage bytes, a pause (silence), an unplug (no answers any more), a
clock that forgets the increment, no clock at all. `rotated`: the board set up the other way round (its a1
corner at Black's left), so every square it reports is turned 180 degrees (a1<->h8), as a real board does.
Run ``python -m boardcast_sim.dgt_board --pgn FILE --speed 20`` to get a pty path to point a hub at.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import enum
import io
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import chess
import chess.pgn

from boardcast_sim.chess_motion import MotionStyle, motions, takeback_motions
from boardcast_sim.dgt_clock import LEFT, RIGHT, Dgt3000, parse_time_control
from boardcast_sim.wire_device import _FdLink
from devices.dgt.codec import (
    CLOCK_MESSAGE,
    ClockCommand,
    Command,
    MessageId,
    board_dump_from_fen,
    encode_message,
)
from devices.dgt.messages import (
    ClockAck,
    ClockDisplay,
    ClockTimes,
    DgtPiece,
    FieldUpdate,
    SerialNumber,
    Version,
)

ACK_OK = 0x10
ACK_ERROR = 0x40
START_DELAY_S = 2.0  # from a set-up board to the clock started
BETWEEN_GAMES_S = 30.0
REREAD_HOLD_S = 1.5  # after a lost stretch: the host has read the board whole before the next move
PAUSE_FAULT_S = 8.0  # real seconds of silence: longer than a session's 5 s silence timeout
GARBAGE = b"\x13\x37\x7f\xfe\x01\x02"  # 7-bit noise, then an id no board sends with two bytes after it

OPERA_GAME = """[Event "Opera game"]
[White "Paul Morphy"]
[Black "Duke Karl / Count Isouard"]
[Date "1858.??.??"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5
10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8
17. Rd8# 1-0
"""


class BoardMode(enum.Enum):
    """What the board sends on its own, as the last mode command set it."""

    IDLE = "idle"  # after SEND_RESET: answers only
    UPDATE = "update"  # field updates, and the clock at least every second
    UPDATE_BOARD = "update_board"  # field updates only
    UPDATE_NICE = "update_nice"  # field updates, and the clock when its display changes


_MODES = {
    Command.SEND_UPDATE: BoardMode.UPDATE,
    Command.SEND_UPDATE_BRD: BoardMode.UPDATE_BOARD,
    Command.SEND_UPDATE_NICE: BoardMode.UPDATE_NICE,
}


class Fault(enum.StrEnum):
    """Faults the simulated board can show; the ply ones start after a few moves."""

    GARBAGE = "garbage"  # noise and an unknown message id every few plies
    PAUSE = "pause"  # silent for PAUSE_FAULT_S real seconds after ply 10, then answering again
    UNPLUG = "unplug"  # no answers any more after ply 20
    NO_INCREMENT = "no-increment"  # the clock was set without the increment
    NO_CLOCK = "no-clock"  # no DGT 3000 attached


def games_from_pgn(text: str) -> list[chess.pgn.Game]:
    """Every game of a PGN text, in order; raise ValueError if there is none or one has an illegal move."""
    games: list[chess.pgn.Game] = []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        if game.errors:
            raise ValueError(f"game {len(games) + 1} of the PGN is broken: {game.errors[0]} / PGN hatalı")
        games.append(game)
    if not games:
        raise ValueError("the PGN holds no game / PGN'de oyun yok")
    return games


def _battery_message(percent: int) -> bytes:
    payload = bytes([percent, 0, 0, 0, 0, 0, 0])  # percentage, then time left and status bits: unknown here
    size = 3 + len(payload)
    return bytes([MessageId.BATTERY_STATUS, size >> 7, size & 0x7F]) + payload


class DgtBoard:
    """A simulated DGT e-board (a DGT 3000 on its clock port) replaying games; run it on a pty master fd."""

    def __init__(
        self,
        games: Sequence[chess.pgn.Game],
        *,
        long_serial: str = "2394600712",
        version: tuple[int, int] = (1, 7),
        time_control: str = "5400+30",
        speed: float = 1.0,
        seed: int = 0,
        style: MotionStyle = MotionStyle.REALISTIC,
        white_side: int = LEFT,
        battery: int | None = None,
        faults: Sequence[Fault | str] = (),
        wait_for_host: bool = True,
        between_games_s: float = BETWEEN_GAMES_S,
        ack_delay_s: float = 0.02,
        rotated: bool = False,
        clock_start: tuple[float, float, int | None] | None = None,
    ) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, got {speed}")
        if not games:
            raise ValueError("a simulated board needs at least one game to replay")
        if len(long_serial) != 10 or not long_serial.isdigit():
            raise ValueError(f"a long serial number is 10 digits, got {long_serial!r}")
        self.games = list(games)
        self.long_serial = long_serial
        self.version = version
        self.speed = speed
        self.rng = random.Random(seed)
        self.style = style
        self.white_side = white_side
        self.battery = battery
        self.faults = frozenset(Fault(f) for f in faults)
        self.wait_for_host = wait_for_host
        self.between_games_s = between_games_s
        self.ack_delay_s = ack_delay_s
        self.rotated = rotated
        self._lose_plies = 0  # fault hook: plies still to be played out of the host's reach
        self.lost_from: int | None = None  # the plies played when the last lost stretch began
        self._reread = asyncio.Event()  # set by every SEND_BRD
        base, increment = parse_time_control(time_control)
        self.clock: Dgt3000 | None = None
        if Fault.NO_CLOCK not in self.faults:
            self.clock = Dgt3000(base, increment, adds_increment=Fault.NO_INCREMENT not in self.faults)
            self.clock.reset(0.0, high=white_side)
        self.base_s, self.increment_s = base, increment
        # (left s, right s, running side): a clock that stayed on while this board's host was away; the first
        # game goes on from it rather than from a clock set and started afresh
        self.clock_start = clock_start
        if self.clock is not None and clock_start is not None:
            self.clock.resume(*clock_start, 0.0)  # from the moment the board runs: the host may come later
        self.placement = chess.BaseBoard(self.games[0].board().board_fen())
        self.mode = BoardMode.IDLE
        self.history: list[str] = [self.placement.board_fen()]  # after every square change
        self.positions: list[str] = [self.placement.board_fen()]  # after every move (and each new set-up)
        self.presses: list[tuple[int, tuple[int, int]]] = []  # side pressing, both times shown after
        self.commands: Counter[int] = Counter()  # board command bytes and clock command bytes (0x2b00 | cmd)
        self.shown_text = ""
        self.drop_acks = 0  # fault hook: clock commands done without an ack
        self.refuse_setnrun = False  # fault hook: the clock is not in mode 23
        self.unplugged = False
        self.plies_played = 0
        self.games_played = 0
        self.done = asyncio.Event()
        self._link: _FdLink | None = None
        self._send_lock = asyncio.Lock()
        self._muted_until = 0.0  # monotonic time
        self._host_ready = asyncio.Event()
        self._dumped = False  # a board dump was sent: the host knows the squares
        self._clock_wake = asyncio.Event()
        self._last_reading: bytes | None = None
        self._last_reading_at = -math.inf
        self._reading_mode = self.mode
        self._t0: float | None = None

    # -- time ---------------------------------------------------------------------------------------------

    def now(self) -> float:
        """Game seconds since the board was switched on (the wall clock times `speed`)."""
        if self._t0 is None:
            self._t0 = time.monotonic()
        return (time.monotonic() - self._t0) * self.speed

    async def _sleep(self, game_s: float) -> None:
        await asyncio.sleep(max(0.0, game_s) / self.speed)

    # -- faults -------------------------------------------------------------------------------------------

    @property
    def muted(self) -> bool:
        """Whether the board sends nothing and answers nothing now (paused or unplugged)."""
        return self.unplugged or time.monotonic() < self._muted_until

    def pause(self, seconds: float) -> None:
        """Fault hook: be silent for `seconds` of wall-clock time; what happens meanwhile is never sent."""
        self._muted_until = time.monotonic() + seconds

    def unplug(self) -> None:
        """Fault hook: stop sending and answering for good, as a board whose cable came out."""
        self.unplugged = True

    def lose_plies(self, plies: int) -> None:
        """Fault hook: the next `plies` plies are played out of the host's reach (nothing sent, nothing heard);
        then the board stays silent past the host's silence timeout and the game waits until the host has
        reconnected and read the board whole, as a Bluetooth board back in range after a few moves."""
        self._lose_plies = plies

    async def _lost_stretch(self) -> None:
        if self._lose_plies and self._muted_until != math.inf:
            self.lost_from = self.plies_played
            self._muted_until = math.inf
        elif self._lose_plies == 0 and self._muted_until == math.inf:
            self._muted_until = time.monotonic() + PAUSE_FAULT_S
            self._reread.clear()
            await self._reread.wait()  # the host reconnects and reads the board again
            await asyncio.sleep(REREAD_HOLD_S)  # the board stands while it is read (real seconds, any speed)

    async def inject(self, data: bytes) -> None:
        """Fault hook: write raw bytes between messages."""
        await self._send(data)

    # -- running ------------------------------------------------------------------------------------------

    async def run_on_fd(self, fd: int) -> None:
        """Be the board behind a pty master (or any fd) until cancelled; the fd stays open."""
        self._link = _FdLink(fd)
        self.now()  # game time starts now
        async with asyncio.TaskGroup() as group:
            group.create_task(self._listen(self._link))
            group.create_task(self._clock_loop())
            await self._play()

    async def _send(self, data: bytes) -> None:
        if self.muted or self._link is None:
            return
        async with self._send_lock:
            await self._link.write(data)

    async def _listen(self, link: _FdLink) -> None:
        clock_frame = bytearray()
        while data := await link.read():
            if self.muted:
                continue  # a board out of reach hears nothing either
            for byte in data:
                if clock_frame:
                    clock_frame.append(byte)
                    if len(clock_frame) >= 2 and len(clock_frame) == 2 + clock_frame[1]:
                        frame, clock_frame = bytes(clock_frame), bytearray()
                        await self._on_clock_command(frame)
                elif byte == CLOCK_MESSAGE:
                    clock_frame.append(byte)
                else:
                    await self._on_command(byte)

    async def _on_command(self, byte: int) -> None:
        self.commands[byte] += 1
        if byte == Command.SEND_RESET:
            self.mode = BoardMode.IDLE
        elif byte in _MODES:
            self.mode = _MODES[Command(byte)]
            self._clock_wake.set()  # a reading goes out at once in the clock modes
        elif byte == Command.SEND_BRD:
            await self._send(encode_message(board_dump_from_fen(self._as_wired(self.placement.board_fen()))))
            self._dumped = True
            self._reread.set()
        elif byte == Command.SEND_CLK:
            await self._send(self._clock_reading())
        elif byte == Command.RETURN_SERIALNR:
            await self._send(encode_message(SerialNumber(self.long_serial[-5:])))
        elif byte == Command.RETURN_LONG_SERIALNR:
            await self._send(encode_message(SerialNumber(self.long_serial, long=True)))
        elif byte == Command.SEND_VERSION:
            await self._send(encode_message(Version(*self.version)))
        elif byte == Command.SEND_BATTERY_STATUS and self.battery is not None:
            await self._send(_battery_message(self.battery))
        # Anything else (bus mode, EEPROM, LEDs) this board ignores, as a board without that feature does.
        if self.mode is not BoardMode.IDLE and self._dumped:
            self._host_ready.set()  # the host has read the board and follows its changes

    def _clock_reading(self) -> bytes:
        if self.clock is None:
            blank = ClockDisplay(0, 0, 0)
            return encode_message(ClockTimes(blank, blank, no_clock=True))
        return encode_message(self.clock.reading(self.now()))

    async def _on_clock_command(self, frame: bytes) -> None:
        command = frame[3] if len(frame) > 3 else -1
        body = frame[4:-1]
        self.commands[0x2B00 | max(command, 0)] += 1
        if self.clock is None or self.mode not in (BoardMode.UPDATE, BoardMode.UPDATE_NICE):
            return  # no clock, or acks are only sent in the update modes
        ok, ack2 = True, 0
        match command:
            case ClockCommand.ASCII:
                self.shown_text = body[:8].decode("ascii", "replace").rstrip()
            case ClockCommand.DISPLAY:
                self.shown_text = body[:6].decode("ascii", "replace").rstrip()
            case ClockCommand.END:
                self.shown_text = ""
            case ClockCommand.SETNRUN if len(body) >= 7:
                if self.refuse_setnrun:
                    ok = False
                else:
                    left = body[0] * 3600 + body[1] * 60 + body[2]
                    right = body[3] * 3600 + body[4] * 60 + body[5]
                    self.clock.set_and_run(left, right, body[6], self.now())
                    self._clock_wake.set()
            case ClockCommand.VERSION:
                ack2 = 0x21  # version 2.1: main << 4 | sub
        if self.drop_acks > 0:
            self.drop_acks -= 1
            return
        await asyncio.sleep(self.ack_delay_s)
        ack = ClockAck(ACK_OK if ok else ACK_ERROR, command & 0x7F, ack2, 0)
        await self._send(encode_message(ack))

    async def _clock_loop(self) -> None:
        """Send readings: at least every second in UPDATE mode, on every display change in UPDATE_NICE."""
        while True:
            due = await self._send_reading()
            self._clock_wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(None if math.isinf(due) else due / self.speed):
                    await self._clock_wake.wait()

    async def _send_reading(self, now: float | None = None) -> float:
        """Send the reading if the mode wants it now; return game seconds until the next one is due."""
        if self.mode is not self._reading_mode:
            self._last_reading, self._reading_mode = None, self.mode  # a new mode starts with a reading
        if self.clock is None or self.mode not in (BoardMode.UPDATE, BoardMode.UPDATE_NICE):
            return math.inf
        now = self.now() if now is None else now
        reading = encode_message(self.clock.reading(now))
        every_second = self.mode is BoardMode.UPDATE
        if reading != self._last_reading or (every_second and now - self._last_reading_at >= 1.0):
            self._last_reading, self._last_reading_at = reading, now
            await self._send(reading)
        due = self.clock.until_change(now)
        return min(due, 1.0) if every_second else due

    async def _clock_changed(self) -> None:
        """The clock was started, pressed, paused or set: its display changed now, not at the next tick."""
        await self._send_reading()
        self._clock_wake.set()

    # -- playing ------------------------------------------------------------------------------------------

    async def _set_square(self, square: chess.Square, piece: chess.Piece | None) -> None:
        if piece is None:
            self.placement.remove_piece_at(square)
        else:
            self.placement.set_piece_at(square, piece)
        self.history.append(self.placement.board_fen())
        if self.mode is not BoardMode.IDLE:
            code = DgtPiece.from_symbol(piece.symbol() if piece else None)
            await self._send(encode_message(FieldUpdate(63 - square if self.rotated else square, code)))

    def _as_wired(self, board_fen: str) -> str:
        """The placement as the board's sensors see it: turned round (the FEN reversed) on a rotated board."""
        return board_fen[::-1] if self.rotated else board_fen

    async def _play(self) -> None:
        if self.wait_for_host:
            # The game starts once the host has read the board and follows it, as in a tournament hall.
            await self._host_ready.wait()
        for number, game in enumerate(self.games):
            board = game.board()
            if number > 0:
                await self._sleep(self.between_games_s)
            if self.placement.board_fen() != board.board_fen():
                # The arbiter sets the pieces up for the next game, one square at a time.
                target = chess.BaseBoard(board.board_fen())
                for change in takeback_motions(self.placement, target, self.rng):
                    await self._sleep(change.delay_s)
                    await self._set_square(change.square, change.piece)
                self.positions.append(self.placement.board_fen())
            if self.clock is not None and number == 0 and self.clock_start is not None:
                await self._clock_goes_on(board, any(True for _ in game.mainline_moves()))
            elif self.clock is not None:
                white = self.white_side if board.turn == chess.WHITE else 1 - self.white_side
                self.clock.reset(self.now(), high=white)
                await self._clock_changed()
                await self._sleep(START_DELAY_S)
                await self._send_reading()  # the display up to this instant, as the clock loop would
                self.clock.start(white, self.now())
                await self._clock_changed()
            for move in game.mainline_moves():
                await self._play_move(board, move)
            await self._sleep(self.rng.uniform(1.0, 3.0))
            if self.clock is not None:
                await self._send_reading()
                self.clock.pause(self.now())  # the players stop the clock at the end of the game
                await self._clock_changed()
            self.games_played += 1
        self.done.set()

    async def _clock_goes_on(self, board: chess.Board, moves_left: bool) -> None:
        """The first game goes on from `clock_start` (the clock has run on since the board was switched on): a
        player who had moved but not pressed presses now; a clock stopped in a game not over is started."""
        assert self.clock is not None and self.clock_start is not None
        running = self.clock_start[2]
        to_move = self.white_side if board.turn == chess.WHITE else 1 - self.white_side
        if not moves_left:
            return  # the game is over: the clock shows its final times
        if running is None:
            await self._sleep(START_DELAY_S)
            self.clock.start(to_move, self.now())
            await self._clock_changed()
        elif running != to_move:
            await self._sleep(self.rng.uniform(0.2, 1.0))  # the hand that moved goes to the lever
            await self._send_reading()
            self.clock.press(running, self.now())
            await self._clock_changed()

    async def _play_move(self, board: chess.Board, move: chess.Move) -> None:
        await self._lost_stretch()
        side = self.white_side if board.turn == chess.WHITE else 1 - self.white_side
        await self._sleep(self._think_s(side))
        for change in motions(board, move, self.rng, style=self.style):
            await self._sleep(change.delay_s)
            await self._set_square(change.square, change.piece)
        board.push(move)
        self.positions.append(self.placement.board_fen())
        await self._sleep(self.rng.uniform(0.2, 1.0))  # the hand goes from the piece to the lever
        if self.clock is not None:
            # The display just before the press, then just after: every press shows, however busy the host.
            now = self.now()
            await self._send_reading(now)
            self.clock.press(side, now)
            self.presses.append((side, self.clock.shown(now)))
            await self._clock_changed()
        self.plies_played += 1
        if self._lose_plies and self._muted_until == math.inf:  # a ply of the lost stretch
            self._lose_plies -= 1
            await self._lost_stretch()
        await self._ply_faults()

    def _think_s(self, side: int) -> float:
        """How long the player thinks: about a fiftieth of the base time plus most of the increment."""
        typical = max(1.0, self.base_s / 50 + 0.7 * self.increment_s)
        left = self.clock.times(self.now())[side] if self.clock is not None else math.inf
        # Nobody here loses on time: a flag fall is a hub test of its own, with a clock set by hand.
        return min(0.5 + self.rng.expovariate(1 / typical), max(0.5, 0.25 * left))

    async def _ply_faults(self) -> None:
        plies = self.plies_played
        if Fault.GARBAGE in self.faults and plies % 7 == 0:
            await self.inject(GARBAGE)
        if Fault.PAUSE in self.faults and plies == 10:
            self.pause(PAUSE_FAULT_S)
        if Fault.UNPLUG in self.faults and plies == 20:
            self.unplug()


def main(argv: Sequence[str] | None = None) -> int:
    """Serve a simulated DGT board on a new pty and print the pty's path for the venue file."""
    parser = argparse.ArgumentParser(
        prog="python -m boardcast_sim.dgt_board",
        description="A simulated DGT e-board with a DGT 3000 clock, replaying PGN games on a pseudo-terminal.",
    )
    parser.add_argument("--pgn", type=Path, help="games to replay (default: Morphy's Opera game)")
    parser.add_argument("--speed", type=float, default=1.0, help="time compression, e.g. 20 for 20x")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-control", default="5400+30", help="base+increment seconds, e.g. 5400+30")
    parser.add_argument("--serial", default="2394600712", help="the board's 10-digit serial number")
    parser.add_argument(
        "--style", choices=[s.value for s in MotionStyle], default=MotionStyle.REALISTIC.value
    )
    parser.add_argument("--white-side", choices=["left", "right"], default="left")
    parser.add_argument("--battery", type=int, help="percent: a Bluetooth board that reports its battery")
    parser.add_argument("--fault", action="append", default=[], choices=[f.value for f in Fault])
    parser.add_argument(
        "--rotated", action="store_true", help="the board set up the other way round (a1 at Black's left)"
    )
    args = parser.parse_args(argv)
    try:
        text = args.pgn.read_text(encoding="utf-8") if args.pgn else OPERA_GAME
        games = games_from_pgn(text)
        parse_time_control(args.time_control)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    async def serve() -> None:
        from boardcast_sim.pty import open_pty_pair

        with open_pty_pair() as pair:
            print(pair.slave_path, flush=True)
            board = DgtBoard(
                games,
                long_serial=args.serial,
                time_control=args.time_control,
                speed=args.speed,
                seed=args.seed,
                style=MotionStyle(args.style),
                white_side=LEFT if args.white_side == "left" else RIGHT,
                battery=args.battery,
                faults=args.fault,
                rotated=args.rotated,
            )
            await board.run_on_fd(pair.master_fd)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
