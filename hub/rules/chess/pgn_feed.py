"""Live PGN for broadcast relays: one game, or every game of a round, at stable URLs.

Relays (lichess broadcasts, pgn4web, LiveChess-style viewers) poll a URL every few seconds and diff what they
get, so each game's text must be complete, stable in its headers, and grow only by moves. The PGN is built
from what spectators may see (`Hall.public_match`), so the broadcast delay applies here as on every path.
"""

from __future__ import annotations

import re
import time
from typing import Any

from hub.matches import MatchInfo, MatchState, MatchStatus
from hub.rules.chess import pgn
from hub.rules.sport import Annotate
from hub.tournament.model import Tournament
from hub.tournament.teams import game_result, home_is_white
from hub.venue import Venue


def event_tags(venue: Venue, event: Tournament | None = None) -> tuple[str, str]:
    """`[Event]` and `[Site]`: the report file's event name (its 012 line) and city (022, with the federation's
    three-letter code of 032 after it, as PGN writes a site), each the hall's name where the file has none."""
    if event is None:
        return venue.name, venue.name
    name = event.header.get("012", "").strip() or event.name.strip()
    city = event.header.get("022", "").strip()
    federation = event.header.get("032", "").strip()
    if city and re.fullmatch(r"[A-Z]{3}", federation) and not city.endswith(federation):
        city = f"{city} {federation}"
    return name or venue.name, city or venue.name


def game_headers(match: MatchState, venue: Venue, event: Tournament | None = None) -> dict[str, str]:
    """The PGN tags of one game: the Seven Tag Roster (Event and Site from the event's report file when the
    venue has one), the players' titles, ratings and FIDE ids where known, time control, board and teams."""
    info = match.info
    started = match.started_at or match.updated_at
    name, site = event_tags(venue, event)
    headers = {
        "Event": name,
        "Site": site,
        "Date": time.strftime("%Y.%m.%d", time.gmtime(started)) if started else "????.??.??",
        "Round": f"{info.round}.{_board_in_round(info, venue)}" if info.board else str(info.round),
        "White": info.players[0] or "?",
        "Black": info.players[1] or "?",
        "Result": game_result(match) or "*",
    }
    headers.update(player_tags(info))
    if info.clock:
        headers["TimeControl"] = info.clock
    if match.sport_state.result is None and match.status is MatchStatus.FORFEIT:
        headers["Termination"] = "forfeit"  # the generic forfeit action: a result the rules never saw
    if info.team_match is not None and info.board is not None:
        config = next(t for t in venue.team_matches if t.id == info.team_match)
        home, away = config.teams
        white_team, black_team = (home, away) if home_is_white(info.board) else (away, home)
        headers.update({"WhiteTeam": white_team, "BlackTeam": black_team, "Board": str(info.board)})
    headers["Annotator"] = "Boardcast"
    headers["Status"] = "official" if match.status is MatchStatus.OFFICIAL else "informational"
    return headers


def player_tags(info: MatchInfo) -> dict[str, str]:
    """`WhiteTitle`, `WhiteElo`, `WhiteFideId` and Black's, as relays read them: a tag whose value is not known
    is left out (no title, rating 0 for unrated, FIDE id 0 for none)."""
    tags: dict[str, str] = {}
    for index, colour in enumerate(("White", "Black")):
        if info.titles is not None and info.titles[index]:
            tags[f"{colour}Title"] = info.titles[index]
        if info.ratings is not None and info.ratings[index] > 0:
            tags[f"{colour}Elo"] = str(info.ratings[index])
        if info.fide_ids is not None and info.fide_ids[index] > 0:
            tags[f"{colour}FideId"] = str(info.fide_ids[index])
    return tags


def _board_in_round(info: MatchInfo, venue: Venue) -> int:
    """A team game's board counted through the round (the second team match's board 1 follows the first's
    last board), so that every game of a round has its own `Round` tag as relays number them."""
    earlier = []
    for config in venue.team_matches:
        if config.id == info.team_match:
            break
        if config.round == info.round:
            earlier.append(config.id)
    boards = {t: 0 for t in earlier}
    for other in venue.matches:
        if other.team_match in boards:
            boards[other.team_match] = max(boards[other.team_match], other.board or 0)
    for config in venue.team_matches:
        if config.id in boards:
            boards[config.id] = max([boards[config.id], *(f.board for f in config.forfeits)])
    return sum(boards.values()) + (info.board or 0)


def game_pgn(
    match: MatchState, venue: Venue, event: Tournament | None = None, annotate: Annotate | None = None
) -> str:
    """One game's PGN with `[%clk]` comments (and `annotate`'s, an engine's `[%eval]`, on each position it
    knows); `event` is the venue's report file, as read."""
    return pgn(match.sport_state, game_headers(match, venue, event), annotate)


def round_pgn(
    matches: list[MatchState],
    venue: Venue,
    round_number: int,
    event: Tournament | None = None,
    annotate: Annotate | None = None,
) -> str:
    """Every chess game of a round, by team match and board, then table, as one PGN file."""
    games = [m for m in matches if m.info.sport == "chess" and m.info.round == round_number]
    games.sort(key=_order)
    return "\n\n".join(game_pgn(m, venue, event, annotate).strip() for m in games) + ("\n" if games else "")


def _order(match: MatchState) -> tuple[Any, ...]:
    return (match.info.team_match or "", match.info.board or 0, match.info.table, match.info.id)
