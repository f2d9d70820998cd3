"""Resignations: a side offers to give up the game as a single game, a gammon or a backgammon; the opponent
accepts (the game ends with the value times the cube, scored like any other game) or rejects (play on)."""

from __future__ import annotations

from dataclasses import replace

from devices.observations import RESIGN_VALUES
from hub.rules.backgammon.model import side_name
from hub.rules.backgammon.score import WIN_KIND, end_game
from hub.rules.backgammon.state import (
    Action,
    BackgammonState,
    Phase,
    Resign,
    ResignAnswer,
    ResignReply,
    anomaly,
)
from hub.rules.base import Anomaly, Fact, Severity
from hub.rules.names import side_mark

IN_GAME = (Phase.AWAIT_ROLL, Phase.MOVING, Phase.DOUBLED)


def on_resign(
    state: BackgammonState, ev: Resign, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
    """A resignation offered: kept until the opponent answers; one with no game in play is flagged."""
    side = ev.side
    if ev.value not in RESIGN_VALUES:
        anomalies.append(
            anomaly(
                "bg.resign_value",
                Severity.WARNING,
                f"{side_mark(side)} resigned with the value {ev.value}; a resignation is 1 (a single game), "
                "2 (a gammon) or 3 (a backgammon). It was not counted.",
                f"{side_mark(side)} {ev.value} değeriyle pes etti; pes etme 1 (tek oyun), 2 (mars) ya da 3 "
                "(katmerli mars) olur. Sayılmadı.",
                side=side_name(side),
                value=ev.value,
            )
        )
        return state
    if state.phase not in IN_GAME:
        anomalies.append(
            anomaly(
                "bg.resign_no_game",
                Severity.WARNING,
                f"{side_mark(side)} resigned while no game was being played; it was not counted.",
                f"{side_mark(side)} oynanan bir oyun yokken pes etti; sayılmadı.",
                side=side_name(side),
                value=ev.value,
            )
        )
        return state
    points = ev.value * state.cube_value
    facts.append(
        Fact(
            "resign",
            {"side": side_name(side), "value": ev.value, "win": WIN_KIND[ev.value], "points": points},
        )
    )
    return replace(
        state,
        resign_offer=(side, ev.value),
        actions=(*state.actions, Action(side, "resign", value=ev.value)),
    )


def on_resign_reply(
    state: BackgammonState, ev: ResignReply, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
    """The opponent's answer: accepted, the game ends with the value times the cube; rejected, play on."""
    offer = state.resign_offer
    if offer is None or offer[0] == ev.side:
        verb, verb_tr = (
            ("accepted", "kabul etti") if ev.answer is ResignAnswer.ACCEPT else ("rejected", "reddetti")
        )
        anomalies.append(
            anomaly(
                "bg.resign_no_offer",
                Severity.WARNING,
                f"{side_mark(ev.side)} {verb} a resignation, but none was offered to {side_mark(ev.side)}; "
                "nothing changed.",
                f"{side_mark(ev.side)} pes etme teklifini {verb_tr}, ama {side_mark(ev.side)} oyuncusuna yapılmış "
                "bir pes etme teklifi yok; hiçbir şey değişmedi.",
                side=side_name(ev.side),
                answer=ev.answer.value,
            )
        )
        return state
    resigner, value = offer
    state = replace(state, resign_offer=None, actions=(*state.actions, Action(ev.side, ev.answer.value)))
    facts.append(Fact(ev.answer.value, {"side": side_name(ev.side), "value": value}))
    if ev.answer is ResignAnswer.REJECT:
        return state
    return end_game(state, 1 - resigner, value * state.cube_value, WIN_KIND[value], at, facts, resigned=value)
