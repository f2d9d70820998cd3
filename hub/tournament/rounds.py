"""A round of the pairing program's report file, planned as venue entries: which game goes on which table.

`plan_trf_round` reads round N's pairings from a tournament report file (`hub.tournament.trf`): chess games,
and for a team event the team matches they belong to; byes and games already decided by forfeit are listed,
not put on tables. The plan is checked against the venue (`hub.tournament.plan`) and refused, changing
nothing, with a `RoundError` in English and Turkish. CSV draws for table tennis and backgammon are
`hub.tournament.draw`; both are re-exported here with the plan and the write (`add_to_venue`).

Board order of an individual round: the game whose higher-scoring player had more points before the round
comes first; between equal scores, the game with the lower starting rank in it (the order the pairing
programs print boards in, as far as the file can tell it). Team matches are ordered the same way by the teams'
match points before the round and their numbers; inside a team match a game's board is its players' place in
their team's lineup among the team's players who play that round.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from hub.tournament.draw import plan_csv_draw
from hub.tournament.model import Colour, Entry, Outcome, Player, Team, Tournament
from hub.tournament.plan import (
    Bye,
    Forfeit,
    PlannedMatch,
    PlannedTeamMatch,
    RoundError,
    RoundPlan,
    TomlValue,
    add_to_venue,
    need_tables,
    refuse_clashes,
    table_list,
)
from hub.tournament.results import team_totals
from hub.venue import Venue

__all__ = [
    "Bye",
    "Forfeit",
    "PlannedMatch",
    "PlannedTeamMatch",
    "RoundError",
    "RoundPlan",
    "add_to_venue",
    "plan_csv_draw",
    "plan_trf_round",
    "table_list",
]
_FORFEITS = {Outcome.FORFEIT_WIN, Outcome.FORFEIT_LOSS}


# -- the report file's round ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Game:
    white: Player
    black: Player
    outcome: Outcome  # White's code


def plan_trf_round(
    tournament: Tournament,
    round_number: int,
    venue: Venue,
    tables: str | None = None,
    *,
    time_control: str | None = None,
    trf_path: Path | None = None,
) -> RoundPlan:
    """The venue entries of round `round_number` of a report file; raise RoundError, and plan nothing, when the
    round is missing, already in the venue, or does not fit the tables."""
    source = str(trf_path) if trf_path is not None else tournament.name or "<trf>"
    games, byes = _round_games(tournament, round_number)
    _refuse_round_in_venue(venue, round_number)
    if time_control is not None:
        _check_time_control(time_control)
    chosen = table_list(tables, venue, "chess", (round_number,))
    extra: tuple[tuple[str, TomlValue], ...] = (("time_control", time_control),) if time_control else ()
    if tournament.is_team_event:
        plan = _team_plan(tournament, round_number, games, chosen, extra)
    else:
        plan = _individual_plan(tournament, round_number, games, chosen, extra)
    refuse_clashes([m.id for m in plan.matches] + [t.id for t in plan.team_matches], venue)
    return RoundPlan(
        source,
        (round_number,),
        plan.matches,
        plan.team_matches,
        byes,
        plan.forfeits,
        _tournament_section(venue, trf_path),
        tuple(m.table for m in plan.matches),
    )


def _round_games(tournament: Tournament, round_number: int) -> tuple[list[_Game], tuple[Bye, ...]]:
    """Round N's games, each once with White first, and its byes; refuse a round with no pairings."""
    if not 1 <= round_number <= tournament.rounds:
        raise RoundError(
            f"round {round_number} is not in the file (it has {tournament.rounds} rounds) "
            f"/ {round_number}. tur dosyada yok ({tournament.rounds} tur var)"
        )
    games: list[_Game] = []
    byes: list[Bye] = []
    for player in sorted(tournament.players.values(), key=lambda p: p.number):
        entry = player.entry(round_number)
        if entry is None:
            continue
        if entry.opponent is None:
            byes.append(Bye(round_number, player.name, player.number, entry.outcome.value, entry.points))
            continue
        if entry.opponent == player.number:
            raise RoundError(
                f"round {round_number}: {player.name} ({player.number}, line {player.line}) is paired with "
                f"themselves / oyuncu kendisiyle eşlenmiş"
            )
        other = tournament.players[entry.opponent]
        back = other.entry(round_number)
        assert back is not None  # the reader checks both sides of every game
        if entry.opponent < player.number:
            continue  # met from the other side already
        white, black = _colours(player, entry, other, back, round_number)
        white_entry = entry if white is player else back
        games.append(_Game(white, black, white_entry.outcome))
    if not games and not byes:
        raise RoundError(
            f"round {round_number} has no pairings in the file yet / {round_number}. turun eşlendirmesi dosyada yok"
        )
    return games, tuple(byes)


def _colours(
    a: Player, a_entry: Entry, b: Player, b_entry: Entry, round_number: int
) -> tuple[Player, Player]:
    """White and Black as the file gives them; with no colour written, the lower starting rank first."""
    if a_entry.colour is Colour.WHITE and b_entry.colour is not Colour.WHITE:
        return a, b
    if b_entry.colour is Colour.WHITE and a_entry.colour is not Colour.WHITE:
        return b, a
    if a_entry.colour is Colour.NONE and b_entry.colour is Colour.NONE:
        return a, b
    if a_entry.colour is Colour.BLACK and b_entry.colour is Colour.NONE:
        return b, a
    if a_entry.colour is Colour.NONE and b_entry.colour is Colour.BLACK:
        return a, b
    raise RoundError(
        f"round {round_number}: {a.name} ({a.number}) and {b.name} ({b.number}) both have "
        f"{'White' if a_entry.colour is Colour.WHITE else 'Black'} in the file "
        f"(lines {a.line} and {b.line}) / iki oyuncu da aynı renkte yazılmış"
    )


def _refuse_round_in_venue(venue: Venue, round_number: int) -> None:
    chess = {t.id for t in venue.tables if t.sport == "chess"}
    games = sum(1 for m in venue.matches if m.round == round_number and m.table in chess)
    team_matches = sum(1 for t in venue.team_matches if t.round == round_number)
    if games or team_matches:
        parts = [f"{games} games"] + ([f"{team_matches} team matches"] if team_matches else [])
        raise RoundError(
            f"round {round_number} is already in the venue ({', '.join(parts)}); remove it first to import "
            f"it again / {round_number}. tur salon dosyasında zaten var"
        )


def _check_time_control(text: str) -> None:
    from hub.rules.chess import ChessConfig  # the rules own the time-control notation

    try:
        ChessConfig.from_text(text)
    except ValueError as exc:
        raise RoundError(f"--time-control {text!r}: {exc}") from None


def _tournament_section(venue: Venue, trf_path: Path | None) -> str | None:
    """The `[tournament] trf` to add when the venue names no event; refuse a venue that names another file."""
    if trf_path is None:
        return None
    if venue.tournament is not None:
        if venue.tournament.trf != trf_path.resolve():
            raise RoundError(
                f"the venue's event is {venue.tournament.trf}, not {trf_path}; import that file's rounds "
                f"/ salonun turnuva dosyası {venue.tournament.trf}"
            )
        return None
    base = venue.path.resolve().parent if venue.path is not None else Path.cwd()
    return Path(os.path.relpath(trf_path.resolve(), base)).as_posix()


@dataclass(frozen=True, slots=True)
class _Planned:
    matches: tuple[PlannedMatch, ...]
    team_matches: tuple[PlannedTeamMatch, ...]
    forfeits: tuple[Forfeit, ...]


def _individual_plan(
    tournament: Tournament,
    round_number: int,
    games: list[_Game],
    tables: tuple[str, ...],
    extra: tuple[tuple[str, TomlValue], ...],
) -> _Planned:
    """One chess match per game, in board order; forfeits keep their board number but take no table."""

    def before(p: Player) -> Fraction:
        return p.points(round_number - 1)

    ordered = sorted(
        games,
        key=lambda g: (-max(before(g.white), before(g.black)), min(g.white.number, g.black.number)),
    )
    need_tables(tables, sum(1 for g in ordered if g.outcome not in _FORFEITS))
    matches: list[PlannedMatch] = []
    forfeits: list[Forfeit] = []
    free = iter(tables)
    for board, game in enumerate(ordered, start=1):
        if game.outcome in _FORFEITS:
            forfeits.append(_forfeit(tournament, round_number, board, game))
            continue
        matches.append(_chess_match(f"R{round_number}-B{board}", next(free), round_number, game, extra))
    return _Planned(tuple(matches), (), tuple(forfeits))


def _forfeit(tournament: Tournament, round_number: int, board: int, game: _Game) -> Forfeit:
    black_entry = game.black.entry(round_number)
    black_wins = black_entry is not None and black_entry.outcome is Outcome.FORFEIT_WIN
    result = "1-0F" if game.outcome is Outcome.FORFEIT_WIN else "0-1F" if black_wins else "0-0F"
    return Forfeit(round_number, board, game.white.name, game.black.name, result)


def _chess_match(
    match_id: str, table: str, round_number: int, game: _Game, extra: tuple[tuple[str, TomlValue], ...]
) -> PlannedMatch:
    return PlannedMatch(
        match_id,
        table,
        round_number,
        (game.white.name, game.black.name),
        (
            ("pairing", (game.white.number, game.black.number)),
            ("ratings", (game.white.rating, game.black.rating)),
            *extra,
        ),
    )


def _team_plan(
    tournament: Tournament,
    round_number: int,
    games: list[_Game],
    tables: tuple[str, ...],
    extra: tuple[tuple[str, TomlValue], ...],
) -> _Planned:
    """One team match per pair of teams meeting in the round, its games board by board."""
    meetings = _meetings(tournament, round_number, games)

    def before(team: Team) -> Fraction:
        return team_totals(tournament, team, round_number - 1)[0]

    ordered = sorted(
        meetings, key=lambda m: (-max(before(m[0]), before(m[1])), min(m[0].number, m[1].number))
    )
    need_tables(tables, sum(1 for m in ordered for g in meetings[m] if g.outcome not in _FORFEITS))
    free = iter(tables)
    team_matches: list[PlannedTeamMatch] = []
    matches: list[PlannedMatch] = []
    forfeits: list[Forfeit] = []
    for index, pair in enumerate(ordered, start=1):
        boards = _boards(tournament, round_number, pair, meetings[pair])
        first = boards[0][1]
        home, away = pair if first.white.number in pair[0].players else (pair[1], pair[0])
        tm_id = f"R{round_number}-M{index}"
        decided = tuple(_forfeit(tournament, round_number, b, g) for b, g in boards if g.outcome in _FORFEITS)
        forfeits += decided
        team_matches.append(
            PlannedTeamMatch(tm_id, round_number, (home.name, away.name), (home.number, away.number), decided)
        )
        for board, game in boards:
            if game.outcome in _FORFEITS:
                continue
            planned = _chess_match(f"{tm_id}-B{board}", next(free), round_number, game, extra)
            team_keys: tuple[tuple[str, TomlValue], ...] = (("team_match", tm_id), ("board", board))
            matches.append(
                PlannedMatch(
                    planned.id, planned.table, planned.round, planned.players, team_keys + planned.extra
                )
            )
    return _Planned(tuple(matches), tuple(team_matches), tuple(forfeits))


def _meetings(
    tournament: Tournament, round_number: int, games: list[_Game]
) -> dict[tuple[Team, Team], list[_Game]]:
    """The round's games grouped by the two teams they are between (the team listed first in the file first)."""
    order = {team.number: index for index, team in enumerate(tournament.teams)}
    meetings: dict[tuple[Team, Team], list[_Game]] = {}
    for game in games:
        teams = [tournament.team_of(game.white.number), tournament.team_of(game.black.number)]
        for player, team in zip((game.white, game.black), teams, strict=True):
            if team is None:
                raise RoundError(
                    f"round {round_number}: {player.name} ({player.number}) plays but is in no team "
                    f"(line {player.line}) / oyuncu hiçbir takımda değil"
                )
        a, b = teams
        assert a is not None and b is not None
        if a == b:
            raise RoundError(
                f"round {round_number}: {game.white.name} and {game.black.name} are team-mates in {a.name} "
                f"/ aynı takımın oyuncuları eşlenmiş"
            )
        pair = (a, b) if order[a.number] < order[b.number] else (b, a)
        meetings.setdefault(pair, []).append(game)
    for team in tournament.teams:
        met = [p for p in meetings if team in p]
        if len(met) > 1:
            names = " and ".join(p[1].name if p[0] == team else p[0].name for p in met)
            raise RoundError(
                f"round {round_number}: {team.name} meets {names}; a team meets one team a round "
                f"/ takım bir turda iki takımla eşlenmiş"
            )
    return meetings


def _boards(
    tournament: Tournament, round_number: int, pair: tuple[Team, Team], games: list[_Game]
) -> list[tuple[int, _Game]]:
    """Each game with its board: both players' place among their team's players who play the round."""
    playing = set()
    for game in games:
        playing |= {game.white.number, game.black.number}
    places = [
        {n: i for i, n in enumerate((n for n in team.players if n in playing), start=1)} for team in pair
    ]
    boards: list[tuple[int, _Game]] = []
    for game in games:
        first, second = (
            (game.white, game.black) if game.white.number in places[0] else (game.black, game.white)
        )
        board = places[0][first.number]
        if places[1][second.number] != board:
            raise RoundError(
                f"round {round_number}, {pair[0].name} - {pair[1].name}: {first.name} is on board {board} of "
                f"the lineup but meets {second.name}, on board {places[1][second.number]} "
                f"/ takım sıralamasıyla eşleşme uyuşmuyor"
            )
        boards.append((board, game))
    return sorted(boards, key=lambda b: b[0])
