"""Team matches: the boards of one team pairing, its live score and match points (the team
competition regulations, articles 4 and 5).

A team match is a view over the games that name it and the boards it lost or won by forfeit before play.
Board points are 1, ½ and 0 (`hub.tournament.model.GAME_OUTCOMES`); a team's score is the sum of its board
points; match points are 2 for a team match won (more than half the board points), 1 drawn,
0 lost, and count only once every board has a result. The first-named team has White on the odd boards
(the venue lists every game's players White first).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hub.matches import MatchState, MatchStatus
from hub.rules.registry import PAIRED_SPORT, SPORTS
from hub.tournament.model import GAME_OUTCOMES
from hub.tournament.results import match_points as match_points_of
from hub.venue import CHESS_BOARD_CATEGORIES, TeamMatchConfig

_FORFEIT_SHOWN = {"1-0F": "1-0", "0-1F": "0-1", "0-0F": "0-0"}  # a forfeit as its board's result


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


def _board_row(board: int, players: tuple[str, ...], result: str | None, **rest: Any) -> dict[str, Any]:
    """One board of a team match as spectators see it (`rest`: its match id, status, official, forfeit, and
    the players' titles, ratings and the game's clock where known)."""
    category = CHESS_BOARD_CATEGORIES.get(board, ("", ""))
    return {
        "board": board,
        "category_en": category[0],
        "category_tr": category[1],
        "white": players[0],
        "black": players[1],
        "home_is_white": home_is_white(board),
        "result": result,
        **rest,
    }


def _game_extras(game: MatchState, result: str | None) -> dict[str, Any]:
    """A game's players' titles and ratings (None: not known; a rating 0 is unrated) and its clock by colour,
    running only while the game is live without a result (the team page counts it down as the game page)."""
    info = game.info
    titles = info.titles or ("", "")
    ratings = info.ratings or (0, 0)
    clock = SPORTS[info.sport].clock_view(game.sport_state)
    running = clock["running"] if clock and game.status is MatchStatus.LIVE and result is None else None
    return {
        "white_title": titles[0] or None,
        "black_title": titles[1] or None,
        "white_rating": ratings[0] or None,
        "black_rating": ratings[1] or None,
        "clock": None
        if clock is None
        else {
            "white_ms": clock["white_ms"],
            "black_ms": clock["black_ms"],
            "running": running,
            "as_of": clock["as_of"],
        },
    }


def team_match_view(config: TeamMatchConfig, games: list[MatchState]) -> dict[str, Any]:
    """The team match as spectators see it: every board with its players and result, the score, match points."""
    scored: list[tuple[dict[str, Any], str | None]] = []  # each board with its result as the rules score it
    for game in games:
        played = game_result(game)
        row = _board_row(
            game.info.board or 0,
            game.info.players,
            played,
            match_id=game.info.id,
            status=game.status.value,
            official=game.status is MatchStatus.OFFICIAL,
            **_game_extras(game, played),
        )
        scored.append((row, played))
    scored += [  # decided before play: no game, no table; the point counts all the same
        (
            _board_row(
                f.board, f.players, _FORFEIT_SHOWN[f.result], match_id=None, status="forfeit", official=True
            ),
            f.result,
        )
        for f in config.forfeits
    ]
    scored.sort(key=lambda pair: pair[0]["board"])
    boards = [row for row, _ in scored]
    score = [Fraction(0), Fraction(0)]
    decided = 0
    for row, result in scored:
        if result is None:
            continue
        white, black = (outcome.points for outcome in GAME_OUTCOMES[result])
        home, away = (white, black) if row["home_is_white"] else (black, white)
        score[0] += home
        score[1] += away
        decided += 1
    complete = bool(boards) and decided == len(boards)
    match_points: list[int] | None = None
    if complete:
        match_points = [int(match_points_of(score[0], score[1])), int(match_points_of(score[1], score[0]))]
    return {
        "kind": "team_match",
        "id": config.id,
        "sport": PAIRED_SPORT,  # its games' sport
        "round": config.round,
        "teams": list(config.teams),
        "boards": boards,
        "score": [_number(score[0]), _number(score[1])],
        "decided": decided,
        "complete": complete,
        "match_points": match_points,
        "official": complete and all(b["official"] for b in boards),
    }
