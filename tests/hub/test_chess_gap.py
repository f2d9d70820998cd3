"""A board three or four plies ahead of the game after a gap (a reconnect, a lost stretch of updates): the one
legal sequence that gives it is entered; none or several: `chess.board_mismatch` once, nothing guessed, and
the game waits for the board to settle."""

from __future__ import annotations

import chess
import pytest

from tests.hub.chess_support import Table, read_games

KASPAROV_29 = [m.uci() for m in list(read_games()[4].mainline_moves())[:58]]


def table_after(moves: list[str]) -> Table:
    table = Table()
    for uci in moves:
        table.play(uci)
    assert table.moves == moves
    table.facts.clear()
    return table


def placement(*ucis: str) -> str:
    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return board.board_fen()


@pytest.mark.parametrize(
    ("before", "gap"),
    [
        (["e2e4", "d7d5"], ["e4d5", "d8d5", "b1c3"]),  # three plies, two captures
        (["e2e4", "d7d5"], ["e4d5", "d8d5", "b1c3", "d5a5"]),  # four
        (["e2e4", "e7e5", "g1f3", "b8c6"], ["f1b5", "a7a6", "b5c6", "d7c6"]),  # the exchange Ruy Lopez
        (["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"], ["f3g5", "d7d5", "e4d5"]),
    ],
)
def test_the_one_sequence_that_gives_the_board_is_entered(before: list[str], gap: list[str]) -> None:
    table = table_after(before)
    table.show(placement(*before, *gap), dt=1.0)  # the whole board at once, as after a reconnect
    table.tick(1.5)
    assert table.moves == before + gap
    assert [f.data["moves"] for f in table.kinds("board_gap")] == [gap]
    assert table.anomalies == []
    assert [f.data["san"] for f in table.kinds("move")][-1] == chess.Board().variation_san(
        [chess.Move.from_uci(u) for u in before + gap]
    ).split()[-1]


@pytest.mark.parametrize(
    ("before", "gap"),
    [
        ([], ["e2e4", "e7e5", "g1f3"]),  # Nf3 e5 e4 gives the same board: which came first is unknowable
        (["e2e4", "e7e5"], ["g1f3", "b8c6", "f1c4", "g8f6"]),
        ([], ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]),  # five plies: beyond what is searched
        # Kasparov - Deep Blue 1997, 30.Qd3 Qe4 31.Qxe4: the one sequence, but the board is also 30.Qxg6 on
        # its way (Black's queen taken off first, White's dragged towards g6 and resting on e4)
        (KASPAROV_29, ["c2d3", "g6e4", "d3e4"]),
    ],
)
def test_no_sequence_or_several_is_one_mismatch_and_nothing_guessed(
    before: list[str], gap: list[str]
) -> None:
    table = table_after(before)
    table.show(placement(*before, *gap), dt=1.0)
    table.tick(5.0)
    assert table.moves == before and table.anomalies == []
    table.tick(6.0)
    assert table.codes() == ["chess.board_mismatch"]
    table.tick(30.0)
    assert table.codes() == ["chess.board_mismatch"] and table.moves == before  # once, and still waiting
    # the board settles on something the game explains (here: one ply on from the position before the gap)
    table.show(placement(*before, gap[0]), dt=1.0)
    table.tick(1.5)
    assert table.moves == [*before, gap[0]]
    assert [f.data["code"] for f in table.kinds("anomaly_resolved")] == ["chess.board_mismatch"]


def test_a_gap_with_a_running_clock_claims_no_move_without_a_press() -> None:
    table = Table()
    table.clock(300, 300, None)
    table.play("e2e4", think=0.3)
    table.clock(299, 300, 1, dt=0.2)  # White pressed: Black's time runs
    table.play("d7d5", think=0.3)
    table.clock(299, 298, 0, dt=0.2)
    assert table.moves == ["e2e4", "d7d5"] and table.anomalies == []
    # the link drops; three plies later the board is read whole again with White's clock running
    table.clock(280, 285, 1, dt=20.0)
    table.show(placement("e2e4", "d7d5", "e4d5", "d8d5", "b1c3"), dt=0.1)
    table.tick(1.5)
    assert table.moves == ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3"]
    assert "chess.move_without_press" not in table.codes()


def test_the_search_is_memoised_per_game_position_and_skips_a_piece_in_the_hand() -> None:
    from hub.rules.chess.board import gap_reading
    from hub.rules.chess.model import Game

    game = Game.replay(["e2e4"])
    ahead = placement("e2e4", "d7d5", "e4d5", "d8d5", "b1c3")
    first = gap_reading(game, ahead)  # four plies: 1...d5 2.exd5 Qxd5 3.Nc3, the only order
    assert first is not None and [m.uci() for m in first.moves] == ["d7d5", "e4d5", "d8d5", "b1c3"]
    assert gap_reading(game, ahead) is first  # memoised
    lifted = chess.BaseBoard(placement("e2e4"))
    lifted.remove_piece_at(chess.G8)
    assert gap_reading(game, lifted.board_fen()) is None  # a knight in the hand: no search at all
