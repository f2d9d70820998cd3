"""The hub's own routes that are neither a spectator's nor a referee's: its devices and its health.

`/api/devices` is the device board (private details for a referee token); `/api/health` is the hub's state:
its log and writer, devices, gateways, clients and limits. A spectator edge has neither; it answers its own
health (hub/bus/edge.py).
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from hub import __version__
from hub.log.writer import WriterProcess
from hub.server.connections import open_files
from hub.web.context import WebContext
from hub.web.errors import ORJSONResponse
from hub.web.referee import referee_of


def _writer_health(writer: WriterProcess | None) -> dict[str, Any]:
    """The event log's writer process: its pid, how often it started (more than once: it was killed)."""
    if writer is None:
        return {}
    return {"writer": {"pid": writer.pid, "starts": writer.starts, "exits": writer.exits[-5:]}}


class DeviceRoutes:
    """The hub's devices and health."""

    def __init__(self, ctx: WebContext) -> None:
        self.ctx = ctx

    def _gateways(self) -> list[dict[str, Any]]:
        return [{"url": g.url, "accepted": g.accepted, "refused": g.refused_total} for g in self.ctx.gateways]

    async def list_devices(self, request: Request) -> Response:
        """Every table's device and the gateways; private details only for a referee token."""
        referee = referee_of(self.ctx.auth, request)
        return ORJSONResponse(
            {**self.ctx.ingest.board.snapshot(private=referee is not None), "gateways": self._gateways()}
        )

    async def health(self, request: Request) -> Response:
        """The hub's /api/health."""
        ctx = self.ctx
        devices = ctx.ingest.health.values()
        return ORJSONResponse(
            {
                "status": "ok",
                "version": __version__,
                "venue": ctx.hall.venue.name,
                "uptime_s": round(time.time() - ctx.started_at, 3),
                "matches": len(ctx.hall.committed),
                "log": {
                    "commits": ctx.hall.log.commits,
                    "events_committed": ctx.hall.log.committed_events,
                    "last_id": ctx.hall.log.last_id,
                    "replayed_on_start": ctx.hall.replayed_events,
                    **_writer_health(ctx.hall.log.writer),
                },
                "devices": {
                    "total": len(ctx.ingest.health),
                    "connected": sum(1 for d in devices if d.link == "connected"),
                },
                "gateways": self._gateways(),
                "clients": len(ctx.fanout.clients),
                "clients_closed_stuck": ctx.closed_stuck,
                "refused": dict(ctx.refused),
                "open_files": open_files(),
                **({"connections": ctx.connections.health()} if ctx.connections is not None else {}),
                **({"bus": ctx.bus_health()} if ctx.bus_health is not None else {}),
                **({"heap": asdict(ctx.heap)} if ctx.heap is not None else {}),
                # each sport's spectator extra (winning chances, the engine's evaluation): running, or why not
                "spectator_extras": {key: extra.health() for key, extra in ctx.hall.all_extras()},
            }
        )


# Device routes that only a hub has (an edge answers these paths with the hub's address: hub/bus/edge.py).
DEVICE_PATHS = ("/api/devices",)


def device_routes(ctx: WebContext) -> list[BaseRoute]:
    """The hub's /api/health and /api/devices."""
    api = DeviceRoutes(ctx)
    return [Route("/api/health", api.health), Route("/api/devices", api.list_devices)]
