"""One Chessnut board connection: connect over BLE, enable reports, decode placements, deliver, reconnect.

Shaped like `devices.dscore.session`: `BleConnector.open_value_services` scans, connects, reads the MTU and
subscribes to both notify characteristics (board reports, command replies); `ChessnutCodec` decodes;
`devices.synthetic.BleSession` owns the loop, the identity a board lacks (a synthetic HELLO of family
``chess-board``, a boot epoch per connection, a growing seq) and the reconnect backoff. This module owns the
device id from the board's address and the commands a board needs to talk at all:

- ``21 01 00`` (enable reports) right after **every** connect: a board does not resume reporting by itself
  after a reconnect. It is sent again while no board report arrives for `enable_retry_s` (a lost write).
- ``29 01 00`` (battery) at connect and every `battery_every_s`, delivered as `Heartbeat(battery)`.
- No board report for `silence_timeout` (a board sends ~10 a second) drops the link and reconnects.

A board report is delivered only when the placement changes (the codec counts the repeats), and the first
of each connection always. Each observation keeps the notification value it came from as `raw`. URL:
``ble://AA:BB:CC:DD:EE:FF?protocol=chessnut`` (``&adapter=hci1`` optional).
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from devices.chessnut.codec import (
    MIN_MTU,
    ChessnutCodec,
    ChessnutError,
    ChessnutStats,
    encode_battery_request,
    encode_enable_reports,
)
from devices.command import Ack, CommandFailed, NotConnected
from devices.link import Backoff, SessionSink
from devices.observations import DeviceFamily
from devices.silence import LinkReason
from devices.synthetic import BleSession, address_device_id
from devices.transports.ble import BleConnector, BleValueLink, parse_ble_url
from devices.wire.codec import FrameError, FrameErrorKind
from devices.wire.messages import Command, CommandName

CHESSNUT_SERVICES = ("1b7e8261-2877-41c3-b46e-cf057c562023", "1b7e8271-2877-41c3-b46e-cf057c562023")
CHESSNUT_NAME_PREFIX = "Chessnut"  # what a board's advertised name starts with
CHESSNUT_BOARD_SERVICE, CHESSNUT_COMMAND_SERVICE = CHESSNUT_SERVICES
CHESSNUT_BOARD = "1b7e8262-2877-41c3-b46e-cf057c562023"  # notify: board reports
CHESSNUT_COMMANDS = "1b7e8272-2877-41c3-b46e-cf057c562023"  # write: commands
CHESSNUT_REPLIES = "1b7e8273-2877-41c3-b46e-cf057c562023"  # notify: acks, battery, buttons
CHESSNUT_MODEL = "Chessnut"
_BACKOFF = Backoff()


@dataclass(frozen=True, slots=True)
class ChessnutTarget:
    """Which board to open, read from its URL."""

    url: str
    address: str
    device_id: str
    adapter: str | None = None


def chessnut_device_id(address: str) -> str:
    """The device id of a board: "chessnut-" and its address with dashes (venue ids allow no colons)."""
    return address_device_id("chessnut", address)


def parse_chessnut_url(url: str) -> ChessnutTarget:
    """Read ``ble://AA:BB:CC:DD:EE:FF?protocol=chessnut``; raise ValueError naming the URL."""
    target = parse_ble_url(url)
    if target.protocol != "chessnut":
        raise ValueError(f"device URL {url!r} is not a Chessnut board; add ?protocol=chessnut")
    return ChessnutTarget(url, target.address, chessnut_device_id(target.address), target.adapter)


class ChessnutSession(BleSession):
    """The one owner of one Chessnut board connection; run() until cancelled."""

    FAMILY = DeviceFamily.CHESS_BOARD
    CAPABILITIES = ("resync",)

    def __init__(
        self,
        url: str,
        connector: BleConnector,
        sink: SessionSink,
        *,
        battery_every_s: float = 60.0,
        enable_retry_s: float = 2.0,
        silence_timeout: float = 15.0,
        backoff: Backoff = _BACKOFF,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        if min(battery_every_s, enable_retry_s, silence_timeout) <= 0:
            raise ValueError(
                "battery_every_s, enable_retry_s and silence_timeout must be positive, got "
                f"{battery_every_s}, {enable_retry_s}, {silence_timeout}"
            )
        self.target = parse_chessnut_url(url)
        super().__init__(url, connector, sink, backoff=backoff, clock=clock, monotonic=monotonic, rng=rng)
        self._battery_every = battery_every_s
        self._enable_retry = enable_retry_s
        self._silence_timeout = silence_timeout
        self.codec = ChessnutCodec()
        self._command_seq = itertools.count()
        self.mtu: int | None = None  # of the current (or last) connection, when the backend tells
        self.model = CHESSNUT_MODEL  # the advertised name once seen ("Chessnut Air"), else "Chessnut"
        self.enables_sent = 0
        self.battery_requests = 0

    @property
    def device_id(self) -> str:
        """The board's device id, known from its URL."""
        return self.target.device_id

    @property
    def stats(self) -> ChessnutStats:
        """The codec's counters (reports, repeats collapsed, errors)."""
        return self.codec.stats

    async def command(self, command: Command, **_: Any) -> Ack:
        """Resync delivers the next board report even if unchanged; a board takes no other Wire command."""
        if command.cmd != CommandName.RESYNC:
            raise CommandFailed(
                f"{self.url}: a Chessnut board cannot {command.cmd!r} / Chessnut tahtası bu komutu alamaz"
            )
        if not self.connected:
            raise NotConnected(f"{self.url}: no board connected; resync not done / tahta bağlı değil")
        self.codec.reconnected()
        return Ack(next(self._command_seq), True)

    async def send(self, value: bytes) -> bool:
        """Write one board command (see the codec's encoders: LEDs, beep); False if no board is connected."""
        link = self._link_now
        return link is not None and await self._write(link, value)

    async def _open(self) -> BleValueLink:
        return await self._connector.open_value_services(
            self.url,
            (CHESSNUT_BOARD_SERVICE, CHESSNUT_COMMAND_SERVICE),
            write_service=CHESSNUT_COMMAND_SERVICE,
        )

    def _on_open(self, link: BleValueLink) -> None:
        """Learn the MTU and the advertised model, and deliver the first board report of the connection."""
        self.mtu = link.mtu
        seen = self._connector.seen(self.target.address, self.target.adapter)
        name = " ".join((seen.name or "").split()) if seen is not None else ""  # "Chessnut Air\n"
        self.model = name if name.lower().startswith("chessnut") else CHESSNUT_MODEL
        self.codec.reconnected()

    def _connected_detail(self) -> str:
        english, turkish = f"connected to {self.url}", f"{self.url} bağlandı"
        if self.mtu is not None and self.mtu < MIN_MTU:
            english += f"; the link's MTU is {self.mtu}, under {MIN_MTU}: board reports will arrive cut"
            turkish += f"; bağlantı MTU'su {self.mtu}, {MIN_MTU} altında: tahta raporları kesik gelecek"
        return f"{english} / {turkish}"

    async def _serve(self, link: BleValueLink) -> LinkReason:
        """Talk to one connection until it drops or falls silent; return why it ended."""
        now = self._monotonic()
        connected_at = enabled_at = battery_due = now
        last_board: float | None = None  # when the last well-formed board report came
        if not await self._write(link, encode_enable_reports()):
            return _WRITE_FAILED
        self.enables_sent += 1
        while True:
            now = self._monotonic()
            heard = connected_at if last_board is None else last_board
            if now - heard >= self._silence_timeout:
                seconds = f"{self._silence_timeout:g}"
                return LinkReason(
                    f"no board report for {seconds} s; reconnecting",
                    f"{seconds} sn tahta raporu gelmedi; yeniden bağlanılıyor",
                )
            if now - max(heard, enabled_at) >= self._enable_retry:
                if not await self._write(link, encode_enable_reports()):  # the enable may have been lost
                    return _WRITE_FAILED
                self.enables_sent += 1
                enabled_at = now
            if now >= battery_due:
                if not await self._write(link, encode_battery_request()):
                    return _WRITE_FAILED
                self.battery_requests += 1
                battery_due = now + self._battery_every
            deadline = min(
                heard + self._silence_timeout, max(heard, enabled_at) + self._enable_retry, battery_due
            )
            try:
                async with asyncio.timeout(max(0.0, deadline - now)):
                    value = await link.next_value()
            except TimeoutError:
                continue
            if value is None:
                return LinkReason("the board disconnected", "tahta bağlantısı koptu")
            before = self.codec.board_reports
            self._feed(value)
            if self.codec.board_reports != before:
                last_board = self._monotonic()

    async def _write(self, link: BleValueLink, value: bytes) -> bool:
        try:
            await link.write_value(value)
        except ConnectionResetError:
            return False
        return True

    def _feed(self, value: bytes) -> None:
        now = self._clock()
        for item in self.codec.feed(value):
            if isinstance(item, ChessnutError):
                self._sink.frame_error(
                    self.url, self.device_id, FrameError(FrameErrorKind.BAD_BODY, item.detail, item.raw), now
                )
            else:
                self._emit(item, value, now)


_WRITE_FAILED = LinkReason("a write to the board failed", "tahtaya yazma başarısız oldu")
