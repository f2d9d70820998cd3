"""Rounds from the pairing program into the venue file: every pairing of the public report files in FIDE's board
order, team matches with their boards (forfeited ones kept) and home teams, CSV draws, the messages in English
and Turkish, and each refusal leaving the venue file byte-identical."""

from __future__ import annotations

import argparse
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from hub.tournament.export import ExportError, ExportFormat, check_round
from hub.tournament.model import Colour, Outcome, Tournament
from hub.tournament.results import TeamRound, team_rounds, team_totals
from hub.tournament.round_cli import add_round_parser
from hub.tournament.rounds import (
    PlannedMatch,
    RoundError,
    RoundPlan,
    add_to_venue,
    plan_csv_draw,
    plan_trf_round,
)
from hub.tournament.trf import load_trf, parse_trf
from hub.venue import VenueError, load_venue, parse_venue

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trf"


def hall(chess: int = 12, tabletennis: int = 4, backgammon: int = 2, more: str = "") -> str:
    """A venue: chess tables C1…, table tennis TT1…, backgammon BG1…, then `more`."""
    out = ['[venue]\nname = "Salon"\n']
    for prefix, sport, count in (
        ("C", "chess", chess),
        ("TT", "tabletennis", tabletennis),
        ("BG", "backgammon", backgammon),
    ):
        out += [f'[[tables]]\nid = "{prefix}{i}"\nsport = "{sport}"\n' for i in range(1, count + 1)]
    return "\n".join(out) + more


@pytest.fixture
def venue_file(tmp_path: Path) -> Path:
    path = tmp_path / "hall.toml"
    path.write_text(hall(), encoding="utf-8")
    return path


def copy_trf(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copy(FIXTURES / name, tmp_path / name))


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="boardcast")
    add_round_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    return args.handler(args)


def expected_round(
    tournament: Tournament, n: int
) -> tuple[set[tuple[int, int]], set[tuple[int, int]], set[tuple[int, str]]]:
    """(games over the board or to be played, forfeits between two players, byes), straight from the entries."""
    games, forfeits, byes = set(), set(), set()
    for player in tournament.players.values():
        entry = player.entry(n)
        if entry is None:
            continue
        if entry.opponent is None:
            byes.add((player.number, entry.outcome.value))
        elif entry.colour is Colour.WHITE:
            pair = (player.number, entry.opponent)
            (forfeits if entry.outcome in (Outcome.FORFEIT_WIN, Outcome.FORFEIT_LOSS) else games).add(pair)
    return games, forfeits, byes


def pairings(plan: RoundPlan) -> set[tuple[int, int]]:
    return {dict(m.extra)["pairing"] for m in plan.matches}  # type: ignore[misc]


# -- individual events ----------------------------------------------------------------------------------------


def test_every_round_of_the_swiss_gives_the_files_pairings(tmp_path: Path, venue_file: Path) -> None:
    trf = copy_trf(tmp_path, "held_swiss_9.trf")
    tournament = load_trf(trf)
    for n in range(1, 10):
        venue = load_venue(venue_file)
        plan = plan_trf_round(tournament, n, venue, trf_path=trf)
        games, forfeits, byes = expected_round(tournament, n)
        assert pairings(plan) == games
        by_number = {p.name: p.number for p in tournament.players.values()}
        assert {(by_number[f.white], by_number[f.black]) for f in plan.forfeits} == forfeits
        assert {(b.number, b.code) for b in plan.byes} == byes
        seen = [by_number[name] for m in plan.matches for name in m.players]
        seen += [by_number[n] for f in plan.forfeits for n in (f.white, f.black)] + [
            b.number for b in plan.byes
        ]
        assert sorted(seen) == sorted(tournament.players), f"round {n}: each player once"
        # board order: the higher score before the round never rises from one board to the next
        tops = []
        for m in sorted(plan.matches, key=lambda m: int(m.id.split("-B")[1])):
            w, b = dict(m.extra)["pairing"]  # type: ignore[misc]
            tops.append(max(tournament.players[w].points(n - 1), tournament.players[b].points(n - 1)))
        assert tops == sorted(tops, reverse=True)
        assert [m.table for m in plan.matches] == [f"C{i}" for i in range(1, len(plan.matches) + 1)]
        add_to_venue(venue_file, plan)
    venue = load_venue(venue_file)
    assert venue.tournament is not None and venue.tournament.trf == trf.resolve()
    for n in range(1, 10):
        games, _, _ = expected_round(tournament, n)
        assert {m.pairing for m in venue.matches if m.round == n} == games
    first = next(m for m in venue.matches if m.id == "R1-B1")
    assert (first.players, first.pairing, first.ratings, first.table) == (
        ("Alyx", "Jessica"),
        (1, 9),
        (2150, 1790),
        "C1",
    )


def test_forfeits_and_byes_of_round_4_are_listed_not_tabled(tmp_path: Path, venue_file: Path) -> None:
    trf = copy_trf(tmp_path, "held_swiss_9.trf")
    plan = plan_trf_round(load_trf(trf), 4, load_venue(venue_file), trf_path=trf)
    assert [(f.white, f.black, f.result) for f in plan.forfeits] == [("Maria", "Jessica", "1-0F")]
    assert {(b.player, b.code, b.points) for b in plan.byes} == {
        ("Nick", "Z", Fraction(0)),
        ("Paul", "Z", Fraction(0)),
    }
    assert len(plan.matches) == 6 and len(set(plan.tables)) == 6


def test_round_robin_rounds(tmp_path: Path, venue_file: Path) -> None:
    trf = copy_trf(tmp_path, "held_round_robin.trf")
    tournament = load_trf(trf)
    for n in range(1, 6):
        plan = plan_trf_round(tournament, n, load_venue(venue_file), trf_path=trf)
        games, forfeits, byes = expected_round(tournament, n)
        assert pairings(plan) == games and not byes and not plan.byes
        assert len(plan.forfeits) == len(forfeits)
        assert len(plan.matches) + len(plan.forfeits) == 3
        add_to_venue(venue_file, plan)
        if n == 4:
            assert [(f.white, f.black, f.result) for f in plan.forfeits] == [("Franck", "Helene", "0-1F")]
    assert len(load_venue(venue_file).matches) == 14  # 15 games, one forfeit


def test_tables_from_a_range_and_a_list(tmp_path: Path, venue_file: Path) -> None:
    trf = copy_trf(tmp_path, "held_swiss_9.trf")
    tournament, venue = load_trf(trf), load_venue(venue_file)
    assert plan_trf_round(tournament, 1, venue, "C5-C12").tables == tuple(f"C{i}" for i in range(5, 13))
    assert plan_trf_round(tournament, 1, venue, "C12,C1-3,C7,C8,C9,C10").tables == (
        "C12",
        "C1",
        "C2",
        "C3",
        "C7",
        "C8",
        "C9",
        "C10",
    )


def test_time_control_is_written_on_every_game(tmp_path: Path, venue_file: Path) -> None:
    trf = copy_trf(tmp_path, "held_swiss_9.trf")
    plan = plan_trf_round(load_trf(trf), 2, load_venue(venue_file), time_control="5400+30", trf_path=trf)
    add_to_venue(venue_file, plan)
    assert {m.clock for m in load_venue(venue_file).matches} == {"5400+30"}


# -- team events ----------------------------------------------------------------------------------------------


def check_team_round(tournament: Tournament, n: int, plan: RoundPlan) -> None:
    """Every team match: two boards, board k = each team's k-th player, home = White on board 1."""
    teams = {t.name: t for t in tournament.teams}
    games, _, byes = expected_round(tournament, n)
    assert pairings(plan) == games
    assert {(b.number, b.code) for b in plan.byes} == byes
    for tm in plan.team_matches:
        home, away = teams[tm.teams[0]], teams[tm.teams[1]]
        assert tm.pairing == (home.number, away.number)
        boards = [m for m in plan.matches if dict(m.extra)["team_match"] == tm.id]
        assert [dict(m.extra)["board"] for m in boards] == [1, 2]
        for m in boards:
            k = dict(m.extra)["board"]
            w, b = dict(m.extra)["pairing"]  # type: ignore[misc]
            assert {w, b} == {home.players[k - 1], away.players[k - 1]}  # type: ignore[index]
            if k == 1:
                assert w == home.players[0], "the home team has White on board 1"
    met = {frozenset((tournament.team_of(w).number, tournament.team_of(b).number)) for w, b in games}  # type: ignore[union-attr]
    assert {frozenset(tm.pairing) for tm in plan.team_matches} == met


def test_team_swiss_gives_team_matches_with_both_boards(tmp_path: Path, venue_file: Path) -> None:
    trf = copy_trf(tmp_path, "fideteam_nocolor.trf")
    tournament = load_trf(trf)
    for n in range(1, 8):
        plan = plan_trf_round(tournament, n, load_venue(venue_file), trf_path=trf)
        check_team_round(tournament, n, plan)
        assert len(plan.team_matches) == 4 and len(plan.byes) == 2
        add_to_venue(venue_file, plan)
    venue = load_venue(venue_file)
    r2 = {t.pairing: t for t in venue.team_matches if t.round == 2}
    assert r2[(3, 1)].teams == ("Team 3", "Team 1")  # T1B1 had Black on board 1: Team 3 is at home
    game = next(m for m in venue.matches if m.team_match == r2[(3, 1)].id and m.board == 2)
    assert (game.players, game.pairing, game.round) == (("T1B2", "T3B2"), (2, 6), 2)
    assert len(venue.matches) == 7 * 8 and len(venue.team_matches) == 28
    before = venue_file.read_bytes()
    with pytest.raises(RoundError, match=r"round 7 is already in the venue \(8 games, 4 team matches\)"):
        plan_trf_round(tournament, 7, venue, trf_path=trf)
    assert venue_file.read_bytes() == before


def test_team_round_tables_go_match_by_match_board_by_board(tmp_path: Path, venue_file: Path) -> None:
    trf = copy_trf(tmp_path, "fideteam_nocolor.trf")
    plan = plan_trf_round(load_trf(trf), 1, load_venue(venue_file), "C1-C8", trf_path=trf)
    assert [(m.id, m.table) for m in plan.matches][:4] == [
        ("R1-M1-B1", "C1"),
        ("R1-M1-B2", "C2"),
        ("R1-M2-B1", "C3"),
        ("R1-M2-B2", "C4"),
    ]
    assert plan.team_matches[0].pairing == (1, 5)


def to_trf16(text: str) -> str:
    """The team file with its TRF-2025 310 records written as TRF-16 013 records (name, then starting ranks)."""
    out = []
    for line in text.splitlines():
        if line.startswith("310"):
            name = line[8:40].strip()
            players = [int(line[c : c + 4]) for c in range(73, len(line.rstrip()), 5)]
            line = "013 " + name.ljust(32) + " ".join(f"{n:>4}" for n in players)
        out.append(line)
    return "\n".join(out) + "\n"


def test_trf16_team_records_give_the_same_pairings(tmp_path: Path, venue_file: Path) -> None:
    text = (FIXTURES / "fideteam_nocolor.trf").read_text(encoding="utf-8")
    old_style = parse_trf(to_trf16(text), "team16.trf")
    assert [(t.number, t.name, t.players) for t in old_style.teams] == [
        (t.number, t.name, t.players) for t in parse_trf(text).teams
    ]
    venue = load_venue(venue_file)
    for n in range(1, 8):
        new, old = plan_trf_round(parse_trf(text), n, venue), plan_trf_round(old_style, n, venue)
        assert (old.matches, old.team_matches, old.byes) == (new.matches, new.team_matches, new.byes)
        check_team_round(old_style, n, old)


# -- CSV draws --------------------------------------------------------------------------------------------------


def test_csv_table_tennis_singles_doubles_and_backgammon(venue_file: Path) -> None:
    draw = (
        "round,table,player_a,player_b,partner_a,partner_b,length\n"
        "2,TT1,Ayşe Yılmaz,Elif Kaya,,,\n"
        '2,TT2,Can,Deniz,Ece,"Fırat ""F"" Öz",\n'
        "2,BG1,Gül,Hakan,,,7\n"
        "3,TT1,Ayşe Yılmaz,Can,,,\n"
    )
    plan = plan_csv_draw(draw, load_venue(venue_file), source="draw.csv", round_number=2)
    assert plan.rounds == (2,) and [m.id for m in plan.matches] == ["R2-TT1", "R2-TT2", "R2-BG1"]
    add_to_venue(venue_file, plan)
    matches = {m.id: m for m in load_venue(venue_file).matches}
    assert matches["R2-TT1"].players == ("Ayşe Yılmaz", "Elif Kaya") and not matches["R2-TT1"].doubles
    assert matches["R2-TT2"].doubles and matches["R2-TT2"].players == ("Can", "Ece", "Deniz", 'Fırat "F" Öz')
    assert (matches["R2-BG1"].sport, matches["R2-BG1"].length) == ("backgammon", 7)
    both = draw.replace("\n2,", "\n4,")  # rounds 3 and 4: not in the venue yet
    everything = plan_csv_draw(both, load_venue(venue_file), best_of=3)
    assert everything.rounds == (3, 4) and len(everything.matches) == 4
    assert dict(everything.matches[0].extra) == {"best_of": 3}


def test_csv_backgammon_length_from_the_option(venue_file: Path) -> None:
    venue_file.write_bytes(venue_file.read_bytes().rstrip(b"\n"))  # a file without a last newline
    before = venue_file.read_bytes()
    plan = plan_csv_draw(
        "round,table,player_a,player_b\n1,BG2,A,B\n", load_venue(venue_file), "backgammon", length=11
    )
    add_to_venue(venue_file, plan)
    assert load_venue(venue_file).matches[-1].length == 11
    assert venue_file.read_bytes().startswith(before + b"\n\n# round 1 from")


# -- refusals: nothing written --------------------------------------------------------------------------------


def refused(venue_file: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the command, expect exit 2 with one line on stderr and the venue file byte-identical."""
    before = venue_file.read_bytes()
    assert run("round", "import", *argv, "--venue", str(venue_file)) == 2
    assert venue_file.read_bytes() == before
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def test_trf_refusals_leave_the_venue_untouched(
    tmp_path: Path, venue_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trf = str(copy_trf(tmp_path, "held_swiss_9.trf"))
    assert "round 10 is not in the file" in refused(venue_file, capsys, trf, "--round", "10")
    assert "needs --round" in refused(venue_file, capsys, trf)
    assert "8 tables are needed, 3 given" in refused(
        venue_file, capsys, trf, "--round", "1", "--tables", "C1-C3"
    )
    assert "no table 'C99'" in refused(venue_file, capsys, trf, "--round", "1", "--tables", "C1-C8,C99")
    assert "is a table tennis table" in refused(
        venue_file, capsys, trf, "--round", "1", "--tables", "C1-C7,TT1,TT2"
    )
    assert "listed twice" in refused(venue_file, capsys, trf, "--round", "1", "--tables", "C1-C8,C8")
    assert "--time-control" in refused(venue_file, capsys, trf, "--round", "1", "--time-control", "fast")
    assert run("round", "import", trf, "--round", "3", "--venue", str(venue_file)) == 0
    capsys.readouterr()
    assert "round 3 is already in the venue (6 games)" in refused(venue_file, capsys, trf, "--round", "3")


def test_a_round_with_no_pairings_yet(
    tmp_path: Path, venue_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (FIXTURES / "held_swiss_5.trf").read_text(encoding="utf-8")
    trf = tmp_path / "next.trf"
    trf.write_text(text.replace("XXR 5", "XXR 6"), encoding="utf-8")
    assert "XXR 6" in trf.read_text()
    assert "round 6 has no pairings" in refused(venue_file, capsys, str(trf), "--round", "6")


def test_a_player_missing_from_the_file_is_named_with_line_and_column(
    tmp_path: Path, venue_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (FIXTURES / "held_swiss_9.trf").read_text(encoding="utf-8").splitlines()
    lines[4] = lines[4][:91] + "  99" + lines[4][95:]  # Alyx's round 1 opponent
    trf = tmp_path / "bad.trf"
    trf.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = refused(venue_file, capsys, str(trf), "--round", "1")
    assert f"{trf}:5:92: round 1: opponent 99 is not a player of the file" in err


def test_clashing_ids_and_another_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trf = copy_trf(tmp_path, "held_swiss_9.trf")
    venue_file = tmp_path / "hall.toml"
    venue_file.write_text(
        hall(more='\n[[matches]]\nid = "R2-B1"\ntable = "TT1"\nround = 1\n'), encoding="utf-8"
    )
    assert "already has 1 of the ids" in refused(venue_file, capsys, str(trf), "--round", "2")
    other = tmp_path / "other.toml"
    other.write_text(hall(more='\n[tournament]\ntrf = "another.trf"\n'), encoding="utf-8")
    assert "the venue's event is" in refused(other, capsys, str(trf), "--round", "2")


def test_csv_refusals_name_line_and_column(
    tmp_path: Path, venue_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = "round,table,player_a,player_b\n"
    cases = {
        "round,table,plyer_a,player_b\n1,TT1,A,B\n": "header: unknown column 'plyer_a' (column 3); did you mean player_a?",
        "round,table,player_a\n1,TT1,A\n": "header: the header needs player_b",
        head + "1,TT11,A,B\n": ":2: table: no table 'TT11' in the venue; did you mean TT1?",
        head + "1,C1,A,B\n": ":2: table: table C1 is a chess table",
        head + "1,TT1,A,B\n1,TT1,C,D\n": ":3: table: table TT1 is already used in round 1 on line 2",
        head + "1,TT1,A,\n": ":2: player_b: the player's name is missing",
        head + "1,TT1,A,B\n1,TT2,C,A\n": ":3: player_b: A already plays in round 1 on line 2",
        head + "1,BG1,A,B\n": ":2: length: a backgammon match needs its length",
        head + "x,TT1,A,B\n": ":2: round: must be a whole number",
        head + "1,TT1,A,B,C\n": ":2: 5 fields, the header has 4",
        "round,table,player_a,player_b,best_of\n1,TT1,A,B,4\n": ":2: best_of: must be an odd number",
        "round,table,player_a,player_b,partner_a,partner_b\n1,BG1,A,B,C,D\n": ":2: partner_a: backgammon is played one against one",
    }
    for index, (text, message) in enumerate(cases.items()):
        draw = tmp_path / f"draw{index}.csv"
        draw.write_text(text, encoding="utf-8")
        assert message in refused(venue_file, capsys, str(draw)), text
    draw = tmp_path / "r1.csv"
    draw.write_text(head + "1,TT1,A,B\n", encoding="utf-8")
    assert run("round", "import", str(draw), "--venue", str(venue_file)) == 0
    capsys.readouterr()
    draw.write_text(head + "1,TT2,C,D\n", encoding="utf-8")
    assert ":2: round: round 1 of table tennis is already in the venue (1 match)" in refused(
        venue_file, capsys, str(draw)
    )


def test_add_to_venue_refuses_a_plan_the_venue_would_not_read(venue_file: Path) -> None:
    before = venue_file.read_bytes()
    plan = RoundPlan("x.csv", (1,), (PlannedMatch("R1-X", "nowhere", 1, ("A", "B")),))
    with pytest.raises(VenueError, match="no table 'nowhere'"):
        add_to_venue(venue_file, plan)
    assert venue_file.read_bytes() == before
    assert [p.name for p in venue_file.parent.iterdir()] == ["hall.toml"], "no temporary file left behind"


def test_plan_refusals_are_round_errors(tmp_path: Path, venue_file: Path) -> None:
    with pytest.raises(RoundError, match="round 0 is not in the file"):
        plan_trf_round(load_trf(FIXTURES / "held_swiss_5.trf"), 0, load_venue(venue_file))


# -- the command ----------------------------------------------------------------------------------------------


def test_import_keeps_the_files_bytes_and_adds_the_event(
    tmp_path: Path, venue_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trf = copy_trf(tmp_path, "held_swiss_9.trf")
    before = venue_file.read_bytes()
    assert run("round", "import", str(trf), "--round", "4", "--venue", str(venue_file), "--print") == 0
    printed = capsys.readouterr().out
    assert venue_file.read_bytes() == before, "--print writes nothing"
    assert printed.startswith("# round 4 from held_swiss_9.trf") and 'trf = "held_swiss_9.trf"' in printed
    assert run("round", "import", str(trf), "--round", "4", "--venue", str(venue_file)) == 0
    out = capsys.readouterr().out
    after = venue_file.read_bytes()
    assert after.startswith(before) and after[len(before) :].decode("utf-8") == "\n" + printed
    assert "6 matches on tables C1 … C6" in out and "Maria - Jessica 1-0F" in out and "Nick (12): Z 0" in out
    parse_venue(after.decode("utf-8"), venue_file)
    assert run("round", "import", str(trf), "--round", "5", "--venue", str(venue_file)) == 0
    assert venue_file.read_text(encoding="utf-8").count("[tournament]") == 1, "the event is added once"


def test_both_players_with_white_is_refused(
    tmp_path: Path, venue_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (FIXTURES / "held_swiss_9.trf").read_text(encoding="utf-8").splitlines()
    jessica = next(i for i, line in enumerate(lines) if "Jessica" in line)
    lines[jessica] = lines[jessica][:96] + "w" + lines[jessica][97:]  # round 1: "1 b 0" -> "1 w 0"
    trf = tmp_path / "colours.trf"
    trf.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = refused(venue_file, capsys, str(trf), "--round", "1")
    assert "Alyx (1) and Jessica (9) both have White in the file (lines 5 and 13)" in err


def trf_player(number: int, name: str, rating: int, rounds: str) -> str:
    """A 001 record: starting rank (5-8), name (15-47), rating (49-52), points (81-84), rounds from column 92."""
    line = list(" " * 91)
    line[0:3] = "001"
    line[4:8] = f"{number:>4}"
    line[14 : 14 + len(name)] = name
    line[48:52] = f"{rating:>4}"
    line[80:84] = " 0.0"
    return "".join(line) + rounds


def test_boards_are_places_among_the_players_who_play_the_round(venue_file: Path) -> None:
    """Reserves: team A fields its players 1 and 3, team B its 5 and 6; board 2 is 3 against 6."""
    text = "\n".join(
        [
            "012 Reserves",
            "XXR 1",
            "013 " + "Alpha".ljust(32) + "   1    2    3",
            "013 " + "Beta".ljust(32) + "   4    5    6",
            trf_player(1, "A one", 2000, "   5 b  "),
            trf_player(2, "A two", 1900, ""),
            trf_player(3, "A three", 1800, "   6 w  "),
            trf_player(4, "B one", 2100, ""),
            trf_player(5, "B two", 2050, "   1 w  "),
            trf_player(6, "B three", 1950, "   3 b  "),
        ]
    )
    plan = plan_trf_round(parse_trf(text + "\n"), 1, load_venue(venue_file))
    assert plan.team_matches[0].teams == ("Beta", "Alpha") and plan.team_matches[0].pairing == (2, 1)
    assert [(m.players, dict(m.extra)["board"]) for m in plan.matches] == [
        (("B two", "A one"), 1),
        (("A three", "B three"), 2),
    ]


# -- board order (FIDE C.04.2), forfeited team boards, messages -----------------------------------------------


def rounds_text(*games: tuple[int, str, str]) -> str:
    """A player's rounds from column 92: (opponent, colour, result) each, 0 for no opponent."""
    return "".join(f"{o if o else '0000':>4} {c} {r}  " for o, c, r in games)


def test_board_order_is_fides_score_then_both_scores_then_the_higher_players_rank(venue_file: Path) -> None:
    """Before round 2: 2, 3, 4, 7 have 1 point. 3-4 (sum 2) comes first; 2-8 before 1-7, as the higher-ranked
    player of 1-7 is 7 (1 point), not 1."""
    players = [
        (1, "P1", [(2, "w", "0"), (7, "w", " ")]),
        (2, "P2", [(1, "b", "1"), (8, "w", " ")]),
        (3, "P3", [(5, "w", "1"), (4, "w", " ")]),
        (4, "P4", [(6, "w", "1"), (3, "b", " ")]),
        (5, "P5", [(3, "b", "0"), (6, "w", " ")]),
        (6, "P6", [(4, "b", "0"), (5, "b", " ")]),
        (7, "P7", [(8, "w", "1"), (1, "b", " ")]),
        (8, "P8", [(7, "b", "0"), (2, "b", " ")]),
    ]
    lines = ["012 Order", "XXR 2"] + [
        trf_player(n, name, 2000 - n, rounds_text(*games)) for n, name, games in players
    ]
    plan = plan_trf_round(parse_trf("\n".join(lines) + "\n"), 2, load_venue(venue_file))
    assert [(m.id, m.players) for m in plan.matches] == [
        ("R2-B1", ("P3", "P4")),
        ("R2-B2", ("P2", "P8")),
        ("R2-B3", ("P1", "P7")),
        ("R2-B4", ("P5", "P6")),
    ]


def test_team_matches_are_ordered_by_match_points_then_their_sum(venue_file: Path) -> None:
    """Teams of one: after round 1 teams 1, 2 and 4 have 2 match points; 2-4 (sum 4) before 1-3 (sum 2)."""
    players = [
        (1, [(5, "w", "1"), (3, "w", " ")]),
        (2, [(6, "w", "1"), (4, "w", " ")]),
        (3, [(4, "b", "0"), (1, "b", " ")]),
        (4, [(3, "w", "1"), (2, "b", " ")]),
        (5, [(1, "b", "0"), (6, "w", " ")]),
        (6, [(2, "b", "0"), (5, "b", " ")]),
    ]
    lines = ["012 Teams", "XXR 2"]
    lines += [trf_player(n, f"P{n}", 2000, rounds_text(*games)) for n, games in players]
    lines += ["013 " + f"Team {n}".ljust(32) + f"{n:>4}" for n in range(1, 7)]
    plan = plan_trf_round(parse_trf("\n".join(lines) + "\n"), 2, load_venue(venue_file))
    assert [(t.id, t.pairing) for t in plan.team_matches] == [
        ("R2-M1", (2, 4)),
        ("R2-M2", (1, 3)),
        ("R2-M3", (5, 6)),
    ]


def forfeited_board_1(board_2: tuple[str, str] = (" ", " ")) -> Tournament:
    """Alpha - Beta, two boards: board 1 forfeited without opponent numbers (A one 0000 - -, B one 0000 - +),
    board 2 B two (White) against A two with `board_2`'s codes (B two's, A two's)."""
    text = "\n".join(
        [
            "012 Forfeit",
            "XXR 1",
            "013 " + "Alpha".ljust(32) + "   1    2",
            "013 " + "Beta".ljust(32) + "   3    4",
            trf_player(1, "A one", 2000, rounds_text((0, "-", "-"))),
            trf_player(2, "A two", 1900, rounds_text((4, "b", board_2[1]))),
            trf_player(3, "B one", 2100, rounds_text((0, "-", "+"))),
            trf_player(4, "B two", 2050, rounds_text((2, "w", board_2[0]))),
        ]
    )
    return parse_trf(text + "\n")


def test_a_team_board_forfeited_without_an_opponent_keeps_its_board(venue_file: Path) -> None:
    """Board 1: A one did not come (0000 - -), B one wins by forfeit (0000 - +); board 2 is played."""
    plan = plan_trf_round(forfeited_board_1(), 1, load_venue(venue_file))
    (team_match,) = plan.team_matches
    assert team_match.teams == ("Alpha", "Beta"), "Alpha has Black on board 2: it is at home"
    assert [(f.board, f.white, f.black, f.result) for f in team_match.forfeits] == [
        (1, "A one", "B one", "0-1F")
    ]
    assert [(m.players, dict(m.extra)["board"]) for m in plan.matches] == [(("B two", "A two"), 2)]
    assert plan.byes == () and plan.forfeits == team_match.forfeits
    add_to_venue(venue_file, plan)
    (config,) = load_venue(venue_file).team_matches
    assert [(f.board, f.players, f.result) for f in config.forfeits] == [(1, ("A one", "B one"), "0-1F")]


def test_a_board_forfeited_without_an_opponent_counts_for_the_other_team() -> None:
    """Board 2 drawn: Alpha lost 1/2 - 1 1/2, not drew 1/2 - 1/2 (B one's forfeit win names no opponent)."""
    tournament = forfeited_board_1(("=", "="))
    alpha, beta = tournament.teams
    assert team_rounds(tournament, alpha)[0] == TeamRound(
        2, Fraction(1, 2), Fraction(3, 2), Fraction(0), True, True
    )
    assert team_totals(tournament, beta) == (Fraction(2), Fraction(3, 2))


def test_the_command_says_how_a_running_hub_takes_the_round(
    tmp_path: Path, venue_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draw = tmp_path / "draw.csv"
    draw.write_text("round,table,player_a,player_b\n1,TT1,A,B\n2,TT1,A,C\n", encoding="utf-8")
    assert run("round", "import", str(draw), "--venue", str(venue_file)) == 0
    out = capsys.readouterr().out
    assert "Restart" not in out and "within 2 seconds" in out and "POST /api/rounds" in out
    assert "Rounds 1, 2 added" in out and "1., 2. turlar" in out
    assert "2 matches on table TT1 /" in out and "…" not in out
    one = tmp_path / "one.csv"
    one.write_text("round,table,player_a,player_b\n3,BG1,A,B\n", encoding="utf-8")
    assert run("round", "import", str(one), "--venue", str(venue_file), "--length", "5") == 0
    out = capsys.readouterr().out
    assert "Round 3 added" in out and "1 match on table BG1 /" in out


def test_print_shows_byes_and_forfeits_as_comments(
    tmp_path: Path, venue_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trf = copy_trf(tmp_path, "held_swiss_9.trf")
    assert run("round", "import", str(trf), "--round", "4", "--venue", str(venue_file), "--print") == 0
    printed = capsys.readouterr().out
    comments = [line for line in printed.splitlines() if line.startswith("#")]
    assert any("Maria - Jessica 1-0F" in line for line in comments)
    assert any("Nick (12): Z 0" in line for line in comments) and any("Paul" in line for line in comments)
    last_entry = max(i for i, line in enumerate(printed.splitlines()) if line.startswith("[[matches]]"))
    assert all(not line.startswith("[") for line in printed.splitlines()[last_entry + 1 :])
    assert printed.rstrip().splitlines()[-1].startswith("#"), "after the entries"
    parse_venue(venue_file.read_text(encoding="utf-8") + "\n" + printed, venue_file)


def test_a_player_on_both_sides_and_a_file_not_in_utf8(
    tmp_path: Path, venue_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draw = tmp_path / "draw.csv"
    draw.write_text("round,table,player_a,player_b\n1,TT1,A,A\n", encoding="utf-8")
    err = refused(venue_file, capsys, str(draw))
    assert ":2: player_b: A is on both sides of the match" in err and "already plays" not in err
    draw.write_bytes("round,table,player_a,player_b\n1,TT1,Çağrı,Ayşe\n".encode("cp1254"))
    err = refused(venue_file, capsys, str(draw))
    assert (
        f"{draw}: not UTF-8 text (byte 0xC7 at line 2, column 7); save it as UTF-8 / dosya UTF-8 değil" in err
    )


def test_messages_are_english_and_turkish(venue_file: Path) -> None:
    venue = load_venue(venue_file)
    with pytest.raises(RoundError) as caught:
        plan_csv_draw("round,table,player_a,player_b\n1,TT1,A,B\n", venue, "chess")
    english, turkish = str(caught.value).split(" / ")
    assert "table tennis or backgammon" in english and "masa tenisi ya da tavla" in turkish
    with pytest.raises(RoundError) as caught:
        plan_csv_draw("round,table,player_a,player_b\n1,C1,A,B\n", venue)
    english, turkish = str(caught.value).split(" / ")
    assert "C1 is a chess table" in english and "satranç" in turkish and "chess" not in turkish
    parser = argparse.ArgumentParser(prog="boardcast")
    add_round_parser(parser.add_subparsers(dest="command"))
    actions = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    round_actions = next(
        a for a in actions.choices["round"]._actions if isinstance(a, argparse._SubParsersAction)
    )
    helps = {
        opt: a.help for a in round_actions.choices["import"]._actions for opt in a.option_strings if a.help
    }
    del helps["-h"], helps["--help"]  # argparse's own
    assert all(" / " in text for text in helps.values()), helps


def test_the_export_sport_refusal_names_the_sports_in_each_language(venue_file: Path) -> None:
    text = venue_file.read_text(encoding="utf-8") + '\n[[matches]]\nid = "R1-C1"\ntable = "C1"\nround = 1\n'
    with pytest.raises(ExportError) as caught:
        check_round(parse_venue(text, venue_file), 1, ExportFormat.CSV)
    english, turkish = str(caught.value).split(" / ")
    assert "has only chess: --format csv is for table tennis and backgammon; use trf or pgn" in english
    assert (
        "yalnızca satranç var: --format csv masa tenisi ve tavla içindir; trf ya da pgn kullanın" in turkish
    )
