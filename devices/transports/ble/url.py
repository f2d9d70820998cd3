"""``ble://`` device URLs: the options each BLE protocol takes, read into the `BleTarget` to open."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from devices.transports.serial import did_you_mean, known_protocols, query_options

_MAC = re.compile(r"^[0-9A-F]{2}(:[0-9A-F]{2}){5}$")


@dataclass(frozen=True, slots=True)
class BleTarget:
    """Which BLE device to open and how, read from its URL."""

    address: str  # upper-case MAC, AA:BB:CC:DD:EE:FF
    protocol: str | None = None
    adapter: str | None = None  # e.g. "hci1"; None is the system default adapter


def parse_ble_url(url: str) -> BleTarget:
    """Read ``ble://AA:BB:CC:DD:EE:FF?adapter=hci0`` (and a family's ``protocol=``); raise ValueError naming the URL.

    Every option is checked: `protocol` (a family's, `known_protocols`), `adapter` (hciN) and the options that
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
    protocols = known_protocols("ble")
    protocol = dict(parse_qsl(parts.query, keep_blank_values=True)).get("protocol")
    if protocol is not None and protocol not in protocols:
        raise ValueError(
            f"device URL {url!r}: unknown protocol {protocol!r}{did_you_mean(protocol, protocols)}; "
            f"a BLE device speaks protocol={' or protocol='.join(protocols)}"
        )
    known = ("protocol", "adapter", *protocols[protocol or next(iter(protocols))])
    options = query_options(url, parts.query, known, protocols)
    adapter = options.get("adapter")
    if adapter is not None and not re.fullmatch(r"hci[0-9]{1,3}", adapter):
        raise ValueError(
            f"device URL {url!r}: adapter must name a Bluetooth adapter such as hci0, got {adapter!r}"
        )
    return BleTarget(address=address, protocol=protocol, adapter=adapter)


def parse_stream_ble_url(url: str) -> BleTarget:
    """A ``ble://`` URL of a device read as a byte stream over the Nordic UART Service: one that names no
    `protocol=`, or the protocol such a URL defaults to; raise ValueError for a family with a session of its own."""
    target = parse_ble_url(url)
    stream = next(iter(known_protocols("ble")))
    if target.protocol not in (None, stream):
        raise ValueError(
            f"device URL {url!r} names protocol={target.protocol}: its family reads it with a session of its own, "
            f"not as a byte stream over the Nordic UART Service (protocol={stream} or none)"
        )
    return target
