"""A card names its player wherever it is shown: given by a referee input, as a penalty or by the scoreboard,
the spectators' view (facts, penalties), the referee view (penalties, audit) and the audit trail carry the
player's name beside the side; what was logged keeps the side alone."""

from __future__ import annotations

from hub.matches import EventKind, MatchInfo, public_view, referee_view
from hub.referee import audit, prepare_input
from tests.test_referee_workflow import TT_R1, Folder

DOUBLES = MatchInfo(
    "TT-D1", "tabletennis", "T3", 1, ("Ayşe Yılmaz", "Elif Kaya", "Can Öz", "Deniz Ak"), 3, doubles=True
)
DISPLAY = {"report": {"type": "display", "points": [0, 0], "games": [0, 0]}}


def carded() -> Folder:
    """TT-R1 live with three cards: a referee input (side 1), a penalty (side 1), the scoreboard's (side 0)."""
    folder = Folder(TT_R1)
    folder.fold(EventKind.DEVICE_REPORT, DISPLAY, 1.0)
    event = prepare_input(folder.state, {"type": "card", "side": 1, "card": "yellow"}, 2.0)
    folder.fold(event.kind, event.body, 2.0, "Hakem Ali")
    folder.act({"action": "penalty", "side": 1, "penalty": "yellow_red", "reason": "racket thrown"}, 3.0)
    board_card = {"type": "card", "side": 0, "card": "yellow"}  # a scoreboard's card, as the log holds it
    folder.fold(EventKind.DEVICE_REPORT, {"report": board_card}, 4.0)
    return folder


def test_every_card_is_shown_with_its_players_name() -> None:
    state = carded().state
    view = public_view(state)
    cards = [f["data"] for f in view["facts"] if f["kind"] == "card"]
    assert [(c["side"], c["card"], c["name"]) for c in cards] == [
        (1, "yellow", "Elif Kaya"),
        (1, "yellow_red", "Elif Kaya"),
        (0, "yellow", "Ayşe Yılmaz"),
    ]
    penalties = [f["data"] for f in view["facts"] if f["kind"] == "penalty"]
    assert [(p["side"], p["name"]) for p in penalties] == [(1, "Elif Kaya")]
    assert [(p["side"], p["penalty"], p["name"]) for p in view["penalties"]] == [
        (1, "yellow_red", "Elif Kaya")
    ]
    ref = referee_view(state)
    assert [p["name"] for p in ref["penalties"]] == ["Elif Kaya"]
    bodies = [a["body"] for a in ref["actions"]]
    assert bodies[0]["input"] == {
        "type": "card",
        "side": 1,
        "card": "yellow",
        "player": None,
        "name": "Elif Kaya",
    }
    assert bodies[1]["name"] == "Elif Kaya" and bodies[1]["input"]["name"] == "Elif Kaya"
    trail = audit([state])
    assert [e["body"].get("name") or e["body"]["input"]["name"] for e in trail] == ["Elif Kaya", "Elif Kaya"]
    # what was logged is left as it was: the side alone
    assert "name" not in state.actions[0].body["input"] and "name" not in state.penalties[0].__slots__


def test_a_doubles_card_names_the_pair_or_the_one_player_carded() -> None:
    folder = Folder(DOUBLES)
    folder.fold(EventKind.DEVICE_REPORT, DISPLAY, 1.0)
    for request in (
        {"type": "card", "side": 1, "card": "yellow"},
        {"type": "card", "side": 0, "card": "yellow", "player": "A2"},
    ):
        event = prepare_input(folder.state, request, 2.0)
        folder.fold(event.kind, event.body, 2.0, "Hakem Ali")
    names = [f["data"]["name"] for f in public_view(folder.state)["facts"] if f["kind"] == "card"]
    assert names == ["Can Öz / Deniz Ak", "Elif Kaya"]


def test_a_forfeit_names_its_loser_in_the_audit() -> None:
    folder = Folder(TT_R1)
    folder.act({"action": "forfeit", "loser": 1, "reason": "no-show"}, 5.0)
    assert audit([folder.state])[0]["body"]["loser_name"] == "Elif Kaya"
    forfeit = next(f for f in public_view(folder.state)["facts"] if f["kind"] == "forfeit")
    assert forfeit["data"]["loser_name"] == "Elif Kaya"
