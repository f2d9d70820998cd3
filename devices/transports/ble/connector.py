"""`BleConnector`, the hub's one owner of BLE connections: it opens links, one connect at a time per adapter.

It keeps one long-running scanner per adapter (so BlueZ keeps every device's latest `BLEDevice`), serialises
connects per adapter (BlueZ allows one connection initiation at a time), makes a new `BleakClient` per
connection through bleak-retry-connector's `establish_connection`, and calls `start_notify` exactly once per
connection. `connector.opener(url)` hands a `DeviceSession` an opener; the session does the reconnect
backoff, the silence watchdog and the resync, so this module never retries beyond retry-connector's short
retries.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import warnings
from collections.abc import Coroutine, Sequence
from typing import Any

from bleak import BleakClient, BleakScanner
from bleak.args.bluez import BlueZScannerArgs
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import BaseBleakScanner
from bleak.backends.service import BleakGATTServiceCollection
from bleak.exc import BleakDeviceNotFoundError, BleakError
from bleak_retry_connector import BleakClientWithServiceCache, establish_connection

from devices.transports.base import Opener
from devices.transports.ble.errors import (
    BleDeviceNotFound,
    BleUnavailable,
    _DeviceGone,
    bluetooth_unavailable_reason,
    connect_failure,
)
from devices.transports.ble.gatt import (
    _NOT_WIRE,
    NusCharacteristics,
    _Profile,
    find_notify_characteristic,
    find_write_characteristic,
    missing_service,
    nus_profile,
)
from devices.transports.ble.link import _DISCONNECT_TIMEOUT, BleLink, BleValueLink
from devices.transports.ble.scan import _SCANNER_START_TIMEOUT, _Adapter
from devices.transports.ble.url import BleTarget, parse_ble_url, parse_stream_ble_url

MIN_CONNECT_TIMEOUT = 10.0  # BlueZ resolves services during connect; less than this fails real boards
_MTU_TIMEOUT = 5.0
_LOGGER = logging.getLogger(__name__)


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


class BleConnector:
    """The hub's one owner of BLE connections; use as ``async with BleConnector() as connector``.

    find_timeout: how long an opener waits for a fresh advertisement before BleDeviceNotFound.
    connect_timeout (>= 10 s): BleakClient's timeout and the start_notify bound; each connect inside
    establish_connection uses retry-connector's own 20 s. attempt_timeout bounds one whole opener call.
    client_backend / scanner_backend: bleak backend classes (tests pass boardcast_sim.ble_fake's).
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
        parse_stream_ble_url(url)

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
        link = await self._open(url, BleLink, nus_profile, _NOT_WIRE)
        assert isinstance(link, BleLink)
        return link

    async def open_values(self, url: str, service: str, *, prefer: str | None = None) -> BleValueLink:
        """Connect and subscribe to the notify characteristic of `service`; each notification is one value.

        The characteristic is found by its notify property inside the service (`prefer` names the UUID to
        take if there are several). Raise BleUnavailable (an OSError) if it cannot.
        """

        def profile(services: BleakGATTServiceCollection) -> tuple[BleakGATTCharacteristic, None]:
            return find_notify_characteristic(services, service, prefer=prefer), None

        link = await self._open(url, BleValueLink, profile, missing_service(service))
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

        missing = missing_service(", ".join(services))
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
                    raise connect_failure(url, target, adapter, exc) from exc
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
            raise connect_failure(url, target, adapter, exc) from exc

    def _try_spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
        """Run coroutine as a task of the connector's group; None (and not run) once the connector stopped."""
        if self._group is None:
            coroutine.close()
            return None
        return self._group.create_task(coroutine)

    def _forget(self, link: BleLink) -> None:
        self._links.discard(link)


async def _negotiated_mtu(client: BleakClient) -> int | None:
    """The ATT MTU the link agreed on, or None when the backend cannot tell.

    No bleak backend lets a central ask for an MTU: BlueZ, CoreBluetooth and WinRT negotiate the largest both
    sides allow while connecting (an e-board vendor's "set MTU 500" is what they do anyway). BlueZ only
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
