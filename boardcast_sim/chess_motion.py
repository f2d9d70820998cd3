"""How a piece-recognising e-board (DGT and alike) reports a chess move: the square changes, in report order.

Pure and seeded: no I/O, no clock. A real board scans its squares one at a time, so a move reaches the PC as a
handful of single-square changes that need not arrive in the order the hand made them (the DGT protocol's
`dgtbrd.h` says so of its updates). `motions` turns one move into such a list, `takeback_motions` turns one
placement back into another, and `apply_motions` folds a list onto a placement; simulators and reconstruction
tests share them.

`Motion.delay_s` is the time since the previous report (for the first one: since the hand started the move).
"""

from __future__ import annotations

import enum
import itertools
import random
from collections.abc import Iterable
from dataclasses import dataclass

import chess

__all__ = [
    "CLEAN_DELAY_S",
    "Motion",
    "MotionStyle",
    "apply_motions",
    "motions",
    "takeback_motions",
]

CLEAN_DELAY_S = 0.2
"""The fixed gap between two reports in the `CLEAN` style."""

HUMAN_DELAY_S = (0.1, 0.8)
"""The range a hand takes between two square changes in the `REALISTIC` style."""

LATE_EN_PASSANT_DELAY_S = (0.8, 2.5)
"""How long a player sometimes waits before removing a pawn taken en passant."""

# How often each realistic habit shows up. Small enough that most moves stay plain, large enough that a few
# hundred random moves meet every habit many times.
P_SCAN_ORDER = 0.25  # the new square is scanned before the emptied one
P_SLIDE = 0.3  # a slider (or a castling king) is dragged over the squares in between
P_PAWN_FIRST_STEP = 0.15  # a double step is put down on the first square, then pushed on
P_ROOK_FIRST = 0.3  # castling done rook first
P_LATE_EN_PASSANT = 0.4  # the pawn taken en passant is removed after a pause
P_PROMOTE_PAWN_FIRST = 0.85  # the pawn is put on the last rank, then swapped for the new piece
P_SWAP_SEEN_EMPTY = 0.7  # the scan catches the last-rank square empty during the swap
P_CAPTURED_FIRST = 0.5  # a capture made by taking the captured piece off first, then moving the capturer
P_PUT_BACK = 0.08  # an untouched piece is lifted and put back before the move
P_TAKEBACK_LIFT_SEEN = 0.5  # during a takeback, a replaced piece's square is caught empty

_SLIDERS = frozenset({chess.ROOK, chess.BISHOP, chess.QUEEN})


class MotionStyle(enum.Enum):
    """How faithfully to a human hand and a scanning board the moves are reported."""

    CLEAN = "clean"
    """Lift then place, one report each, in the order the rules describe, `CLEAN_DELAY_S` apart."""

    REALISTIC = "realistic"
    """Human delays, scan-order swaps, sliding, either castling order, late en passant, promotion swaps,
    captured pieces taken off before the capturer moves."""


@dataclass(frozen=True, slots=True)
class Motion:
    """One square change as the board reports it; `piece` None means the square was emptied."""

    delay_s: float
    square: chess.Square
    piece: chess.Piece | None


def apply_motions(board: chess.BaseBoard, changes: Iterable[Motion]) -> chess.BaseBoard:
    """Return a copy of the placement of `board` with every change applied in order."""
    placed = chess.BaseBoard(board.board_fen())
    for change in changes:
        if change.piece is None:
            placed.remove_piece_at(change.square)
        else:
            placed.set_piece_at(change.square, change.piece)
    return placed


class _Hand:
    """Builds the report list while tracking the placement the board would see."""

    def __init__(self, board: chess.BaseBoard, rng: random.Random, style: MotionStyle) -> None:
        self.placement: dict[chess.Square, chess.Piece] = board.piece_map()
        self.rng = rng
        self.realistic = style is MotionStyle.REALISTIC
        self.reports: list[Motion] = []

    def chance(self, probability: float) -> bool:
        """Whether a realistic habit shows up this time (never in the clean style)."""
        return self.realistic and self.rng.random() < probability

    def delay(self) -> float:
        if not self.realistic:
            return CLEAN_DELAY_S
        return round(self.rng.uniform(*HUMAN_DELAY_S), 3)

    def report(self, square: chess.Square, piece: chess.Piece | None, delay_s: float | None = None) -> None:
        self.reports.append(Motion(self.delay() if delay_s is None else delay_s, square, piece))
        if piece is None:
            self.placement.pop(square, None)
        else:
            self.placement[square] = piece

    def lift(self, square: chess.Square) -> None:
        self.report(square, None)

    def step(self, piece: chess.Piece, origin: chess.Square, to: chess.Square, *, in_hand: bool) -> None:
        """Move `piece` one leg; the scan may see the new square before the old one is empty."""
        if in_hand:
            self.report(to, piece)
        elif self.chance(P_SCAN_ORDER):
            self.report(to, piece)
            self.report(origin, None)
        else:
            self.report(origin, None)
            self.report(to, piece)

    def carry(
        self,
        piece: chess.Piece,
        origin: chess.Square,
        dest: chess.Square,
        *,
        slide: bool = False,
        in_hand: bool = False,
    ) -> None:
        """Take `piece` from `origin` (unless already in hand) to `dest`, sometimes over the squares between."""
        path = [origin]
        if slide:
            between = [sq for sq in _between_in_order(origin, dest) if sq not in self.placement]
            if between:
                # A drag touches a few squares on the way, in order, never all of a long path.
                count = self.rng.randint(1, min(3, len(between)))
                path.extend(
                    sorted(self.rng.sample(between, count), key=lambda sq: chess.square_distance(origin, sq))
                )
        path.append(dest)
        for leg, (here, there) in enumerate(itertools.pairwise(path)):
            self.step(piece, here, there, in_hand=in_hand and leg == 0)


def _between_in_order(origin: chess.Square, dest: chess.Square) -> list[chess.Square]:
    """The squares strictly between two aligned squares, nearest to `origin` first (none if not aligned)."""
    return sorted(chess.SquareSet.between(origin, dest), key=lambda sq: chess.square_distance(origin, sq))


def motions(
    board: chess.Board,
    move: chess.Move,
    rng: random.Random,
    *,
    style: MotionStyle = MotionStyle.REALISTIC,
) -> list[Motion]:
    """The square changes an e-board reports for `move` on `board`, in report order."""
    if not move:
        return []  # a null move changes no square
    if move.drop is not None:
        raise ValueError(f"drop moves cannot be played on an e-board: {move.uci()}")
    mover = board.piece_at(move.from_square)
    if mover is None:
        raise ValueError(
            f"no piece on {chess.square_name(move.from_square)} for {move.uci()} in {board.fen()}"
        )
    after = board.copy(stack=False)
    after.push(move)
    hand = _Hand(board, rng, style)

    castling = board.is_castling(move)
    touched = {move.from_square, move.to_square}
    if castling:
        touched |= _castling_squares(board, move)
    elif board.is_en_passant(move):
        touched.add(_en_passant_victim(move))
    _maybe_put_back(hand, board, touched)

    if castling:
        _castle(hand, board, move)
    elif board.is_en_passant(move):
        hand.carry(mover, move.from_square, move.to_square)
        late = hand.chance(P_LATE_EN_PASSANT)
        extra = round(rng.uniform(*LATE_EN_PASSANT_DELAY_S), 3) if late else None
        hand.report(_en_passant_victim(move), None, extra)
    elif move.promotion is not None:
        promoted = chess.Piece(move.promotion, mover.color)
        if hand.realistic and rng.random() < P_PROMOTE_PAWN_FIRST:
            hand.carry(mover, move.from_square, move.to_square)
            if hand.chance(P_SWAP_SEEN_EMPTY):
                hand.lift(move.to_square)
            hand.report(move.to_square, promoted)
        else:
            hand.carry(promoted, move.from_square, move.to_square)
    else:
        if board.is_capture(move) and hand.chance(P_CAPTURED_FIRST):
            hand.lift(move.to_square)  # the capturer then lands on an empty square (a slider may be dragged)
        slide = mover.piece_type in _SLIDERS and hand.chance(P_SLIDE)
        first_step = (
            mover.piece_type == chess.PAWN
            and chess.square_distance(move.from_square, move.to_square) == 2
            and hand.chance(P_PAWN_FIRST_STEP)
        )
        hand.carry(mover, move.from_square, move.to_square, slide=slide or first_step)

    if hand.placement != after.piece_map():
        # Only a move the board cannot really make (odd variants, corrupt positions) gets here; report the
        # plain difference rather than a wrong one.
        return _diff(board, after, rng, style)
    return hand.reports


def _en_passant_victim(move: chess.Move) -> chess.Square:
    return chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))


def _castling_geometry(
    board: chess.Board, move: chess.Move
) -> tuple[chess.Square, chess.Square, chess.Square]:
    """The rook's square before, and the king's and rook's squares after, for a castling move."""
    rank = chess.square_rank(move.from_square)
    target = board.piece_at(move.to_square)
    if target is not None and target.color == board.turn and target.piece_type == chess.ROOK:
        rook_from = move.to_square  # Chess960 notation: the king "takes" its rook
    else:
        kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
        rook_from = chess.square(7 if kingside else 0, rank)
    kingside = chess.square_file(rook_from) > chess.square_file(move.from_square)
    king_to = chess.square(6 if kingside else 2, rank)
    rook_to = chess.square(5 if kingside else 3, rank)
    return rook_from, king_to, rook_to


def _castling_squares(board: chess.Board, move: chess.Move) -> set[chess.Square]:
    return set(_castling_geometry(board, move))


def _castle(hand: _Hand, board: chess.Board, move: chess.Move) -> None:
    """King and rook, in either order; a piece standing on the other's target is lifted out of the way first."""
    rook_from, king_to, rook_to = _castling_geometry(board, move)
    king = chess.Piece(chess.KING, board.turn)
    rook = chess.Piece(chess.ROOK, board.turn)
    legs = [(king, move.from_square, king_to), (rook, rook_from, rook_to)]
    # FIDE wants the king first; the clean style follows it, real hands do not always.
    if hand.chance(P_ROOK_FIRST):
        legs.reverse()
    legs = [leg for leg in legs if leg[1] != leg[2]]  # in Chess960 one of them may stay put
    if len(legs) == 2 and legs[0][2] == legs[1][1]:
        # Chess960: the first piece's target holds the second piece, so the hand takes that one up first.
        second_piece, second_from, second_to = legs[1]
        hand.lift(second_from)
        first_piece, first_from, first_to = legs[0]
        hand.carry(first_piece, first_from, first_to, slide=hand.chance(P_SLIDE))
        hand.carry(second_piece, second_from, second_to, in_hand=True)
        return
    for piece, origin, dest in legs:
        hand.carry(piece, origin, dest, slide=hand.chance(P_SLIDE))


def _maybe_put_back(hand: _Hand, board: chess.Board, touched: set[chess.Square]) -> None:
    """Sometimes the player picks up a piece the move does not involve and puts it back first."""
    if not hand.chance(P_PUT_BACK):
        return
    candidates = [sq for sq in chess.SquareSet(board.occupied_co[board.turn]) if sq not in touched]
    if not candidates:
        return
    square = hand.rng.choice(candidates)
    piece = hand.placement[square]
    hand.lift(square)
    hand.report(square, piece)


def _diff(
    before: chess.BaseBoard, after: chess.BaseBoard, rng: random.Random, style: MotionStyle
) -> list[Motion]:
    """Reports turning one placement into another: emptied squares first, then the filled ones."""
    hand = _Hand(before, rng, style)
    old = before.piece_map()
    new = after.piece_map()
    emptied = [sq for sq in old if sq not in new]
    replaced = [sq for sq in old if sq in new and old[sq] != new[sq]]
    filled = [sq for sq in new if sq not in old]
    # A clean hand lifts every piece it replaces; a real scan sometimes misses the square empty in between.
    seen_empty = [sq for sq in replaced if not hand.realistic or rng.random() < P_TAKEBACK_LIFT_SEEN]
    lifts = sorted(emptied + seen_empty)
    places = sorted(filled + replaced)
    if hand.realistic:
        rng.shuffle(lifts)
        rng.shuffle(places)
    for square in lifts:
        hand.lift(square)
    for square in places:
        hand.report(square, new[square])
    return hand.reports


def takeback_motions(
    before: chess.BaseBoard,
    after: chess.BaseBoard,
    rng: random.Random,
    *,
    style: MotionStyle = MotionStyle.REALISTIC,
) -> list[Motion]:
    """The square changes that turn the placement `before` into the placement `after` (e.g. a takeback)."""
    return _diff(before, after, rng, style)
