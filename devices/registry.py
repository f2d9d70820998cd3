"""The one list of device families: the hub finds every family here and nowhere else.

Adding a family is a new folder under `devices/` that declares a `FAMILY` (devices/family.py) and one line
in `FAMILIES`. The first family also reads the URLs that name no `protocol=`.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from devices.chessnut.family import FAMILY as CHESSNUT
from devices.dgt.family import FAMILY as DGT
from devices.dscore.family import FAMILY as DSCORE
from devices.family import DeviceFamily, Role
from devices.pad.family import FAMILY as PAD
from devices.wire.family import FAMILY as WIRE

__all__ = [
    "FAMILIES",
    "UnknownFamily",
    "ble_protocol_of",
    "browser_families",
    "family_for",
    "family_for_url",
    "family_named",
    "url_protocol",
    "url_protocols",
]

FAMILIES: tuple[DeviceFamily, ...] = (
    WIRE,  # first: a URL without protocol= is Boardcast Wire
    DGT,
    DSCORE,
    CHESSNUT,
    PAD,
)


class UnknownFamily(ValueError):
    """A device URL whose `protocol=` no family claims; str() says so in English / Türkçe."""


def url_protocol(url: str) -> str | None:
    """The `protocol=` a device URL names (its last, as the parsers read it), or None."""
    try:
        values = parse_qs(urlsplit(url).query).get("protocol")
    except ValueError:  # not a URL at all (urlsplit refuses "serial://[x"): its family's parser says why
        return None
    return values[-1] if values else None


def family_for_url(url: str) -> DeviceFamily:
    """The family that reads `url`, by its `protocol=` (none: the first family); raise UnknownFamily if none."""
    protocol = url_protocol(url)
    if protocol is None:
        return FAMILIES[0]
    for family in FAMILIES:
        if family.protocol == protocol:
            return family
    known = ", ".join(f.protocol for f in FAMILIES)
    raise UnknownFamily(
        f"device URL {url!r}: no device family speaks protocol={protocol} (known: {known}) / "
        f"bilinmeyen cihaz protokolü"
    )


def family_for(url: str, role: Role) -> DeviceFamily:
    """The family whose parser checks `url` in `role`: the one that claims it if it plays that role, else the
    first family that does, whose parser then says why the URL is not one of its own."""
    try:
        family = family_for_url(url)
    except UnknownFamily:
        family = None
    if family is not None and role in family.roles:
        return family
    return next(f for f in FAMILIES if role in f.roles)


def family_named(name: str) -> DeviceFamily:
    """The family of that name; raise KeyError if there is none."""
    for family in FAMILIES:
        if family.name == name:
            return family
    raise KeyError(name)


def ble_protocol_of(service_uuids: frozenset[str], name: str) -> str | None:
    """The `protocol=` of the first family that knows a BLE advertisement as one of its devices, or None."""
    return next((f.protocol for f in FAMILIES if f.advertises(service_uuids, name)), None)


def url_protocols(scheme: str) -> dict[str, tuple[str, ...]]:
    """The `protocol=` values a `scheme://` device URL may name, each with the options its family's session reads
    besides the transport's own; the first is that of a URL naming none (the first family's)."""
    return {f.protocol: f.query_keys for f in FAMILIES if scheme in f.schemes}


def browser_families() -> tuple[DeviceFamily, ...]:
    """The families whose devices are browser pages the hub serves at every table (`Role.BROWSER`)."""
    return tuple(f for f in FAMILIES if Role.BROWSER in f.roles)
