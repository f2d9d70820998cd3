"""Boardcast Wire commands from the hub to a device: what may be sent, checked before it is, and its frame."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

import msgpack
import msgspec
from msgspec import Meta

from devices.wire.bodies import MAX_CLOCK_MS, BodyError, ClockTimes, NonEmpty, Side, fault, read_body
from devices.wire.codec import MAX_FRAME, MIN_FRAME, Frame, MessageType, encode_frame


class CommandInvalid(BodyError):
    """A command that must not be sent: `field` names what is wrong, `limit` the bound it broke, if any."""

    def __init__(self, field: str, message: str, limit: int | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.limit = limit


class CommandName(enum.StrEnum):
    """Commands the hub sends to devices."""

    RESYNC = "resync"  # send HELLO and the full state again
    SHOW_TEXT = "show_text"  # show a short text on the device display
    SET_CLOCK = "set_clock"  # set a clock's remaining times (a referee's correction)


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
        read_body(body, _CommandHead, "command", {"cmd": "a non-empty string"})
        return cls(body["cmd"], {key: value for key, value in body.items() if key != "cmd"})

    @classmethod
    def checked(cls, body: Any) -> Command:
        """The command a hub user asks for (`{"cmd": "show_text", "text": …, "seconds": 5}`), built only from
        checked values: a known `cmd`, its own arguments and no others, each in range, and a frame that fits
        a device's `MAX_FRAME`. Raise CommandInvalid naming the field (and the limit) otherwise."""
        mapping = read_body(body, dict, "command", {})
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
            clock = _checked_args(mapping, _SetClockArgs)
            if not isinstance(mapping["remaining_ms"], list):
                raise _INVALID["remaining_ms"](mapping["remaining_ms"])
            return cls.set_clock(clock.remaining_ms, clock.running)
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


class _CommandHead(msgspec.Struct):
    """What every COMMAND body has: its name (its arguments are the rest of the map)."""

    cmd: NonEmpty


class _ShowTextArgs(msgspec.Struct):
    """show_text's arguments; `seconds` may come as a float that is a whole number (JSON from a browser)."""

    text: str
    seconds: (
        Annotated[int, Meta(ge=0, le=MAX_SHOW_SECONDS)] | Annotated[float, Meta(ge=0, le=MAX_SHOW_SECONDS)]
    ) = 5


class _SetClockArgs(msgspec.Struct):
    """set_clock's arguments."""

    remaining_ms: ClockTimes
    running: Side | None = None


_Args = TypeVar("_Args", _ShowTextArgs, _SetClockArgs)
_INVALID: dict[str, Callable[[Any], CommandInvalid]] = {  # a refused argument's CommandInvalid, by name
    "text": lambda got: CommandInvalid("text", f'show_text needs "text", got {got!r} / metin gerekli'),
    "seconds": lambda got: CommandInvalid(
        "seconds",
        f'"seconds" must be a whole number from 0 to {MAX_SHOW_SECONDS}, got {got!r} '
        f"/ süre 0 ile {MAX_SHOW_SECONDS} saniye arasında olmalı",
        MAX_SHOW_SECONDS,
    ),
    "remaining_ms": lambda got: CommandInvalid(
        "remaining_ms",
        f'"remaining_ms" must be two times in milliseconds, 0 to {MAX_CLOCK_MS}, got {got!r} '
        "/ saat süreleri geçersiz",
        MAX_CLOCK_MS,
    ),
    "running": lambda got: CommandInvalid(
        "running", f'"running" must be 0, 1 or null (stopped), got {got!r} / geçersiz taraf'
    ),
}


def _checked_args(mapping: dict[str, Any], into: type[_Args]) -> _Args:
    """A command's arguments read strictly; raise the CommandInvalid of the first refused one."""
    try:
        return msgspec.convert(mapping, into, strict=True)
    except msgspec.ValidationError as exc:
        field, _, value = fault(str(exc), mapping, _INVALID)
        raise _INVALID[field](value) from None


def _checked_show_text(mapping: dict[str, Any]) -> Command:
    args = _checked_args(mapping, _ShowTextArgs)
    seconds = args.seconds
    if isinstance(seconds, float):
        if not seconds.is_integer():
            raise _INVALID["seconds"](seconds)
        seconds = int(seconds)
    command = Command.show_text(args.text, seconds)
    size = _FRAME_OVERHEAD + len(msgpack.packb(command.to_body(), use_bin_type=True))
    if size > MAX_FRAME:
        encoded = len(args.text.encode("utf-8"))
        most = encoded - (size - MAX_FRAME)
        raise CommandInvalid(
            "text",
            f'"text" is {encoded} bytes in UTF-8; a device frame holds {MAX_FRAME} bytes, so at most {most} '
            f"/ metin çok uzun: en fazla {most} bayt",
            most,
        )
    return command
