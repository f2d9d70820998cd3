"""The reducer: one input folded into the game, dispatched to the board, the clock or the arbiter."""

from __future__ import annotations

from dataclasses import replace

from devices.observations import ChessBoardState, ChessClockState, DeviceEvent
from hub.rules.base import Outcome, Severity
from hub.rules.chess.clock import on_clock, on_event, on_tick, reading_of
from hub.rules.chess.model import (
    ChessState,
    ClockSides,
    Input,
    KeepIllegal,
    Orientation,
    Out,
    SetResult,
    TakeBack,
    Tick,
)
from hub.rules.chess.moves import in_step, on_board, settle
from hub.rules.chess.orient import on_orientation
from hub.rules.chess.referee import on_clock_sides, on_keep_illegal, on_set_result, on_take_back


def apply(state: ChessState, item: Input, at: float) -> Outcome[ChessState]:
    """Fold one input into the game; never raises on what a device reported, reports it."""
    out = Out()
    before = state
    if isinstance(item, ChessBoardState):
        state = on_board(state, item, at, out)
    elif isinstance(item, ChessClockState):
        reading = reading_of(item, at)
        if reading is None:
            out.anomaly(
                "chess.bad_event",
                Severity.WARNING,
                f"A clock reading cannot be read ({item!r}); it was kept and skipped.",
                f"Bir saat okuması okunamadı ({item!r}); saklandı ve atlandı.",
                report=repr(item),
            )
        else:
            state = on_clock(state, reading, at, out)
    elif isinstance(item, DeviceEvent):
        state = on_event(state, item, at, out)
    elif isinstance(item, Tick):
        state = on_tick(state, at, out)
    elif isinstance(item, KeepIllegal):
        state = on_keep_illegal(settle(state, at, out), at, out)
    elif isinstance(item, SetResult):
        state = on_set_result(settle(state, at, out), item, at, out)
    elif isinstance(item, TakeBack):
        state = on_take_back(settle(state, at, out), item, at, out)
    elif isinstance(item, ClockSides):
        state = on_clock_sides(state, item, out)
    elif isinstance(item, Orientation):
        state = on_orientation(state, item, at, out)
        if state.result is None and state.shown == state.game.placement:
            state = in_step(state, out, "the arbiter set which way round the board lies")
    else:
        out.anomaly(
            "chess.unknown_input",
            Severity.ERROR,
            f"The chess rules got an input they do not know ({type(item).__name__}); it was kept and skipped.",
            f"Satranç kuralları tanımadığı bir girdi aldı ({type(item).__name__}); saklandı ve atlandı.",
            type=type(item).__name__,
        )
    state = _watch_quiet(before, state, at, out)
    return Outcome(state, tuple(out.facts), tuple(out.anomalies))


def _watch_quiet(before: ChessState, state: ChessState, at: float, out: Out) -> ChessState:
    """A live game whose board and stopped clock have not changed for `quiet_s` waits for a result the board
    cannot see (a resignation, a draw agreed): flagged once, resolved by a result, a move or a running clock."""
    running = state.clock is not None and state.clock.running is not None
    if state.awaiting_open:
        if state.result is not None:
            out.fact("anomaly_resolved", code="chess.awaiting_result", how="a result was recorded")
            return replace(state, awaiting_open=False)
        if state.moves is not before.moves or running:
            out.fact("anomaly_resolved", code="chess.awaiting_result", how="play resumed")
            return replace(state, awaiting_open=False)
        return state
    if running or state.result is not None or not state.moves:  # a game not yet begun waits for nothing
        return state
    since = quiet_since(state)
    if at - since < state.config.quiet_s:
        return state
    minutes = (at - since) / 60
    out.anomaly(
        "chess.awaiting_result",
        Severity.INFO,
        f"The board and the clock have not changed for {minutes:.0f} min after ply {len(state.moves)} with the "
        f"clock stopped: the game may have ended in a way the board cannot show (resignation, draw agreed); "
        f"record the result.",
        f"Tahta ve saat {minutes:.0f} dakikadır değişmedi ({len(state.moves)}. yarım hamleden sonra, saat "
        f"durmuş): oyun tahtanın gösteremeyeceği bir biçimde bitmiş olabilir (terk, anlaşmalı beraberlik); "
        f"sonucu girin.",
        ply=len(state.moves),
        since=since,
        quiet_s=state.config.quiet_s,
    )
    return replace(state, awaiting_open=True)


def quiet_since(state: ChessState) -> float:
    """When the board, the clock's display or the game last changed (the game has at least one move)."""
    since = state.moves[-1].at
    if state.shown_at is not None and state.shown_at > since:
        since = state.shown_at
    if state.clock_changed_at is not None and state.clock_changed_at > since:
        since = state.clock_changed_at
    return since
