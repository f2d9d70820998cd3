"""Bluetooth LE devices as byte streams: Boardcast Wire over the Nordic UART Service, through bleak.

(`BleConnector.open_values` gives the same connection handling to devices whose notifications are single
values rather than a stream, such as a wristband's buttons; `open_value_services` does it for devices that
notify on several services and take commands as single writes, such as some e-boards. Their decoding lives
in the device family's own folder.)

This package is the transport's public face; each module owns one part:

- `connector`: `BleConnector`, the hub's one owner of BLE connections (a scanner and a connect lock per
  adapter, bleak-retry-connector's `establish_connection`, one `start_notify` per connection);
- `link`: `BleLink` and `BleValueLink`, one connection as a session's reader and writer;
- `gatt`: the service UUIDs and how their characteristics are found by property, never by name;
- `scan`: discovery, per adapter for the connector and once for ``boardcast devices``;
- `url`: ``ble://`` device URLs and the options each protocol takes;
- `errors`: why a device cannot be opened, in words a user can act on.

The session does the reconnect backoff, the silence watchdog and the resync, so this package never retries
beyond retry-connector's short retries.
"""

from devices.transports.ble.connector import MIN_CONNECT_TIMEOUT, BleConnector, BoardcastBleakClient
from devices.transports.ble.errors import (
    BleDeviceNotFound,
    BleUnavailable,
    BluetoothUnavailable,
    bluetooth_unavailable_reason,
)
from devices.transports.ble.gatt import (
    NUS_RX,
    NUS_SERVICE,
    NUS_TX,
    NusCharacteristics,
    find_notify_characteristic,
    find_nus_characteristics,
    find_write_characteristic,
)
from devices.transports.ble.link import BleLink, BleValueLink
from devices.transports.ble.scan import NearbyDevice, scan_nearby
from devices.transports.ble.url import BleTarget, parse_ble_url, parse_stream_ble_url

__all__ = [
    "MIN_CONNECT_TIMEOUT",
    "NUS_RX",
    "NUS_SERVICE",
    "NUS_TX",
    "BleConnector",
    "BleDeviceNotFound",
    "BleLink",
    "BleTarget",
    "BleUnavailable",
    "BleValueLink",
    "BluetoothUnavailable",
    "BoardcastBleakClient",
    "NearbyDevice",
    "NusCharacteristics",
    "bluetooth_unavailable_reason",
    "find_notify_characteristic",
    "find_nus_characteristics",
    "find_write_characteristic",
    "parse_ble_url",
    "parse_stream_ble_url",
    "scan_nearby",
]
