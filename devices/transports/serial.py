"""Serial ports as asyncio streams, through pyserial-asyncio-fast; thin on purpose.

Accepts venue URLs such as ``serial:///dev/ttyUSB0?baud=115200&protocol=wire`` and anything pyserial's
``serial_for_url`` accepts (a plain path, ``socket://host:port``, ``loop://``).
"""

from __future__ import annotations

import asyncio
import errno
import os
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import serial
import serial_asyncio_fast

DEFAULT_BAUDRATE = 115200


class DeviceUnavailable(OSError):
    """A device port that cannot be opened; str() says why in English / Türkçe, naming the URL."""

    def __init__(self, url: str, english: str, turkish: str) -> None:
        super().__init__(f"{english} / {turkish}")
        self.url = url
        self.english = english
        self.turkish = turkish


@dataclass(frozen=True, slots=True)
class SerialTarget:
    """Where and how to open a serial device, read from its URL."""

    port: str  # a device path or a pyserial URL
    baudrate: int = DEFAULT_BAUDRATE
    protocol: str | None = None


def parse_serial_url(url: str) -> SerialTarget:
    """Read a device URL; raise ValueError naming the URL if its baud rate is not a positive integer."""
    parts = urlsplit(url)
    if parts.scheme != "serial":
        return SerialTarget(port=url)
    if not parts.path:
        raise ValueError(f"device URL {url!r} names no port; write it as serial:///dev/ttyUSB0")
    query = parse_qs(parts.query)
    baud_text = query.get("baud", [str(DEFAULT_BAUDRATE)])[-1]
    if not baud_text.isdigit() or int(baud_text) <= 0:
        raise ValueError(f"device URL {url!r}: baud must be a positive integer, got {baud_text!r}")
    protocol = query.get("protocol", [None])[-1]
    return SerialTarget(port=parts.path, baudrate=int(baud_text), protocol=protocol)


async def open_serial(url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Open a serial device as a stream pair; raise DeviceUnavailable naming the port if it cannot."""
    target = parse_serial_url(url)
    try:
        return await serial_asyncio_fast.open_serial_connection(url=target.port, baudrate=target.baudrate)
    except (serial.SerialException, OSError) as exc:
        raise _unavailable(url, target.port, exc) from exc


def _unavailable(url: str, port: str, exc: OSError) -> DeviceUnavailable:
    missing = exc.errno == errno.ENOENT or (
        exc.errno is None and "://" not in port and not os.path.exists(port)
    )
    if missing:
        return DeviceUnavailable(
            url,
            f"serial port {port} does not exist; check the cable and the venue file",
            f"seri port {port} yok; kabloyu ve mekân dosyasını kontrol edin",
        )
    if exc.errno == errno.EACCES:
        return DeviceUnavailable(
            url,
            f"no permission to open serial port {port}; add the hub user to the dialout group",
            f"seri port {port} için izin yok; hub kullanıcısını dialout grubuna ekleyin",
        )
    reason = exc.strerror or str(exc)
    return DeviceUnavailable(
        url, f"cannot open serial port {port}: {reason}", f"seri port {port} açılamadı: {reason}"
    )
