"""Boardcast Wire as a device family: its URLs (serial ports, a TCP gateway, BLE's Nordic UART Service),
their checks and texts, and the session that reads them (`devices.wire.session.DeviceSession`)."""

from __future__ import annotations

from dataclasses import dataclass

from devices.family import Role, Session, SessionContext, SessionSink, Text, role_slot
from devices.transports.base import Opener
from devices.transports.ble import NUS_SERVICE
from devices.transports.serial import PYSERIAL_SCHEMES
from devices.transports.tcp import parse_tcp_url
from devices.wire.session import DeviceSession, serial_opener
from devices.wire.urls import parse_wire_ble_url, parse_wire_serial_url

__all__ = ["FAMILY", "WireFamily"]

_BAD_TCP = Text("invalid TCP address", "geçersiz TCP adresi")
_BAD_BLE = Text("invalid BLE address", "geçersiz BLE adresi")
_BAD_SERIAL = Text("invalid device address", "geçersiz cihaz adresi")


@dataclass(frozen=True, slots=True)
class WireFamily:
    """Boardcast Wire devices: scoreboards, boards and clocks that say HELLO, over any byte stream."""

    name: str = "wire"
    protocol: str = "wire"
    # "" is a plain device path (/dev/ttyUSB0); the others are serial://, the hub's gateway, BLE, pyserial's
    schemes: tuple[str, ...] = ("serial", "", "tcp", "ble", *PYSERIAL_SCHEMES, "hwgrep")
    query_keys: tuple[str, ...] = ()
    sports: frozenset[str] | None = None  # a Wire device says its family and sport in its HELLO
    roles: frozenset[Role] = frozenset({Role.DEVICE, Role.CLOCK})
    page: str | None = None  # the hub opens its devices

    def wrong_sport(self, sport: str) -> Text | None:
        """None: a Wire device stands at any table."""
        return None

    def parse(self, url: str) -> object:
        """The URL read by the transport its scheme names."""
        if url.startswith("tcp://"):
            return parse_tcp_url(url)
        if url.startswith("ble://"):
            return parse_wire_ble_url(url)
        return parse_wire_serial_url(url)

    def bad_url(self, url: str) -> Text:
        """A TCP, BLE or serial address, by the URL's scheme."""
        if url.startswith("tcp://"):
            return _BAD_TCP
        return _BAD_BLE if url.startswith("ble://") else _BAD_SERIAL

    def slot(self, url: str, role: Role) -> str:
        """The table's own device, or its clock."""
        return role_slot(role)

    def advertises(self, service_uuids: frozenset[str], name: str) -> bool:
        """A device offering the Nordic UART Service, which Wire over BLE runs on."""
        return NUS_SERVICE in service_uuids

    def session(self, url: str, sink: SessionSink, device_id: str | None, context: SessionContext) -> Session:
        """A `DeviceSession` on the opener the URL's scheme names."""
        return DeviceSession(url, self._opener(url, device_id, context), sink, expected_device_id=device_id)

    @staticmethod
    def _opener(url: str, device_id: str | None, context: SessionContext) -> Opener:
        if url.startswith("tcp://"):
            assert device_id is not None  # the venue checks that a TCP device has its id
            return context.gateway(url, device_id)
        if url.startswith("ble://"):
            return context.ble().opener(url)
        return serial_opener(url)


FAMILY = WireFamily()
