"""Rules as the referees know them and names instead of sides: the rule catalogue resolved per match (the
venue's time control, the venue's own wording), anomaly messages naming the players in the referee and public
views and in `boardcast check`, and the venue file's `[rules."code"]` tables checked line by line."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import chess
import pytest

from devices.observations import ChessBoardState, ChessClockState
from hub.articles import CATALOGUE, rule_for
from hub.matches import EventKind, MatchInfo, MatchState, apply_event, new_match, public_view, referee_view
from hub.referee import console_view
from hub.rules.names import named
from hub.rules.registry import SPORTS
from hub.rules.tabletennis import check as check_tt
from hub.venue import VenueError, parse_venue

TT = MatchInfo("TT-1", "tabletennis", "T1", 1, ("Ayşe Yılmaz", "Elif Kaya"), 3, first_server="A")
TT_DOUBLES = MatchInfo(
    "TT-D", "tabletennis", "T1", 1, ("Ayşe Yılmaz", "Zeynep Kaya", "Elif Kaya", "Deniz Ak"), 3, doubles=True,
    first_server="A1", first_receiver="B1",
)  # fmt: skip
BG = MatchInfo("BG-1", "backgammon", "T2", 1, ("Hakan Yıldız", "Levent Şen"), length=7)
CHESS = MatchInfo("CH-1", "chess", "C1", 1, ("Ayşe Yılmaz", "Elif Kaya"), clock="300+3", clock_white="left")


def fold(info: MatchInfo, reports: list[tuple[Any, float]]) -> MatchState:
    """The match after the device reports (as plain data, or a sport's report object), folded as the hall does."""
    state = new_match(info)
    for offset, (report, at) in enumerate(reports, start=1):
        body = report if isinstance(report, dict) else SPORTS[info.sport].input_to_dict(report)
        state = apply_event(state, EventKind.DEVICE_REPORT, {"report": body}, offset, at, None).state
    return state


def only(view: dict[str, Any], code: str) -> dict[str, Any]:
    found = [a for a in view["anomalies"] if a["code"] == code]
    assert len(found) == 1, [a["code"] for a in view["anomalies"]]
    return found[0]


def chess_without_increment() -> MatchState:
    """A 5+3 game: White (left) plays e4 and presses, and the clock adds nothing."""
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    return fold(
        CHESS,
        [
            (ChessBoardState(chess.BaseBoard().board_fen()), 1.0),
            (ChessClockState((303_000, 303_000), None), 1.5),
            (ChessClockState((303_000, 303_000), 0), 2.0),
            (ChessBoardState(after_e4.board_fen()), 5.0),
            (ChessClockState((299_000, 303_000), 0), 5.2),
            (ChessClockState((299_000, 303_000), 1), 5.5),
        ],
    )


# --- names, not sides ---------------------------------------------------------------------------------------


def test_a_backgammon_anomaly_names_the_player_in_the_referee_and_public_views() -> None:
    state = fold(
        BG, [({"type": "opening", "dice": [3, 1]}, 1.0), ({"type": "roll", "side": 1, "dice": [4, 2]}, 2.0)]
    )
    for view in (referee_view(state), public_view(state)):
        flagged = only(view, "bg.roll_out_of_turn")
        assert flagged["message_en"].startswith("Levent Şen rolled 4-2 while a move is in progress")
        assert flagged["message_tr"].startswith("Levent Şen hamle sürerken 4-2 attı")
        assert flagged["data"]["side"] == "B"  # the data keeps the side: only the words name the player
    assert state.anomalies[0].message_en.startswith("{B} rolled")  # the record keeps the mark; views name


def test_a_table_tennis_anomaly_names_the_players_and_in_doubles_the_pair() -> None:
    shown = {"type": "display", "points": [1, 0], "games": [0, 0], "server": 1}
    singles = only(referee_view(fold(TT, [(shown, 1.0)])), "tt.wrong_server")
    assert singles["message_en"] == (
        "Game 1 at 1-0: the board shows Elif Kaya serving; Ayşe Yılmaz should serve."
    )
    assert "servis Ayşe Yılmaz oyuncusunda olmalı" in singles["message_tr"]
    timeouts = [({"type": "timeout", "side": 1}, at) for at in (1.0, 2.0)]
    twice = only(referee_view(fold(TT_DOUBLES, timeouts)), "tt.second_timeout")
    assert twice["message_en"].startswith("Elif Kaya / Deniz Ak called a second time-out")


def test_a_chess_anomaly_names_the_player_on_that_clock_side_and_the_rule_states_5_plus_3() -> None:
    view = console_view(chess_without_increment(), at=0.0)
    missing = only(view, "chess.increment_missing")
    assert missing["message_en"].startswith("The left clock (Ayşe Yılmaz) got no increment of 3 s")
    assert missing["message_tr"].startswith("Sol saate (Ayşe Yılmaz) basınca 3 sn artış eklenmedi")
    rule = missing["rule"]
    assert (
        rule["document"]["tr"] == "Türkiye Kulüpler Satranç Şampiyonası Yönergesi"
        and rule["article"] == "5.1.1"
    )
    assert rule["en"].endswith("5 minutes + 3 seconds a move (Fischer).") and "90" not in rule["en"]
    assert rule["tr"] == "Oyunların temposu: 5 dakika + hamle başına 3 saniye (Fischer)."


def test_a_side_without_a_name_stays_a_side_and_only_marks_are_replaced() -> None:
    assert named("{A} doubled; {B} owns the cube", ("", "")) == "A doubled; B owns the cube"
    assert named("{white} oyuncusunun bayrağı düştü", (), lang="tr") == "Beyaz oyuncusunun bayrağı düştü"
    assert (
        named("{A} / {B2}", ("Ayşe Yılmaz", "Zeynep Kaya", "Elif Kaya"), doubles=True)
        == "Ayşe Yılmaz / Zeynep Kaya / B2"
    )
    payload = "A press names no side: {'side': 3, 'A': 1}"
    assert named(payload, ("Ayşe Yılmaz", "Elif Kaya")) == payload


def test_a_check_lines_anomaly_names_the_players_of_its_match_line() -> None:
    lines = [
        json.dumps({"match": {"best_of": 3, "first_server": "A", "players": ["Ayşe Yılmaz", "Elif Kaya"]}}),
        json.dumps({"at": 1.0, "score": [1, 0], "games": [0, 0], "server": "B"}),
    ]
    out, err = io.StringIO(), io.StringIO()
    assert check_tt.check(lines, "match.jsonl", out, err) == 0, err.getvalue()
    anomaly = next(json.loads(line) for line in out.getvalue().splitlines() if '"anomaly"' in line)
    assert anomaly["message"] == "Game 1 at 1-0: the board shows Elif Kaya serving; Ayşe Yılmaz should serve."
    assert "servis Ayşe Yılmaz oyuncusunda" in anomaly["message_tr"]


# --- the catalogue -----------------------------------------------------------------------------------------


def test_no_rule_cites_a_design_note_and_every_one_names_a_document_in_both_languages() -> None:
    for code in CATALOGUE:
        rule = rule_for(code)  # no match: a clock rule speaks of the event's own time control
        assert rule is not None
        text = json.dumps(rule.to_dict(), ensure_ascii=False)
        assert not re.search(r"seed|RULES|ARCHITECTURE|§", text) and "{" not in rule.en + rule.tr, code
        assert rule.document.en and rule.document.tr and rule.en and rule.tr, code
        assert rule.article is not None or rule.document.en == "Boardcast", code
    assert rule_for("chess.increment_wrong").en == "The games are played at the event's time control."  # type: ignore[union-attr]
    timed = replace(BG, clock="simple:600:12")
    assert rule_for("bg.time_forfeit", timed).en == (  # type: ignore[union-attr]
        "A player whose time runs out loses the match (the clock: 10 minutes with a delay of 12 seconds a move "
        "(simple delay))."
    )
    assert rule_for("bg.time_forfeit", timed).tr.startswith(
        "Süresi biten oyuncu maçı kaybeder (saat: 10 dakika"
    )  # type: ignore[union-attr]
    assert rule_for("tt.second_timeout").article == "3.4.4"  # type: ignore[union-attr]
    assert rule_for("device.some_new_code").title.en == "Device reports"  # type: ignore[union-attr]


# --- the venue's own wording -------------------------------------------------------------------------------

VENUE = """\
[venue]
name = "Satranç Salonu"

[[tables]]
id = "C1"
sport = "chess"

[[matches]]
id = "CH-1"
table = "C1"
players = ["Ayşe Yılmaz", "Elif Kaya"]
time_control = "300+3"
clock_white = "left"

[rules."chess.increment_missing"]
document = "Kulüpler Şampiyonası Yönergesi 2026"
article = "4.2"
en = "Blitz: 5 minutes + 3 seconds from move 1."
tr = "Yıldırım: 1. hamleden itibaren 5 dakika + 3 saniye."
"""


def test_a_venue_override_shows_in_the_console_view() -> None:
    venue = parse_venue(VENUE, Path("hall.toml"))
    rule = only(
        console_view(chess_without_increment(), None, venue.rules, at=0.0), "chess.increment_missing"
    )["rule"]
    assert rule["document"] == {
        "en": "Kulüpler Şampiyonası Yönergesi 2026",
        "tr": "Kulüpler Şampiyonası Yönergesi 2026",
    }
    assert rule["article"] == "4.2" and rule["en"] == "Blitz: 5 minutes + 3 seconds from move 1."
    assert rule["tr"] == "Yıldırım: 1. hamleden itibaren 5 dakika + 3 saniye."
    assert rule["title"]["en"] == "Playing procedure: the time control"  # what the venue does not give stays


@pytest.mark.parametrize(
    ("broken", "line", "field", "hint"),
    [
        (
            VENUE.replace("article =", "artcle ="),
            17,
            'rules."chess.increment_missing".artcle',
            "did you mean article?",
        ),
        (
            VENUE.replace('"chess.increment_missing"', '"chess.incremnt_missing"'),
            15,
            'rules."chess.incremnt_missing"',
            "did you mean chess.increment_missing?",
        ),
        (
            VENUE.replace('"chess.increment_missing"', "chess.increment_missing"),
            15,
            'rules."chess.increment_missing"',
            "write the code in quotes",
        ),
        (
            VENUE.replace('en = "Blitz: 5 minutes + 3 seconds from move 1."', 'en = " "'),
            18,
            'rules."chess.increment_missing".en',
            "non-empty text",
        ),
    ],
)
def test_a_misspelt_override_key_or_an_unknown_code_is_refused_with_its_line(
    broken: str, line: int, field: str, hint: str
) -> None:
    with pytest.raises(VenueError) as refused:
        parse_venue(broken, Path("hall.toml"))
    assert (refused.value.line, refused.value.field) == (line, field)
    assert hint in str(refused.value) and " / " in str(refused.value)  # English / Turkish
