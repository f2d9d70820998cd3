"""`boardcast check tabletennis FILE`: audit a recorded match offline with the hub's own rules engine.

Input, JSON lines: the first line is `{"match": {...}}`, then scoreboard reports
`{"at": 12.5, "score": [3, 2], "games": [1, 0], "server": "A", "ends": "normal", "expedite": false}` and
events `{"at": 20.0, "event": "timeout"|"card"|"expedite"|"correction"|"point"|"undo", "side": "A", ...}`.
Output, JSON lines: facts, anomalies, and a last `{"type": "result", ...}` line. Exit 0 whatever the match
holds; 2 for input that cannot be read, with a message naming the line (what was printed before stays).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TextIO

from hub.check.common import check_lines, fail
from hub.rules import tabletennis as tt
from hub.rules.base import Outcome

_SIDE_KEYS = ("side", "server", "receiver", "winner", "first_server", "closing_side")


def check(lines: Iterable[str], name: str, out: TextIO, err: TextIO) -> int:
    """Fold table-tennis JSON lines through the rules; print facts, anomalies and the result; the exit code."""
    return check_lines(
        lines,
        out,
        err,
        start=lambda data, number: tt.initial(read_match(data, number)),
        step=_step,
        result=_result,
        no_match=f'{name}: no match line; the first line must be {{"match": {{...}}}}',
        complaint="boardcast check: {}",
        view=_letters,
    )


def _step(
    state: tt.TableTennisState, data: dict[str, Any], number: int
) -> tuple[float, Outcome[tt.TableTennisState]]:
    at, item = read_line(data, number, state.config)
    return at, tt.apply(state, item, at)


def _result(state: tt.TableTennisState) -> dict[str, Any]:
    won, scores = tt.match_result(state)
    winner = None if state.winner is None else "AB"[state.winner]
    return {"type": "result", "games": list(won), "scores": [list(g) for g in scores], "winner": winner}


def _letters(data: dict[str, Any]) -> dict[str, Any]:
    """Sides as the check format writes them: "A" and "B"."""
    return {
        k: ("AB"[v] if k in _SIDE_KEYS and v in (0, 1) and not isinstance(v, bool) else v)
        for k, v in data.items()
    }


def read_match(data: dict[str, Any], number: int = 1) -> tt.TableTennisConfig:
    """The match line: `{"match": {"best_of": 5, "doubles": false, "first_server": "A", "ruleset": "ittf"}}`."""
    match = data.get("match")
    if not isinstance(match, dict):
        raise fail(number, '"match"', 'is missing; the first line must be {"match": {...}}')
    best_of = match.get("best_of", 5)
    if not isinstance(best_of, int) or isinstance(best_of, bool) or best_of < 1 or best_of % 2 == 0:
        raise fail(number, "match.best_of", f"must be an odd number of games, got {best_of!r}")
    doubles = match.get("doubles", False)
    if not isinstance(doubles, bool):
        raise fail(number, "match.doubles", f"must be true or false, got {doubles!r}")
    ruleset = match.get("ruleset", "ittf")
    if ruleset not in tt.RULESETS:
        raise fail(number, "match.ruleset", f"must be one of {', '.join(tt.RULESETS)}, got {ruleset!r}")
    players = ("A1", "A2", "B1", "B2") if doubles else ("A", "B")
    first_server = match.get("first_server")
    if first_server is not None and first_server not in (*players, "A", "B"):
        raise fail(number, "match.first_server", f"must be one of {', '.join(players)}, got {first_server!r}")
    first_receiver = match.get("first_receiver")
    if first_receiver is not None and (not doubles or first_receiver not in players):
        raise fail(
            number, "match.first_receiver", f"must be a player of the other pair, got {first_receiver!r}"
        )
    if first_receiver is not None and first_server is not None and first_receiver[0] == first_server[0]:
        raise fail(number, "match.first_receiver", "must be a player of the other pair")
    return tt.TableTennisConfig.from_names(best_of, doubles, first_server, first_receiver, ruleset)


def _number(data: dict[str, Any], key: str, number: int) -> float:
    value = data.get(key)
    if value is None:
        raise fail(number, f'"{key}"', "is missing")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(number, f'"{key}"', f"must be a number, got {value!r}")
    return float(value)


def _pair(data: dict[str, Any], key: str, number: int) -> tuple[int, int]:
    value = data.get(key)
    if value is None:
        raise fail(number, f'"{key}"', "is missing")
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        raise fail(number, f'"{key}"', f"must be two non-negative integers, got {value!r}")
    return value[0], value[1]


def _side(data: dict[str, Any], number: int, key: str = "side") -> int:
    value = data.get(key)
    if value is None:
        raise fail(number, f'"{key}"', "is missing")
    if value not in ("A", "B"):
        raise fail(number, f'"{key}"', f'must be "A" or "B", got {value!r}')
    return 0 if value == "A" else 1


def _server(data: dict[str, Any], number: int, doubles: bool) -> tuple[int | None, str | None]:
    value = data.get("server")
    if value is None:
        return None, None
    if value in ("A", "B"):
        return (0 if value == "A" else 1), None
    if doubles and value in tt.DOUBLES_PLAYERS:
        return (0 if value[0] == "A" else 1), value
    allowed = '"A", "B" or a player "A1".."B2"' if doubles else '"A" or "B"'
    raise fail(number, '"server"', f"must be {allowed}, got {value!r}")


def _ends(data: dict[str, Any], number: int) -> str | None:
    value = data.get("ends")
    if value is not None and value not in tt.ENDS:
        raise fail(number, '"ends"', f'must be "normal" or "swapped", got {value!r}')
    return value


def read_line(data: dict[str, Any], number: int, config: tt.TableTennisConfig) -> tuple[float, tt.Input]:
    """One report or event line as (at, engine input)."""
    at = _number(data, "at", number)
    event = data.get("event")
    if event is None:
        score = _pair(data, "score", number)
        games = _pair(data, "games", number)
        side, player = _server(data, number, config.doubles)
        expedite = data.get("expedite")
        if expedite is not None and not isinstance(expedite, bool):
            raise fail(number, '"expedite"', f"must be true or false, got {expedite!r}")
        scores = data.get("game_scores", [])
        if not isinstance(scores, list):
            raise fail(number, '"game_scores"', "must be a list of [a, b] pairs")
        game_scores = tuple(_pair({"game_scores": g}, "game_scores", number) for g in scores)
        return at, tt.Display(score, games, side, game_scores, _ends(data, number), expedite, player)
    if event == "timeout":
        return at, tt.TimeOut(_side(data, number))
    if event == "card":
        card = data.get("card")
        if card not in tt.CARDS:
            raise fail(number, '"card"', f"must be one of {', '.join(tt.CARDS)}, got {card!r}")
        player = data.get("player")
        if player is not None and player not in tt.DOUBLES_PLAYERS:
            raise fail(number, '"player"', f"must be A1, A2, B1 or B2, got {player!r}")
        return at, tt.Card(_side(data, number), card, player)
    if event == "expedite":
        ball = data.get("ball_in_play")
        if ball is not None and not isinstance(ball, bool):
            raise fail(number, '"ball_in_play"', f"must be true, false or null, got {ball!r}")
        return at, tt.ExpediteStart(ball)
    if event == "correction":
        score = _pair(data, "score", number)
        games = _pair(data, "games", number)
        side, player = _server(data, number, config.doubles)
        reason = data.get("reason", "")
        if not isinstance(reason, str):
            raise fail(number, '"reason"', "must be text")
        return at, tt.Correction(score, games, reason, player or side, _ends(data, number))
    if event == "point":
        return at, tt.UmpirePoint(_side(data, number))
    if event == "undo":
        return at, tt.UmpireUndo(_side(data, number))
    raise fail(
        number, '"event"', f"must be timeout, card, expedite, correction, point or undo, got {event!r}"
    )
