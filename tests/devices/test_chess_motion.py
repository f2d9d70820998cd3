"""The e-board motion model: every report list lands on the position after the move, for random games in both
styles and in Chess960, and the realistic habits (scan order, sliding, castling order, late en passant,
promotion swap, put-back, a captured piece taken off first) all show up without ever breaking the landing."""

from __future__ import annotations

import random
from collections import Counter
from unittest.mock import patch

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardcast_sim import chess_motion
from boardcast_sim.chess_motion import (
    CLEAN_DELAY_S,
    HUMAN_DELAY_S,
    LATE_EN_PASSANT_DELAY_S,
    Motion,
    MotionStyle,
    apply_motions,
    motions,
    takeback_motions,
)

E = chess.parse_square


def _random_game(seed: int, plies: int, *, chess960: bool = False) -> list[tuple[chess.Board, chess.Move]]:
    """The (position, move played) pairs of a random legal game."""
    rng = random.Random(seed)
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    played = []
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        played.append((board.copy(stack=False), move))
        board.push(move)
    return played


def _after(board: chess.Board, move: chess.Move) -> chess.Board:
    after = board.copy(stack=False)
    after.push(move)
    return after


def _check_move(board: chess.Board, move: chess.Move, reports: list[Motion]) -> None:
    """The reports land on the position after the move and are physically possible."""
    after = _after(board, move)
    assert apply_motions(board, reports).board_fen() == after.board_fen(), (board.fen(), move.uci(), reports)
    placement = board.piece_map()
    target = board.piece_at(move.to_square)
    capture_square = move.to_square if target is not None and target.color != board.turn else None
    mover_arrived = mover_lifted = False
    for report in reports:
        assert report.delay_s >= 0
        if report.piece is not None and report.square in placement:
            # Only the capturer lands on an occupied square (or the new piece on the promotion square).
            assert report.square == move.to_square, (move.uci(), reports)
        if report.square == move.from_square:
            mover_lifted = True
        if report.square == capture_square:
            if report.piece is None:
                # A captured piece is reported gone only when taken off before the capturer is touched, or
                # once the capturer has been put down on it.
                assert mover_arrived or not mover_lifted, (move.uci(), reports)
            else:
                mover_arrived = True
        if report.piece is None:
            placement.pop(report.square, None)
        else:
            placement[report.square] = report.piece


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), style=st.sampled_from(MotionStyle), chess960=st.booleans())
def test_every_report_list_lands_on_the_position_after_the_move(
    seed: int, style: MotionStyle, chess960: bool
) -> None:
    rng = random.Random(seed ^ 0x5EED)
    # The plain-difference fallback is for impossible moves only; a legal move must never need it.
    with patch.object(chess_motion, "_diff", side_effect=AssertionError("fallback used for a legal move")):
        for board, move in _random_game(seed, 120, chess960=chess960):
            _check_move(board, move, motions(board, move, rng, style=style))


def test_an_impossible_move_still_lands() -> None:
    # A knight "moving" like a bishop: the board still reports the squares that changed, nothing invented.
    board = chess.Board()
    move = chess.Move.from_uci("g1e3")
    reports = motions(board, move, random.Random(2))
    assert apply_motions(board, reports).board_fen() == _after(board, move).board_fen()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), chess960=st.booleans())
def test_every_castling_move_lands_whatever_the_order(seed: int, chess960: bool) -> None:
    # Castling is rare in random games; try every castling move of random positions, with many seeds.
    for board, _ in _random_game(seed, 40, chess960=chess960):
        for move in board.generate_castling_moves():
            for sub_seed in range(8):
                _check_move(board, move, motions(board, move, random.Random(sub_seed)))
            _check_move(board, move, motions(board, move, random.Random(0), style=MotionStyle.CLEAN))


def test_chess960_castling_where_king_and_rook_swap_squares() -> None:
    # King f1 and rook g1: O-O puts the king on g1 and the rook on f1, so one must be lifted out of the way.
    board = chess.Board("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", chess960=True)
    move = chess.Move(E("f1"), E("g1"))
    assert board.is_castling(move)
    orders = Counter()
    for seed in range(40):
        reports = motions(board, move, random.Random(seed))
        _check_move(board, move, reports)
        orders[reports[0].square] += 1
    assert set(orders) == {E("f1"), E("g1")}  # king first and rook first both happen


def test_chess960_castling_where_the_king_stays_put() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/6KR w H - 0 1", chess960=True)
    move = chess.Move(E("g1"), E("h1"))
    assert board.is_castling(move)
    reports = motions(board, move, random.Random(1), style=MotionStyle.CLEAN)
    assert [(r.square, r.piece) for r in reports] == [
        (E("h1"), None),
        (E("f1"), chess.Piece.from_symbol("R")),
    ]


def _pairs(reports: list[Motion]) -> list[tuple[str, str | None]]:
    return [(chess.square_name(r.square), r.piece.symbol() if r.piece else None) for r in reports]


def test_clean_style_is_lift_then_place_in_rule_order() -> None:
    board = chess.Board()
    assert _pairs(motions(board, chess.Move.from_uci("e2e4"), random.Random(0), style=MotionStyle.CLEAN)) == [
        ("e2", None),
        ("e4", "P"),
    ]
    castle = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    reports = motions(castle, chess.Move.from_uci("e8c8"), random.Random(0), style=MotionStyle.CLEAN)
    assert _pairs(reports) == [("e8", None), ("c8", "k"), ("a8", None), ("d8", "r")]
    assert {r.delay_s for r in reports} == {CLEAN_DELAY_S}
    ep = chess.Board("4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 2")
    assert _pairs(motions(ep, chess.Move.from_uci("d5e6"), random.Random(0), style=MotionStyle.CLEAN)) == [
        ("d5", None),
        ("e6", "P"),
        ("e5", None),
    ]
    promo = chess.Board("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    assert _pairs(
        motions(promo, chess.Move.from_uci("a7b8n"), random.Random(0), style=MotionStyle.CLEAN)
    ) == [
        ("a7", None),
        ("b8", "N"),
    ]


def test_a_captured_piece_is_taken_off_first_or_replaced_by_the_capturer() -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 3")
    move = chess.Move.from_uci("e5d4")
    seen: Counter[bool] = Counter()
    for seed in range(200):
        reports = motions(board, move, random.Random(seed))
        _check_move(board, move, reports)
        first = (E("d4"), None) in [(r.square, r.piece) for r in reports]
        seen[first] += 1
        if first:  # taken off before anything else of the move, then the pawn lands on the empty square
            assert next(r.square for r in reports if r.square in (E("d4"), E("e5"))) == E("d4")
    for reports in (motions(board, move, random.Random(s), style=MotionStyle.CLEAN) for s in range(20)):
        assert (E("d4"), None) not in [(r.square, r.piece) for r in reports]  # the clean style: placed on
    assert seen[True] and seen[False], seen


def test_realistic_habits_all_show_up() -> None:
    seen: Counter[str] = Counter()
    quiet = chess.Board()
    for seed in range(400):
        reports = motions(quiet, chess.Move.from_uci("g1f3"), random.Random(seed))
        if reports[0].square == E("f3"):
            seen["destination scanned first"] += 1
        if len(reports) == 4:
            seen["put back"] += 1
        double = motions(quiet, chess.Move.from_uci("e2e4"), random.Random(seed))
        if any(r.square == E("e3") for r in double):
            seen["pawn first step"] += 1
    slider = chess.Board("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1")
    for seed in range(200):
        reports = motions(slider, chess.Move.from_uci("a1a8"), random.Random(seed))
        between = {r.square for r in reports} - {E("a1"), E("a8")}
        if between & set(chess.SquareSet.between(E("a1"), E("a8"))):
            seen["slide"] += 1
            # A square passed over is left empty again.
            assert (
                apply_motions(slider, reports).piece_map()
                == _after(slider, chess.Move.from_uci("a1a8")).piece_map()
            )
    taking = chess.Board("r3k3/8/8/8/8/8/8/Q3K3 w - - 0 1")
    for seed in range(200):
        reports = motions(taking, chess.Move.from_uci("a1a8"), random.Random(seed))
        dragged = {r.square for r in reports} & set(chess.SquareSet.between(E("a1"), E("a8")))
        if reports[0] == Motion(reports[0].delay_s, E("a8"), None) and dragged:
            seen["captured taken off first, slider dragged"] += 1
    castle = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    for seed in range(200):
        reports = motions(castle, chess.Move.from_uci("e1g1"), random.Random(seed))
        if reports[0].square in (E("h1"), E("f1")):
            seen["rook first"] += 1
        if any(r.square == E("f1") and r.piece == chess.Piece.from_symbol("K") for r in reports):
            seen["king passes f1"] += 1
    ep = chess.Board("4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 2")
    for seed in range(200):
        reports = motions(ep, chess.Move.from_uci("d5e6"), random.Random(seed))
        assert reports[-1] == Motion(reports[-1].delay_s, E("e5"), None)  # the taken pawn goes last
        if reports[-1].delay_s >= LATE_EN_PASSANT_DELAY_S[0]:
            seen["late en passant"] += 1
    promo = chess.Board("4k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    for seed in range(200):
        reports = motions(promo, chess.Move.from_uci("a7a8q"), random.Random(seed))
        on_a8 = [r.piece.symbol() if r.piece else None for r in reports if r.square == E("a8")]
        if on_a8 == ["P", None, "Q"]:
            seen["promotion swap seen empty"] += 1
        elif on_a8 == ["P", "Q"]:
            seen["promotion swap"] += 1
        else:
            assert on_a8 == ["Q"]
            seen["promotion direct"] += 1
    expected = {
        "destination scanned first",
        "put back",
        "pawn first step",
        "slide",
        "captured taken off first, slider dragged",
        "rook first",
        "king passes f1",
        "late en passant",
        "promotion swap seen empty",
        "promotion swap",
        "promotion direct",
    }
    assert set(seen) == expected, seen


def test_realistic_delays_are_human() -> None:
    for board, move in _random_game(7, 120):
        for report in motions(board, move, random.Random(move.from_square)):
            low, high = HUMAN_DELAY_S
            if board.is_en_passant(move) and report.square != move.to_square:
                high = LATE_EN_PASSANT_DELAY_S[1]
            assert low <= report.delay_s <= high


def test_same_seed_gives_the_same_reports() -> None:
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    move = chess.Move.from_uci("e1c1")
    assert motions(board, move, random.Random(5)) == motions(board, move, random.Random(5))


def test_null_move_changes_nothing_and_an_empty_origin_is_an_error() -> None:
    assert motions(chess.Board(), chess.Move.null(), random.Random(0)) == []
    with pytest.raises(ValueError, match="no piece on e4"):
        motions(chess.Board(), chess.Move.from_uci("e4e5"), random.Random(0))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), style=st.sampled_from(MotionStyle), back=st.integers(1, 6))
def test_takeback_lands_on_the_earlier_position(seed: int, style: MotionStyle, back: int) -> None:
    played = _random_game(seed, 60)
    positions = [board for board, _ in played]
    rng = random.Random(seed)
    later = rng.randrange(len(positions))
    earlier = max(0, later - back)
    reports = takeback_motions(positions[later], positions[earlier], rng, style=style)
    assert apply_motions(positions[later], reports).board_fen() == positions[earlier].board_fen()
    changed = {sq for sq in chess.SQUARES if positions[later].piece_at(sq) != positions[earlier].piece_at(sq)}
    assert {r.square for r in reports} == changed  # nothing untouched is reported


def test_takeback_of_a_capture_puts_both_pieces_back() -> None:
    before = chess.Board("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    after = _after(before, chess.Move.from_uci("e4d5"))
    reports = takeback_motions(after, before, random.Random(3), style=MotionStyle.CLEAN)
    assert _pairs(reports) == [("d5", None), ("e4", "P"), ("d5", "p")]
