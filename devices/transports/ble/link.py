"""One connected BLE peripheral as a session's reader and writer, as a byte stream or as separate values.

`BleLink` is the `ByteReader`/`ByteWriter` pair every transport gives a session: notifications of any size are
concatenated in order (the wire stream is COBS-framed, so no chunk header is needed) and writes are cut to
the write characteristic's `max_write_without_response_size`. `BleValueLink` keeps each notification as one
value and sends each command as exactly one write.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from bleak import BleakClient
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.exc import BleakError

from devices.transports.ble.gatt import NusCharacteristics

if TYPE_CHECKING:  # the connector makes links; a link asks it to run its disconnect
    from devices.transports.ble.connector import BleConnector

_ATT_MAX_VALUE = 512
_READ_ALL = 65536
_DISCONNECT_TIMEOUT = 10.0
_LOGGER = logging.getLogger(__name__)


class BleLink:
    """One connected NUS peripheral as a byte reader and writer (both Protocols of transports.base)."""

    def __init__(self, address: str, connector: BleConnector, *, write_timeout: float = 10.0) -> None:
        self.address = address
        self._connector = connector
        self._write_timeout = write_timeout
        self._incoming = asyncio.StreamReader()
        self._client: BleakClient | None = None
        self._chars: NusCharacteristics | None = None
        self._pending = bytearray()
        self._write_lock = asyncio.Lock()
        self._down = False
        self._close_started = False
        self._closing: asyncio.Task[None] | None = None
        self.notifications = 0
        self.bytes_in = 0
        self.mtu: int | None = None  # the negotiated ATT MTU, when the connector was asked to learn it

    async def read(self, n: int = -1) -> bytes:
        """Up to n bytes of notification data, in order; b"" once the link is down."""
        return await self._incoming.read(n if n > 0 else _READ_ALL)

    def write(self, data: bytes) -> None:
        """Queue bytes for the peripheral; drain() sends them."""
        if self._down:
            raise ConnectionResetError(f"BLE link to {self.address} is closed")
        self._pending += data

    async def drain(self) -> None:
        """Send the queued bytes as GATT writes no longer than the characteristic allows."""
        async with self._write_lock:
            while self._pending:
                client, chars = self._client, self._chars
                if self._down or client is None or chars is None:
                    raise ConnectionResetError(f"BLE link to {self.address} is closed")
                size = max(1, min(chars.write.max_write_without_response_size, _ATT_MAX_VALUE))
                chunk = bytes(self._pending[:size])
                del self._pending[:size]
                try:
                    async with asyncio.timeout(self._write_timeout):
                        await client.write_gatt_char(
                            chars.write, chunk, response=not chars.write_without_response
                        )
                except (BleakError, TimeoutError, EOFError) as exc:
                    raise ConnectionResetError(f"BLE write to {self.address} failed: {exc}") from exc

    def close(self) -> None:
        """Mark the link down and start disconnecting in the background (owned by the connector)."""
        self._mark_down()
        if not self._close_started:
            self._close_started = True
            self._closing = self._connector._try_spawn(self._disconnect())

    async def wait_closed(self) -> None:
        """Wait until the disconnect has finished."""
        if self._closing is not None:
            await asyncio.shield(self._closing)
        elif self._close_started:  # the connector has stopped: disconnect here
            await self._disconnect()

    def _attach(self, client: BleakClient, chars: NusCharacteristics | None) -> None:
        self._client = client
        self._chars = chars

    def _on_notify(self, _sender: BleakGATTCharacteristic, data: bytearray) -> None:
        if self._down:
            return
        self.notifications += 1
        self.bytes_in += len(data)
        self._incoming.feed_data(bytes(data))

    def _on_disconnected(self, _client: BleakClient) -> None:
        _LOGGER.debug("%s: disconnected", self.address)
        self._mark_down()

    def _mark_down(self) -> None:
        if not self._down:
            self._down = True
            self._incoming.feed_eof()

    async def _disconnect(self) -> None:
        client = self._client
        if client is None:
            return
        try:
            async with asyncio.timeout(_DISCONNECT_TIMEOUT):
                await client.disconnect()
        except Exception as exc:  # a failed disconnect must not take the connector down
            _LOGGER.warning("%s: disconnect failed: %r", self.address, exc)
        finally:
            self._connector._forget(self)


class BleValueLink(BleLink):
    """One connected peripheral whose notifications are separate values (a button code), not a byte stream.

    Values come from every subscribed characteristic, in arrival order. A link opened without a write
    characteristic takes no writes: write(), drain() and write_value() raise as on a closed link.
    """

    def __init__(self, address: str, connector: BleConnector) -> None:
        super().__init__(address, connector)
        self._values: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def next_value(self) -> bytes | None:
        """The next notification value, in order; None once the link is down."""
        if self._down and self._values.empty():
            return None
        return await self._values.get()

    async def write_value(self, value: bytes) -> None:
        """Send one command as exactly one GATT write (never merged with another, never split).

        Raise ConnectionResetError if the link is down or the write fails, ValueError if the value is longer
        than one write may be.
        """
        async with self._write_lock:
            client, chars = self._client, self._chars
            if self._down or client is None or chars is None:
                raise ConnectionResetError(f"BLE link to {self.address} is closed or takes no writes")
            limit = (
                _ATT_MAX_VALUE
                if not chars.write_without_response
                else chars.write.max_write_without_response_size
            )
            if len(value) > limit:
                raise ValueError(
                    f"a {len(value)}-byte value does not fit one {limit}-byte write to {self.address}"
                )
            try:
                async with asyncio.timeout(self._write_timeout):
                    await client.write_gatt_char(
                        chars.write, bytes(value), response=not chars.write_without_response
                    )
            except (BleakError, TimeoutError, EOFError) as exc:
                raise ConnectionResetError(f"BLE write to {self.address} failed: {exc}") from exc

    def _on_notify(self, _sender: BleakGATTCharacteristic, data: bytearray) -> None:
        if self._down:
            return
        self.notifications += 1
        self.bytes_in += len(data)
        self._values.put_nowait(bytes(data))

    def _mark_down(self) -> None:
        if not self._down:
            super()._mark_down()
            self._values.put_nowait(None)
