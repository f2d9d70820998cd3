"""Table-tennis score and games as a pure reducer over scoreboard display states (ITTF 2.11, 2.12).

This is the walking-skeleton subset: points, games to 11 with 2 clear, best of N, and the winner. The
scoreboard reports what it displays, not rallies, so each report is compared with the last: one point more
for one side is a rally; anything else is kept as reported and flagged. Server order, ends, expedite,
time-outs and cards come with the full rules engine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from devices.observations import ScoreboardState
from hub.rules.base import Anomaly, Fact, Outcome, Severity

GAME_POINTS = 11


@dataclass(frozen=True, slots=True)
class TableTennisState:
    """A table-tennis match as the rules see it."""

    best_of: int = 5
    points: tuple[int, int] = (0, 0)
    games: tuple[int, int] = (0, 0)
    game_scores: tuple[tuple[int, int], ...] = ()
    server: int | None = None
    winner: int | None = None
    rallies: int = 0

    @property
    def games_to_win(self) -> int:
        """Games a side needs to take the match."""
        return self.best_of // 2 + 1

    @property
    def game_number(self) -> int:
        """The game in play, counted from 1."""
        return sum(self.games) + 1


def initial(best_of: int = 5) -> TableTennisState:
    """A match that has not started."""
    if best_of < 1 or best_of % 2 == 0:
        raise ValueError(f"best_of must be an odd number of games, got {best_of}")
    return TableTennisState(best_of=best_of)


def game_over(points: tuple[int, int]) -> bool:
    """ITTF 2.11.1: a game is won at 11, or by 2 clear after 10-10."""
    a, b = points
    return max(a, b) >= GAME_POINTS and abs(a - b) >= 2


def apply(state: TableTennisState, report: ScoreboardState, at: float) -> Outcome[TableTennisState]:
    """Fold one scoreboard display into the match; never raises on a rule violation, reports it."""
    new_points = tuple(report.points)
    new_games = tuple(report.games)
    facts: list[Fact] = []
    anomalies: list[Anomaly] = []
    game_scores = state.game_scores

    if new_games == state.games:
        delta = (new_points[0] - state.points[0], new_points[1] - state.points[1])
        if delta in ((1, 0), (0, 1)):
            if game_over(state.points):
                anomalies.append(_score_after_game_over(state, new_points))
            side = 0 if delta[0] else 1
            facts.append(Fact("point", {"side": side, "points": list(new_points), "game": state.game_number}))
        elif delta != (0, 0):
            anomalies.append(_score_jump(state.points, new_points, state.game_number))
    elif _is_next_game(state, new_games):
        side = 0 if new_games[0] > state.games[0] else 1
        final = state.points
        if not (game_over(final) and final[side] > final[1 - side]):
            anomalies.append(_game_end_unexplained(state, side))
        game_scores = (*game_scores, final)
        facts.append(Fact("game", {"side": side, "score": list(final), "game": state.game_number}))
        if new_points != (0, 0):
            anomalies.append(_score_jump((0, 0), new_points, state.game_number + 1))
    else:
        anomalies.append(
            Anomaly(
                "tt.games_jump",
                Severity.ERROR,
                f"Games went from {_fmt(state.games)} to {_fmt(new_games)} in one report.",
                f"Oyun skoru tek raporda {_fmt(state.games)} iken {_fmt(new_games)} oldu.",
                {"from": list(state.games), "to": list(new_games)},
            )
        )
        if report.game_scores and len(report.game_scores) == sum(new_games):
            game_scores = tuple(tuple(g) for g in report.game_scores)  # type: ignore[misc]

    winner = _match_winner(state, new_points, new_games)
    if winner is not None and state.winner is None:
        facts.append(Fact("match", {"side": winner, "games": list(_final_games(new_points, new_games))}))
    new_state = replace(
        state,
        points=new_points,  # type: ignore[arg-type]
        games=new_games,  # type: ignore[arg-type]
        game_scores=game_scores,
        server=report.server,
        winner=winner if winner is not None else state.winner,
        rallies=state.rallies + sum(1 for f in facts if f.kind == "point"),
    )
    return Outcome(new_state, tuple(facts), tuple(anomalies))


def _is_next_game(state: TableTennisState, games: tuple[int, ...]) -> bool:
    return (games[0] - state.games[0], games[1] - state.games[1]) in ((1, 0), (0, 1))


def _final_games(points: tuple[int, ...], games: tuple[int, ...]) -> tuple[int, int]:
    """Games including a game the display shows as won but has not yet rolled into the games count."""
    a, b = games
    if game_over(points):  # type: ignore[arg-type]
        if points[0] > points[1]:
            a += 1
        else:
            b += 1
    return a, b


def _match_winner(state: TableTennisState, points: tuple[int, ...], games: tuple[int, ...]) -> int | None:
    a, b = _final_games(points, games)
    if a >= state.games_to_win:
        return 0
    if b >= state.games_to_win:
        return 1
    return None


def _fmt(pair: tuple[int, ...]) -> str:
    return f"{pair[0]}-{pair[1]}"


def _score_jump(old: tuple[int, ...], new: tuple[int, ...], game: int) -> Anomaly:
    return Anomaly(
        "tt.score_jump",
        Severity.WARNING,
        f"Game {game}: score went from {_fmt(old)} to {_fmt(new)}, not one rally.",
        f"{game}. oyun: skor {_fmt(old)} iken {_fmt(new)} oldu; bu tek bir sayı değil.",
        {"from": list(old), "to": list(new), "game": game},
    )


def _score_after_game_over(state: TableTennisState, new: tuple[int, ...]) -> Anomaly:
    return Anomaly(
        "tt.point_after_game_over",
        Severity.WARNING,
        f"Game {state.game_number} was already won at {_fmt(state.points)}; the board now shows {_fmt(new)}.",
        f"{state.game_number}. oyun {_fmt(state.points)} ile bitmişti; skor tabelası şimdi {_fmt(new)} gösteriyor.",
        {"from": list(state.points), "to": list(new), "game": state.game_number},
    )


def _game_end_unexplained(state: TableTennisState, side: int) -> Anomaly:
    return Anomaly(
        "tt.game_end_unexplained",
        Severity.WARNING,
        f"Game {state.game_number} was given to side {side + 1} at {_fmt(state.points)}, which does not win a game.",
        f"{state.game_number}. oyun {_fmt(state.points)} skorunda {side + 1}. tarafa verildi; bu skor oyunu bitirmez.",
        {"score": list(state.points), "side": side, "game": state.game_number},
    )


def to_dict(state: TableTennisState) -> dict[str, Any]:
    """The state as plain data, for snapshots and spectators."""
    return {
        "best_of": state.best_of,
        "points": list(state.points),
        "games": list(state.games),
        "game_scores": [list(g) for g in state.game_scores],
        "server": state.server,
        "winner": state.winner,
        "rallies": state.rallies,
        "game": state.game_number,
    }


def from_dict(data: dict[str, Any]) -> TableTennisState:
    """The inverse of `to_dict`."""
    return TableTennisState(
        best_of=data["best_of"],
        points=tuple(data["points"]),  # type: ignore[arg-type]
        games=tuple(data["games"]),  # type: ignore[arg-type]
        game_scores=tuple(tuple(g) for g in data["game_scores"]),  # type: ignore[misc]
        server=data["server"],
        winner=data["winner"],
        rallies=data["rallies"],
    )
