"""A fake Bluetooth LE radio for tests: a bleak client backend and scanner backend over simulated peripherals.

There is no adapter or D-Bus on our machines, so tests pass these classes to the real bleak API
(`BleakClient(..., backend=radio.client_backend)`, `BleakScanner(..., backend=radio.scanner_backend)`) and
the real bleak-retry-connector code runs on top. A `FakeBleDevice` models a Nordic UART Service
peripheral: it runs a device simulator (anything with ``run_on_streams(reader, writer)``), sends what the
simulator writes as notifications of at most ``notify_size`` bytes (ATT MTU - 3), feeds GATT writes to the
simulator, enforces the characteristic's write size, and has fault knobs and counters for tests.
With ``layout=DScoreLayout()`` it is a D-SCORE wristband instead: `notify_value` sends one button code.
With ``layout=ChessnutLayout()`` it is a Chessnut board: two notify characteristics in two services and a
command characteristic; `notify_on` sends one value on either, and `incoming` is what centrals wrote.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, cast

from bleak.args import SizedBuffer
from bleak.assigned_numbers import CharacteristicPropertyName
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient, NotifyCallback
from bleak.backends.descriptor import BleakGATTDescriptor
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData, AdvertisementDataCallback, BaseBleakScanner
from bleak.backends.service import BleakGATTService, BleakGATTServiceCollection
from bleak.exc import BleakDeviceNotFoundError, BleakError

from devices.chessnut.session import (
    CHESSNUT_BOARD,
    CHESSNUT_BOARD_SERVICE,
    CHESSNUT_COMMAND_SERVICE,
    CHESSNUT_COMMANDS,
    CHESSNUT_REPLIES,
)
from devices.dscore.session import DSCORE_BUTTONS, DSCORE_PLAYER_TYPE, DSCORE_POKE
from devices.transports.ble import DSCORE_SERVICE, NUS_RX, NUS_SERVICE, NUS_TX

_ATT_MAX_VALUE = 512
NUS_RX_PROPERTIES: tuple[CharacteristicPropertyName, ...] = ("write-without-response", "write")


class StreamDevice(Protocol):
    """A device simulator that runs behind an asyncio stream pair (e.g. TableTennisScoreboard)."""

    async def run_on_streams(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Be the device until cancelled."""
        ...


@dataclass(frozen=True, slots=True)
class ConnectSpan:
    """One connect call as the fake saw it, in event-loop time."""

    address: str
    adapter: str | None
    started: float
    ended: float
    ok: bool


@dataclass(frozen=True, slots=True)
class NusLayout:
    """A NUS service table: which UUID carries which properties, and the write size."""

    tx_uuid: str = NUS_TX
    rx_uuid: str = NUS_RX
    tx_properties: tuple[CharacteristicPropertyName, ...] = ("notify",)
    rx_properties: tuple[CharacteristicPropertyName, ...] = NUS_RX_PROPERTIES
    extra_uuid: str | None = None  # an extra read-only characteristic in the service, if set
    max_write: int = 20  # max_write_without_response_size: ATT MTU - 3


def nus_service_collection(
    layout: NusLayout = NusLayout(),
) -> tuple[BleakGATTServiceCollection, BleakGATTCharacteristic, BleakGATTCharacteristic]:
    """A NUS service built from real bleak classes; returns (collection, tx/notify char, rx/write char)."""
    collection = BleakGATTServiceCollection()
    service = BleakGATTService(None, 0x0010, NUS_SERVICE)
    collection.add_service(service)

    def characteristic(handle: int, uuid: str, properties: Sequence[CharacteristicPropertyName]):
        char = BleakGATTCharacteristic(
            None, handle, uuid.lower(), list(properties), lambda: layout.max_write, service
        )
        collection.add_characteristic(char)
        return char

    if layout.extra_uuid:
        characteristic(0x0011, layout.extra_uuid, ["read"])
    rx = characteristic(0x0013, layout.rx_uuid, layout.rx_properties)
    tx = characteristic(0x0016, layout.tx_uuid, layout.tx_properties)
    collection.add_descriptor(BleakGATTDescriptor(None, 0x0017, "00002902-0000-1000-8000-00805f9b34fb", tx))
    return collection, tx, rx


@dataclass(frozen=True, slots=True)
class DScoreLayout:
    """A D-SCORE wristband's service table (Squore's bluetooth_le_config.json), optionally reordered."""

    notify_uuid: str = DSCORE_BUTTONS
    extra_notify_uuid: str | None = None  # a second notify characteristic listed first, if set


def dscore_service_collection(
    layout: DScoreLayout = DScoreLayout(),
) -> tuple[BleakGATTServiceCollection, BleakGATTCharacteristic, BleakGATTCharacteristic]:
    """A D-SCORE service built from real bleak classes; returns (collection, buttons/notify, player-type/write)."""
    collection = BleakGATTServiceCollection()
    service = BleakGATTService(None, 0x0020, DSCORE_SERVICE)
    collection.add_service(service)

    def characteristic(handle: int, uuid: str, properties: Sequence[CharacteristicPropertyName]):
        char = BleakGATTCharacteristic(None, handle, uuid.lower(), list(properties), lambda: 20, service)
        collection.add_characteristic(char)
        return char

    if layout.extra_notify_uuid:
        characteristic(0x0021, layout.extra_notify_uuid, ["read", "notify"])
    write = characteristic(0x0023, DSCORE_PLAYER_TYPE, ["write"])
    notify = characteristic(0x0026, layout.notify_uuid, ["read", "notify"])
    collection.add_descriptor(
        BleakGATTDescriptor(None, 0x0027, "00002902-0000-1000-8000-00805f9b34fb", notify)
    )
    characteristic(0x0029, DSCORE_POKE, ["write"])
    return collection, notify, write


@dataclass(frozen=True, slots=True)
class ChessnutLayout:
    """A Chessnut Air's service table (moveapiece's hardware capture): board reports, commands and replies."""

    command_properties: tuple[CharacteristicPropertyName, ...] = ("write", "write-without-response")
    max_write: int = 20  # max_write_without_response_size


def chessnut_service_collection(
    layout: ChessnutLayout = ChessnutLayout(),
) -> tuple[
    BleakGATTServiceCollection, BleakGATTCharacteristic, BleakGATTCharacteristic, BleakGATTCharacteristic
]:
    """A Chessnut board's services from real bleak classes; returns (collection, board, commands, replies)."""
    collection = BleakGATTServiceCollection()
    board_service = BleakGATTService(None, 0x0030, CHESSNUT_BOARD_SERVICE)
    command_service = BleakGATTService(None, 0x0040, CHESSNUT_COMMAND_SERVICE)
    collection.add_service(board_service)
    collection.add_service(command_service)

    def characteristic(
        service: BleakGATTService, handle: int, uuid: str, properties: Sequence[CharacteristicPropertyName]
    ) -> BleakGATTCharacteristic:
        char = BleakGATTCharacteristic(
            None, handle, uuid, list(properties), lambda: layout.max_write, service
        )
        collection.add_characteristic(char)
        return char

    board = characteristic(board_service, 0x0031, CHESSNUT_BOARD, ["notify"])
    collection.add_descriptor(
        BleakGATTDescriptor(None, 0x0032, "00002902-0000-1000-8000-00805f9b34fb", board)
    )
    commands = characteristic(command_service, 0x0041, CHESSNUT_COMMANDS, layout.command_properties)
    replies = characteristic(command_service, 0x0043, CHESSNUT_REPLIES, ["notify"])
    collection.add_descriptor(
        BleakGATTDescriptor(None, 0x0044, "00002902-0000-1000-8000-00805f9b34fb", replies)
    )
    return collection, board, commands, replies


class FakeRadio:
    """The air between fake clients, fake scanners and fake peripherals; one per test."""

    def __init__(self) -> None:
        self.devices: dict[str, FakeBleDevice] = {}
        self.connect_spans: list[ConnectSpan] = []
        self.scanner_starts = 0
        self._scanners: list[FakeBleakScanner] = []
        self.client_backend: type[FakeBleakClient] = type(
            "FakeBleakClient", (FakeBleakClient,), {"radio": self}
        )
        self.scanner_backend: type[FakeBleakScanner] = type(
            "FakeBleakScanner", (FakeBleakScanner,), {"radio": self}
        )

    def add_device(self, address: str, name: str, **options: Any) -> FakeBleDevice:
        """Power on a peripheral; it advertises at once unless not_found=True."""
        device = FakeBleDevice(self, address.upper(), name, **options)
        self.devices[device.address] = device
        self.advertise(device)
        return device

    def advertise(self, device: FakeBleDevice) -> None:
        """Let every running scanner hear one advertisement from device (if it is advertising)."""
        if device.advertising:
            for scanner in list(self._scanners):
                scanner.hear(device)


class FakeBleDevice:
    """A NUS peripheral: simulator output goes out as notifications, GATT writes go in to the simulator."""

    def __init__(
        self,
        radio: FakeRadio,
        address: str,
        name: str,
        *,
        notify_size: int = 20,
        layout: NusLayout | DScoreLayout | ChessnutLayout = NusLayout(),
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
        self._device._outbox += data

    async def drain(self) -> None:
        await self._device._flush()


class FakeBleakClient(BaseBleakClient):
    """A bleak backend client talking to FakeBleDevices; get a radio-bound subclass from FakeRadio."""

    radio: ClassVar[FakeRadio]

    def __init__(
        self,
        address_or_ble_device: BLEDevice | str,
        *,
        disconnected_callback: Any = None,
        timeout: float = 10.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(address_or_ble_device, disconnected_callback=disconnected_callback, timeout=timeout)
        self.address = self.address.upper()
        self.adapter: str | None = (kwargs.get("bluez") or {}).get("adapter")
        self._device: FakeBleDevice | None = None
        self._connected = False

    @property
    def name(self) -> str:
        """The peripheral's name."""
        device = self.radio.devices.get(self.address)
        return device.name if device else self.address.replace(":", "-")

    @property
    def mtu_size(self) -> int:
        """The ATT MTU: notification size + 3."""
        device = self.radio.devices.get(self.address)
        return device.notify_size + 3 if device else 23

    @property
    def is_connected(self) -> bool:
        """Whether this client holds the link."""
        return self._connected

    async def connect(self, pair: bool, **kwargs: Any) -> None:
        """Connect after the device's connect_delay; fail as the fault knobs say."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        device = self.radio.devices.get(self.address)
        ok = False
        try:
            if device is not None:
                device.connect_attempts += 1
                device.connect_timeouts.append(kwargs.get("timeout"))
                await asyncio.sleep(device.connect_delay)
            if device is None or device.not_found:
                raise BleakDeviceNotFoundError(
                    self.address, f"Device with address {self.address} was not found."
                )
            if device.fail_next_connects > 0:
                device.fail_next_connects -= 1
                raise BleakError(f"fake: {self.address} did not answer the connection request")
            if device.connected:
                raise BleakError(f"fake: {self.address} is already connected to another central")
            device._attach(self)
            self._device = device
            self._connected = True
            self.services = device._services()
            ok = True
        finally:
            self.radio.connect_spans.append(ConnectSpan(self.address, self.adapter, started, loop.time(), ok))

    async def disconnect(self) -> None:
        """Disconnect; like BlueZ, the disconnected callback runs for this one too."""
        await asyncio.sleep(0)
        if self._device is not None:
            self._device._release(self)
        self._link_lost()

    def _link_lost(self) -> None:
        if not self._connected:
            return
        self._connected = False
        self.services = None
        if self._disconnected_callback is not None:
            self._disconnected_callback()

    async def pair(self, *args: Any, **kwargs: Any) -> None:
        """Pairing is not modelled."""
        raise BleakError("fake backend: pairing is not supported")

    async def unpair(self) -> None:
        """Pairing is not modelled."""
        raise BleakError("fake backend: pairing is not supported")

    async def read_gatt_char(
        self, characteristic: BleakGATTCharacteristic, *, use_cached: bool = False, **kwargs: Any
    ) -> bytearray:
        """Readable characteristics read as empty."""
        self._require_connected()
        if "read" not in characteristic.properties:
            raise BleakError(f"fake: characteristic {characteristic.uuid} is not readable")
        return bytearray()

    async def read_gatt_descriptor(
        self, descriptor: BleakGATTDescriptor, *, use_cached: bool = False, **kwargs: Any
    ) -> bytearray:
        """Descriptors are not modelled."""
        raise BleakError("fake backend: descriptors are not supported")

    async def write_gatt_char(
        self, characteristic: BleakGATTCharacteristic, data: SizedBuffer, response: bool
    ) -> None:
        """Hand the bytes to the device, which checks the property and the size."""
        self._require_connected()
        assert self._device is not None
        await asyncio.sleep(0)
        self._device._write(self, characteristic, bytes(data), response)

    async def write_gatt_descriptor(self, descriptor: BleakGATTDescriptor, data: SizedBuffer) -> None:
        """Descriptors are not modelled."""
        raise BleakError("fake backend: descriptors are not supported")

    async def start_notify(
        self, characteristic: BleakGATTCharacteristic, callback: NotifyCallback, **kwargs: Any
    ) -> None:
        """Subscribe; a second subscription on one connection raises."""
        self._require_connected()
        assert self._device is not None
        self._device._start_notify(self, characteristic, callback)

    async def stop_notify(self, characteristic: BleakGATTCharacteristic) -> None:
        """Unsubscribe."""
        self._require_connected()
        assert self._device is not None
        if characteristic.handle in self._device._extra_notify:
            del self._device._extra_notify[characteristic.handle]
            return
        self._device._notify = None

    async def _acquire_mtu(self) -> None:
        """What BlueZ's backend offers to read the negotiated MTU; counted, the MTU is notify_size + 3."""
        self._require_connected()
        assert self._device is not None
        self._device.mtu_reads += 1

    def _require_connected(self) -> None:
        if not self._connected:
            raise BleakError("Not connected")


class FakeBleakScanner(BaseBleakScanner):
    """A bleak backend scanner that hears FakeBleDevice advertisements; get a bound subclass from FakeRadio."""

    radio: ClassVar[FakeRadio]

    def __init__(
        self,
        detection_callback: AdvertisementDataCallback | None,
        service_uuids: list[str] | None,
        scanning_mode: str = "active",
        **kwargs: Any,
    ) -> None:
        super().__init__(detection_callback, service_uuids)
        self.adapter: str | None = (kwargs.get("bluez") or {}).get("adapter")

    async def start(self) -> None:
        """Start hearing advertisements; every advertising device is heard at once."""
        self.seen_devices = {}
        self.radio.scanner_starts += 1
        self.radio._scanners.append(self)
        for device in list(self.radio.devices.values()):
            self.hear(device)

    async def stop(self) -> None:
        """Stop hearing advertisements."""
        if self in self.radio._scanners:
            self.radio._scanners.remove(self)

    def hear(self, device: FakeBleDevice) -> None:
        """Receive one advertisement from device."""
        if not device.advertising:
            return
        advertisement = AdvertisementData(
            local_name=device.name,
            manufacturer_data={},
            service_data={},
            service_uuids=list(device.advertised_uuids),
            tx_power=None,
            rssi=device.rssi,
            platform_data=(),
        )
        if not self.is_allowed_uuid(advertisement.service_uuids):
            return
        ble_device = self.create_or_update_device(
            device.address, device.address, device.name, {"source": "fake-radio"}, advertisement
        )
        self.call_detection_callbacks(ble_device, advertisement)
