"""A simulated chess clock that speaks Boardcast Wire (`chess-clock`), for demos, tests and device makers.

`ChessClockSim` is the pure part: one seeded game on a two-sided clock, with simulated time as an argument
(milliseconds since the clock was set up), no I/O and no reading of any clock. It applies a time control
(Fischer increment with the first increment added before move 1 as DGT clocks do, US/simple delay or
Bronstein delay, and extra periods added at move counts), lets the players press after seeded thinking
times, ends the game after a seeded number of moves or when a flag falls, and injects the faults asked for
(a press without its increment, a doubled increment, a jump in the running time), once per game each.

`ChessClock` is the device: it boots, says HELLO and its STATE, starts the clock for the side that moves
first (the arbiter's start button, no press), then sends a `press` EVENT and a STATE at every press, a
STATE every second while a side runs and when a flag falls, heartbeats when idle, and answers resync and
set_clock. Sides are the clock's left (0) and right (1); the side that starts is White's.
Run ``python -m boardcast_sim.chess_clock --pty`` to get a pty path to point a hub at.
"""

from __future__ import annotations

import argparse
import asyncio
import enum
import random
import re
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from boardcast_sim.wire_device import SimulatedWireDevice, run_on_new_pty, simulator_parser
from devices.observations import ChessClockState, DeviceEvent, DeviceFamily, DeviceHello, Report
from devices.wire.codec import PROTOCOL_VERSION
from devices.wire.messages import MAX_CLOCK_MS, WIRE_CLOCK_RESOLUTION_MS, Command, CommandName

TICK_MS = 1000  # a STATE every second of clock time while a side runs
BETWEEN_GAMES_S = 60.0


class Timing(enum.StrEnum):
    """How the clock gives time back for each move."""

    FISCHER = "fischer"  # the increment is added at every press (and once before move 1)
    DELAY = "delay"  # US/simple delay: the time only starts going down after the delay; unused delay is lost
    BRONSTEIN = "bronstein"  # the time used on the move, at most the delay, is given back at the press


class Fault(enum.StrEnum):
    """Clock errors the simulator can make, once per game each."""

    NO_INCREMENT = "no_increment"  # one press without its increment (delay: one turn without delay)
    DOUBLE_INCREMENT = "double_increment"  # one press gets the increment twice (delay: a double delay)
    TIME_JUMP = "time_jump"  # the running side's time jumps by 10-60 s at one tick


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A time control: base time, what each move gives back and how, and extra periods at move counts."""

    base_ms: int
    increment_ms: int = 0  # the Fischer increment, or the delay
    timing: Timing = Timing.FISCHER
    pre_add: bool = True  # Fischer: the first increment is on the clock before move 1 (DGT, FIDE practice)
    periods: tuple[tuple[int, int], ...] = ()  # (after this many moves of a side, add ms to it), in order

    def __post_init__(self) -> None:
        if self.base_ms <= 0 or self.increment_ms < 0:
            raise ValueError(f"base_ms must be positive and increment_ms 0 or more, got {self}")
        counts = [moves for moves, _ in self.periods]
        if counts != sorted(set(counts)) or any(m <= 0 or add <= 0 for m, add in self.periods):
            raise ValueError(
                f"periods must be (moves, ms) pairs with growing positive move counts, got {self.periods}"
            )

    @classmethod
    def parse(cls, text: str, timing: Timing = Timing.FISCHER) -> TimeControl:
        """Read "minutes+seconds" ("90+30", "3+2", "5"), optionally "+ moves/minutes" periods ("90+30,40/30")."""
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?((?:,\d+/\d+(?:\.\d+)?)*)\s*", text)
        if match is None:
            raise ValueError(
                f"time control {text!r} is not minutes+seconds, e.g. '90+30', '3+2' or '90+30,40/30' "
                "(40 moves, then 30 more minutes)"
            )
        base, increment, periods = match.groups()
        extra = tuple(
            (int(moves), round(float(minutes) * 60_000))
            for moves, minutes in (p.split("/") for p in periods.split(",")[1:])
        )
        return cls(round(float(base) * 60_000), round(float(increment or 0) * 1000), timing, periods=extra)

    @property
    def start_ms(self) -> int:
        """What each side shows before move 1."""
        pre = self.increment_ms if self.timing is Timing.FISCHER and self.pre_add else 0
        return self.base_ms + pre


@dataclass(frozen=True, slots=True)
class ClockOptions:
    """How the simulated games go."""

    time_control: TimeControl = TimeControl(5 * 60_000, 3000)  # 5 min + 3 s, blitz
    moves: tuple[int, int] = (25, 60)  # a game ends after this many moves of each side, unless a flag falls
    flag_chance: float = 0.25  # chance that one player runs out of time in a game
    start_after_ms: int = 3000  # how long the clock stands set up before the start
    faults: frozenset[Fault] = frozenset()


@dataclass(slots=True)
class _Turn:
    side: int
    started_ms: int
    start_remaining: int  # the side's time when its turn began (Bronstein never gives back more)
    delay_left_ms: int  # US delay still to run before the time goes down
    press_at_ms: int


@dataclass(slots=True)
class _Fault:
    fault: Fault
    at_press: int  # the press number (both sides counted) at or after which it happens
    done: bool = False


class ChessClockSim:
    """One game on a simulated two-sided clock; step it with `fire()` (and `advance()` between events)."""

    def __init__(self, seed: int, options: ClockOptions = ClockOptions()) -> None:
        if options.moves[0] < 1 or options.moves[0] > options.moves[1]:
            raise ValueError(f"moves must be a range of at least one move, got {options.moves}")
        self.options = options
        self.control = options.time_control
        self._rng = random.Random(seed)
        self.white = self._rng.randrange(2)  # the side whose clock starts
        self.target_moves = self._rng.randint(*options.moves)
        self.loser_on_time: int | None = None
        self._flag_from_move = 0
        if self._rng.random() < options.flag_chance:
            self.loser_on_time = self._rng.randrange(2)
            self._flag_from_move = self._rng.randint(max(1, self.target_moves // 3), self.target_moves)
        self._faults = [
            _Fault(fault, self._rng.randint(4, max(5, self.target_moves))) for fault in sorted(options.faults)
        ]
        self.injected: list[tuple[Fault, int]] = []  # (fault, press number) as they happened
        start = self.control.start_ms
        self.remaining = [start, start]
        self.running: int | None = None
        self.moves = [0, 0]
        self.flag: int | None = None
        self.now_ms = 0
        self.started = False
        self.finished = False
        self._turn: _Turn | None = None
        self._next_tick_ms: int | None = None
        self._turn_fault: Fault | None = None  # a delay fault for the next turn

    # -- what the clock shows ------------------------------------------------------------------------

    @property
    def presses(self) -> int:
        """Presses made in this game, both sides."""
        return self.moves[0] + self.moves[1]

    @property
    def period(self) -> int:
        """The period shown: that of the side furthest on."""
        reached = [
            sum(1 for moves, _ in self.control.periods if self.moves[side] >= moves) for side in (0, 1)
        ]
        return 1 + max(reached)

    def state(self) -> ChessClockState:
        """What the clock shows now."""
        return ChessClockState(
            remaining_ms=(self.remaining[0], self.remaining[1]),
            running=self.running,
            flags=(self.flag == 0, self.flag == 1),
            resolution_ms=WIRE_CLOCK_RESOLUTION_MS,
            moves=(self.moves[0], self.moves[1]),
            period=self.period,
        )

    # -- time ------------------------------------------------------------------------------------------

    def ms_to_next_event(self) -> int | None:
        """Milliseconds until the next thing happens, or None when nothing will (game over, clock paused)."""
        event = self._next_event()
        return None if event is None else event[1] - self.now_ms

    def advance(self, ms: int) -> None:
        """Let `ms` of clock time pass, never beyond the next event (fire() handles that)."""
        if ms < 0:
            raise ValueError(f"time does not run backwards: {ms} ms")
        limit = self.ms_to_next_event()
        self._run_for(ms if limit is None else min(ms, limit))

    def fire(self) -> list[Report]:
        """Run to the next event and return what the clock sends for it: a STATE, or a press EVENT and a STATE."""
        event = self._next_event()
        if event is None:
            return []
        kind, at = event
        self._run_for(at - self.now_ms)
        if kind == "start":
            self.started = True
            self._begin_turn(self.white)
            return [self.state()]
        if kind == "flag":
            assert self.running is not None
            self.remaining[self.running] = 0
            self.flag, self.running, self._turn, self._next_tick_ms = self.running, None, None, None
            self.finished = True
            return [self.state()]
        if kind == "press":
            return self._press()
        assert self._next_tick_ms is not None
        self._next_tick_ms += TICK_MS
        self._maybe_jump()
        return [self.state()]

    def set_clock(self, remaining_ms: tuple[int, int], running: int | None) -> None:
        """An arbiter sets both times and which side runs (None pauses); raise ValueError if it cannot be done."""
        if running is not None and self.finished:
            raise ValueError("the game on this clock is over; it cannot run again")
        self.remaining = [remaining_ms[0], remaining_ms[1]]
        if self.flag is not None and self.remaining[self.flag] > 0:
            self.flag = None
        if running is None:
            self.running, self._turn, self._next_tick_ms = None, None, None
            return
        self.started = True
        self._begin_turn(running)

    def _next_event(self) -> tuple[str, int] | None:
        if self.finished:
            return None
        if not self.started:
            return "start", self.options.start_after_ms
        turn = self._turn
        if turn is None or self.running is None or self._next_tick_ms is None:
            return None  # paused by set_clock
        flag_at = self.now_ms + turn.delay_left_ms + self.remaining[turn.side]
        # a flag reached at the very moment of a press falls first; a tick at a press is the press's STATE
        return min(("flag", flag_at), ("press", turn.press_at_ms), ("tick", self._next_tick_ms), key=_order)

    def _run_for(self, ms: int) -> None:
        turn = self._turn
        if turn is not None and ms > 0:
            delayed = min(ms, turn.delay_left_ms)
            turn.delay_left_ms -= delayed
            self.remaining[turn.side] = max(0, self.remaining[turn.side] - (ms - delayed))
        self.now_ms += ms

    def _begin_turn(self, side: int) -> None:
        delay = self.control.increment_ms if self.control.timing is Timing.DELAY else 0
        if self._turn_fault is Fault.NO_INCREMENT:
            delay = 0
        elif self._turn_fault is Fault.DOUBLE_INCREMENT:
            delay *= 2
        self._turn_fault = None
        self.running = side
        self._turn = _Turn(
            side, self.now_ms, self.remaining[side], delay, self.now_ms + self._think(side, delay)
        )
        self._next_tick_ms = self.now_ms + TICK_MS

    def _think(self, side: int, delay: int) -> int:
        available = self.remaining[side] + delay
        if side == self.loser_on_time and self.moves[side] + 1 >= self._flag_from_move:
            return available + 5000  # lost in thought: the flag falls
        left = max(5, self.target_moves - self.moves[side])
        budget = available / left + (0 if self.control.timing is Timing.DELAY else self.control.increment_ms)
        think = budget * self._rng.uniform(0.1, 1.6) * (2.5 if self._rng.random() < 0.1 else 1.0)
        return max(300, min(int(think), int(available * 0.8)))

    def _press(self) -> list[Report]:
        turn = self._turn
        assert turn is not None
        side = turn.side
        self.moves[side] += 1
        used = self.now_ms - turn.started_ms
        fault = self._due_fault((Fault.NO_INCREMENT, Fault.DOUBLE_INCREMENT))
        control = self.control
        if control.timing is Timing.FISCHER:
            gain = control.increment_ms
        elif control.timing is Timing.BRONSTEIN:
            gain = max(0, min(used, control.increment_ms, turn.start_remaining - self.remaining[side]))
        else:
            gain = 0
            self._turn_fault = fault  # a delay fault shows on the opponent's coming turn
        if control.timing is not Timing.DELAY:
            gain = 0 if fault is Fault.NO_INCREMENT else 2 * gain if fault is Fault.DOUBLE_INCREMENT else gain
        self.remaining[side] = min(MAX_CLOCK_MS, self.remaining[side] + gain)
        for moves, add in control.periods:
            if self.moves[side] == moves:
                self.remaining[side] = min(MAX_CLOCK_MS, self.remaining[side] + add)
        event = DeviceEvent("press", {"side": side, "remaining_ms": list(self.remaining)})
        other = 1 - side
        if other == self.white and self.moves[side] >= self.target_moves:
            self.running, self._turn, self._next_tick_ms = None, None, None  # the players stop the clock
            self.finished = True
        else:
            self._begin_turn(other)
        return [event, self.state()]

    def _due_fault(self, kinds: tuple[Fault, ...]) -> Fault | None:
        for planned in self._faults:
            if planned.fault in kinds and not planned.done and self.presses >= planned.at_press:
                planned.done = True
                self.injected.append((planned.fault, self.presses))
                return planned.fault
        return None

    def _maybe_jump(self) -> None:
        turn = self._turn
        if turn is None or self._due_fault((Fault.TIME_JUMP,)) is None:
            return
        jump = self._rng.randint(10_000, 60_000)
        if self._rng.random() < 0.5 and self.remaining[turn.side] > jump + 5000:
            jump = -jump
        self.remaining[turn.side] = min(MAX_CLOCK_MS, self.remaining[turn.side] + jump)


def _order(event: tuple[str, int]) -> tuple[int, int]:
    return event[1], ("flag", "press", "tick").index(event[0])


class ChessClock(SimulatedWireDevice):
    """A simulated Boardcast Wire chess clock; run it on a pty master fd or a stream pair."""

    noun = "chess clock"
    short_noun = "clock"

    def __init__(
        self,
        device_id: str,
        *,
        seed: int,
        speed: float = 1.0,
        games: int = 1,
        boot_epoch: int | None = None,
        options: ClockOptions | None = None,
        faults: Collection[Fault] | None = None,
        first_seq: int = 0,
        battery: int | None = 95,
        token: str | None = None,
    ) -> None:
        super().__init__(
            device_id,
            speed=speed,
            matches=games,
            boot_epoch=boot_epoch,
            first_seq=first_seq,
            battery=battery,
            token=token,
        )
        options = options or ClockOptions()
        self.options = options if faults is None else replace(options, faults=frozenset(faults))
        self._seed = seed
        self._sim = ChessClockSim(seed, self.options)
        self._past: list[ChessClockSim] = []
        self._synced_at: float | None = None  # loop time up to which the sim's time has run
        self._wake = asyncio.Event()
        self.sent: list[Report] = []  # every STATE and EVENT of the games, in order (not resync repeats)
        self.set_clocks: list[Command] = []

    @property
    def sim(self) -> ChessClockSim:
        """The game being played now."""
        return self._sim

    @property
    def sims(self) -> list[ChessClockSim]:
        """Every game played so far, the current one last."""
        return [*self._past, self._sim]

    @property
    def hello(self) -> DeviceHello:
        """The HELLO this device sends."""
        return DeviceHello(
            device_id=self.device_id,
            family=DeviceFamily.CHESS_CLOCK.value,
            model="BC-Clock simulator",
            firmware="sim-1.0",
            protocol=PROTOCOL_VERSION,
            boot_epoch=self.boot_epoch,
            capabilities=("resync", "show_text", "set_clock", "ack"),
        )

    def current_state(self) -> ChessClockState:
        """What the clock shows now, sent at boot and on resync."""
        self._sync()
        return self._sim.state()

    def can_do(self, cmd: str) -> tuple[bool, str]:
        """Resync, show_text and set_clock."""
        if cmd == CommandName.SET_CLOCK:
            return True, ""
        return super().can_do(cmd)

    def execute(self, command: Command) -> tuple[bool, str]:
        """Set the clock as the arbiter asks; the new times go out in a STATE at once."""
        if command.cmd != CommandName.SET_CLOCK:
            return super().execute(command)
        remaining, running = command.args.get("remaining_ms"), command.args.get("running")
        if not (
            isinstance(remaining, list)
            and len(remaining) == 2
            and all(type(v) is int and 0 <= v <= MAX_CLOCK_MS for v in remaining)
            and (running is None or (type(running) is int and running in (0, 1)))
        ):
            return False, "set_clock needs remaining_ms [a, b] in milliseconds and running 0, 1 or null"
        self._sync()
        try:
            self._sim.set_clock((remaining[0], remaining[1]), running)
        except ValueError as exc:
            return False, str(exc)
        self.set_clocks.append(command)
        self._wake.set()
        return True, ""

    def _sync(self) -> None:
        """Bring the sim's clock time up to now (never past its next event)."""
        now = asyncio.get_running_loop().time()
        if self._synced_at is not None:
            self._sim.advance(max(0, int((now - self._synced_at) * self.speed * 1000)))
        self._synced_at = now

    async def _play(self) -> None:
        loop = asyncio.get_running_loop()
        for number in range(self.matches):
            if number > 0:
                await asyncio.sleep(BETWEEN_GAMES_S / self.speed)
                self._past.append(self._sim)
                self._sim = ChessClockSim(self._seed + number, self.options)
                self._synced_at = loop.time()
                await self._send_play(self._sim.state())
            while not self._sim.finished:
                wait_ms = self._sim.ms_to_next_event()
                self._wake.clear()
                try:
                    async with asyncio.timeout(None if wait_ms is None else wait_ms / 1000 / self.speed):
                        await self._wake.wait()
                except TimeoutError:
                    reports = self._sim.fire()
                    self._synced_at = loop.time()
                    for report in reports:
                        await self._send_play(report)
                else:  # set_clock changed the clock: show it now
                    self._sync()
                    await self._send_play(self._sim.state())
            self.matches_played += 1
        self.done.set()

    async def _send_play(self, report: Report) -> None:
        self.sent.append(report)
        await self._send(report)


def main(argv: Sequence[str] | None = None) -> int:
    """Run a simulated chess clock on a new pty and print its path."""
    parser = simulator_parser(
        "python -m boardcast_sim.chess_clock",
        __doc__,
        device_id="clk-sim-1",
        seed=random.SystemRandom().randrange(2**32),
        faults=[fault.value for fault in Fault],
        fault_help="make this clock error once per game (repeatable)",
    )
    parser.add_argument(
        "--time", default="5+3", type=_time_text, help="minutes+seconds, e.g. 90+30; ',40/30' adds a period"
    )
    parser.add_argument("--timing", default="fischer", choices=[t.value for t in Timing])
    parser.add_argument("--flag-chance", type=float, default=0.25, help="chance a player runs out of time")

    def clock(args: argparse.Namespace) -> ChessClock:
        return ChessClock(
            args.device_id,
            seed=args.seed,
            speed=args.speed,
            games=args.matches,
            options=ClockOptions(
                time_control=TimeControl.parse(args.time, Timing(args.timing)),
                flag_chance=args.flag_chance,
                faults=frozenset(Fault(name) for name in args.fault),
            ),
        )

    return run_on_new_pty(parser, argv, clock)


def _time_text(text: str) -> str:
    try:
        TimeControl.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


if __name__ == "__main__":
    sys.exit(main())
