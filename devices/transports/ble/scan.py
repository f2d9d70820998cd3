"""Discovery: which BLE devices advertise a service Boardcast can talk to, per adapter or in one scan.

`_Adapter` is the connector's long-running view of one adapter (its scanner and every device's latest
advertisement); `scan_nearby` listens once, for ``boardcast devices``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from bleak import BleakScanner
from bleak.args.bluez import BlueZScannerArgs
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData, BaseBleakScanner
from bleak.exc import BleakError

from devices.transports.ble.errors import BluetoothUnavailable, bluetooth_unavailable_reason

_SCANNER_START_TIMEOUT = 10.0
# Which `protocol=` reads a device advertising these (lower-case) service UUIDs under this name, or None
# (devices/registry.py `ble_protocol_of` asks every family)
Recognise = Callable[[frozenset[str], str], str | None]


@dataclass(frozen=True, slots=True)
class NearbyDevice:
    """A device seen advertising a service Boardcast can talk to."""

    address: str
    name: str | None
    rssi: int
    protocol: str  # the `protocol=` of the family that reads it
    service_uuids: tuple[str, ...]

    @property
    def url(self) -> str:
        """The venue-file URL for this device."""
        return f"ble://{self.address}?protocol={self.protocol}"


class _Adapter:
    """One adapter's scanner, connect lock and latest advertisements."""

    def __init__(self, name: str | None) -> None:
        self.name = name
        self.label = name or "default adapter"
        self.connect_lock = asyncio.Lock()
        self.start_lock = asyncio.Lock()
        self.scanner: BleakScanner | None = None
        self.seen: dict[str, tuple[BLEDevice, AdvertisementData, float]] = {}
        self._advertised = asyncio.Event()

    def on_advertisement(self, device: BLEDevice, advertisement: AdvertisementData) -> None:
        """Scanner callback: keep the latest BLEDevice and advertisement per address."""
        self.seen[device.address.upper()] = (device, advertisement, time.monotonic())
        event, self._advertised = self._advertised, asyncio.Event()
        event.set()

    async def next_advertisement(self) -> None:
        """Wait for any advertisement."""
        await self._advertised.wait()


async def scan_nearby(
    timeout: float,  # noqa: ASYNC109 - how long to listen, as in BleakScanner.discover; not a deadline
    recognise: Recognise,
    *,
    adapter: str | None = None,
    scanner_backend: type[BaseBleakScanner] | None = None,
) -> list[NearbyDevice]:
    """Devices some family `recognise`s, strongest first; raise BluetoothUnavailable without Bluetooth."""
    bluez: BlueZScannerArgs = {"adapter": adapter} if adapter else {}
    try:
        async with asyncio.timeout(timeout + _SCANNER_START_TIMEOUT):
            if scanner_backend is None:
                found = await BleakScanner.discover(timeout, return_adv=True, bluez=bluez)
            else:
                found = await BleakScanner.discover(
                    timeout, return_adv=True, backend=scanner_backend, bluez=bluez
                )
    except (OSError, BleakError) as exc:
        reason = bluetooth_unavailable_reason(exc)
        raise BluetoothUnavailable(
            f"Bluetooth is not available on this machine ({reason}) / Bu makinede Bluetooth yok ({reason})"
        ) from exc
    nearby = [
        NearbyDevice(
            address=device.address.upper(),
            name=advertisement.local_name or device.name,
            rssi=advertisement.rssi,
            protocol=protocol,
            service_uuids=tuple(u.lower() for u in advertisement.service_uuids),
        )
        for device, advertisement in found.values()
        if (protocol := recognise(_uuids(advertisement), advertisement.local_name or device.name or ""))
        is not None
    ]
    return sorted(nearby, key=lambda d: (-d.rssi, d.address))


def _uuids(advertisement: AdvertisementData) -> frozenset[str]:
    return frozenset(u.lower() for u in advertisement.service_uuids)
