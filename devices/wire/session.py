"""One Boardcast Wire device connection in asyncio: the thin shell that runs a `WireProtocol` over a link.

Transport-agnostic: a session takes an opener that returns an asyncio stream pair, so serial ports, TCP and
test pipes all get the same handshake, watchdog, backoff and resync. What a device said, what to send it and
when anything is due are the protocol's (`devices.wire.protocol`); the shell (`devices.shell`) reads,
writes, sleeps until the protocol's next deadline and hands what came out to the sink. It never raises on
what a device sends.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from devices.command import Ack, CommandFailed
from devices.link import Backoff, SessionSink
from devices.shell import ProtocolShell
from devices.transports.base import ByteReader, ByteWriter, Opener
from devices.transports.serial import open_serial
from devices.wire.messages import Command
from devices.wire.protocol import NO_ACK, WireProtocol
from devices.wire.urls import parse_wire_serial_url

_BACKOFF = Backoff()


@dataclass(frozen=True, slots=True)
class SessionStats:
    """Counters of one session since it was made."""

    frames_ok: int  # frames emitted as observations
    frame_errors: int  # frames reported to sink.frame_error
    reconnects: int  # connections lost after being made
    frames_before_hello: int  # frames dropped because no HELLO had come on that connection yet
    bytes_in: int
    connected: bool
    last_seen: float | None  # clock() when bytes last arrived


def serial_opener(url: str) -> Opener:
    """An opener for a serial device URL; the URL is checked now, so a typo fails before the first connect.

    The venue file check calls the same `parse_wire_serial_url`, so a URL this would refuse never gets here.
    """
    parse_wire_serial_url(url)

    async def open_() -> tuple[ByteReader, ByteWriter]:
        return await open_serial(url)

    return open_


class DeviceSession(ProtocolShell):
    """The one owner of one device connection; run() until cancelled."""

    protocol: WireProtocol

    def __init__(
        self,
        url: str,
        opener: Opener,
        sink: SessionSink,
        *,
        expected_device_id: str | None = None,
        silence_timeout: float = 15.0,
        backoff: Backoff = _BACKOFF,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.url = url
        self._opener = opener
        self._sink = sink
        self._backoff = backoff
        self._clock = clock
        self._rng = rng or random.Random()
        self.protocol = WireProtocol(
            url, expected_device_id=expected_device_id, silence_timeout=silence_timeout
        )
        self._shell_init()

    @classmethod
    def for_url(cls, url: str, sink: SessionSink, **options: Any) -> DeviceSession:
        """A session for a serial device URL."""
        return cls(url, serial_opener(url), sink, **options)

    @property
    def gap_resyncs(self) -> int:
        """Resyncs asked because frames went missing."""
        return self.protocol.gap_resyncs

    @property
    def stats(self) -> SessionStats:
        """A snapshot of the session counters."""
        protocol = self.protocol
        return SessionStats(
            frames_ok=protocol.frames_ok,
            frame_errors=protocol.frame_errors,
            reconnects=self.reconnects,
            frames_before_hello=protocol.frames_before_hello,
            bytes_in=protocol.bytes_in,
            connected=self.connected,
            last_seen=protocol.last_seen,
        )

    async def run(self) -> None:
        """Connect, read and reconnect until cancelled."""
        await self._run_shell(self._opener)

    async def send(self, command: Command) -> bool:
        """Write one COMMAND frame, without waiting for an answer; return False if no connection is open."""
        self.protocol.send(command)
        return await self._flush()

    async def command(self, command: Command, *, retries: int = 3, interval: float = 1.0) -> Ack:
        """Send a command and wait for its ACK, resending the same frame (same seq) up to `retries` times.

        Raise CommandFailed if no connection is open or the device never acknowledges. A device whose HELLO
        lacks the "ack" capability gets the command once and an Ack with ok=None.
        """
        acknowledging = self.protocol.identity is not None and "ack" in self.protocol.identity.capabilities
        seq = self.protocol.command(command, _loop_time(), retries=retries, interval=interval)
        if not acknowledging:
            self._deliver()  # its Ack(ok=None) answers nothing that waits: it is returned here
            if not await self._flush():
                raise CommandFailed(
                    f"{self.url}: the link closed while sending {command.cmd!r} / bağlantı koptu"
                )
            return Ack(seq, None, NO_ACK, 1)
        return await self._await_answer(seq)


def _loop_time() -> float:
    return asyncio.get_running_loop().time()
