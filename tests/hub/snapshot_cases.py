"""One match per sport, folded from fixed inputs: the states whose snapshots, as the hub wrote them before
snapshots carried a version, are kept in tests/fixtures/snapshots/ (`python -m tests.hub.snapshot_cases`
wrote them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from devices.observations import BackgammonBoardEvent
from hub.matches import EventKind, MatchInfo, MatchState, apply_event, new_match, to_snapshot
from hub.rules.registry import SPORTS

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "snapshots"
Inputs = list[tuple[str, dict[str, Any]]]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


def _device(report: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return EventKind.DEVICE_REPORT, {"report": report}


def _referee(item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return EventKind.REFEREE_INPUT, {"input": item}


def _bg(kind: str, **data: Any) -> tuple[str, dict[str, Any]]:
    return _device(SPORTS["backgammon"].input_to_dict(BackgammonBoardEvent(kind, data)))


def _clock(white_ms: int, black_ms: int, running: int | None) -> tuple[str, dict[str, Any]]:
    return _device(
        {
            "type": "clock",
            "remaining_ms": [white_ms, black_ms],
            "flags": [False, False],
            "period_flags": [False, False],
            "resolution_ms": 100,
            "running": running,
        }
    )


def _display(points: list[int], games: list[int], server: int, scores: list[list[int]]) -> tuple[str, dict]:
    return _device(
        {"type": "display", "points": points, "games": games, "server": server, "game_scores": scores}
    )


CASES: dict[str, tuple[MatchInfo, Inputs]] = {
    "chess": (
        MatchInfo("C-1", "chess", "B1", 1, ("Ayşe", "Elif"), clock="180+2"),
        [
            _device({"type": "board", "board_fen": START}),
            _clock(180000, 180000, None),
            _device({"type": "board", "board_fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"}),
            _clock(178000, 180000, 1),
            _device({"type": "board", "board_fen": "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"}),
            _clock(178000, 176500, 0),
            _device({"type": "board", "board_fen": "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPPKPPP/RNBQ1BNR"}),
        ],
    ),
    "backgammon": (
        MatchInfo("BG-1", "backgammon", "T5", 1, ("Hakan", "Levent"), length=5, start_score=(3, 1)),
        [
            _bg("opening", dice=[3, 1]),
            _bg("accept", side=0),
            _bg("resign", side=1, value=2),
            _bg("reject", side=0),
            _bg("resign", side=1, value=1),
            _bg("accept", side=0),
            _bg("opening", dice=[6, 5]),
        ],
    ),
    "tabletennis": (
        MatchInfo("TT-1", "tabletennis", "T1", 1, ("Ayşe", "Elif"), best_of=3),
        [
            _display([0, 0], [0, 0], 0, []),
            _display([1, 0], [0, 0], 0, []),
            _display([2, 0], [0, 0], 1, []),
            _referee({"type": "timeout", "side": 1}),
            _display([2, 1], [0, 0], 1, []),
            _referee({"type": "card", "side": 0, "card": "yellow"}),
            _display([11, 1], [0, 0], 0, []),
            _display([0, 0], [1, 0], 1, [[11, 1]]),
            _display([0, 3], [1, 0], 0, [[11, 1]]),
        ],
    ),
}


def folded(sport: str) -> MatchState:
    """The match of `sport` after its inputs, one event per second."""
    info, inputs = CASES[sport]
    state = new_match(info)
    for offset, (kind, body) in enumerate(inputs, start=1):
        state = apply_event(state, kind, body, offset, 1000.0 + offset, None).state
    return state


def fixture(sport: str) -> dict[str, Any]:
    """The snapshot of `sport`'s match as the hub wrote it before snapshots were versioned."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{sport}.json").read_text())
    return data


if __name__ == "__main__":
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in CASES:
        text = json.dumps(to_snapshot(folded(name)), indent=1, ensure_ascii=False, sort_keys=True)
        (FIXTURES / f"{name}.json").write_text(text + "\n")
