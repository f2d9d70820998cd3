"""Sessions for devices that speak a protocol of their own: the identity said on their behalf, and the BLE loop.

Such a device (an e-board on its maker's serial protocol, a BLE board, an umpire's wristband) sends no HELLO,
no boot epoch and no seq. `SyntheticIdentity` makes them up alike for every such family: a HELLO from the session's device id, family, model and capabilities; a
boot epoch per connection (the wall clock, and always above the last one); a seq that starts at 0 on each
connection and grows by one per observation. `BleSession` adds the loop of such a device over BLE: open it
through `BleConnector`, say its HELLO, serve the link until it ends, wait out the backoff, and again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from devices.link import Backoff, LinkReporter, SessionSink
from devices.observations import DeviceFamily, DeviceHello, LinkState, Observation, Report
from devices.silence import LinkReason

# the HELLO said on a device's behalf carries the hub's own protocol version
from devices.wire.codec import PROTOCOL_VERSION

if TYPE_CHECKING:  # only for annotations: a serial session importing this module needs no bleak
    from devices.transports.ble import BleConnector, BleValueLink

_BACKOFF = Backoff()


def address_device_id(prefix: str, address: str) -> str:
    """A device id from a BLE address: the prefix, a dash, and the address with dashes (ids allow no colons)."""
    return f"{prefix}-" + address.upper().replace(":", "-")


def next_boot_epoch(previous: int, at: float) -> int:
    """The boot epoch of a new connection at wall time `at`: the clock's second, always above the last one."""
    return max(int(at), previous + 1)


class SyntheticIdentity(LinkReporter):
    """A HELLO, a boot epoch and a seq made up on behalf of a device that has none; `_emit` delivers with them.

    The session sets what `LinkReporter` needs, says `FAMILY`, `model` and `CAPABILITIES`, and calls
    `_new_boot()` when a connection starts.
    """

    FAMILY: ClassVar[DeviceFamily]
    CAPABILITIES: ClassVar[tuple[str, ...]] = ()
    ANONYMOUS_ID: ClassVar[str] = "unknown"  # the HELLO's device id while the device has not said it
    model: str
    firmware: str = "unknown"
    _boot_epoch: int = -1  # none before the first connection
    _seq: int = 0
    _observations: int = 0  # delivered since the session was made

    @property
    def hello(self) -> DeviceHello:
        """The HELLO the session says on the device's behalf at each connection."""
        return DeviceHello(
            device_id=self.device_id or self.ANONYMOUS_ID,
            family=self.FAMILY.value,
            model=self.model,
            firmware=self.firmware,
            protocol=PROTOCOL_VERSION,
            boot_epoch=max(self._boot_epoch, 0),
            capabilities=self.CAPABILITIES,
        )

    def _new_boot(self) -> None:
        """Start a connection: a boot epoch unique to it (even two within a second), and seq from 0."""
        self._boot_epoch = next_boot_epoch(self._boot_epoch, self._clock())
        self._seq = 0

    def _emit(self, report: Report, raw: bytes, now: float | None = None) -> None:
        """Deliver one report under the made-up identity, with the bytes it came from."""
        device_id = self.device_id
        assert device_id is not None  # reports are delivered only once the device has said who it is
        self._sink.observe(
            Observation(
                device_id=device_id,
                boot_epoch=self._boot_epoch,
                seq=self._seq,
                received_at=self._clock() if now is None else now,
                report=report,
                raw=raw,
            )
        )
        self._seq += 1
        self._observations += 1


class BleSession(SyntheticIdentity):
    """The loop of one BLE device of such a family: open, say HELLO, serve until the link ends, back off, again.

    A subclass opens its link (`_open`), may look at it before the HELLO (`_on_open`), serves it until it
    ends (`_serve`, returning why) and names the device (`device_id`). A link that was open counts as the
    device heard: the backoff starts over after it.
    """

    def __init__(
        self,
        url: str,
        connector: BleConnector,
        sink: SessionSink,
        *,
        backoff: Backoff = _BACKOFF,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.url = url
        self._connector = connector
        self._sink = sink
        self._backoff = backoff
        self._clock = clock
        self._monotonic = monotonic
        self._rng = rng or random.Random()
        self._link_now: BleValueLink | None = None

    @property
    def connected(self) -> bool:
        """Whether a connection is open now."""
        return self._link_now is not None

    async def run(self) -> None:
        """Connect, deliver and reconnect until cancelled."""
        await self._keep_linked(self._open, self._serve_link)

    async def _open(self) -> BleValueLink:
        raise NotImplementedError

    def _on_open(self, link: BleValueLink) -> None:
        """Look at a new link before it is reported connected (nothing by default)."""

    async def _serve(self, link: BleValueLink) -> LinkReason:
        raise NotImplementedError

    async def _serve_link(self, link: BleValueLink, attempt: int) -> tuple[LinkReason, bool]:
        self._new_boot()
        self._on_open(link)
        self._link_now = link
        self._link(LinkState.CONNECTED, self._connected_detail(), attempt)
        self._emit(self.hello, b"")
        try:
            return await self._serve(link), True
        finally:
            self._link_now = None
            link.close()

    def _opening_detail(self, attempt: int) -> str:
        return f"opening {self.url} / {self.url} açılıyor"
