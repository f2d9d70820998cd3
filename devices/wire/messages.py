"""Boardcast Wire message bodies: frames to `devices.observations` reports, and reports back to frames.

The bodies themselves are read strictly in their own modules (`reports` for HELLO, HEARTBEAT and plain
EVENTs; `tt_scoreboard`, `backgammon_board`, `chess_clock` for each family; `commands` for COMMAND); this
module picks the reader for a frame and is where callers import them from. A body that does not match its
message raises `BodyError` naming the field, what it must be and what came instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from devices.observations import (
    BackgammonBoardEvent,
    BackgammonBoardState,
    ChessClockState,
    DeviceEvent,
    DeviceFamily,
    DeviceHello,
    Heartbeat,
    Report,
    ScoreboardState,
)
from devices.wire.backgammon_board import decode_backgammon_event, decode_backgammon_state
from devices.wire.bodies import MAX_CLOCK_MS, BodyError
from devices.wire.chess_clock import (
    WIRE_CLOCK_RESOLUTION_MS,
    chess_clock_body,
    decode_chess_clock_event,
    decode_chess_clock_state,
)
from devices.wire.codec import Frame, MessageType, StateReader, decode_frame, encode_frame
from devices.wire.commands import Command, CommandInvalid, CommandName, command_fields
from devices.wire.reports import EventKind, decode_event, decode_heartbeat, decode_hello, decode_map
from devices.wire.tt_scoreboard import decode_scoreboard_state, read_scoreboard_state

__all__ = [
    "MAX_CLOCK_MS",
    "WIRE_CLOCK_RESOLUTION_MS",
    "BodyError",
    "Command",
    "CommandInvalid",
    "CommandName",
    "EventKind",
    "command_fields",
    "decode_backgammon_event",
    "decode_backgammon_state",
    "decode_chess_clock_event",
    "decode_chess_clock_state",
    "decode_event",
    "decode_heartbeat",
    "decode_hello",
    "decode_report",
    "decode_scoreboard_state",
    "encode_report",
    "read_scoreboard_state",
    "report_to_body",
    "state_reader",
]


def decode_report(frame: Frame, family: str | None = None) -> Report:
    """Turn a device frame into a report; STATE needs the device family from its HELLO."""
    if frame.type is _STATE:  # nearly every frame: one lookup, not the cases below one by one
        found: Report | None = frame.report
        if found is not None:
            if family is not None and _STATE_REPORTS.get(family) is type(found):
                return found
            again = decode_frame(frame.raw)  # read for another family (a HELLO changed it): read it again
            assert isinstance(again, Frame)  # it was intact a moment ago
            frame = again
        decode_state = _STATE_DECODERS.get(family) if family is not None else None
        if decode_state is not None:
            return decode_state(frame.body)
    match frame.type:
        case MessageType.HELLO:
            return decode_hello(frame.body)
        case MessageType.HEARTBEAT:
            return decode_heartbeat(frame.body)
        case MessageType.STATE:
            raise BodyError(
                f"state frames of family {family!r} are not supported; "
                "known: 'tt-scoreboard', 'backgammon-board', 'chess-clock'"
            )
        case MessageType.EVENT:
            if family == DeviceFamily.BACKGAMMON_BOARD:
                return decode_backgammon_event(frame.body)
            if family == DeviceFamily.CHESS_CLOCK:
                return decode_chess_clock_event(frame.body)
            return decode_event(frame.body)
        case MessageType.ACK:
            return DeviceEvent(EventKind.ACK.value, decode_map(frame.body, "ack"))
        case MessageType.ERROR:
            return DeviceEvent(EventKind.DEVICE_ERROR.value, decode_map(frame.body, "error"))
        case MessageType.COMMAND:
            raise BodyError("command frames go from the hub to a device; a device must not send one")
    raise BodyError(f"no report for message type {frame.type!r}")  # pragma: no cover - enum is exhaustive


def report_to_body(report: Report) -> tuple[MessageType, dict[str, Any]]:
    """The message type and body a device sends for a report."""
    match report:
        case DeviceHello():
            return MessageType.HELLO, {
                "device_id": report.device_id,
                "family": report.family,
                "model": report.model,
                "firmware": report.firmware,
                "protocol": report.protocol,
                "boot_epoch": report.boot_epoch,
                "capabilities": list(report.capabilities),
            }
        case Heartbeat():
            return MessageType.HEARTBEAT, {"battery": report.battery, "uptime_s": report.uptime_s}
        case ScoreboardState():
            return MessageType.STATE, _scoreboard_body(report)
        case BackgammonBoardState():
            return MessageType.STATE, {
                "points": list(report.points),
                "bar": list(report.bar),
                "off": list(report.off),
                "dice": None if report.dice is None else list(report.dice),
                "dice_source": report.dice_source,
                "cube": {"value": report.cube_value, "owner": report.cube_owner},
                "turn": report.turn,
            }
        case BackgammonBoardEvent():
            return MessageType.EVENT, {"kind": report.kind, "data": dict(report.data)}
        case ChessClockState():
            return MessageType.STATE, chess_clock_body(report)
        case DeviceEvent(kind=EventKind.ACK.value):
            return MessageType.ACK, dict(report.data)
        case DeviceEvent(kind=EventKind.DEVICE_ERROR.value):
            return MessageType.ERROR, dict(report.data)
        case DeviceEvent():
            return MessageType.EVENT, {"kind": report.kind, "data": dict(report.data)}
    raise TypeError(f"not a report: {report!r}")


def _scoreboard_body(report: ScoreboardState) -> dict[str, Any]:
    body: dict[str, Any] = {
        "points": list(report.points),
        "games": list(report.games),
        "server": report.server,
        "game_scores": [list(score) for score in report.game_scores],
    }
    # Optional keys only when known, so a board without them sends exactly the version-1 body.
    for key, value in (
        ("ends", report.ends),
        ("expedite", report.expedite),
        ("server_player", report.server_player),
    ):
        if value is not None:
            body[key] = str(value) if key == "ends" else value
    return body


def encode_report(report: Report, seq: int) -> bytes:
    """One frame carrying a report, delimiter included."""
    message_type, body = report_to_body(report)
    return encode_frame(message_type, seq, body)


_STATE = MessageType.STATE
# `decode_report`'s STATE cases, by family
_STATE_DECODERS: dict[str, Callable[[Any], Report]] = {
    DeviceFamily.TT_SCOREBOARD.value: decode_scoreboard_state,
    DeviceFamily.BACKGAMMON_BOARD.value: decode_backgammon_state,
    DeviceFamily.CHESS_CLOCK.value: decode_chess_clock_state,
}
# families whose STATE bodies a `StateReader` reads from the frame's bytes, and the report it makes
_STATE_READERS: dict[str, StateReader] = {DeviceFamily.TT_SCOREBOARD.value: read_scoreboard_state}
_STATE_REPORTS: dict[str, type] = {DeviceFamily.TT_SCOREBOARD.value: ScoreboardState}


def state_reader(family: str | None) -> StateReader | None:
    """The `StateReader` for a device family's STATE bodies (for `WireCodec.state_reader`), if it has one."""
    return _STATE_READERS.get(family) if family is not None else None
