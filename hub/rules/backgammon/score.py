"""Score, gammons and the Crawford game: a game started, a game won, a match lost on time."""

from __future__ import annotations

from dataclasses import replace

from hub.rules import clock as clk
from hub.rules.backgammon.model import START, Position, side_name
from hub.rules.backgammon.state import BackgammonState, GameRecord, Phase, anomaly
from hub.rules.base import Fact, Outcome, Severity
from hub.rules.names import side_mark


def time_forfeit(state: BackgammonState, loser: int) -> Outcome[BackgammonState]:
    winner = 1 - loser
    score = list(state.score)
    score[winner] = max(score[winner], state.length)
    flag_at = state.clock.flag_at if state.clock else None
    new = replace(state, phase=Phase.MATCH_OVER, winner=winner, score=(score[0], score[1]))
    return Outcome(
        new,
        (Fact("match", {"winner": side_name(winner), "score": score, "reason": "time"}),),
        (
            anomaly(
                "bg.time_forfeit",
                Severity.ERROR,
                f"{side_mark(loser)}'s time ran out; {side_mark(loser)} loses the match.",
                f"{side_mark(loser)} oyuncusunun süresi bitti; {side_mark(loser)} maçı kaybeder.",
                side=side_name(loser),
                flag_at=flag_at,
            ),
        ),
    )


def crawford_next(state: BackgammonState) -> bool:
    """Whether the game about to start is the Crawford game: the first once a side is one point from the match."""
    return not state.crawford_done and state.length - 1 in state.score and state.length > 1


def start_game(state: BackgammonState, mover: int, dice: tuple[int, int], at: float) -> BackgammonState:
    crawford = crawford_next(state)
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
        resign_offer=None,
        joined_turn=False,
    )


WIN_KIND = {1: "single", 2: "gammon", 3: "backgammon"}


def multiplier(pos: Position, winner: int) -> int:
    loser = 1 - winner
    if pos.off[loser]:
        return 1
    view = pos.side_view(loser)
    # The winner's home board is the loser's points 19-24; the bar is index 24.
    if any(view[18:25]):
        return 3
    return 2


def end_game(
    state: BackgammonState,
    winner: int,
    points: int,
    kind: str,
    at: float,
    facts: list[Fact],
    resigned: int = 0,
) -> BackgammonState:
    """The game is won: `points` to `winner` (`kind`: single, gammon, backgammon or drop; `resigned`: the
    value of the resignation that ended it), the game recorded, and the match won once the length is reached."""
    score = list(state.score)
    before = state.score
    score[winner] += points
    facts.append(
        Fact(
            "game",
            {
                "game": state.game,
                "winner": side_name(winner),
                "points": points,
                "win": kind,
                "score": {"A": score[0], "B": score[1]},
                **({"resigned": True} if resigned else {}),
            },
        )
    )
    record = GameRecord(state.game, before, state.actions, winner, points, state.crawford, resigned)
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
        resign_offer=None,
    )
    if score[winner] >= state.length:
        facts.append(Fact("match", {"winner": side_name(winner), "score": {"A": score[0], "B": score[1]}}))
        return replace(new, phase=Phase.MATCH_OVER, winner=winner)
    return new
