"""A fake BLE peripheral: what its simulator writes goes out as notifications, GATT writes go in to it.

A `FakeBleDevice` runs a device simulator (anything with ``run_on_streams(reader, writer)``), sends what the
simulator writes as notifications of at most ``notify_size`` bytes (ATT MTU - 3), feeds GATT writes to the
simulator, enforces the characteristic's write size, and has fault knobs and counters for tests. Its
``layout`` says which service table it shows (see `boardcast_sim.ble_fake.layouts`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, cast

from bleak.assigned_numbers import CharacteristicPropertyName
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import NotifyCallback
from bleak.backends.service import BleakGATTServiceCollection
from bleak.exc import BleakError

from boardcast_sim.ble_fake.layouts import (
    ChessnutLayout,
    DScoreLayout,
    NusLayout,
    chessnut_service_collection,
    dscore_service_collection,
    nus_service_collection,
)
from devices.transports.ble import NUS_SERVICE

if TYPE_CHECKING:  # only for annotations: the radio and the backend client import this module
    from boardcast_sim.ble_fake.backend import FakeBleakClient
    from boardcast_sim.ble_fake.radio import FakeRadio

_ATT_MAX_VALUE = 512
_NUS_LAYOUT = NusLayout()  # the default service table; frozen, so every device can share it


class StreamDevice(Protocol):
    """A device simulator that runs behind an asyncio stream pair (e.g. TableTennisScoreboard)."""

    async def run_on_streams(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Be the device until cancelled."""
        ...


class FakeBleDevice:
    """A NUS peripheral: simulator output goes out as notifications, GATT writes go in to the simulator."""

    def __init__(
        self,
        radio: FakeRadio,
        address: str,
        name: str,
        *,
        notify_size: int = 20,
        layout: NusLayout | DScoreLayout | ChessnutLayout = _NUS_LAYOUT,
        advertised_uuids: Sequence[str] = (NUS_SERVICE,),
        rssi: int = -60,
        connect_delay: float = 0.01,
        not_found: bool = False,
    ) -> None:
        if not 1 <= notify_size <= _ATT_MAX_VALUE:
            raise ValueError(f"notify_size must be 1..{_ATT_MAX_VALUE}, got {notify_size}")
        self.radio = radio
        self.address = address
        self.name = name
        self.notify_size = notify_size
        self.layout = layout
        self.advertised_uuids = tuple(advertised_uuids)
        self.rssi = rssi
        self.connect_delay = connect_delay
        self._not_found = not_found
        self.fail_next_connects = 0
        self._central: FakeBleakClient | None = None
        self._tx_char: BleakGATTCharacteristic | None = None
        self._rx_char: BleakGATTCharacteristic | None = None
        self._notify: NotifyCallback | None = None
        self._extra_chars: dict[int, BleakGATTCharacteristic] = {}  # more notify characteristics (Chessnut)
        self._extra_notify: dict[int, NotifyCallback] = {}
        self._silenced = False
        self._drop_mid_frame = False
        self._rx = asyncio.StreamReader()  # what centrals wrote, read by the simulator
        self._outbox = bytearray()
        # counters and records for tests
        self.connect_attempts = 0
        self.clients: list[FakeBleakClient] = []  # every client that connected, in order
        self.connect_timeouts: list[float | None] = []
        self.start_notify_calls = 0
        self.writes: list[bytes] = []
        self.write_responses: list[bool] = []
        self.notification_sizes: list[int] = []
        self.drops = 0
        self.mtu_reads = 0  # how often a central asked for the MTU (BlueZ's _acquire_mtu)

    @property
    def not_found(self) -> bool:
        """Out of range or off: not advertising, and connects fail with BleakDeviceNotFoundError."""
        return self._not_found

    @not_found.setter
    def not_found(self, value: bool) -> None:
        self._not_found = value
        if value:
            self.drop_link()
        else:
            self.radio.advertise(self)

    @property
    def advertising(self) -> bool:
        """Whether scanners can hear it: in range and not connected (a NUS peripheral stops advertising)."""
        return not self._not_found and self._central is None

    @property
    def connected(self) -> bool:
        """Whether a central is connected."""
        return self._central is not None

    async def run(self, simulator: StreamDevice) -> None:
        """Run a simulator as this device's firmware until cancelled."""
        await simulator.run_on_streams(self._rx, cast(asyncio.StreamWriter, _DeviceSide(self)))

    async def send(self, data: bytes) -> None:
        """Send raw bytes as notifications, as the firmware would."""
        self._outbox += data
        await self._flush()

    @property
    def incoming(self) -> asyncio.StreamReader:
        """What centrals wrote, in order (a simulator that is not a StreamDevice reads it here)."""
        return self._rx

    def notify_on(self, uuid: str, value: bytes) -> bool:
        """Send one notification on the characteristic `uuid`; False if nobody subscribed to it.

        A value longer than the link allows (``notify_size``, ATT MTU - 3) is cut to it, as a peripheral does.
        """
        if self._silenced:
            return False
        if self._tx_char is not None and self._tx_char.uuid == uuid.lower():
            notify = self._notify
        else:
            handles = [h for h, c in self._extra_chars.items() if c.uuid == uuid.lower()]
            notify = self._extra_notify.get(handles[0]) if handles else None
        if notify is None:
            return False
        value = value[: self.notify_size]
        self.notification_sizes.append(len(value))
        notify(bytearray(value))
        return True

    def notify_value(self, value: bytes) -> bool:
        """Send exactly one notification with this value (a button code); False if nobody subscribed."""
        notify = self._notify
        if notify is None or self._silenced:
            return False
        self.notification_sizes.append(len(value))
        notify(bytearray(value))
        return True

    def disconnect_mid_frame(self) -> None:
        """Fault: on the next simulator write, notify its first half, then drop the link."""
        self._drop_mid_frame = True

    def stop_notifications(self) -> None:
        """Fault: the link stays up but nothing more is notified on this connection."""
        self._silenced = True

    def drop_link(self) -> None:
        """Fault: the peripheral disconnects now (out of range, reset)."""
        central = self._central
        if central is not None:
            self.drops += 1
            self._release(central)
            central._link_lost()

    def _services(self) -> BleakGATTServiceCollection:
        if isinstance(self.layout, ChessnutLayout):
            collection, self._tx_char, self._rx_char, replies = chessnut_service_collection(self.layout)
            self._extra_chars = {replies.handle: replies}
            return collection
        if isinstance(self.layout, DScoreLayout):
            collection, self._tx_char, self._rx_char = dscore_service_collection(self.layout)
        else:
            collection, self._tx_char, self._rx_char = nus_service_collection(self.layout)
        return collection

    def _attach(self, client: FakeBleakClient) -> None:
        self._central = client
        self._silenced = False
        self._notify = None
        self._extra_notify = {}
        self.clients.append(client)

    def _release(self, client: FakeBleakClient) -> None:
        if self._central is client:
            self._central = None
            self._notify = None
            self._extra_notify = {}
            self._silenced = False
            self.radio.advertise(self)

    async def _flush(self) -> None:
        data = bytes(self._outbox)
        self._outbox.clear()
        if self._drop_mid_frame and self._notify is not None and len(data) >= 2:
            self._drop_mid_frame = False
            await self._deliver(data[: len(data) // 2])
            self.drop_link()
            return
        await self._deliver(data)

    async def _deliver(self, data: bytes) -> None:
        for start in range(0, len(data), self.notify_size):
            notify = self._notify
            if notify is None or self._silenced:
                return  # nobody subscribed: a real peripheral drops the bytes too
            chunk = data[start : start + self.notify_size]
            self.notification_sizes.append(len(chunk))
            notify(bytearray(chunk))
            await asyncio.sleep(0)  # one notification per event-loop turn, as from a radio

    def _write(
        self, client: FakeBleakClient, char: BleakGATTCharacteristic, data: bytes, response: bool
    ) -> None:
        if self._central is not client or self._rx_char is None or char.handle != self._rx_char.handle:
            raise BleakError(f"fake: characteristic {char.uuid} is not the writable one on {self.address}")
        kind: CharacteristicPropertyName = "write" if response else "write-without-response"
        if kind not in char.properties:
            raise BleakError(f"fake: characteristic {char.uuid} does not support {kind}")
        limit = _ATT_MAX_VALUE if response else char.max_write_without_response_size
        if len(data) > limit:
            raise BleakError(f"fake: {len(data)}-byte {kind} exceeds the {limit}-byte limit")
        self.writes.append(data)
        self.write_responses.append(response)
        self._rx.feed_data(data)

    def _start_notify(
        self, client: FakeBleakClient, char: BleakGATTCharacteristic, callback: NotifyCallback
    ) -> None:
        if self._central is client and char.handle in self._extra_chars:
            if char.handle in self._extra_notify:
                raise BleakError(
                    f"fake: notifications on {char.uuid} were already started on this connection"
                )
            self.start_notify_calls += 1
            self._extra_notify[char.handle] = callback
            return
        if self._central is not client or self._tx_char is None or char.handle != self._tx_char.handle:
            raise BleakError(f"fake: characteristic {char.uuid} does not notify on {self.address}")
        if self._notify is not None:  # BlueZ can hang here instead (bleak #484); fail loudly
            raise BleakError(f"fake: notifications on {char.uuid} were already started on this connection")
        self.start_notify_calls += 1
        self._notify = callback


class _DeviceSide:
    """The simulator's writer: bytes it writes become notifications when it drains."""

    def __init__(self, device: FakeBleDevice) -> None:
        self._device = device

    def write(self, data: bytes) -> None:
        """Queue bytes for the next notifications."""
        self._device._outbox += data

    async def drain(self) -> None:
        """Send the queued bytes as notifications."""
        await self._device._flush()
