"""A round of the pairing program's report file, planned as venue entries: which game goes on which table.

`plan_trf_round` reads round N's pairings from a tournament report file (`hub.tournament.trf`): the games of
the sport with paired rounds (`PAIRED_SPORT`), and for a team event the team matches they belong to; byes and games already decided by forfeit are listed,
not put on tables. The plan is checked against the venue (`hub.tournament.plan`) and refused, changing
nothing, with a `RoundError` in English and Turkish. CSV draws for the other sports are
`hub.tournament.draw`; both are re-exported here with the plan and the write (`add_to_venue`).

Board order is FIDE's for Swiss events (C.04.2, `board_key`): first the score before the round of the pair's
higher-ranked player, then the sum of both scores, then the higher-ranked player's starting rank. Team matches
are ordered by the same rule on the teams' match points before the round and their numbers. Inside a team
match a board is its players' place in their team's lineup among the team's players who take part in the
round; a board forfeited without an opponent number (`0000 - -` against the other team's `0000 - +`) keeps its
place and is one of the team match's `forfeits`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from hub.rules.registry import PAIRED_SPORT
from hub.tournament.controls import read_time_control
from hub.tournament.draw import plan_csv_draw
from hub.tournament.model import Colour, Entry, Outcome, Player, Team, Tournament
from hub.tournament.plan import (
    Bye,
    Forfeit,
    PlannedMatch,
    PlannedTeamMatch,
    RoundError,
    RoundPlan,
    add_to_venue,
    check_time_control,
    count,
    need_tables,
    refuse_clashes,
    table_list,
)
from hub.tournament.results import team_totals
from hub.venue import CHESS_TITLES, Venue
from hub.venue.write import TomlValue

__all__ = [
    "Bye",
    "Forfeit",
    "PlannedMatch",
    "PlannedTeamMatch",
    "RoundError",
    "RoundPlan",
    "add_to_venue",
    "board_key",
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
    else:
        time_control = _file_time_control(tournament, source)
    chosen = table_list(tables, venue, PAIRED_SPORT, (round_number,))
    extra: tuple[tuple[str, TomlValue], ...] = (("time_control", time_control),) if time_control else ()
    if tournament.is_team_event:
        plan = _team_plan(tournament, round_number, games, chosen, extra)
    else:
        plan = _individual_plan(round_number, games, chosen, extra)
    refuse_clashes([m.id for m in plan.matches] + [t.id for t in plan.team_matches], venue)
    return RoundPlan(
        source,
        (round_number,),
        plan.matches,
        plan.team_matches,
        tuple(b for b in byes if b.number not in plan.on_boards),
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
                f"themselves / {round_number}. tur: {player.name} ({player.number}, satır {player.line}) "
                f"kendisiyle eşlenmiş"
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
        f"(lines {a.line} and {b.line}) / {round_number}. tur: {a.name} ile {b.name} aynı renkte "
        f"({'Beyaz' if a_entry.colour is Colour.WHITE else 'Siyah'}) yazılmış (satır {a.line} ve {b.line})"
    )


def _refuse_round_in_venue(venue: Venue, round_number: int) -> None:
    paired = {t.id for t in venue.tables if t.sport == PAIRED_SPORT}
    games = sum(1 for m in venue.matches if m.round == round_number and m.table in paired)
    team_matches = sum(1 for t in venue.team_matches if t.round == round_number)
    if games or team_matches:
        parts = [count(games, "game", "games")]
        parts += [count(team_matches, "team match", "team matches")] if team_matches else []
        raise RoundError(
            f"round {round_number} is already in the venue ({', '.join(parts)}); remove it first to import "
            f"it again / {round_number}. tur salon dosyasında zaten var; yeniden eklemek için önce çıkarın"
        )


def _check_time_control(text: str) -> None:
    wrong = check_time_control(text)  # the sport's rules own the time-control notation
    if wrong is not None:
        raise RoundError(f"--time-control {text!r}: {wrong}")


def _file_time_control(tournament: Tournament, source: str) -> str | None:
    """The report file's own time control (its `122` line) when `--time-control` is not given; None when the
    file has none; refused when it holds one the hub cannot read."""
    line = tournament.header.get("122", "").strip()
    if not line:
        return None
    control = read_time_control(line)
    if control is None:
        raise RoundError(
            f"{source}: the time control {line!r} (line 122) cannot be read; pass --time-control, such as "
            f'"5400+30" (90 minutes + 30 seconds a move) / {source}: 122 satırındaki süre {line!r} okunamadı; '
            f'--time-control verin, örneğin "5400+30" (90 dakika + hamle başına 30 saniye)'
        )
    return control


def _tournament_section(venue: Venue, trf_path: Path | None) -> str | None:
    """The `[tournament] trf` to add when the venue names no event; refuse a venue that names another file."""
    if trf_path is None:
        return None
    if venue.tournament is not None:
        if venue.tournament.trf != trf_path.resolve():
            raise RoundError(
                f"the venue's event is {venue.tournament.trf}, not {trf_path}; import that file's rounds "
                f"/ salonun turnuva dosyası {venue.tournament.trf}, {trf_path} değil; o dosyanın turlarını ekleyin"
            )
        return None
    base = venue.path.resolve().parent if venue.path is not None else Path.cwd()
    return Path(os.path.relpath(trf_path.resolve(), base)).as_posix()


def board_key(a: tuple[Fraction, int], b: tuple[Fraction, int]) -> tuple[Fraction, Fraction, int]:
    """FIDE C.04.2's board order as a sort key of a pair, each side (score before the round, starting rank):
    the higher-ranked side's score (highest first), both scores' sum (highest first), then the higher-ranked
    side's starting rank. The higher-ranked side has the higher score, or the lower rank at equal scores."""
    higher = min(a, b, key=lambda side: (-side[0], side[1]))
    return (-higher[0], -(a[0] + b[0]), higher[1])


@dataclass(frozen=True, slots=True)
class _Planned:
    matches: tuple[PlannedMatch, ...]
    team_matches: tuple[PlannedTeamMatch, ...]
    forfeits: tuple[Forfeit, ...]
    on_boards: frozenset[int] = frozenset()  # players with no opponent number who hold a team board


def _individual_plan(
    round_number: int,
    games: list[_Game],
    tables: tuple[str, ...],
    extra: tuple[tuple[str, TomlValue], ...],
) -> _Planned:
    """One match per game, in board order; forfeits keep their board number but take no table."""

    def side(p: Player) -> tuple[Fraction, int]:
        return p.points(round_number - 1), p.number

    ordered = sorted(games, key=lambda g: board_key(side(g.white), side(g.black)))
    need_tables(tables, sum(1 for g in ordered if g.outcome not in _FORFEITS))
    matches: list[PlannedMatch] = []
    forfeits: list[Forfeit] = []
    free = iter(tables)
    for board, game in enumerate(ordered, start=1):
        if game.outcome in _FORFEITS:
            forfeits.append(_forfeit(round_number, board, game))
            continue
        matches.append(_game_match(f"R{round_number}-B{board}", next(free), round_number, game, extra))
    return _Planned(tuple(matches), (), tuple(forfeits))


def _forfeit(round_number: int, board: int, game: _Game) -> Forfeit:
    black_entry = game.black.entry(round_number)
    black_wins = black_entry is not None and black_entry.outcome is Outcome.FORFEIT_WIN
    result = "1-0F" if game.outcome is Outcome.FORFEIT_WIN else "0-1F" if black_wins else "0-0F"
    return Forfeit(round_number, board, game.white.name, game.black.name, result)


def _game_match(
    match_id: str, table: str, round_number: int, game: _Game, extra: tuple[tuple[str, TomlValue], ...]
) -> PlannedMatch:
    """A game's venue entry: its players by name and starting rank, their ratings, and their titles and FIDE
    ids where the file gives one of either (relays print them in the PGN)."""
    players = (game.white, game.black)
    titles = tuple(pgn_title(p.title) for p in players)
    fide_ids = tuple(int(p.fide_id) if p.fide_id.isdigit() else 0 for p in players)
    known: tuple[tuple[str, TomlValue], ...] = (
        *((("titles", titles),) if any(titles) else ()),
        *((("fide_ids", fide_ids),) if any(fide_ids) else ()),
    )
    return PlannedMatch(
        match_id,
        table,
        round_number,
        (game.white.name, game.black.name),
        (
            ("pairing", (game.white.number, game.black.number)),
            ("ratings", (game.white.rating, game.black.rating)),
            *known,
            *extra,
        ),
    )


# TRF-16 writes titles as PGN does (GM, WIM); the earlier report files as letters (g, wm)
_OLD_TITLES = {"g": "GM", "m": "IM", "f": "FM", "c": "CM", "wg": "WGM", "wm": "WIM", "wf": "WFM", "wc": "WCM"}


def pgn_title(text: str) -> str:
    """A report file's title field as PGN writes it ("GM"), or "" when it holds none FIDE awards."""
    title = text.strip()
    if title.upper() in CHESS_TITLES:
        return title.upper()
    return _OLD_TITLES.get(title.lower(), "")


def _team_plan(
    tournament: Tournament,
    round_number: int,
    games: list[_Game],
    tables: tuple[str, ...],
    extra: tuple[tuple[str, TomlValue], ...],
) -> _Planned:
    """One team match per pair of teams meeting in the round, its games board by board."""
    meetings = _meetings(tournament, round_number, games)

    def side(team: Team) -> tuple[Fraction, int]:
        return team_totals(tournament, team, round_number - 1)[0], team.number

    ordered = sorted(meetings, key=lambda pair: board_key(side(pair[0]), side(pair[1])))
    need_tables(tables, sum(1 for m in ordered for g in meetings[m] if g.outcome not in _FORFEITS))
    free = iter(tables)
    team_matches: list[PlannedTeamMatch] = []
    matches: list[PlannedMatch] = []
    forfeits: list[Forfeit] = []
    on_boards: set[int] = set()
    for index, pair in enumerate(ordered, start=1):
        (home, away), boards = _boards(tournament, round_number, pair, meetings[pair])
        # a forfeited board's players are on the team match, not byes (those without an opponent number)
        on_boards |= {p.number for _, g in boards if g.outcome in _FORFEITS for p in (g.white, g.black)}
        tm_id = f"R{round_number}-M{index}"
        decided = tuple(_forfeit(round_number, b, g) for b, g in boards if g.outcome in _FORFEITS)
        forfeits += decided
        team_matches.append(
            PlannedTeamMatch(tm_id, round_number, (home.name, away.name), (home.number, away.number), decided)
        )
        for board, game in boards:
            if game.outcome in _FORFEITS:
                continue
            planned = _game_match(f"{tm_id}-B{board}", next(free), round_number, game, extra)
            team_keys: tuple[tuple[str, TomlValue], ...] = (("team_match", tm_id), ("board", board))
            matches.append(
                PlannedMatch(
                    planned.id, planned.table, planned.round, planned.players, team_keys + planned.extra
                )
            )
    return _Planned(tuple(matches), tuple(team_matches), tuple(forfeits), frozenset(on_boards))


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
                    f"(line {player.line}) / {round_number}. tur: {player.name} ({player.number}) oynuyor "
                    f"ama hiçbir takımda değil (satır {player.line})"
                )
        a, b = teams
        assert a is not None and b is not None
        if a == b:
            raise RoundError(
                f"round {round_number}: {game.white.name} and {game.black.name} are team-mates in {a.name} "
                f"/ {round_number}. tur: {game.white.name} ile {game.black.name} aynı takımda ({a.name})"
            )
        pair = (a, b) if order[a.number] < order[b.number] else (b, a)
        meetings.setdefault(pair, []).append(game)
    for team in tournament.teams:
        met = [p for p in meetings if team in p]
        if len(met) > 1:
            names = [p[1].name if p[0] == team else p[0].name for p in met]
            raise RoundError(
                f"round {round_number}: {team.name} meets {' and '.join(names)}; a team meets one team a "
                f"round / {round_number}. tur: {team.name}, {' ve '.join(names)} ile eşlenmiş; bir takım bir "
                f"turda bir takımla oynar"
            )
    return meetings


def _boards(
    tournament: Tournament, round_number: int, pair: tuple[Team, Team], games: list[_Game]
) -> tuple[tuple[Team, Team], list[tuple[int, _Game]]]:
    """The home and away team, and each board with its game: both players' place among their team's players
    who take part in the round. A board forfeited with no opponent number on either side (`0000 - -` against
    `0000 - +`) is a game decided by forfeit, White by the board's colour (home has White on odd boards)."""
    lone = [_lone_forfeits(tournament, team, round_number) for team in pair]
    entries = {**lone[0], **lone[1]}
    playing = {p.number for g in games for p in (g.white, g.black)} | set(lone[0]) | set(lone[1])
    places = [
        {n: i for i, n in enumerate((n for n in team.players if n in playing), start=1)} for team in pair
    ]
    boards: list[tuple[int, _Game]] = []
    home_first: bool | None = None  # whether pair[0] is the home team
    for game in games:
        first, second = (
            (game.white, game.black) if game.white.number in places[0] else (game.black, game.white)
        )
        board = places[0][first.number]
        if places[1].get(second.number) != board:
            raise _misplaced(round_number, pair, first, board, second, places[1].get(second.number))
        boards.append((board, game))
        if home_first is None:
            home_first = (first is game.white) == (board % 2 == 1)
    assert home_first is not None  # teams meet through at least one game
    home, away = pair if home_first else (pair[1], pair[0])
    by_place = [{place: number for number, place in p.items()} for p in places]
    for number, board in ((n, places[0][n]) for n in lone[0]):
        other = by_place[1].get(board)
        if other not in lone[1]:
            raise _misplaced(round_number, pair, tournament.players[number], board, None, None)
        ours, theirs = tournament.players[number], tournament.players[other]
        white, black = (ours, theirs) if home_first == (board % 2 == 1) else (theirs, ours)
        if entries[white.number].outcome is entries[black.number].outcome is Outcome.FORFEIT_WIN:
            raise RoundError(
                f"round {round_number}, board {board}: {white.name} and {black.name} both win by forfeit "
                f"(lines {white.line} and {black.line}) / {round_number}. tur, {board}. masa: iki oyuncu da "
                f"hükmen kazanmış yazılmış (satır {white.line} ve {black.line})"
            )
        boards.append((board, _Game(white, black, entries[white.number].outcome)))
    unmatched = [n for n in lone[1] if by_place[0].get(places[1][n]) not in lone[0]]
    if unmatched:
        number = unmatched[0]
        raise _misplaced(round_number, pair, tournament.players[number], places[1][number], None, None)
    return (home, away), sorted(boards, key=lambda b: b[0])


def _lone_forfeits(tournament: Tournament, team: Team, round_number: int) -> dict[int, Entry]:
    """The team's players whose round is a forfeit with no opponent number, with their entries."""
    out: dict[int, Entry] = {}
    for number in team.players:
        entry = tournament.players[number].entry(round_number)
        if entry is not None and entry.opponent is None and entry.outcome in _FORFEITS:
            out[number] = entry
    return out


def _misplaced(
    round_number: int,
    pair: tuple[Team, Team],
    first: Player,
    board: int,
    second: Player | None,
    second_board: int | None,
) -> RoundError:
    """A lineup the pairings do not follow: a player meets someone on another board, or no one on theirs."""
    where = f"round {round_number}, {pair[0].name} - {pair[1].name}"
    yer = f"{round_number}. tur, {pair[0].name} - {pair[1].name}"
    if second is None:
        return RoundError(
            f"{where}: {first.name} forfeits board {board} without an opponent number, but the other team's "
            f"player on that board does not (line {first.line}) / {yer}: {first.name} {board}. masada rakipsiz "
            f"hükmen yazılmış, diğer takımın o masadaki oyuncusu öyle yazılmamış (satır {first.line})"
        )
    return RoundError(
        f"{where}: {first.name} is on board {board} of the lineup but meets {second.name}, on board "
        f"{second_board} / {yer}: {first.name} kadroda {board}. masada ama {second_board}. masadaki "
        f"{second.name} ile eşlenmiş"
    )
