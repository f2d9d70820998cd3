"""`apply`: one input folded into the match, facts and anomalies reported, nothing ever rejected."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hub.rules import clock as clk
from hub.rules.backgammon.cube import on_cube
from hub.rules.backgammon.model import START, side_name
from hub.rules.backgammon.resign import on_hand_game, on_resign, on_resign_reply
from hub.rules.backgammon.score import start_game, time_forfeit
from hub.rules.backgammon.state import (
    BackgammonState,
    BoardSnapshot,
    ClockPress,
    Cube,
    Event,
    HandGame,
    InvalidDice,
    Opening,
    Phase,
    Resign,
    ResignReply,
    Roll,
    Tick,
    anomaly,
)
from hub.rules.backgammon.turns import on_board, on_clock, on_invalid_dice, on_roll
from hub.rules.base import Anomaly, Fact, Outcome, Severity


def apply(state: BackgammonState, event: Event, at: float) -> Outcome[BackgammonState]:
    """Fold one input into the match; never raises on a rule violation, reports it."""
    if state.phase is Phase.MATCH_OVER and not isinstance(event, Resign | ResignReply | HandGame):  # flagged
        return Outcome(state, (Fact("ignored", {"reason": "match over", "event": type(event).__name__}),))
    if state.clock is not None:
        checked = clk.check_flag(state.clock, at)
        if checked.flagged is not None:
            return time_forfeit(replace(state, clock=checked), checked.flagged)
    facts: list[Fact] = []
    anomalies: list[Anomaly] = []
    if (
        state.phase is Phase.OPENING
        and state.opening_tie is not None
        and not isinstance(event, Opening | Tick | Resign | ResignReply)
    ):
        state = _played_on_tie(state, event, at, anomalies)
    handler = _HANDLERS[type(event)]
    state = handler(state, event, at, facts, anomalies)
    return Outcome(state, tuple(facts), tuple(anomalies))


def _played_on_tie(
    state: BackgammonState, event: Event, at: float, anomalies: list[Anomaly]
) -> BackgammonState:
    """A tied opening roll was played instead of rerolled: flag it, and start the game as played."""
    die = state.opening_tie or 1
    anomalies.append(
        anomaly(
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
    state = start_game(state, mover, (die, die), at)
    return state


def _on_opening(
    state: BackgammonState, ev: Opening, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
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
    facts.append(Fact("opening", {"side": side_name(mover), "dice": list(dice), "game": state.game + 1}))
    return start_game(state, mover, dice, at)


def _on_tick(
    state: BackgammonState, ev: Tick, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
    return state


_HANDLERS: dict[type, Any] = {
    Tick: _on_tick,
    Opening: _on_opening,
    Roll: on_roll,
    InvalidDice: on_invalid_dice,
    BoardSnapshot: on_board,
    ClockPress: on_clock,
    Cube: on_cube,
    Resign: on_resign,
    ResignReply: on_resign_reply,
    HandGame: on_hand_game,
}
