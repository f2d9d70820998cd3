"""What the web routes read and act on: the hub's `WebContext`, and `PublicContext`, the part public routes need.

Public routes (pages, reads, `/ws`) read only a `PublicContext`: a hall's public state, its fan-out, the
referee tokens the feed checks and the limits it keeps. A hub's `WebContext` is one; a spectator edge,
which has no devices, no log and no ingest, builds its own.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from devices.command import CommandTarget
from devices.family import Hosted
from devices.transports.tcp import TcpGateway
from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.hall.spectators import PublicHall
from hub.ingest.sink import Ingest
from hub.referee.tokens import Authenticator
from hub.server.connections import Unfinished
from hub.server.heap import HeapStats
from hub.server.limits import Access, WebLimits

STUCK_AFTER_S = 10.0


class PublicContext(Protocol):
    """What the public routes and the feed read: nothing of devices, the log or the referee console."""

    @property
    def hall(self) -> PublicHall:
        """The public read model: matches, teams, the venue."""

    @property
    def fanout(self) -> Fanout:
        """The spectators' feed."""

    @property
    def auth(self) -> Authenticator:
        """The referee tokens, for the feed's referee topic."""

    @property
    def stuck_after_s(self) -> float:
        """How long a client may block its socket before it is closed."""

    @property
    def limits(self) -> WebLimits:
        """The limits every request and feed keeps."""

    @property
    def refused(self) -> Counter[str]:
        """Requests and feeds refused, by limit."""

    @property
    def access(self) -> Access:
        """The names the server answers to, the proxies it trusts."""


@dataclass(slots=True)
class WebContext:
    """What the hub's web routes read and act on."""

    hall: Hall
    fanout: Fanout
    ingest: Ingest
    auth: Authenticator
    sessions: Mapping[str, CommandTarget] = field(default_factory=dict)
    # browser devices' sessions (an umpire's scoring page): by the family's page, then by table
    browsers: Mapping[str, Mapping[str, Hosted]] = field(default_factory=dict)
    gateways: list[TcpGateway] = field(default_factory=list)
    started_at: float = field(default_factory=time.time)
    stuck_after_s: float = STUCK_AFTER_S
    limits: WebLimits = field(default_factory=WebLimits)
    refused: Counter[str] = field(default_factory=Counter)  # requests and feeds refused, by limit
    bus_health: Callable[[], dict[str, Any]] | None = None  # the Redis link, when the hub publishes to one
    heap: HeapStats | None = None  # the hub's clocked garbage collector (hub/server/heap.py)
    connections: Unfinished | None = None  # connections waiting for their request (hub/server/connections.py)
    access: Access = field(default_factory=Access)  # the names it answers to, the proxies it trusts
    address: str = ""  # the hub's address for people on the hall's network (`hub_url`), "" when not known

    @property
    def closed_stuck(self) -> int:
        """Clients closed because they stopped reading."""
        return self.fanout.closed_stuck
