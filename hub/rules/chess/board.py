"""Reading a board against the game: what a placement means (a move, two plies, a takeback, a correction,
a result signal, an illegal move, or nothing the game explains). Pure functions of the game and the board,
memoised per game position."""

from __future__ import annotations

import chess

from hub.rules.chess.model import (
    CENTRE,
    CORRECTION_PLIES,
    GAP_BUDGET,
    GAP_PLIES,
    MAGIC_RESULTS,
    MEMO_LIMIT,
    Game,
    Kind,
    Reading,
    _board_fen,
)

_SYNC = Reading(Kind.SYNC)


def signal_of(shown: str, magic: tuple[str, ...]) -> tuple[str | None, tuple[str, ...], str]:
    """The result a board signals (kings in the centre, or an e-board's result pieces), with the squares."""
    if magic:
        kinds = {entry.partition("=")[2] for entry in magic}
        if len(kinds) == 1 and next(iter(kinds)) in MAGIC_RESULTS:
            return MAGIC_RESULTS[next(iter(kinds))], tuple(e.partition("=")[0] for e in magic), "magic"
    placement = _placement(shown)
    if placement is None:
        return None, (), "kings"
    found = _kings_signal(placement)
    if found is None:
        return None, (), "kings"
    return found[0], found[1], "kings"


def _kings_signal(placement: chess.BaseBoard) -> tuple[str, tuple[str, ...]] | None:
    kings = placement.kings
    white = kings & placement.occupied_co[chess.WHITE]
    black = kings & placement.occupied_co[chess.BLACK]
    if chess.popcount(white) != 1 or chess.popcount(black) != 1 or (kings & ~CENTRE):
        return None
    wk, bk = chess.lsb(white), chess.lsb(black)
    light_w = bool(chess.BB_SQUARES[wk] & chess.BB_LIGHT_SQUARES)
    light_b = bool(chess.BB_SQUARES[bk] & chess.BB_LIGHT_SQUARES)
    outcome = "1-0" if light_w and light_b else "0-1" if not light_w and not light_b else "1/2-1/2"
    return outcome, (chess.square_name(wk), chess.square_name(bk))


_PLACEMENTS: dict[str, chess.BaseBoard | None] = {}
_PIECE_INDEX = {c: i for i, c in enumerate("pnbrqkPNBRQK")}


def _placement(fen: str) -> chess.BaseBoard | None:
    """A placement FEN as a board (cached; python-chess's own parser is ~10x slower), None if malformed."""
    try:
        return _PLACEMENTS[fen]
    except KeyError:
        pass
    masks = [0] * 12
    square = 56
    ok = True
    rank_len = 0
    ranks = 1
    for ch in fen:
        if ch == "/":
            if rank_len != 8:
                ok = False
                break
            square -= 16
            rank_len = 0
            ranks += 1
        elif "1" <= ch <= "8":
            square += ord(ch) - 48
            rank_len += ord(ch) - 48
        else:
            index = _PIECE_INDEX.get(ch)
            if index is None or rank_len >= 8:
                ok = False
                break
            masks[index] |= 1 << square
            square += 1
            rank_len += 1
    board: chess.BaseBoard | None = None
    if ok and ranks == 8 and rank_len == 8:
        board = chess.BaseBoard.empty()
        board.pawns = masks[0] | masks[6]
        board.knights = masks[1] | masks[7]
        board.bishops = masks[2] | masks[8]
        board.rooks = masks[3] | masks[9]
        board.queens = masks[4] | masks[10]
        board.kings = masks[5] | masks[11]
        board.occupied_co[chess.BLACK] = masks[0] | masks[1] | masks[2] | masks[3] | masks[4] | masks[5]
        board.occupied_co[chess.WHITE] = masks[6] | masks[7] | masks[8] | masks[9] | masks[10] | masks[11]
        board.occupied = board.occupied_co[chess.WHITE] | board.occupied_co[chess.BLACK]
    if len(_PLACEMENTS) > 4096:
        _PLACEMENTS.clear()
    _PLACEMENTS[fen] = board
    return board


def _diff(a: chess.BaseBoard, b: chess.BaseBoard) -> int:
    """The squares whose content differs."""
    return (
        (a.pawns ^ b.pawns)
        | (a.knights ^ b.knights)
        | (a.bishops ^ b.bishops)
        | (a.rooks ^ b.rooks)
        | (a.queens ^ b.queens)
        | (a.kings ^ b.kings)
        | (a.occupied_co[chess.WHITE] ^ b.occupied_co[chess.WHITE])
        | (a.occupied_co[chess.BLACK] ^ b.occupied_co[chess.BLACK])
    )


def classify(game: Game, shown: str) -> Reading:
    """What `shown` means against the game (memoised per game position)."""
    found = game.memo.get(shown)
    if found is not None:
        return found
    reading = _read(game, shown)
    if len(game.memo) >= MEMO_LIMIT:
        game.memo.clear()
    game.memo[shown] = reading
    return reading


def _read(game: Game, shown: str) -> Reading:
    if shown == game.placement:
        return _SYNC
    target = _placement(shown)
    if target is None:
        return Reading(Kind.UNKNOWN, squares=("?",))
    signal = _kings_signal(target)
    if signal is not None:
        return Reading(Kind.SIGNAL, result=signal[0], squares=signal[1])
    board = game.scratch()
    diff = _diff(board, target)
    # Cheap counts rule most boards out before any move is generated: a move never removes the mover's own
    # pieces and takes at most one of the opponent's; a board with a king missing is a hand in the air.
    mover, other = board.turn, not board.turn
    kings = target.kings
    whole = (
        chess.popcount(kings & target.occupied_co[chess.WHITE])
        == 1
        == chess.popcount(kings & target.occupied_co[chess.BLACK])
    )
    have_m, have_o = chess.popcount(board.occupied_co[mover]), chess.popcount(board.occupied_co[other])
    show_m, show_o = chess.popcount(target.occupied_co[mover]), chess.popcount(target.occupied_co[other])
    if whole and show_m == have_m and show_o in (have_o, have_o - 1):
        move = _successor(board, target, diff)
        if move is not None:
            return Reading(Kind.MOVE, (move,), extendable=_extendable(board, move))
    # the opponent's answer leaves the square it came from empty
    answered = board.occupied_co[other] & ~target.occupied
    if whole and answered and show_m in (have_m, have_m - 1) and show_o in (have_o, have_o - 1):
        pairs = _two_plies(board, target, diff)
    else:
        pairs = ()
    n = len(game.placements) - 1
    back = next((n - ply for ply in range(n - 1, -1, -1) if game.placements[ply] == shown), 0)
    if pairs:
        first = pairs[0][0]
        # Two plies that only take pieces off (a capture, and a recapture by a piece like the one taken) are
        # also a hand holding a captured piece it took off first and the capturer: wait as for a piece in
        # the air, so the capturer can land.
        held = not diff & target.occupied
        extendable = held or _extendable_after(board, first)
        return Reading(Kind.MOVE, first, extendable=extendable, options=pairs, back=back)
    if back:
        return Reading(Kind.TAKEBACK, rewind=back)
    illegal = _illegal(board, target, diff)
    if illegal is not None:
        rest = Reading(Kind.ILLEGAL, illegal)
    else:
        rest = Reading(Kind.UNKNOWN, squares=tuple(chess.square_name(s) for s in chess.scan_forward(diff)))
    earlier = game.scratch(CORRECTION_PLIES if whole else 0)
    for rewind in range(1, min(CORRECTION_PLIES, len(earlier.move_stack)) + 1):
        earlier.pop()
        scratch = earlier.copy(stack=False)
        move = _successor(scratch, target, _diff(scratch, target))
        if move is not None:
            return Reading(
                Kind.CORRECTION, (move,), rewind=rewind, extendable=_extendable(scratch, move), fallback=rest
            )
    return rest


def _same(a: chess.BaseBoard, b: chess.BaseBoard) -> bool:
    return _diff(a, b) == 0


def _successor(board: chess.Board, target: chess.BaseBoard, diff: int) -> chess.Move | None:
    """The legal move from `board` (a scratch copy) that gives `target`; a move changes its from and to squares."""
    if not diff:
        return None
    for move in list(board.generate_legal_moves(from_mask=diff, to_mask=diff)):
        board.push(move)
        same = _same(board, target)
        board.pop()
        if same:
            return move
    return None


def _two_plies(
    board: chess.Board, target: chess.BaseBoard, diff: int
) -> tuple[tuple[tuple[chess.Move, ...], str], ...]:
    """Every two legal plies that give `target` (the opponent answered before the board settled), each with
    the board after its first ply."""
    found: list[tuple[tuple[chess.Move, ...], str]] = []
    if not diff or chess.popcount(diff) > 8:
        return ()
    for first in list(board.generate_legal_moves(from_mask=diff)):
        board.push(first)
        left = _diff(board, target)
        if left:
            for second in list(board.generate_legal_moves(from_mask=left, to_mask=left)):
                board.push(second)
                if _same(board, target):
                    board.pop()
                    found.append(((first, second), _board_fen(board)))
                    board.push(second)
                board.pop()
        board.pop()
    return tuple(found)


def gap_reading(game: Game, shown: str) -> Reading | None:
    """A board the game does not explain in one or two plies, read as three to GAP_PLIES plies ahead (memoised
    per game position beside `classify`; asked only of a settled board; a piece held in the hand is ruled out at once, and the search costs
    up to GAP_BUDGET plies tried)."""
    key = "gap " + shown
    found = game.memo.get(key)
    if found is None:
        target = _placement(shown)
        found = _SYNC if target is None else _after_gap(game.scratch(), target) or _SYNC
        if len(game.memo) >= MEMO_LIMIT:
            game.memo.clear()
        game.memo[key] = found
    return None if found is _SYNC else found


def _after_gap(board: chess.Board, target: chess.BaseBoard) -> Reading | None:
    """The board three to GAP_PLIES plies ahead of the game (a reconnect, lost updates): the one legal
    sequence that gives it, fewest plies first; None when there is none or more than one (the moves cannot be
    told apart from the board alone, so none is guessed), or when the search would take too long."""
    kings = target.kings
    if (
        not chess.popcount(kings & target.occupied_co[chess.WHITE])
        == 1
        == chess.popcount(kings & target.occupied_co[chess.BLACK])
    ):
        return None  # a king in the air: a hand at work, not a gap
    for side in (chess.WHITE, chess.BLACK):
        if chess.popcount(target.occupied_co[side]) > chess.popcount(board.occupied_co[side]):
            return None  # moves never add pieces (a promotion replaces one)
    diff = _diff(board, target)
    if not diff & target.occupied:
        return None  # only pieces taken off (lifted, held in the hand): every ply also puts one down
    if _capture_under_way(board, target, diff):
        return None  # a slider dragged towards a piece the hand took off first: one ply on its way
    budget = [GAP_BUDGET]
    for plies in range(3, GAP_PLIES + 1):
        found: list[tuple[chess.Move, ...]] = []
        _sequences(board, target, diff, plies, [], found, budget)
        if budget[0] <= 0:
            return None
        if len(found) == 1:
            moves = found[0]
            for move in moves[:-1]:
                board.push(move)
            extendable = _extendable(board, moves[-1])
            for _ in moves[:-1]:
                board.pop()
            return Reading(Kind.MOVE, moves, extendable=extendable)
        if found:
            return None
    return None


def _capture_under_way(board: chess.Board, target: chess.BaseBoard, diff: int) -> bool:
    """A capture by hand, part done: the captured piece taken off first, then the capturing slider dragged
    towards its square and put down on a square between (a hand pauses on each). Exactly three squares
    differ: the piece taken, the slider's square emptied, and the square on the way holding the slider.

    A gap of three or four plies can give the same board (the opponent's piece moved onto the slider's line
    and was taken there, the slider having stepped aside first), so the board has two explanations and, as
    with any board that has several, no plies are guessed: the one ply in the hand is completed when the
    slider lands; a board that stays so is `chess.board_mismatch` after `mismatch_s`."""
    if chess.popcount(diff) != 3:
        return False
    mover = board.turn
    taken = diff & board.occupied_co[not mover] & ~target.occupied
    origin = diff & board.occupied_co[mover] & ~target.occupied
    on_way = diff & target.occupied_co[mover] & ~board.occupied
    if not (taken and origin and on_way):  # disjoint and within three squares: one square each
        return False
    victim, start, stop = chess.lsb(taken), chess.lsb(origin), chess.lsb(on_way)
    return (
        target.piece_at(stop) == board.piece_at(start)
        and bool(chess.BB_SQUARES[stop] & chess.between(start, victim))
        and board.is_legal(chess.Move(start, victim))
    )


def _sequences(
    board: chess.Board,
    target: chess.BaseBoard,
    diff: int,
    left: int,
    path: list[chess.Move],
    found: list[tuple[chess.Move, ...]],
    budget: list[int],
) -> None:
    """Every `left` legal plies from `board` that give `target`, up to two (two already mean "ambiguous").

    Each ply moves a piece off a square that differs from the target (a piece on its final square stays), and
    the last ply also lands on one. A side's ply puts right at most two of its squares (four castling) and
    takes at most one of the other's, which bounds what `left` plies can still put right."""
    if left == 1:
        move = _successor(board, target, diff)
        if move is not None:
            found.append((*path, move))
        return
    mover = board.turn
    ours = (left + 1) // 2  # the plies still to come for the side to move, and for the other
    theirs = left // 2
    for colour, own, other in ((mover, ours, theirs), (not mover, theirs, ours)):
        wrong = chess.popcount(diff & (board.occupied_co[colour] | target.occupied_co[colour]))
        castling = 2 if own and board.has_castling_rights(colour) else 0
        if wrong > 2 * own + other + castling:
            return
    for move in list(board.generate_legal_moves(from_mask=diff & board.occupied_co[mover])):
        budget[0] -= 1
        if budget[0] <= 0:
            return
        board.push(move)
        _sequences(board, target, _diff(board, target), left - 1, [*path, move], found, budget)
        board.pop()
        if len(found) > 1:
            return


_CASTLING_STEPS = {
    # a piece part-way through castling: (from, to) -> the castling move it may be part of
    (chess.E1, chess.F1): chess.Move(chess.E1, chess.G1),
    (chess.E1, chess.D1): chess.Move(chess.E1, chess.C1),
    (chess.E8, chess.F8): chess.Move(chess.E8, chess.G8),
    (chess.E8, chess.D8): chess.Move(chess.E8, chess.C8),
    (chess.H1, chess.F1): chess.Move(chess.E1, chess.G1),
    (chess.A1, chess.D1): chess.Move(chess.E1, chess.C1),
    (chess.H8, chess.F8): chess.Move(chess.E8, chess.G8),
    (chess.A8, chess.D8): chess.Move(chess.E8, chess.C8),
}


def _extendable(board: chess.Board, move: chess.Move) -> bool:
    """Could the hand still be on its way with this piece? Then the move waits (or the press decides)."""
    piece = board.piece_type_at(move.from_square)
    castle = _CASTLING_STEPS.get((move.from_square, move.to_square))
    if castle is not None and piece in (chess.KING, chess.ROOK) and board.is_legal(castle):
        return True
    if piece == chess.KING:
        return bool(chess.BB_SQUARES[move.to_square] & CENTRE)  # a result signal may be on its way
    if piece == chess.PAWN:
        if board.is_capture(move) or chess.square_distance(move.from_square, move.to_square) != 1:
            return False
        step = 8 if board.turn == chess.WHITE else -8
        start_rank = 1 if board.turn == chess.WHITE else 6
        if chess.square_rank(move.from_square) != start_rank:
            return False
        return board.is_legal(chess.Move(move.from_square, move.from_square + 2 * step))
    if piece in (chess.ROOK, chess.BISHOP, chess.QUEEN) and not board.is_capture(move):
        df = chess.square_file(move.to_square) - chess.square_file(move.from_square)
        dr = chess.square_rank(move.to_square) - chess.square_rank(move.from_square)
        f = chess.square_file(move.to_square) + (df > 0) - (df < 0)
        r = chess.square_rank(move.to_square) + (dr > 0) - (dr < 0)
        if 0 <= f < 8 and 0 <= r < 8:
            return board.is_legal(chess.Move(move.from_square, chess.square(f, r)))
    return False


def _extendable_after(board: chess.Board, pair: tuple[chess.Move, ...]) -> bool:
    board.push(pair[0])
    try:
        return _extendable(board, pair[1])
    finally:
        board.pop()


def _illegal(board: chess.Board, target: chess.BaseBoard, diff: int) -> tuple[chess.Move, ...] | None:
    """The move a forbidden board shows: a pseudo-legal move into check, a piece moved where it cannot go,
    out of turn, or castling without the right. None if no single move explains it."""
    candidates: list[chess.Move] = [
        m for m in board.generate_pseudo_legal_moves(from_mask=diff, to_mask=diff) if not board.is_legal(m)
    ]
    emptied = [
        s for s in chess.scan_forward(diff) if board.piece_at(s) is not None and target.piece_at(s) is None
    ]
    filled = [s for s in chess.scan_forward(diff) if target.piece_at(s) is not None]
    if len(emptied) == 1 and len(filled) == 1:
        origin, dest = emptied[0], filled[0]
        piece, placed = board.piece_at(origin), target.piece_at(dest)
        assert piece is not None and placed is not None
        if placed == piece:
            candidates.append(chess.Move(origin, dest))
        elif (
            piece.piece_type == chess.PAWN
            and placed.color == piece.color
            and placed.piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
            and chess.square_rank(dest) == (7 if piece.color == chess.WHITE else 0)
        ):
            candidates.append(chess.Move(origin, dest, placed.piece_type))
    elif len(emptied) == 2 and len(filled) == 2:
        kings = [s for s in emptied if board.piece_type_at(s) == chess.KING]
        landed = [s for s in filled if target.piece_type_at(s) == chess.KING]
        if len(kings) == 1 and len(landed) == 1:
            candidates.append(chess.Move(kings[0], landed[0]))  # castling that the rules forbid
    for move in candidates:
        colour = board.color_at(move.from_square)
        scratch = board.copy(stack=False)
        moves: tuple[chess.Move, ...] = (move,)
        if colour is not None and colour != scratch.turn:
            scratch.push(chess.Move.null())
            moves = (chess.Move.null(), move)
        try:
            scratch.push(move)
        except (ValueError, AssertionError, IndexError):
            continue
        if _same(scratch, target):
            return moves
    return None
