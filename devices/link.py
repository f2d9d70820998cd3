"""What every family's session shares: the sink it reports to, the reconnect loop and its backoff.

A session takes an opener (or a BLE connector) and keeps its link up: connect, serve, wait out an exponential
backoff with jitter after every failure, and again, saying each change to its `SessionSink`.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from devices.events import ReadError
from devices.observations import LinkChange, LinkState, Observation
from devices.silence import LinkReason
from devices.transports.base import ByteWriter
from devices.transports.serial import DeviceUnavailable

_CLOSE_TIMEOUT = 2.0
_Link = TypeVar("_Link")


class SessionSink(Protocol):
    """Where a session delivers what it learns; every method is synchronous and must not block."""

    def observe(self, observation: Observation) -> None:
        """Take one observation."""

    def observe_many(self, observations: Sequence[Observation]) -> None:
        """Take observations in order, as `observe` one by one would (a sink may fold them together)."""

    def link_changed(self, change: LinkChange) -> None:
        """Take one connection state change."""

    def frame_error(self, url: str, device_id: str | None, error: ReadError, at: float) -> None:
        """Take one frame that could not be used."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential reconnect delays with jitter: initial * factor**(attempt-1), capped, minus up to jitter."""

    initial: float = 0.5
    factor: float = 2.0
    maximum: float = 30.0
    jitter: float = 0.2  # fraction taken off at random: devices that dropped together retry apart

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait before reconnect attempt number attempt + 1 (attempt counts failures from 1)."""
        base = min(self.maximum, self.initial * self.factor ** max(0, attempt - 1))
        return base * (1.0 - self.jitter * rng.random())


class LinkReporter:
    """What every kind of session does alike: the reconnect loop, link changes to its sink, the backoff.

    The session sets `url`, `_sink`, `_backoff`, `_clock` and `_rng`, and says its `device_id`.
    """

    url: str
    _sink: SessionSink
    _backoff: Backoff
    _clock: Callable[[], float]
    _rng: random.Random
    reconnects: int = 0  # connections lost after being made

    @property
    def device_id(self) -> str | None:
        """The device id the link changes carry."""
        raise NotImplementedError

    async def _keep_linked(
        self,
        open_link: Callable[[], Awaitable[_Link]],
        serve: Callable[[_Link, int], Awaitable[tuple[LinkReason, bool]]],
    ) -> None:
        """Open, serve and reopen until cancelled, waiting out the backoff after every failure.

        `serve(link, attempt)` says the link is connected, talks to it until it ends and closes it; it returns
        why the link ended and whether the device was heard on it (then the backoff starts over).
        """
        failures = 0
        try:
            while True:
                attempt = failures + 1
                self._link(LinkState.CONNECTING, self._opening_detail(attempt), attempt)
                try:
                    link = await open_link()
                except OSError as exc:
                    failures += 1
                    await self._wait(failures, attempt, open_failure(self.url, exc))
                    continue
                reason, heard_device = await serve(link, attempt)
                self.reconnects += 1
                failures = 1 if heard_device else failures + 1
                await self._wait(failures, attempt, reason)
        except asyncio.CancelledError:
            self._link(LinkState.DISCONNECTED, "session stopped / oturum durduruldu", 0)
            raise

    def _opening_detail(self, attempt: int) -> str:
        return f"opening {self.url} (attempt {attempt}) / {self.url} açılıyor (deneme {attempt})"

    def _connected_detail(self) -> str:
        return f"connected to {self.url} / {self.url} bağlandı"

    async def _wait(self, failures: int, attempt: int, reason: LinkReason) -> None:
        delay = self._backoff.delay(failures, self._rng)
        self._link(LinkState.DISCONNECTED, reason.with_retry(delay), attempt)
        await asyncio.sleep(delay)

    def _link(self, state: LinkState, detail: str, attempt: int) -> None:
        self._sink.link_changed(
            LinkChange(
                url=self.url,
                state=state,
                at=self._clock(),
                detail=detail,
                device_id=self.device_id,
                attempt=attempt,
            )
        )


def open_failure(url: str, exc: OSError) -> LinkReason:
    """Why opening `url` failed, as the link change says it."""
    if isinstance(exc, DeviceUnavailable):
        return LinkReason(exc.english, exc.turkish)
    return LinkReason(f"cannot open {url}: {exc}", f"{url} açılamadı: {exc}")


async def write_drained(writer: ByteWriter, data: bytes) -> bool:
    """Write data and wait until it is sent; False if the link failed (a session retries or reconnects)."""
    try:
        writer.write(data)
        await writer.drain()
    except (OSError, ConnectionError, RuntimeError):
        return False
    return True


async def close_writer(writer: ByteWriter) -> None:
    """Close a stream, waiting a little for it: a port that will not close cleanly is closed anyway."""
    writer.close()
    with contextlib.suppress(Exception):
        async with asyncio.timeout(_CLOSE_TIMEOUT):
            await writer.wait_closed()
