"""What every transport hands a device session: a byte reader and a byte writer, nothing more.

asyncio's StreamReader/StreamWriter satisfy these; BLE and TCP adapters implement the same four calls, so
`devices.session.DeviceSession` runs unchanged over serial, Bluetooth LE and TCP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol


class ByteReader(Protocol):
    """The read side of a device link."""

    async def read(self, n: int = -1) -> bytes:
        """Up to n bytes; b"" once the link is closed."""
        ...


class ByteWriter(Protocol):
    """The write side of a device link."""

    def write(self, data: bytes) -> None:
        """Queue bytes for the device."""
        ...

    async def drain(self) -> None:
        """Wait until the queued bytes are handed to the link."""
        ...

    def close(self) -> None:
        """Start closing the link."""
        ...

    async def wait_closed(self) -> None:
        """Wait until the link is closed."""
        ...


Opener = Callable[[], Awaitable[tuple[ByteReader, ByteWriter]]]
