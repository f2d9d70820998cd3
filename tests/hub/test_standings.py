"""Standings and tie-breaks (`hub.tournament.standings`) against published answers.

The expected values are IA Mario Held's worked answers in *Exercises in Tie-Breaking* (FIDE C.07, 2023),
as transcribed in FIDE's TieBreakServer tests (MIT, Copyright (c) 2024 FIDE, code by Otto Milvang); the
crosstables are the public files in tests/fixtures/trf (see the README there). They follow the 2023/2024
edition of C.07's unplayed-round rules, the ruleset the product uses by default.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
import tiebreak_core as tc

from hub.tournament.live import LiveStandings
from hub.tournament.model import Colour, Entry, Outcome, Tournament
from hub.tournament.results import TeamRound, match_points, team_totals
from hub.tournament.standings import rank_teams, standings, team_match
from hub.tournament.standings_cli import add_standings_parser, run_standings
from hub.tournament.tiebreaks import DEFAULT_RULESET, Ruleset, parse_tiebreaks
from hub.tournament.trf import load_trf
from hub.venue import TournamentConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trf"
FILES = sorted(FIXTURES.glob("*.trf"))


def by_number(tournament: Tournament, names: list[str], **kwargs: object) -> dict[int, dict[str, float]]:
    rows = standings(tournament, tiebreaks=parse_tiebreaks(names), **kwargs)  # type: ignore[arg-type]
    return {s.number: s.tiebreaks for s in rows}


def ranks(tournament: Tournament, names: list[str]) -> dict[int, int]:
    return {s.number: s.rank for s in standings(tournament, tiebreaks=parse_tiebreaks(names))}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_points_agree_with_every_stated_total(path: Path) -> None:
    tournament = load_trf(path)
    for player in tournament.players.values():
        assert player.stated_points is not None
        assert player.points() == player.stated_points, player.name
    if not tournament.is_team_event:
        got = {s.number: Fraction(s.points) for s in standings(tournament)}
        assert got == {p.number: p.stated_points for p in tournament.players.values()}
        # these files' rank column repeats the starting rank (Held's crosstables are by starting rank),
        # so it states no standings to check against
        assert all(p.stated_rank == p.number for p in tournament.players.values())
        return
    got = {s.number: Fraction(s.points) for s in standings(tournament)}
    for team in tournament.teams:
        assert got[team.number] == team.stated_match_points, team.name
        assert team_totals(tournament, team) == (team.stated_match_points, team.stated_game_points)


def test_team_file_ranks_by_the_tiebreaks_it_names() -> None:
    tournament = load_trf(FIXTURES / "fideteam_nocolor.trf")
    assert tournament.header["212"].strip() == "PTS,BC,BBE"
    rows = standings(tournament, tiebreaks=parse_tiebreaks(tournament.header["212"].strip().split(",")))
    assert {s.number: s.rank for s in rows} == {t.number: t.stated_rank for t in tournament.teams}
    assert [s.number for s in rows] == [
        t.number for t in sorted(tournament.teams, key=lambda t: t.stated_rank or 0)
    ]


HELD_SWISS_5 = {
    "BH": {
        1: 12.5,
        2: 13.0,
        3: 15.5,
        4: 15.0,
        5: 8.5,
        6: 12.0,
        7: 14.5,
        8: 13.5,
        9: 9.0,
        10: 13.0,
        11: 13.5,
        12: 11.5,
        13: 14.0,
        14: 11.0,
        15: 12.0,
        16: 12.5,
    },
    "BH/C1": {
        1: 11.0,
        2: 12.0,
        3: 13.0,
        4: 11.5,
        5: 7.5,
        6: 11.0,
        7: 12.5,
        8: 12.0,
        9: 7.5,
        10: 11.5,
        11: 12.0,
        12: 9.5,
        13: 12.0,
        14: 9.0,
        15: 11.0,
        16: 11.0,
    },
    "SB": {
        1: 8.00,
        2: 9.50,
        3: 10.50,
        4: 9.75,
        5: 4.25,
        6: 6.50,
        7: 3.25,
        8: 5.25,
        9: 2.25,
        10: 1.50,
        11: 5.75,
        12: 4.00,
        13: 4.25,
        14: 4.50,
        15: 3.50,
        16: 7.25,
    },
    "SB/C1": {
        1: 7.25,
        2: 8.50,
        3: 9.25,
        4: 8.00,
        5: 3.25,
        6: 5.50,
        7: 1.25,
        8: 3.75,
        9: 2.25,
        10: 0.00,
        11: 4.25,
        12: 4.00,
        13: 4.25,
        14: 3.00,
        15: 2.50,
        16: 5.75,
    },
    "ARO": {
        1: 1820,
        2: 1880,
        3: 1940,
        4: 1888,
        5: 1690,
        6: 1813,
        7: 1760,
        8: 1730,
        9: 1975,
        10: 1880,
        11: 1863,
        12: 2050,
        13: 1930,
        14: 1800,
        15: 1860,
        16: 1820,
    },
    "TPR": {
        1: 1969,
        2: 2120,
        3: 2089,
        4: 2081,
        5: 1690,
        6: 1813,
        7: 1611,
        8: 1730,
        9: 1175,
        10: 1640,
        11: 1776,
        12: 1250,
        13: 1781,
        14: 1925,
        15: 1788,
        16: 1969,
    },
    "WIN": {
        1: 2,
        2: 3,
        3: 2,
        4: 2,
        5: 2,
        6: 3,
        7: 1,
        8: 2,
        9: 1,
        10: 1,
        11: 2,
        12: 2,
        13: 1,
        14: 2,
        15: 2,
        16: 3,
    },
    "WON": {
        1: 2,
        2: 3,
        3: 2,
        4: 2,
        5: 2,
        6: 2,
        7: 1,
        8: 2,
        9: 0,
        10: 1,
        11: 1,
        12: 0,
        13: 1,
        14: 2,
        15: 2,
        16: 3,
    },
    "BPG": {
        1: 2,
        2: 3,
        3: 2,
        4: 2,
        5: 2,
        6: 2,
        7: 3,
        8: 2,
        9: 1,
        10: 3,
        11: 2,
        12: 0,
        13: 3,
        14: 2,
        15: 3,
        16: 2,
    },
    "BWG": {
        1: 1,
        2: 1,
        3: 1,
        4: 1,
        5: 0,
        6: 1,
        7: 0,
        8: 0,
        9: 0,
        10: 1,
        11: 0,
        12: 0,
        13: 1,
        14: 1,
        15: 1,
        16: 1,
    },
    "PS": {
        1: 11.0,
        2: 13.0,
        3: 11.0,
        4: 11.5,
        5: 5.0,
        6: 6.0,
        7: 6.0,
        8: 8.5,
        9: 2.5,
        10: 4.0,
        11: 5.5,
        12: 7.0,
        13: 7.0,
        14: 6.0,
        15: 7.0,
        16: 10.5,
    },
}


@pytest.mark.parametrize("name", sorted(HELD_SWISS_5))
def test_held_swiss_5(name: str) -> None:
    """Held's exercises on the 5-round Swiss with byes and forfeits (2024 edition's Article 16)."""
    got = by_number(load_trf(FIXTURES / "held_swiss_5.trf"), [name])
    assert {n: v[name] for n, v in got.items()} == HELD_SWISS_5[name]


def test_held_direct_encounter_swiss() -> None:
    """Held's exercises 23-25: PTS then DE, with games not all played among the tied."""
    got = ranks(load_trf(FIXTURES / "held_swiss_5.trf"), ["PTS", "DE"])
    assert {n: got[n] for n in (1, 3, 4, 16)} == {1: 2, 3: 2, 4: 2, 16: 2}
    assert {n: got[n] for n in (5, 8, 11)} == {5: 7, 8: 7, 11: 7}
    assert ranks(load_trf(FIXTURES / "held_swiss_9.trf"), ["PTS", "DE"]) == {
        1: 3,
        2: 5,
        3: 1,
        4: 3,
        5: 9,
        6: 2,
        7: 6,
        8: 6,
        9: 14,
        10: 9,
        11: 13,
        12: 14,
        13: 16,
        14: 9,
        15: 9,
        16: 6,
    }


def test_held_round_robin() -> None:
    """Held's round robin: SB, SB/C1, KS; DE counts the forfeit there (pairings fixed in advance)."""
    tournament = load_trf(FIXTURES / "held_round_robin.trf")
    got = by_number(tournament, ["SB", "SB/C1", "KS"])
    assert {n: v["SB"] for n, v in got.items()} == {1: 9.25, 2: 6.25, 3: 6.25, 4: 4.25, 5: 3.25, 6: 2.25}
    assert {n: v["SB/C1"] for n, v in got.items()} == {1: 9.25, 2: 4.75, 3: 4.75, 4: 4.25, 5: 3.25, 6: 1.50}
    assert {n: v["KS"] for n, v in got.items()} == {1: 2.0, 2: 0.5, 3: 0.5, 4: 1.0, 5: 0.5, 6: 0.0}
    assert ranks(tournament, ["PTS", "DE"]) == {1: 1, 2: 2, 3: 2, 4: 6, 5: 5, 6: 4}
    # as a Swiss the forfeit would not count and 4, 5, 6 could not be told apart by DE alone
    swiss = {
        s.number: s.rank for s in standings(tournament, tiebreaks=parse_tiebreaks(["DE"]), round_robin=False)
    }
    assert swiss[6] != 4


def test_the_2026_edition_differs_where_it_should() -> None:
    """The 2026 edition caps virtual opponents: David's Buchholz (a half-point bye) is no longer 15."""
    tournament = load_trf(FIXTURES / "held_swiss_5.trf")
    assert DEFAULT_RULESET is Ruleset.FIDE_2024
    newer = by_number(tournament, ["BH"], ruleset=Ruleset.FIDE_2026)
    assert newer[4]["BH"] != HELD_SWISS_5["BH"][4]


# Held's team crosstable: per round "OPPONENT colour GAMEPOINTS" or a symbol (4 boards, 7 rounds)
HELD_TEAMS = {
    1: ["8w2.5", "4b1.5", "7w3", "2b2.5", "5w1.5", "+F", "3b2.5"],
    2: ["9b3", "3w4", "5b0", "1w1.5", "13w3", "4b2.5", "10b3"],
    3: ["10w2.5", "2b0", "9w3", "6b2.5", "4w3", "5b3.5", "1w1.5"],
    4: ["11b3", "1w2.5", "13b3", "5w3.5", "3b1", "2w1.5", "9b2.5"],
    5: ["12w4", "6b3", "2w4", "4b0.5", "1b2.5", "3w0.5", "13b3.5"],
    6: ["13b2", "5w1", "8b3", "3w1.5", "11b2.5", "-F", "12w2.5"],
    7: ["14w2", "8b2", "1b1", "10w2.5", "9b2", "13w2", "ZPB"],
    8: ["1b1.5", "7w2", "6w1", "12b3.5", "10b2", "9w2", "11w3"],
    9: ["2w1", "12b4", "3b1", "14w3", "7w2", "8b2", "4w1.5"],
    10: ["3b1.5", "11w1.5", "12b2.5", "7b1.5", "8w2", "14b3", "2w1"],
    11: ["4w1", "10b2.5", "14w2", "13b1.5", "6w1.5", "12w2", "8b1"],
    12: ["5b0", "9w0", "10w1.5", "8w0.5", "PAB", "11b2", "6b1.5"],
    13: ["6w2", "14b2.5", "4w1", "11w2.5", "2b1", "7b2", "5w0.5"],
    14: ["7b2", "13w1.5", "11b2", "9b1", "HPB", "10w1", "PAB"],
}


def held_team_records() -> dict[int, tc.TeamRecord]:
    """Held's teams as our team rounds, through the adapter (a whole match forfeited cannot be written in
    a report file, whose forfeits are per board, so the test builds team rounds, not a file)."""
    half, full = Fraction(2), Fraction(4)
    records: dict[int, tc.TeamRecord] = {}
    for team, cells in HELD_TEAMS.items():
        matches = []
        for round_number, cell in enumerate(cells, start=1):
            found = re.fullmatch(r"(\d+)([wb])([\d.]+)", cell)
            if found:
                ours = Fraction(found[3])
                row = TeamRound(int(found[1]), ours, full - ours, match_points(ours, full - ours), True, True)
            elif cell in ("+F", "-F"):
                ours = full if cell == "+F" else Fraction(0)
                row = TeamRound(
                    6 if team == 1 else 1, ours, full - ours, match_points(ours, full - ours), True, False
                )
            else:  # byes: the pairing's and the half-point one score a drawn match, the zero one nothing
                ours = Fraction(0) if cell == "ZPB" else half
                row = TeamRound(
                    None, ours, Fraction(0), Fraction(0) if cell == "ZPB" else Fraction(1), True, False
                )
            matches.append(team_match(round_number, row))
        records[team] = tc.TeamRecord(team, sum(m.mp for m in matches), sum(m.gp for m in matches), matches)
    return records


def test_held_team_event() -> None:
    """Held's team exercise: MP, GP, Buchholz of match points and its cut 1 (2024 edition), MP then GP."""
    records = held_team_records()
    names = {t: f"Team {t}" for t in records}
    rows = rank_teams(records, names, 7, parse_tiebreaks(["MP", "GP", "BH", "BH/C1"]))
    got = {s.number: s for s in rows}
    assert {t: s.points for t, s in got.items()} == {
        1: 10,
        2: 10,
        3: 10,
        4: 10,
        5: 10,
        6: 7,
        7: 6,
        8: 7,
        9: 6,
        10: 5,
        11: 4,
        12: 2,
        13: 6,
        14: 4,
    }
    assert {t: s.tiebreaks["GP"] for t, s in got.items()} == {
        1: 17.5,
        2: 17.0,
        3: 16.0,
        4: 17.0,
        5: 18.0,
        6: 12.5,
        7: 11.5,
        8: 15.0,
        9: 14.5,
        10: 13.0,
        11: 11.5,
        12: 7.5,
        13: 11.5,
        14: 11.5,
    }
    assert {t: s.tiebreaks["BH"] for t, s in got.items()} == {
        1: 64,
        2: 57,
        3: 58,
        4: 56,
        5: 55,
        6: 46,
        7: 44,
        8: 41,
        9: 50,
        10: 44,
        11: 41,
        12: 41,
        13: 52,
        14: 36,
    }
    assert {t: s.tiebreaks["BH/C1"] for t, s in got.items()} == {
        1: 57,
        2: 52,
        3: 53,
        4: 52,
        5: 53,
        6: 39,
        7: 38,
        8: 39,
        9: 48,
        10: 42,
        11: 39,
        12: 39,
        13: 48,
        14: 32,
    }
    by_points = rank_teams(records, names, 7, parse_tiebreaks(["MP", "GP"]))
    assert [s.number for s in by_points] == [5, 1, 2, 4, 3, 8, 6, 9, 7, 13, 10, 11, 14, 12]
    assert {s.number: s.rank for s in by_points}[13] == {s.number: s.rank for s in by_points}[7] == 9  # level
    # the library's own team Buchholz counts the forfeited match as played: 60, not FIDE's 64
    assert tc.calculate_team_strict(records[1], records, "BH:MP", 7) == 60


def test_team_defaults_are_the_regulations() -> None:
    records = held_team_records()
    rows = rank_teams(records, {t: str(t) for t in records}, 7, parse_tiebreaks(["MP", "BH-1", "GP", "DE"]))
    assert list(rows[0].tiebreaks) == ["BH-1", "GP", "DE"]
    assert rows[0].number == 1  # 10 MP, BH-1 57: ahead of 3 and 5 (53)
    # 10 MP each: BH-1 57, 53 (GP 18), 53 (GP 16), then 2 and 4 level on 52 and 17 until 2 beat 4 in round 6
    assert [(s.number, s.rank) for s in rows[:5]] == [(1, 1), (5, 2), (3, 3), (2, 4), (4, 5)]
    assert rows[3].tiebreaks["DE"] == 2 and rows[4].tiebreaks["DE"] == 0


def _blank(tournament: Tournament, round_number: int, *numbers: int) -> Tournament:
    players = dict(tournament.players)
    for n in numbers:
        player = players[n]
        entry = player.entry(round_number)
        assert entry is not None
        rounds = list(player.rounds)
        rounds[round_number - 1] = Entry(entry.opponent, entry.colour, Outcome.NOT_PLAYED)
        players[n] = replace(player, rounds=tuple(rounds))
    return replace(tournament, players=players)


def test_live_round_counts_only_what_is_known() -> None:
    full = load_trf(FIXTURES / "held_swiss_5.trf")
    live = _blank(full, 5, 2, 3)  # Bruno-Charline (Charline White) still playing in round 5
    rows = {s.number: s for s in standings(live)}
    assert rows[2].points == 3.5 and rows[3].points == 3
    assert rows[3].rank > rows[2].rank  # Charline, on 3, is behind Bruno while their game goes on
    assert standings(live, rounds=4) == standings(full, rounds=4)
    done = live.with_result(5, 3, 2, "1-0")
    after = {s.number: s for s in standings(done)}
    assert after[3].points == 4 and after[3].rank == 1 and after[2].rank > 1
    assert standings(live, rounds=0)[0].points == 0


def test_entries_stay_what_they_were() -> None:
    tournament = load_trf(FIXTURES / "held_swiss_5.trf")
    assert tournament.players[4].entry(2) == Entry(None, Colour.NONE, Outcome.HALF_BYE)


def test_unknown_tiebreak_names_the_nearest() -> None:
    with pytest.raises(ValueError, match=r"BH-7.*did you mean BH-2\? / bilinmeyen"):
        parse_tiebreaks(["BH-7"])
    with pytest.raises(ValueError, match="twice"):
        parse_tiebreaks(["BH", "bh"])
    assert [t.name for t in parse_tiebreaks(["bh/c1", " SB "])] == ["BH/C1", "SB"]
    with pytest.raises(ValueError, match="team tie-break"):
        standings(load_trf(FIXTURES / "held_swiss_5.trf"), tiebreaks=parse_tiebreaks(["BC"]))


def _cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="boardcast")
    add_standings_parser(parser.add_subparsers(dest="command"))
    return run_standings(parser.parse_args(["standings", *argv]))


def test_cli_prints_one_json_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(str(FIXTURES / "held_swiss_5.trf"), "--tiebreaks", "BH,SB") == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 16
    assert lines[0] == {"rank": 1, "name": "Bruno", "points": 4, "tiebreaks": {"BH": 13, "SB": 9.5}}
    assert _cli(str(FIXTURES / "fideteam_nocolor.trf"), "--rounds", "3") == 0
    teams = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(teams) == 9 and list(teams[0]["tiebreaks"]) == ["BC", "BBE"]  # the file's own (212)
    assert _cli(str(FIXTURES / "fideteam_nocolor.trf"), "--rounds", "3", "--tiebreaks", "MP,BH-1") == 0
    assert list(json.loads(capsys.readouterr().out.splitlines()[0])["tiebreaks"]) == ["BH-1"]


def test_cli_without_tiebreaks_ranks_by_the_files_own(capsys: pytest.CaptureFixture[str]) -> None:
    tournament = load_trf(FIXTURES / "fideteam_nocolor.trf")
    assert _cli(str(FIXTURES / "fideteam_nocolor.trf")) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    stated = {t.name: t.stated_rank for t in tournament.teams}
    assert {row["name"]: row["rank"] for row in rows} == stated
    assert [row["name"] for row in rows] == sorted(stated, key=lambda name: stated[name] or 0)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ("202 PTS,BC,BBE", ["BC", "BBE"]),  # the older record, same format
        ("212 PTS,BC,XYZ", ["BH-1", "GP", "DE"]),  # a name not known here: the defaults
        ("212 PTS,ARO", ["BH-1", "GP", "DE"]),  # an individual tie-break in a team event: the defaults
    ],
)
def test_the_files_tiebreaks_are_used_only_when_every_name_is_known(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], record: str, expected: list[str]
) -> None:
    text = (FIXTURES / "fideteam_nocolor.trf").read_text(encoding="utf-8").replace("212 PTS,BC,BBE", record)
    path = tmp_path / "event.trf"
    path.write_text(text, encoding="utf-8")
    assert _cli(str(path)) == 0
    captured = capsys.readouterr()
    assert list(json.loads(captured.out.splitlines()[0])["tiebreaks"]) == expected
    assert ("the defaults are used" in captured.err) == (expected != ["BC", "BBE"])


@pytest.mark.parametrize("rounds", ["0", "-1", "8", "99"])
def test_cli_rounds_outside_the_files_rounds_is_refused(
    capsys: pytest.CaptureFixture[str], rounds: str
) -> None:
    assert _cli(str(FIXTURES / "fideteam_nocolor.trf"), "--rounds", rounds) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert f"--rounds {rounds}: the file has rounds 1 to 7 / " in captured.err


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.trf"
    bad.write_text("001    1 m    X                                 abcd\n")
    assert _cli(str(bad)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"boardcast standings: {bad}:1:")
    assert _cli(str(FIXTURES / "held_swiss_5.trf"), "--tiebreaks", "BHX") == 2
    assert "did you mean" in capsys.readouterr().err


def test_live_team_round_counts_a_match_once_every_board_is_in() -> None:
    full = load_trf(FIXTURES / "fideteam_nocolor.trf")
    live = _blank(full, 7, 1, 13)  # Team 1 - Team 7, board 1, still playing in the last round
    rows = {s.number: s for s in standings(live)}
    six = {s.number: s for s in standings(full, rounds=6)}
    assert rows[1].points == six[1].points and rows[7].points == six[7].points
    assert rows[1].tiebreaks["GP"] == six[1].tiebreaks["GP"] + 1  # board 2 is over: it counts
    assert rows[4].points == 11  # the other matches of round 7 count
    done = {s.number: s for s in standings(live.with_result(7, 13, 1, "0-1"))}
    assert done[1].points == 14 and done[1].rank == 1


def test_live_standings_use_the_files_tiebreaks_unless_the_venue_names_some() -> None:
    path = FIXTURES / "fideteam_nocolor.trf"
    stated = {t.name: t.stated_rank for t in load_trf(path).teams}
    view = LiveStandings(TournamentConfig(path)).view([])
    assert view["tiebreaks"] == ["BC", "BBE"]
    assert {row["name"]: row["rank"] for row in view["rows"]} == stated
    named = LiveStandings(TournamentConfig(path, tiebreaks=("MP", "BH-1", "GP"))).view([])
    assert named["tiebreaks"] == ["BH-1", "GP"]
