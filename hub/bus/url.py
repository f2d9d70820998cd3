"""Bus URLs (`--bus`, `BOARDCAST_BUS`): what a valid one looks like, and how one is printed (password hidden).

Apart from `hub.bus.streams` so that the command line checks and prints them without importing the Redis client.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit


class BusUrlError(ValueError):
    """A --bus URL that is not redis://HOST:PORT/N."""


def check_bus_url(url: str) -> str:
    """Refuse anything but redis://HOST[:PORT][/N]; the message says what is expected."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # "Invalid IPv6 URL" and the like
        raise BusUrlError(f"{redact(url)!r}: {exc} / adres okunamadı") from None
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise BusUrlError(
            f"{redact(url)!r}: expected redis://HOST:PORT/N / beklenen biçim redis://SUNUCU:PORT/N"
        )
    try:
        parts.port  # noqa: B018 (urlsplit checks the port only when asked)
    except ValueError:
        raise BusUrlError(f"{redact(url)!r}: the port must be 0-65535 / port 0-65535 olmalı") from None
    if parts.path not in ("", "/") and not parts.path[1:].isdigit():
        raise BusUrlError(f"{redact(url)!r}: the database must be a number / veritabanı numarası sayı olmalı")
    return url


def redact(url: str) -> str:
    """The URL with its password as `***`, for anything printed or logged."""
    try:
        parts = urlsplit(url)
    except ValueError:  # unreadable: hide whatever stands before an @
        return re.sub(r"//[^/@]*@", "//***@", url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@")
    return url
