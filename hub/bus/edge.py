"""A spectator edge: the pages, REST reads and `/ws` of a hall, served from the bus, with no devices or log.

`EdgeHall` is the same public read model as the hub's (`hub.hall.spectators.PublicHall`: the reads the web layer
uses, and the topics), fed by `hub.bus.streams.BusReader` with the public states the venue's hub published instead
of by a log; it publishes them under the same topics and versions as the hub does, so a spectator can move
between a hub and its edges and resume. A change not newer than the match's state held is dropped: a screen never goes back.

An edge mounts only the hub's public routes (`hub.web.public_routes`) and its own `/api/health`. Referee
actions and devices are not on an edge: the hub's referee and device paths answer 421 with the URL of the
hub that owns the tables (read from the bus). Proxying would give the edge a second way to fail a referee;
one address is clearer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import asdict, dataclass, field
from typing import Any

import uvicorn
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp

from hub import __version__
from hub.bus.streams import BusReader, PublicChange
from hub.feed.fanout import Fanout
from hub.feed.protocol import announce_started, burst_gone, server_config
from hub.hall.spectators import PublicHall
from hub.matches import MatchInfo, from_snapshot, new_match
from hub.referee.tokens import Authenticator
from hub.rules.registry import attach_spectator_extras
from hub.server.app import SEND_BUFFER
from hub.server.connections import Unfinished, open_files, quiet_repeats, raise_open_files_limit
from hub.server.heap import HeapStats, give_back_after_bursts
from hub.server.limits import Access, WebLimits, access_for
from hub.server.startup import listen
from hub.venue import Venue, VenueError, load_venue
from hub.venue.changes import VenueChangeRefused, new_rounds
from hub.web import STUCK_AFTER_S, ORJSONResponse, assemble, hub_only_routes, public_routes

log = logging.getLogger(__name__)

FIRST_SNAPSHOT_WAIT_S = 10.0  # a new edge waits this long for the bus before serving empty matches
REREAD_EVERY_S = 2.0  # an edge reads its venue file again for a new round at most this often
MISDIRECTED = 421  # HTTP: "this server does not act for that": the hub that owns the table does


class EdgeHall(PublicHall):
    """The public state of every match of a venue, as its hub published it on the bus."""

    def __init__(self, venue: Venue, fanout: Fanout) -> None:
        super().__init__(venue, fanout)
        self.public.update({m.id: new_match(m) for m in venue.matches})
        self.unknown_matches = 0  # changes of matches this edge's venue file does not list
        self._read_at = float("-inf")  # when the venue file was last read again for a new round
        self._unknown_named: set[str] = set()

    def apply(self, change: PublicChange) -> bool:
        """Show a published state if it is newer than the one held; False when it was dropped."""
        info = self.infos.get(change.match_id) or self._read_new_round(change.match_id)
        if info is None:  # the hub's venue file lists a match this edge's does not: say so, show nothing
            self.unknown_matches += 1
            if change.match_id not in self._unknown_named:  # once a match: its every change would flood
                self._unknown_named.add(change.match_id)
                log.warning(
                    "the bus carries match %s, which this edge's venue file does not list: not shown "
                    "(use the hub's venue file) / bu maç salon dosyasında yok, gösterilmiyor",
                    change.match_id,
                )
            return False
        if change.version <= self.public[info.id].version:
            return False
        self.venue_version = max(self.venue_version, change.venue_version)
        self.fanout.forget_snapshot("venue")  # a delayed release changes content without a new venue version
        self._publish_public(from_snapshot(info, change.state))
        return True

    def _read_new_round(self, match_id: str) -> MatchInfo | None:
        """The hub took a new round: read this edge's venue file again, at most every `REREAD_EVERY_S`, and
        take its new matches if it has them (the same check as the hub's: nothing running may change)."""
        now = time.monotonic()
        if self.venue.path is None or now - self._read_at < REREAD_EVERY_S:
            return None
        self._read_at = now
        try:
            new = new_rounds(self.venue, load_venue(self.venue.path))
        except (VenueError, VenueChangeRefused) as exc:
            log.warning("the bus carries match %s; this edge's venue file was not taken: %s", match_id, exc)
            return None
        self.add_matches(new.venue, new.matches, new.team_matches)
        self.show_new(new.matches)
        return self.infos.get(match_id)


@dataclass(slots=True)
class EdgeContext:
    """What an edge's public routes read (`hub.web.PublicContext`): no devices, no log, no ingest."""

    hall: EdgeHall
    fanout: Fanout
    auth: Authenticator
    stuck_after_s: float = STUCK_AFTER_S
    limits: WebLimits = field(default_factory=WebLimits)
    refused: Counter[str] = field(default_factory=Counter)  # requests and feeds refused, by limit
    access: Access = field(default_factory=Access)  # the names it answers to, the proxies it trusts
    connections: Unfinished | None = None  # connections waiting for their request (hub/server/connections.py)


class EdgeRuntime:
    """One spectator edge: a bus reader, a read model, a fan-out and the web server."""

    def __init__(self, venue: Venue, bus_url: str, *, host: str = "127.0.0.1", port: int = 8000) -> None:
        self.venue = venue
        self.host, self.port = host, port
        self.fanout = Fanout()
        self.hall = EdgeHall(venue, self.fanout)
        attach_spectator_extras(self.hall)
        self.reader = BusReader(bus_url, venue, self.hall.apply)
        self.auth = Authenticator(venue.referees)
        self.ctx = EdgeContext(self.hall, self.fanout, self.auth)
        self.started_at = time.time()
        self.server: uvicorn.Server | None = None
        self.ready = asyncio.Event()
        self._socket: socket.socket | None = None
        self.open_files = 0  # the soft open-files limit, once raised
        self.heap = HeapStats()  # memory given back after bursts of spectators, on /api/health

    def open(self) -> None:
        """Take the listening port (StartupError, hub.server.startup, when it cannot); port 0 takes any free one."""
        self.open_files, _ = raise_open_files_limit()
        self._socket = listen(self.host, self.port)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        self.port = self._socket.getsockname()[1]
        self.ctx.access = access_for(
            self.host, self.port, self.venue.allowed_hosts, self.venue.trusted_proxies
        )

    def app(self) -> ASGIApp:
        """The hub's public routes, the edge's health, and the hub's address on the hub's other routes."""
        return assemble(self.ctx, self.routes())

    def routes(self) -> list[BaseRoute]:
        """The edge's routes: its health, a refusal for each hub-only route, the public routes."""
        refusals = [Route(path, self._refuse, methods=list(methods)) for path, methods in hub_only_routes()]
        return [Route("/api/health", self._health), *refusals, *public_routes(self.ctx)]

    async def _health(self, request: Request) -> Response:
        return ORJSONResponse(self.health())

    async def _refuse(self, request: Request) -> Response:
        return ORJSONResponse(self.refusal(), status_code=MISDIRECTED)

    def health(self) -> dict[str, Any]:
        """The edge's /api/health."""
        return {
            "status": "ok",
            "role": "edge",
            "version": __version__,
            "venue": self.venue.name,
            "uptime_s": round(time.time() - self.started_at, 3),
            "matches": len(self.hall.public),
            "venue_version": self.hall.venue_version,
            "unknown_matches": self.hall.unknown_matches,
            "bus": self.reader.health_dict(),
            "clients": len(self.fanout.clients),
            "clients_closed_stuck": self.fanout.closed_stuck,
            "heap": asdict(self.heap),
            "refused": dict(self.ctx.refused),
            "open_files": open_files(),
            **({"connections": self.ctx.connections.health()} if self.ctx.connections is not None else {}),
        }

    def refusal(self) -> dict[str, Any]:
        """What a hub-only route answers on an edge: where to go instead."""
        owner = self.reader.owner.get("hub") or "(not announced on the bus yet / henüz duyurulmadı)"
        return {
            "error": f"this is a spectator edge of {self.venue.name!r}; referee actions and devices are on the "
            f"hub that owns its tables: {owner} / bu bir seyirci sunucusu; hakem işlemleri ve cihazlar "
            f"masaların bağlı olduğu merkezde: {owner}",
            "owner": owner,
        }

    async def run(self, *extra: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Serve until the web server is told to stop."""
        assert self._socket is not None, "open() first"
        quiet_repeats(asyncio.get_running_loop())
        for _, shown in self.hall.all_extras():
            shown.start()  # the net (the engine) loads while the hub starts
        self.ctx.connections = Unfinished(self.ctx.limits, self.ctx.refused)
        self.ctx.connections.fit_to_open_files(self.open_files)
        self.ctx.connections.trusted = self.ctx.access.trusts
        # X-Forwarded-For is the Guard's to read, from the venue's trusted proxies only (hub/server/limits.py)
        config = server_config(self.app(), self.ctx.connections)
        self.server = uvicorn.Server(config)
        async with asyncio.TaskGroup() as tg:
            workers = [tg.create_task(self.reader.run(), name="bus reader")]
            gone = burst_gone(self.server, self.ctx.connections)
            workers.append(tg.create_task(give_back_after_bursts(gone, self.heap), name="memory give-back"))
            workers += [tg.create_task(job()) for job in extra]
            # serve from the snapshot, not from empty matches; Redis being away only delays this so long
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(FIRST_SNAPSHOT_WAIT_S):
                    await self.reader.ready.wait()
            serving = tg.create_task(self.server.serve(sockets=[self._socket]), name="web")
            tg.create_task(self._announce_ready())
            await serving
            for worker in workers:
                worker.cancel()
        for _, shown in self.hall.all_extras():
            shown.close()

    async def _announce_ready(self) -> None:
        assert self.server is not None
        await announce_started(self.server, self.ready)

    def stop(self) -> None:
        """Ask the web server to stop."""
        if self.server is not None:
            self.server.should_exit = True
