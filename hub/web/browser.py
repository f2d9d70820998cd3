"""The routes of browser devices (a family with `Role.BROWSER`, such as an umpire's scoring page): the page the hub
serves for each table, `/PAGE/TABLE`, and the API it sends what it tapped to, `/api/PAGE/TABLE`.

The hub opens no link to such a device: the page comes to it. Its messages go to the table's session of that
family, which turns them into observations for the table's sink like any device's; the answer adds what the
hub made of them, the table's match as the hub holds it now. Only a referee's, a chief's or the table's
umpire's token is let in: an umpire's token opens no other table and no referee route.
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import msgspec
import segno
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from devices.family import Hosted, Reply
from devices.registry import browser_families
from hub.matches import ActionRefused, EventKind, public_view, summary
from hub.matches.signoff import SignoffRequest, prepare_signoff
from hub.server.limits import LOOPBACK_NAMES
from hub.venue import RefereeConfig
from hub.web.bodies import read_body
from hub.web.context import WebContext
from hub.web.errors import Conflict, Invalid, NotFound, ORJSONResponse
from hub.web.referee import referee_only, scorer_for

log = logging.getLogger(__name__)

NO_TABLE = "no such table / böyle bir masa yok"


class BrowserRoutes:
    """The page and the API of one browser-device family, for every table."""

    def __init__(self, ctx: WebContext, page: str, sessions: Mapping[str, Hosted], static_dir: Path) -> None:
        self.ctx = ctx
        self.page = page
        self.sessions = sessions  # by table id
        self.static_dir = static_dir

    async def page_file(self, request: Request) -> Response:
        """The page itself: no data in it; every call it makes needs a token."""
        if request.path_params["table_id"] not in self.sessions:
            raise NotFound(NO_TABLE)
        return FileResponse(self.static_dir / f"{self.page}.html")

    async def state(self, request: Request) -> Response:
        """What the table's device would show now, taking nothing (a look before the first message)."""
        table_id, _, user = self._let_in(request)
        return ORJSONResponse(self._answer(table_id, user, None))

    async def message(self, request: Request) -> Response:
        """A message from the table's device: its taps taken (or refused while another holds the table)."""
        table_id, session, user = self._let_in(request)
        body = await read_body(request, self.ctx.refused)
        try:
            reply = session.receive(body, user.name)
        except ValueError as exc:
            raise Invalid(str(exc)) from None
        await self.ctx.hall.log.flush()  # acknowledged means stored: a tap the answer counts is on disk
        return ORJSONResponse(self._answer(table_id, user, reply))

    async def signoff(self, request: Request) -> Response:
        """A player's sign-off of the table's match just over (`{"side": 0, "agree": true}`), or a dispute."""
        table_id, _, user = self._let_in(request)
        hall = self.ctx.hall
        match_id = hall.current_match(table_id, fresh_start=False)
        if match_id is None:
            raise NotFound("no match on this table / bu masada maç yok")
        try:
            wanted = msgspec.json.decode(await read_body(request, self.ctx.refused), type=SignoffRequest)
            body = prepare_signoff(hall.working[match_id], wanted)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise Invalid(f"{exc} / geçersiz onay") from None
        except ActionRefused as exc:
            raise Conflict(str(exc)) from None
        await hall.record(match_id, EventKind.SIGNOFF, body, time.time(), actor=user.name)
        log.info(
            "%s recorded side %d's sign-off (agree=%s) of %s",
            user.name,
            body["side"],
            body["agree"],
            match_id,
        )
        return ORJSONResponse(self._answer(table_id, user, None))

    def card(self, base: str, table_id: str) -> dict[str, Any]:
        """A table's card: its page's address on the hub at `base`, and that address as a QR code (SVG) to scan
        at the table. No token is in it: the page asks for one."""
        address = f"{base.rstrip('/')}/{self.page}/{quote(table_id, safe='')}"
        svg = io.BytesIO()
        segno.make(address, error="m").save(svg, kind="svg", scale=5, border=2, xmldecl=False, nl=False)
        return {"table": table_id, "page": self.page, "url": address, "svg": svg.getvalue().decode()}

    def _let_in(self, request: Request) -> tuple[str, Hosted, RefereeConfig]:
        """The table, its session and whose token it is: 404, 401 or 403 otherwise."""
        table_id = request.path_params["table_id"]
        session = self.sessions.get(table_id)
        if session is None:
            raise NotFound(NO_TABLE)
        user = scorer_for(self.ctx.auth, request, table_id)
        return table_id, session, user

    def _answer(self, table_id: str, user: RefereeConfig, reply: Reply | None) -> dict[str, Any]:
        hall = self.ctx.hall
        match_id = hall.current_match(table_id, fresh_start=False)
        next_id = hall.current_match(table_id, fresh_start=True)  # the one a fresh start would begin
        table = hall.venue.table(table_id)
        return {
            "table": table_id,
            "sport": table.sport,
            "user": {"name": user.name, "role": user.role},
            "taken": None if reply is None else reply.taken,
            "refusal": (
                None
                if reply is None or reply.refusal is None
                else {"en": reply.refusal.english, "tr": reply.refusal.turkish}
            ),
            "device": None if reply is None else reply.body,
            "match": None if match_id is None else public_view(hall.working[match_id]),
            "next": None if next_id in (None, match_id) else summary(hall.working[next_id]),
        }


def card_base(reached_by: str, address: str) -> tuple[str, bool]:
    """The hub address a table card names, and whether a phone in the hall can reach it: the address the
    console used, unless it is a loopback one, which only this machine reaches; then the hub's own address."""
    if not _loopback(reached_by):
        return reached_by, True
    if address and not _loopback(address):
        return address, True
    return reached_by, False


def _loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return host in LOOPBACK_NAMES or host.startswith("127.")


def _paths(page: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return (
        (f"/{page}/{{table_id}}", ("GET",)),
        (f"/api/{page}/{{table_id}}", ("GET", "POST")),
        (f"/api/{page}/{{table_id}}/signoff", ("POST",)),
    )


CARDS_PATH = "/api/tables/cards"
# every browser-device family's paths and methods (an edge refuses them: the table's hub serves its devices)
BROWSER_PATHS = (
    (CARDS_PATH, ("GET",)),
    *(path for family in browser_families() if family.page for path in _paths(family.page)),
)


def browser_routes(ctx: WebContext, static_dir: Path) -> list[BaseRoute]:
    """Each browser-device family's page and API routes, and the referees' table cards of them all."""
    apis = [BrowserRoutes(ctx, page, sessions, static_dir) for page, sessions in ctx.browsers.items()]

    async def cards(request: Request, referee: RefereeConfig) -> Response:
        """Every table's cards, in the venue's order: what the console prints to put on the tables. The address
        is the one the console reached the hub by, unless that is this machine's own (`localhost`): then the
        hub's address on the network, and `reachable` false when it has none (it listens on loopback only)."""
        base, reachable = card_base(str(request.base_url), ctx.address)
        tables = [t.id for t in ctx.hall.venue.tables]
        cards = [api.card(base, table) for table in tables for api in apis]
        return ORJSONResponse([{**card, "reachable": reachable} for card in cards])

    routes: list[BaseRoute] = [Route(CARDS_PATH, referee_only(ctx.auth, cards))]
    for api in apis:
        page = api.page
        (page_path, _), (api_path, _), (signoff_path, _) = _paths(page)
        routes += [
            Route(page_path, api.page_file),
            Route(api_path, api.state, methods=["GET"]),
            Route(api_path, api.message, methods=["POST"]),
            Route(signoff_path, api.signoff, methods=["POST"]),
        ]
    return routes
