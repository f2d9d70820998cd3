"""A spectator edge: the pages, REST reads and `/ws` of a hall, served from the bus, with no devices or log.

`EdgeHall` is the same public read model as the hub's (`hub.public.PublicHall`: the reads the web layer
uses, and the topics), fed by `hub.bus.BusReader` with the public states the venue's hub published instead
of by a log; it publishes them under the same topics and versions as the hub does, so a spectator can move
between a hub and its edges and resume. A change not newer than the match's state held is dropped: a screen never goes back.

Referee actions are not taken on an edge: they answer 421 with the URL of the hub that owns the tables
(read from the bus). Proxying would give the edge a second way to fail a referee; one address is clearer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

import orjson
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from hub import __version__
from hub.app import SEND_BUFFER
from hub.auth import Authenticator
from hub.bus import BusReader, PublicChange
from hub.connections import Unfinished, open_files, quiet_repeats, raise_open_files_limit
from hub.fanout import Fanout
from hub.heap import HeapStats, give_back_after_bursts
from hub.limits import access_for
from hub.matches import from_snapshot, new_match
from hub.public import PublicHall
from hub.startup import listen
from hub.venue import Venue
from hub.web import WebContext, create_app
from hub.wsfeed import announce_started, burst_gone, server_config

log = logging.getLogger(__name__)

FIRST_SNAPSHOT_WAIT_S = 10.0  # a new edge waits this long for the bus before serving empty matches
MISDIRECTED = 421  # HTTP: "this server does not act for that": the hub that owns the table does


class EdgeHall(PublicHall):
    """The public state of every match of a venue, as its hub published it on the bus."""

    def __init__(self, venue: Venue, fanout: Fanout) -> None:
        super().__init__(venue, fanout)
        self.public.update({m.id: new_match(m) for m in venue.matches})
        self.unknown_matches = 0

    def apply(self, change: PublicChange) -> bool:
        """Show a published state if it is newer than the one held; False when it was dropped."""
        info = self.infos.get(change.match_id)
        if info is None:  # the hub's venue file lists a match this edge's does not: say so, show nothing
            self.unknown_matches += 1
            log.warning(
                "the bus carries match %s, which this edge's venue file does not list", change.match_id
            )
            return False
        if change.version <= self.public[info.id].version:
            return False
        self.venue_version = max(self.venue_version, change.venue_version)
        self.fanout.forget_snapshot("venue")  # a delayed release changes content without a new venue version
        self._publish_public(from_snapshot(info, change.state))
        return True


def _owned_by_hub(path: str, method: str) -> bool:
    """Routes that act on a table or need the hub's log: referee actions, the console's API, devices."""
    if path.startswith("/api/referee") or path.startswith("/api/tables/") or path == "/api/devices":
        return True
    return method == "POST" and path.startswith("/api/matches/")


class EdgeRuntime:
    """One spectator edge: a bus reader, a read model, a fan-out and the web server."""

    def __init__(self, venue: Venue, bus_url: str, *, host: str = "127.0.0.1", port: int = 8000) -> None:
        self.venue = venue
        self.host, self.port = host, port
        self.fanout = Fanout()
        self.hall = EdgeHall(venue, self.fanout)
        self.reader = BusReader(bus_url, venue, self.hall.apply)
        self.auth = Authenticator(venue.referees)
        self.ctx = WebContext(self.hall, self.fanout, None, self.auth)  # type: ignore[arg-type]
        self.started_at = time.time()
        self.server: uvicorn.Server | None = None
        self.ready = asyncio.Event()
        self._socket: socket.socket | None = None
        self.open_files = 0  # the soft open-files limit, once raised
        self.heap = HeapStats()  # memory given back after bursts of spectators, on /api/health

    def open(self) -> None:
        """Take the listening port (StartupError, hub.startup, when it cannot); port 0 takes any free one."""
        self.open_files, _ = raise_open_files_limit()
        self._socket = listen(self.host, self.port)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        self.port = self._socket.getsockname()[1]
        self.ctx.access = access_for(
            self.host, self.port, self.venue.allowed_hosts, self.venue.trusted_proxies
        )

    def app(self) -> ASGIApp:
        """The hub's web app, with hub-only routes answered by the edge."""
        return _EdgeGuard(create_app(self.ctx), self)

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
            "clients_closed_stuck": self.ctx.closed_stuck,
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

    async def run(self, *extra: Callable[[], Awaitable[None]]) -> None:
        """Serve until the web server is told to stop."""
        assert self._socket is not None, "open() first"
        quiet_repeats(asyncio.get_running_loop())
        self.ctx.connections = Unfinished(self.ctx.limits, self.ctx.refused)
        self.ctx.connections.fit_to_open_files(self.open_files)
        self.ctx.connections.trusted = self.ctx.access.trusts
        # X-Forwarded-For is the Guard's to read, from the venue's trusted proxies only (hub/limits.py)
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

    async def _announce_ready(self) -> None:
        assert self.server is not None
        await announce_started(self.server, self.ready)

    def stop(self) -> None:
        """Ask the web server to stop."""
        if self.server is not None:
            self.server.should_exit = True


class _EdgeGuard:
    """ASGI: answers /api/health and the hub-only routes on an edge; everything else goes to the web app."""

    def __init__(self, app: ASGIApp, edge: EdgeRuntime) -> None:
        self.app = app
        self.edge = edge

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Route one request."""
        if scope["type"] == "http":
            path, method = scope["path"], scope["method"]
            if path == "/api/health":
                return await _json(send, 200, self.edge.health())
            if _owned_by_hub(path, method):
                return await _json(send, MISDIRECTED, self.edge.refusal())
        await self.app(scope, receive, send)


async def _json(send: Send, status: int, body: dict[str, Any]) -> None:
    data = orjson.dumps(body)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
