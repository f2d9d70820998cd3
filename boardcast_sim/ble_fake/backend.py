"""The fake radio's bleak backend classes: a client and a scanner that reach `FakeBleDevice`s, not an adapter.

Tests pass them to the real bleak API (`BleakClient(..., backend=radio.client_backend)`,
`BleakScanner(..., backend=radio.scanner_backend)`), so the real bleak-retry-connector code runs on top.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from bleak.args import SizedBuffer
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient, NotifyCallback
from bleak.backends.descriptor import BleakGATTDescriptor
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData, AdvertisementDataCallback, BaseBleakScanner
from bleak.exc import BleakDeviceNotFoundError, BleakError

if TYPE_CHECKING:  # only for annotations: the radio binds these classes to itself
    from boardcast_sim.ble_fake.peripheral import FakeBleDevice
    from boardcast_sim.ble_fake.radio import FakeRadio


@dataclass(frozen=True, slots=True)
class ConnectSpan:
    """One connect call as the fake saw it, in event-loop time."""

    address: str
    adapter: str | None
    started: float
    ended: float
    ok: bool


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
