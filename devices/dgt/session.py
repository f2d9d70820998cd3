"""One DGT e-board connection in asyncio (USB CDC-ACM or Bluetooth Classic RFCOMM, both through pyserial).

The thin shell (`devices.shell`) that runs a `DgtProtocol` over the port: the handshake, the synthetic HELLO,
every change as one observation, the keep-alive, silence, catch-up after a reconnect and the hub's clock
commands are the protocol's (`devices.dgt.protocol`, `devices.dgt.commands`); the URL and the port opener
are `devices.dgt.port`. It delivers to the same `SessionSink` a Boardcast Wire session uses and never
raises on what a board sends. URL: ``serial:///dev/ttyACM0?protocol=dgt`` or
``serial:///dev/rfcomm0?protocol=dgt`` (9600 baud unless ``&baud=`` says otherwise).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from devices.command import Ack
from devices.dgt.commands import clock_text
from devices.dgt.port import DGT_BAUDRATE, DgtTarget, dgt_opener, parse_dgt_url
from devices.dgt.protocol import BOARD, DGT_MODEL, DgtProtocol, dgt_device_id
from devices.dgt.reader import DgtReader
from devices.link import Backoff, SessionSink
from devices.shell import ProtocolShell
from devices.transports.base import Opener
from devices.wire.messages import Command

__all__ = [  # the URL, the opener and clock_text are imported from here too
    "DGT_BAUDRATE",
    "DGT_MODEL",
    "DgtSession",
    "DgtSessionStats",
    "DgtTarget",
    "clock_text",
    "dgt_device_id",
    "dgt_opener",
    "parse_dgt_url",
]

_BACKOFF = Backoff()


@dataclass(frozen=True, slots=True)
class DgtSessionStats:
    """Counters of one DGT session since it was made."""

    observations: int  # observations delivered
    errors: int  # DGT errors (and refusals) reported to sink.frame_error
    reconnects: int  # connections lost after being made
    keepalives_answered: int  # serial numbers received after the handshake
    dumps_asked: int  # SEND_BRD sent (handshake, field updates before a dump, resync)
    bytes_in: int
    connected: bool
    identified: bool  # the board said who it is on this connection
    last_seen: float | None  # clock() when bytes last arrived


class DgtSession(ProtocolShell):
    """The one owner of one DGT board connection; run() until cancelled."""

    protocol: DgtProtocol
    _noun = BOARD

    def __init__(
        self,
        url: str,
        sink: SessionSink,
        *,
        opener: Opener | None = None,
        expected_device_id: str | None = None,
        keepalive_s: float = 1.0,
        silence_timeout: float = 5.0,
        handshake_timeout: float = 3.0,
        dump_retry_s: float = 1.0,
        clock_retry_s: float = 2.0,
        clock_retries: int = 3,
        battery_interval_s: float = 60.0,
        backoff: Backoff = _BACKOFF,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.target = parse_dgt_url(url)
        self.url = url
        self._opener = opener or dgt_opener(self.target)
        self._sink = sink
        self._backoff = backoff
        self._clock = clock
        self._rng = rng or random.Random()
        self.protocol = DgtProtocol(
            url,
            bluetooth=self.target.bluetooth,
            expected_device_id=expected_device_id,
            keepalive_s=keepalive_s,
            silence_timeout=silence_timeout,
            handshake_timeout=handshake_timeout,
            dump_retry_s=dump_retry_s,
            clock_retry_s=clock_retry_s,
            clock_retries=clock_retries,
            battery_interval_s=battery_interval_s,
        )
        self._shell_init()

    @property
    def reader(self) -> DgtReader:
        """The board image the protocol keeps."""
        return self.protocol.reader

    @property
    def identified(self) -> bool:
        """Whether the board on the current connection has said who it is (commands can be sent)."""
        return self.protocol.identified

    @property
    def stats(self) -> DgtSessionStats:
        """A snapshot of the session counters."""
        protocol = self.protocol
        return DgtSessionStats(
            observations=protocol.observations,
            errors=protocol.errors,
            reconnects=self.reconnects,
            keepalives_answered=protocol.keepalives_answered,
            dumps_asked=protocol.dumps_asked,
            bytes_in=protocol.bytes_in,
            connected=self.connected,
            identified=self.identified,
            last_seen=protocol.last_seen,
        )

    async def run(self) -> None:
        """Connect, read and reconnect until cancelled."""
        await self._run_shell(self._opener)

    async def command(
        self, command: Command, *, retries: int | None = None, interval: float | None = None
    ) -> Ack:
        """Do a hub command on the board or its DGT 3000 and wait for the acknowledgement.

        ``show_text`` shows up to 8 characters on the clock (the times come back after ``seconds``),
        ``set_clock`` sets both times and the running side (SETNRUN, clock mode 23), ``resync`` reads the
        board again. Clock commands go one at a time, each resent after ``interval`` (2 s) up to ``retries``
        times; raise CommandFailed if no board is connected, the arguments are wrong or no ack comes.
        """
        now = asyncio.get_running_loop().time()
        seq = self.protocol.command(command, now, retries=retries, interval=interval)
        return await self._await_answer(seq)
