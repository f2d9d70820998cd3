"""Board prizes of a team event (`hub.tournament.prizes`): the board each player sat at, their category,
who is ranked, and the order (performance, wins, percentage, direct encounter, lower rating)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from hub.tournament.model import Colour, Entry, Outcome, Player, Team, Tournament
from hub.tournament.prizes import board_prizes, boards_sat, performance
from hub.tournament.trf import load_trf

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trf"


def test_public_team_file_open_boards() -> None:
    tournament = load_trf(FIXTURES / "fideteam_nocolor.trf")
    categories = board_prizes(tournament, min_games=6)
    assert [c.name[0] for c in categories] == ["open", "under 20", "woman", "under 16", "under 16 girl"]
    open_ = categories[0]
    assert open_.boards == (1, 2, 3, 4)
    assert all(not c.lines for c in categories[1:])  # two boards a team: everyone plays open boards
    first = open_.lines[0]
    assert (first.name, first.team, first.games, first.points, first.wins, first.percent) == (
        "T1B1",
        "Team 1",
        7,
        Fraction(7),
        7,
        100.0,
    )
    # Team 2 had the pairing-allocated bye in round 7: its players sat at no board, so six games each
    t2b1 = next(line for line in open_.lines if line.name == "T2B1")
    assert t2b1.games == 6
    assert all(line.games >= 6 for line in open_.lines)
    assert len(board_prizes(tournament, min_games=7)[0].lines) < len(open_.lines)
    ranks = [line.rank for line in open_.lines]
    assert ranks == sorted(ranks) and ranks[0] == 1


def _event(
    absent: dict[int, set[int]], results: dict[tuple[int, int], str], ratings: dict[int, int] | None = None
) -> Tournament:
    """Two teams of six (players 1-6 and 7-12, ratings 2000 down by 50); each round the players present
    meet board by board in lineup order; `results` gives White's result ("1", "=", "0") per (round, board)."""
    home, away = list(range(1, 7)), list(range(7, 13))
    entries: dict[int, list[Entry | None]] = {n: [] for n in home + away}
    rounds = 2
    for round_number in range(1, rounds + 1):
        gone = absent.get(round_number, set())
        seated_home = [n for n in home if n not in gone]
        seated_away = [n for n in away if n not in gone]
        for n in gone:
            entries[n].append(None)
        for board, (w, b) in enumerate(zip(seated_home, seated_away, strict=True), start=1):
            code = results.get((round_number, board), "=")
            white = Outcome(code)
            black = {Outcome.WIN: Outcome.LOSS, Outcome.LOSS: Outcome.WIN}.get(white, white)
            entries[w].append(Entry(b, Colour.WHITE, white))
            entries[b].append(Entry(w, Colour.BLACK, black))
    players = {
        n: Player(n, f"P{n}", (ratings or {}).get(n, 2000 - 50 * ((n - 1) % 6)), tuple(entries[n]))
        for n in home + away
    }
    teams = (Team(1, "Home", tuple(home)), Team(2, "Away", tuple(away)))
    return Tournament("t", players, teams, rounds)


def test_board_is_the_place_among_those_who_sat() -> None:
    tournament = _event({2: {1, 7}}, {})
    sat = boards_sat(tournament, tournament.teams[0], 2)
    assert sat[1] == [1] and sat[2] == [2, 1] and sat[6] == [6, 5]
    categories = {c.name[0]: c for c in board_prizes(tournament, min_games=1)}
    names = {k: {line.name for line in c.lines} for k, c in categories.items()}
    # P5 sat at 5 then 4: one game each way, the upper board's category (open); P6 at 6 then 5: under 20
    assert "P5" in names["open"] and "P6" in names["under 20"]
    assert "P12" in names["under 20"] and not names["woman"]


def test_a_forfeit_is_no_game_for_the_minimum_nor_the_performance() -> None:
    tournament = _event({}, {(1, 1): "+", (2, 1): "1"})
    # one game played and one forfeit: short of a minimum of two games, so not ranked at all
    assert "P1" not in {line.name for line in board_prizes(tournament, min_games=2)[0].lines}
    lines = board_prizes(tournament, min_games=1)[0].lines
    p1 = next(line for line in lines if line.name == "P1")
    assert (p1.games, p1.forfeits, p1.wins, p1.points, p1.percent) == (1, 1, 2, Fraction(2), 100.0)
    # the forfeit is not a game at the board: performance over the one game played (vs 2000: 2000 + 800)
    assert p1.performance == 2800
    assert p1.rank == 1
    assert p1.to_json()["games"] == 1 and p1.to_json()["forfeits"] == 1


def test_forfeits_only_give_no_line_and_no_performance() -> None:
    tournament = _event({}, {(1, 1): "+", (2, 1): "+"})
    assert "P1" not in {line.name for line in board_prizes(tournament, min_games=1)[0].lines}
    assert performance(tournament, tournament.players[1], 2) == 0


def test_one_win_is_800_over_the_opponent_as_fides_table_gives() -> None:
    """FIDE's TPR for 1/1 is the opponent's rating + 800 (table 8.1.a: p = 1.00 gives dp = 800): one win over
    a 2275 is 3075 for a player within 400 of 2275; a player rated 1800 has the 2275 counted as 2200."""
    tournament = _event({2: set(range(1, 13))}, {(1, 1): "1"}, {1: 2386, 7: 2275})
    assert performance(tournament, tournament.players[1], 1) == 3075
    players = dict(tournament.players)
    players[1] = Player(1, "P1", 1800, players[1].rounds)
    lower = Tournament("t", players, tournament.teams, 2)
    assert performance(lower, lower.players[1], 1) == 2200 + 800
    assert performance(lower, lower.players[7], 1) == (2275 - 400) - 800  # the loser: 1800 counts as 1875


def test_performance_caps_the_rating_difference_and_counts_unrated_as_1000() -> None:
    tournament = _event({}, {(1, 6): "1", (2, 6): "1"})
    weak = tournament.players[6]  # 1750, beat 1750 twice
    assert performance(tournament, weak, 2) == 1750 + 800
    players = dict(tournament.players)
    players[12] = Player(12, "P12", 0, players[12].rounds)  # unrated: counts as 1000, but at most 400 below
    unrated = Tournament("t", players, tournament.teams, 2)
    assert performance(unrated, unrated.players[6], 2) == 1350 + 800


def test_order_performance_then_wins_then_direct_encounter_then_lower_rating() -> None:
    # P2 (1950) beats and loses to P8 (1950); P3 (1900) and P4 (1850) draw twice with 1950s (P9, P10)
    tournament = _event({}, {(1, 2): "1", (2, 2): "0"}, {9: 1950, 10: 1950})
    lines = {line.name: line for line in board_prizes(tournament, min_games=2)[0].lines}
    p2, p8, p3, p4 = lines["P2"], lines["P8"], lines["P3"], lines["P4"]
    assert p2.performance == p8.performance == p3.performance == p4.performance == 1950  # 50 % against 1950s
    assert (p2.wins, p3.wins) == (1, 0)
    # P2 and P8: level on everything (one point each between them, same rating): one shared rank
    assert p2.rank == p8.rank < p4.rank < p3.rank  # a win first; then the lower rating (P4 1850, P3 1900)
    assert p4.rank == p2.rank + 2
