"""The arbiter's inputs: keep a flagged illegal move, set or reopen the result, take back, set clock sides."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import chess

from hub.rules.base import Severity
from hub.rules.chess import codec
from hub.rules.chess.model import (
    BOARD_ENDINGS,
    RESULTS,
    SIDE_NAMES,
    ChessState,
    ClockSides,
    Out,
    SetResult,
    TakeBack,
)
from hub.rules.chess.moves import _push, _rewind, in_step


def _referee_problem(out: Out, en: str, tr: str, **data: Any) -> None:
    out.anomaly("chess.referee_input", Severity.WARNING, en, tr, **data)


def on_keep_illegal(state: ChessState, at: float, out: Out) -> ChessState:
    flag = state.illegal
    if flag is None:
        _referee_problem(
            out,
            "There is no flagged illegal move to keep; nothing was changed.",
            "Geçerli sayılacak işaretli bir kuralsız hamle yok; hiçbir şey değişmedi.",
        )
        return state
    state = replace(state, illegal=None)
    for uci in flag.ucis:
        move = chess.Move.from_uci(uci)
        state = _push(state, move, at, out, illegal=bool(move))
    out.fact("anomaly_resolved", code="chess.illegal_move", how="kept by the arbiter")
    if state.shown == state.game.placement:
        state = replace(state, out_since=None, mismatch_open=False)
    elif state.out_since is None:
        state = replace(state, out_since=at)
    return state


def on_set_result(state: ChessState, item: SetResult, at: float, out: Out) -> ChessState:
    if item.result == "*":
        out.fact("reopened", previous=state.result, reason=item.reason)
        out_since = None if state.shown == state.game.placement else at
        return replace(state, result=None, result_reason=None, signal=None, out_since=out_since)
    if item.result not in RESULTS:
        _referee_problem(
            out,
            f"{item.result!r} is not a result (1-0, 0-1, 1/2-1/2, or * to reopen); nothing was changed.",
            f"{item.result!r} bir sonuç değil (1-0, 0-1, 1/2-1/2 ya da yeniden açmak için *); değişiklik yok.",
            result=item.result,
        )
        return state
    # `how` (resignation, agreement, forfeit, arbiter) names the ending as the Laws do; the free reason is
    # then the arbiter's note, which stays in the logged input (a note is the referees' own, never public)
    ending = item.how or item.reason or "referee"
    fact: dict[str, Any] = {"how": item.how} if item.how else {}
    out.fact("game_over", result=item.result, reason=ending, ply=len(state.moves), by="referee", **fact)
    return replace(
        state,
        result=item.result,
        result_reason=ending,
        illegal=None,
        mismatch_open=False,
        out_since=None,
    )


def on_take_back(state: ChessState, item: TakeBack, at: float, out: Out) -> ChessState:
    plies = item.plies
    if isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= len(state.moves):
        _referee_problem(
            out,
            f"Cannot take back {plies!r} plies: the game has {len(state.moves)}; nothing was changed.",
            f"{plies!r} yarım hamle geri alınamaz: oyunda {len(state.moves)} var; değişiklik yok.",
            plies=plies,
            ply=len(state.moves),
        )
        return state
    state = _rewind(state, plies, out, by="referee")
    if state.result_reason in BOARD_ENDINGS:
        out.fact("reopened", previous=state.result, reason="take_back")
        state = replace(state, result=None, result_reason=None)
    state = replace(state, illegal=None, early_presses=())
    if state.shown == state.game.placement:
        return in_step(state, out, "the game was corrected")
    # The board still shows what the arbiter took back: it must not be read again until it changes.
    return replace(state, shown_at=None, out_since=None, mismatch_open=False)


def on_clock_sides(state: ChessState, item: ClockSides, out: Out) -> ChessState:
    if item.white not in SIDE_NAMES:
        _referee_problem(
            out,
            f'White\'s clock side must be "left" or "right", got {item.white!r}; nothing was changed.',
            f'Beyazın saat tarafı "left" ya da "right" olmalı, gelen {item.white!r}; değişiklik yok.',
            white=item.white,
        )
        return state
    if state.sides_open:
        out.fact("anomaly_resolved", code="chess.clock_sides", how="set by the arbiter")
    out.fact("clock_sides", white_side=item.white, source="referee")
    return replace(
        state,
        white_side=SIDE_NAMES.index(item.white),
        sides_source="referee",
        sides_confirmed=True,
        sides_open=False,
    )


def result_input(result: Any, how: Any, reason: str) -> dict[str, Any]:
    """An arbiter's result the board cannot see (resignation, agreement, forfeit, an arbiter's decision) as the
    `set_result` input's plain data, or ValueError saying in English and Turkish what is wrong."""
    if result not in ("1-0", "0-1", "1/2-1/2"):
        raise ValueError(
            f'"result" must be "1-0", "0-1" or "1/2-1/2", got {result!r} / sonuç "1-0", "0-1" ya da '
            f'"1/2-1/2" olmalı'
        )
    if how is None:
        raise ValueError(
            '"how" is required: resignation, agreement, flag, forfeit or arbiter / "how" gerekli: terk, '
            "anlaşma, süre, hükmen ya da hakem kararı"
        )
    try:
        item = codec.input_from_dict({"type": "set_result", "result": result, "how": how, "reason": reason})
    except ValueError:  # the result was checked above and the reason is text: only `how` is left
        raise ValueError(
            f'"how" must be resignation, agreement, flag, forfeit or arbiter, got {how!r} / bitiş şekli terk '
            f"(resignation), anlaşma (agreement), süre (flag), hükmen (forfeit) ya da hakem kararı (arbiter) "
            f"olmalı"
        ) from None
    if how == "agreement" and result != "1/2-1/2":
        raise ValueError(
            f'"how" agreement gives a draw (FIDE Laws 5.2.3), not {result}: a win is a resignation, a forfeit or '
            f"an arbiter's decision / anlaşma beraberliktir (FIDE Satranç Kuralları 5.2.3)"
        )
    return codec.input_to_dict(item)
