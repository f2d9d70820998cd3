"""Table-tennis match exports: the compact game notation and a JSON match card with every point."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hub.rules.tabletennis.model import TableTennisState, match_result


def compact(state: TableTennisState) -> str:
    """Each finished game as the loser's points, negative when side B won: 11-7, 4-11, 11-8 → "7/-4/8"."""
    _, scores = match_result(state)
    return "/".join(str(b) if a > b else f"-{a}" for a, b in scores)


def match_card(state: TableTennisState, players: Sequence[str] = ()) -> dict[str, Any]:
    """The match as a card: format, result, each game with every point, its server and the score it made.

    `players` are the names, two in singles (A, B), four in doubles (A1, A2, B1, B2); missing names are
    left out of the card.
    """
    won, scores = match_result(state)
    doubles = state.config.doubles
    keys = ("A1", "A2", "B1", "B2") if doubles else ("A", "B")
    names = {k: n for k, n in zip(keys, players, strict=False) if n}
    games = []
    for number in range(1, max(len(scores), state.game_number) + 1):
        points = [p for p in state.points_log if p.game == number]
        if number <= len(scores):
            score = scores[number - 1]
        elif number == state.game_number and state.winner is None:
            score = state.points
        else:
            continue
        finished = number <= len(scores)
        games.append(
            {
                "game": number,
                "score": list(score),
                "winner": (0 if score[0] > score[1] else 1) if finished else None,
                "points": [
                    {
                        "score": list(p.points),
                        "side": p.side,
                        "server": p.server,
                        **({"server_player": p.server_player} if doubles else {}),
                        **({"penalty": True} if p.penalty else {}),
                        "at": p.at,
                    }
                    for p in points
                ],
            }
        )
    return {
        "format": {
            "best_of": state.best_of,
            "doubles": doubles,
            "ruleset": state.config.ruleset,
        },
        "players": names,
        "first_server": None if state.toss is None else state.toss[0],
        "first_receiver": None if state.toss is None else state.toss[1],
        "result": {
            "games": list(won),
            "scores": [list(g) for g in scores],
            "compact": compact(state),
            "winner": state.winner,
        },
        "games": games,
        "expedite_since": (
            None
            if state.expedite_since is None
            else {"game": state.expedite_since[0], "points": list(state.expedite_since[1])}
        ),
        "timeouts": list(state.timeouts),
        "cards": [list(c) for c in state.cards],
        "penalty_points": list(state.penalty_points),
    }
