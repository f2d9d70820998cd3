"""Where a DGT board is plugged in: its ``serial://…?protocol=dgt`` URL and the port opener it gives."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from devices.transports.base import ByteReader, ByteWriter, Opener
from devices.transports.serial import open_serial, parse_serial_url

DGT_BAUDRATE = 9600


@dataclass(frozen=True, slots=True)
class DgtTarget:
    """Which port to open and how, read from a ``serial://…?protocol=dgt`` URL."""

    url: str
    port: str
    baudrate: int
    bluetooth: bool  # an RFCOMM port (or ``&bt=1``): the board has a battery to ask about


def parse_dgt_url(url: str) -> DgtTarget:
    """Read ``serial:///dev/ttyACM0?protocol=dgt[&baud=9600][&bt=1]``; raise ValueError naming the URL."""
    if urlsplit(url).scheme != "serial":
        raise ValueError(
            f"device URL {url!r} is not a DGT board; write it as serial:///dev/ttyACM0?protocol=dgt"
        )
    target = parse_serial_url(url)  # every option checked: baud, protocol and bt are the only ones taken
    if target.protocol != "dgt":
        raise ValueError(
            f"device URL {url!r} is not a DGT board; write it as serial:///dev/ttyACM0?protocol=dgt"
        )
    query = parse_qs(urlsplit(url).query, keep_blank_values=True)
    baudrate = target.baudrate if "baud" in query else DGT_BAUDRATE
    bt = query.get("bt", ["0"])[-1]
    if bt not in _BT_VALUES:
        raise ValueError(f"device URL {url!r}: bt must be 1 (a Bluetooth board) or 0, got {bt!r}")
    bluetooth = "rfcomm" in target.port or _BT_VALUES[bt]
    return DgtTarget(url, target.port, baudrate, bluetooth)


_BT_VALUES = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def dgt_opener(target: DgtTarget) -> Opener:
    """An opener for a DGT port at the board's baud rate (9600 unless the URL says otherwise)."""
    separator = "&" if urlsplit(target.url).query else "?"
    url = target.url if "baud=" in target.url else f"{target.url}{separator}baud={target.baudrate}"

    async def open_() -> tuple[ByteReader, ByteWriter]:
        return await open_serial(url)

    return open_
