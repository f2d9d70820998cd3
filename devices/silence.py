"""When a device link is silent, and why a link ended: a pure rule (time as an argument) and its asyncio read.

`Silence` is the rule every session protocol keeps: silent once `timeout` s have passed since bytes were
last heard. `SilenceWatch` applies it to one link's reads with one timer per link, not one per read, for the
sessions whose reads are not driven by a protocol object (the BLE families).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from devices.transports.base import ByteReader

_READ_SIZE = 4096


@dataclass(frozen=True, slots=True)
class LinkReason:
    """Why a link is down, in English and Turkish."""

    english: str
    turkish: str

    def with_retry(self, delay: float) -> str:
        english = f"{self.english}; retrying in {delay:.1f} s"
        return f"{english} / {self.turkish}; {delay:.1f} sn sonra yeniden denenecek"


@dataclass(frozen=True, slots=True)
class DeviceNoun:
    """What link reasons call the device: in English, in Turkish, and in Turkish "from it" (Turkish inflects)."""

    english: str = "device"
    turkish: str = "cihaz"
    turkish_from: str = "cihazdan"


@dataclass(slots=True)
class Silence:
    """When a link is silent: `timeout` s after it was last heard from (or opened). Time is an argument."""

    timeout: float
    noun: DeviceNoun = DeviceNoun()
    heard_at: float = 0.0

    def heard(self, now: float) -> None:
        """Bytes came (or the link opened) at `now`."""
        self.heard_at = now

    @property
    def deadline(self) -> float:
        """When the link is silent if nothing is heard before."""
        return self.heard_at + self.timeout

    def expired(self, now: float) -> bool:
        """Whether nothing has been heard for `timeout` s at `now`."""
        return now - self.heard_at >= self.timeout

    def reason(self) -> LinkReason:
        """Why a silent link ends, as the link change says it."""
        seconds = f"{self.timeout:g}"
        return LinkReason(
            f"no data from the {self.noun.english} for {seconds} s; reconnecting",
            f"{self.noun.turkish_from} {seconds} sn veri gelmedi; yeniden bağlanılıyor",
        )


def read_failed(exc: BaseException) -> LinkReason:
    """Why a link ended whose read raised `exc`."""
    return LinkReason(f"read failed: {exc}", f"okuma hatası: {exc}")


def closed_by(noun: DeviceNoun) -> LinkReason:
    """Why a link ended that the device closed."""
    return LinkReason(f"the {noun.english} closed the connection", f"{noun.turkish} bağlantıyı kapattı")


class SilenceWatch:
    """A link's reads, each ended as silent once it has waited `timeout` s for bytes: one timer per link.

    `asyncio.timeout` around each read arms and cancels a timer (a handle, a heap push, a cancel) for every
    read; when every read brings one frame, as a scoreboard reporting each rally live sends them, that was a
    read's largest fixed cost. Here a read only notes when it began; the one timer, when due, cancels the read
    in hand if it began `timeout` s ago or more, and otherwise re-arms itself for that read's deadline. A read
    still ends exactly `timeout` s after it began, as it did. Made and closed by the task that reads.
    """

    def __init__(self, timeout: float, noun: DeviceNoun = DeviceNoun()) -> None:
        self.timeout = timeout
        self.noun = noun
        self._loop = asyncio.get_running_loop()
        self._silence = Silence(timeout, noun, self._loop.time())  # heard_at: when the read in hand began
        task = asyncio.current_task()
        assert task is not None, "a SilenceWatch is made by the task that reads"
        self._task = task
        self._reading = False
        self._expired = False
        self._timer: asyncio.TimerHandle | None = self._loop.call_at(self._loop.time() + timeout, self._due)

    def _due(self) -> None:
        now = self._loop.time()
        if self._reading and self._silence.expired(now):
            self._timer = None
            self._expired = True
            self._task.cancel()  # `read` turns this cancel, and only this one, into a LinkReason
            return
        self._timer = self._loop.call_at(
            self._silence.deadline if self._reading else now + self.timeout, self._due
        )

    async def read(self, reader: ByteReader) -> bytes | LinkReason:
        """The next bytes from a device, or why the link ended: silent for `timeout` s, failed or closed."""
        self._silence.heard(self._loop.time())
        self._reading = True
        cancelling = self._task.cancelling()
        try:
            data = await reader.read(_READ_SIZE)
        except asyncio.CancelledError:
            if not self._expired or self._task.uncancel() > cancelling:
                raise  # the session is being stopped (and perhaps silent as well): it stops
            return self._silent()
        except (OSError, ConnectionError) as exc:
            return read_failed(exc)
        finally:
            self._reading = False
        return data or closed_by(self.noun)

    def _silent(self) -> LinkReason:
        self._expired = False
        self._timer = self._loop.call_at(self._loop.time() + self.timeout, self._due)
        return self._silence.reason()

    def close(self) -> None:
        """Stop the timer (the link is over)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


async def read_some(
    reader: ByteReader, silence_timeout: float, noun: DeviceNoun = DeviceNoun()
) -> bytes | LinkReason:
    """One read with a `SilenceWatch` of its own (a read loop keeps one watch for its link instead)."""
    watch = SilenceWatch(silence_timeout, noun)
    try:
        return await watch.read(reader)
    finally:
        watch.close()
