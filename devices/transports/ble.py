"""Bluetooth LE devices as byte streams: Boardcast Wire over the Nordic UART Service, through bleak.

(`BleConnector.open_values` gives the same connection handling to devices whose notifications are single
values rather than a stream, such as D-SCORE wristbands; `open_value_services` does it for devices that
notify on several services and take commands as single writes, such as Chessnut boards. Their decoding lives
in the device's own folder.)

`BleConnector` is the one owner of BLE connections in the hub. It keeps one long-running scanner per
adapter (so BlueZ keeps every device's latest `BLEDevice`), serialises connects per adapter (BlueZ allows
one connection initiation at a time), makes a new `BleakClient` per connection through
bleak-retry-connector's `establish_connection`, and calls `start_notify` exactly once per connection.
`connector.opener(url)` hands a `DeviceSession` an opener; the session does the reconnect backoff, the
silence watchdog and the resync, so this module never retries beyond retry-connector's short retries.

`BleLink` turns one connection into the `ByteReader`/`ByteWriter` pair every transport gives a session:
notifications of any size are concatenated in order (the wire stream is COBS-framed, so no chunk header
is needed) and writes are cut to the write characteristic's `max_write_without_response_size`.
The NUS characteristics are found by property (notify / write), never by name: Nordic's SDK and Zephyr
name RX and TX from opposite sides.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
import warnings
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from bleak import BleakClient, BleakScanner
from bleak.args.bluez import BlueZScannerArgs
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData, BaseBleakScanner
from bleak.backends.service import BleakGATTServiceCollection
from bleak.exc import BleakDBusError, BleakDeviceNotFoundError, BleakError
from bleak_retry_connector import (
    BleakAbortedError,
    BleakClientWithServiceCache,
    BleakNotFoundError,
    BleakOutOfConnectionSlotsError,
    establish_connection,
)

from devices.transports.base import Opener
from devices.transports.serial import DeviceUnavailable, did_you_mean, query_options

NUS_SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
NUS_RX = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"  # the central writes here (Zephyr nus.h naming)
NUS_TX = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"  # the peripheral notifies here
DSCORE_SERVICE = "96f9374a-2417-44e3-ae06-aa362556914e"
CHESSNUT_SERVICES = ("1b7e8261-2877-41c3-b46e-cf057c562023", "1b7e8271-2877-41c3-b46e-cf057c562023")
CHESSNUT_NAME_PREFIX = "Chessnut"

MIN_CONNECT_TIMEOUT = 10.0  # BlueZ resolves services during connect; less than this fails real boards
_ATT_MAX_VALUE = 512
_READ_ALL = 65536
_SCANNER_START_TIMEOUT = 10.0
_DISCONNECT_TIMEOUT = 10.0
_MTU_TIMEOUT = 5.0
_MAC = re.compile(r"^[0-9A-F]{2}(:[0-9A-F]{2}){5}$")
# What `protocol=` a ble:// URL may name, and the options that protocol's session reads besides `protocol`
# and `adapter` (devices/dscore/session.py reads `side`); the hub picks the session by it (hub/app.py).
BLE_PROTOCOLS: dict[str, tuple[str, ...]] = {"wire": (), "dscore": ("side",), "chessnut": ()}
_LOGGER = logging.getLogger(__name__)


class BleUnavailable(DeviceUnavailable):
    """A BLE device that cannot be opened now; an OSError, so a session retries with backoff."""


class BleDeviceNotFound(BleUnavailable):
    """The BLE device is not advertising nearby, or vanished while connecting."""


class _DeviceGone(Exception):
    """BlueZ no longer knows the device; not a BleakError, so retry-connector does not retry it."""


class BoardcastBleakClient(BleakClientWithServiceCache):
    """The client the connector uses: fails fast when the device has vanished.

    bleak-retry-connector 4.7 counts BleakDeviceNotFoundError as transient (maybe out of slots) and backs
    off 4 s up to 9 times: over 30 s holding the adapter's connect lock. The session retries with its own
    backoff instead, and the connector waits for a fresh advertisement first.
    """

    async def connect(self, **kwargs: Any) -> None:
        """Connect; raise _DeviceGone instead of BleakDeviceNotFoundError."""
        try:
            await super().connect(**kwargs)
        except BleakDeviceNotFoundError as exc:
            raise _DeviceGone(str(exc)) from exc


class BluetoothUnavailable(RuntimeError):
    """This machine has no usable Bluetooth (no D-Bus, no BlueZ, no adapter); str() is one line."""


@dataclass(frozen=True, slots=True)
class BleTarget:
    """Which BLE device to open and how, read from its URL."""

    address: str  # upper-case MAC, AA:BB:CC:DD:EE:FF
    protocol: str | None = None
    adapter: str | None = None  # e.g. "hci1"; None is the system default adapter


@dataclass(frozen=True, slots=True)
class NusCharacteristics:
    """The two characteristics of a Nordic UART Service, found by what they can do."""

    notify: BleakGATTCharacteristic  # peripheral -> hub
    write: BleakGATTCharacteristic  # hub -> peripheral

    @property
    def write_without_response(self) -> bool:
        """Whether writes can go without response (faster, no round trip per chunk)."""
        return "write-without-response" in self.write.properties


@dataclass(frozen=True, slots=True)
class NearbyDevice:
    """A device seen advertising a service Boardcast can talk to."""

    address: str
    name: str | None
    rssi: int
    protocol: str  # "wire" (NUS), "dscore" or "chessnut"
    service_uuids: tuple[str, ...]

    @property
    def url(self) -> str:
        """The venue-file URL for this device."""
        return f"ble://{self.address}?protocol={self.protocol}"


def parse_ble_url(url: str) -> BleTarget:
    """Read ``ble://AA:BB:CC:DD:EE:FF?protocol=wire&adapter=hci0``; raise ValueError naming the URL.

    Every option is checked: `protocol` (a key of BLE_PROTOCOLS), `adapter` (hciN) and the options that
    protocol's session reads; anything else is refused, as is a `#` part.
    """
    parts = urlsplit(url)
    if parts.scheme != "ble":
        raise ValueError(f"device URL {url!r} is not a ble:// URL; write it as ble://AA:BB:CC:DD:EE:FF")
    address = parts.netloc.upper()
    if not _MAC.match(address) or parts.path not in ("", "/"):
        raise ValueError(
            f"device URL {url!r} does not name a Bluetooth address; write it as ble://AA:BB:CC:DD:EE:FF"
        )
    if parts.fragment or url.endswith("#"):
        raise ValueError(f"device URL {url!r} has a '#' part, which no device URL takes")
    protocol = dict(parse_qsl(parts.query, keep_blank_values=True)).get("protocol")
    if protocol is not None and protocol not in BLE_PROTOCOLS:
        raise ValueError(
            f"device URL {url!r}: unknown protocol {protocol!r}{did_you_mean(protocol, BLE_PROTOCOLS)}; "
            "a BLE device speaks "
            f"protocol={' or protocol='.join(BLE_PROTOCOLS)}"
        )
    known = ("protocol", "adapter", *BLE_PROTOCOLS[protocol or "wire"])
    options = query_options(url, parts.query, known, BLE_PROTOCOLS)
    adapter = options.get("adapter")
    if adapter is not None and not re.fullmatch(r"hci[0-9]{1,3}", adapter):
        raise ValueError(
            f"device URL {url!r}: adapter must name a Bluetooth adapter such as hci0, got {adapter!r}"
        )
    return BleTarget(address=address, protocol=protocol, adapter=adapter)


def parse_wire_ble_url(url: str) -> BleTarget:
    """A ``ble://`` URL for a Boardcast Wire session (`protocol=wire` or none); raise ValueError if not."""
    target = parse_ble_url(url)
    if target.protocol == "dscore":
        raise ValueError(
            f"device URL {url!r} is a D-SCORE wristband: it sends button codes, not a byte stream; "
            "run it with devices.dscore.session.DScoreSession (a venue lists it under wristbands)"
        )
    if target.protocol == "chessnut":
        raise ValueError(
            f"device URL {url!r} is a Chessnut board: it sends board reports, not a byte stream; "
            "run it with devices.chessnut.session.ChessnutSession"
        )
    if target.protocol not in (None, "wire"):
        raise ValueError(
            f"device URL {url!r}: BLE protocol {target.protocol!r} is not supported yet; "
            "only protocol=wire (Boardcast Wire over the Nordic UART Service)"
        )
    return target


def find_nus_characteristics(services: BleakGATTServiceCollection) -> NusCharacteristics:
    """The NUS notify and write characteristics, chosen by property; raise LookupError if missing."""
    service = services.get_service(NUS_SERVICE)
    if service is None:
        raise LookupError("the device has no Nordic UART Service")
    chars = service.characteristics

    def pick(wanted: set[str], avoid: set[str]) -> BleakGATTCharacteristic | None:
        matching = [c for c in chars if wanted & set(c.properties)]
        clean = [c for c in matching if not avoid & set(c.properties)]
        found = clean or matching
        return found[0] if found else None

    notify = pick({"notify", "indicate"}, {"write", "write-without-response"})
    write = pick({"write-without-response", "write"}, {"notify", "indicate"})
    if notify is None or write is None or notify is write:
        raise LookupError("the Nordic UART Service lacks a notify or a write characteristic")
    return NusCharacteristics(notify=notify, write=write)


_Profile = Callable[
    [BleakGATTServiceCollection],
    tuple["BleakGATTCharacteristic | tuple[BleakGATTCharacteristic, ...]", "NusCharacteristics | None"],
]
_NOT_WIRE = (
    "is it a Boardcast Wire device?",
    "Nordic UART hizmeti eksik; Boardcast Wire cihazı mı?",
)


def _missing_service(service: str) -> tuple[str, str]:
    return (
        f"is it the right kind of device for this URL's protocol (service {service})?",
        f"{service} hizmeti veya bildirim özelliği eksik; bu URL'deki protokole uygun cihaz mı?",
    )


def _nus_profile(services: BleakGATTServiceCollection) -> tuple[BleakGATTCharacteristic, NusCharacteristics]:
    chars = find_nus_characteristics(services)
    return chars.notify, chars


def find_notify_characteristic(
    services: BleakGATTServiceCollection, service_uuid: str, *, prefer: str | None = None
) -> BleakGATTCharacteristic:
    """The notify (or indicate) characteristic of a service, `prefer` first; raise LookupError if none."""
    service = services.get_service(service_uuid)
    if service is None:
        raise LookupError(f"the device has no service {service_uuid}")
    notifying = [c for c in service.characteristics if {"notify", "indicate"} & set(c.properties)]
    if not notifying:
        raise LookupError(f"service {service_uuid} has no notify characteristic")
    preferred = [c for c in notifying if prefer is not None and c.uuid.lower() == prefer.lower()]
    return (preferred or notifying)[0]


def find_write_characteristic(
    services: BleakGATTServiceCollection, service_uuid: str
) -> BleakGATTCharacteristic:
    """The writable characteristic of a service, one that does not also notify first; raise LookupError if none."""
    service = services.get_service(service_uuid)
    if service is None:
        raise LookupError(f"the device has no service {service_uuid}")
    writable = [c for c in service.characteristics if {"write", "write-without-response"} & set(c.properties)]
    if not writable:
        raise LookupError(f"service {service_uuid} has no write characteristic")
    clean = [c for c in writable if not {"notify", "indicate"} & set(c.properties)]
    return (clean or writable)[0]


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


class BleConnector:
    """The hub's one owner of BLE connections; use as ``async with BleConnector() as connector``.

    find_timeout: how long an opener waits for a fresh advertisement before BleDeviceNotFound.
    connect_timeout (>= 10 s): BleakClient's timeout and the start_notify bound; each connect inside
    establish_connection uses retry-connector's own 20 s. attempt_timeout bounds one whole opener call.
    client_backend / scanner_backend: bleak backend classes (tests pass devices.testing.ble_fake's).
    """

    def __init__(
        self,
        *,
        client_backend: type[BaseBleakClient] | None = None,
        scanner_backend: type[BaseBleakScanner] | None = None,
        client_class: type[BleakClient] = BoardcastBleakClient,
        find_timeout: float = 5.0,
        stale_after: float = 195.0,
        connect_timeout: float = 20.0,
        attempt_timeout: float = 60.0,
        max_attempts: int = 3,
    ) -> None:
        if connect_timeout < MIN_CONNECT_TIMEOUT or attempt_timeout < connect_timeout:
            raise ValueError(
                f"connect_timeout must be at least {MIN_CONNECT_TIMEOUT:g} s and attempt_timeout at least "
                f"connect_timeout; got {connect_timeout:g} s and {attempt_timeout:g} s"
            )
        self._client_backend = client_backend
        self._scanner_backend = scanner_backend
        self._client_class = client_class
        self._find_timeout = find_timeout
        self._stale_after = stale_after  # BlueZ forgets devices after 180 s; habluetooth uses 195 s
        self._connect_timeout = connect_timeout
        self._attempt_timeout = attempt_timeout
        self._max_attempts = max_attempts
        self._adapters: dict[str | None, _Adapter] = {}
        self._links: set[BleLink] = set()
        self._group: asyncio.TaskGroup | None = None
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> BleConnector:
        self._group = await self._stack.enter_async_context(asyncio.TaskGroup())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for link in list(self._links):
            link.close()
        try:
            # Not exc_info: the group only waits for the disconnects; an exception from the body passes as is.
            await self._stack.__aexit__(None, None, None)
        finally:
            self._group = None
            for adapter in self._adapters.values():
                if adapter.scanner is not None:
                    with contextlib.suppress(Exception):
                        async with asyncio.timeout(_SCANNER_START_TIMEOUT):
                            await adapter.scanner.stop()
                    adapter.scanner = None

    def opener(self, url: str) -> Opener:
        """An opener for a ``ble://`` device URL; the URL is checked now, so a typo fails at once."""
        parse_wire_ble_url(url)

        async def open_() -> tuple[BleLink, BleLink]:
            link = await self.open(url)
            return link, link

        return open_

    def seen(self, address: str, adapter: str | None = None) -> BLEDevice | None:
        """The latest BLEDevice the scanner has for an address, or None."""
        state = self._adapters.get(adapter)
        entry = state.seen.get(address.upper()) if state else None
        return entry[0] if entry else None

    async def open(self, url: str) -> BleLink:
        """Connect to a NUS device and subscribe once; raise BleUnavailable (an OSError) if it cannot."""
        link = await self._open(url, BleLink, _nus_profile, _NOT_WIRE)
        assert isinstance(link, BleLink)
        return link

    async def open_values(self, url: str, service: str, *, prefer: str | None = None) -> BleValueLink:
        """Connect and subscribe to the notify characteristic of `service`; each notification is one value.

        The characteristic is found by its notify property inside the service (`prefer` names the UUID to
        take if there are several). Raise BleUnavailable (an OSError) if it cannot.
        """

        def profile(services: BleakGATTServiceCollection) -> tuple[BleakGATTCharacteristic, None]:
            return find_notify_characteristic(services, service, prefer=prefer), None

        link = await self._open(url, BleValueLink, profile, _missing_service(service))
        assert isinstance(link, BleValueLink)
        return link

    async def open_value_services(
        self, url: str, services: Sequence[str], *, write_service: str | None = None
    ) -> BleValueLink:
        """Connect, learn the MTU and subscribe to the notify characteristic of each service, in order.

        Each notification is one value. With `write_service`, `write_value` sends commands to that service's
        write characteristic (without response when it allows). `link.mtu` is the negotiated ATT MTU, or
        None when the backend cannot tell. Raise BleUnavailable (an OSError) if it cannot connect.
        """

        def profile(
            collection: BleakGATTServiceCollection,
        ) -> tuple[tuple[BleakGATTCharacteristic, ...], NusCharacteristics | None]:
            notify = tuple(find_notify_characteristic(collection, service) for service in services)
            if write_service is None:
                return notify, None
            # NusCharacteristics is just the notify/write pair; only its write half is used for writes.
            return notify, NusCharacteristics(notify[0], find_write_characteristic(collection, write_service))

        missing = _missing_service(", ".join(services))
        link = await self._open(url, BleValueLink, profile, missing, learn_mtu=True)
        assert isinstance(link, BleValueLink)
        return link

    async def _open(
        self,
        url: str,
        link_class: type[BleLink],
        profile: _Profile,
        missing: tuple[str, str],
        *,
        learn_mtu: bool = False,
    ) -> BleLink:
        if self._group is None:
            raise RuntimeError("BleConnector is not running; use it as `async with BleConnector() as c`")
        target = parse_ble_url(url)
        adapter = await self._adapter(url, target.adapter)
        await self._wait_seen(url, adapter, target.address)
        async with adapter.connect_lock:
            device = adapter.seen[target.address][0]  # the freshest BLEDevice, as BlueZ wants
            link = link_class(target.address, self)
            client = await self._connect(url, target, adapter, device, link)
            try:
                notify, chars = profile(client.services)
                if learn_mtu:
                    link.mtu = await _negotiated_mtu(client)
                async with asyncio.timeout(self._connect_timeout):
                    for characteristic in notify if isinstance(notify, tuple) else (notify,):
                        await client.start_notify(characteristic, link._on_notify)
            except BaseException as exc:
                if self._try_spawn(_quiet_disconnect(client)) is None:
                    await _quiet_disconnect(client)
                if isinstance(exc, LookupError):
                    english, turkish = missing
                    raise BleUnavailable(
                        url,
                        f"BLE device {target.address}: {exc}; {english}",
                        f"BLE cihazı {target.address}: {turkish}",
                    ) from exc
                if isinstance(exc, BleakError | TimeoutError | EOFError):
                    raise _connect_failure(url, target, adapter, exc) from exc
                raise
            link._attach(client, chars)
            self._links.add(link)
            return link

    async def _adapter(self, url: str, name: str | None) -> _Adapter:
        adapter = self._adapters.setdefault(name, _Adapter(name))
        async with adapter.start_lock:
            if adapter.scanner is None:
                bluez: BlueZScannerArgs = {"adapter": name} if name else {}
                try:
                    scanner = BleakScanner(
                        adapter.on_advertisement, backend=self._scanner_backend, bluez=bluez
                    )
                    async with asyncio.timeout(_SCANNER_START_TIMEOUT):
                        await scanner.start()
                except (OSError, BleakError) as exc:  # TimeoutError is an OSError
                    reason = bluetooth_unavailable_reason(exc)
                    raise BleUnavailable(
                        url,
                        f"Bluetooth is not available on this machine ({reason})",
                        f"Bu makinede Bluetooth yok ({reason})",
                    ) from exc
                adapter.scanner = scanner
        return adapter

    async def _wait_seen(self, url: str, adapter: _Adapter, address: str) -> None:
        def fresh() -> bool:
            entry = adapter.seen.get(address)
            return entry is not None and time.monotonic() - entry[2] <= self._stale_after

        try:
            async with asyncio.timeout(self._find_timeout):
                while not fresh():
                    await adapter.next_advertisement()
        except TimeoutError:
            raise BleDeviceNotFound(
                url,
                f"BLE device {address} not found nearby on the {adapter.label}; is it on and in range?",
                f"BLE cihazı {address} yakında bulunamadı; açık ve menzil içinde mi?",
            ) from None

    async def _connect(
        self, url: str, target: BleTarget, adapter: _Adapter, device: BLEDevice, link: BleLink
    ) -> BleakClient:
        extra: dict[str, Any] = {"bluez": {"adapter": target.adapter}} if target.adapter else {}
        try:
            async with asyncio.timeout(self._attempt_timeout):
                return await establish_connection(
                    self._client_class,
                    device,
                    url,
                    disconnected_callback=link._on_disconnected,
                    max_attempts=self._max_attempts,
                    backend=self._client_backend,
                    timeout=self._connect_timeout,
                    **extra,
                )
        except (BleakError, TimeoutError, EOFError, BrokenPipeError, _DeviceGone) as exc:
            raise _connect_failure(url, target, adapter, exc) from exc

    def _try_spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
        """Run coroutine as a task of the connector's group; None (and not run) once the connector stopped."""
        if self._group is None:
            coroutine.close()
            return None
        return self._group.create_task(coroutine)

    def _forget(self, link: BleLink) -> None:
        self._links.discard(link)


async def scan_nearby(
    timeout: float,  # noqa: ASYNC109 - how long to listen, as in BleakScanner.discover; not a deadline
    *,
    adapter: str | None = None,
    scanner_backend: type[BaseBleakScanner] | None = None,
) -> list[NearbyDevice]:
    """Devices advertising NUS, D-SCORE or Chessnut, strongest first; raise BluetoothUnavailable if none."""
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
        if (protocol := _protocol_of(device, advertisement)) is not None
    ]
    return sorted(nearby, key=lambda d: (-d.rssi, d.address))


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


def _protocol_of(device: BLEDevice, advertisement: AdvertisementData) -> str | None:
    uuids = {u.lower() for u in advertisement.service_uuids}
    name = advertisement.local_name or device.name or ""
    if NUS_SERVICE in uuids:
        return "wire"
    if DSCORE_SERVICE in uuids:
        return "dscore"
    if uuids & set(CHESSNUT_SERVICES) or name.startswith(CHESSNUT_NAME_PREFIX):
        return "chessnut"
    return None


def _connect_failure(url: str, target: BleTarget, adapter: _Adapter, exc: BaseException) -> BleUnavailable:
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


async def _negotiated_mtu(client: BleakClient) -> int | None:
    """The ATT MTU the link agreed on, or None when the backend cannot tell.

    No bleak backend lets a central ask for an MTU: BlueZ, CoreBluetooth and WinRT negotiate the largest both
    sides allow while connecting (the Chessnut vendor's "set MTU 500" is what they do anyway). BlueZ only
    tells the result through AcquireWrite/AcquireNotify, which bleak wraps as the backend's `_acquire_mtu`
    (Home Assistant reads it the same way); without it bleak says 23 whatever was agreed.
    """
    acquire = getattr(getattr(client, "_backend", None), "_acquire_mtu", None)
    if acquire is not None:
        try:
            async with asyncio.timeout(_MTU_TIMEOUT):
                await acquire()
        except Exception as exc:  # unknown is better than a wrong 23 that makes the session cry wolf
            _LOGGER.debug("%s: the MTU could not be read: %r", client.address, exc)
            return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # BlueZ warns when _acquire_mtu has not run; it has
        try:
            return int(client.mtu_size)
        except Exception:  # a backend that cannot tell at all
            return None


async def _quiet_disconnect(client: BleakClient) -> None:
    with contextlib.suppress(Exception):
        async with asyncio.timeout(_DISCONNECT_TIMEOUT):
            await client.disconnect()
