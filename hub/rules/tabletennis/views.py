"""What screens get of a table-tennis match: the spectators' view and a venue wall's tile."""

from __future__ import annotations

from typing import Any

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


def _point_view(p: PointRecord) -> dict[str, Any]:
    return {
        "game": p.game,
        "points": list(p.points),
        "side": p.side,
        "server": p.server,
        "server_player": p.server_player,
        "at": p.at,
        **({"penalty": True} if p.penalty else {}),
    }


# The rally log as `view` shows it, per match: the log last shown and its points' dicts. A match's log grows
# a point at a time, and its page gets the whole view at every change (and a snapshot the whole state), so
# each point's dict is built once, not once per view: ~90 dicts per view late in a match. Keyed by the log's
# first point (kept alive by the entry, so its id stays its own); a hall's live matches fit, the oldest
# entry goes first. Only ever a shortcut: an entry is used where its log equals the start of the one shown.
_POINTS_LOGS_KEPT = 256


_points_logs: dict[int, tuple[tuple[PointRecord, ...], list[dict[str, Any]]]] = {}


def _points_log_view(log: tuple[PointRecord, ...]) -> list[dict[str, Any]]:
    """The rally log as a new list of dicts (shared with earlier views of the match: never changed)."""
    if not log:
        return []
    key = id(log[0])
    kept = _points_logs.pop(key, None)
    if kept is not None and len(kept[0]) <= len(log) and log[: len(kept[0])] == kept[0]:
        dicts = kept[1] + [_point_view(p) for p in log[len(kept[0]) :]]
    else:
        dicts = [_point_view(p) for p in log]
    _points_logs[key] = (log, dicts)
    if len(_points_logs) > _POINTS_LOGS_KEPT:
        del _points_logs[next(iter(_points_logs))]
    return dicts.copy()


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
