"""What `boardcast serve`, `edge` and `demo` check before they run: the port number, the data directory and the
listening sockets. Each refusal is one line in English and Turkish that names what is wrong.

`StartupError.exit_code` follows hub/cli.py: 2 for bad input (a port number out of range, a `--host` that is
not an address of this machine, a data directory that is a file or cannot be written, a venue's gateway
address that is not this machine's), 1 when the hub could not run (a port another program holds).
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from collections.abc import Iterable
from pathlib import Path

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
DATA_DIR_MODE = 0o700  # the data directory, when the hub makes it: the log is for the hub's user alone


class StartupError(Exception):
    """Why the hub cannot start; str() is the line to print, `exit_code` the command's exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def parse_port(text: str | int, option: str = "--port") -> int:
    """A port number from 0 (any free port) to 65535; StartupError (bad input) for anything else."""
    try:
        port = int(str(text).strip(), 10) if len(str(text)) <= 12 else None
    except ValueError:
        port = None
    if port is None or not 0 <= port <= 65535:
        raise StartupError(
            f"{option} must be a whole number from 0 to 65535 (0: any free port), got {str(text)[:20]!r} "
            f"/ {option} 0 ile 65535 arasında bir tam sayı olmalı (0: boş herhangi bir bağlantı noktası)",
            EXIT_BAD_INPUT,
        )
    return port


# -- the data directory -------------------------------------------------------------------------------------


def _why(exc: OSError) -> str:
    """An OS error as a reason an organiser can act on."""
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "no permission (this user may not write there)"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.ENOTDIR:
        return "a part of the path is a file, not a directory"
    return exc.strerror or str(exc)


def _bad_data(path: Path, english: str, turkish: str) -> StartupError:
    return StartupError(
        f"the data directory {path} (--data) {english} / veri dizini {path} {turkish}", EXIT_BAD_INPUT
    )


def _nearest_existing(path: Path) -> Path:
    """The deepest ancestor of `path` that exists (it may be a file)."""
    for parent in path.absolute().parents:
        if parent.exists():
            return parent
    return Path(path.absolute().anchor)


def venue_data_dir(venue_file: Path, data: str | None) -> Path:
    """The data directory a venue's hub uses: `--data`, else `VENUE-data` beside the venue file."""
    return Path(data) if data else venue_file.parent / f"{venue_file.stem}-data"


def prepare_data_dir(path: Path, files: Iterable[str] = ()) -> None:
    """Make sure the hub can keep its files in `path`: a directory this user may write in, made (0700) when
    missing, where each of `files` that exists can be opened for reading and writing.

    Raises StartupError (bad input) naming the directory and what is wrong with it."""
    if path.is_symlink() and not path.exists():
        raise _bad_data(
            path,
            f"is a symbolic link to {os.readlink(path)}, which does not exist",
            "var olmayan bir yeri gösteren bir sembolik bağ",
        )
    if path.exists() and not path.is_dir():
        raise _bad_data(
            path,
            "is a file, not a directory; give a directory (it is made when missing)",
            "bir dosya, dizin değil; bir dizin verin (yoksa oluşturulur)",
        )
    if not path.exists():
        ancestor = _nearest_existing(path)
        if not ancestor.is_dir():
            raise _bad_data(
                path,
                f"cannot be made: {ancestor} is a file, not a directory",
                f"oluşturulamıyor: {ancestor} bir dosya, dizin değil",
            )
        try:
            path.mkdir(parents=True, mode=DATA_DIR_MODE)
        except FileExistsError:  # made meanwhile by someone else: checked below like any other
            pass
        except OSError as exc:
            raise _bad_data(
                path, f"cannot be made in {ancestor}: {_why(exc)}", f"{ancestor} içinde oluşturulamıyor"
            ) from None
    try:  # a real write, not os.access: that says yes to root on a read-only file system
        fd, probe = tempfile.mkstemp(prefix=".boardcast-probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise _bad_data(
            path,
            f"cannot be written: {_why(exc)}; choose another --data or let this user write there",
            "yazılamıyor; başka bir --data seçin ya da bu kullanıcıya yazma izni verin",
        ) from None
    for name in files:
        _check_data_file(path, path / name)


def _check_data_file(path: Path, file: Path) -> None:
    """A file of the data directory, if it exists, opens for reading and writing."""
    if not (file.exists() or file.is_symlink()):
        return
    try:
        os.close(os.open(file, os.O_RDWR))
    except OSError as exc:
        raise _bad_data(
            path,
            f"holds {file.name}, which cannot be opened for writing: {_why(exc)}",
            f"içindeki {file.name} yazmak için açılamıyor",
        ) from None


# -- listening sockets --------------------------------------------------------------------------------------


_NAME_ERRORS = frozenset(getattr(socket, name) for name in dir(socket) if name.startswith("EAI_"))


def _problem(exc: BaseException) -> str:
    """What kind of refusal a failed bind is: in_use, not_here, no_name, denied, bad_text or other."""
    cause = exc.__cause__ if isinstance(exc.__cause__, OSError | ValueError) else exc
    if isinstance(cause, socket.gaierror):
        return "no_name"
    if isinstance(cause, ValueError | OverflowError):  # a host with a NUL, an IDNA label too long
        return "bad_text"
    number: int | None = getattr(cause, "errno", None)
    kinds: dict[int | None, str] = {
        errno.EADDRINUSE: "in_use",
        errno.EADDRNOTAVAIL: "not_here",
        errno.EACCES: "denied",
    }
    kind = kinds.get(number) or ("denied" if number == errno.EPERM else None)
    if kind is None and number in _NAME_ERRORS:  # create_server re-raises a resolver error as OSError
        kind = "no_name"
    return kind or "other"


def _reason(exc: BaseException) -> str:
    cause = exc.__cause__ if isinstance(exc.__cause__, OSError) else exc
    return (getattr(cause, "strerror", None) or str(cause)).split(" (while attempting")[0]


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def listen(host: str, port: int) -> socket.socket:
    """The web server's listening socket on `--host`/`--port` (IPv6 too: `::` takes IPv4 as well).

    Raises StartupError: bad input (exit 2) for a host that is not this machine's or no host at all, could
    not run (exit 1) for a port in use or one that needs privileges."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    dual = host == "::" and socket.has_dualstack_ipv6()
    try:
        return socket.create_server((host, port), family=family, dualstack_ipv6=dual)
    except (OSError, ValueError, OverflowError) as exc:
        raise listen_refusal(exc, host, port) from None


def listen_refusal(exc: BaseException, host: str, port: int) -> StartupError:
    """The one-line refusal for a failed bind of the web server's socket."""
    where, kind, reason = _address(host, port), _problem(exc), _reason(exc)
    if kind == "in_use":
        return StartupError(
            f"cannot listen on {where}: the port is already in use (another program, or another hub, "
            f"listens there); choose another --port / bu adreste dinlenemiyor: bağlantı noktası kullanımda; "
            f"başka bir --port seçin",
            EXIT_FAILED,
        )
    if kind == "denied":
        return StartupError(
            f"cannot listen on {where}: permission denied (ports below 1024 need administrator rights); "
            f"choose --port 1024 or above / izin yok; 1024 veya üstü bir --port seçin",
            EXIT_FAILED,
        )
    if kind in ("not_here", "no_name", "bad_text"):
        what = {
            "not_here": ("is not an address of this machine", "bu makinenin bir adresi değil"),
            "no_name": (f"is not a host name this machine can resolve ({reason})", "çözümlenemiyor"),
            "bad_text": (f"is not a host name or address ({reason})", "bir ad ya da adres değil"),
        }[kind]
        return StartupError(
            f"--host {host!r} {what[0]}; give one of its addresses, 127.0.0.1 (this machine only) or "
            f"0.0.0.0 (every address) / --host {what[1]}",
            EXIT_BAD_INPUT,
        )
    return StartupError(f"cannot listen on {where}: {reason} / bu adreste dinlenemiyor", EXIT_FAILED)


def gateway_refusal(exc: BaseException, url: str, tables: Iterable[str]) -> StartupError:
    """The one-line refusal for a device gateway (a venue's tcp:// address) that cannot listen."""
    kind, reason = _problem(exc), _reason(exc)
    which = f"{url} (the tcp:// device of table {', '.join(tables)})"
    if kind == "in_use":
        return StartupError(
            f"the device gateway cannot listen on {which}: the port is already in use; stop the program "
            f"that holds it or give the devices another port in the venue file / cihaz geçidi bu adreste "
            f"dinlenemiyor: bağlantı noktası kullanımda",
            EXIT_FAILED,
        )
    if kind == "denied":
        return StartupError(
            f"the device gateway cannot listen on {which}: permission denied (ports below 1024 need "
            f"administrator rights) / cihaz geçidi için izin yok",
            EXIT_FAILED,
        )
    if kind in ("not_here", "no_name", "bad_text"):
        return StartupError(
            f"the device gateway address {which} is not an address of this machine ({reason}); fix the "
            f"device URL in the venue file / cihaz geçidi adresi bu makinenin bir adresi değil",
            EXIT_BAD_INPUT,
        )
    return StartupError(
        f"the device gateway cannot listen on {which}: {reason} / cihaz geçidi dinlenemiyor", EXIT_FAILED
    )
