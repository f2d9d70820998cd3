"""Deciding what a settled board means and entering it into the game: moves, takebacks, corrections,
illegal moves, result signals and boards out of step, with the press bookkeeping that completes a ply."""

from __future__ import annotations

from dataclasses import replace

import chess

from devices.observations import ChessBoardState
from hub.rules.base import Severity
from hub.rules.chess.board import classify, gap_reading, signal_of
from hub.rules.chess.model import (
    CENTRE,
    COLOUR_NAMES,
    RECENT,
    SIDE_NAMES,
    SIDE_TR,
    ChessState,
    IllegalFlag,
    Kind,
    Out,
    PlayedMove,
    Reading,
    _who,
    clock_running,
    colour_of,
    colour_times,
)
from hub.rules.chess.orient import as_read, detect, turned_round


def on_board(state: ChessState, report: ChessBoardState, at: float, out: Out) -> ChessState:
    state = settle(state, at, out)
    state = detect(state, report, out)
    report = as_read(state, report)
    magic = tuple(report.magic)
    if state.board_joined and report.board_fen == state.game.placement:
        state = replace(state, board_joined=False)  # the board shows the game: nothing was missed
    if report.board_fen == state.shown and magic == state.magic:
        return state
    recent = (*state.recent[-(RECENT - 1) :], report.board_fen) if state.result is None else ()
    state = replace(state, shown=report.board_fen, shown_at=at, magic=magic, recent=recent)
    if state.result is None and report.board_fen == state.game.placement:
        return in_step(state, out, "the board was set back to the game position")
    if state.out_since is None and state.result is None:
        state = replace(state, out_since=at)
    return state


def in_step(state: ChessState, out: Out, how: str) -> ChessState:
    """The board shows the game again: flags about it are resolved by the rules."""
    if state.illegal is not None:
        out.fact("anomaly_resolved", code="chess.illegal_move", how=how)
    if state.mismatch_open:
        out.fact("anomaly_resolved", code="chess.board_mismatch", how=how)
    return replace(state, illegal=None, mismatch_open=False, out_since=None)


def settle(state: ChessState, at: float, out: Out, *, press: bool = False) -> ChessState:
    """Decide what the board shows, if it has waited long enough (a press: at once)."""
    if state.shown_at is None:
        return state
    if state.result is not None:
        return _watch_after_end(state, at, out)
    if state.magic and (press or at - state.shown_at >= state.config.settle_s):
        signal, squares, _ = signal_of(state.shown, state.magic)
        if signal is not None:  # an e-board's result piece: the players' result, like the kings in the centre
            return _result_signal(
                state, Reading(Kind.SIGNAL, result=signal, squares=squares), at, out, "magic"
            )
    if state.shown == state.game.placement:
        return state
    cfg = state.config
    waited = at - state.shown_at
    overdue = (
        state.out_since is not None and at - state.out_since >= cfg.mismatch_s and not state.mismatch_open
    )
    if not press and waited < cfg.settle_s and not overdue:
        return state
    reading, lag = _settled_reading(state)
    if reading.kind is Kind.TAKEBACK and _set_up_again(state, reading):
        reading = Reading(Kind.UNKNOWN, squares=_differing(state.game.placement, state.shown))
    if reading.kind is Kind.UNKNOWN:  # a settled board a few plies ahead, after a gap (a reconnect)?
        reading = gap_reading(state.game, state.shown) or reading
    if reading.kind is Kind.UNKNOWN:  # or a board that lies the other way round, found only now?
        flipped = turned_round(state, out)
        if flipped is not None:
            return settle(flipped, at, out, press=press)  # once: the turned board reads as plies
    kind = reading.kind
    if kind is Kind.SIGNAL:
        if press or waited >= cfg.settle_s:
            return _result_signal(state, reading, at, out)
        return state
    if kind in (Kind.MOVE, Kind.CORRECTION):
        return _settle_plies(state, reading, lag, waited, out, press=press)
    if kind is Kind.TAKEBACK:
        return _accept(state, reading, out) if press or waited >= cfg.extend_s else state
    if kind is Kind.ILLEGAL:
        if (press or waited >= cfg.illegal_s) and (
            state.illegal is None or state.illegal.board_fen != state.shown
        ):
            return _flag_illegal(state, reading, at, out)
        return state
    if overdue:
        return _flag_mismatch(state, reading, at, out)
    return state


SET_UP_PLIES = 4  # a board back at the start after more plies than this is set up again, not taken back


def _set_up_again(state: ChessState, reading: Reading) -> bool:
    """The pieces back on their start squares after a game of some length: set up for a new game (after a
    resignation or a draw agreed the board cannot show), never a takeback of the whole game. The arbiter can
    still take the game back with `TakeBack`."""
    return reading.rewind > SET_UP_PLIES and state.shown == chess.STARTING_BOARD_FEN


def _differing(game: str, shown: str) -> tuple[str, ...]:
    """The squares where two placements differ, a1 first."""
    a, b = chess.BaseBoard(game), chess.BaseBoard(shown)
    return tuple(chess.square_name(s) for s in chess.SQUARES if a.piece_at(s) != b.piece_at(s))


def _settled_reading(state: ChessState) -> tuple[Reading, bool]:
    """What the settled board means, given the presses; and whether it lags a press (`_scan_lag`)."""
    reading = classify(state.game, state.shown)
    lag = _scan_lag(state, reading)
    stale = reading.kind is Kind.CORRECTION and reading.rewind > state.unpressed and not lag
    if stale and state.last_running is not None:
        # A pressed move is complete (FIDE 6.2): changing it is the arbiter's call, not the board's.
        assert reading.fallback is not None
        reading = reading.fallback
    if reading.back and not any(via in state.recent for _, via in reading.options):
        # In a repetition two plies on and two plies back leave the same board: only the board between the
        # two forward plies, seen on the way, says it was played on rather than taken back.
        reading = Reading(Kind.TAKEBACK, rewind=reading.back)
    return reading, lag


def _settle_plies(
    state: ChessState, reading: Reading, lag: bool, waited: float, out: Out, *, press: bool
) -> ChessState:
    """One or two plies (or a corrected one): entered once they have waited long enough for what they are."""
    cfg = state.config
    # every ply shown already completed by a press (a waiting press first completes an unpressed ply)?
    owed = 1 if state.unpressed - reading.rewind >= 1 else 0
    pressed = len(state.early_presses) + lag - owed >= len(reading.moves)
    if press and pressed:
        need = 0.0  # the player says the move is complete: even a slider has arrived
    elif (reading.extendable or reading.kind is Kind.CORRECTION) and not pressed:
        need = cfg.extend_s  # a hand still on its way, or a piece held in the air, must not rewrite moves
    else:
        need = cfg.settle_s
    if waited < need:
        return state
    if lag:  # the press went with the ply it completed: it completes the corrected one instead
        assert state.last_press is not None
        state = replace(state, early_presses=(state.last_press, *state.early_presses))
    return _accept(state, reading, out)


def _flag_mismatch(state: ChessState, reading: Reading, at: float, out: Out) -> ChessState:
    """The board has differed from the game for `mismatch_s`: flagged once."""
    assert state.out_since is not None  # only an overdue board is flagged
    game = state.game
    out.anomaly(
        "chess.board_mismatch",
        Severity.WARNING,
        f"The board has differed from the game for {at - state.out_since:.0f} s on "
        f"{', '.join(reading.squares) or 'no square'}; set the pieces as in the game or correct the game.",
        f"Tahta {at - state.out_since:.0f} sn'dir oyundan farklı ({', '.join(reading.squares) or '-'}); "
        f"taşları oyundaki gibi dizin ya da oyunu düzeltin.",
        squares=list(reading.squares),
        board_fen=state.shown,
        game_fen=game.board.fen(),
        ply=len(state.moves),
        since=state.out_since,
    )
    return replace(state, mismatch_open=True)


def _scan_lag(state: ChessState, reading: Reading) -> bool:
    """A board that changes the ply a press has just completed, within a scan of the press: the board had not
    finished reporting the move when the press was read (a fast hand, a slow scan), so it may still correct it."""
    press = state.last_press
    return (
        reading.kind is Kind.CORRECTION
        and reading.rewind == 1
        and state.unpressed == 0
        and press is not None
        and state.shown_at is not None
        and state.shown_at - press[0] <= state.config.settle_s
    )


def _accept(state: ChessState, reading: Reading, out: Out) -> ChessState:
    """Enter what the board shows into the game: a takeback first, then the plies."""
    at = state.shown_at if state.shown_at is not None else 0.0
    moves = reading.moves
    for option, via in reading.options:
        if via in state.recent:  # the board was seen after this first ply: that is what was played
            moves = option
            break
    if reading.rewind:
        state = _rewind(state, reading.rewind, out, by="board")
    # read at once after a gap (a reconnect, lost updates, the hub joining a game under way): its presses
    # went unseen
    joined = state.board_joined and bool(moves)
    gap = len(moves) > 2 or joined
    state = replace(state, board_joined=False)
    pressed = _gap_presses(state, len(moves)) if gap else {}
    if gap:
        out.fact("board_gap", plies=len(moves), moves=[m.uci() for m in moves], ply=len(state.moves))
    for i, move in enumerate(moves):
        if gap:  # each ply takes the press its player made, if seen; no "moved without a press" in a gap
            press = pressed.get(i)
            state = replace(state, early_presses=() if press is None else (press,))
            state = replace(state, unpressed=0) if i else state
        # the board shows what the last ply leaves: no need to work the placement out again
        state = _push(state, move, at, out, placement=state.shown if i == len(moves) - 1 else None)
        if state.result is not None:
            break
    if joined and state.result is None:
        state = pressed_before_join(state, out)
    if state.shown == state.game.placement:
        how = "a legal move was made" if moves else "the board was set back to an earlier position"
        state = in_step(state, out, how)
    return state


def pressed_before_join(state: ChessState, out: Out) -> ChessState:
    """Plies made before the hub joined the game: a clock running for the side now to move says the last
    of them was pressed (and, when the hub does not know it yet, which clock side is White's)."""
    reading = state.clock
    if reading is None or reading.running is None:
        return state
    to_move = state.game.board.turn
    if state.white_side is None:
        white = reading.running if to_move == chess.WHITE else 1 - reading.running
        out.fact("clock_sides", white_side=SIDE_NAMES[white], source="start")
        state = replace(state, white_side=white, sides_source="start")
    if state.unpressed and colour_of(state, reading.running) == to_move:
        state = replace(state, unpressed=0)
    return state


def _gap_presses(state: ChessState, plies: int) -> dict[int, tuple[float, int, int]]:
    """The presses seen before a gap's plies were read, each given to the latest ply its player made (a
    press completes its own player's move; the presses between the others went with the lost updates)."""
    turn = state.game.board.turn
    found: dict[int, tuple[float, int, int]] = {}
    ply = plies - 1
    for press in reversed(state.early_presses):
        colour = colour_of(state, press[1])
        while ply >= 0 and colour is not None and (turn if ply % 2 == 0 else not turn) != colour:
            ply -= 1
        if ply < 0:
            break
        found[ply] = press
        ply -= 1
    return found


def _rewind(state: ChessState, plies: int, out: Out, *, by: str) -> ChessState:
    taken = state.moves[len(state.moves) - plies :]
    out.fact(
        "takeback",
        plies=plies,
        moves=[m.uci for m in taken],
        ply=len(state.moves) - plies,
        by=by,
    )
    return replace(
        state,
        moves=state.moves[: len(state.moves) - plies],
        game=state.game.rewind(plies),
        recent=(),
        unpressed=max(0, state.unpressed - plies),
    )


def _push(
    state: ChessState,
    move: chess.Move,
    at: float,
    out: Out,
    *,
    illegal: bool = False,
    placement: str | None = None,
) -> ChessState:
    """Add one ply; the press bookkeeping decides whether the previous ply went without a press."""
    game = state.game
    board = game.board
    mover = board.turn
    if not move:  # the null ply before a move made out of turn: no move of its own, no press to judge
        played = PlayedMove(move.uci(), "--", at, None, True)
        return replace(state, moves=(*state.moves, played), game=game.push(move), recent=())
    san = board.san(move) if not illegal else _illegal_san(board, move)
    queue = state.early_presses
    if state.unpressed >= 1 and queue:  # a waiting press completes the ply before this one first
        state = _complete(replace(state, early_presses=queue[1:]), queue[0], out)
        queue = state.early_presses
    clock_ms = None
    unpressed = state.unpressed
    press_side = None
    last_press = None
    if queue:  # the press came before the board was read: it completes this ply
        last_press = queue[0]
        _, press_side, clock_ms = last_press
        queue = queue[1:]
        unpressed = 0
    else:
        if unpressed >= 1 and clock_running(state) and state.moves:
            _move_without_press(state, mover, out)
        if clock_running(state):  # with the clock stopped (or not yet started) no press is owed
            unpressed += 1
    played = PlayedMove(move.uci(), san, at, clock_ms, illegal)
    state = replace(
        state,
        moves=(*state.moves, played),
        game=game.push(move, placement),
        recent=(),
        unpressed=unpressed,
        early_presses=queue,
        last_press=last_press,
    )
    if press_side is not None:
        state = _check_sides(state, press_side, out)
    white_ms, black_ms = colour_times(state)
    out.fact(
        "move",
        ply=len(state.moves),
        uci=played.uci,
        san=san,
        colour=COLOUR_NAMES[mover],
        clock_ms=clock_ms,
        white_ms=white_ms,
        black_ms=black_ms,
        moved_at=at,
        **({"illegal": True} if illegal else {}),
    )
    return state if illegal else _board_ending(state, out)


def _move_without_press(state: ChessState, mover: chess.Color, out: Out) -> None:
    """`mover` is moving, but the clock was not pressed after the last ply."""
    last = state.moves[-1]
    out.anomaly(
        "chess.move_without_press",
        Severity.WARNING,
        f"{_who(not mover)} played {last.san} (ply {len(state.moves)}) and {_who(mover)} "
        f"moved without the clock being pressed in between.",
        f"{_who(not mover)} {last.san} oynadı ({len(state.moves)}. yarım hamle) ve saate "
        f"basılmadan {_who(mover)} hamle yaptı.",
        ply=len(state.moves),
        san=last.san,
        colour=COLOUR_NAMES[not mover],
    )


def _board_ending(state: ChessState, out: Out) -> ChessState:
    """The game ends on the board: checkmate, stalemate, insufficient material, 75 moves, fivefold."""
    outcome = state.game.board.outcome(claim_draw=False)
    if outcome is not None:
        reason = outcome.termination.name.lower()
        state = replace(state, result=outcome.result(), result_reason=reason, out_since=None)
        out.fact("game_over", result=outcome.result(), reason=reason, ply=len(state.moves))
    return state


def _illegal_san(board: chess.Board, move: chess.Move) -> str:
    """A readable name for a move the rules forbid (long algebraic: python-chess's SAN needs a legal move)."""
    piece = board.piece_at(move.from_square)
    letter = "" if piece is None or piece.piece_type == chess.PAWN else piece.symbol().upper()
    sep = "x" if board.piece_at(move.to_square) is not None else "-"
    promo = f"={chess.piece_symbol(move.promotion).upper()}" if move.promotion else ""
    return f"{letter}{chess.square_name(move.from_square)}{sep}{chess.square_name(move.to_square)}{promo}"


def _flag_illegal(state: ChessState, reading: Reading, at: float, out: Out) -> ChessState:
    board = state.game.board
    moves = [m for m in reading.moves if m]
    move = moves[-1]
    piece = board.piece_at(move.from_square)
    colour = piece.color if piece is not None else board.turn
    out_of_turn = colour != board.turn
    text = _illegal_san(board, move)
    why_en = "out of turn" if out_of_turn else "not legal in this position"
    why_tr = "sırası gelmeden" if out_of_turn else "bu konumda kurallara aykırı"
    out.anomaly(
        "chess.illegal_move",
        Severity.ERROR,
        f"{_who(colour)} played {text}, {why_en} (after ply {len(state.moves)}); restore the position "
        f"or let the move stand.",
        f"{_who(colour)} {text} oynadı, {why_tr} ({len(state.moves)}. yarım hamleden sonra); konumu "
        f"geri kurun ya da hamleyi geçerli sayın.",
        uci=move.uci(),
        move=text,
        colour=COLOUR_NAMES[colour],
        out_of_turn=out_of_turn,
        from_square=chess.square_name(move.from_square),
        to_square=chess.square_name(move.to_square),
        ply=len(state.moves),
        board_fen=state.shown,
        game_fen=board.fen(),
    )
    return replace(state, illegal=IllegalFlag(state.shown, tuple(m.uci() for m in reading.moves), at))


def _result_signal(
    state: ChessState, reading: Reading, at: float, out: Out, source: str = "kings"
) -> ChessState:
    """Both kings in the centre: the players' result, informational like every result; never a move."""
    assert reading.result is not None
    played = state.moves[-1] if state.moves and source == "kings" else None
    if played is not None and played.clock_ms is None and at - played.at < state.config.mismatch_s:
        last = chess.Move.from_uci(played.uci)
        piece = state.game.board.piece_at(last.to_square)
        if piece is not None and piece.piece_type == chess.KING and chess.BB_SQUARES[last.to_square] & CENTRE:
            # a king just stepped into the centre, no press completed it: the first half of the signal
            state = _rewind(state, 1, out, by="result_signal")
    out.fact("result_signal", result=reading.result, kings=list(reading.squares), source=source)
    state = replace(
        state,
        result=reading.result,
        result_reason="result_signal",
        signal=reading.result,
        illegal=None,
        mismatch_open=False,
        out_since=None,
    )
    out.fact("game_over", result=reading.result, reason="result_signal", ply=len(state.moves))
    return state


def _watch_after_end(state: ChessState, at: float, out: Out) -> ChessState:
    """After the result only a result signal means something: reported once per signal."""
    if state.shown_at is None or at - state.shown_at < state.config.settle_s:
        return state
    signal, squares, source = signal_of(state.shown, state.magic)
    if signal == state.signal:
        return state
    if signal is not None:
        out.fact("result_signal", result=signal, kings=list(squares), source=source)
        if signal != state.result:
            out.anomaly(
                "chess.result_conflict",
                Severity.WARNING,
                f"The players signal {signal} on the board, but the game ended {state.result} "
                f"({state.result_reason}); check the result.",
                f"Oyuncular tahtada {signal} sonucunu gösteriyor, ancak oyun {state.result} bitti "
                f"({state.result_reason}); sonucu kontrol edin.",
                signal=signal,
                result=state.result,
                reason=state.result_reason,
            )
    return replace(state, signal=signal)


def _complete(state: ChessState, press: tuple[float, int, int], out: Out) -> ChessState:
    """A press completes the last ply (decided before the press was read)."""
    last = state.moves[-1]
    state = replace(
        state, moves=(*state.moves[:-1], replace(last, clock_ms=press[2])), unpressed=0, last_press=press
    )
    return _check_sides(state, press[1], out)


def _check_sides(state: ChessState, side: int, out: Out) -> ChessState:
    """The side that pressed should be the side of the player who just moved."""
    mover = not state.game.board.turn  # the colour that made the last ply
    if state.white_side is None:
        white = side if mover == chess.WHITE else 1 - side
        out.fact("clock_sides", white_side=SIDE_NAMES[white], source="press")
        return replace(state, white_side=white, sides_source="press", sides_confirmed=True)
    agrees = (state.white_side == side) == (mover == chess.WHITE)
    if agrees:
        if state.sides_open:
            out.fact("anomaly_resolved", code="chess.clock_sides", how="a press agreed with the sides")
        return replace(state, sides_confirmed=True, sides_open=False)
    if not state.sides_confirmed and state.sides_source in ("start", "press"):
        white = 1 - state.white_side
        out.fact("clock_sides", white_side=SIDE_NAMES[white], source="press")
        return replace(state, white_side=white, sides_source="press", sides_confirmed=True)
    if not state.sides_open:
        out.anomaly(
            "chess.clock_sides",
            Severity.WARNING,
            f"The {SIDE_NAMES[side]} clock was pressed after the move of {_who(mover)}, but that side is the "
            f"clock of {_who(not mover)}; the clock runs for the wrong player or its sides are set wrong.",
            f"{_who(mover)} hamlesinden sonra {SIDE_TR[side]} saate basıldı, ancak o taraf "
            f"{_who(not mover)} oyuncusunun; saat yanlış oyuncu için çalışıyor ya da taraflar yanlış.",
            side=SIDE_NAMES[side],
            mover=COLOUR_NAMES[mover],
            white_side=SIDE_NAMES[state.white_side],
            ply=len(state.moves),
        )
    return replace(state, sides_open=True)
