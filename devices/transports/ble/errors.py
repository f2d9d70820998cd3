"""Why a BLE device cannot be opened now, as errors that name the device and say what to do next."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bleak.exc import BleakDBusError, BleakDeviceNotFoundError
from bleak_retry_connector import BleakAbortedError, BleakNotFoundError, BleakOutOfConnectionSlotsError

from devices.transports.ble.url import BleTarget
from devices.transports.serial import DeviceUnavailable

if TYPE_CHECKING:  # only for an annotation: the scanner module imports this one
    from devices.transports.ble.scan import _Adapter


class BleUnavailable(DeviceUnavailable):
    """A BLE device that cannot be opened now; an OSError, so a session retries with backoff."""


class BleDeviceNotFound(BleUnavailable):
    """The BLE device is not advertising nearby, or vanished while connecting."""


class _DeviceGone(Exception):
    """BlueZ no longer knows the device; not a BleakError, so retry-connector does not retry it."""


class BluetoothUnavailable(RuntimeError):
    """This machine has no usable Bluetooth (no D-Bus, no BlueZ, no adapter); str() is one line."""


def bluetooth_unavailable_reason(exc: BaseException) -> str:
    """A short, one-line reason why bleak could not reach Bluetooth."""
    if isinstance(exc, FileNotFoundError | ConnectionRefusedError):
        reason = "no system D-Bus: BlueZ cannot be reached"
    elif isinstance(exc, TimeoutError):
        reason = "the Bluetooth stack did not answer in time"
    elif isinstance(exc, BleakDBusError):
        reason = f"BlueZ said {exc.dbus_error}"
    else:
        reason = str(exc) or type(exc).__name__
    return " ".join(reason.split())


def connect_failure(url: str, target: BleTarget, adapter: _Adapter, exc: BaseException) -> BleUnavailable:
    address = target.address
    detail = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, BleakOutOfConnectionSlotsError):
        return BleUnavailable(
            url,
            f"the {adapter.label} has no free connection slot for BLE device {address}; disconnect another device or add an adapter",
            f"{adapter.label} için boş bağlantı yuvası yok (BLE cihazı {address}); başka bir cihazın bağlantısını kesin veya adaptör ekleyin",
        )
    if isinstance(exc, BleakNotFoundError | BleakDeviceNotFoundError | _DeviceGone):
        return BleDeviceNotFound(
            url,
            f"BLE device {address} vanished while connecting; is it on and in range?",
            f"BLE cihazı {address} bağlanırken kayboldu; açık ve menzil içinde mi?",
        )
    if isinstance(exc, BleakAbortedError):
        return BleUnavailable(
            url,
            f"the connection to BLE device {address} was aborted (interference or range; a USB extension cable for the adapter helps)",
            f"BLE cihazı {address} bağlantısı kesildi (parazit veya menzil; adaptör için USB uzatma kablosu yardımcı olur)",
        )
    if isinstance(exc, TimeoutError):
        return BleUnavailable(
            url,
            f"connecting to BLE device {address} timed out",
            f"BLE cihazı {address} bağlantısı zaman aşımına uğradı",
        )
    return BleUnavailable(
        url,
        f"cannot connect to BLE device {address}: {detail}",
        f"BLE cihazı {address} bağlanamadı: {detail}",
    )
