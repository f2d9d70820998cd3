"""Winning chances of a backgammon position, from GNU Backgammon's neural net (PyPI `gnubg-nn`).

`evaluate(state, net)` answers, for a match at a position with a side about to roll, each side's chance to
win the game, to win it as a gammon or a backgammon, and to win the match: the game chances are the net's own
(0-ply, cubeless), the match chances those outcomes carried through gnubg's match equity table at the match's
score and cube. It is a pure function of the state. `evaluate_job` is the same for a worker process, which
keeps its own net (`hub.rules.backgammon.chances.service` runs it there, off the event loop and its interpreter lock).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

from hub.rules.backgammon.model import Position
from hub.rules.backgammon.state import BackgammonState, Phase


@dataclass(frozen=True, slots=True)
class Chances:
    """Each side's chances, side A first: the game, a gammon or better, a backgammon, and the match."""

    win: tuple[float, float]
    gammon: tuple[float, float]
    backgammon: tuple[float, float]
    match: tuple[float, float] | None  # None for a money game (no length)
    on_roll: int  # the side about to roll when it was evaluated

    def to_dict(self) -> dict[str, Any]:
        """As the screens read it: rounded to a tenth of a percent, side A first."""

        def pct(pair: tuple[float, float]) -> list[float]:
            return [round(100 * x, 1) for x in pair]

        return {
            "win": pct(self.win),
            "gammon": pct(self.gammon),
            "backgammon": pct(self.backgammon),
            "match": None if self.match is None else pct(self.match),
            "on_roll": "AB"[self.on_roll],
        }


class Net(Protocol):
    """What the evaluation needs of gnubg-nn: cubeless outcome probabilities and the match equity table."""

    def probabilities(self, board: Any, plies: int) -> tuple[float, float, float, float, float]: ...

    def match_equity(self, away: int, opponent_away: int) -> float: ...


class GnubgNet:
    """gnubg-nn itself; importing it loads the net's weights (about a second, once)."""

    def __init__(self) -> None:
        import gnubg_nn  # type: ignore[import-untyped]  # a C extension, installed by the README setup

        self._nn = gnubg_nn

    def probabilities(self, board: Any, plies: int) -> tuple[float, float, float, float, float]:
        """(win, win gammon, win backgammon, lose gammon, lose backgammon) for the side on roll."""
        return tuple(self._nn.probabilities([list(board[0]), list(board[1])], plies))

    def match_equity(self, away: int, opponent_away: int) -> float:
        """The match equity (-1 to 1) of a side `away` points from winning against one `opponent_away`."""
        return float(self._nn.equities.value(away, opponent_away))


_NET: Net | None = None  # a worker process's own net, loaded on its first job


Job = tuple[Position, int, tuple[int, int], int, int, bool]  # all the chances depend on (`job_of`)


def job_of(state: BackgammonState) -> Job:
    """What the chances of `state` depend on: the position and who rolls, the score, the length, the cube and
    whether this is the Crawford game; small to send to a worker (a state carries its whole history)."""
    return state.position, state.turn, state.score, state.length, state.cube_value, state.crawford


def _net() -> Net:
    """This process's net, loaded on first use."""
    global _NET
    if _NET is None:
        _NET = GnubgNet()
    return _NET


def evaluate_job(job: Job) -> Chances:
    """`evaluate` in a worker process, with that process's net."""
    position, turn, score, length, cube, crawford = job
    state = BackgammonState(
        length, score, Phase.AWAIT_ROLL, position=position, turn=turn, cube_value=cube, crawford=crawford
    )
    return evaluate(state, _net())


def warm() -> None:
    """A worker process's start (the pool's initializer): load the net before the first position comes
    (about a second), and end the process if the hub that started it dies (a hub killed outright cannot tell
    its worker to stop). A terminal's Ctrl-C reaches the whole process group: the worker leaves it to the hub,
    which stops it in turn."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _net()
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def ready() -> None:
    """Nothing: a job that makes a pool start its worker now (its initializer, `warm`, does the loading)."""


def evaluable(state: BackgammonState) -> bool:
    """A position worth a number: a side is about to roll (after a play, or before the first roll of a game
    that has begun). Not while the dice are out, a double is pending, or the match is over."""
    return state.phase is Phase.AWAIT_ROLL


def evaluate(state: BackgammonState, net: Net) -> Chances:
    """The chances of `state`, which must be `evaluable`."""
    on_roll = state.turn
    board = state.position.with_turn(on_roll).board()
    w, wg, wb, lg, lb = net.probabilities(board, 0)
    mine = (w, wg, wb)
    theirs = (1.0 - w, lg, lb)
    match = None
    if state.length:
        p = _match_chance(state, on_roll, w, wg, wb, lg, lb, net)
        match = (p, 1.0 - p) if on_roll == 0 else (1.0 - p, p)
    if on_roll == 0:
        return Chances((mine[0], theirs[0]), (mine[1], theirs[1]), (mine[2], theirs[2]), match, on_roll)
    return Chances((theirs[0], mine[0]), (theirs[1], mine[1]), (theirs[2], mine[2]), match, on_roll)


def _match_chance(
    state: BackgammonState, me: int, w: float, wg: float, wb: float, lg: float, lb: float, net: Net
) -> float:
    """The side on roll's match winning chance: each cubeless outcome (single, gammon, backgammon, won or
    lost) times the chance to win the match from the score it leaves, at the cube's value."""
    cube = state.cube_value
    need = (state.length - state.score[me], state.length - state.score[1 - me])
    outcomes = (
        (w - wg, cube),  # a single game won
        (wg - wb, 2 * cube),
        (wb, 3 * cube),
        ((1.0 - w) - lg, -cube),
        (lg - lb, -2 * cube),
        (lb, -3 * cube),
    )
    return sum(p * _after(need, points, net) for p, points in outcomes if p > 0)


def _after(need: tuple[int, int], points: int, net: Net) -> float:
    """The chance to win the match after winning (points > 0) or losing `points` from `need` (each side's
    points still to win)."""
    mine, theirs = need
    if points > 0:
        mine -= points
    else:
        theirs += points
    if mine <= 0:
        return 1.0
    if theirs <= 0:
        return 0.0
    return (1.0 + net.match_equity(mine, theirs)) / 2.0
