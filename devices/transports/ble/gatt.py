"""GATT tables: the services Boardcast talks to over BLE, and how each finds its characteristics by property.

Characteristics are found by what they can do (notify / write), never by name: Nordic's SDK and Zephyr name
the Nordic UART Service's RX and TX from opposite sides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.service import BleakGATTServiceCollection

NUS_SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
NUS_RX = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"  # the central writes here (Zephyr nus.h naming)
NUS_TX = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"  # the peripheral notifies here


@dataclass(frozen=True, slots=True)
class NusCharacteristics:
    """The two characteristics of a Nordic UART Service, found by what they can do."""

    notify: BleakGATTCharacteristic  # peripheral -> hub
    write: BleakGATTCharacteristic  # hub -> peripheral

    @property
    def write_without_response(self) -> bool:
        """Whether writes can go without response (faster, no round trip per chunk)."""
        return "write-without-response" in self.write.properties


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


# What the connector subscribes to on a new connection (and writes to, if anything), and what it says when
# the device lacks it.
_Profile = Callable[
    [BleakGATTServiceCollection],
    tuple["BleakGATTCharacteristic | tuple[BleakGATTCharacteristic, ...]", "NusCharacteristics | None"],
]
_NOT_WIRE = (
    "is it a Boardcast Wire device?",
    "Nordic UART hizmeti eksik; Boardcast Wire cihazı mı?",
)


def missing_service(service: str) -> tuple[str, str]:
    return (
        f"is it the right kind of device for this URL's protocol (service {service})?",
        f"{service} hizmeti veya bildirim özelliği eksik; bu URL'deki protokole uygun cihaz mı?",
    )


def nus_profile(services: BleakGATTServiceCollection) -> tuple[BleakGATTCharacteristic, NusCharacteristics]:
    chars = find_nus_characteristics(services)
    return chars.notify, chars
