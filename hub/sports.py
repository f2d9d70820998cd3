"""The table of sports the hub knows: each sport's reducer, its state codec and the reports it accepts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from devices.observations import DeviceFamily, ScoreboardState
from hub.rules import tabletennis
from hub.rules.base import Outcome


@dataclass(frozen=True, slots=True)
class Sport:
    """How one sport plugs into the match model."""

    name: str
    families: frozenset[str]  # device families whose state reports feed this sport
    report_type: type
    initial: Callable[..., Any]
    apply: Callable[[Any, Any, float], Outcome[Any]]
    to_dict: Callable[[Any], dict[str, Any]]
    from_dict: Callable[[dict[str, Any]], Any]
    report_from_dict: Callable[[dict[str, Any]], Any]
    winner: Callable[[Any], int | None]
    is_fresh_start: Callable[[Any], bool]  # a report that can only open a new match (0-0, no games)


def _scoreboard_from_dict(data: dict[str, Any]) -> ScoreboardState:
    return ScoreboardState(
        points=tuple(data["points"]),  # type: ignore[arg-type]
        games=tuple(data["games"]),  # type: ignore[arg-type]
        server=data.get("server"),
        game_scores=tuple(tuple(g) for g in data.get("game_scores", ())),  # type: ignore[misc]
    )


TABLE_TENNIS = Sport(
    name="tabletennis",
    families=frozenset({DeviceFamily.TT_SCOREBOARD}),
    report_type=ScoreboardState,
    initial=tabletennis.initial,
    apply=tabletennis.apply,
    to_dict=tabletennis.to_dict,
    from_dict=tabletennis.from_dict,
    report_from_dict=_scoreboard_from_dict,
    winner=lambda state: state.winner,
    is_fresh_start=lambda report: tuple(report.points) == (0, 0) and tuple(report.games) == (0, 0),
)

SPORTS: dict[str, Sport] = {s.name: s for s in (TABLE_TENNIS,)}


def report_to_dict(report: Any) -> dict[str, Any]:
    """A device report as plain data for the log body."""
    if isinstance(report, ScoreboardState):
        return {
            "points": list(report.points),
            "games": list(report.games),
            "server": report.server,
            "game_scores": [list(g) for g in report.game_scores],
        }
    raise TypeError(f"no log encoding for {type(report).__name__}")
