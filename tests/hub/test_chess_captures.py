"""The real DGT captures (arnsholt/dgtdriver) through the DGT reader and the chess rules: exactly their moves,
the clock increments recognised, and no anomaly beyond what really happened."""

from __future__ import annotations

import io

import chess.pgn
import pytest

from hub.rules import chess as rc
from hub.rules.chess import pgn
from tests.hub.chess_support import DGT, capture, capture_reports_untimed, fold


def capture_1_moves() -> list[str]:
    moves = []
    for line in (DGT / "1.uci").read_text().splitlines():
        moves.extend(m for m in line.split(".", 1)[1].split() if m != "*")
    return moves


def johan_moves() -> list[str]:
    with open(DGT / "johan.pgn", encoding="utf-8") as f:
        game = chess.pgn.read_game(f)
    assert game is not None
    return [m.uci() for m in game.mainline_moves()]


@pytest.mark.parametrize("control", ["180+2", None])
def test_capture_1_gives_its_moves_with_the_increment_and_no_anomaly(control: str | None) -> None:
    state, facts, anomalies = fold(capture("1"), rc.ChessConfig.from_text(control))
    assert [m.uci for m in state.moves] == capture_1_moves()
    assert anomalies == []
    assert rc.to_dict(state)["time_control"] == "180+2"  # given, or learned from 3:02 and the first +2 s
    assert [f.data["text"] for f in facts if f.kind == "time_control"] == ([] if control else ["180+2"])
    # every move was completed by a press, and every press added the 2 s (2:59 -> 3:01 at the first)
    assert all(m.clock_ms is not None for m in state.moves)
    assert state.moves[0].clock_ms == 181000 and state.moves[1].clock_ms == 183000
    assert rc.to_dict(state)["clock"]["white_side"] == "left"
    assert state.result is None  # the capture ends with the clock stopped, no result


@pytest.mark.parametrize("control", ["300+5", None])
def test_johan_gives_its_moves_and_ends_on_blacks_flag(control: str | None) -> None:
    state, facts, anomalies = fold(capture("johan"), rc.ChessConfig.from_text(control))
    assert [m.uci for m in state.moves] == johan_moves()
    assert rc.to_dict(state)["time_control"] == "300+5"  # the clock starts at 5:05
    # The one anomaly is true: Black's flag fell after 22.Qxc6 (the PGN gives 1-0); the players then put both
    # kings on light centre squares, the DGT signal for 1-0, which agrees.
    assert [a.code for a in anomalies] == ["chess.flag_fall"]
    assert anomalies[0].data["colour"] == "black" and anomalies[0].data["result"] == "1-0"
    assert rc.result(state) == "1-0" and rc.winner(state) == 0
    (signal,) = [f for f in facts if f.kind == "result_signal"]
    assert signal.data["result"] == "1-0" and sorted(signal.data["kings"]) == ["d5", "e4"]
    assert state.moves[0].clock_ms == 309000  # 5:04 + 5 s at White's first press


@pytest.mark.parametrize("step", [0.05, 0.1, 0.25])
@pytest.mark.parametrize("name", ["1", "johan"])
def test_captures_timed_by_a_fixed_step_per_report_give_the_same_moves(name: str, step: float) -> None:
    reports = capture_reports_untimed(name)
    state, _, anomalies = fold([(i * step, r) for i, r in enumerate(reports)])
    assert [m.uci for m in state.moves] == (capture_1_moves() if name == "1" else johan_moves())
    assert [a.code for a in anomalies] == ([] if name == "1" else ["chess.flag_fall"])


@pytest.mark.parametrize("speed", [10, 60])
@pytest.mark.parametrize("name", ["1", "johan"])
def test_captures_replayed_faster_give_the_same_moves(name: str, speed: int) -> None:
    # Simulators run games many times faster than real hands; boards then never settle between moves and
    # every move is decided by its press.
    state, _, anomalies = fold([(t / speed, r) for t, r in capture(name)])
    assert [m.uci for m in state.moves] == (capture_1_moves() if name == "1" else johan_moves())
    assert [a.code for a in anomalies] == ([] if name == "1" else ["chess.flag_fall"])


def test_the_pgn_of_a_capture_has_the_clock_after_each_move() -> None:
    state, _, _ = fold(capture("johan"), rc.ChessConfig.from_text("300+5"))
    text = pgn(state, {"Event": "Johan", "White": "W", "Black": "B"})
    assert '[TimeControl "300+5"]' in text and '[Result "1-0"]' in text
    assert text.split("\n\n")[1].startswith("1. e4 {[%clk 0:05:09]} 1... e5 {[%clk 0:05:09]}")
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    assert [m.uci() for m in game.mainline_moves()] == johan_moves()
    assert game.next() is not None and game.next().clock() == 309.0  # type: ignore[union-attr]
