"""Serial ports as asyncio streams, through pyserial-asyncio-fast; thin on purpose.

Accepts venue URLs such as ``serial:///dev/ttyUSB0?baud=115200`` (and a family's ``protocol=``), a plain device path
(``/dev/rfcomm0``) and the pyserial URL handlers a hall can use (``socket://host:port``,
``rfc2217://host:port``, ``loop://``, ``alt://``, ``spy://``, ``hwgrep://``). `parse_serial_url` checks every
part of a URL, each option against what its handler reads, so a typo is refused when the venue file is read
rather than when the port is first opened.
"""

from __future__ import annotations

import asyncio
import difflib
import errno
import os
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from urllib.parse import SplitResult, parse_qsl, urlsplit

import serial
import serial_asyncio_fast

from devices.transports.base import PushReader, open_pushing

DEFAULT_BAUDRATE = 115200
BAUDRATES = serial.SerialBase.BAUDRATES  # pyserial's standard rates: a typo such as 11520 is refused


class DeviceUnavailable(OSError):
    """A device port that cannot be opened; str() says why in English / Türkçe, naming the URL."""

    def __init__(self, url: str, english: str, turkish: str) -> None:
        super().__init__(f"{english} / {turkish}")
        self.url = url
        self.english = english
        self.turkish = turkish


@dataclass(frozen=True, slots=True)
class SerialTarget:
    """Where and how to open a serial device, read from its URL."""

    port: str  # a device path or a pyserial URL
    baudrate: int = DEFAULT_BAUDRATE
    protocol: str | None = None


def parse_serial_url(url: str) -> SerialTarget:
    """Read a device URL; raise ValueError naming the URL for anything its port's handler would not take.

    `serial://` takes `baud` (one of pyserial's standard rates), `protocol` (a family's, `known_protocols`) and
    the options that protocol reads; a pyserial URL takes only its handler's options (PYSERIAL_SCHEMES).
    """
    if any(c.isspace() or not c.isprintable() for c in url):
        raise ValueError(f"device URL {url!r} contains a space or a control character")
    if "://" not in url:
        if url.startswith("/") and "?" in url:
            path, _, query = url.partition("?")
            raise ValueError(
                f"device URL {url!r}: a device path takes no options; write it as serial://{path}?{query}"
            )
        if not url.startswith("/") or "#" in url:
            raise ValueError(
                f"device URL {url!r} is neither a device path such as /dev/ttyUSB0 nor a URL such as "
                "serial:///dev/ttyUSB0?baud=115200"
            )
        return SerialTarget(port=url)
    parts = urlsplit(url)
    if parts.fragment or url.endswith("#"):
        raise ValueError(f"device URL {url!r} has a '#' part, which no device URL takes")
    if parts.scheme == "hwgrep":
        _check_hwgrep(url)
        return SerialTarget(port=url)
    if parts.scheme in PYSERIAL_SCHEMES:
        _check_pyserial_url(url, parts)
        return SerialTarget(port=url)
    if parts.scheme != "serial":
        known = ("serial", *PYSERIAL_SCHEMES, "hwgrep", "tcp", "ble")
        raise ValueError(
            f"device URL {url!r}: unknown scheme {parts.scheme + '://'!r}{did_you_mean(parts.scheme, known)}; "
            f"known: {', '.join(k + '://' for k in known)} or a device path such as /dev/ttyUSB0"
        )
    if parts.netloc:
        raise ValueError(
            f"device URL {url!r} names a host ({parts.netloc!r}); write the port with three slashes, "
            "serial:///dev/ttyUSB0"
        )
    if not parts.path.startswith("/"):
        raise ValueError(f"device URL {url!r} names no port; write it as serial:///dev/ttyUSB0")
    protocols = known_protocols("serial")
    protocol = dict(parse_qsl(parts.query, keep_blank_values=True)).get("protocol")
    if protocol is not None and protocol not in protocols:
        raise ValueError(
            f"device URL {url!r}: unknown protocol {protocol!r}{did_you_mean(protocol, protocols)}; "
            f"a serial device speaks protocol={' or protocol='.join(protocols)}"
        )
    known = ("baud", "protocol", *protocols[protocol or next(iter(protocols))])
    options = query_options(url, parts.query, known, protocols)
    baud_text = options.get("baud", str(DEFAULT_BAUDRATE))
    if not (baud_text.isascii() and baud_text.isdigit()) or int(baud_text) <= 0:
        raise ValueError(f"device URL {url!r}: baud must be a positive integer, got {baud_text!r}")
    if int(baud_text) not in BAUDRATES:
        raise ValueError(
            f"device URL {url!r}: baud {int(baud_text)} is not a standard rate; use one such as 9600, "
            f"19200, 57600 or 115200 (pyserial's list: {BAUDRATES[0]} to {BAUDRATES[-1]})"
        )
    return SerialTarget(port=parts.path, baudrate=int(baud_text), protocol=protocol)


def known_protocols(scheme: str) -> dict[str, tuple[str, ...]]:
    """The `protocol=` values a `scheme://` URL may name, with the options each one's session reads; the first
    is that of a URL naming none. The device families say them (`devices.registry.url_protocols`)."""
    from devices.registry import url_protocols  # the families import this module: their list is read late

    return url_protocols(scheme)


def query_options(
    url: str, query: str, known: Collection[str], protocols: Mapping[str, tuple[str, ...]] | None = None
) -> dict[str, str]:
    """A URL's query as {name: value}; raise ValueError naming the URL for an unknown or repeated name.

    `protocols` (protocol: the options it reads) names the protocol an option belongs to, when it is not here.
    """
    owners = {name: protocol for protocol, names in (protocols or {}).items() for name in names}
    options: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name not in known and name in owners:
            raise ValueError(f"device URL {url!r}: {name} is an option of protocol={owners[name]} only")
        if name not in known:
            raise ValueError(
                f"device URL {url!r}: unknown option {name!r}{did_you_mean(name, known)}; "
                f"known here: {', '.join(known) or 'none'}"
            )
        if name in options:
            raise ValueError(f"device URL {url!r}: {name} is given twice")
        options[name] = value
    return options


def did_you_mean(word: str, known: Collection[str]) -> str:
    """ " (did you mean X?)" for the known name nearest a misspelt one, or "" when none is near."""
    close = difflib.get_close_matches(word.lower(), list(known), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def _level(value: str) -> str | None:
    return None if value in _LOG_LEVELS else f"must be one of {', '.join(_LOG_LEVELS)}"


def _flag(value: str) -> str | None:
    # pyserial turns these on whatever their value; a value that reads as "off" would surprise
    return None if value in ("", "1", "true", "yes") else "is a switch: write it alone to turn it on"


def _positive_number(value: str) -> str | None:
    try:
        ok = 0 < float(value) < float("inf")
    except ValueError:
        ok = False
    return None if ok else "must be a positive number of seconds"


def _serial_class(value: str) -> str | None:
    classes = sorted(
        n for n, c in vars(serial).items() if isinstance(c, type) and issubclass(c, serial.Serial)
    )
    return None if value in classes else f"must be one of {', '.join(classes)}"


def _text(value: str) -> str | None:
    return None if value else "needs a value"


_LOG_LEVELS = ("debug", "info", "warning", "error")  # pyserial's LOGGER_LEVELS: another name is a KeyError

# pyserial's URL handlers (serial/urlhandler/protocol_*.py): what each names (a host:port, a device path or
# nothing) and the options it reads. A handler refuses any other option only when the port is opened.
PYSERIAL_SCHEMES: dict[str, tuple[str, dict[str, Callable[[str], str | None]]]] = {
    "socket": ("host", {"logging": _level}),
    "rfc2217": (
        "host",
        {"logging": _level, "ign_set_control": _flag, "poll_modem": _flag, "timeout": _positive_number},
    ),
    "loop": ("", {"logging": _level}),
    "alt": ("path", {"class": _serial_class}),
    "spy": ("path", {"file": _text, "color": _flag, "raw": _flag, "all": _flag}),
}


def _check_pyserial_url(url: str, parts: SplitResult) -> None:
    names, checks = PYSERIAL_SCHEMES[parts.scheme]
    example = {"host": f"{parts.scheme}://HOST:PORT", "path": f"{parts.scheme}:///dev/ttyUSB0", "": "loop://"}
    if names == "host":
        try:
            port = parts.port
        except ValueError:
            port = None
        if not parts.hostname or port is None or not 0 < port < 65536 or parts.path not in ("", "/"):
            raise ValueError(f"device URL {url!r} must name a host and a port 1-65535, as {example[names]}")
    elif names == "path" and (parts.netloc or not parts.path.startswith("/")):
        raise ValueError(f"device URL {url!r} must name a device path, as {example[names]}")
    elif names == "" and (parts.netloc or parts.path not in ("", "/")):
        raise ValueError(f"device URL {url!r} names nothing after the scheme: write it as {example[names]}")
    for name, value in query_options(url, parts.query, checks).items():
        problem = checks[name](value)
        if problem:
            raise ValueError(f"device URL {url!r}: {name} {problem}, got {value!r}")


def _check_hwgrep(url: str) -> None:
    """pyserial's ``hwgrep://REGEXP[&n=N][&skip_busy]``: options follow '&', not '?'."""
    regexp, *options = url[len("hwgrep://") :].split("&")
    try:
        re.compile(regexp)
    except re.error as exc:
        raise ValueError(f"device URL {url!r}: {regexp!r} is not a regular expression ({exc})") from None
    if not regexp:
        raise ValueError(f"device URL {url!r} names no pattern; write it as hwgrep://USB-ID-OR-NAME")
    for option in options:
        name, _, value = option.partition("=")
        if name == "n" and value.isascii() and value.isdigit() and int(value) >= 2:
            continue  # pyserial counts from 1 and refuses n=1 (the first port is the one without n)
        if option != "skip_busy":
            raise ValueError(
                f"device URL {url!r}: unknown or bad option {option!r}; hwgrep takes n=2, n=3, ... and skip_busy"
            )


async def open_serial(url: str) -> tuple[PushReader, asyncio.StreamWriter]:
    """Open a serial device as a stream pair; raise DeviceUnavailable naming the port if it cannot."""
    target = parse_serial_url(url)

    async def connect(factory: Callable[[], asyncio.Protocol]) -> asyncio.BaseTransport:
        transport, _ = await serial_asyncio_fast.create_serial_connection(
            asyncio.get_running_loop(), factory, url=target.port, baudrate=target.baudrate
        )
        return transport

    try:
        reader, writer = await open_pushing(connect)
    except (serial.SerialException, OSError) as exc:
        raise _unavailable(url, target.port, exc) from exc
    port = writer.transport.get_extra_info("serial")
    if port is not None and isinstance(getattr(port, "fd", None), int):
        port.read = _direct_reader(port.fd)
    return reader, writer


def _direct_reader(fd: int) -> Callable[[int], bytes]:
    """A read for a port the event loop already found readable, without pyserial's `select()`.

    pyserial's POSIX read calls `select()`, which fails for file descriptors above 1023: a hub with a
    thousand spectators connected (each a socket) would stop reading every port opened after them. The
    loop only calls this when the descriptor is readable, so a plain non-blocking `os.read` is enough.
    """

    def read(size: int = 1) -> bytes:
        try:
            data = os.read(fd, size)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError as exc:
            raise serial.SerialException(f"read failed: {exc}") from exc
        if not data:  # readable yet empty: the device went away (what pyserial says in the same case)
            raise serial.SerialException("device reports readiness to read but returned no data")
        return data

    return read


def _unavailable(url: str, port: str, exc: OSError) -> DeviceUnavailable:
    missing = exc.errno == errno.ENOENT or (
        exc.errno is None and "://" not in port and not os.path.exists(port)
    )
    if missing:
        return DeviceUnavailable(
            url,
            f"serial port {port} does not exist; check the cable and the venue file",
            f"seri port {port} yok; kabloyu ve mekân dosyasını kontrol edin",
        )
    if exc.errno == errno.EACCES:
        return DeviceUnavailable(
            url,
            f"no permission to open serial port {port}; add the hub user to the dialout group",
            f"seri port {port} için izin yok; hub kullanıcısını dialout grubuna ekleyin",
        )
    reason = exc.strerror or str(exc)
    return DeviceUnavailable(
        url, f"cannot open serial port {port}: {reason}", f"seri port {port} açılamadı: {reason}"
    )
