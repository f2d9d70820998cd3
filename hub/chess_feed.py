"""Live PGN for broadcast relays: one game, or every game of a round, at stable URLs.

Relays (lichess broadcasts, pgn4web, LiveChess-style viewers) poll a URL every few seconds and diff what they
get, so each game's text must be complete, stable in its headers, and grow only by moves. The PGN is built
from what spectators may see (`Hall.public_match`), so the broadcast delay applies here as on every path.
"""

from __future__ import annotations

import time
from typing import Any

from hub.matches import MatchInfo, MatchState, MatchStatus
from hub.rules.chess import pgn
from hub.teams import game_result, home_is_white
from hub.venue import Venue


def game_headers(match: MatchState, venue: Venue) -> dict[str, str]:
    """The PGN tags of one game: the Seven Tag Roster, time control, board and teams."""
    info = match.info
    started = match.started_at or match.updated_at
    headers = {
        "Event": venue.name,
        "Site": venue.name,
        "Date": time.strftime("%Y.%m.%d", time.gmtime(started)) if started else "????.??.??",
        "Round": f"{info.round}.{_board_in_round(info, venue)}" if info.board else str(info.round),
        "White": info.players[0] or "?",
        "Black": info.players[1] or "?",
        "Result": game_result(match) or "*",
    }
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


def game_pgn(match: MatchState, venue: Venue) -> str:
    """One game's PGN with `[%clk]` comments."""
    return pgn(match.sport_state, game_headers(match, venue))


def round_pgn(matches: list[MatchState], venue: Venue, round_number: int) -> str:
    """Every chess game of a round, by team match and board, then table, as one PGN file."""
    games = [m for m in matches if m.info.sport == "chess" and m.info.round == round_number]
    games.sort(key=_order)
    return "\n\n".join(game_pgn(m, venue).strip() for m in games) + ("\n" if games else "")


def _order(match: MatchState) -> tuple[Any, ...]:
    return (match.info.team_match or "", match.info.board or 0, match.info.table, match.info.id)
