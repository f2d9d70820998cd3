"""Joining a match under way: a board's first position after the hub joined it is where the match stands.

The hub joins a board when it starts, after a restart and when the board's link comes back (`hub.ingest.sink`
marks that report). What the board shows then is read as a normal report when it follows from what the hub
knew (the same position, the roll the hub waited for); otherwise it is taken as it stands, its checkers,
dice, cube and side on roll, with the score the hub knows, and recorded as a `joined` fact, never as an
illegal move or a roll out of turn. Only what follows it is judged. A press or cube action that comes
before the board's first position is not judged either, and that position is still the catch-up. A turn already under way when the hub
joined (dice shown) is judged at its end only if its play is legal from the position joined at; otherwise it
is recorded as a play the hub did not see (`?`), without an anomaly.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from devices.observations import BackgammonBoardState
from hub.rules import clock as clk
from hub.rules.backgammon.boards import apply_report
from hub.rules.backgammon.model import CHECKERS, START, Position, board_problem, side_name
from hub.rules.backgammon.score import WIN_KIND, end_game, multiplier, start_game
from hub.rules.backgammon.state import BackgammonState, Phase
from hub.rules.backgammon.turns import commit
from hub.rules.base import Anomaly, Fact, Outcome


def join(state: BackgammonState, report: Any, at: float) -> Outcome[BackgammonState]:
    """Fold a board's first report after the hub joined it: read on when it follows, else caught up."""
    state = _no_flag_across_the_gap(replace(state, awaiting_board=False), at)
    if state.phase is Phase.MATCH_OVER:
        return apply_report(state, report, at)
    if not isinstance(report, BackgammonBoardState):
        # a press or a cube action before the board's position: not judged against a position the hub does
        # not know, and the board's next state is the catch-up
        outcome = apply_report(state, report, at)
        unjudged = tuple(Fact("not_judged", {"code": a.code, "reason": "joined"}) for a in outcome.anomalies)
        after = replace(outcome.state, awaiting_board=True)
        if outcome.anomalies:  # nothing it raised is held against the players
            after = replace(after, illegal_pending=False, last_turn=None)
        return Outcome(after, (*outcome.facts, *unjudged))
    outcome = apply_report(state, report, at)
    if board_problem(report.points, report.bar, report.off) is not None:  # flagged as ever
        return outcome
    if not outcome.anomalies and _follows(state, outcome.state, report):
        return Outcome(outcome.state, (*outcome.facts, _joined(outcome.state, caught_up=False)))
    facts: list[Fact] = []
    caught = catch_up(state, report, at, facts)
    return Outcome(caught, (_joined(caught, caught_up=True), *facts))


def after_join(state: BackgammonState, report: Any, at: float) -> Outcome[BackgammonState]:
    """A report during the turn the hub joined: the board showing the other side on roll with no dice ends
    that turn (its press came while the hub was away), as the press would have; then the report as ever."""
    facts: list[Fact] = []
    anomalies: list[Anomaly] = []
    if (
        state.phase is Phase.MOVING
        and isinstance(report, BackgammonBoardState)
        and report.dice is None
        and report.turn in (1 - state.turn,)
    ):
        state = commit(state, state.turn, at, facts, anomalies)
    outcome = apply_report(state, report, at)
    return Outcome(outcome.state, (*facts, *outcome.facts), (*anomalies, *outcome.anomalies))


def catch_up(
    state: BackgammonState, report: BackgammonBoardState, at: float, facts: list[Fact]
) -> BackgammonState:
    """The match as the board shows it: its checkers, dice, cube and side on roll, the score the hub knows.

    A board set up with no dice waits for the next game's opening roll; otherwise a match waiting for an
    opening roll is in its next game, and a game under way keeps its number. A board with a side's 15
    checkers borne off shows a game won: it is scored (its facts in `facts`) and the match waits for the next."""
    turn = report.turn if report.turn in (0, 1) else state.turn
    if report.dice is None and Position.from_lists(report.points, report.bar, report.off, 0).same_board(
        START
    ):
        return replace(
            state,
            phase=Phase.OPENING,
            position=START,
            dice=None,
            turn_start=None,
            cube_value=1,
            cube_owner=None,
            illegal_pending=False,
            last_turn=None,
            opening_tie=None,
            resign_offer=None,
            shown_dice=None,
            joined_turn=False,
        )
    if state.phase is Phase.OPENING:
        state = start_game(state, turn, (1, 1), at)  # the game's number, Crawford and clock, as a game starts
    dice = report.dice if report.dice is not None and all(1 <= d <= 6 for d in report.dice) else None
    position = Position.from_lists(report.points, report.bar, report.off, turn)
    value = report.cube_value if isinstance(report.cube_value, int) and report.cube_value >= 1 else 1
    owner = report.cube_owner if report.cube_owner in (0, 1) else None
    clock = state.clock
    if clock is not None and clock.running != turn:
        clock = clk.start_side(clock, turn, at)  # the clock follows the side the board has on roll
    if CHECKERS in position.off:
        winner = position.off.index(CHECKERS)
        won = multiplier(position, winner)
        shown = replace(state, position=position, cube_value=value, clock=clock, shown_dice=report.dice)
        return end_game(shown, winner, won * value, WIN_KIND[won], at, facts)
    return replace(
        state,
        phase=Phase.MOVING if dice is not None else Phase.AWAIT_ROLL,
        turn=turn,
        position=position,
        dice=dice,
        turn_start=position if dice is not None else None,
        cube_value=value,
        cube_owner=None if value == 1 else owner,
        illegal_pending=False,
        last_turn=None,
        opening_tie=None,
        resign_offer=None,
        clock=clock,
        shown_dice=report.dice,
        joined_turn=dice is not None,
    )


def _follows(before: BackgammonState, after: BackgammonState, report: BackgammonBoardState) -> bool:
    """The report read as any other (`after`) agrees with what the board shows: between games, the board
    still shows what the hub had, is set up again or shows a finished game; in a game, the dice shown are
    the dice in play (none while no roll is) and the side on roll is the board's."""
    if after.phase is Phase.OPENING:
        shown = Position.from_lists(report.points, report.bar, report.off, before.position.turn)
        return (
            shown.same_board(before.position)
            or shown.same_board(START)
            or CHECKERS in shown.off  # the last game's final board, before the next is set up
        )
    shown_dice = None if report.dice is None else sorted(report.dice)
    in_play = None if after.phase is not Phase.MOVING or after.dice is None else sorted(after.dice)
    return shown_dice == in_play and report.turn in (None, after.turn)


def _no_flag_across_the_gap(state: BackgammonState, at: float) -> BackgammonState:
    """A clock the hub ran on its own while away from the board does not fall: the hub did not see it."""
    clock = state.clock
    if clock is None or clock.running is None or clk.check_flag(clock, at).flagged is None:
        return state
    return replace(state, clock=replace(clock, since=at))


def _joined(state: BackgammonState, *, caught_up: bool) -> Fact:
    """The `joined` fact: where the match stood when the hub joined the board, in words too."""
    a, b = state.score
    side = side_name(state.turn)
    if state.phase is Phase.OPENING:
        en, tr = "before the opening roll", "açılış zarı öncesi"
    elif state.dice is not None:
        en, tr = (
            f"{side} to play {state.dice[0]}-{state.dice[1]}",
            f"{side} {state.dice[0]}-{state.dice[1]} oynuyor",
        )
    else:
        en, tr = f"{side} on roll", f"sıra {side} oyuncusunda"
    return Fact(
        "joined",
        {
            "message_en": f"Joined at game {max(state.game, 1)}, {a}–{b}, {en}.",
            "message_tr": f"{max(state.game, 1)}. oyun, {a}–{b}, {tr} durumunda katılındı.",
            "caught_up": caught_up,
            "game": state.game,
            "score": list(state.score),
            "turn": side_name(state.turn),
            "dice": None if state.dice is None else list(state.dice),
            "cube": state.cube_value,
            "position_id": state.position.position_id(),
        },
    )
