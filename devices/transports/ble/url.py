"""``ble://`` device URLs: the options each BLE protocol takes, read into the `BleTarget` to open."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from devices.transports.serial import did_you_mean, query_options

_MAC = re.compile(r"^[0-9A-F]{2}(:[0-9A-F]{2}){5}$")
# What `protocol=` a ble:// URL may name, and the options that protocol's session reads besides `protocol`
# and `adapter` (devices/dscore/session.py reads `side`); the hub picks the session by it (hub/server/app.py).
BLE_PROTOCOLS: dict[str, tuple[str, ...]] = {"wire": (), "dscore": ("side",), "chessnut": ()}


@dataclass(frozen=True, slots=True)
class BleTarget:
    """Which BLE device to open and how, read from its URL."""

    address: str  # upper-case MAC, AA:BB:CC:DD:EE:FF
    protocol: str | None = None
    adapter: str | None = None  # e.g. "hci1"; None is the system default adapter


def parse_ble_url(url: str) -> BleTarget:
    """Read ``ble://AA:BB:CC:DD:EE:FF?protocol=wire&adapter=hci0``; raise ValueError naming the URL.

    Every option is checked: `protocol` (a key of BLE_PROTOCOLS), `adapter` (hciN) and the options that
    protocol's session reads; anything else is refused, as is a `#` part.
    """
    parts = urlsplit(url)
    if parts.scheme != "ble":
        raise ValueError(f"device URL {url!r} is not a ble:// URL; write it as ble://AA:BB:CC:DD:EE:FF")
    address = parts.netloc.upper()
    if not _MAC.match(address) or parts.path not in ("", "/"):
        raise ValueError(
            f"device URL {url!r} does not name a Bluetooth address; write it as ble://AA:BB:CC:DD:EE:FF"
        )
    if parts.fragment or url.endswith("#"):
        raise ValueError(f"device URL {url!r} has a '#' part, which no device URL takes")
    protocol = dict(parse_qsl(parts.query, keep_blank_values=True)).get("protocol")
    if protocol is not None and protocol not in BLE_PROTOCOLS:
        raise ValueError(
            f"device URL {url!r}: unknown protocol {protocol!r}{did_you_mean(protocol, BLE_PROTOCOLS)}; "
            "a BLE device speaks "
            f"protocol={' or protocol='.join(BLE_PROTOCOLS)}"
        )
    known = ("protocol", "adapter", *BLE_PROTOCOLS[protocol or "wire"])
    options = query_options(url, parts.query, known, BLE_PROTOCOLS)
    adapter = options.get("adapter")
    if adapter is not None and not re.fullmatch(r"hci[0-9]{1,3}", adapter):
        raise ValueError(
            f"device URL {url!r}: adapter must name a Bluetooth adapter such as hci0, got {adapter!r}"
        )
    return BleTarget(address=address, protocol=protocol, adapter=adapter)


def parse_wire_ble_url(url: str) -> BleTarget:
    """A ``ble://`` URL for a Boardcast Wire session (`protocol=wire` or none); raise ValueError if not."""
    target = parse_ble_url(url)
    if target.protocol == "dscore":
        raise ValueError(
            f"device URL {url!r} is a D-SCORE wristband: it sends button codes, not a byte stream; "
            "run it with devices.dscore.session.DScoreSession (a venue lists it under wristbands)"
        )
    if target.protocol == "chessnut":
        raise ValueError(
            f"device URL {url!r} is a Chessnut board: it sends board reports, not a byte stream; "
            "run it with devices.chessnut.session.ChessnutSession"
        )
    if target.protocol not in (None, "wire"):
        raise ValueError(
            f"device URL {url!r}: BLE protocol {target.protocol!r} is not supported yet; "
            "only protocol=wire (Boardcast Wire over the Nordic UART Service)"
        )
    return target
