"""The asyncio shell of a table's pads: hands `PadProtocol` what the hub's web route received and the time,
delivers what it made to the table's sink, and wakes when a quiet holder's lease runs out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from devices.command import Ack, not_connected
from devices.family import Command, Reply
from devices.link import SessionSink
from devices.observations import LinkChange, Observation
from devices.pad.messages import read_message
from devices.pad.protocol import LEASE_S, PadProtocol, reply


class PadSession:
    """One table's pads: the web route calls `receive`; `run` keeps the lease until cancelled."""

    def __init__(
        self,
        url: str,
        sink: SessionSink,
        *,
        lease: float = LEASE_S,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.url = url
        self.protocol = PadProtocol(url, lease)
        self._sink = sink
        self._clock, self._wall = clock, wall
        self._changed = asyncio.Event()

    def receive(self, body: bytes, user: str) -> Reply:
        """Take a pad's message sent with `user`'s token (MessageInvalid if it is not one); what it brings
        reaches the sink before this returns."""
        answer = self.protocol.receive(read_message(body), user, self._clock(), self._wall())
        self._deliver()
        self._changed.set()  # the lease's deadline moved
        return reply(answer)

    async def command(self, command: Command) -> Ack:
        """A pad takes no commands from the hub: it only sends what the umpire taps."""
        raise not_connected(self.url, command.cmd)

    async def run(self) -> None:
        """Run out a quiet holder's lease, until cancelled."""
        while True:
            deadline = self.protocol.next_deadline()
            self._changed.clear()
            try:
                async with asyncio.timeout(None if deadline is None else deadline - self._clock()):
                    await self._changed.wait()
            except TimeoutError:
                self.protocol.tick(self._clock(), self._wall())
                self._deliver()

    def _deliver(self) -> None:
        observations: list[Observation] = []
        for event in self.protocol.events_received():
            if isinstance(event, LinkChange):
                if observations:
                    self._sink.observe_many(observations)
                    observations = []
                self._sink.link_changed(event)
            else:
                observations.append(event)
        if observations:
            self._sink.observe_many(observations)
