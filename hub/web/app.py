"""The web app's assembly: routes by audience, the request guard and the error answers, as one ASGI app."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from hub.server.limits import Guard
from hub.web.browser import BROWSER_PATHS, browser_routes
from hub.web.context import PublicContext, WebContext
from hub.web.devices import DEVICE_PATHS, device_routes
from hub.web.errors import EXCEPTION_HANDLERS
from hub.web.public import WEB_DISPLAY, public_routes
from hub.web.referee import REFEREE_ROUTES, referee_routes


def assemble(ctx: PublicContext, routes: Sequence[BaseRoute]) -> Starlette:
    """An app of `routes` behind the Guard (limits, allowed hosts), every error answered as JSON."""
    return Starlette(
        routes=list(routes),
        middleware=[Middleware(Guard, limits=ctx.limits, refused=ctx.refused, access=ctx.access)],
        exception_handlers=EXCEPTION_HANDLERS,
    )


def create_app(ctx: WebContext, static_dir: Path = WEB_DISPLAY) -> Starlette:
    """The ASGI app for one hub: the public, referee and device routes."""
    return assemble(
        ctx,
        [
            *public_routes(ctx, static_dir),
            *referee_routes(ctx),
            *device_routes(ctx),
            *browser_routes(ctx, static_dir),
        ],
    )


def hub_only_routes() -> list[tuple[str, tuple[str, ...]]]:
    """The paths (and methods) only a hub serves: the referee, device and browser-device routes, for an edge to
    refuse."""
    return (
        [(path, methods) for path, _, methods in REFEREE_ROUTES]
        + [(path, ("GET",)) for path in DEVICE_PATHS]
        + [(path, methods) for path, methods in BROWSER_PATHS]
    )
