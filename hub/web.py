"""The web edge: REST reads, the referee endpoints, the `/ws` feed and the static pages.

Thin on purpose: every request reads the hall's committed state or turns into a hall event; nothing here
decides a rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from devices.session import CommandFailed, DeviceSession
from devices.transports.tcp import TcpGateway
from devices.wire.messages import Command, CommandInvalid, command_fields
from hub import __version__, chess_feed
from hub.auth import Authenticator
from hub.connections import Unfinished, open_files
from hub.fanout import CLOSE_STUCK, Fanout, Subscriber, SubscriptionRefused
from hub.hall import Hall, UnknownMatch
from hub.heap import HeapStats
from hub.ingest import Ingest
from hub.limits import CLOSE_POLICY, Access, Guard, RateLimiter, WebLimits
from hub.logwriter import WriterProcess
from hub.matches import ActionRefused, EventKind, check_confirm, public_view
from hub.referee import (
    ActionForbidden,
    ActionInvalid,
    action_fields,
    check_input,
    check_unlocked,
    input_fields,
    prepare,
)
from hub.wsfeed import LINK

log = logging.getLogger(__name__)

WEB_DISPLAY = Path(__file__).resolve().parent.parent / "web-display"
MAX_CLIENT_MESSAGE = 4096
STUCK_AFTER_S = 10.0
CLOSE_TOO_BIG = 1009
YIELD_EVERY = 32
BATCH_S = 0.2  # a tick for clients that ask for batches: at most 5 messages a second
MAX_EVIDENCE = 50  # events per evidence request
REFEREE_TOPICS = frozenset({"referee"})  # topics that carry what only referees may see
MAX_BODY = 8 * 1024  # bytes of a request body: two referee texts of 1,000 characters, a device's text, fit
MAX_DEPTH = 3  # lists and objects nested in a body field's value: "score": [3, 1] is 1
MAX_OFFSET = 2**62  # a log offset in a query: SQLite's integers are 64-bit


@dataclass(slots=True)
class WebContext:
    """What the web edge reads and acts on."""

    hall: Hall
    fanout: Fanout
    ingest: Ingest
    auth: Authenticator
    sessions: dict[str, DeviceSession] = field(default_factory=dict)
    gateways: list[TcpGateway] = field(default_factory=list)
    started_at: float = field(default_factory=time.time)
    stuck_after_s: float = STUCK_AFTER_S
    limits: WebLimits = field(default_factory=WebLimits)
    refused: Counter[str] = field(default_factory=Counter)  # requests and feeds refused, by limit
    bus_health: Callable[[], dict[str, Any]] | None = None  # the Redis link, when the hub publishes to one
    heap: HeapStats | None = None  # the hub's clocked garbage collector (hub/heap.py)
    connections: Unfinished | None = None  # connections waiting for their request (hub/connections.py)
    access: Access = field(default_factory=Access)  # the names it answers to, the proxies it trusts

    @property
    def closed_stuck(self) -> int:
        """Clients closed because they stopped reading."""
        return self.fanout.closed_stuck


class ORJSONResponse(JSONResponse):
    """JSON through orjson, as the feed is."""

    def render(self, content: Any) -> bytes:
        """Encode the body."""
        return orjson.dumps(content)


def _pgn_response(text: str) -> Response:
    """A PGN for relays that poll: never cached, so each poll sees the latest move."""
    return Response(
        text,
        media_type="application/x-chess-pgn; charset=utf-8",
        headers={"Cache-Control": "no-cache, max-age=0", "Access-Control-Allow-Origin": "*"},
    )


def _error(status: int, message: str, **extra: Any) -> Response:
    headers = {"WWW-Authenticate": 'Bearer realm="boardcast"'} if status == 401 else None
    return ORJSONResponse({"error": message, **extra}, status_code=status, headers=headers)


def _invalid(message: str, fields: Any = (), **extra: Any) -> Response:
    """A 400 naming the field it refuses: the first of `fields` its message mentions, else the body."""
    field = next((f for f in fields if isinstance(f, str) and f and f in message), "body")
    return _error(400, message, field=field, **extra)


# What a body may hold, given the body: its allowed field names, or None when the route's own check will refuse
# it anyway (an unknown action or command).
FieldsFor = Callable[[dict[str, Any]], Collection[str] | None]


async def read_object(
    request: Request, fields: FieldsFor, refused: Counter[str]
) -> dict[str, Any] | Response:
    """A request's body as a JSON object with no field but those `fields` allows, or the error to answer.

    The body is read from the ASGI stream no further than MAX_BODY bytes (a Content-Length over it is refused
    before any is read): 413 naming the limit, and the connection is closed rather than drained. An empty
    body is `{}`. Not JSON, not an object, nested deeper than MAX_DEPTH or an unknown field: 400 naming it."""
    try:
        raw = await _bounded_body(request)
    except ClientDisconnect:  # nobody is left to read the answer; nothing is done
        return _error(400, "the client left before its body ended / gövde yarıda kaldı")
    if raw is None:
        refused["body_bytes"] += 1
        return ORJSONResponse(
            {
                "error": f"request bodies are limited to {MAX_BODY} bytes "
                f"/ istek gövdesi en fazla {MAX_BODY} bayt olabilir",
                "limit": "body_bytes",
                "max": MAX_BODY,
            },
            status_code=413,
            headers={"Connection": "close"},
        )
    try:
        body = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError as exc:
        return _invalid(f"the body is not JSON: {exc} / gövde JSON değil")
    if not isinstance(body, dict):
        return _invalid('the body must be a JSON object, {"field": value, …} / gövde bir JSON nesnesi olmalı')
    deep = next((key for key, value in body.items() if _depth(value) > MAX_DEPTH), None)
    if deep is not None:
        return _invalid(f'"{deep}" is nested deeper than {MAX_DEPTH} levels / "{deep}" çok iç içe', (deep,))
    allowed = fields(body)
    unknown = [key for key in body if allowed is not None and key not in allowed]
    if unknown:
        return _invalid(
            f"unknown field {', '.join(map(repr, unknown))}; allowed: {', '.join(sorted(allowed or ())) or 'none'} "
            f"/ bilinmeyen alan",
            unknown,
            unknown=unknown,
        )
    return body


async def _bounded_body(request: Request) -> bytes | None:
    """The body, or None once it is longer than MAX_BODY (by its Content-Length, or as it arrives)."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    return bytes(body)


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in a JSON value (a scalar is 0), without recursion."""
    deepest, level = 0, [(value, 0)]
    while level:
        item, depth = level.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth + 1)
            if deepest > MAX_DEPTH:
                return deepest
            level.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


class QueryInvalid(ValueError):
    """A query parameter out of its range; `name` says which."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


def query_int(request: Request, name: str, default: int, low: int = 1, high: int = MAX_OFFSET) -> int:
    """A whole-number query parameter from `low` to `high`, or `default` when absent; QueryInvalid if not."""
    text = request.query_params.get(name)
    if text is None:
        return default
    try:
        value = int(text) if len(text) <= 24 else None
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise QueryInvalid(
            name,
            f"{name} must be a whole number from {low} to {high}, got {text[:40]!r} "
            f"/ {name} {low} ile {high} arasında bir tam sayı olmalı",
        )
    return value


def _writer_health(writer: WriterProcess | None) -> dict[str, Any]:
    """The event log's writer process: its pid, how often it started (more than once: it was killed)."""
    if writer is None:
        return {}
    return {"writer": {"pid": writer.pid, "starts": writer.starts, "exits": writer.exits[-5:]}}


def create_app(ctx: WebContext, static_dir: Path = WEB_DISPLAY) -> Starlette:
    """The ASGI app for one hub."""

    async def health(request: Request) -> Response:
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
                "gateways": [
                    {"url": g.url, "accepted": g.accepted, "refused": g.refused_total} for g in ctx.gateways
                ],
                "clients": len(ctx.fanout.clients),
                "clients_closed_stuck": ctx.closed_stuck,
                "refused": dict(ctx.refused),
                "open_files": open_files(),
                **({"connections": ctx.connections.health()} if ctx.connections is not None else {}),
                **({"bus": ctx.bus_health()} if ctx.bus_health is not None else {}),
                **({"heap": asdict(ctx.heap)} if ctx.heap is not None else {}),
            }
        )

    async def list_matches(request: Request) -> Response:
        return ORJSONResponse([ctx.hall.spectator_view(m) for m in ctx.hall.public_matches()])

    async def get_match(request: Request) -> Response:
        try:
            return ORJSONResponse(
                ctx.hall.spectator_view(ctx.hall.public_match(request.path_params["match_id"]))
            )
        except UnknownMatch:
            return _error(404, "no such match / böyle bir maç yok")

    async def export(request: Request) -> Response:
        try:
            match = ctx.hall.public_match(request.path_params["match_id"])
        except UnknownMatch:
            return _error(404, "no such match / böyle bir maç yok")
        exports = match.info.rules.exports
        name = request.path_params["name"]
        if name not in exports:
            return _error(404, f"no export {name!r} for {match.info.sport}; known: {', '.join(exports)}")
        data = exports[name](match.sport_state, match.info.players)
        if isinstance(data, str):
            return Response(data + "\n", media_type="text/plain; charset=utf-8")
        return ORJSONResponse({"official": match.official, "status": match.status.value, name: data})

    async def list_devices(request: Request) -> Response:
        referee = ctx.auth.referee_for(request.headers.get("authorization"))
        return ORJSONResponse(
            {
                **ctx.ingest.board.snapshot(private=referee is not None),
                "gateways": [
                    {"url": g.url, "accepted": g.accepted, "refused": g.refused_total} for g in ctx.gateways
                ],
            }
        )

    async def confirm(request: Request) -> Response:
        referee = ctx.auth.referee_for(request.headers.get("authorization"))
        if referee is None:
            return _error(401, "a valid referee token is required / geçerli bir hakem anahtarı gerekli")
        match_id = request.path_params["match_id"]
        if match_id not in ctx.hall.working:
            return _error(404, "no such match / böyle bir maç yok")
        body = await read_object(request, lambda body: (), ctx.refused)  # nothing to say: {} or no body
        if isinstance(body, Response):
            return body
        try:
            check_confirm(ctx.hall.working[match_id])
        except ActionRefused as exc:
            return _error(409, str(exc))
        await ctx.hall.record(match_id, EventKind.REFEREE_CONFIRM, {}, time.time(), actor=referee.name)
        return ORJSONResponse(public_view(ctx.hall.match(match_id)))

    async def command(request: Request) -> Response:
        referee = ctx.auth.referee_for(request.headers.get("authorization"))
        if referee is None:
            return _error(401, "a valid referee token is required / geçerli bir hakem anahtarı gerekli")
        table_id = request.path_params["table_id"]
        session = ctx.sessions.get(table_id)
        if session is None:
            if all(t.id != table_id for t in ctx.hall.venue.tables):
                return _error(404, "no such table / böyle bir masa yok")
            return _error(404, "no device on that table / bu masada cihaz yok")
        body = await read_object(request, command_fields, ctx.refused)
        if isinstance(body, Response):
            return body
        try:
            wanted = Command.checked(body)  # a device gets only checked values, within its frame
        except CommandInvalid as exc:
            return _invalid(str(exc), (exc.field,), **({} if exc.limit is None else {"max": exc.limit}))
        try:
            ack = await session.command(wanted)
        except CommandFailed as exc:
            status = 409 if "no device connected" in str(exc) else 504
            return _error(status, str(exc))
        log.info(
            "referee %s sent %s to table %s: ok=%s",
            referee.name,
            wanted.cmd,
            request.path_params["table_id"],
            ack.ok,
        )
        return ORJSONResponse({"ok": ack.ok, "error": ack.error, "attempts": ack.attempts, "seq": ack.seq})

    async def referee_input(request: Request) -> Response:
        referee = ctx.auth.referee_for(request.headers.get("authorization"))
        if referee is None:
            return _error(401, "a valid referee token is required / geçerli bir hakem anahtarı gerekli")
        match_id = request.path_params["match_id"]
        match = ctx.hall.working.get(match_id)
        if match is None:
            return _error(404, "no such match / böyle bir maç yok")
        body = await read_object(request, lambda body: input_fields(match, body), ctx.refused)
        if isinstance(body, Response):
            return body
        try:  # what the rules read, rebuilt: the log never holds the request as sent
            event = check_input(match, body)
        except ActionInvalid as exc:
            return _invalid(str(exc), ("type", *body))
        try:
            check_unlocked(ctx.hall.working[match_id])  # an input changes the score: not once locked
        except ActionRefused as exc:
            return _error(409, str(exc))
        await ctx.hall.record(match_id, event.kind, event.body, time.time(), actor=referee.name)
        return ORJSONResponse(public_view(ctx.hall.match(match_id)))

    # -- the referee console's API: every route needs a referee token; nothing here is public --------------

    async def referee_me(request: Request) -> Response:
        referee = ctx.auth.referee_for(request.headers.get("authorization"))
        if referee is None:
            return _error(401, "a valid referee token is required / geçerli bir hakem anahtarı gerekli")
        return ORJSONResponse({"name": referee.name, "role": referee.role, "venue": ctx.hall.venue.name})

    async def referee_matches(request: Request) -> Response:
        if ctx.auth.referee_for(request.headers.get("authorization")) is None:
            return _error(401, "a valid referee token is required / geçerli bir hakem anahtarı gerekli")
        return ORJSONResponse([ctx.hall.console_view(m) for m in ctx.hall.matches()])

    async def referee_audit(request: Request) -> Response:
        if ctx.auth.referee_for(request.headers.get("authorization")) is None:
            return _error(401, "a valid referee token is required / geçerli bir hakem anahtarı gerekli")
        return ORJSONResponse(ctx.hall.audit())

    async def referee_evidence(request: Request) -> Response:
        """The logged events of a match between two offsets: the reports an anomaly stands on, raw bytes too."""
        if ctx.auth.referee_for(request.headers.get("authorization")) is None:
            return _error(401, "a valid referee token is required / geçerli bir hakem anahtarı gerekli")
        match_id = request.path_params["match_id"]
        if match_id not in ctx.hall.committed:
            return _error(404, "no such match / böyle bir maç yok")
        try:
            last = query_int(request, "to", ctx.hall.committed[match_id].version)
            first = query_int(request, "from", max(1, last - 4))
        except QueryInvalid as exc:
            return _invalid(str(exc), (exc.name,))
        if not 1 <= first <= last or last - first >= MAX_EVIDENCE:
            return _invalid(
                f"give 1 <= from <= to, at most {MAX_EVIDENCE} events / geçersiz aralık", ("from",)
            )
        events = []
        for record in ctx.hall.log.match_events(match_id, first - 1):
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

    async def referee_action(request: Request) -> Response:
        referee = ctx.auth.referee_for(request.headers.get("authorization"))
        if referee is None:
            return _error(401, "a valid referee token is required / geçerli bir hakem anahtarı gerekli")
        match_id = request.path_params["match_id"]
        if match_id not in ctx.hall.working:
            return _error(404, "no such match / böyle bir maç yok")
        wanted = await read_object(request, action_fields, ctx.refused)
        if isinstance(wanted, Response):
            return wanted
        at = time.time()
        try:  # checked against the working state and recorded with no await between: nothing slips in
            event = prepare(ctx.hall.working[match_id], wanted, role=referee.role, at=at)
        except ActionInvalid as exc:
            return _invalid(str(exc), ("action", *wanted))
        except ActionForbidden as exc:
            return _error(403, str(exc))
        except ActionRefused as exc:
            return _error(409, str(exc))
        stored = ctx.hall.record(match_id, event.kind, event.body, at, actor=referee.name)
        await stored
        log.info("referee %s: %s on %s", referee.name, event.kind.value, match_id)
        return ORJSONResponse(ctx.hall.console_view(ctx.hall.match(match_id)))

    async def console_page(request: Request) -> Response:
        return FileResponse(static_dir / "console.html")

    async def index(request: Request) -> Response:
        return FileResponse(static_dir / "index.html")

    async def match_page(request: Request) -> Response:
        if request.path_params["match_id"] not in ctx.hall.infos:  # a spectator edge has no committed state
            return _error(404, "no such match / böyle bir maç yok")
        return FileResponse(static_dir / "match.html")

    async def game_pgn(request: Request) -> Response:
        try:
            match = ctx.hall.public_match(request.path_params["match_id"])
        except UnknownMatch:
            return _error(404, "no such match / böyle bir maç yok")
        if match.info.sport != "chess":
            return _error(404, "PGN is for chess games only / PGN yalnızca satranç oyunları için")
        return _pgn_response(chess_feed.game_pgn(match, ctx.hall.venue))

    async def round_pgn(request: Request) -> Response:
        number = request.path_params["round"]
        if not any(m.sport == "chess" and m.round == number for m in ctx.hall.infos.values()):
            return _error(404, f"no chess games in round {number} / bu turda satranç oyunu yok")
        return _pgn_response(chess_feed.round_pgn(ctx.hall.public_matches(), ctx.hall.venue, number))

    async def list_team_matches(request: Request) -> Response:
        return ORJSONResponse([ctx.hall.team_view(t) for t in ctx.hall.team_matches])

    async def get_team_match(request: Request) -> Response:
        team_id = request.path_params["team_id"]
        if team_id not in ctx.hall.team_matches:
            return _error(404, "no such team match / böyle bir takım maçı yok")
        return ORJSONResponse(ctx.hall.team_view(team_id))

    async def team_page(request: Request) -> Response:
        if request.path_params["team_id"] not in ctx.hall.team_matches:
            return _error(404, "no such team match / böyle bir takım maçı yok")
        return FileResponse(static_dir / "team.html")

    ctx.fanout.stuck_after_s = ctx.stuck_after_s

    async def feed(websocket: WebSocket) -> None:
        await websocket.accept()
        link = websocket.scope.get("extensions", {}).get(LINK)
        sub = ctx.fanout.connect(link)  # with the hub's own protocol the fan-out writes to the socket itself
        try:
            if link is not None:  # one coroutine per client, reading its requests: nothing else to own
                link.forget_handshake()
                with contextlib.suppress(WebSocketDisconnect, _ClientGone):
                    await _read_requests(websocket, ctx.fanout, sub, ctx.auth, ctx)
                return
            try:  # any other ASGI server: a writer task per client as well, from what it is owed
                async with asyncio.TaskGroup() as tg:
                    tg.create_task(_read_requests(websocket, ctx.fanout, sub, ctx.auth, ctx))
                    tg.create_task(_write_changes(websocket, sub, ctx))
            except* (WebSocketDisconnect, _ClientGone):
                pass
        finally:
            ctx.fanout.disconnect(sub)

    routes = [
        Route("/", index),
        Route("/match/{match_id}", match_page),
        Route("/api/health", health),
        Route("/api/matches", list_matches),
        Route("/api/matches/{match_id}", get_match),
        Route("/api/matches/{match_id}/confirm", confirm, methods=["POST"]),
        Route("/api/matches/{match_id}/inputs", referee_input, methods=["POST"]),
        Route("/api/matches/{match_id}/actions", referee_action, methods=["POST"]),
        Route("/console", console_page),
        Route("/api/referee/me", referee_me),
        Route("/api/referee/matches", referee_matches),
        Route("/api/referee/audit", referee_audit),
        Route("/api/referee/matches/{match_id}/events", referee_evidence),
        Route("/api/matches/{match_id}/export/{name}", export),
        Route("/api/devices", list_devices),
        Route("/api/team-matches", list_team_matches),
        Route("/api/team-matches/{team_id}", get_team_match),
        Route("/team/{team_id}", team_page),
        Route("/pgn/round-{round:int}.pgn", round_pgn),
        Route("/pgn/{match_id}.pgn", game_pgn),
        Route("/api/tables/{table_id}/command", command, methods=["POST"]),
        WebSocketRoute("/ws", feed),
        Mount("/static", StaticFiles(directory=static_dir), name="static"),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(Guard, limits=ctx.limits, refused=ctx.refused, access=ctx.access)],
        exception_handlers={HTTPException: _http_error},  # 404 and 405 from routing: JSON like every error
    )


async def _http_error(request: Request, exc: Exception) -> Response:
    """Routing's own errors (no such page, method not allowed) as JSON with the reason."""
    assert isinstance(exc, HTTPException)
    allowed = (exc.headers or {}).get("Allow")
    message = f"{exc.detail} ({request.method} {request.url.path})" + (
        f"; allowed: {allowed}" if allowed else ""
    )
    return ORJSONResponse({"error": message}, status_code=exc.status_code, headers=exc.headers)


class _ClientGone(Exception):
    """The client closed, or was closed for breaking a limit."""


async def _read_requests(
    websocket: WebSocket, fanout: Fanout, sub: Subscriber, auth: Authenticator, ctx: WebContext | None = None
) -> None:
    """Handle subscribe/unsubscribe requests; a bad request gets an error message, not silence."""
    limits = ctx.limits if ctx is not None else WebLimits()
    messages = RateLimiter(limits.messages_per_s, limits.message_burst)  # this client's requests
    loop = asyncio.get_running_loop()
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            raise _ClientGone
        text = message.get("text")
        if text is None and message.get("bytes") is not None:
            text = message["bytes"].decode("utf-8", "replace")
        if text is None:
            continue
        if messages.take("", loop.time()) > 0:  # a subscribe/unsubscribe flood: costs the hub, helps no one
            if ctx is not None:
                ctx.refused["messages_per_s"] += 1
            await websocket.close(
                CLOSE_POLICY, f"more than {limits.messages_per_s:g} requests a second / çok fazla istek"
            )
            raise _ClientGone
        if len(text) > MAX_CLIENT_MESSAGE:
            await websocket.close(CLOSE_TOO_BIG, f"messages are limited to {MAX_CLIENT_MESSAGE} bytes")
            raise _ClientGone
        for reply in handle_request(fanout, sub, text, auth):
            await websocket.send_text(reply)


def handle_request(
    fanout: Fanout, sub: Subscriber, text: str, auth: Authenticator | None = None
) -> list[str]:
    """Apply one client request; return the error replies to send, if any."""
    try:
        request = orjson.loads(text)
    except orjson.JSONDecodeError:
        return [_client_error('not JSON; send {"subscribe": ["venue"]} / JSON değil')]
    if not isinstance(request, dict):
        return [_client_error('expected an object such as {"subscribe": ["venue"]} / nesne bekleniyordu')]
    errors: list[str] = []
    resume = request.get("resume") or {}
    if not isinstance(resume, dict):
        errors.append(_client_error("resume must map topics to versions / resume konu→sürüm olmalı"))
        resume = {}
    for topic in _topics(request, "unsubscribe", errors):
        fanout.unsubscribe(sub, topic)
    batch = request.get("batch")
    if batch is not None:
        if batch is False or batch is True:
            fanout.set_batch(sub, batch)
        elif isinstance(batch, int | float) and 0.05 <= batch <= 5:
            fanout.set_batch(sub, True, float(batch))
        else:
            errors.append(
                _client_error("batch must be true, false or seconds between 0.05 and 5 / geçersiz batch")
            )
    token = request.get("token")
    if isinstance(token, str) and auth is not None:
        referee = auth.referee_for(f"Bearer {token}")
        if referee is None:
            errors.append(_client_error("the referee token is not valid / hakem anahtarı geçersiz"))
        sub.referee = referee.name if referee else sub.referee
    for topic in _topics(request, "subscribe", errors):
        if topic in REFEREE_TOPICS and sub.referee is None:
            errors.append(
                _client_error(
                    'this topic needs a referee token: {"subscribe": ["referee"], "token": "…"} '
                    "/ bu konu hakem anahtarı ister",
                    topic,
                )
            )
            continue
        version = resume.get(topic)
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
            errors.append(_client_error(f"resume version for {topic} must be an integer", topic))
            version = None
        try:
            fanout.subscribe(sub, topic, version)
        except SubscriptionRefused as exc:
            errors.append(_client_error(str(exc), topic))
    if not {"subscribe", "unsubscribe", "batch", "token"} & request.keys():
        errors.append(_client_error('nothing to do: use "subscribe" or "unsubscribe" / istek boş'))
    return errors


def _topics(request: dict[str, Any], key: str, errors: list[str]) -> list[str]:
    value = request.get(key, [])
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        errors.append(_client_error(f"{key} must be a list of topic names / konu adları listesi olmalı"))
        return []
    return value


def _client_error(message: str, topic: str | None = None) -> str:
    return orjson.dumps({"error": message, "topic": topic} if topic else {"error": message}).decode()


async def _write_changes(websocket: WebSocket, sub: Subscriber, ctx: WebContext) -> None:
    """Send queued changes to a client with no direct link; a socket blocked past the limit is closed.

    Only under an ASGI server other than the hub's (see `hub.wsfeed`). A client that asked for batches gets
    at most one message per tick: a JSON array of every change queued in that tick, each the latest of its
    topic and key."""
    loop = asyncio.get_running_loop()
    next_send = 0.0
    while True:
        frames = await sub.take()
        if sub.batch:
            wait = next_send - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                frames += sub.take_now()
            next_send = loop.time() + (sub.batch_s or BATCH_S)
            frames = ["[" + ",".join(frames) + "]"]
        try:
            async with asyncio.timeout(ctx.stuck_after_s):
                for n, text in enumerate(frames, start=1):
                    await websocket.send_text(text)
                    sub.sent += 1
                    if n % YIELD_EVERY == 0:  # a writable socket never blocks: let devices and commits run
                        await asyncio.sleep(0)
        except TimeoutError:
            if websocket.application_state is WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(1.0):  # the close frame may not fit either
                        await websocket.close(CLOSE_STUCK, "client too slow / istemci çok yavaş")
            ctx.fanout.closed_stuck += 1
            raise _ClientGone from None
        except (RuntimeError, OSError) as exc:  # the socket closed under us
            raise _ClientGone from exc
