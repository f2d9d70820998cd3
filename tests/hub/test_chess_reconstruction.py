"""Moves rebuilt from e-board snapshots: settling, moves that could still grow, castling, en passant,
promotion, presses, fast replies, takebacks, the result signal, illegal moves and a board out of step."""

from __future__ import annotations

import chess
import pytest

from hub.rules import chess as rc
from tests.hub.chess_support import Table

ITALIAN = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"]  # both sides may castle short


def table_after(moves: list[str], config: rc.ChessConfig | None = None) -> Table:
    table = Table(config)
    for uci in moves:
        table.play(uci)
    assert table.moves == moves
    table.facts.clear()
    return table


def test_a_move_is_read_only_once_the_board_settles() -> None:
    table = Table()
    table.square("e2", None, dt=1.0)
    table.square("e4", "P", dt=0.2)
    assert table.moves == []  # 0.2 s after the last change: the scan may not be over
    facts, anomalies = table.tick(0.31)
    assert [f.data["san"] for f in facts if f.kind == "move"] == ["e4"]
    assert anomalies == []


def test_squares_reported_out_of_order_make_the_same_move() -> None:
    table = Table()
    table.square("e4", "P", dt=1.0)  # the scan reaches e4 before e2: two white pawns for a moment
    table.square("e2", None, dt=0.05)
    table.tick(0.5)
    assert table.moves == ["e2e4"]


def test_a_lifted_piece_put_back_is_no_move() -> None:
    table = Table()
    table.square("g1", None, dt=1.0)
    table.tick(3.0)
    table.square("g1", "N", dt=0.1)
    table.tick(3.0)
    assert table.moves == [] and table.anomalies == []


def test_a_pawns_first_step_waits_for_the_second() -> None:
    table = Table()
    table.square("e2", None, dt=1.0)
    table.square("e3", "P", dt=0.1)
    table.tick(0.6)  # settled, but e2-e3 could still become e2-e4
    assert table.moves == []
    table.square("e3", None, dt=0.1)
    table.square("e4", "P", dt=0.1)
    table.tick(0.5)
    assert table.moves == ["e2e4"] and table.kinds("takeback") == []


def test_a_pawn_that_stops_on_its_first_step_is_read_after_the_wait() -> None:
    table = Table()
    table.square("e2", None, dt=1.0)
    table.square("e3", "P", dt=0.1)
    table.tick(0.6)
    assert table.moves == []
    table.tick(0.5)  # more than extend_s (1 s) since e3 was filled
    assert table.moves == ["e2e3"]


def test_a_sliding_rook_is_not_read_on_the_way() -> None:
    table = table_after(["h2h4", "h7h5"])
    table.square("h1", None, dt=1.0)
    table.square("h2", "R", dt=0.1)
    table.tick(0.7)  # Rh2 is legal, but the rook could slide on to h3
    table.square("h2", None, dt=0.1)
    table.square("h3", "R", dt=0.1)
    table.tick(1.2)
    assert table.moves[-1] == "h1h3"
    assert [f.data["san"] for f in table.kinds("move")] == ["Rh3"] and table.kinds("takeback") == []


def test_a_rook_that_stops_after_one_square_is_read_after_the_wait() -> None:
    table = table_after(["h2h4", "h7h5"])
    table.square("h1", None, dt=1.0)
    table.square("h2", "R", dt=0.1)
    table.tick(1.1)
    assert table.moves[-1] == "h1h2"


def test_a_king_passing_f1_while_castling_is_not_kf1() -> None:
    table = table_after(ITALIAN)
    table.square("e1", None, dt=1.0)
    table.square("f1", "K", dt=0.1)
    table.tick(0.7)  # Kf1 is legal, but so is O-O, which passes f1
    table.square("f1", None, dt=0.1)
    table.square("g1", "K", dt=0.1)
    table.square("h1", None, dt=0.3)
    table.square("f1", "R", dt=0.3)
    table.tick(1.5)
    assert table.moves[-1] == "e1g1"
    assert [f.data["san"] for f in table.kinds("move")] == ["O-O"] and table.kinds("takeback") == []


def test_castling_rook_first_is_not_rf1() -> None:
    table = table_after(ITALIAN)
    table.square("h1", None, dt=1.0)
    table.square("f1", "R", dt=0.1)
    table.tick(0.7)  # Rf1 is legal, and also the rook's half of O-O
    table.square("e1", None, dt=0.1)
    table.square("g1", "K", dt=0.3)
    table.tick(1.5)
    assert [f.data["san"] for f in table.kinds("move")] == ["O-O"]


def test_long_castling_for_black() -> None:
    table = table_after(["d2d4", "d7d5", "b1c3", "b8c6", "c1f4", "c8f5", "d1d2", "d8d7", "e2e3"])
    table.play("e8c8")
    assert table.moves[-1] == "e8c8" and table.kinds("move")[-1].data["san"] == "O-O-O"


def test_a_king_held_on_f1_and_then_castled_rewrites_the_move() -> None:
    table = table_after(ITALIAN)
    table.square("e1", None, dt=1.0)
    table.square("f1", "K", dt=0.1)
    table.tick(1.5)  # long enough: Kf1 is read
    assert table.moves[-1] == "e1f1"
    table.square("f1", None, dt=0.2)
    table.square("g1", "K", dt=0.2)
    table.square("h1", None, dt=0.2)
    table.square("f1", "R", dt=0.2)
    table.tick(1.5)
    assert table.moves == [*ITALIAN, "e1g1"]  # the main line is rewritten, not branched
    assert table.kinds("takeback")[0].data["moves"] == ["e1f1"]


def test_en_passant_with_the_captured_pawn_removed_late() -> None:
    table = table_after(["e2e4", "a7a6", "e4e5", "d7d5"])
    table.square("e5", None, dt=1.0)
    table.square("d6", "P", dt=0.2)
    table.tick(2.5)  # the pawn taken en passant is still on d5
    assert table.moves[-1] == "d7d5" and table.anomalies == []
    table.square("d5", None, dt=0.1)
    table.tick(0.5)
    assert table.moves[-1] == "e5d6" and table.kinds("move")[-1].data["san"] == "exd6"


@pytest.mark.parametrize("piece, uci", [("Q", "g7h8q"), ("N", "g7h8n"), ("R", "g7h8r"), ("B", "g7h8b")])
def test_promotion_and_under_promotion_on_capture(piece: str, uci: str) -> None:
    # Reinle - Lange, Murnau 1936 ends 8.gxh8=N#; here each piece is tried, the pawn put down first.
    table = table_after(["e2e4", "e7e5", "f2f4", "f7f5", "e4f5", "e5e4", "d1h5", "g7g6", "f5g6", "h7h6"])
    table.play("g6g7")
    table.play("e8e7")
    table.square("g7", None, dt=1.0)
    table.square("h8", "P", dt=0.2)  # on the last rank as a pawn first
    table.square("h8", None, dt=0.3)
    table.square("h8", piece, dt=0.4)
    table.tick(1.5)
    assert table.moves[-1] == uci
    assert table.anomalies == []


def test_a_clock_press_decides_at_once() -> None:
    table = Table()
    table.clock(180, 180, 0)  # left runs: White is left
    table.square("g1", None, dt=1.0)
    facts, _ = table.square("f3", "N", dt=0.1)
    assert table.moves == []
    facts, _ = table.clock(179, 180, 1, dt=0.05)  # 0.05 s after the knight landed, long before it settles
    assert table.moves == ["g1f3"]
    move = next(f for f in facts if f.kind == "move")
    assert move.data["clock_ms"] == 179000  # the press completed it: the mover's time after the press


def test_a_board_still_reporting_after_the_press_corrects_the_pressed_move() -> None:
    table = table_after(["h2h4", "h7h5"])
    table.clock(175, 175, 0)
    table.square("h1", None, dt=1.0)
    table.square("h2", "R", dt=0.1)
    facts, _ = table.clock(170, 175, 1, dt=0.02)  # pressed while the scan still shows the rook on its way
    assert [f.data["uci"] for f in facts if f.kind == "move"] == ["h1h2"]  # a press decides at once
    table.square("h2", None, dt=0.05)
    table.square("h3", "R", dt=0.05)  # the scan catches up 0.1 s after the press
    table.tick(0.4)
    assert table.moves[-1] == "h1h3" and table.state.moves[-1].clock_ms == 170000
    assert table.anomalies == []


def test_a_pressed_move_changed_later_is_not_a_correction() -> None:
    table = table_after(["h2h4", "h7h5"])
    table.clock(175, 175, 0)
    table.square("h1", None, dt=1.0)
    table.square("h2", "R", dt=0.5)
    table.clock(170, 175, 1, dt=0.02)
    table.square("h2", None, dt=1.0)  # a second after the press: a new move, by the wrong player
    table.square("h3", "R", dt=0.1)
    table.tick(6.0)
    assert table.moves[-1] == "h1h2" and table.codes() == ["chess.illegal_move"]


def test_the_opponent_replying_before_the_board_settled_gives_two_plies() -> None:
    table = Table()
    table.square("e2", None, dt=1.0)
    table.square("e4", "P", dt=0.1)
    table.square("e7", None, dt=0.15)
    table.square("e5", "p", dt=0.1)
    assert table.moves == []
    table.tick(0.5)
    assert table.moves == ["e2e4", "e7e5"]


def test_two_plies_that_leave_the_same_board_are_told_apart_by_the_boards_seen() -> None:
    # c2c4 d4xc3 e.p. and c2c3 d4xc3 end on the same squares: the board showed c4, so it was the pawn step.
    table = table_after(["d2d4", "e7e5", "d4e5", "d7d5", "a2a3", "d5d4"])
    table.square("c2", None, dt=1.0)
    table.square("c4", "P", dt=0.15)
    table.square("d4", None, dt=0.15)
    table.square("c3", "p", dt=0.1)
    table.square("c4", None, dt=0.1)
    table.tick(0.5)
    assert table.moves[-2:] == ["c2c4", "d4c3"]


def test_a_takeback_rewrites_the_main_line() -> None:
    table = table_after(["e2e4", "e7e5"])
    table.play("g1f3")
    table.take_back(1)
    assert table.moves == ["e2e4", "e7e5"]
    table.play("f1c4")
    assert table.moves == ["e2e4", "e7e5", "f1c4"]
    (takeback,) = table.kinds("takeback")
    assert takeback.data == {"plies": 1, "moves": ["g1f3"], "ply": 2, "by": "board"}


def test_a_takeback_of_two_plies() -> None:
    table = table_after(["e2e4", "e7e5", "g1f3", "b8c6"])
    table.take_back(2)
    table.play("d2d4")
    assert table.moves == ["e2e4", "e7e5", "d2d4"]


def test_a_pressed_move_is_not_rewritten_by_a_board_that_looks_like_a_correction() -> None:
    table = Table()
    table.clock(180, 180, 0)
    table.play("g1f3", think=0.2)
    table.clock(180, 180, 1, dt=0.1)  # White pressed: Nf3 is complete
    # The knight goes from f3 to h3, as if g1-h3 had been played instead: it is White moving twice.
    table.square("f3", None, dt=1.0)
    table.square("h3", "N", dt=0.1)
    table.tick(6.0)
    assert table.moves == ["g1f3"]
    assert table.codes() == ["chess.illegal_move"]
    assert table.anomalies[0].data["out_of_turn"] is True


@pytest.mark.parametrize(
    "white, black, result",
    [("e4", "d5", "1-0"), ("d4", "e5", "0-1"), ("e4", "e5", "1/2-1/2"), ("d5", "d4", "1/2-1/2")],
)
def test_both_kings_in_the_centre_is_a_result_signal_never_a_move(
    white: str, black: str, result: str
) -> None:
    table = table_after(["e2e4", "e7e5", "g1f3", "b8c6"])
    table.square("e1", None, dt=1.0)
    table.square("e8", None, dt=0.2)
    table.square(white, "K", dt=0.3)
    table.square(black, "k", dt=0.3)
    table.tick(0.5)
    assert table.moves == ["e2e4", "e7e5", "g1f3", "b8c6"]
    (signal,) = table.kinds("result_signal")
    assert signal.data["result"] == result and sorted(signal.data["kings"]) == sorted([white, black])
    assert rc.result(table.state) == result and table.state.result_reason == "result_signal"
    assert table.anomalies == []


def test_a_king_step_into_the_centre_then_the_other_king_is_a_signal() -> None:
    table = table_after(["e2e3", "d7d6", "e1e2", "e8d7", "e2d3", "d7c6"])
    table.square("d3", None, dt=1.0)
    table.square("d4", "K", dt=0.1)
    table.tick(1.5)  # Kd4 is legal and was read (no press)
    assert table.moves[-1] == "d3d4"
    table.square("c6", None, dt=0.3)
    table.square("d5", "k", dt=0.3)
    table.tick(0.5)
    assert table.moves[-1] == "d7c6"  # the king's step was the first half of the signal
    assert table.kinds("result_signal")[0].data["result"] == "1/2-1/2"


def test_an_illegal_move_is_flagged_once_and_kept_if_the_arbiter_says_so() -> None:
    table = Table()
    table.clock(180, 180, 0)
    table.square("g1", None, dt=1.0)
    table.square("g3", "N", dt=0.2)  # a knight cannot go g1-g3
    _, anomalies = table.clock(179, 180, 1, dt=0.1)  # the press says the move is complete
    assert [a.code for a in anomalies] == ["chess.illegal_move"]
    assert anomalies[0].data["uci"] == "g1g3" and anomalies[0].data["out_of_turn"] is False
    table.tick(10.0)
    table.tick(10.0)
    assert table.codes() == ["chess.illegal_move"]  # once per board
    facts, anomalies = table.feed(rc.KeepIllegal(), 1.0)
    assert anomalies == []
    assert [f.kind for f in facts] == ["move", "anomaly_resolved"]
    assert table.state.moves[-1].illegal and table.moves == ["g1g3"]
    table.board.push(chess.Move.from_uci("g1g3"))
    table.play("e7e5")  # the game goes on from the position the arbiter let stand
    assert table.moves == ["g1g3", "e7e5"]


def test_an_illegal_looking_board_is_not_flagged_before_it_stays_a_while() -> None:
    table = Table()
    table.square("g1", None, dt=1.0)
    table.square("g3", "N", dt=0.2)
    table.tick(4.5)
    assert table.anomalies == []
    table.tick(1.0)
    assert table.codes() == ["chess.illegal_move"]


def test_an_illegal_move_is_resolved_when_the_board_goes_back() -> None:
    table = Table()
    table.square("g1", None, dt=1.0)
    table.square("g3", "N", dt=0.2)
    table.tick(6.0)
    table.square("g3", None, dt=0.5)
    table.square("g1", "N", dt=0.3)
    assert [f.data["code"] for f in table.kinds("anomaly_resolved")] == ["chess.illegal_move"]
    table.play("g1f3")
    assert table.moves == ["g1f3"]


def test_a_move_that_leaves_the_king_in_check_is_illegal() -> None:
    table = table_after(["e2e4", "d7d5", "f1b5"])  # Black is in check from b5
    table.square("a7", None, dt=1.0)
    table.square("a6", "p", dt=0.2)  # ...a6 attacks the bishop but does not answer the check
    table.tick(6.0)
    assert table.codes() == ["chess.illegal_move"]
    assert table.anomalies[0].data["uci"] == "a7a6"


def test_a_board_out_of_step_for_long_is_flagged_once_with_its_squares() -> None:
    table = Table()
    table.square("a2", None, dt=1.0)  # a pawn knocked off the board
    table.tick(9.0)
    assert table.anomalies == []
    _, anomalies = table.tick(1.5)
    assert [a.code for a in anomalies] == ["chess.board_mismatch"]
    assert anomalies[0].data["squares"] == ["a2"]
    table.tick(30.0)
    assert table.codes() == ["chess.board_mismatch"]
    table.square("a2", "P", dt=1.0)
    assert [f.data["code"] for f in table.kinds("anomaly_resolved")] == ["chess.board_mismatch"]


def test_checkmate_ends_the_game_and_later_boards_are_no_moves() -> None:
    table = Table()
    for uci in ["e2e4", "c7c5", "c2c4", "b8c6", "g1e2", "g8f6", "b1c3", "c6b4", "g2g3", "b4d3"]:
        table.play(uci)
    assert rc.result(table.state) == "0-1" and rc.winner(table.state) == 1
    assert table.kinds("game_over")[0].data == {"result": "0-1", "reason": "checkmate", "ply": 10}
    table.square("e1", None, dt=1.0)  # the loser lays his king down, pieces are cleared
    table.square("d1", None, dt=0.5)
    table.tick(20.0)
    assert table.moves[-1] == "b4d3" and table.anomalies == []


def test_referee_take_back_and_set_result() -> None:
    table = table_after(["e2e4", "e7e5", "g1f3"])
    facts, _ = table.feed(rc.TakeBack(1), 1.0)
    assert table.moves == ["e2e4", "e7e5"] and facts[0].data["by"] == "referee"
    table.tick(11.0)
    assert table.moves == ["e2e4", "e7e5"] and table.anomalies == []  # Nf3 still on the board is not re-read
    table.square("f3", None, dt=0.5)
    table.square("g1", "N", dt=0.5)
    table.board.pop()  # the players follow the arbiter
    table.play("b1c3")
    assert table.moves == ["e2e4", "e7e5", "b1c3"]
    table.feed(rc.SetResult("1/2-1/2", "agreed"), 1.0)
    assert rc.result(table.state) == "1/2-1/2" and rc.winner(table.state) is None
    table.feed(rc.SetResult("*"), 1.0)
    assert rc.result(table.state) is None
    _, anomalies = table.feed(rc.TakeBack(9), 1.0)
    assert [a.code for a in anomalies] == ["chess.referee_input"] and len(table.moves) == 3
    _, anomalies = table.feed(rc.KeepIllegal(), 1.0)
    assert [a.code for a in anomalies] == ["chess.referee_input"]


def test_a_start_position_is_a_fresh_start() -> None:
    from devices.observations import ChessBoardState

    assert rc.is_fresh_start(ChessBoardState("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"))
    assert not rc.is_fresh_start(ChessBoardState("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"))


def test_a_dgt_result_piece_is_a_result_signal() -> None:
    from devices.observations import ChessBoardState

    table = table_after(["e2e4", "e7e5"])
    table.feed(ChessBoardState(table.placement.board_fen(), ("d4=draw",)), 1.0)
    table.tick(0.5)
    (signal,) = table.kinds("result_signal")
    assert signal.data == {"result": "1/2-1/2", "kings": ["d4"], "source": "magic"}
    assert rc.result(table.state) == "1/2-1/2" and table.moves == ["e2e4", "e7e5"]


def test_a_signal_against_the_result_already_given_is_flagged() -> None:
    table = Table()
    table.clock(60, 60, 0)
    table.clock(0, 60, None, dt=60.0, flags=(True, False))  # White's flag: 0-1
    assert rc.result(table.state) == "0-1"
    table.square("e1", None, dt=1.0)
    table.square("e8", None, dt=0.2)
    table.square("e4", "K", dt=0.3)
    table.square("d5", "k", dt=0.3)
    table.tick(0.5)
    assert [a.code for a in table.anomalies] == ["chess.flag_fall", "chess.result_conflict"]
    assert table.anomalies[1].data == {"signal": "1-0", "result": "0-1", "reason": "flag_fall"}
