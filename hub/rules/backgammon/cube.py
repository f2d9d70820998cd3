"""The doubling cube: double, take, drop."""

from __future__ import annotations

from dataclasses import replace

from hub.rules import clock as clk
from hub.rules.backgammon.model import side_name
from hub.rules.backgammon.score import end_game
from hub.rules.backgammon.state import Action, BackgammonState, Cube, CubeAction, Phase, anomaly
from hub.rules.backgammon.turns import stood
from hub.rules.base import Anomaly, Fact, Severity
from hub.rules.names import side_mark


def on_cube(
    state: BackgammonState, ev: Cube, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
    side = ev.side
    if ev.action is CubeAction.DOUBLE:
        if state.phase is not Phase.AWAIT_ROLL or side != state.turn:
            anomalies.append(
                anomaly(
                    "bg.cube_after_roll",
                    Severity.ERROR,
                    f"{side_mark(side)} doubled, but a double is only allowed at the start of one's own turn, before rolling.",
                    f"{side_mark(side)} katladı; katlama yalnızca kendi sırasının başında, zar atmadan önce yapılabilir.",
                    side=side_name(side),
                )
            )
            return state
        if state.cube_owner is not None and state.cube_owner != side:
            anomalies.append(
                anomaly(
                    "bg.cube_not_owner",
                    Severity.ERROR,
                    f"{side_mark(side)} doubled, but the cube belongs to {side_mark(state.cube_owner)}.",
                    f"{side_mark(side)} katladı, oysa küp {side_mark(state.cube_owner)} oyuncusunda.",
                    side=side_name(side),
                    owner=side_name(state.cube_owner),
                )
            )
        if state.crawford:
            anomalies.append(
                anomaly(
                    "bg.crawford_double",
                    Severity.ERROR,
                    f"{side_mark(side)} doubled in the Crawford game, where the cube is not used.",
                    f"{side_mark(side)} Crawford oyununda katladı; bu oyunda küp kullanılmaz.",
                    side=side_name(side),
                )
            )
        state = stood(state, anomalies, "doubled")
        facts.append(Fact("double", {"side": side_name(side), "value": state.cube_value * 2}))
        clock = clk.start_side(state.clock, 1 - side, at) if state.clock else None
        return replace(
            state, phase=Phase.DOUBLED, clock=clock, actions=(*state.actions, Action(side, "double"))
        )
    if state.phase is not Phase.DOUBLED or side == state.turn:
        facts.append(
            Fact(
                "ignored",
                {
                    "reason": f"{ev.action.value} without a double offered to this side",
                    "side": side_name(side),
                },
            )
        )
        return state
    doubler = state.turn
    if ev.action is CubeAction.TAKE:
        facts.append(Fact("take", {"side": side_name(side), "value": state.cube_value * 2}))
        clock = clk.start_side(state.clock, doubler, at) if state.clock else None
        return replace(
            state,
            phase=Phase.AWAIT_ROLL,
            cube_value=state.cube_value * 2,
            cube_owner=side,
            clock=clock,
            actions=(*state.actions, Action(side, "take")),
        )
    facts.append(Fact("drop", {"side": side_name(side), "value": state.cube_value}))
    state = replace(state, actions=(*state.actions, Action(side, "drop")))
    return end_game(state, doubler, state.cube_value, "drop", at, facts)
