"""Boards of a team match decided by forfeit before play: recorded as such in the venue (no game, no table),
counted in the team match's score, refused where a game claims the same board or the entry is misspelt."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hub.matches import new_match
from hub.rules.chess.pgn_feed import round_pgn
from hub.tournament.rounds import plan_trf_round
from hub.tournament.teams import team_match_view
from hub.tournament.trf import load_trf
from hub.venue import VenueError, load_venue, parse_venue

DEMO_EVENT = Path(__file__).resolve().parents[2] / "boardcast_sim" / "games" / "demo.trf"
TABLES = "".join(f'[[tables]]\nid = "T{n}"\nsport = "chess"\n\n' for n in range(1, 9))
TEAM_MATCH = """
[[team_matches]]
id = "M1"
round = 1
teams = ["Home", "Away"]
forfeits = [
    {board = 2, players = ["Away 2", "Home 2"], result = "0-1F"},
    {board = 3, players = ["Home 3", "Away 3"], result = "0-0F"},
]

[[matches]]
id = "M1-B1"
table = "T1"
team_match = "M1"
board = 1
players = ["Home 1", "Away 1"]
"""


def test_forfeited_boards_count_in_the_team_score_without_a_game(tmp_path: Path) -> None:
    venue = parse_venue(TABLES + TEAM_MATCH, tmp_path / "hall.toml")
    config = venue.team_matches[0]
    assert [(f.board, f.result) for f in config.forfeits] == [(2, "0-1F"), (3, "0-0F")]
    view = team_match_view(config, [new_match(venue.matches[0])])
    assert [b["board"] for b in view["boards"]] == [1, 2, 3]
    assert [b["result"] for b in view["boards"]] == [None, "0-1", "0-0"]
    assert view["boards"][1]["match_id"] is None and view["boards"][1]["status"] == "forfeit"
    assert view["score"] == [1, 0]  # board 2: Black (the home player) won by forfeit; board 3: nobody came
    assert (view["decided"], view["complete"], view["match_points"]) == (2, False, None)


def test_a_game_on_a_forfeited_board_is_refused(tmp_path: Path) -> None:
    text = TABLES + TEAM_MATCH + '\n[[matches]]\nid = "M1-B2"\ntable = "T2"\nteam_match = "M1"\nboard = 2\n'
    with pytest.raises(VenueError) as caught:
        parse_venue(text, tmp_path / "hall.toml")
    assert caught.value.field == "matches[2].board" and "defined twice" in str(caught.value)


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ('{board = 2, players = ["A", "B"], reslt = "1-0F"}', "unknown key reslt; did you mean result?"),
        ('{board = 9, players = ["A", "B"], result = "1-0F"}', "board must be 1-8"),
        ('{board = 2, players = ["A", "B"], result = "1-0"}', "result must be one of 1-0F, 0-1F, 0-0F"),
        ('{board = 2, players = ["A"], result = "1-0F"}', "players must be two names"),
    ],
)
def test_a_wrong_forfeit_entry_names_its_team_match(tmp_path: Path, entry: str, says: str) -> None:
    text = TABLES + f'[[team_matches]]\nid = "M1"\nteams = ["Home", "Away"]\nforfeits = [{entry}]\n'
    with pytest.raises(VenueError) as caught:
        parse_venue(text, tmp_path / "hall.toml")
    assert caught.value.field == "team_matches[1].forfeits" and f"entry 1: {says}" in str(caught.value)
    assert caught.value.line is not None


def test_an_imported_round_keeps_a_forfeited_team_match_as_one(tmp_path: Path) -> None:
    """The demo league's round 2: one team did not come; its match is 8-0 by forfeit, complete and official."""
    hall = tmp_path / "hall.toml"
    hall.write_text('[venue]\nname = "Demo"\n\n' + TABLES, encoding="utf-8")
    plan = plan_trf_round(load_trf(DEMO_EVENT), 2, load_venue(hall), trf_path=DEMO_EVENT)
    hall.write_text(hall.read_text(encoding="utf-8") + plan.toml(), encoding="utf-8")
    venue = load_venue(hall)
    forfeited = next(t for t in venue.team_matches if t.forfeits)
    assert not any(m.team_match == forfeited.id for m in venue.matches)  # no game, no table
    view = team_match_view(forfeited, [])
    assert (view["score"], view["match_points"], view["complete"], view["official"]) == (
        [8, 0],
        [2, 0],
        True,
        True,
    )


def test_every_game_of_a_team_round_has_its_own_pgn_round_tag(tmp_path: Path) -> None:
    """Four team matches of two boards: their games are boards 1-8 of the round, as relays number them."""
    trf = Path(__file__).resolve().parents[1] / "fixtures" / "trf" / "fideteam_nocolor.trf"
    hall = tmp_path / "hall.toml"
    hall.write_text('[venue]\nname = "Lig"\n\n' + TABLES, encoding="utf-8")
    plan = plan_trf_round(load_trf(trf), 1, load_venue(hall), trf_path=trf)
    hall.write_text(hall.read_text(encoding="utf-8") + plan.toml(), encoding="utf-8")
    venue = load_venue(hall)
    text = round_pgn([new_match(m) for m in venue.matches], venue, 1)
    tags = re.findall(r'\[Round "([^"]+)"\]', text)
    assert tags == [f"1.{n}" for n in range(1, 9)]
    boards = re.findall(r'\[Board "([^"]+)"\]', text)
    assert boards == ["1", "2"] * 4  # each game keeps its board in its team match
