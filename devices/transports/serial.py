"""Serial ports as asyncio streams, through pyserial-asyncio-fast; thin on purpose.

Accepts venue URLs such as ``serial:///dev/ttyUSB0?baud=115200&protocol=wire`` and anything pyserial's
``serial_for_url`` accepts (a plain path, ``socket://host:port``, ``loop://``).
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Callable
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
        reader, writer = await serial_asyncio_fast.open_serial_connection(
            url=target.port, baudrate=target.baudrate
        )
    except (serial.SerialException, OSError) as exc:
        raise _unavailable(url, target.port, exc) from exc
    port = writer.transport.get_extra_info("serial")
    if port is not None and isinstance(getattr(port, "fd", None), int):
        port.read = _direct_reader(port.fd)
    return reader, writer


def _direct_reader(fd: int) -> Callable[[int], bytes]:
    """A read for a port the event loop already found readable, without pyserial's `select()`.

    pyserial's POSIX read calls `select()`, which fails for file descriptors above 1023: a hub with a
    thousand spectators connected (each a socket) would stop reading every port opened after them. The
    loop only calls this when the descriptor is readable, so a plain non-blocking `os.read` is enough.
    """

    def read(size: int = 1) -> bytes:
        try:
            data = os.read(fd, size)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError as exc:
            raise serial.SerialException(f"read failed: {exc}") from exc
        if not data:  # readable yet empty: the device went away (what pyserial says in the same case)
            raise serial.SerialException("device reports readiness to read but returned no data")
        return data

    return read


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
