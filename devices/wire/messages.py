"""Boardcast Wire message bodies: frames to `devices.observations` reports, and reports and commands back.

Bodies are checked field by field; a body that does not match its message raises `BodyError` naming the
field, what it must be and what came instead.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import msgpack
import msgspec

from devices.observations import (
    DICE_SOURCES,
    DOUBLES_PLAYERS,
    BackgammonBoardEvent,
    BackgammonBoardState,
    ChessClockState,
    DeviceEvent,
    DeviceFamily,
    DeviceHello,
    Ends,
    Heartbeat,
    Report,
    ScoreboardState,
)
from devices.wire.codec import (
    MAX_FRAME,
    MIN_FRAME,
    Frame,
    MessageType,
    StateReader,
    decode_frame,
    encode_frame,
)


class BodyError(ValueError):
    """A frame whose body does not match its message type; the message names the field."""


class CommandInvalid(BodyError):
    """A command that must not be sent: `field` names what is wrong, `limit` the bound it broke, if any."""

    def __init__(self, field: str, message: str, limit: int | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.limit = limit


DEVICE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class CommandName(enum.StrEnum):
    """Commands the hub sends to devices."""

    RESYNC = "resync"  # send HELLO and the full state again
    SHOW_TEXT = "show_text"  # show a short text on the device display
    SET_CLOCK = "set_clock"  # set a clock's remaining times (a referee's correction)


class EventKind(enum.StrEnum):
    """Event kinds this module makes from non-report frames."""

    ACK = "ack"
    DEVICE_ERROR = "device_error"


@dataclass(frozen=True, slots=True)
class Command:
    """A hub-to-device command: its name and its arguments."""

    cmd: str
    args: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def resync(cls) -> Command:
        """Ask the device for HELLO and its full state."""
        return cls(CommandName.RESYNC.value)

    @classmethod
    def show_text(cls, text: str, seconds: int = 5) -> Command:
        """Show a short text on the device's display for a few seconds."""
        return cls(CommandName.SHOW_TEXT.value, {"text": text, "seconds": seconds})

    @classmethod
    def set_clock(cls, remaining_ms: tuple[int, int], running: int | None) -> Command:
        """Set a clock's remaining times and which side runs."""
        return cls(CommandName.SET_CLOCK.value, {"remaining_ms": list(remaining_ms), "running": running})

    def to_body(self) -> dict[str, Any]:
        """The COMMAND frame body."""
        if "cmd" in self.args:
            raise ValueError("command args must not contain the key 'cmd'")
        return {"cmd": self.cmd, **self.args}

    def encode(self, seq: int) -> bytes:
        """One COMMAND frame, delimiter included."""
        return encode_frame(MessageType.COMMAND, seq, self.to_body())

    @classmethod
    def from_body(cls, body: Any) -> Command:
        """Read a COMMAND body; raise BodyError if it is not a map with a string 'cmd'."""
        mapping = _map(body, "command")
        cmd = mapping.get("cmd")
        if not isinstance(cmd, str) or not cmd:
            raise BodyError(f"command.cmd must be a non-empty string, got {cmd!r}")
        return cls(cmd, {key: value for key, value in mapping.items() if key != "cmd"})

    @classmethod
    def checked(cls, body: Any) -> Command:
        """The command a hub user asks for (`{"cmd": "show_text", "text": …, "seconds": 5}`), built only from
        checked values: a known `cmd`, its own arguments and no others, each in range, and a frame that fits
        a device's `MAX_FRAME`. Raise CommandInvalid naming the field (and the limit) otherwise."""
        mapping = _map(body, "command")
        cmd = mapping.get("cmd")
        if not isinstance(cmd, str) or cmd not in COMMAND_ARGS:
            known = ", ".join(COMMAND_ARGS)
            raise CommandInvalid(
                "cmd", f'unknown command {cmd!r}: "cmd" is one of {known} / bilinmeyen komut'
            )
        unknown = [key for key in mapping if key != "cmd" and key not in COMMAND_ARGS[cmd]]
        if unknown:
            allowed = ", ".join(COMMAND_ARGS[cmd]) or "none"
            raise CommandInvalid(
                str(unknown[0]),
                f"{cmd} takes no {', '.join(map(repr, unknown))}; its arguments: {allowed} / bilinmeyen alan",
            )
        if cmd == CommandName.SHOW_TEXT:
            return _checked_show_text(mapping)
        if cmd == CommandName.SET_CLOCK:
            return cls.set_clock(_command_clock(mapping.get("remaining_ms")), _command_running(mapping))
        return cls.resync()

    @classmethod
    def decode(cls, frame: Frame) -> Command:
        """Read a COMMAND frame; raise BodyError if it is another type or its body is malformed."""
        if frame.type is not MessageType.COMMAND:
            raise BodyError(f"expected a COMMAND frame, got {frame.type.name}")
        return cls.from_body(frame.body)


COMMAND_ARGS: dict[str, tuple[str, ...]] = {  # each command's arguments, in their order on the wire
    CommandName.RESYNC.value: (),
    CommandName.SHOW_TEXT.value: ("text", "seconds"),
    CommandName.SET_CLOCK.value: ("remaining_ms", "running"),
}
MAX_SHOW_SECONDS = 3600  # show_text: a text stays at most an hour (0: until the next state)
_FRAME_OVERHEAD = MIN_FRAME - 1  # header and CRC around the msgpack body


def command_fields(body: Any) -> tuple[str, ...] | None:
    """The fields a command body may have (`cmd` and its arguments); None for an unknown command."""
    cmd = body.get("cmd") if isinstance(body, dict) else None
    args = COMMAND_ARGS.get(cmd) if isinstance(cmd, str) else None
    return None if args is None else ("cmd", *args)


def _checked_show_text(mapping: dict[str, Any]) -> Command:
    text, seconds = mapping.get("text"), mapping.get("seconds", 5)
    if not isinstance(text, str):
        raise CommandInvalid("text", f'show_text needs "text", got {text!r} / metin gerekli')
    if isinstance(seconds, float) and seconds.is_integer() and 0 <= seconds <= MAX_SHOW_SECONDS:
        seconds = int(seconds)
    if not _is_int(seconds) or not 0 <= seconds <= MAX_SHOW_SECONDS:
        raise CommandInvalid(
            "seconds",
            f'"seconds" must be a whole number from 0 to {MAX_SHOW_SECONDS}, got {seconds!r} '
            f"/ süre 0 ile {MAX_SHOW_SECONDS} saniye arasında olmalı",
            MAX_SHOW_SECONDS,
        )
    command = Command.show_text(text, seconds)
    size = _FRAME_OVERHEAD + len(msgpack.packb(command.to_body(), use_bin_type=True))
    if size > MAX_FRAME:
        encoded = len(text.encode("utf-8"))
        most = encoded - (size - MAX_FRAME)
        raise CommandInvalid(
            "text",
            f'"text" is {encoded} bytes in UTF-8; a device frame holds {MAX_FRAME} bytes, so at most {most} '
            f"/ metin çok uzun: en fazla {most} bayt",
            most,
        )
    return command


def _command_clock(value: Any) -> tuple[int, int]:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(_is_int(ms) and 0 <= ms <= MAX_CLOCK_MS for ms in value)
    ):
        return value[0], value[1]
    raise CommandInvalid(
        "remaining_ms",
        f'"remaining_ms" must be two times in milliseconds, 0 to {MAX_CLOCK_MS}, got {value!r} '
        "/ saat süreleri geçersiz",
        MAX_CLOCK_MS,
    )


def _command_running(mapping: dict[str, Any]) -> int | None:
    running = mapping.get("running")
    if running is None or (_is_int(running) and running in (0, 1)):
        return running
    raise CommandInvalid(
        "running", f'"running" must be 0, 1 or null (stopped), got {running!r} / geçersiz taraf'
    )


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
            if family == DeviceFamily.TT_SCOREBOARD:
                return decode_scoreboard_state(frame.body)
            if family == DeviceFamily.BACKGAMMON_BOARD:
                return decode_backgammon_state(frame.body)
            if family == DeviceFamily.CHESS_CLOCK:
                return decode_chess_clock_state(frame.body)
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
            return DeviceEvent(EventKind.ACK.value, _map(frame.body, "ack"))
        case MessageType.ERROR:
            return DeviceEvent(EventKind.DEVICE_ERROR.value, _map(frame.body, "error"))
        case MessageType.COMMAND:
            raise BodyError("command frames go from the hub to a device; a device must not send one")
    raise BodyError(f"no report for message type {frame.type!r}")  # pragma: no cover - enum is exhaustive


def decode_hello(body: Any) -> DeviceHello:
    """Read a HELLO body."""
    mapping = _map(body, "hello")
    capabilities = mapping.get("capabilities", [])
    if not isinstance(capabilities, list) or not all(isinstance(item, str) for item in capabilities):
        raise BodyError(f"hello.capabilities must be a list of strings, got {capabilities!r}")
    device_id = _string(mapping, "device_id", "hello")
    if not DEVICE_ID.fullmatch(device_id):
        raise BodyError(
            f"hello.device_id must be 1-64 letters, digits, '-', '_' or '.', starting with a letter or digit, "
            f"got {device_id!r}"
        )
    return DeviceHello(
        device_id=device_id,
        family=_string(mapping, "family", "hello"),
        model=_string(mapping, "model", "hello"),
        firmware=_string(mapping, "firmware", "hello"),
        protocol=_natural(mapping, "protocol", "hello"),
        boot_epoch=_natural(mapping, "boot_epoch", "hello"),
        capabilities=tuple(capabilities),
    )


def decode_heartbeat(body: Any) -> Heartbeat:
    """Read a HEARTBEAT body; both fields may be missing or null."""
    mapping = _map(body, "heartbeat")
    battery = mapping.get("battery")
    if battery is not None and not (_is_int(battery) and 0 <= battery <= 100):
        raise BodyError(f"heartbeat.battery must be an integer percentage 0..100 or null, got {battery!r}")
    uptime = mapping.get("uptime_s")
    if uptime is not None and not (_is_int(uptime) and uptime >= 0):
        raise BodyError(f"heartbeat.uptime_s must be a non-negative integer or null, got {uptime!r}")
    return Heartbeat(battery=battery, uptime_s=uptime)


def decode_scoreboard_state(body: Any) -> ScoreboardState:
    """Read a table-tennis scoreboard STATE body; `ends`, `expedite` and `server_player` may be absent or null."""
    state = _plain_scoreboard_state(body)
    return state if state is not None else _checked_scoreboard_state(body)


def _checked_scoreboard_state(body: Any) -> ScoreboardState:
    """`decode_scoreboard_state` field by field, naming the field that is wrong."""
    mapping = _map(body, "state")
    points = _pair(mapping.get("points"), "state.points")
    games = _pair(mapping.get("games"), "state.games")
    server = mapping.get("server")
    if server is not None and not (_is_int(server) and server in (0, 1)):
        raise BodyError(f"state.server must be 0, 1 or null, got {server!r}")
    raw_scores = mapping.get("game_scores", [])
    if not isinstance(raw_scores, list):
        raise BodyError(f"state.game_scores must be a list of score pairs, got {raw_scores!r}")
    game_scores = tuple(_pair(score, f"state.game_scores[{i}]") for i, score in enumerate(raw_scores))
    ends = mapping.get("ends")
    if ends is not None and ends not in tuple(Ends):
        raise BodyError(f"state.ends must be 'normal', 'swapped' or null, got {ends!r}")
    expedite = mapping.get("expedite")
    if expedite is not None and not isinstance(expedite, bool):
        raise BodyError(f"state.expedite must be true, false or null, got {expedite!r}")
    server_player = mapping.get("server_player")
    if server_player is not None and server_player not in DOUBLES_PLAYERS:
        raise BodyError(f"state.server_player must be 'A1', 'A2', 'B1', 'B2' or null, got {server_player!r}")
    return ScoreboardState(
        points=points,
        games=games,
        server=server,
        game_scores=game_scores,
        ends=None if ends is None else Ends(ends).value,
        expedite=expedite,
        server_player=server_player,
    )


_ENDS = {e.value: e.value for e in Ends}


class _ScoreboardBody(msgspec.Struct, forbid_unknown_fields=True):
    """The STATE body a scoreboard usually sends, as msgspec reads it from msgpack in one C call."""

    points: tuple[int, int]
    games: tuple[int, int]
    server: int | None = None
    game_scores: list[tuple[int, int]] = []
    ends: str | None = None
    expedite: bool | None = None
    server_player: str | None = None


_read_scoreboard_body = msgspec.msgpack.Decoder(_ScoreboardBody).decode


def read_scoreboard_state(body: bytes) -> ScoreboardState | None:
    """A scoreboard STATE body's msgpack bytes read straight into its state (a `StateReader`); None for
    anything it is not sure of, which the general path (`msgpack` then `decode_scoreboard_state`) reads.

    The types come from msgspec, which reads an integer, a boolean, a string, an array and a map exactly as
    `msgpack.unpackb` does, refuses a boolean or a float where an integer belongs as the general path does,
    and takes the last of a repeated key as a dict does. Anything the general path might read differently
    is left to it: a key that is not a field (it might hold what `msgpack` refuses), a bytes key, a value of
    another type. The ranges are checked here as `_plain_scoreboard_state` checks them."""
    try:
        s = _read_scoreboard_body(body)
    except msgspec.DecodeError:  # ValidationError too
        return None
    (p0, p1), (g0, g1) = s.points, s.games
    if p0 < 0 or p1 < 0 or g0 < 0 or g1 < 0 or (s.server is not None and s.server != 0 and s.server != 1):
        return None
    for a, b in s.game_scores:
        if a < 0 or b < 0:
            return None
    ends = s.ends
    if ends is not None and (ends := _ENDS.get(ends)) is None:
        return None
    player = s.server_player
    if player is not None and player not in DOUBLES_PLAYERS:
        return None
    return ScoreboardState(s.points, s.games, s.server, tuple(s.game_scores), ends, s.expedite, player)


def _plain_scoreboard_state(body: Any) -> ScoreboardState | None:
    """The state a scoreboard usually sends, checked with the same rules as `decode_scoreboard_state` but
    inline; None for anything else (which the field-by-field check then reads, or rejects by name)."""
    if type(body) is not dict:
        return None
    points, games = body.get("points"), body.get("games")
    if type(points) is not list or type(games) is not list or len(points) != 2 or len(games) != 2:
        return None
    p0, p1 = points
    g0, g1 = games
    if not (type(p0) is int and type(p1) is int and type(g0) is int and type(g1) is int):
        return None
    if p0 < 0 or p1 < 0 or g0 < 0 or g1 < 0:
        return None
    server = body.get("server")
    if server is not None and (type(server) is not int or (server != 0 and server != 1)):
        return None
    history = body.get("game_scores", [])
    if type(history) is not list:
        return None
    scores = []
    for pair in history:
        if type(pair) is not list or len(pair) != 2:
            return None
        a, b = pair
        if type(a) is not int or type(b) is not int or a < 0 or b < 0:
            return None
        scores.append((a, b))
    ends = body.get("ends")
    if ends is not None:
        ends = _ENDS.get(ends) if type(ends) is str else None
        if ends is None:
            return None
    expedite = body.get("expedite")
    if expedite is not None and expedite is not True and expedite is not False:
        return None
    player = body.get("server_player")
    if player is not None and (type(player) is not str or player not in DOUBLES_PLAYERS):
        return None
    return ScoreboardState((p0, p1), (g0, g1), server, tuple(scores), ends, expedite, player)


def decode_event(body: Any) -> DeviceEvent:
    """Read an EVENT body."""
    mapping = _map(body, "event")
    kind = mapping.get("kind")
    if not isinstance(kind, str) or not kind:
        raise BodyError(f"event.kind must be a non-empty string, got {kind!r}")
    data = mapping.get("data", {})
    if not isinstance(data, dict):
        raise BodyError(f"event.data must be a map, got {data!r}")
    return DeviceEvent(kind=kind, data=data)


BACKGAMMON_EVENT_KINDS = ("press", "cube", "roll", "invalid_dice", "opening")
CUBE_ACTIONS = ("double", "take", "drop")


def decode_backgammon_state(body: Any) -> BackgammonBoardState:
    """Read a backgammon-board STATE body; `dice`, `dice_source`, `cube.owner` and `turn` may be null."""
    mapping = _map(body, "state")
    points = mapping.get("points")
    if not (isinstance(points, list) and len(points) == 24 and all(_is_int(n) for n in points)):
        raise BodyError(f"state.points must be a list of 24 integers, got {points!r}")
    if any(abs(n) > 15 for n in points):
        raise BodyError(f"state.points must count at most 15 checkers on a point, got {points!r}")
    bar = _pair(mapping.get("bar"), "state.bar")
    off = _pair(mapping.get("off"), "state.off")
    if max(*bar, *off) > 15:
        raise BodyError(f"state.bar and state.off must be 0..15, got bar {list(bar)!r}, off {list(off)!r}")
    dice = mapping.get("dice")
    if dice is not None:
        dice = _dice(dice, "state.dice")
    source = mapping.get("dice_source")
    if source is not None and source not in DICE_SOURCES:
        raise BodyError(f"state.dice_source must be 'keypad', 'app', 'camera' or null, got {source!r}")
    cube = mapping.get("cube", {"value": 1, "owner": None})
    if not isinstance(cube, dict):
        raise BodyError(f"state.cube must be a map {{'value': 1|2|4.., 'owner': 0|1|null}}, got {cube!r}")
    value = cube.get("value")
    if not (_is_int(value) and value >= 1 and value & (value - 1) == 0 and value <= 4096):
        raise BodyError(f"state.cube.value must be a power of two from 1 to 4096, got {value!r}")
    owner = cube.get("owner")
    if owner is not None and not (_is_int(owner) and owner in (0, 1)):
        raise BodyError(f"state.cube.owner must be 0, 1 or null, got {owner!r}")
    turn = mapping.get("turn")
    if turn is not None and not (_is_int(turn) and turn in (0, 1)):
        raise BodyError(f"state.turn must be 0, 1 or null, got {turn!r}")
    return BackgammonBoardState(
        points=tuple(points),
        bar=bar,
        off=off,
        dice=dice,
        dice_source=source,
        cube_value=value,
        cube_owner=owner,
        turn=turn,
    )


def decode_backgammon_event(body: Any) -> BackgammonBoardEvent:
    """Read a backgammon-board EVENT body: press, cube, roll, invalid_dice or opening, field by field."""
    event = decode_event(body)
    kind, data = event.kind, event.data
    where = f"event.data ({kind})"
    if kind not in BACKGAMMON_EVENT_KINDS:
        raise BodyError(
            f"event.kind of a backgammon-board must be one of {', '.join(BACKGAMMON_EVENT_KINDS)}, got {kind!r}"
        )
    out: dict[str, Any] = {}
    if kind != "opening":
        side = data.get("side")
        if not (_is_int(side) and side in (0, 1)):
            raise BodyError(f"{where}.side must be 0 or 1, got {side!r}")
        out["side"] = side
    if kind == "press":
        remaining = data.get("remaining_ms")
        if remaining is not None:
            remaining = list(_pair(remaining, f"{where}.remaining_ms"))
        out["remaining_ms"] = remaining
    elif kind == "cube":
        action = data.get("action")
        if action not in CUBE_ACTIONS:
            raise BodyError(f"{where}.action must be 'double', 'take' or 'drop', got {action!r}")
        out["action"] = action
    elif kind == "roll":
        out["dice"] = list(_dice(data.get("dice"), f"{where}.dice"))
        source = data.get("source")
        if source is not None and source not in DICE_SOURCES:
            raise BodyError(f"{where}.source must be 'keypad', 'app', 'camera' or null, got {source!r}")
        out["source"] = source
    elif kind == "opening":
        out["dice"] = list(_dice(data.get("dice"), f"{where}.dice"))
    return BackgammonBoardEvent(kind, out)


MAX_CLOCK_MS = 0xFFFFFFFF  # a u32 of milliseconds, about 49.7 days
WIRE_CLOCK_RESOLUTION_MS = 1  # a Wire chess clock counts milliseconds, not display seconds
CHESS_CLOCK_EVENT_KINDS = ("press",)


def decode_chess_clock_state(body: Any) -> ChessClockState:
    """Read a chess-clock STATE body; `running`, `flag`, `moves` and `period` may be null (or absent)."""
    mapping = _map(body, "state")
    remaining = _clock_times(mapping.get("remaining_ms"), "state.remaining_ms")
    running = mapping.get("running")
    if running is not None and not (_is_int(running) and running in (0, 1)):
        raise BodyError(f"state.running must be 0, 1 or null (stopped), got {running!r}")
    moves = mapping.get("moves")
    if moves is not None:
        moves = _pair(moves, "state.moves")
    flag = mapping.get("flag")
    if flag is not None and not (_is_int(flag) and flag in (0, 1)):
        raise BodyError(f"state.flag must be 0, 1 or null (no flag fallen), got {flag!r}")
    period = mapping.get("period")
    if period is not None and not (_is_int(period) and period >= 1):
        raise BodyError(f"state.period must be an integer from 1 or null, got {period!r}")
    return ChessClockState(
        remaining_ms=remaining,
        running=running,
        flags=(flag == 0, flag == 1),
        resolution_ms=WIRE_CLOCK_RESOLUTION_MS,
        moves=moves,
        period=period,
    )


def decode_chess_clock_event(body: Any) -> DeviceEvent:
    """Read a chess-clock EVENT body: a `press` with its side and, when known, both remaining times."""
    event = decode_event(body)
    if event.kind not in CHESS_CLOCK_EVENT_KINDS:
        raise BodyError(
            f"event.kind of a chess-clock must be one of {', '.join(CHESS_CLOCK_EVENT_KINDS)}, got {event.kind!r}"
        )
    where = f"event.data ({event.kind})"
    side = event.data.get("side")
    if not (_is_int(side) and side in (0, 1)):
        raise BodyError(f"{where}.side must be 0 or 1, got {side!r}")
    remaining = event.data.get("remaining_ms")
    if remaining is not None:
        remaining = list(_clock_times(remaining, f"{where}.remaining_ms"))
    return DeviceEvent(event.kind, {"side": side, "remaining_ms": remaining})


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


def _clock_times(value: Any, name: str) -> tuple[int, int]:
    if not (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(_is_int(v) and 0 <= v <= MAX_CLOCK_MS for v in value)
    ):
        raise BodyError(f"{name} must be two times in milliseconds, 0..{MAX_CLOCK_MS}, got {value!r}")
    return (value[0], value[1])


def _dice(value: Any, name: str) -> tuple[int, int]:
    if not (
        isinstance(value, list | tuple) and len(value) == 2 and all(_is_int(v) and 1 <= v <= 6 for v in value)
    ):
        raise BodyError(f"{name} must be two dice 1..6, got {value!r}")
    return (value[0], value[1])


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
            return MessageType.STATE, body
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


def encode_report(report: Report, seq: int) -> bytes:
    """One frame carrying a report, delimiter included."""
    message_type, body = report_to_body(report)
    return encode_frame(message_type, seq, body)


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _map(body: Any, what: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise BodyError(f"{what} body must be a map, got {type(body).__name__} {body!r}")
    return body


def _string(mapping: dict[str, Any], key: str, what: str) -> str:
    value = mapping.get(key)
    if not isinstance(value, str):
        raise BodyError(f"{what}.{key} must be a string, got {value!r}")
    return value


def _natural(mapping: dict[str, Any], key: str, what: str) -> int:
    value = mapping.get(key)
    if not (_is_int(value) and value >= 0):
        raise BodyError(f"{what}.{key} must be a non-negative integer, got {value!r}")
    return value


def _pair(value: Any, name: str) -> tuple[int, int]:
    if not (
        isinstance(value, list | tuple) and len(value) == 2 and all(_is_int(v) and v >= 0 for v in value)
    ):
        raise BodyError(f"{name} must be two non-negative integers, got {value!r}")
    return (value[0], value[1])


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
