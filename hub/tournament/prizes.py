"""Board prizes of a team event: the best player of each board category, by the national regulations.

Pure: a team `Tournament` in, ranked players per category out. A player's board in a round is their place
in the team's lineup (the team's board order) among the team's players who sat at a board that round; the
board's category comes from `hub.venue.CHESS_BOARD_CATEGORIES` (boards 1-4 open, 5 under 20, 6 women,
7 under 16, 8 under-16 girls). A player is placed in the category they played most (equal: the upper
board's), and ranked there once they have played `min_games` games over the board: a forfeit is no game
(FIDE: an unplayed game is not rated), so it neither makes up the minimum nor enters the performance.

Order: rating performance, then wins, then percentage (points per game), then direct encounter (points
against the others still level), then the lower rating; wins and percentage count forfeits (the
regulations' criteria include forfeited games). Performance is FIDE's tournament performance rating (C.07
§10.2, by the tie-break library): the opponents' average rating plus the FIDE table's rating difference for
the score (B.02 table 8.1.a), over games played at the board; an unrated player or opponent counts as 1000,
and an opponent's rating counts as at most 400 away from the player's own. The table's difference runs
from -800 (0 %) to +800 (100 %): one game won against a 2275 is 2275 + 800 = 3075 for a player rated 1875
or more (below that the opponent counts as the player's rating + 400), which is why the minimum of games
comes first: a performance from fewer games is not ranked at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

import tiebreak_core as tc

from hub.tournament.model import Entry, Outcome, Player, Team, Tournament
from hub.tournament.standings import split_groups
from hub.venue import CHESS_BOARD_CATEGORIES

UNRATED = 1000  # the rating an unrated player counts with
RATING_CAP = 400  # the most an opponent's rating may differ from the player's own


@dataclass(frozen=True, slots=True)
class BoardPrizeLine:
    """One ranked player of a board category."""

    rank: int  # shared by a complete tie
    number: int  # the player's starting rank
    name: str
    team: str
    games: int  # played over the board (forfeits are no game)
    points: Fraction  # forfeits included
    performance: int  # 0: no game played at the board
    wins: int  # forfeit wins included
    percent: float  # points per game x 100, forfeits included
    forfeits: int = 0  # boards decided by forfeit (won or lost)

    def to_json(self) -> dict[str, object]:
        """The line as one JSON object."""
        return {
            "rank": self.rank,
            "name": self.name,
            "team": self.team,
            "games": self.games,
            "forfeits": self.forfeits,
            "points": float(self.points),
            "performance": self.performance or None,  # none without a game played
            "wins": self.wins,
            "percent": self.percent,
        }


@dataclass(frozen=True, slots=True)
class BoardCategory:
    """A board category's name (English, Turkish) and its ranked players."""

    boards: tuple[int, ...]  # the boards of the category (1-4 for open)
    name: tuple[str, str]
    lines: tuple[BoardPrizeLine, ...]


def board_prizes(
    tournament: Tournament, min_games: int, rounds: int | None = None
) -> tuple[BoardCategory, ...]:
    """Each board category with its ranked players, upper boards first (no categories: not a team event)."""
    if not tournament.is_team_event:
        return ()
    last = tournament.rounds if rounds is None else rounds
    placed: dict[tuple[str, str], list[tuple[Player, Team]]] = {}
    for team in tournament.teams:
        for number, category in _categories(tournament, team, last).items():
            placed.setdefault(category, []).append((tournament.players[number], team))
    out: list[BoardCategory] = []
    for category in dict.fromkeys(CHESS_BOARD_CATEGORIES.values()):
        boards = tuple(b for b, c in CHESS_BOARD_CATEGORIES.items() if c == category)
        eligible = [
            (p, t)
            for p, t in placed.get(category, [])
            if _played(p, last) >= max(1, min_games)  # performance needs a game
        ]
        out.append(BoardCategory(boards, category, _ranked(tournament, eligible, last)))
    return tuple(out)


def boards_sat(tournament: Tournament, team: Team, rounds: int) -> dict[int, list[int]]:
    """The board each of the team's players sat at, round by round (their place among those who sat)."""
    sat: dict[int, list[int]] = {n: [] for n in team.players}
    for round_number in range(1, rounds + 1):
        seated = [n for n in team.players if _at_board(tournament.players[n].entry(round_number))]
        for board, number in enumerate(seated, start=1):
            sat[number].append(board)
    return sat


def _categories(tournament: Tournament, team: Team, rounds: int) -> dict[int, tuple[str, str]]:
    out: dict[int, tuple[str, str]] = {}
    for number, boards in boards_sat(tournament, team, rounds).items():
        counts = Counter(CHESS_BOARD_CATEGORIES[b] for b in boards if b in CHESS_BOARD_CATEGORIES)
        if not counts:
            continue
        upper = {c: min(b for b, cat in CHESS_BOARD_CATEGORIES.items() if cat == c) for c in counts}
        # most games there; equal games: the category of the upper board
        out[number] = min(counts, key=lambda c: (-counts[c], upper[c]))
    return out


def _at_board(entry: Entry | None) -> bool:
    return entry is not None and entry.opponent is not None


def _known(player: Player, rounds: int) -> list[Entry]:
    """The player's games at a board with a result (a game still going counts for nothing yet)."""
    return [
        e
        for e in player.rounds[:rounds]
        if e is not None and _at_board(e) and e.outcome is not Outcome.NOT_PLAYED
    ]


def _played(player: Player, rounds: int) -> int:
    """Games played over the board with a result: what the minimum counts (a forfeit is no game)."""
    return sum(1 for e in _known(player, rounds) if e.outcome.played)


def _rating(player: Player) -> int:
    return player.rating or UNRATED


def performance(tournament: Tournament, player: Player, rounds: int) -> int:
    """FIDE's tournament performance rating over the games played at the board (0: none)."""
    own = _rating(player)
    games: list[tc.GameRecord] = []
    context: dict[int, tc.PlayerTiebreakData] = {}
    for round_number, entry in enumerate(player.rounds[:rounds], start=1):
        if entry is None or entry.opponent is None or not entry.outcome.played:
            continue
        rating = min(own + RATING_CAP, max(own - RATING_CAP, _rating(tournament.players[entry.opponent])))
        context[entry.opponent] = tc.PlayerTiebreakData(entry.opponent, rating, 0.0, [])
        games.append(
            tc.GameRecord(entry.opponent, rating, float(entry.points), "white", round_number, kind=tc.PLAYED)
        )
    if not games:
        return 0
    record = tc.PlayerTiebreakData(player.number, own, sum(g.score for g in games), games)
    context[player.number] = record
    return int(tc.calculate_strict(record, context, "tpr", max(1, rounds), ruleset="fide-2024"))


def _ranked(
    tournament: Tournament, eligible: list[tuple[Player, Team]], rounds: int
) -> tuple[BoardPrizeLine, ...]:
    lines = {p.number: _line(tournament, p, t, rounds) for p, t in eligible}
    groups: list[list[int]] = [sorted(lines)]
    for key in (
        lambda n: -lines[n].performance,
        lambda n: -lines[n].wins,
        lambda n: -Fraction(lines[n].points, lines[n].games + lines[n].forfeits),  # forfeits included
    ):
        groups = split_groups(groups, key)
    groups = [tier for g in groups for tier in _direct(tournament, g, rounds)]
    groups = split_groups(groups, lambda n: _rating(tournament.players[n]))  # the lower rating first
    out: list[BoardPrizeLine] = []
    position = 1
    for group in groups:
        for n in group:
            out.append(replace(lines[n], rank=position))
        position += len(group)
    return tuple(out)


def _line(tournament: Tournament, player: Player, team: Team, rounds: int) -> BoardPrizeLine:
    known = _known(player, rounds)
    points = sum((e.points for e in known), Fraction(0))
    wins = sum(1 for e in known if e.points == 1)
    percent = round(float(points) / len(known) * 100, 1)
    rating = performance(tournament, player, rounds)
    played = _played(player, rounds)
    forfeits = len(known) - played
    return BoardPrizeLine(
        0, player.number, player.name, team.name, played, points, rating, wins, percent, forfeits
    )


def _direct(tournament: Tournament, group: list[int], rounds: int) -> list[list[int]]:
    """Points scored against the others of the group: more first (those who did not meet stay level)."""
    if len(group) < 2:
        return [group]
    members = set(group)
    scores: Mapping[int, Fraction] = {
        n: sum(
            (
                e.points
                for e in _known(tournament.players[n], rounds)
                if e.opponent in members and e.outcome.played
            ),
            Fraction(0),
        )
        for n in group
    }
    return split_groups([group], lambda n: -scores[n])
