"""The board: `Position`, the starting position, what makes a snapshot a position, and plays as text.

Sides are 0 = A and 1 = B. `Position.points[0]` is point 1 seen from A: A's checkers are positive and move
from 24 towards 1; B's are negative and move from 1 towards 24.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from hub.rules.backgammon import ids
from hub.rules.backgammon.ids import board_from_position_id
from hub.rules.names import side_mark

SIDE_NAMES = ("A", "B")
CHECKERS = 15

Move = tuple[int, int, bool]  # (from, to, hit) in the mover's own numbering: 25 = bar, 0 = off


def side_name(side: int) -> str:
    """ "A" or "B"."""
    return SIDE_NAMES[side]


def pair(v: Any) -> tuple[Any, Any]:
    """The first two items of a list read from plain data, as a pair."""
    return (v[0], v[1])


def int_pair(v: Iterable[int]) -> tuple[int, int]:
    """Two integers (a bar or a tray) as a pair."""
    a, b = v
    return (a, b)


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

    @classmethod
    def from_lists(cls, points: Iterable[int], bar: Iterable[int], off: Iterable[int], turn: int) -> Position:
        """A position from a snapshot's lists (a bar and a tray are two counts each)."""
        return cls(tuple(points), int_pair(bar), int_pair(off), turn)


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
        return f"{side_mark(0)} has {a} checkers and {side_mark(1)} has {b}; each side has 15"
    return None


@dataclass(frozen=True, slots=True)
class Play:
    """One way to reach a distinct legal result: moves as (from, to) in the mover's own numbering
    (25 = bar, 0 = off), whether each hit, and the resulting position (same side still on roll)."""

    moves: tuple[Move, ...]
    result: Position

    @property
    def notation(self) -> str:
        """GNU Backgammon style, e.g. `13/7 8/7`, `bar/22*`, `6/off(2)`."""
        return notation(self.moves)


def notation(moves: Iterable[Move]) -> str:
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


def play_steps(position: Position, steps: Iterable[Move]) -> Position:
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
