"""What screens get of a table-tennis match: the spectators' view and a venue wall's tile."""

from __future__ import annotations

from typing import Any

from hub.growing import ItemViews
from hub.rules.tabletennis.model import PointRecord, TableTennisState, _side, game_over
from hub.rules.tabletennis.service import service
from hub.rules.tabletennis.steps import following_game


def view(state: TableTennisState) -> dict[str, Any]:
    """What spectators' screens and the API get: the score, the game history, indicators, the rally log; not
    the bookkeeping the rules keep to resume (sent with every change to a match's page, it was a third of
    the view)."""
    pair = service(state)
    doubles = state.config.doubles
    return {
        **_tile(state, pair),
        "ruleset": state.config.ruleset,
        "server_player": pair[0] if pair and doubles else None,
        "receiver_player": pair[1] if pair and doubles else None,
        "ends": state.ends,
        "expedite_since": (
            None
            if state.expedite_since is None
            else {"game": state.expedite_since[0], "points": list(state.expedite_since[1])}
        ),
        "rallies": state.rallies,
        "points_log": _points_log_view(state.points_log),
        "next_game": _next_game(state),
    }


def _next_game(state: TableTennisState) -> dict[str, Any] | None:
    """Once a game is won and the match goes on, the game to come as the rules will open it with its first
    point (an umpire's point closes the game it follows): its number, the games won, the ends, the server and
    receiver. None while a game is being played or once the match is over."""
    points, ruleset = state.points, state.config.ruleset
    if state.winner is not None or not game_over(points, ruleset):
        return None
    games = list(state.games)
    games[0 if points[0] > points[1] else 1] += 1
    if max(games) >= state.games_to_win:
        return None  # the match's last game: nothing follows
    upcoming = following_game(state, (games[0], games[1]))
    pair = service(upcoming)
    doubles = state.config.doubles
    return {
        "game": upcoming.game_number,
        "games": games,
        "won": list(points),
        "ends": upcoming.ends,
        "server": _side(pair[0]) if pair else None,
        "receiver": _side(pair[1]) if pair else None,
        "server_player": pair[0] if pair and doubles else None,
        "receiver_player": pair[1] if pair and doubles else None,
    }


def _point_view(p: PointRecord, _: object = None) -> dict[str, Any]:
    return {
        "game": p.game,
        "points": list(p.points),
        "side": p.side,
        "server": p.server,
        "server_player": p.server_player,
        "at": p.at,
        **({"penalty": True} if p.penalty else {}),
    }


# each point's dict is built once per match, not once per view (`ItemViews`)
_points_log_view: ItemViews[PointRecord, dict[str, Any]] = ItemViews(_point_view)


# what a venue wall tile shows (web-display/wall.js, console.js): the score, not its history
TILE_KEYS = (
    "best_of",
    "doubles",
    "points",
    "games",
    "game",
    "game_scores",
    "server",
    "receiver",
    "expedite",
    "timeouts",
    "timeout_active",
    "cards",
    "penalty_points",
    "winner",
)


def tile(state: TableTennisState) -> dict[str, Any]:
    """`to_dict` cut to `TILE_KEYS`, built without the rest (the rally log grows with every point, and the
    wall takes a tile of every match on every change)."""
    return _tile(state, service(state))


def _tile(state: TableTennisState, pair: tuple[str, str] | None) -> dict[str, Any]:
    return {
        "best_of": state.best_of,
        "doubles": state.config.doubles,
        "points": list(state.points),
        "games": list(state.games),
        "game": state.game_number,
        "game_scores": [list(g) for g in state.game_scores],
        "server": _side(pair[0]) if pair else None,
        "receiver": _side(pair[1]) if pair else None,
        "expedite": state.expedite,
        "timeouts": list(state.timeouts),
        "timeout_active": state.timeout_active,
        "cards": [list(c) for c in state.cards],
        "penalty_points": list(state.penalty_points),
        "winner": state.winner,
    }
