"""The referee routes: the console's API, actions, confirmation, inputs and device commands.

Every route here runs behind `referee_only`, the one place an HTTP route checks the referee token (401
without a valid one; `scorer_for` is its counterpart for the routes an umpire's token opens, its tables'), as does the one referee route mounted with the public ones (a round's report file,
`hub.web.public`); nothing here is public. `referee_of` reads the token for a route that shows a referee
more (`/api/devices`). A request is checked against the working state and recorded as a hall
event; what a referee may not do is a typed error, answered by its type (`hub.web.errors`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from devices.family import Command, command_fields
from hub.matches import EventKind, MatchState, ScoredBy, check_confirm, public_view
from hub.referee import (
    BULK_FIELDS,
    ActionInvalid,
    action_fields,
    input_fields,
    prepare,
    prepare_bulk,
    prepare_input,
)
from hub.referee.model import MAX_TEXT
from hub.referee.tokens import Authenticator
from hub.venue import RefereeConfig, VenueError
from hub.venue.changes import VenueChangeRefused
from hub.venue.reload import NoVenueFile, take_new_rounds
from hub.web.bodies import no_fields, query_int, read_object
from hub.web.context import WebContext
from hub.web.errors import NO_MATCH, Conflict, Forbidden, Invalid, NotFound, ORJSONResponse, Unauthorized

log = logging.getLogger(__name__)

MAX_EVIDENCE = 50  # events per evidence request

Endpoint = Callable[[Request], Awaitable[Response]]
RefereeEndpoint = Callable[[Request, RefereeConfig], Awaitable[Response]]


def referee_of(auth: Authenticator, request: Request) -> RefereeConfig | None:
    """The referee whose token the request's `Authorization` header carries, or None."""
    return auth.referee_for(request.headers.get("authorization"))


def referee_only(auth: Authenticator, endpoint: RefereeEndpoint) -> Endpoint:
    """`endpoint` behind the referee token check: it runs only for a referee, and is told which; without a
    valid token the answer is Unauthorized (401)."""

    async def checked(request: Request) -> Response:
        referee = referee_of(auth, request)
        if referee is None:
            raise Unauthorized()
        return await endpoint(request, referee)

    checked.__name__ = checked.__qualname__ = getattr(endpoint, "__name__", "referee_route")
    return checked


def scorer_for(auth: Authenticator, request: Request, table_id: str) -> RefereeConfig:
    """Whoever may score `table_id` by the request's token: a referee or chief (any table) or the table's
    umpire; Unauthorized (401) without a valid token, Forbidden (403) for an umpire of other tables."""
    user = auth.holder_for(request.headers.get("authorization"))
    if user is None:
        raise Unauthorized(
            "a referee's or this table's umpire's token is needed / hakem ya da bu masanın yardımcı hakeminin "
            "anahtarı gerekli"
        )
    if not user.may_score(table_id):
        raise Forbidden(
            f"{user.name}'s token scores tables {', '.join(user.tables)} only, not {table_id} / "
            f"{user.name} yalnız {', '.join(user.tables)} masalarını puanlayabilir"
        )
    return user


class RefereeRoutes:
    """The referees' endpoints of one hub; each is handed the referee the token names."""

    def __init__(self, ctx: WebContext) -> None:
        self.ctx = ctx

    def _working(self, request: Request) -> tuple[str, MatchState]:
        """The match the path names, in its working state (404 when unknown)."""
        match_id = request.path_params["match_id"]
        match = self.ctx.hall.working.get(match_id)
        if match is None:
            raise NotFound(NO_MATCH)
        return match_id, match

    async def me(self, request: Request, referee: RefereeConfig) -> Response:
        """Who the token names, for the console."""
        return ORJSONResponse({"name": referee.name, "role": referee.role, "venue": self.ctx.hall.venue.name})

    async def matches(self, request: Request, referee: RefereeConfig) -> Response:
        """Every match as the console shows it."""
        hall = self.ctx.hall
        return ORJSONResponse([hall.console_view(m) for m in hall.matches()])

    async def rounds(self, request: Request, referee: RefereeConfig) -> Response:
        """Take the rounds added to the venue file since the hub started (the chief referee only)."""
        if referee.role != "chief":
            raise Forbidden(
                "only the chief referee may add a round; you are signed in as referee "
                "/ turu yalnızca başhakem ekleyebilir"
            )
        await read_object(request, no_fields, self.ctx.refused)
        try:
            new = await take_new_rounds(self.ctx.hall, referee.name, self.ctx.auth)
        except (VenueError, VenueChangeRefused, NoVenueFile) as exc:
            raise Conflict(str(exc)) from None
        return ORJSONResponse(
            {
                "rounds": list(new.rounds),
                "matches": [m.id for m in new.matches],
                "team_matches": [t.id for t in new.team_matches],
                "referees": [r.name for r in new.referees],
            }
        )

    async def audit(self, request: Request, referee: RefereeConfig) -> Response:
        """The hall's audit: what referees did and what is still open."""
        return ORJSONResponse(self.ctx.hall.audit())

    async def evidence(self, request: Request, referee: RefereeConfig) -> Response:
        """The logged events of a match between two offsets: the reports an anomaly stands on, raw bytes too."""
        hall, match_id = self.ctx.hall, request.path_params["match_id"]
        if match_id not in hall.committed:
            raise NotFound(NO_MATCH)
        last = query_int(request, "to", hall.committed[match_id].version)
        first = query_int(request, "from", max(1, last - 4))
        if not 1 <= first <= last or last - first >= MAX_EVIDENCE:
            raise Invalid(f"give 1 <= from <= to, at most {MAX_EVIDENCE} events / geçersiz aralık", ("from",))
        events = []
        for record in hall.log.match_events(match_id, first - 1):
            if record.offset is None or record.offset > last:
                break
            events.append(
                {
                    "offset": record.offset,
                    "id": record.id,
                    "kind": record.kind,
                    "at": record.at,
                    "actor": record.actor,
                    "device_id": record.device_id,
                    "boot_epoch": record.boot_epoch,
                    "seq": record.seq,
                    "body": record.body,
                    "raw": record.raw.hex() if record.raw else None,
                }
            )
        return ORJSONResponse({"match": match_id, "from": first, "to": last, "events": events})

    async def confirm(self, request: Request, referee: RefereeConfig) -> Response:
        """Confirm a finished match's result (409 when its state does not allow it)."""
        match_id, _ = self._working(request)
        await read_object(request, no_fields, self.ctx.refused)  # nothing to say: {} or no body
        check_confirm(self.ctx.hall.working[match_id])
        await self.ctx.hall.record(match_id, EventKind.REFEREE_CONFIRM, {}, time.time(), actor=referee.name)
        return ORJSONResponse(public_view(self.ctx.hall.match(match_id)))

    async def input(self, request: Request, referee: RefereeConfig) -> Response:
        """A referee input (a point for a sport scored by hand, a board's orientation…); not once the match is
        locked or closed."""
        match_id, match = self._working(request)
        body = await read_object(request, lambda body: input_fields(match, body), self.ctx.refused)
        at = time.time()
        try:  # what the rules read, rebuilt (the log never holds the request as sent); not once locked/closed
            event = prepare_input(self.ctx.hall.working[match_id], body, at)
        except ActionInvalid as exc:
            raise Invalid(str(exc), ("type", *body)) from None
        await self.ctx.hall.record(match_id, event.kind, event.body, at, actor=referee.name)
        return ORJSONResponse(public_view(self.ctx.hall.match(match_id)))

    async def action(self, request: Request, referee: RefereeConfig) -> Response:
        """A referee action (anomaly, correction, penalty, forfeit, appeal, decision) on a match."""
        match_id, _ = self._working(request)
        wanted = await read_object(request, action_fields, self.ctx.refused)
        at = time.time()
        try:  # checked against the working state and recorded with no await between: nothing slips in
            event = prepare(self.ctx.hall.working[match_id], wanted, role=referee.role, at=at)
        except ActionInvalid as exc:
            # a field missing from the request is named too: the action's own fields after the sent ones
            raise Invalid(str(exc), ("action", *wanted, *sorted(action_fields(wanted) or ()))) from None
        stored = self.ctx.hall.record(match_id, event.kind, event.body, at, actor=referee.name)
        await stored
        log.info("referee %s: %s on %s", referee.name, event.kind.value, match_id)
        return ORJSONResponse(self.ctx.hall.console_view(self.ctx.hall.match(match_id)))

    async def anomalies(self, request: Request, referee: RefereeConfig) -> Response:
        """Several anomaly items of one match handled at once (one code, or all), for one reason."""
        wanted = await read_object(request, lambda _: BULK_FIELDS, self.ctx.refused)
        at = time.time()
        try:  # checked and recorded with no await between, as a single action is
            match_id, event = prepare_bulk(self.ctx.hall.working, wanted)
        except ActionInvalid as exc:
            said = str(exc)  # each message starts with the field it refuses, quoted
            raise Invalid(said, [f for f in sorted(BULK_FIELDS) if f'"{f}"' in said]) from None
        await self.ctx.hall.record(match_id, event.kind, event.body, at, actor=referee.name)
        log.info(
            "referee %s: %s %d anomalies on %s",
            referee.name,
            event.body["state"],
            len(event.body["anomalies"]),
            match_id,
        )
        return ORJSONResponse(self.ctx.hall.console_view(self.ctx.hall.match(match_id)))

    async def scored_by(self, request: Request, referee: RefereeConfig) -> Response:
        """Score a table from its umpire's page (`{"by": "umpire"}`: its device broke) or from its device again
        (`"device"`), with a reason: logged on the table's match, with who and when."""
        table_id = request.path_params["table_id"]
        table = next((t for t in self.ctx.hall.venue.tables if t.id == table_id), None)
        if table is None:
            raise NotFound("no such table / böyle bir masa yok")
        body = await read_object(request, lambda _: ("by", "reason"), self.ctx.refused)
        try:
            by = ScoredBy(str(body.get("by")))
        except ValueError:
            raise Invalid(
                f'"by" must be one of {", ".join(ScoredBy)} / "by" şunlardan biri olmalı: {", ".join(ScoredBy)}',
                ["by"],
            ) from None
        reason = body.get("reason", "")
        if not isinstance(reason, str) or len(reason) > MAX_TEXT:
            raise Invalid(
                f'"reason" must be a text of at most {MAX_TEXT} characters / gerekçe çok uzun', ["reason"]
            )
        match_id = self.ctx.hall.current_match(table_id, fresh_start=False)
        if match_id is None:
            raise Conflict("the table has no match to log the switch on / masada maç yok")
        await self.ctx.hall.record(
            match_id,
            EventKind.REFEREE_SCORED_BY,
            {"table": table_id, "by": by.value, "reason": reason},
            time.time(),
            actor=referee.name,
        )
        self.ctx.ingest.switch_scorer(table, by)
        log.info("referee %s: table %s scored by its %s", referee.name, table_id, by.value)
        return ORJSONResponse({"table": table_id, "by": by.value, "match": match_id})

    async def command(self, request: Request, referee: RefereeConfig) -> Response:
        """A command to a table's device: checked values only, within its frame, acknowledged or not."""
        table_id = request.path_params["table_id"]
        session = self.ctx.sessions.get(table_id)
        if session is None:
            if all(t.id != table_id for t in self.ctx.hall.venue.tables):
                raise NotFound("no such table / böyle bir masa yok")
            raise NotFound("no device on that table / bu masada cihaz yok")
        body = await read_object(request, command_fields, self.ctx.refused)
        wanted = Command.checked(body)  # a device gets only checked values, within its frame
        ack = await session.command(wanted)
        log.info("referee %s sent %s to table %s: ok=%s", referee.name, wanted.cmd, table_id, ack.ok)
        return ORJSONResponse({"ok": ack.ok, "error": ack.error, "attempts": ack.attempts, "seq": ack.seq})


# The referee routes: path, endpoint name on RefereeRoutes, methods. An edge answers these paths with the hub's
# address instead (hub/bus/edge.py).
REFEREE_ROUTES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("/api/matches/{match_id}/confirm", "confirm", ("POST",)),
    ("/api/matches/{match_id}/inputs", "input", ("POST",)),
    ("/api/matches/{match_id}/actions", "action", ("POST",)),
    ("/api/referee/me", "me", ("GET",)),
    ("/api/referee/matches", "matches", ("GET",)),
    ("/api/referee/audit", "audit", ("GET",)),
    ("/api/referee/anomalies", "anomalies", ("POST",)),
    ("/api/referee/matches/{match_id}/events", "evidence", ("GET",)),
    ("/api/tables/{table_id}/command", "command", ("POST",)),
    ("/api/tables/{table_id}/scored-by", "scored_by", ("POST",)),
    ("/api/rounds", "rounds", ("POST",)),
)


def referee_routes(ctx: WebContext) -> list[BaseRoute]:
    """The routes only a referee may use, each behind the token check."""
    api = RefereeRoutes(ctx)
    return [
        Route(path, referee_only(ctx.auth, getattr(api, name)), methods=list(methods))
        for path, name, methods in REFEREE_ROUTES
    ]
