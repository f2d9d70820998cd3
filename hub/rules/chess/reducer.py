"""The reducer: one input folded into the game, dispatched to the board, the clock or the arbiter."""

from __future__ import annotations

from devices.observations import ChessBoardState, ChessClockState, DeviceEvent
from hub.rules.base import Outcome, Severity
from hub.rules.chess.clock import _on_clock, _on_event, _on_tick, _reading_of
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
from hub.rules.chess.moves import _in_step, _on_board, _settle
from hub.rules.chess.orient import on_orientation
from hub.rules.chess.referee import _on_clock_sides, _on_keep_illegal, _on_set_result, _on_take_back


def apply(state: ChessState, item: Input, at: float) -> Outcome[ChessState]:
    """Fold one input into the game; never raises on what a device reported, reports it."""
    out = Out()
    if isinstance(item, ChessBoardState):
        state = _on_board(state, item, at, out)
    elif isinstance(item, ChessClockState):
        reading = _reading_of(item, at)
        if reading is None:
            out.anomaly(
                "chess.bad_event",
                Severity.WARNING,
                f"A clock reading cannot be read ({item!r}); it was kept and skipped.",
                f"Bir saat okuması okunamadı ({item!r}); saklandı ve atlandı.",
                report=repr(item),
            )
        else:
            state = _on_clock(state, reading, at, out)
    elif isinstance(item, DeviceEvent):
        state = _on_event(state, item, at, out)
    elif isinstance(item, Tick):
        state = _on_tick(state, at, out)
    elif isinstance(item, KeepIllegal):
        state = _on_keep_illegal(_settle(state, at, out), at, out)
    elif isinstance(item, SetResult):
        state = _on_set_result(_settle(state, at, out), item, at, out)
    elif isinstance(item, TakeBack):
        state = _on_take_back(_settle(state, at, out), item, at, out)
    elif isinstance(item, ClockSides):
        state = _on_clock_sides(state, item, out)
    elif isinstance(item, Orientation):
        state = on_orientation(state, item, at, out)
        if state.result is None and state.shown == state.game.placement:
            state = _in_step(state, out, "the arbiter set which way round the board lies")
    else:
        out.anomaly(
            "chess.unknown_input",
            Severity.ERROR,
            f"The chess rules got an input they do not know ({type(item).__name__}); it was kept and skipped.",
            f"Satranç kuralları tanımadığı bir girdi aldı ({type(item).__name__}); saklandı ve atlandı.",
            type=type(item).__name__,
        )
    return Outcome(state, tuple(out.facts), tuple(out.anomalies))
