"""One D-SCORE wristband connection: connect over BLE, subscribe, decode presses, deliver, reconnect.

Thin on purpose: `BleConnector.open_values` does the scanning, connecting and subscribing, and
`DScoreCodec` does the decoding. This module owns the band's URL and the device id made from its
address, and turns each notification into presses or errors; `devices.synthetic.BleSession` owns the loop, the identity a band lacks (a
synthetic HELLO, a boot epoch per connection, a growing seq) and the reconnect backoff, and delivers to
the same `SessionSink` a Boardcast Wire session uses. URL:
``ble://AA:BB:CC:DD:EE:FF?protocol=dscore&side=0`` (``&adapter=hci1`` optional).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from devices.command import Ack, CommandFailed
from devices.dscore.codec import DScoreCodec, DScoreStats
from devices.link import Backoff, SessionSink
from devices.observations import DeviceEvent, DeviceFamily
from devices.silence import LinkReason
from devices.synthetic import BleSession, address_device_id
from devices.transports.ble import BleConnector, BleValueLink, parse_ble_url
from devices.wire.messages import Command

DSCORE_SERVICE = "96f9374a-2417-44e3-ae06-aa362556914e"
DSCORE_BUTTONS = "96f91f4c-2417-44e3-ae06-aa362556914e"  # notify: 0 released, 1 red, 2 green, 3 both
DSCORE_PLAYER_TYPE = "96f91f4b-2417-44e3-ae06-aa362556914e"  # write: 0 server, 1 returner, 2 none (unused)
DSCORE_POKE = "96f91f4d-2417-44e3-ae06-aa362556914e"  # write: vibrate the band (unused)
DSCORE_NAME_PREFIX = "D-SCORE-RX_"
DSCORE_MODEL = "D-SCORE"
_BACKOFF = Backoff()


@dataclass(frozen=True, slots=True)
class DScoreTarget:
    """Which band to open and which side its green button scores for, read from its URL."""

    url: str
    address: str
    side: int
    device_id: str


def dscore_device_id(address: str) -> str:
    """The device id of a band: "dscore-" and its address with dashes (venue ids allow no colons)."""
    return address_device_id("dscore", address)


def parse_dscore_url(url: str) -> DScoreTarget:
    """Read ``ble://AA:BB:CC:DD:EE:FF?protocol=dscore&side=0``; raise ValueError naming the URL."""
    target = parse_ble_url(url)
    if target.protocol != "dscore":
        raise ValueError(f"device URL {url!r} is not a D-SCORE band; add ?protocol=dscore&side=0 (or side=1)")
    sides = parse_qs(urlsplit(url).query).get("side", [])
    if not sides or sides[-1] not in ("0", "1"):
        raise ValueError(
            f"device URL {url!r} must say which side the band scores for: add &side=0 or &side=1"
        )
    return DScoreTarget(url, target.address, int(sides[-1]), dscore_device_id(target.address))


class DScoreSession(BleSession):
    """The one owner of one wristband connection; run() until cancelled."""

    FAMILY = DeviceFamily.TT_WRISTBAND
    model = DSCORE_MODEL

    def __init__(
        self,
        url: str,
        connector: BleConnector,
        sink: SessionSink,
        *,
        debounce_s: float = 0.35,
        backoff: Backoff = _BACKOFF,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.target = parse_dscore_url(url)
        super().__init__(url, connector, sink, backoff=backoff, clock=clock, monotonic=monotonic, rng=rng)
        self.codec = DScoreCodec(self.target.side, debounce_s=debounce_s)

    @property
    def device_id(self) -> str:
        """The band's device id, known from its URL."""
        return self.target.device_id

    @property
    def stats(self) -> DScoreStats:
        """The codec's counters (presses, double taps, errors)."""
        return self.codec.stats

    async def command(self, command: Command, **_: Any) -> Ack:
        """A wristband takes no commands; raise CommandFailed saying so."""
        raise CommandFailed(
            f"{self.url}: a D-SCORE wristband cannot {command.cmd!r} / bileklik bu komutu alamaz"
        )

    async def _open(self) -> BleValueLink:
        return await self._connector.open_values(self.url, DSCORE_SERVICE, prefer=DSCORE_BUTTONS)

    async def _serve(self, link: BleValueLink) -> LinkReason:
        while (value := await link.next_value()) is not None:
            self._feed(value)
        return LinkReason("the band disconnected", "bileklik bağlantısı koptu")

    def _feed(self, value: bytes) -> None:
        now = self._clock()
        for item in self.codec.feed(value, self._monotonic()):
            if isinstance(item, DeviceEvent):
                self._emit(item, value, now)
            else:
                self._sink.frame_error(self.url, self.device_id, item, now)
