"""Chess team matches: the boards of one team pairing, its live score and match points (seed 002 §4, §5).

A team match is a view over the games that name it. Board points are 1, ½ and 0; a team's score is the sum
of its board points; match points are 2 for a team match won (more than half the board points), 1 drawn,
0 lost, and count only once every board has a result. The first-named team has White on the odd boards
(the venue lists every game's players White first).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hub.matches import MatchState, MatchStatus
from hub.venue import CHESS_BOARD_CATEGORIES, TeamMatchConfig

_POINTS = {"1-0": (Fraction(1), Fraction(0)), "0-1": (Fraction(0), Fraction(1))}
_HALF = (Fraction(1, 2), Fraction(1, 2))


def game_result(match: MatchState) -> str | None:
    """The result of a game ("1-0", "0-1", "1/2-1/2"), or None while it is played: a referee's written result
    (a correction, a forfeit, an appeal's decision) over what the board and clock show."""
    written = match.result
    if written is not None:
        if written.winner is not None:
            return "1-0" if written.winner == 0 else "0-1"
        return "1/2-1/2" if written.score[0] == written.score[1] != 0 else None  # no winner, no points: none
    result = match.info.rules.result(match.sport_state)
    if result is not None:
        return result
    winner = match.winner
    return None if winner is None else ("1-0" if winner == 0 else "0-1")


def _number(value: Fraction) -> float | int:
    return int(value) if value.denominator == 1 else float(value)


def home_is_white(board: int) -> bool:
    """Whether the first-named team plays White on this board (odd boards)."""
    return board % 2 == 1


def team_match_view(config: TeamMatchConfig, games: list[MatchState]) -> dict[str, Any]:
    """The team match as spectators see it: every board with its players and result, the score, match points."""
    score = [Fraction(0), Fraction(0)]
    boards = []
    decided = 0
    for game in sorted(games, key=lambda g: g.info.board or 0):
        board = game.info.board or 0
        home_white = home_is_white(board)
        result = game_result(game)
        if result is not None:
            white, black = _POINTS.get(result, _HALF)
            home, away = (white, black) if home_white else (black, white)
            score[0] += home
            score[1] += away
            decided += 1
        category = CHESS_BOARD_CATEGORIES.get(board, ("", ""))
        boards.append(
            {
                "board": board,
                "category_en": category[0],
                "category_tr": category[1],
                "match_id": game.info.id,
                "white": game.info.players[0],
                "black": game.info.players[1],
                "home_is_white": home_white,
                "result": result,
                "status": game.status.value,
                "official": game.status is MatchStatus.OFFICIAL,
            }
        )
    complete = bool(games) and decided == len(games)
    match_points: list[int] | None = None
    if complete:
        match_points = [2, 0] if score[0] > score[1] else [0, 2] if score[1] > score[0] else [1, 1]
    return {
        "kind": "team_match",
        "id": config.id,
        "round": config.round,
        "teams": list(config.teams),
        "boards": boards,
        "score": [_number(score[0]), _number(score[1])],
        "decided": decided,
        "complete": complete,
        "match_points": match_points,
        "official": complete and all(b["official"] for b in boards),
    }
