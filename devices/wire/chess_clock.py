"""The Boardcast Wire `chess-clock` STATE and EVENT bodies, read strictly and written back."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from devices.observations import ChessClockState, DeviceEvent
from devices.wire.bodies import CLOCK_TIMES, PAIR, BodyError, ClockTimes, Pair, Side, read_body
from devices.wire.reports import read_event

WIRE_CLOCK_RESOLUTION_MS = 1  # a Wire chess clock counts milliseconds, not display seconds
CHESS_CLOCK_EVENT_KINDS = ("press",)


class _ClockBody(msgspec.Struct):
    remaining_ms: ClockTimes
    running: Side | None = None
    moves: Pair | None = None
    flag: Side | None = None
    period: Annotated[int, Meta(ge=1)] | None = None


class _PressData(msgspec.Struct):
    side: Side
    remaining_ms: ClockTimes | None = None


_STATE_MUSTS = {
    "remaining_ms": CLOCK_TIMES,
    "running": "0, 1 or null (stopped)",
    "moves": PAIR,
    "flag": "0, 1 or null (no flag fallen)",
    "period": "an integer from 1 or null",
}
_PRESS_MUSTS = {"side": "0 or 1", "remaining_ms": CLOCK_TIMES}


def decode_chess_clock_state(body: Any) -> ChessClockState:
    """Read a chess-clock STATE body; `running`, `flag`, `moves` and `period` may be null (or absent)."""
    clock = read_body(body, _ClockBody, "state", _STATE_MUSTS)
    return ChessClockState(
        remaining_ms=clock.remaining_ms,
        running=clock.running,
        flags=(clock.flag == 0, clock.flag == 1),
        resolution_ms=WIRE_CLOCK_RESOLUTION_MS,
        moves=clock.moves,
        period=clock.period,
    )


def decode_chess_clock_event(body: Any) -> DeviceEvent:
    """Read a chess-clock EVENT body: a `press` with its side and, when known, both remaining times."""
    event = read_event(body)
    if event.kind not in CHESS_CLOCK_EVENT_KINDS:
        raise BodyError(
            f"event.kind of a chess-clock must be one of {', '.join(CHESS_CLOCK_EVENT_KINDS)}, got {event.kind!r}"
        )
    press = read_body(event.data, _PressData, f"event.data ({event.kind})", _PRESS_MUSTS)
    remaining = None if press.remaining_ms is None else list(press.remaining_ms)
    return DeviceEvent(event.kind, {"side": press.side, "remaining_ms": remaining})


def chess_clock_body(report: ChessClockState) -> dict[str, Any]:
    """The chess-clock STATE body of a clock state; raise ValueError for what the body cannot carry."""
    if all(report.flags) or any(report.period_flags) or report.time_per_move is not None:
        raise ValueError(
            "a Boardcast Wire chess clock shows at most one fallen flag and no period flags or time-per-move "
            f"icon; got flags {report.flags}, period_flags {report.period_flags}, "
            f"time_per_move {report.time_per_move}"
        )
    if report.resolution_ms != WIRE_CLOCK_RESOLUTION_MS:
        raise ValueError(
            f"a Boardcast Wire chess clock counts milliseconds (resolution_ms=1), got {report.resolution_ms}"
        )
    return {
        "remaining_ms": list(report.remaining_ms),
        "running": report.running,
        "moves": None if report.moves is None else list(report.moves),
        "flag": 0 if report.flags[0] else 1 if report.flags[1] else None,
        "period": report.period,
    }
