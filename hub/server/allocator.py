"""Memory the hub no longer needs goes back to the system: the allocator Python objects live on, and when.

A hall's spectators come in bursts (a round starts, a hall's phones reconnect after a network blip): 2,000
WebSocket connections cost the hub about 25 KiB each, all freed when they leave. CPython's own small-object
allocator (pymalloc) gives a 1 MiB arena back only when every object in it is gone, and a few long-lived
objects made during the burst (a periodic task's timer, a cache entry) are enough to keep most arenas:
measured, a hub at 53 MB stayed at 103 MB after the first burst, and at 80 MB even after a full collection.
The C allocator can give back any free page between live objects (`malloc_trim`), so the long-running
commands run Python's objects on it (`PYTHONMALLOC=malloc` with one heap, unless the operator chose an
allocator) and give back what a burst freed once it has gone (`hub.server.heap.give_back_after_bursts`).
The price is speed: on the ingest benchmark 55–66 k observations/s against 72–87 k on pymalloc (still
hundreds of times what a hall's devices send, and over its target against raw SQLite). An operator who
wants the speed back sets `PYTHONMALLOC=pymalloc`; the benchmarks run on what the commands choose.

Only glibc has `malloc_trim`; elsewhere the hub runs as before and gives nothing back.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
import sys
from collections.abc import Mapping
from typing import Any

BURST_CONNECTIONS = 256  # connections gone since the most held at once: ~6 MB freed, worth a give-back
ALLOCATOR_ENV = "PYTHONMALLOC"


def _glibc() -> Any | None:
    """The C library, when it is glibc; else None."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.malloc_trim.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _glibc()


def can_give_back() -> bool:
    """True when this system's allocator can return free pages between live objects."""
    return _LIBC is not None


def trim() -> None:
    """Give every whole free page the C allocator holds back to the system."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def resident_bytes() -> int:
    """This process's resident memory now."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def returning_environment(environ: Mapping[str, str]) -> dict[str, str] | None:
    """`environ` with Python's objects on the C allocator and one heap, or None when the operator chose an
    allocator or this system cannot give memory back (see the module's docstring)."""
    if ALLOCATOR_ENV in environ or not can_give_back():
        return None
    # one heap: Python allocates only under its global lock, so more heaps (glibc makes one per thread that
    # allocates: the log's and the executor's) bring no speed, only more half-used pages to hold; no "fast
    # bins": small freed chunks are merged with their neighbours at once instead of kept apart for reuse
    # (measured: 7 MB held after five bursts of 2,000 spectators instead of 10.6 MB, no loss of speed)
    return {
        "MALLOC_ARENA_MAX": "1",
        "GLIBC_TUNABLES": "glibc.malloc.mxfast=0",
        **environ,
        ALLOCATOR_ENV: "malloc",
    }


def prefer_returning_allocator() -> None:
    """Restart this process in `returning_environment`, when that changes anything. Called by the
    long-running commands before they open anything: the process keeps its id and arguments."""
    environ = returning_environment(os.environ)
    if environ is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], environ)
