"""What every transport hands a device session: a byte reader and a byte writer, nothing more.

asyncio's StreamReader/StreamWriter satisfy these; BLE and TCP adapters implement the same four calls, so
a family's session runs unchanged over serial, Bluetooth LE and TCP.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable
from typing import Any, Protocol


class ByteReader(Protocol):
    """The read side of a device link."""

    async def read(self, n: int = -1) -> bytes:
        """Up to n bytes; b"" once the link is closed."""
        ...


class ByteWriter(Protocol):
    """The write side of a device link."""

    def write(self, data: bytes) -> None:
        """Queue bytes for the device."""
        ...

    async def drain(self) -> None:
        """Wait until the queued bytes are handed to the link."""
        ...

    def close(self) -> None:
        """Start closing the link."""
        ...

    async def wait_closed(self) -> None:
        """Wait until the link is closed."""
        ...


Opener = Callable[[], Awaitable[tuple[ByteReader, ByteWriter]]]


class PushReader(asyncio.StreamReader):
    """A stream reader that can hand each read straight to a callback, in the transport's own callback.

    A session reading with `read()` is woken once per read: a future resolved, a task step scheduled and
    run. With `push` set, the bytes go to it as the event loop reads them, and `read()` returns only at the
    link's end (b"") or failure (it raises): a hall of boards each sending a frame at a time costs one
    call per read, not a wake-up (docs/PERFORMANCE.md, ingest). Bytes that came before `push` was set stay
    in the buffer for `take_buffered`.
    """

    def __init__(self, limit: int = 2**16, loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(limit, loop)
        self.push: Callable[[bytes], None] | None = None
        self.reads = 0  # reads that brought bytes

    def feed_data(self, data: bytes) -> None:  # type: ignore[override]
        """Hand `data` to `push` when one is set (and nothing is buffered before it), else buffer it."""
        if self._eof:  # type: ignore[attr-defined]
            return  # the session ended the link (`feed_eof`): it reads nothing more from it
        self.reads += 1
        push = self.push
        if push is not None and not self._buffer:  # type: ignore[attr-defined]
            push(data)
        else:
            super().feed_data(data)

    def take_buffered(self) -> bytes:
        """What came before `push` was set, taken out of the buffer."""
        buffer: bytearray = self._buffer  # type: ignore[attr-defined]
        data = bytes(buffer)
        buffer.clear()
        self._maybe_resume_transport()  # type: ignore[attr-defined]
        return data


async def open_pushing(
    connect: Callable[[Callable[[], asyncio.Protocol]], Awaitable[asyncio.BaseTransport]],
) -> tuple[PushReader, asyncio.StreamWriter]:
    """A stream pair over the transport `connect(protocol_factory)` makes, reading into a `PushReader`."""
    loop = asyncio.get_running_loop()
    reader = PushReader(loop=loop)
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    transport = await connect(lambda: protocol)
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)  # type: ignore[arg-type]


# asyncio accepts up to its `backlog` sockets in one turn of the loop, before any of them reaches a server's
# caps, and stops accepting for a whole second once the process's descriptors run out. So every listening
# server here takes a few per turn (its caps see each batch before the next turn's: the web and the device
# gateway together, for the two or three turns a socket waits to be seen, stay within the hub's
# descriptor reserve) while the kernel's queue stays deep for a burst.
ACCEPT_BATCH = 16
LISTEN_QUEUE = 2048


def set_nodelay(transport: Any) -> None:
    """Send small writes at once on a TCP transport or stream writer (nothing for other kinds).

    asyncio sets TCP_NODELAY itself only on sockets whose protocol number is IPPROTO_TCP; those accepted from
    a `socket.create_server` socket have 0, and a reply in two writes then waits for the peer's delayed ACK
    (40 ms on Linux)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # the peer has already gone: nothing left to speed up
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
