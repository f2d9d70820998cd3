"""A seeded backgammon match played at random, step by step, with the errors it can be told to make.

Pure: no clock, no I/O. `BackgammonMatchSim.step()` returns what a `backgammon-board` sends for one step of
play, each report with the seconds of play before it: the opening roll, a double and its answer, a roll,
the checkers moved (sometimes checker by checker), the clock press and the board cleared for the next roll.

The move generator here is written from the rules and shares nothing with the hub's engine, so the two
check each other: every die is played if it can be, the larger one if only one can, doubles four times,
bar first, bearing off only with all fifteen home (a higher die bears off from the highest point).

Sides are 0 and 1. The board is the wire's: `points[i]` is point i+1 counted from side 0's home board,
side 0's checkers positive, moving from 24 towards 1; side 1's negative, moving from 1 towards 24.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TypedDict

from devices.observations import BackgammonBoardEvent, BackgammonBoardState, Report

START_POINTS = (-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2)
ROLL_SECONDS = (1.5, 3.0)  # picking up and throwing the dice
CHECKER_SECONDS = (0.8, 2.0)  # moving one checker
THINK_SECONDS = (1.0, 6.0)  # before the first checker moves
BETWEEN_GAMES_S = 20.0

Step = tuple[int, int, bool]  # (from, to, hit) in the mover's numbering: 25 = bar, 0 = off


class Fault(enum.StrEnum):
    """An error the simulated players make on purpose; most are the hub's anomaly code after "bg."."""

    ILLEGAL_MOVE = "illegal_move"  # one checker moved a pip too far, then the press
    CUBE_AFTER_ROLL = "cube_after_roll"  # a double offered after rolling
    CUBE_NOT_OWNER = "cube_not_owner"  # a double by the side that does not own the cube
    COCKED_DICE = "cocked_dice"  # a die lands cocked; the roll is declared invalid and rerolled


@dataclass(frozen=True, slots=True)
class Board:
    """Checkers only: the wire's signed points, the bars and the trays."""

    points: tuple[int, ...] = START_POINTS
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)


def _own(side: int, point: int) -> int:
    """The index in `points` of `side`'s own point 1..24."""
    return point - 1 if side == 0 else 24 - point


def views(board: Board, side: int) -> tuple[list[int], list[int]]:
    """(mine, theirs) counted at my own points 0..25: [0] off, 1..24 the points, [25] my bar (mine only)."""
    mine = [0] * 26
    theirs = [0] * 26
    sign = 1 if side == 0 else -1
    for point in range(1, 25):
        n = board.points[_own(side, point)] * sign
        if n > 0:
            mine[point] = n
        elif n < 0:
            theirs[point] = -n
    mine[25] = board.bar[side]
    mine[0] = board.off[side]
    return mine, theirs


def apply_steps(board: Board, side: int, steps: Collection[Step]) -> Board:
    """The board after `side` makes these steps (a blot on the landing point goes to the bar)."""
    points = list(board.points)
    bar = list(board.bar)
    off = list(board.off)
    sign = 1 if side == 0 else -1
    for frm, to, _ in steps:
        if frm == 25:
            bar[side] -= 1
        else:
            points[_own(side, frm)] -= sign
        if to == 0:
            off[side] += 1
            continue
        i = _own(side, to)
        if points[i] == -sign:
            points[i] = 0
            bar[1 - side] += 1
        points[i] += sign
    return Board(tuple(points), (bar[0], bar[1]), (off[0], off[1]))


def _moves_for_die(mine: list[int], theirs: list[int], die: int, top: int) -> list[Step]:
    sources = [25] if mine[25] else [p for p in range(min(top, 24), 0, -1) if mine[p]]
    all_home = mine[25] == 0 and not any(mine[7:25])
    highest = max((p for p in range(1, 25) if mine[p]), default=0)
    out: list[Step] = []
    for s in sources:
        t = s - die
        if t >= 1:
            if theirs[t] >= 2:
                continue
            out.append((s, t, theirs[t] == 1))
        elif all_home and (t == 0 or s == highest):
            out.append((s, 0, False))
    return out


def _do(mine: list[int], theirs: list[int], step: Step) -> tuple[list[int], list[int]]:
    m, th = mine.copy(), theirs.copy()
    s, t, hit = step
    m[s] -= 1
    if t == 0:
        m[0] += 1
    else:
        m[t] += 1
        if hit:
            th[t] = 0
    return m, th


def plays(board: Board, side: int, dice: tuple[int, int]) -> dict[Board, tuple[Step, ...]]:
    """Every distinct legal result of the roll, each with one way to play it (steps in order)."""
    mine, theirs = views(board, side)
    d1, d2 = dice
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    found: list[tuple[int, int, tuple[Step, ...]]] = []  # (dice used, larger die used, steps)

    def walk(m: list[int], th: list[int], rest: tuple[int, ...], top: int, steps: tuple[Step, ...]) -> None:
        moves = _moves_for_die(m, th, rest[0], top) if rest else []
        if not moves:
            found.append((len(steps), max((s - t if t else 0) for s, t, _ in steps) if steps else 0, steps))
            return
        for step in moves:
            m2, th2 = _do(m, th, step)
            # doubles: take the checkers in falling order of their points, so each result is found once
            walk(m2, th2, rest[1:], step[0] if d1 == d2 else 25, (*steps, step))

    for order in orders:
        walk(mine, theirs, order, 25, ())
    most = max(n for n, _, _ in found)
    if most == 0:
        return {}
    best = [f for f in found if f[0] == most]
    if most == 1 and d1 != d2:
        big = max(d1, d2)
        with_big = [f for f in best if _die_of(f[2][0]) == big or _bears_with(f[2][0], big, mine)]
        best = with_big or best
    out: dict[Board, tuple[Step, ...]] = {}
    for _, _, steps in best:
        out.setdefault(apply_steps(board, side, steps), steps)
    return out


def _die_of(step: Step) -> int:
    s, t, _ = step
    return s - t


def _bears_with(step: Step, die: int, mine: list[int]) -> bool:
    """A bear-off from below the die's point counts as using the die (a 6 bearing off from the 4)."""
    s, t, _ = step
    return t == 0 and s < die


def pip_count(board: Board, side: int) -> int:
    mine, _ = views(board, side)
    return sum(p * mine[p] for p in range(1, 26))


def win_kind(board: Board, winner: int) -> int:
    """1 single, 2 gammon, 3 backgammon (a loser's checker on the bar or in the winner's home board)."""
    loser = 1 - winner
    if board.off[loser]:
        return 1
    mine, _ = views(board, loser)
    if mine[25] or any(mine[19:25]):
        return 3
    return 2


@dataclass(slots=True)
class MatchOptions:
    """How a simulated match is played."""

    length: int = 5
    faults: Collection[Fault] | Mapping[Fault, float] = frozenset()  # each once a match, or a probability
    double_rate: float = 0.5  # how keen a side with a racing lead is to double
    take_rate: float = 0.7
    stepwise_rate: float = 0.5  # how often a play is shown checker by checker
    correct_rate: float = 0.5  # how often an illegal move is put right before the opponent rolls
    dice_source: str = "camera"
    clock: tuple[str, float, float] | None = None  # (mode, reserve_s, delay_s) as the board's clock runs


@dataclass(slots=True)
class Resume:
    """Where the hub says a match stands, for a board that stayed on while the hub was down."""

    score: tuple[int, int]
    board: Board
    turn: int
    phase: str  # "opening", "await_roll", "moving", "doubled", "match_over"
    cube_value: int = 1
    cube_owner: int | None = None
    crawford: bool = False
    crawford_done: bool = False
    dice: tuple[int, int] | None = None  # the dice in play (moving)
    turn_start: Board | None = None  # the board before the move in progress
    shown_dice: tuple[int, int] | None = None


class PlayedGame(TypedDict):
    """One finished game of a simulated match, as the tests read it back."""

    winner: int
    points: int
    kind: str
    score: tuple[int, ...]


@dataclass(slots=True)
class BackgammonMatchSim:
    """A whole match to `options.length`, played one board report at a time."""

    seed: int
    options: MatchOptions = field(default_factory=MatchOptions)
    resume: Resume | None = None
    rng: random.Random = field(init=False)
    board: Board = field(init=False, default=Board())
    score: list[int] = field(init=False, default_factory=lambda: [0, 0])
    turn: int = field(init=False, default=0)
    dice: tuple[int, int] | None = field(init=False, default=None)
    cube_value: int = field(init=False, default=1)
    cube_owner: int | None = field(init=False, default=None)
    crawford: bool = field(init=False, default=False)
    crawford_done: bool = field(init=False, default=False)
    game: int = field(init=False, default=0)
    phase: str = field(init=False, default="opening")
    winner: int | None = field(init=False, default=None)
    remaining_s: list[float] = field(init=False, default_factory=lambda: [0.0, 0.0])
    injected: list[tuple[Fault, int]] = field(init=False, default_factory=list)
    illegal_boards: list[Board] = field(init=False, default_factory=list)  # what the checks must flag
    games: list[PlayedGame] = field(init=False, default_factory=list)
    turns: int = field(init=False, default=0)
    _fault_at: dict[Fault, int] = field(init=False, default_factory=dict)
    _pending_double: int | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        faults = self.options.faults
        if not isinstance(faults, Mapping):
            self._fault_at = {f: self.rng.randrange(2, 30) for f in faults}
        if self.options.clock is not None:
            self.remaining_s = [self.options.clock[1], self.options.clock[1]]
        r = self.resume
        if r is not None:
            self.score = list(r.score)
            self.board = r.board
            self.turn = r.turn
            self.cube_value, self.cube_owner = r.cube_value, r.cube_owner
            self.crawford, self.crawford_done = r.crawford, r.crawford_done
            self.phase = r.phase
            self.game = 1
            if r.phase == "moving" and r.turn_start is not None and r.dice is not None:
                self.board, self.dice = r.turn_start, r.dice
            if r.phase == "doubled":
                self._pending_double = r.turn
            if r.phase == "match_over":
                self.winner = 0 if r.score[0] >= r.score[1] else 1

    # -- what the board shows ----------------------------------------------------------------------------

    def state(
        self, dice: tuple[int, int] | None = None, turn: int | None = None, board: Board | None = None
    ) -> BackgammonBoardState:
        """The board's STATE report."""
        b = board or self.board
        return BackgammonBoardState(
            points=b.points,
            bar=b.bar,
            off=b.off,
            dice=dice,
            dice_source=self.options.dice_source if dice is not None else None,
            cube_value=self.cube_value,
            cube_owner=self.cube_owner,
            turn=turn,
        )

    @property
    def finished(self) -> bool:
        return self.winner is not None

    def _fault(self, fault: Fault) -> bool:
        faults = self.options.faults
        if isinstance(faults, Mapping):
            hit = fault in faults and self.rng.random() < faults[fault]
        else:
            hit = self._fault_at.get(fault) is not None and self.turns >= self._fault_at[fault]
            if hit:
                del self._fault_at[fault]
        if hit:
            self.injected.append((fault, self.turns))
        return hit

    def _roll(self) -> tuple[int, int]:
        return (self.rng.randint(1, 6), self.rng.randint(1, 6))

    def _press(self, side: int, used_s: float) -> BackgammonBoardEvent:
        clock = self.options.clock
        remaining = None
        if clock is not None:
            mode, _, delay = clock
            if mode == "simple":
                self.remaining_s[side] -= max(0.0, used_s - delay)
            else:
                self.remaining_s[side] -= used_s - min(used_s, delay)
            remaining = [max(0, int(self.remaining_s[0] * 1000)), max(0, int(self.remaining_s[1] * 1000))]
        return BackgammonBoardEvent("press", {"side": side, "remaining_ms": remaining})

    def _pause(self, span: tuple[float, float]) -> float:
        return self.rng.uniform(*span)

    # -- play -----------------------------------------------------------------------------------------------

    def step(self) -> list[tuple[float, Report]]:
        """The next reports, each with the seconds of play before it; [] once the match is over."""
        if self.finished:
            return []
        if self.phase == "opening":
            return self._opening()
        if self.phase == "doubled":
            return self._answer_double()
        if self.phase == "moving" and self.dice is not None:
            return self._move(self.dice, [])
        return self._turn()

    def _opening(self) -> list[tuple[float, Report]]:
        out: list[tuple[float, Report]] = []
        self.game += 1
        self.crawford = not self.crawford_done and self.options.length - 1 in self.score
        self.crawford_done = self.crawford_done or self.crawford
        self.cube_value, self.cube_owner = 1, None
        self.board = Board()
        out.append((BETWEEN_GAMES_S if self.game > 1 else 1.0, self.state()))
        while True:
            a, b = self._roll()
            out.append((self._pause(ROLL_SECONDS), self.state(dice=(a, b))))
            if a != b:
                break
            out.append((1.0, self.state()))  # a tie: both throw again
        self.turn = 0 if a > b else 1
        self.phase = "moving"
        return out + self._move((max(a, b), min(a, b)), [], shown=(a, b))

    def _may_double(self, side: int) -> bool:
        return not self.crawford and self.cube_owner in (None, side)

    def _wants_double(self, side: int) -> bool:
        mine, theirs = pip_count(self.board, side), pip_count(self.board, 1 - side)
        lead = (theirs - mine) / max(theirs, 1)
        if self.score[side] + self.cube_value >= self.options.length:
            return False  # already enough to win: no reason to
        return lead > 0.08 and self.rng.random() < self.options.double_rate * min(1.0, lead * 4)

    def _turn(self) -> list[tuple[float, Report]]:
        side = self.turn
        self.turns += 1
        out: list[tuple[float, Report]] = []
        owner_other = self.cube_owner == 1 - side and not self.crawford
        if owner_other and self._fault(Fault.CUBE_NOT_OWNER):
            self._pending_double = side
            out.append(
                (self._pause(ROLL_SECONDS), BackgammonBoardEvent("cube", {"action": "double", "side": side}))
            )
            self.phase = "doubled"
            return out + self._answer_double()
        if self._may_double(side) and self._wants_double(side):
            self._pending_double = side
            out.append(
                (self._pause(ROLL_SECONDS), BackgammonBoardEvent("cube", {"action": "double", "side": side}))
            )
            self.phase = "doubled"
            return out + self._answer_double()
        if self._fault(Fault.COCKED_DICE):
            out.append((self._pause(ROLL_SECONDS), self.state(dice=self._roll(), turn=side)))
            out.append((1.0, BackgammonBoardEvent("invalid_dice", {"side": side})))
            out.append((0.5, self.state(turn=side)))
        dice = self._roll()
        out.append((self._pause(ROLL_SECONDS), self.state(dice=dice, turn=side)))
        self.phase = "moving"
        return self._move(dice, out)

    def _answer_double(self) -> list[tuple[float, Report]]:
        doubler = self._pending_double if self._pending_double is not None else self.turn
        taker = 1 - doubler
        self._pending_double = None
        pause = self._pause(THINK_SECONDS)
        if self.rng.random() < self.options.take_rate:
            self.cube_value *= 2
            self.cube_owner = taker
            self.phase = "await_roll"
            return [
                (pause, BackgammonBoardEvent("cube", {"action": "take", "side": taker})),
                (0.5, self.state(turn=doubler)),
            ]
        out: list[tuple[float, Report]] = [
            (pause, BackgammonBoardEvent("cube", {"action": "drop", "side": taker}))
        ]
        self._end_game(doubler, self.cube_value, "drop")
        return out

    def _move(
        self, dice: tuple[int, int], out: list[tuple[float, Report]], shown: tuple[int, int] | None = None
    ) -> list[tuple[float, Report]]:
        side = self.turn
        shown = shown or dice
        if self.resume is not None and self.resume.phase == "moving" and self.resume.shown_dice is not None:
            shown = self.resume.shown_dice
            self.resume = None
        start = self.board
        used = 0.0
        if self._fault(Fault.CUBE_AFTER_ROLL):
            out.append((1.0, BackgammonBoardEvent("cube", {"action": "double", "side": side})))
        results = plays(start, side, dice)
        think = self._pause(THINK_SECONDS)
        used += think
        if results:
            result, steps = self.rng.choice(sorted(results.items(), key=lambda kv: kv[1]))
            if self.rng.random() < self.options.stepwise_rate and len(steps) > 1:
                board = start
                for i, step in enumerate(steps):
                    board = apply_steps(board, side, [step])
                    pause = think if i == 0 else self._pause(CHECKER_SECONDS)
                    used += 0 if i == 0 else pause
                    out.append((pause, self.state(dice=shown, turn=side, board=board)))
            else:
                pause = self._pause(CHECKER_SECONDS) * len(steps)
                used += pause
                out.append((think + pause, self.state(dice=shown, turn=side, board=result)))
            self.board = result
            if self.board.off[side] < 15 and self._fault(Fault.ILLEGAL_MOVE):
                wrong = self._illegal_from(start, side, dice, results)
                if wrong is not None:
                    self.board = wrong
                    self.illegal_boards.append(wrong)
                    out.append((1.0, self.state(dice=shown, turn=side, board=wrong)))
                    out.append((1.0, self._press(side, used + 1.0)))
                    if self.rng.random() < self.options.correct_rate:
                        self.board = result  # put right before the opponent rolls
                        out.append((2.0, self.state(turn=side, board=result)))
                    self.turn = 1 - side
                    self.phase = "await_roll"
                    self.dice = None
                    out.append((0.5, self.state(turn=1 - side)))
                    return out
        else:
            out.append((think, self.state(dice=shown, turn=side)))
        out.append((1.0, self._press(side, used + 1.0)))
        self.dice = None
        if self.board.off[side] == 15:
            kind = win_kind(self.board, side)
            self._end_game(side, kind * self.cube_value, {1: "single", 2: "gammon", 3: "backgammon"}[kind])
            return out
        self.turn = 1 - side
        self.phase = "await_roll"
        out.append((0.5, self.state(turn=1 - side)))
        return out

    def _illegal_from(
        self, start: Board, side: int, dice: tuple[int, int], results: Mapping[Board, object]
    ) -> Board | None:
        """A legal result with one checker moved one pip further: not a result of this roll."""
        mine, theirs = views(self.board, side)
        for point in range(24, 1, -1):
            if mine[point] and theirs[point - 1] == 0 and not mine[25]:
                wrong = apply_steps(self.board, side, [(point, point - 1, False)])
                if wrong not in results:
                    return wrong
        return None

    def _end_game(self, winner: int, points: int, kind: str) -> None:
        self.score[winner] += points
        self.games.append({"winner": winner, "points": points, "kind": kind, "score": tuple(self.score)})
        self.phase = "opening"
        self.dice = None
        self.crawford = False
        if self.score[winner] >= self.options.length:
            self.winner = winner
            self.phase = "match_over"
