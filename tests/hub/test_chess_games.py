"""34 real games (tests/fixtures/chess/games.pgn) played on a simulated e-board, square by square, the way
hands and board scans report them, and rebuilt exactly by the chess rules: with and without a clock, with the
opponent answering before the board settles, and with moves played, taken back and replaced."""

from __future__ import annotations

import random

import chess
import pytest

from boardcast_sim.chess_motion import MotionStyle
from devices.observations import ChessClockState
from hub.rules import chess as rc
from hub.rules import clock as clk
from tests.hub.chess_support import Table, read_games

GAMES = read_games()
IDS = [
    f"{i:02d}-{g.headers['White'][:12]}-{g.headers['Black'][:12]}".replace(" ", "_")
    for i, g in enumerate(GAMES)
]


def ucis(game: chess.pgn.Game) -> list[str]:
    return [m.uci() for m in game.mainline_moves()]


def _ends(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    try:
        return board.outcome() is not None
    finally:
        board.pop()


def test_the_games_hold_every_kind_of_move() -> None:
    kinds = {"O-O": 0, "O-O-O": 0, "e.p.": 0, "=Q": 0, "under": 0}
    for game in GAMES:
        board = game.board()
        for move in game.mainline_moves():
            if board.is_castling(move):
                kinds["O-O-O" if chess.square_file(move.to_square) == 2 else "O-O"] += 1
            kinds["e.p."] += board.is_en_passant(move)
            kinds["=Q"] += move.promotion == chess.QUEEN
            kinds["under"] += move.promotion in (chess.KNIGHT, chess.BISHOP, chess.ROOK)
            board.push(move)
    assert len(GAMES) >= 30
    assert all(count >= 2 for count in kinds.values()), kinds


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_real_game_played_by_hands_is_rebuilt_exactly(game: chess.pgn.Game, seed: int) -> None:
    rng = random.Random(seed)
    table = Table()
    for uci in ucis(game):
        table.play(uci, rng, style=MotionStyle.REALISTIC, think=rng.uniform(1.2, 6.0))
    assert table.moves == ucis(game)
    assert table.anomalies == [] and table.kinds("takeback") == []
    expected = game.end().board().outcome()
    assert rc.result(table.state) == (expected.result() if expected else None)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_real_game_with_a_clock_pressed_after_every_move(game: chess.pgn.Game) -> None:
    rng = random.Random(3)
    control = clk.TimeControl.fischer(900, 10)
    table = Table(rc.ChessConfig(control))
    model = clk.start_side(clk.start(control), 0, at=0.0)

    def reading(running: int | None) -> ChessClockState:
        shown = [
            int(clk.remaining(model, side, table.t)) * 1000 for side in (0, 1)
        ]  # whole seconds, as a DGT
        return ChessClockState((shown[0], shown[1]), running)

    table.feed(reading(0))
    for ply, uci in enumerate(ucis(game)):
        table.play(uci, rng, style=MotionStyle.REALISTIC, think=0)
        table.t += rng.uniform(0.05, 0.6)
        model = clk.press(model, ply % 2, table.t)
        table.feed(reading(1 - ply % 2))
        table.tick(rng.uniform(1.0, 8.0))
    assert table.moves == ucis(game)
    assert table.anomalies == []
    # every move was completed by its press, except a mate: it ends the game before the press (FIDE 6.2)
    ended = table.state.result is not None
    assert all(m.clock_ms is not None for m in table.state.moves[: -1 if ended else None])


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_real_game_with_fast_answers(game: chess.pgn.Game) -> None:
    rng = random.Random(4)
    table = Table()
    fast = False
    for uci in ucis(game):
        fast = not fast and rng.random() < 0.35  # the opponent answers within the scan, now and then
        table.play(uci, rng, style=MotionStyle.CLEAN, think=rng.uniform(0.0, 0.2) if fast else 2.0)
    table.tick(2.0)
    assert table.moves == ucis(game)
    assert table.anomalies == []


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_moves_taken_back_and_replaced_rewrite_the_main_line(game: chess.pgn.Game) -> None:
    rng = random.Random(5)
    moves = ucis(game)
    wrong_at = set(rng.sample(range(len(moves)), k=min(3, len(moves))))
    table = Table()
    done = 0
    for ply, uci in enumerate(moves):
        if ply in wrong_at:
            others = [
                m.uci()
                for m in table.board.legal_moves
                if m.uci() != uci and not _ends(table.board, m)  # a mate could not be taken back
            ]
            if others:  # in check with one reply there is nothing else to try
                table.play(rng.choice(others), rng, style=MotionStyle.REALISTIC, think=2.5)
                table.take_back(1, rng, think=2.5)
                done += 1
        table.play(uci, rng, style=MotionStyle.REALISTIC, think=rng.uniform(1.2, 4.0))
    assert table.moves == moves
    assert len(table.kinds("takeback")) == done and table.anomalies == []
