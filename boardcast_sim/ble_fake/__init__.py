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

Each module owns one part: `radio` (the air of one test), `peripheral` (the fake device), `backend` (the
bleak client and scanner classes) and `layouts` (the service tables a device shows).
"""

from boardcast_sim.ble_fake.backend import ConnectSpan, FakeBleakClient, FakeBleakScanner
from boardcast_sim.ble_fake.layouts import (
    NUS_RX_PROPERTIES,
    ChessnutLayout,
    DScoreLayout,
    NusLayout,
    chessnut_service_collection,
    dscore_service_collection,
    nus_service_collection,
)
from boardcast_sim.ble_fake.peripheral import FakeBleDevice, StreamDevice
from boardcast_sim.ble_fake.radio import FakeRadio

__all__ = [
    "NUS_RX_PROPERTIES",
    "ChessnutLayout",
    "ConnectSpan",
    "DScoreLayout",
    "FakeBleDevice",
    "FakeBleakClient",
    "FakeBleakScanner",
    "FakeRadio",
    "NusLayout",
    "StreamDevice",
    "chessnut_service_collection",
    "dscore_service_collection",
    "nus_service_collection",
]
