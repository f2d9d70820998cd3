"""Backgammon legality and match state as a pure reducer (tournament rules, RULES.md §1; seed 000 §5–§8).

Two layers:

- an exact move model: `Position`, `legal_plays`, `legal_results`, `partial_results` and the contract
  function `legal_position_ids`, which agrees with GNU Backgammon's generator (max dice, then max pips,
  results deduplicated by resulting position);
- the match: `initial`, `apply(state, event, at) -> Outcome`, which folds dice, board snapshots, clock
  presses and cube actions, and reports facts and anomalies (`bg.*`) without ever rejecting an input.

Sides are 0 = A and 1 = B. `Position.points[0]` is point 1 seen from A: A's checkers are positive and move
from 24 towards 1; B's are negative and move from 1 towards 24.
"""

from __future__ import annotations

import binascii
import enum
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import compress as _compress
from typing import Any

from hub.rules import backgammon_ids as ids
from hub.rules import clock as clk
from hub.rules.backgammon_ids import IdError, board_from_position_id
from hub.rules.base import Anomaly, Fact, Outcome, Severity

SIDE_NAMES = ("A", "B")
CHECKERS = 15

# --- the move model ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Position:
    """A board: 24 signed points (A positive, from A's view), checkers on the bar and borne off, side on roll."""

    points: tuple[int, ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    turn: int = 0

    def side_view(self, side: int) -> tuple[int, ...]:
        """`side`'s checkers counted from its own 1-point, index 24 = bar (GNU Backgammon's layout)."""
        if side == 0:
            return (*(n if n > 0 else 0 for n in self.points), self.bar[0])
        pts = self.points
        return (*(-pts[23 - i] if pts[23 - i] < 0 else 0 for i in range(24)), self.bar[1])

    def board(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """GNU Backgammon `TanBoard`: (player not on roll, player on roll)."""
        return self.side_view(1 - self.turn), self.side_view(self.turn)

    def position_id(self) -> str:
        """GNU Backgammon Position ID, from the side on roll."""
        return ids.position_id(self.board())

    def same_board(self, other: Position) -> bool:
        """Same checkers everywhere, whoever is on roll."""
        return self.points == other.points and self.bar == other.bar and self.off == other.off

    def with_turn(self, turn: int) -> Position:
        return replace(self, turn=turn)

    @classmethod
    def from_board(cls, board: Iterable[Iterable[int]], turn: int = 0) -> Position:
        """The inverse of `board()`: `(not on roll, on roll)` sides, `turn` = the side on roll."""
        opp, me = (tuple(s) for s in board)
        a, b = (me, opp) if turn == 0 else (opp, me)
        points = [a[i] - b[23 - i] for i in range(24)]
        return cls(tuple(points), (a[24], b[24]), (CHECKERS - sum(a), CHECKERS - sum(b)), turn)

    @classmethod
    def from_position_id(cls, pid: str, turn: int = 0) -> Position:
        """Decode a Position ID with `turn` as the side on roll."""
        return cls.from_board(board_from_position_id(pid), turn)


START = Position(
    (-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2),
)


def board_problem(points: Iterable[int], bar: Iterable[int], off: Iterable[int]) -> str | None:
    """Why a snapshot cannot be a position (in English), or None when it can."""
    points, bar, off = list(points), list(bar), list(off)
    if len(points) != 24 or len(bar) != 2 or len(off) != 2:
        return "a board has 24 points, 2 bars and 2 trays"
    if any(not isinstance(n, int) or isinstance(n, bool) for n in (*points, *bar, *off)):
        return "checker counts must be integers"
    if min(*bar, *off) < 0:
        return "a bar or tray holds a negative number of checkers"
    a = sum(n for n in points if n > 0) + bar[0] + off[0]
    b = -sum(n for n in points if n < 0) + bar[1] + off[1]
    if a != CHECKERS or b != CHECKERS:
        return f"A has {a} checkers and B has {b}; each side has 15"
    return None


@dataclass(frozen=True, slots=True)
class Play:
    """One way to reach a distinct legal result: moves as (from, to) in the mover's own numbering
    (25 = bar, 0 = off), whether each hit, and the resulting position (same side still on roll)."""

    moves: tuple[tuple[int, int, bool], ...]
    result: Position

    @property
    def notation(self) -> str:
        """GNU Backgammon style, e.g. `13/7 8/7`, `bar/22*`, `6/off(2)`."""
        return notation(self.moves)


def notation(moves: Iterable[tuple[int, int, bool]]) -> str:
    """Moves as text in GNU Backgammon's style: one checker's steps joined (`24/13`, `24/18*/13`), higher
    points first, repeated moves as `(n)`."""
    chains: list[list[tuple[int, bool]]] = []  # [(point, hit on arrival)], first = origin
    for frm, to, hit in moves:
        for chain in chains:
            if chain[-1][0] == frm and frm not in (0, 25):
                chain.append((to, hit))
                break
        else:
            chains.append([(frm, False), (to, hit)])
    texts: list[tuple[int, int, str]] = []
    for chain in chains:
        shown = [chain[0]] + [step for step in chain[1:-1] if step[1]] + [chain[-1]]
        text = "/".join(
            ("bar" if p == 25 else "off" if p == 0 else str(p)) + ("*" if hit else "") for p, hit in shown
        )
        texts.append((chain[0][0], chain[-1][0], text))
    texts.sort(key=lambda t: (-t[0], -t[1]))
    out: list[list[Any]] = []
    for _, _, text in texts:
        if out and out[-1][0] == text:
            out[-1][1] += 1
        else:
            out.append([text, 1])
    return " ".join(t if n == 1 else f"{t}({n})" for t, n in out)


def play_steps(position: Position, steps: Iterable[tuple[int, int, bool]]) -> Position:
    """The position after moving the side on roll's checkers by `steps` ((from, to, hit) in its own
    numbering, 25 = bar, 0 = off). No legality check: a hit is made whenever one opposing checker is hit."""
    side = position.turn
    me = list(position.side_view(side))
    opp = list(position.side_view(1 - side))
    off = list(position.off)
    for frm, to, _hit in steps:
        me[frm - 1] -= 1
        if to == 0:
            off[side] += 1
            continue
        me[to - 1] += 1
        if opp[24 - to] == 1:
            opp[24 - to] = 0
            opp[24] += 1
    result = Position.from_board((tuple(opp), tuple(me)), side)
    return result


# A side's points as runs of "1"s (its Position ID codes without their "0"), listed bar first: index j is
# point 24 - j (j = 0 the bar, j = 24 the 1-point), so a die d moves a checker from j to j + d and
# "0".join(runs) is the side's Position ID bits reversed, less the first "0".
Runs = list[str]
Found = dict[tuple[str, int], None]

_J_FROM = [range(j, 25) for j in range(25)]


def _search(opp: Runs, ms: Runs, d1: int, d2: int) -> Found:
    """Distinct best results as `(player's runs joined by "0", mask of opponent points hit)`.

    `opp[i]` is the opponent's point i (i = 24 its bar) as a run of "1"s, `ms` the player's runs bar first
    (see `Runs`); `ms` is changed as checkers move and restored on return. Depth-first over both die
    orders (doubles: each move from no higher point than the last), keeping only the sequences that use
    the most dice and then the most pips, as GNU Backgammon's `SaveMoves` does.
    """
    if d1 != d2:
        return _search_two(opp, ms, d1, d2)
    found: Found = {}
    partial: Found = {}
    partial_n = [1]
    steps = _steps
    join = "0".join
    compress = _compress
    j_from = _J_FROM

    def last(jmin: int, mask: int) -> bool:
        """Record every fourth move (inlined `_steps`, undone at once); whether there was one."""
        moved = False
        home = None
        for j in (0,) if ms[0] else compress(j_from[jmin], ms[jmin:]):
            jt = j + d1
            a = ms[j]
            if jt <= 24:
                o = jt - 1
                n = opp[o]
                m2 = mask
                if n and not mask >> o & 1:
                    if n != "1":
                        continue
                    m2 = mask | 1 << o
                ms[j] = a[1:]
                b = ms[jt]
                ms[jt] = b + "1"
                found[(join(ms), m2)] = None
                ms[jt] = b
            else:
                if home is None:
                    home = not any(ms[:19])
                if not home or (jt != 25 and any(ms[19:j])):
                    continue
                ms[j] = a[1:]
                found[(join(ms), mask)] = None
            ms[j] = a
            moved = True
        return moved

    def rec(i: int, jmin: int, mask: int) -> None:
        if i == 3 and last(jmin, mask):
            return
        moves = [] if i == 3 else steps(opp, ms, d1, mask, jmin)
        if not moves:
            if i >= partial_n[0] and not found:
                if i > partial_n[0]:
                    partial_n[0] = i
                    partial.clear()
                partial[(join(ms), mask)] = None
            return
        for j, jt, m2 in moves:
            a = ms[j]
            ms[j] = a[1:]
            if jt <= 24:
                b = ms[jt]
                ms[jt] = b + "1"
                rec(i + 1, j, m2)
                ms[jt] = b
            else:
                rec(i + 1, j, m2)
            ms[j] = a

    rec(0, 0, 0)
    return found or partial


def _steps(opp: Runs, ms: Runs, d: int, mask: int, jmin: int = 0) -> list[tuple[int, int, int]]:
    """The single moves of die `d` from runs `ms` at index `jmin` or later, as `(from, to, mask after)`
    in run indices; `to` beyond 24 is bearing off."""
    out = []
    home = None
    for j in (0,) if ms[0] else _compress(_J_FROM[jmin], ms[jmin:]):
        jt = j + d
        if jt <= 24:
            o = jt - 1
            n = opp[o]
            if n and not mask >> o & 1:
                if n != "1":
                    continue
                out.append((j, jt, mask | 1 << o))
            else:
                out.append((j, jt, mask))
        else:
            if home is None:
                home = not any(ms[:19])
            if home and (jt == 25 or not any(ms[19:j])):
                out.append((j, jt, mask))
    return out


def _search_two(opp: Runs, ms: Runs, d1: int, d2: int) -> Found:
    """`_search` for a roll that is not a double: plays of both dice if any, else the larger single die."""
    found: Found = {}
    single: Found = {}
    single_pips = 0
    steps = _steps
    join = "0".join
    compress = _compress
    all_j = _J_FROM[0]
    for da, db in ((d1, d2), (d2, d1)):
        for j, jt, mask in steps(opp, ms, da, 0):
            a = ms[j]
            ms[j] = a[1:]
            on = jt <= 24
            if on:
                b = ms[jt]
                ms[jt] = b + "1"
            # the second die, inlined: each play is recorded and undone at once
            moved = False
            home = None
            for j2 in (0,) if ms[0] else compress(all_j, ms):
                jt2 = j2 + db
                a2 = ms[j2]
                if jt2 <= 24:
                    o = jt2 - 1
                    n = opp[o]
                    mask2 = mask
                    if n and not mask >> o & 1:
                        if n != "1":
                            continue
                        mask2 = mask | 1 << o
                    ms[j2] = a2[1:]
                    b2 = ms[jt2]
                    ms[jt2] = b2 + "1"
                    found[(join(ms), mask2)] = None
                    ms[jt2] = b2
                else:
                    if home is None:
                        home = not any(ms[:19])
                    if not home or (jt2 != 25 and any(ms[19:j2])):
                        continue
                    ms[j2] = a2[1:]
                    found[(join(ms), mask)] = None
                ms[j2] = a2
                moved = True
            if not moved and not found and da >= single_pips:
                if da > single_pips:
                    single_pips = da
                    single.clear()
                single[(join(ms), mask)] = None
            ms[j] = a
            if on:
                ms[jt] = b
    return found or single


def _check_dice(d1: int, d2: int) -> None:
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice must be 1-6, got {d1} and {d2}")


_b2a = binascii.b2a_base64
_ID_SLICES = [slice(16 * k, 16 * k + 14) for k in range(64)]  # the IDs in a run of 16-character chunks


def legal_position_ids(position_id: str, die1: int, die2: int) -> set[str]:
    """GNU Backgammon Position IDs of every distinct position the player on roll can reach with the roll,
    with the same player still on roll; the empty set when no play is possible."""
    if not (1 <= die1 <= 6 and 1 <= die2 <= 6):
        _check_dice(die1, die2)
    try:
        raw = binascii.a2b_base64(position_id + "==")
    except binascii.Error:
        raise IdError(f"not a Position ID: {position_id!r}") from None
    if len(position_id) != 14 or len(raw) != 10:
        raise IdError(f"not a Position ID (14 Base64 characters): {position_id!r}")
    bits = format(int.from_bytes(raw, "little"), "080b")  # the bit stream, last bit first
    parts = bits.rsplit("0", 50)  # [rest, player's bar, …, player's 1-point, opponent's bar, …, 1-point]
    if len(parts) < 51:
        raise IdError(f"Position ID {position_id!r} does not describe two sides")
    opp = parts[50:25:-1]
    ms = parts[1:26]
    n_opp = len("".join(opp))
    if n_opp > CHECKERS or len("".join(ms)) > CHECKERS:
        raise IdError(f"Position ID {position_id!r} has more than 15 checkers for one side")
    found = _search(opp, ms, die1, die2)
    if not found:
        return set()
    # The reversed bit stream is the player's codes (bar first) then the opponent's, ready for int(..., 2).
    # A hit only empties an opponent blot and adds one to its bar.
    # Each ID's 80 bits are padded to 96 (12 bytes, 16 Base64 characters, the first 14 of which are the ID's),
    # so every ID is converted by one int(), one to_bytes() and one b2a_base64() for the lot.
    opp_cache = {0: bits[55 - n_opp :]}
    chunks = []
    for m, mask in found:
        rev = opp_cache.get(mask)
        if rev is None:
            hit_parts = opp[::-1]
            hits = 0
            low_bits = mask
            while low_bits:
                low = low_bits & -low_bits
                hit_parts[24 - low.bit_length() + 1] = ""
                hits += 1
                low_bits ^= low
            hit_parts[0] += "1" * hits
            rev = opp_cache[mask] = "0" + "0".join(hit_parts)
        chunks.append((m + rev).zfill(96))
    chunks.reverse()  # the last chunk is the lowest in the integer, the first in the little-endian bytes
    n = len(chunks)
    text = _b2a(int("".join(chunks), 2).to_bytes(12 * n, "little"), newline=False).decode()
    if n <= len(_ID_SLICES):
        return set(map(text.__getitem__, _ID_SLICES[:n]))
    return {text[i : i + 14] for i in range(0, len(text), 16)}


def _walk(position: Position, d1: int, d2: int) -> tuple[dict[Position, Play], set[Position]]:
    """Legal results with one play each, and every intermediate position along a legal play."""
    opp0 = position.side_view(1 - position.turn)
    me0 = position.side_view(position.turn)
    dice_orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    leaves: list[
        tuple[tuple[int, int], tuple[int, ...], tuple[int, ...], tuple[Any, ...], tuple[Any, ...]]
    ] = []

    def rec(me, opp, dice, i, top, pips, moves, trail):
        moved = False
        if i < len(dice):
            d = dice[i]
            srcs = [24] if me[24] else [s for s in range(top, -1, -1) if me[s]]
            home = not any(me[6:])
            for s in srcs:
                t = s - d
                if t >= 0:
                    o = 23 - t
                    if opp[o] >= 2:
                        continue
                    hit = opp[o] == 1
                    nm = list(me)
                    nm[s] -= 1
                    nm[t] += 1
                    no = list(opp)
                    if hit:
                        no[o] = 0
                        no[24] += 1
                    step = (s + 1, t + 1, hit)
                else:
                    if not home or (t != -1 and any(me[s + 1 : 6])):
                        continue
                    nm = list(me)
                    nm[s] -= 1
                    no = list(opp)
                    step = (s + 1, 0, False)
                moved = True
                state = (tuple(nm), tuple(no))
                rec(
                    state[0],
                    state[1],
                    dice,
                    i + 1,
                    s if d1 == d2 else 24,
                    pips + d,
                    (*moves, step),
                    (*trail, state),
                )
        if not moved:
            leaves.append(((i, pips), me, opp, moves, trail))

    for dice in dice_orders:
        rec(me0, opp0, dice, 0, 24, 0, (), ())
    best = max(leaf[0] for leaf in leaves)
    results: dict[Position, Play] = {}
    partial: set[Position] = set()
    if best[0] == 0:
        return results, partial
    turn = position.turn
    for score, me, opp, moves, trail in leaves:
        if score != best:
            continue
        result = Position.from_board((opp, me), turn)
        results.setdefault(result, Play(moves, result))
        for m, o in trail[:-1]:
            partial.add(Position.from_board((o, m), turn))
    return results, partial


def legal_plays(position: Position, d1: int, d2: int) -> tuple[Play, ...]:
    """One play per distinct legal result (GNU Backgammon's list); empty when no play is possible."""
    _check_dice(d1, d2)
    return tuple(_walk(position, d1, d2)[0].values())


def legal_results(position: Position, d1: int, d2: int) -> frozenset[Position]:
    """Every distinct position the side on roll can reach with the roll (same side still on roll)."""
    _check_dice(d1, d2)
    return frozenset(_walk(position, d1, d2)[0])


def partial_results(position: Position, d1: int, d2: int) -> frozenset[Position]:
    """Positions part-way through some legal play: a prefix that may still be completed legally."""
    _check_dice(d1, d2)
    return frozenset(_walk(position, d1, d2)[1])


# --- the match ---------------------------------------------------------------------------------------


class Phase(enum.StrEnum):
    """Where a game stands."""

    OPENING = "opening"  # waiting for the opening roll of a game
    AWAIT_ROLL = "await_roll"  # `turn` may double or roll
    MOVING = "moving"  # `turn` has rolled and is moving
    DOUBLED = "doubled"  # `turn` offered a double; the opponent takes or drops
    MATCH_OVER = "match_over"


@dataclass(frozen=True, slots=True)
class Opening:
    """Opening roll: one die each."""

    dice: tuple[int, int]  # (A's die, B's die)


@dataclass(frozen=True, slots=True)
class Roll:
    """A side rolled two dice."""

    side: int
    dice: tuple[int, int]
    source: str = ""


@dataclass(frozen=True, slots=True)
class InvalidDice:
    """The side's dice were invalid (cocked, off the board): rerolled."""

    side: int


@dataclass(frozen=True, slots=True)
class BoardSnapshot:
    """What the board shows now; A positive from A's view, like `Position`."""

    points: tuple[int, ...]
    bar: tuple[int, int]
    off: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ClockPress:
    """The side pressed its clock: its turn is complete."""

    side: int


class CubeAction(enum.StrEnum):
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"


@dataclass(frozen=True, slots=True)
class Cube:
    """A cube action by a side."""

    action: CubeAction
    side: int


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passed with no input: only the clock's flag is checked."""


Event = Opening | Roll | InvalidDice | BoardSnapshot | ClockPress | Cube | Tick


@dataclass(frozen=True, slots=True)
class Action:
    """One entry of a game's record, for exports."""

    side: int
    kind: str  # "move", "double", "take", "drop"
    dice: tuple[int, int] | None = None
    moves: tuple[tuple[int, int, bool], ...] = ()
    legal: bool = True


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game: the score before it, what was played, who won how much."""

    number: int
    score_before: tuple[int, int]
    actions: tuple[Action, ...]
    winner: int | None
    points: int
    crawford: bool = False


@dataclass(frozen=True, slots=True)
class PlayedTurn:
    """The last completed turn, kept until the opponent rolls or doubles so it can still be corrected."""

    side: int
    start: Position
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class BackgammonState:
    """A backgammon match as the rules see it."""

    length: int
    score: tuple[int, int] = (0, 0)
    phase: Phase = Phase.OPENING
    game: int = 0
    position: Position = START
    turn: int = 0
    dice: tuple[int, int] | None = None
    turn_start: Position | None = None
    cube_value: int = 1
    cube_owner: int | None = None
    crawford: bool = False
    crawford_done: bool = False
    illegal_pending: bool = False
    last_turn: PlayedTurn | None = None
    opening_tie: int | None = None
    winner: int | None = None
    clock: clk.ClockState | None = None
    actions: tuple[Action, ...] = ()
    games: tuple[GameRecord, ...] = field(default=())
    shown_dice: tuple[int, int] | None = None  # the dice a digital board last showed (device input only)

    @property
    def post_crawford(self) -> bool:
        """Not the Crawford game, and someone is one point from winning (gnubg's definition)."""
        return self.crawford_done and not self.crawford and self.length - 1 in self.score


def initial(length: int, clock: clk.TimeControl | None = None) -> BackgammonState:
    """A match to `length` points that has not started."""
    if length < 1:
        raise ValueError(f"match length must be at least 1, got {length}")
    return BackgammonState(length=length, clock=clk.start(clock) if clock else None)


def _n(side: int) -> str:
    return SIDE_NAMES[side]


def _anomaly(code: str, severity: Severity, en: str, tr: str, **data: Any) -> Anomaly:
    return Anomaly(code, severity, en, tr, data)


def apply(state: BackgammonState, event: Event, at: float) -> Outcome[BackgammonState]:
    """Fold one input into the match; never raises on a rule violation, reports it."""
    if state.phase is Phase.MATCH_OVER:
        return Outcome(state, (Fact("ignored", {"reason": "match over", "event": type(event).__name__}),))
    if state.clock is not None:
        checked = clk.check_flag(state.clock, at)
        if checked.flagged is not None:
            return _time_forfeit(replace(state, clock=checked), checked.flagged)
    facts: list[Fact] = []
    anomalies: list[Anomaly] = []
    if (
        state.phase is Phase.OPENING
        and state.opening_tie is not None
        and not isinstance(event, Opening | Tick)
    ):
        state = _played_on_tie(state, event, at, anomalies)
    handler = _HANDLERS[type(event)]
    state = handler(state, event, at, facts, anomalies)
    return Outcome(state, tuple(facts), tuple(anomalies))


def _time_forfeit(state: BackgammonState, loser: int) -> Outcome[BackgammonState]:
    winner = 1 - loser
    score = list(state.score)
    score[winner] = max(score[winner], state.length)
    flag_at = state.clock.flag_at if state.clock else None
    new = replace(state, phase=Phase.MATCH_OVER, winner=winner, score=(score[0], score[1]))
    return Outcome(
        new,
        (Fact("match", {"winner": _n(winner), "score": score, "reason": "time"}),),
        (
            _anomaly(
                "bg.time_forfeit",
                Severity.ERROR,
                f"{_n(loser)}'s time ran out; {_n(loser)} loses the match.",
                f"{_n(loser)} oyuncusunun süresi bitti; {_n(loser)} maçı kaybeder.",
                side=_n(loser),
                flag_at=flag_at,
            ),
        ),
    )


def _played_on_tie(
    state: BackgammonState, event: Event, at: float, anomalies: list[Anomaly]
) -> BackgammonState:
    """A tied opening roll was played instead of rerolled: flag it, and start the game as played."""
    die = state.opening_tie or 1
    anomalies.append(
        _anomaly(
            "bg.opening_tie",
            Severity.WARNING,
            f"Opening roll was a tie ({die}-{die}) and was played instead of rerolled.",
            f"Açılış zarı beraberdi ({die}-{die}); yeniden atılması gerekirken oynandı.",
            die=die,
        )
    )
    mover = 0
    if isinstance(event, BoardSnapshot):
        b_changed = (
            any((p < 0 or q < 0) and p != q for p, q in zip(event.points, START.points, strict=False))
            or event.bar[1] != 0
        )
        a_changed = any((p > 0 or q > 0) and p != q for p, q in zip(event.points, START.points, strict=False))
        mover = 1 if b_changed and not a_changed else 0
    elif isinstance(event, Roll | ClockPress | Cube):
        mover = 1 - event.side if isinstance(event, Roll) else event.side
    state = _start_game(state, mover, (die, die), at)
    return state


def _start_game(state: BackgammonState, mover: int, dice: tuple[int, int], at: float) -> BackgammonState:
    crawford = not state.crawford_done and state.length - 1 in state.score and state.length > 1
    start = START.with_turn(mover)
    clock = clk.start_side(state.clock, mover, at) if state.clock else None
    return replace(
        state,
        phase=Phase.MOVING,
        game=state.game + 1,
        position=start,
        turn=mover,
        dice=dice,
        turn_start=start,
        cube_value=1,
        cube_owner=None,
        crawford=crawford,
        crawford_done=state.crawford_done or crawford,
        illegal_pending=False,
        last_turn=None,
        opening_tie=None,
        clock=clock,
        actions=(),
    )


def _on_opening(state: BackgammonState, ev: Opening, at: float, facts: list[Fact], anomalies: list[Anomaly]):
    if state.phase is not Phase.OPENING:
        facts.append(Fact("ignored", {"reason": "opening roll during a game", "event": "opening"}))
        return state
    a, b = ev.dice
    if not (1 <= a <= 6 and 1 <= b <= 6):
        facts.append(Fact("dice_invalid", {"dice": [a, b]}))
        return state
    if a == b:
        facts.append(Fact("opening_tie", {"die": a}))
        return replace(state, opening_tie=a)
    mover = 0 if a > b else 1
    dice = (max(a, b), min(a, b))
    facts.append(Fact("opening", {"side": _n(mover), "dice": list(dice), "game": state.game + 1}))
    return _start_game(state, mover, dice, at)


def _stood(state: BackgammonState, anomalies: list[Anomaly], by: str) -> BackgammonState:
    """The opponent rolled or doubled: an illegal play not corrected now stands."""
    if state.illegal_pending and state.last_turn is not None:
        side = state.last_turn.side
        anomalies.append(
            _anomaly(
                "bg.illegal_move_stood",
                Severity.ERROR,
                f"{_n(side)}'s illegal move stands: {_n(1 - side)} {by} before it was corrected.",
                f"{_n(side)} oyuncusunun kural dışı hamlesi geçerli kaldı: {_n(1 - side)} düzeltilmeden önce {'zar attı' if by == 'rolled' else 'katladı'}.",
                side=_n(side),
                position_id=state.position.with_turn(side).position_id(),
            )
        )
    return replace(state, illegal_pending=False, last_turn=None)


def _on_roll(state: BackgammonState, ev: Roll, at: float, facts: list[Fact], anomalies: list[Anomaly]):
    d1, d2 = ev.dice
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        facts.append(Fact("dice_invalid", {"side": _n(ev.side), "dice": [d1, d2]}))
        return state
    if state.phase is Phase.AWAIT_ROLL and ev.side == state.turn:
        state = _stood(state, anomalies, "rolled")
        start = state.position.with_turn(ev.side)
        facts.append(Fact("roll", {"side": _n(ev.side), "dice": [d1, d2], "source": ev.source}))
        return replace(state, phase=Phase.MOVING, dice=(d1, d2), turn_start=start, position=start)
    why = {
        Phase.OPENING: "before the opening roll",
        Phase.MOVING: "while a move is in progress" if ev.side != state.turn else "twice in one turn",
        Phase.DOUBLED: "while a double is offered",
        Phase.AWAIT_ROLL: f"but it is {_n(state.turn)}'s turn",
    }[state.phase]
    why_tr = {
        Phase.OPENING: "açılış zarından önce",
        Phase.MOVING: "hamle sürerken" if ev.side != state.turn else "aynı sırada ikinci kez",
        Phase.DOUBLED: "katlama teklifi beklerken",
        Phase.AWAIT_ROLL: f"oysa sıra {_n(state.turn)} oyuncusunda",
    }[state.phase]
    anomalies.append(
        _anomaly(
            "bg.roll_out_of_turn",
            Severity.WARNING,
            f"{_n(ev.side)} rolled {d1}-{d2} {why}; the roll is invalid and must be rerolled in turn.",
            f"{_n(ev.side)} {why_tr} {d1}-{d2} attı; bu atış geçersizdir, sırası gelince yeniden atılır.",
            side=_n(ev.side),
            dice=[d1, d2],
        )
    )
    return state


def _on_invalid_dice(
    state: BackgammonState, ev: InvalidDice, at: float, facts: list[Fact], anomalies: list[Anomaly]
):
    facts.append(Fact("dice_rerolled", {"side": _n(ev.side)}))
    if state.phase is Phase.MOVING and ev.side == state.turn and state.turn_start is not None:
        if state.game and state.turn_start == START.with_turn(ev.side) and not state.actions:
            return replace(state, phase=Phase.OPENING, game=state.game - 1, dice=None, turn_start=None)
        return replace(state, phase=Phase.AWAIT_ROLL, dice=None, position=state.turn_start, turn_start=None)
    return state


def _illegal(
    side: int, start: Position, now: Position, dice: tuple[int, int], why: str, why_tr: str
) -> Anomaly:
    return _anomaly(
        "bg.illegal_move",
        Severity.ERROR,
        f"{_n(side)}'s move with {dice[0]}-{dice[1]} is not legal: {why}.",
        f"{_n(side)} oyuncusunun {dice[0]}-{dice[1]} ile yaptığı hamle kurallara aykırı: {why_tr}.",
        side=_n(side),
        dice=list(dice),
        before=start.position_id(),
        after=now.with_turn(side).position_id()
        if board_problem(now.points, now.bar, now.off) is None
        else None,
    )


def _judge(start: Position, dice: tuple[int, int], now: Position) -> tuple[str, Play | None]:
    """'legal' (with the play), 'partial', 'start' or 'illegal'."""
    if now.same_board(start):
        return "start", None
    results, partial = _walk(start, dice[0], dice[1])
    target = now.with_turn(start.turn)
    if target in results:
        return "legal", results[target]
    if target in partial:
        return "partial", None
    return "illegal", None


def _resolved(facts: list[Fact], side: int) -> None:
    facts.append(Fact("anomaly_resolved", {"code": "bg.illegal_move", "side": _n(side), "how": "corrected"}))


def _on_board(
    state: BackgammonState, ev: BoardSnapshot, at: float, facts: list[Fact], anomalies: list[Anomaly]
):
    problem = board_problem(ev.points, ev.bar, ev.off)
    if problem is not None:
        anomalies.append(
            _anomaly(
                "bg.board_inconsistent",
                Severity.ERROR,
                f"The board snapshot cannot be a position: {problem}.",
                f"Tahta görüntüsü geçerli bir pozisyon olamaz: {_problem_tr(problem)}.",
                points=list(ev.points),
                bar=list(ev.bar),
                off=list(ev.off),
            )
        )
        return state
    now = Position(tuple(ev.points), tuple(ev.bar), tuple(ev.off), state.turn)  # type: ignore[arg-type]
    if state.phase is Phase.OPENING:
        return replace(state, position=now)
    if state.phase is Phase.MOVING and state.turn_start is not None and state.dice is not None:
        side, start, dice = state.turn, state.turn_start, state.dice
    elif state.last_turn is not None:
        side, start, dice = state.last_turn.side, state.last_turn.start, state.last_turn.dice
    else:
        if not now.same_board(state.position):
            anomalies.append(
                _anomaly(
                    "bg.illegal_move",
                    Severity.ERROR,
                    "Checkers moved while no roll was in play.",
                    "Zar atılmamışken pullar oynatıldı.",
                    before=state.position.position_id(),
                )
            )
            state = replace(state, illegal_pending=True)
        return replace(state, position=now.with_turn(state.position.turn))
    if now.same_board(state.position):
        return state
    verdict, play = _judge(start, dice, now)
    now = now.with_turn(state.position.turn)
    moving = state.phase is Phase.MOVING
    if verdict == "illegal" or (not moving and play is None):
        if not state.illegal_pending:
            anomalies.append(
                _illegal(
                    side,
                    start,
                    now,
                    dice,
                    "no legal play with these dice gives this position",
                    "bu zarlarla hiçbir kurallı hamle bu pozisyonu vermez",
                )
            )
        return replace(state, position=now, illegal_pending=True)
    if state.illegal_pending:
        _resolved(facts, side)
    state = replace(state, position=now, illegal_pending=False)
    if state.phase is not Phase.MOVING and play is not None:
        # A correction after the press: the recorded move becomes the corrected one.
        actions = list(state.actions)
        for i in range(len(actions) - 1, -1, -1):
            if actions[i].kind == "move" and actions[i].side == side:
                actions[i] = replace(actions[i], moves=play.moves, legal=True)
                break
        facts.append(Fact("move_corrected", {"side": _n(side), "move": play.notation}))
        return replace(state, actions=tuple(actions))
    if verdict == "legal" and play is not None and now.off[side] == CHECKERS:
        return _commit(state, side, at, facts, anomalies)
    return state


def _problem_tr(problem: str) -> str:
    if problem.startswith("A has"):
        return "her tarafın 15 pulu olmalı (" + problem.split(";")[0] + ")"
    return {
        "a board has 24 points, 2 bars and 2 trays": "tahtada 24 hane, 2 bar ve 2 toplama alanı vardır",
        "checker counts must be integers": "pul sayıları tam sayı olmalı",
        "a bar or tray holds a negative number of checkers": "bar ya da toplama alanında eksi sayıda pul var",
    }.get(problem, problem)


def _commit(state: BackgammonState, side: int, at: float, facts: list[Fact], anomalies: list[Anomaly]):
    """The mover's turn is complete (clock press, or the last checker borne off)."""
    start, dice = state.turn_start, state.dice
    assert start is not None and dice is not None
    now = state.position
    verdict, play = _judge(start, dice, now)
    moves: tuple[tuple[int, int, bool], ...] = ()
    legal = True
    if verdict == "legal" and play is not None:
        moves = play.moves
        text = play.notation
    elif verdict == "start" and not _walk(start, dice[0], dice[1])[0]:
        text = "no play"
    else:
        legal = False
        text = "?"
        if not state.illegal_pending:
            why, why_tr = (
                ("the dice were not fully played", "zarların hepsi oynanmadı")
                if verdict in ("partial", "start")
                else ("no legal play gives this position", "hiçbir kurallı hamle bu pozisyonu vermez")
            )
            anomalies.append(_illegal(side, start, now, dice, why, why_tr))
        state = replace(state, illegal_pending=True)
    facts.append(Fact("move", {"side": _n(side), "dice": list(dice), "move": text, "legal": legal}))
    action = Action(side, "move", dice, moves, legal)
    clock = clk.press(state.clock, side, at) if state.clock else None
    state = replace(
        state,
        phase=Phase.AWAIT_ROLL,
        turn=1 - side,
        dice=None,
        turn_start=None,
        position=now.with_turn(1 - side),
        last_turn=PlayedTurn(side, start, dice),
        clock=clock,
        actions=(*state.actions, action),
    )
    if now.off[side] == CHECKERS:
        state = _end_game(
            state, side, _multiplier(now, side) * state.cube_value, _KIND[_multiplier(now, side)], at, facts
        )
    return state


_KIND = {1: "single", 2: "gammon", 3: "backgammon"}


def _multiplier(pos: Position, winner: int) -> int:
    loser = 1 - winner
    if pos.off[loser]:
        return 1
    view = pos.side_view(loser)
    # The winner's home board is the loser's points 19-24; the bar is index 24.
    if any(view[18:25]):
        return 3
    return 2


def _end_game(
    state: BackgammonState, winner: int, points: int, kind: str, at: float, facts: list[Fact]
) -> BackgammonState:
    score = list(state.score)
    before = state.score
    score[winner] += points
    facts.append(
        Fact(
            "game",
            {
                "game": state.game,
                "winner": _n(winner),
                "points": points,
                "win": kind,
                "score": {"A": score[0], "B": score[1]},
            },
        )
    )
    record = GameRecord(state.game, before, state.actions, winner, points, state.crawford)
    clock = clk.stop(state.clock, at) if state.clock else None
    new = replace(
        state,
        score=(score[0], score[1]),
        phase=Phase.OPENING,
        dice=None,
        turn_start=None,
        illegal_pending=False,
        last_turn=None,
        games=(*state.games, record),
        clock=clock,
        actions=(),
        crawford=False,
    )
    if score[winner] >= state.length:
        facts.append(Fact("match", {"winner": _n(winner), "score": {"A": score[0], "B": score[1]}}))
        return replace(new, phase=Phase.MATCH_OVER, winner=winner)
    return new


def _on_clock(state: BackgammonState, ev: ClockPress, at: float, facts: list[Fact], anomalies: list[Anomaly]):
    if state.phase is Phase.MOVING and ev.side == state.turn:
        return _commit(state, ev.side, at, facts, anomalies)
    facts.append(Fact("clock_press", {"side": _n(ev.side), "counted": False}))
    return state


def _on_cube(state: BackgammonState, ev: Cube, at: float, facts: list[Fact], anomalies: list[Anomaly]):
    side = ev.side
    if ev.action is CubeAction.DOUBLE:
        if state.phase is not Phase.AWAIT_ROLL or side != state.turn:
            anomalies.append(
                _anomaly(
                    "bg.cube_after_roll",
                    Severity.ERROR,
                    f"{_n(side)} doubled, but a double is only allowed at the start of one's own turn, before rolling.",
                    f"{_n(side)} katladı; katlama yalnızca kendi sırasının başında, zar atmadan önce yapılabilir.",
                    side=_n(side),
                )
            )
            return state
        if state.cube_owner is not None and state.cube_owner != side:
            anomalies.append(
                _anomaly(
                    "bg.cube_not_owner",
                    Severity.ERROR,
                    f"{_n(side)} doubled, but the cube belongs to {_n(state.cube_owner)}.",
                    f"{_n(side)} katladı, oysa küp {_n(state.cube_owner)} oyuncusunda.",
                    side=_n(side),
                    owner=_n(state.cube_owner),
                )
            )
        if state.crawford:
            anomalies.append(
                _anomaly(
                    "bg.crawford_double",
                    Severity.ERROR,
                    f"{_n(side)} doubled in the Crawford game, where the cube is not used.",
                    f"{_n(side)} Crawford oyununda katladı; bu oyunda küp kullanılmaz.",
                    side=_n(side),
                )
            )
        state = _stood(state, anomalies, "doubled")
        facts.append(Fact("double", {"side": _n(side), "value": state.cube_value * 2}))
        clock = clk.start_side(state.clock, 1 - side, at) if state.clock else None
        return replace(
            state, phase=Phase.DOUBLED, clock=clock, actions=(*state.actions, Action(side, "double"))
        )
    if state.phase is not Phase.DOUBLED or side == state.turn:
        facts.append(
            Fact(
                "ignored",
                {"reason": f"{ev.action.value} without a double offered to this side", "side": _n(side)},
            )
        )
        return state
    doubler = state.turn
    if ev.action is CubeAction.TAKE:
        facts.append(Fact("take", {"side": _n(side), "value": state.cube_value * 2}))
        clock = clk.start_side(state.clock, doubler, at) if state.clock else None
        return replace(
            state,
            phase=Phase.AWAIT_ROLL,
            cube_value=state.cube_value * 2,
            cube_owner=side,
            clock=clock,
            actions=(*state.actions, Action(side, "take")),
        )
    facts.append(Fact("drop", {"side": _n(side), "value": state.cube_value}))
    state = replace(state, actions=(*state.actions, Action(side, "drop")))
    return _end_game(state, doubler, state.cube_value, "drop", at, facts)


def _on_tick(state: BackgammonState, ev: Tick, at: float, facts: list[Fact], anomalies: list[Anomaly]):
    return state


_HANDLERS: dict[type, Any] = {
    Tick: _on_tick,
    Opening: _on_opening,
    Roll: _on_roll,
    InvalidDice: _on_invalid_dice,
    BoardSnapshot: _on_board,
    ClockPress: _on_clock,
    Cube: _on_cube,
}


# --- exports of the state ----------------------------------------------------------------------------


def to_xgid(state: BackgammonState) -> ids.Xgid:
    """The state's XGID content (A is XG's bottom player)."""
    pos = state.position
    return ids.Xgid(
        points=pos.points,
        bar=pos.bar,
        cube_value=state.cube_value,
        cube_owner=state.cube_owner,
        turn=state.turn,
        dice=state.dice if state.phase is Phase.MOVING and state.dice else (0, 0),
        double_offered=state.phase is Phase.DOUBLED,
        score=state.score,
        crawford=state.crawford,
        length=state.length,
    )


def gnubg_id(state: BackgammonState) -> str:
    """`posid:matchid` of the current board and match state, as GNU Backgammon shows it for the XGID."""
    return ids.xgid_to_gnubg_id(to_xgid(state))


def xgid(state: BackgammonState) -> str:
    """XGID text of the current board and match state."""
    return ids.encode_xgid(to_xgid(state))


def _action_to_dict(a: Action) -> dict[str, Any]:
    return {
        "side": _n(a.side),
        "kind": a.kind,
        "dice": None if a.dice is None else list(a.dice),
        "moves": [[f, t, h] for f, t, h in a.moves],
        "legal": a.legal,
        "text": (notation(a.moves) if a.moves else "no play" if a.legal else "?")
        if a.kind == "move"
        else a.kind,
    }


def _action_from_dict(d: dict[str, Any]) -> Action:
    dice = d.get("dice")
    return Action(
        SIDE_NAMES.index(d["side"]),
        d["kind"],
        None if dice is None else (dice[0], dice[1]),
        tuple((f, t, bool(h)) for f, t, h in d.get("moves", ())),
        d.get("legal", True),
    )


def _position_to_dict(p: Position | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"points": list(p.points), "bar": list(p.bar), "off": list(p.off), "turn": p.turn}


def _position_from_dict(d: dict[str, Any] | None) -> Position | None:
    if d is None:
        return None
    return Position(tuple(d["points"]), _pair2(d["bar"]), _pair2(d["off"]), d["turn"])


def _pair2(v: Any) -> tuple[Any, Any]:
    return (v[0], v[1])


def _clock_to_dict(c: clk.ClockState | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "control": {
            "periods": [
                {
                    "time_s": p.time_s,
                    "moves": p.moves,
                    "increment_s": p.increment_s,
                    "delay_s": p.delay_s,
                    "delay_mode": p.delay_mode.value,
                }
                for p in c.control.periods
            ],
            "increment_before_first_move": c.control.increment_before_first_move,
        },
        "remaining_s": list(c.remaining_s),
        "moves": list(c.moves),
        "period": list(c.period),
        "running": c.running,
        "since": c.since,
        "flagged": c.flagged,
        "flag_at": c.flag_at,
        # for screens: the running side's allowance per turn
        "mode": c.control.periods[0].delay_mode.value,
        "delay_s": c.control.periods[0].delay_s,
    }


def _clock_from_dict(d: dict[str, Any] | None) -> clk.ClockState | None:
    if d is None:
        return None
    control = clk.TimeControl(
        tuple(
            clk.Period(
                p["time_s"], p["moves"], p["increment_s"], p["delay_s"], clk.DelayMode(p["delay_mode"])
            )
            for p in d["control"]["periods"]
        ),
        d["control"]["increment_before_first_move"],
    )
    return clk.ClockState(
        control,
        _pair2(d["remaining_s"]),
        _pair2(d["moves"]),
        _pair2(d["period"]),
        d["running"],
        d["since"],
        d["flagged"],
        d["flag_at"],
    )


def to_dict(state: BackgammonState) -> dict[str, Any]:
    """The state as plain data, for snapshots and spectators; `from_dict` reads it back exactly."""
    pos = state.position
    last = state.last_turn
    return {
        "length": state.length,
        "score": {"A": state.score[0], "B": state.score[1]},
        "phase": state.phase.value,
        "game": state.game,
        "turn": _n(state.turn),
        "dice": list(state.dice) if state.dice else None,
        "points": list(pos.points),
        "bar": list(pos.bar),
        "off": list(pos.off),
        "cube": {
            "value": state.cube_value,
            "owner": None if state.cube_owner is None else _n(state.cube_owner),
        },
        "crawford": state.crawford,
        "post_crawford": state.post_crawford,
        "winner": None if state.winner is None else _n(state.winner),
        "gnubg_id": gnubg_id(state),
        "xgid": xgid(state),
        "illegal_pending": state.illegal_pending,
        "clock": _clock_to_dict(state.clock),
        "moves": [_action_to_dict(a) for a in state.actions],  # this game's record, for the move list
        "games": [
            {
                "number": g.number,
                "score_before": list(g.score_before),
                "actions": [_action_to_dict(a) for a in g.actions],
                "winner": None if g.winner is None else _n(g.winner),
                "points": g.points,
                "crawford": g.crawford,
            }
            for g in state.games
        ],
        # what only a resumed reducer needs
        "position_turn": pos.turn,
        "turn_start": _position_to_dict(state.turn_start),
        "last_turn": None
        if last is None
        else {"side": last.side, "start": _position_to_dict(last.start), "dice": list(last.dice)},
        "crawford_done": state.crawford_done,
        "opening_tie": state.opening_tie,
        "shown_dice": None if state.shown_dice is None else list(state.shown_dice),
    }


def from_dict(d: dict[str, Any]) -> BackgammonState:
    """The inverse of `to_dict`."""
    last = d.get("last_turn")
    owner = d["cube"]["owner"]
    winner = d.get("winner")
    shown = d.get("shown_dice")
    return BackgammonState(
        length=d["length"],
        score=(d["score"]["A"], d["score"]["B"]),
        phase=Phase(d["phase"]),
        game=d["game"],
        position=Position(tuple(d["points"]), _pair2(d["bar"]), _pair2(d["off"]), d.get("position_turn", 0)),
        turn=SIDE_NAMES.index(d["turn"]),
        dice=None if d["dice"] is None else _pair2(d["dice"]),
        turn_start=_position_from_dict(d.get("turn_start")),
        cube_value=d["cube"]["value"],
        cube_owner=None if owner is None else SIDE_NAMES.index(owner),
        crawford=d["crawford"],
        crawford_done=d.get("crawford_done", False),
        illegal_pending=d.get("illegal_pending", False),
        last_turn=None
        if last is None
        else PlayedTurn(last["side"], _position_from_dict(last["start"]), _pair2(last["dice"])),  # type: ignore[arg-type]
        opening_tie=d.get("opening_tie"),
        winner=None if winner is None else SIDE_NAMES.index(winner),
        clock=_clock_from_dict(d.get("clock")),
        actions=tuple(_action_from_dict(a) for a in d.get("moves", ())),
        games=tuple(
            GameRecord(
                g["number"],
                _pair2(g["score_before"]),
                tuple(_action_from_dict(a) for a in g["actions"]),
                None if g["winner"] is None else SIDE_NAMES.index(g["winner"]),
                g["points"],
                g["crawford"],
            )
            for g in d.get("games", ())
        ),
        shown_dice=None if shown is None else _pair2(shown),
    )


# --- digital boards: device reports to match events ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class BackgammonConfig:
    """A match's configuration from the venue: its length and an optional delay clock."""

    length: int
    clock_mode: str | None = None  # "simple" | "bronstein" | None: no clock
    reserve_s: float = 600.0
    delay_s: float = 12.0

    def control(self) -> clk.TimeControl | None:
        """The clock's time control, or None."""
        if self.clock_mode is None:
            return None
        return clk.TimeControl.delay(self.reserve_s, self.delay_s, self.clock_mode)

    def clock_text(self) -> str:
        """The clock as one short text (`simple:600:12`), or "" without a clock."""
        if self.clock_mode is None:
            return ""
        return f"{self.clock_mode}:{self.reserve_s:g}:{self.delay_s:g}"

    @classmethod
    def from_text(cls, length: int, text: str | None) -> BackgammonConfig:
        """The inverse of `clock_text`; any text that is not a clock means no clock."""
        parts = (text or "").split(":")
        if len(parts) == 3 and parts[0] in ("simple", "bronstein"):
            return cls(length, parts[0], float(parts[1]), float(parts[2]))
        return cls(length)


def initial_from_config(config: BackgammonConfig) -> BackgammonState:
    """`initial` for the hub's match model."""
    return initial(config.length, config.control())


def input_to_dict(item: Any) -> dict[str, Any]:
    """A backgammon board's report as plain data with a "type" key; `input_from_dict` reverses it."""
    from devices.observations import BackgammonBoardEvent, BackgammonBoardState

    if isinstance(item, BackgammonBoardState):
        return {
            "type": "board",
            "points": list(item.points),
            "bar": list(item.bar),
            "off": list(item.off),
            "dice": None if item.dice is None else list(item.dice),
            "dice_source": item.dice_source,
            "cube": {"value": item.cube_value, "owner": item.cube_owner},
            "turn": item.turn,
        }
    if isinstance(item, BackgammonBoardEvent):
        return {"type": item.kind, **item.data}
    raise TypeError(f"not a backgammon input: {item!r}")


def input_from_dict(data: dict[str, Any]) -> Any:
    """The inverse of `input_to_dict`; raises ValueError naming what is wrong."""
    from devices.observations import BackgammonBoardEvent, BackgammonBoardState

    kind = data.get("type")
    if kind == "board":
        dice = data.get("dice")
        cube = data.get("cube") or {}
        return BackgammonBoardState(
            tuple(data["points"]),
            _pair2(data["bar"]),
            _pair2(data["off"]),
            None if dice is None else _pair2(dice),
            data.get("dice_source"),
            cube.get("value", 1),
            cube.get("owner"),
            data.get("turn"),
        )
    if kind in ("press", "cube", "roll", "invalid_dice", "opening"):
        return BackgammonBoardEvent(kind, {k: v for k, v in data.items() if k != "type"})
    raise ValueError(f"unknown backgammon input type {kind!r}")


def events_of(state: BackgammonState, report: Any) -> list[Event]:
    """The match events a board's report stands for, given what the match knows now.

    A STATE whose dice differ from the dice the board last showed is a roll (the opening roll while the
    match waits for one: dice[0] is A's die); a STATE whose checkers differ from the position is a board
    snapshot, folded after the roll. EVENTs map one to one.
    """
    from devices.observations import BackgammonBoardEvent, BackgammonBoardState

    if isinstance(report, Tick | Opening | Roll | InvalidDice | BoardSnapshot | ClockPress | Cube):
        return [report]
    events: list[Event] = []
    if isinstance(report, BackgammonBoardState):
        dice = report.dice
        if dice is not None and dice != state.shown_dice:
            if state.phase is Phase.OPENING:
                events.append(Opening(dice))
            else:
                side = report.turn if report.turn in (0, 1) else state.turn
                events.append(Roll(side, dice, report.dice_source or ""))
        position = Position(report.points, report.bar, report.off)
        if not position.same_board(state.position):
            events.append(BoardSnapshot(report.points, report.bar, report.off))
        return events
    if isinstance(report, BackgammonBoardEvent):
        d = report.data
        if report.kind == "press":
            return [ClockPress(d["side"])]
        if report.kind == "cube":
            return [Cube(CubeAction(d["action"]), d["side"])]
        if report.kind == "roll":
            return [Roll(d["side"], _pair2(d["dice"]), d.get("source") or "")]
        if report.kind == "invalid_dice":
            return [InvalidDice(d["side"])]
        if report.kind == "opening":
            return [Opening(_pair2(d["dice"]))]
    return events


def _shown_after(state: BackgammonState, report: Any) -> tuple[int, int] | None:
    from devices.observations import BackgammonBoardEvent, BackgammonBoardState

    if isinstance(report, BackgammonBoardState):
        return report.dice
    if isinstance(report, BackgammonBoardEvent):
        if report.kind in ("roll", "opening"):
            return _pair2(report.data["dice"])
        if report.kind == "invalid_dice":
            return None
    return state.shown_dice


def apply_report(state: BackgammonState, report: Any, at: float) -> Outcome[BackgammonState]:
    """Fold a board's report (or a match event) into the match: the hub's `apply` for backgammon."""
    facts: list[Fact] = []
    anomalies: list[Anomaly] = []
    events = events_of(state, report)
    if not events and state.phase is Phase.MATCH_OVER:  # a board repeating its final display is no news
        return Outcome(replace(state, shown_dice=_shown_after(state, report)))
    for event in events or [Tick()]:
        outcome = apply(state, event, at)
        state = outcome.state
        facts.extend(outcome.facts)
        anomalies.extend(outcome.anomalies)
    state = replace(state, shown_dice=_shown_after(state, report))
    return Outcome(state, tuple(facts), tuple(anomalies))
