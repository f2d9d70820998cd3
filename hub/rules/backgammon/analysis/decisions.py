"""Each player's decisions and their errors, read from GNU Backgammon's analysis of a match, and the
performance rating (PR) they add up to.

gnubg analyses every checker play (each legal play's equity, the best first) and every cube decision (no
double, double/take and double/pass equities) at the match's score and cube, in normalised equity (EMG: the
current cube won is +1). The error of a decision is the equity given up against the best action. This module
reads those figures as gnubg's own statistics read them (`analysis.c`, `updateStatcontext`):

- a checker play is a decision when it had a choice (a forced play or a dance is not: gnubg's
  "unforced moves"); its error is the best play's equity minus the chosen play's;
- a cube decision before a roll (no double, or a double) counts when it is close: the best action is less than
  0.16 better than doubling (gnubg's `isCloseCubedecision`); a missed double's error is counted whether close
  or not, as gnubg counts it. A double, a take and a pass always count;
- a take is wrong when the position was a pass for the taker (double/take above +1), a pass when it was a take.

PR is the mean error per decision × 500 (checker and cube apart as well); an error is ≥ 0.04, a blunder
≥ 0.08 (gnubg's "bad" and "very bad" thresholds, as XG counts them); luck is the sum of gnubg's luck of each
roll for that player (normalised equity).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import partial
from typing import Any

from hub.rules.backgammon.ids import board_from_position_id

CLOSE_CUBE = 0.16  # gnubg's isCloseCubedecision: a cube decision within this of doubling counts
DROP = 1.0  # double/pass, in normalised equity: the doubler wins the cube's value
ERROR = 0.04
BLUNDER = 0.08
PR_SCALE = 500

# The BMAB's bands (a player's PR over a match, lower is better), best first.
BANDS: tuple[tuple[float, str, str], ...] = (
    (4.0, "Grand Master", "Büyük Usta"),
    (6.5, "Master", "Usta"),
    (10.0, "Advanced", "İleri"),
    (16.0, "Intermediate", "Orta"),
)
BEGINNER = ("Beginner", "Başlangıç")


class Kind(Enum):
    """What was decided."""

    CHECKER = "checker"
    CUBE = "cube"


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a player: where (game and gnubg record, both from 0), what, its error in normalised
    equity, whether it counts in the PR (`counted`), and for the report the position and the plays."""

    game: int
    record: int
    side: int
    kind: Kind
    action: str  # "move", "no double", "double", "take", "drop"
    error: float
    counted: bool
    board: str | None = None  # gnubg Position ID before the decision, from the deciding player's side
    dice: tuple[int, int] | None = None
    played: tuple[tuple[int, int], ...] = ()
    best: tuple[tuple[int, int], ...] = ()
    best_action: str = ""  # a cube decision's right action

    def to_dict(self) -> dict[str, Any]:
        """As the report and the JSON download give it."""
        return {
            "game": self.game + 1,
            "side": "AB"[self.side],
            "kind": self.kind.value,
            "action": self.action,
            "error": round(self.error, 4),
            "counted": self.counted,
            "board": self.board,
            "dice": None if self.dice is None else list(self.dice),
            "position": None if self.board is None else position_view(self.board, self.side),
            "played": play_text(self.played),
            "best": play_text(self.best),
            "best_action": self.best_action,
        }


def position_view(board_id: str, side: int) -> dict[str, list[int]]:
    """A gnubg Position ID (from the side on roll's view) as the screens draw a board: `points[0]` is point 1
    seen from A, A's checkers positive; the bar and the checkers off, A first."""
    opponent, on_roll = board_from_position_id(board_id)
    a, b = (on_roll, opponent) if side == 0 else (opponent, on_roll)
    points = [a[i] - b[23 - i] for i in range(24)]
    return {"points": points, "bar": [a[24], b[24]], "off": [15 - sum(a), 15 - sum(b)]}


def play_text(steps: Sequence[tuple[int, int]]) -> str:
    """A play in the usual notation, from the player's side: "24/18 13/11", "bar/22", "6/off"."""
    return " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}" for a, b in steps)


def band(pr: float) -> tuple[str, str]:
    """The BMAB band of a PR: (English, Turkish)."""
    for limit, english, turkish in BANDS:
        if pr <= limit:
            return english, turkish
    return BEGINNER


@dataclass(frozen=True, slots=True)
class PlayerAnalysis:
    """One player's figures over the decisions analysed so far."""

    side: int
    decisions: int
    checker_decisions: int
    cube_decisions: int
    checker_error: float
    cube_error: float
    errors: int
    blunders: int
    luck: float
    ply: int

    @property
    def pr(self) -> float:
        """Mean error per decision × 500."""
        return _rate(self.checker_error + self.cube_error, self.decisions)

    @property
    def checker_pr(self) -> float:
        """PR over checker plays alone."""
        return _rate(self.checker_error, self.checker_decisions)

    @property
    def cube_pr(self) -> float:
        """PR over cube decisions alone."""
        return _rate(self.cube_error, self.cube_decisions)

    def to_dict(self) -> dict[str, Any]:
        """As screens and the offline check give it (PR to a tenth, luck to a hundredth); no PR or band
        before a first decision (a match scored by hand has none)."""
        english, turkish = band(self.pr) if self.decisions else (None, None)

        def rate(value: float, decisions: int) -> float | None:
            return round(value, 1) if decisions else None

        return {
            "side": "AB"[self.side],
            "pr": rate(self.pr, self.decisions),
            "checker_pr": rate(self.checker_pr, self.checker_decisions),
            "cube_pr": rate(self.cube_pr, self.cube_decisions),
            "decisions": self.decisions,
            "errors": self.errors,
            "blunders": self.blunders,
            "luck": round(self.luck, 2),
            "ply": self.ply,
            "band": english,
            "band_tr": turkish,
        }


def _rate(error: float, decisions: int) -> float:
    return PR_SCALE * error / decisions if decisions else 0.0


def _side(record: Mapping[str, Any]) -> int:
    return 0 if record.get("player") == "X" else 1  # gnubg names the .mat's left column (A) X


def _steps(move: Iterable[Sequence[int]] | None) -> tuple[tuple[int, int], ...]:
    return tuple((int(a), int(b)) for a, b in move or ())


def _cube_before_roll(nd: float, dt: float) -> tuple[float, float, str]:
    """The best action's equity, doubling's equity and the right action of a cube decision, as gnubg's
    FindCubeDecision."""
    double = min(dt, DROP)
    if nd > double:
        return nd, double, "no double"
    return double, double, "double, take" if dt <= DROP else "double, pass"


Marker = tuple[int, int]  # how far a match has gone: (games finished, gnubg records of the game being played)


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """One analysed game: its decisions, and each roll's luck as (record, side, luck)."""

    index: int
    decisions: tuple[Decision, ...]
    rolls: tuple[tuple[int, int, float], ...]

    def upto(self, marker: Marker | None) -> tuple[list[Decision], list[tuple[int, int, float]]]:
        """Its decisions and rolls before `marker` (all of them for None or a later game)."""
        if marker is None or self.index < marker[0]:
            return list(self.decisions), list(self.rolls)
        if self.index > marker[0]:
            return [], []
        return [d for d in self.decisions if d.record < marker[1]], [
            r for r in self.rolls if r[0] < marker[1]
        ]


def game_analysis(index: int, records: Sequence[Mapping[str, Any]]) -> GameAnalysis:
    """One game's decisions and luck, from gnubg's analysed records of it (as the worker sends them)."""
    out: list[Decision] = []
    rolls: list[tuple[int, int, float]] = []
    doubled: float | None = None  # the last double's double/take equity: what its answer is judged by
    for number, record in enumerate(records):
        side, action = _side(record), record.get("action")
        nd, dt = record.get("nd"), record.get("dt")

        cube = partial(_cube, index, number, side, record.get("board"))
        if action == "move":
            if "luck" in record:
                rolls.append((number, side, float(record["luck"])))
            if nd is not None and dt is not None:  # a cube decision before the roll: no double
                optimal, double, right = _cube_before_roll(nd, dt)
                out.append(cube("no double", optimal - nd, optimal - double < CLOSE_CUBE, right))
            if int(record.get("choices", 0)):
                out.append(_checker(index, number, side, record))
        elif action == "double":
            doubled = None
            if nd is not None and dt is not None:
                doubled = dt
                optimal, double, right = _cube_before_roll(nd, dt)
                out.append(cube("double", optimal - double, True, right))
        elif action in ("take", "drop") and doubled is not None:
            error = max(0.0, doubled - DROP) if action == "take" else max(0.0, DROP - doubled)
            out.append(cube(action, error, True, "take" if doubled <= DROP else "drop"))
            doubled = None
    return GameAnalysis(index, tuple(out), tuple(rolls))


def _cube(
    index: int, number: int, side: int, board: str | None, what: str, error: float, counted: bool, best: str
) -> Decision:
    """A cube decision (no double, double, take or drop) and the right action."""
    return Decision(index, number, side, Kind.CUBE, what, error, counted, board, best_action=best)


def _checker(index: int, number: int, side: int, record: Mapping[str, Any]) -> Decision:
    """A checker play: a decision when it had a choice; its error against the best play."""
    chosen = record.get("chosen")
    error = 0.0 if chosen is None else float(record["best"]) - float(chosen)
    dice = record.get("dice")
    return Decision(
        index,
        number,
        side,
        Kind.CHECKER,
        "move",
        error,
        int(record["choices"]) > 1,
        record.get("board"),
        None if not dice else (int(dice[0]), int(dice[1])),
        _steps(record.get("move")),
        _steps(record.get("best_move")),
    )


def summarise(
    games: Iterable[GameAnalysis], ply: int, upto: Marker | None = None
) -> tuple[PlayerAnalysis, ...]:
    """Each player's figures (side A first) over the games' decisions and rolls before `upto` (all: None)."""
    totals = [
        [0, 0, 0.0, 0.0, 0, 0, 0.0] for _ in range(2)
    ]  # n checker, n cube, errors, errors, ≥0.04, ≥0.08, luck
    for game in games:
        decisions, rolls = game.upto(upto)
        for d in decisions:
            t = totals[d.side]
            if d.kind is Kind.CHECKER:
                t[2] += d.error
                t[0] += d.counted
            else:
                t[3] += d.error
                t[1] += d.counted
            t[4] += d.error >= ERROR
            t[5] += d.error >= BLUNDER
        for _, side, luck in rolls:
            totals[side][6] += luck
    return tuple(
        PlayerAnalysis(
            side,
            int(t[0] + t[1]),
            int(t[0]),
            int(t[1]),
            float(t[2]),
            float(t[3]),
            int(t[4]),
            int(t[5]),
            float(t[6]),
            ply,
        )
        for side, t in enumerate(totals)
    )
