"""The air of one test: the fake peripherals that are on, the scanners that hear them, and every connect."""

from __future__ import annotations

from typing import Any

from boardcast_sim.ble_fake.backend import ConnectSpan, FakeBleakClient, FakeBleakScanner
from boardcast_sim.ble_fake.peripheral import FakeBleDevice


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
