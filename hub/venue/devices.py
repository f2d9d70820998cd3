"""The venue file's device URLs: each checked by the parser of the family that reads it (devices/registry.py).

A table's `device`, its `device_id` and token hash, its `wristbands`, a separate `clock` where its sport has
one (`SportRules.separate_clock`), and
the rule that the devices on one TCP gateway port name it the same way.
"""

from __future__ import annotations

import re
from typing import Any

from devices.family import Role
from devices.registry import family_for
from devices.transports.tcp import parse_tcp_url
from hub.matches.naming import sport_names
from hub.rules.registry import SPORTS
from hub.venue.model import ID_PATTERN, Fail, TableConfig


def _sports_with(feature: str) -> tuple[str, str]:
    """The sports whose tables have `feature` (a `SportRules` flag), named in English and Turkish."""
    return sport_names(name for name, sport in SPORTS.items() if getattr(sport, feature))


def table_clock(t: dict[str, Any], sport: str, fail: Fail) -> tuple[str | None, str | None]:
    """A table's separate clock device (URL and optional id), for boards without a clock of their own."""
    url, clock_id = t.get("clock"), t.get("clock_id")
    if url is None:
        if clock_id is not None:
            raise fail("clock_id", "needs a clock URL beside it / yanında saat adresi gerekli")
        return None, None
    if not SPORTS[sport].separate_clock:
        en, tr = _sports_with("separate_clock")
        raise fail(
            "clock", f"only a {en} table has a separate clock / ayrı saat yalnızca {tr} masasında olur"
        )
    if not isinstance(url, str) or not url.strip() or url.startswith("tcp://"):
        raise fail(
            "clock",
            "must be a serial or ble:// URL of a Boardcast Wire clock / seri ya da ble:// saat adresi olmalı",
        )
    try:  # the clock's family checks it as its session will read it
        family_for(url, Role.CLOCK).parse(url)
    except ValueError as exc:
        raise fail("clock", f"{exc} / geçersiz saat adresi") from None
    if clock_id is not None and not (isinstance(clock_id, str) and ID_PATTERN.match(clock_id)):
        raise fail("clock_id", "must be an id (letters, digits, '-', '_', '.') / kimlik olmalı")
    return url, clock_id


def table_orientation(t: dict[str, Any], sport: str, fail: Fail) -> str:
    """A table's board orientation, where its sport's boards have one (`SportRules.board_orientation`): "auto"
    (detected from the position), "normal" or "rotated"."""
    value = t.get("orientation")
    if value is None:
        return "auto"
    if not SPORTS[sport].board_orientation:
        en, tr = _sports_with("board_orientation")
        raise fail(
            "orientation",
            f"only a {en} table has a board orientation / tahta yönü yalnızca {tr} masasında olur",
        )
    if value not in ("auto", "normal", "rotated"):
        raise fail(
            "orientation",
            f'must be "auto", "normal" or "rotated", got {value!r} / "auto", "normal" ya da "rotated" olmalı',
        )
    return str(value)


def same_gateway_same_address(device: str | None, tables: list[TableConfig], fail: Fail) -> None:
    """Devices on one TCP gateway port must name it the same way: the hub opens one gateway per address, and
    tcp://127.0.0.1:7000 beside tcp://0.0.0.0:7000 would be two gateways on one port."""
    if device is None or not device.startswith("tcp://"):
        return
    port = parse_tcp_url(device)[1]
    gateways = [x for x in tables if x.device and x.device.startswith("tcp://") and x.device != device]
    for other in gateways:
        if parse_tcp_url(str(other.device))[1] == port:
            raise fail(
                "device",
                f"table {other.id!r} names the gateway on port {port} as {other.device}; write the same "
                f"address for every device on that port / aynı bağlantı noktasındaki cihazlar aynı adresi "
                f"yazmalı",
            )


def table_device(t: dict[str, Any], sport: str, fail: Fail) -> tuple[str | None, str | None, str | None]:
    """A table's `device` URL, checked by its family (the sports it serves, its parser), with its `device_id`
    and token hash."""
    device = t.get("device")
    if device is not None and (not isinstance(device, str) or not device.strip()):
        raise fail("device", "must be a device URL such as serial:///dev/ttyUSB0 / cihaz adresi")
    device_id = t.get("device_id")
    if device_id is not None and not (isinstance(device_id, str) and ID_PATTERN.match(device_id)):
        raise fail("device_id", "must be an id (letters, digits, '-', '_', '.') / kimlik olmalı")
    digest = t.get("device_token_sha256")
    if digest is not None and not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
        raise fail(
            "device_token_sha256", "must be 64 lowercase hex digits (a SHA-256) / SHA-256 özeti olmalı"
        )
    if device is None:
        return None, device_id, digest
    family = family_for(device, Role.DEVICE)
    refusal = family.wrong_sport(sport)
    if refusal is not None:
        raise fail("device", str(refusal))
    try:
        family.parse(device)
    except ValueError as exc:
        raise fail("device", f"{exc} / {family.bad_url(device).turkish}") from None
    tcp = device.startswith("tcp://")  # a device on the hub's gateway (only a URL its family took gets here)
    if tcp and device_id is None:
        raise fail("device_id", "a TCP device needs its device_id / TCP cihazı için kimlik gerekli")
    if tcp and digest is None:
        raise fail(
            "device_token_sha256",
            "a TCP device needs the SHA-256 of its token (boardcast device-token ID) / belirteç özeti gerekli",
        )
    return device, device_id, digest


def table_wristbands(t: dict[str, Any], fail: Fail) -> tuple[str, ...]:
    """A table's `wristbands` URLs, each checked by the parser of the family that reads wristbands."""
    wristbands = t.get("wristbands", [])
    if not (isinstance(wristbands, list) and all(isinstance(w, str) for w in wristbands)):
        raise fail("wristbands", "must be a list of ble:// URLs / ble:// adresleri listesi olmalı")
    for url in wristbands:
        try:
            family_for(url, Role.WRISTBAND).parse(url)
        except ValueError as exc:
            raise fail("wristbands", f"{exc} / geçersiz bileklik adresi") from None
    return tuple(wristbands)
