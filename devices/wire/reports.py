"""The Boardcast Wire bodies every device family sends alike (HELLO, HEARTBEAT, a plain EVENT), read strictly."""

from __future__ import annotations

import enum
import re
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from devices.observations import DeviceEvent, DeviceHello, Heartbeat
from devices.wire.bodies import BodyError, Natural, NonEmpty, read_body, require_lists

DEVICE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class EventKind(enum.StrEnum):
    """Event kinds made from non-report frames."""

    ACK = "ack"
    DEVICE_ERROR = "device_error"


class _HelloBody(msgspec.Struct):
    device_id: str
    family: str
    model: str
    firmware: str
    protocol: Natural
    boot_epoch: Natural
    capabilities: tuple[str, ...] = ()


class _HeartbeatBody(msgspec.Struct):
    battery: Annotated[int, Meta(ge=0, le=100)] | None = None
    uptime_s: Natural | None = None


class EventBody(msgspec.Struct):
    """An EVENT body: its kind and its data, which each family reads further."""

    kind: NonEmpty
    data: dict[Any, Any] = {}


_HELLO_MUSTS = {
    "device_id": "a string",
    "family": "a string",
    "model": "a string",
    "firmware": "a string",
    "protocol": "a non-negative integer",
    "boot_epoch": "a non-negative integer",
    "capabilities": "a list of strings",
}
_HEARTBEAT_MUSTS = {
    "battery": "an integer percentage 0..100 or null",
    "uptime_s": "a non-negative integer or null",
}
_EVENT_MUSTS = {"kind": "a non-empty string", "data": "a map"}


def decode_hello(body: Any) -> DeviceHello:
    """Read a HELLO body."""
    hello = read_body(body, _HelloBody, "hello", _HELLO_MUSTS)
    require_lists(body, "hello", _HELLO_MUSTS, "capabilities")
    if not DEVICE_ID.fullmatch(hello.device_id):
        raise BodyError(
            f"hello.device_id must be 1-64 letters, digits, '-', '_' or '.', starting with a letter or digit, "
            f"got {hello.device_id!r}"
        )
    return DeviceHello(
        hello.device_id,
        hello.family,
        hello.model,
        hello.firmware,
        hello.protocol,
        hello.boot_epoch,
        hello.capabilities,
    )


def decode_heartbeat(body: Any) -> Heartbeat:
    """Read a HEARTBEAT body; both fields may be missing or null."""
    heartbeat = read_body(body, _HeartbeatBody, "heartbeat", _HEARTBEAT_MUSTS)
    return Heartbeat(battery=heartbeat.battery, uptime_s=heartbeat.uptime_s)


def decode_event(body: Any) -> DeviceEvent:
    """Read an EVENT body."""
    event = read_event(body)
    return DeviceEvent(kind=event.kind, data=event.data)


def read_event(body: Any) -> EventBody:
    """An EVENT body's kind and data, checked as every family's events are."""
    return read_body(body, EventBody, "event", _EVENT_MUSTS)


def decode_map(body: Any, what: str) -> dict[Any, Any]:
    """Read a body that is any map (ACK, ERROR); raise BodyError naming `what` if it is not one."""
    return read_body(body, dict, what, {})
