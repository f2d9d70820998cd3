"""Games that end by what the players say: a resignation (a side offers to give up the game as a single game, a
gammon or a backgammon; the opponent accepts, and the game ends with the value times the cube, scored like any
other game, or rejects, and play goes on), and a game scored by hand (its winner, how and the cube, from an
umpire's scoring page where no board reports the play)."""

from __future__ import annotations

from dataclasses import replace

from devices.observations import RESIGN_VALUES
from hub.rules.backgammon.model import side_name
from hub.rules.backgammon.score import WIN_KIND, crawford_next, end_game
from hub.rules.backgammon.state import (
    Action,
    BackgammonState,
    HandGame,
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


CUBE_VALUES = (1, 2, 4, 8, 16, 32, 64)  # what a cube shows


def on_hand_game(
    state: BackgammonState, ev: HandGame, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
    """A game scored by hand: its points to the winner, and the match score, Crawford and the match's end as
    for any game; a cube the game could not have, or a game after the match was won, is flagged and not counted."""
    cube = ev.cube
    played = state
    if state.phase is Phase.OPENING:  # no board started it: the game is the next one, Crawford or not
        crawford = crawford_next(state)
        played = replace(
            state,
            game=state.game + 1,
            crawford=crawford,
            crawford_done=state.crawford_done or crawford,
            cube_value=1,
            cube_owner=None,
            actions=(),
        )
    if state.phase is Phase.MATCH_OVER:
        anomalies.append(
            anomaly(
                "bg.game_after_match",
                Severity.ERROR,
                f"A game won by {side_mark(ev.winner)} was entered after the match was over; it was not counted.",
                f"Maç bittikten sonra {side_mark(ev.winner)} oyuncusunun kazandığı bir oyun girildi; sayılmadı.",
                side=side_name(ev.winner),
            )
        )
        return state
    if played.crawford and cube != 1:
        anomalies.append(
            anomaly(
                "bg.crawford_double",
                Severity.ERROR,
                f"The Crawford game was entered with the cube at {cube}; the cube is not used in this game. "
                "It was not counted.",
                f"Crawford oyunu küp {cube} iken girildi; bu oyunda küp kullanılmaz. Sayılmadı.",
                side=side_name(ev.winner),
                cube=cube,
            )
        )
        return state
    state = replace(played, cube_value=cube, resign_offer=None)
    if cube > 1:  # what the cube reached, for the game's record (the doubles themselves were not entered)
        state = replace(state, actions=(*state.actions, Action(ev.winner, "cube", value=cube)))
    if ev.resigned:
        state = replace(state, actions=(*state.actions, Action(1 - ev.winner, "resign", value=ev.value)))
    return end_game(
        state,
        ev.winner,
        ev.value * cube,
        WIN_KIND[ev.value],
        at,
        facts,
        resigned=ev.value if ev.resigned else 0,
    )
