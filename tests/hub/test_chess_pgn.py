"""PGN export: the Seven Tag Roster first, TimeControl, `{[%clk H:MM:SS]}` after each pressed move, the result,
and text python-chess reads back to the same moves and clock times."""

from __future__ import annotations

import io

import chess.pgn
import pytest

from hub.rules import chess as rc
from hub.rules.chess.export import clk, pgn
from tests.hub.chess_support import Table, read_games


def pressed_game() -> Table:
    table = Table(rc.ChessConfig.from_text("5400+30"))
    table.clock(5430, 5430, None)
    table.clock(5430, 5430, 0, dt=1.0)
    times = [(5382, 5430), (5382, 5401), (5350, 5401)]
    for ply, (uci, (left, right)) in enumerate(zip(["e2e4", "e7e5", "g1f3"], times, strict=True)):
        table.play(uci, think=0)
        table.clock(left, right, 1 - ply % 2, dt=0.4)
        table.tick(3.0)
    return table


@pytest.mark.parametrize(
    "ms, text", [(5382000, "1:29:42"), (0, "0:00:00"), (2500, "0:00:02.5"), (36005000, "10:00:05")]
)
def test_clock_comments_are_h_mm_ss(ms: int, text: str) -> None:
    assert clk(ms) == text


def test_the_seven_tag_roster_comes_first_then_the_time_control() -> None:
    text = pgn(pressed_game().state, {"White": "Aydın, Ece", "Black": "Kaya, Deniz", "Site": "Ankara"})
    tags = [line for line in text.splitlines() if line.startswith("[")]
    assert tags == [
        '[Event "?"]',
        '[Site "Ankara"]',
        '[Date "????.??.??"]',
        '[Round "?"]',
        '[White "Aydın, Ece"]',
        '[Black "Kaya, Deniz"]',
        '[Result "*"]',
        '[TimeControl "5400+30"]',
    ]


def test_each_pressed_move_carries_its_clock() -> None:
    text = pgn(pressed_game().state, {})
    movetext = text.split("\n\n")[1]
    assert movetext == "1. e4 {[%clk 1:29:42]} 1... e5 {[%clk 1:30:01]} 2. Nf3 {[%clk 1:29:10]} *\n"
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    assert [node.clock() for node in game.mainline()] == [5382.0, 5401.0, 5350.0]


def test_moves_without_a_press_have_no_clock_and_black_needs_no_ellipsis() -> None:
    table = Table()
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6"]:
        table.play(uci)
    assert pgn(table.state, {}).split("\n\n")[1] == "1. e4 e5 2. Nf3 Nc6 *\n"


def test_the_result_and_its_termination() -> None:
    table = Table()
    for uci in ["f2f3", "e7e5", "g2g4", "d8h4"]:
        table.play(uci)
    text = pgn(table.state, {})
    assert '[Result "0-1"]' in text and '[Termination "normal"]' in text and text.endswith("Qh4# 0-1\n")
    corrected = pgn(table.state, {"Result": "1/2-1/2"})  # the hub's result (a referee's) wins
    assert '[Result "1/2-1/2"]' in corrected and corrected.endswith("Qh4# 1/2-1/2\n")


def test_long_games_wrap_below_80_characters() -> None:
    moves = [m.uci() for m in read_games()[3].mainline_moves()]  # Deep Blue - Kasparov 1997 (4), 111 plies
    table = Table()
    for uci in moves:
        table.play(uci, think=1.5)
    text = pgn(table.state, {})
    assert all(len(line) < 80 for line in text.splitlines())
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and [m.uci() for m in game.mainline_moves()] == moves


def test_an_illegal_move_kept_by_the_arbiter_is_written_with_a_comment() -> None:
    table = Table()
    table.square("g1", None, dt=1.0)
    table.square("g3", "N", dt=0.2)
    table.tick(6.0)
    table.feed(rc.KeepIllegal(), 1.0)
    text = pgn(table.state, {})
    assert "1. Ng1-g3 {illegal move, kept by the arbiter} *" in text
