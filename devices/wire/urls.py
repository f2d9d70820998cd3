"""Boardcast Wire device URLs: a serial port or a BLE device read as a Wire byte stream, checked as the session
will open it."""

from __future__ import annotations

from devices.transports.ble import BleTarget, parse_stream_ble_url
from devices.transports.serial import SerialTarget, parse_serial_url


def parse_wire_serial_url(url: str) -> SerialTarget:
    """A serial device URL for a Boardcast Wire session: `protocol=wire` or none; raise ValueError if not."""
    target = parse_serial_url(url)
    if target.protocol not in (None, "wire"):
        raise ValueError(
            f"device URL {url!r} names protocol={target.protocol}, but this port is read as a Boardcast "
            "Wire device (protocol=wire or none)"
        )
    return target


def parse_wire_ble_url(url: str) -> BleTarget:
    """A ``ble://`` URL for a Boardcast Wire session over the Nordic UART Service (`protocol=wire` or none)."""
    return parse_stream_ble_url(url)
