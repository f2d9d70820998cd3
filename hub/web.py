"""The web edge: REST reads, the referee confirm endpoint, the `/ws` feed and the static pages.

Thin on purpose: every request reads the hall's committed state or turns into a hall event; nothing here
decides a rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from devices.session import CommandFailed, DeviceSession
from devices.transports.tcp import TcpGateway
from devices.wire.messages import BodyError, Command, CommandName
from hub import __version__
from hub.auth import Authenticator
from hub.fanout import Fanout, Subscriber, SubscriptionRefused
from hub.hall import Hall, UnknownMatch
from hub.ingest import Ingest
from hub.matches import ActionRefused, EventKind, check_confirm, public_view

log = logging.getLogger(__name__)

WEB_DISPLAY = Path(__file__).resolve().parent.parent / "web-display"
MAX_CLIENT_MESSAGE = 4096
STUCK_AFTER_S = 10.0
CLOSE_TOO_BIG = 1009
YIELD_EVERY = 32
BATCH_S = 0.2  # a tick for clients that ask for batches: at most 5 messages a second
REFEREE_TOPICS = frozenset({"referee"})  # topics that carry what only referees may see
CLOSE_STUCK = 1013  # "try again later": the client could not keep up


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
    closed_stuck: int = 0


class ORJSONResponse(JSONResponse):
    """JSON through orjson, as the feed is."""

    def render(self, content: Any) -> bytes:
        """Encode the body."""
        return orjson.dumps(content)


def _error(status: int, message: str, **extra: Any) -> Response:
    headers = {"WWW-Authenticate": 'Bearer realm="boardcast"'} if status == 401 else None
    return ORJSONResponse({"error": message, **extra}, status_code=status, headers=headers)


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
                },
                "devices": {
                    "total": len(ctx.ingest.health),
                    "connected": sum(1 for d in devices if d.link == "connected"),
                },
                "gateways": [
                    {"url": g.url, "accepted": g.accepted, "refused": len(g.refused)} for g in ctx.gateways
                ],
                "clients": len(ctx.fanout.clients),
                "clients_closed_stuck": ctx.closed_stuck,
            }
        )

    async def list_matches(request: Request) -> Response:
        return ORJSONResponse([public_view(m) for m in ctx.hall.matches()])

    async def get_match(request: Request) -> Response:
        try:
            return ORJSONResponse(public_view(ctx.hall.match(request.path_params["match_id"])))
        except UnknownMatch:
            return _error(404, "no such match / böyle bir maç yok")

    async def export(request: Request) -> Response:
        try:
            match = ctx.hall.match(request.path_params["match_id"])
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
        return ORJSONResponse(
            {
                **ctx.ingest.board.snapshot(),
                "gateways": [
                    {"url": g.url, "accepted": g.accepted, "refused": len(g.refused)} for g in ctx.gateways
                ],
            }
        )

    async def confirm(request: Request) -> Response:
        referee = ctx.auth.referee_for(request.headers.get("authorization"))
        if referee is None:
            return _error(401, "a valid referee token is required / geçerli bir hakem anahtarı gerekli")
        match_id = request.path_params["match_id"]
        try:
            check_confirm(ctx.hall.working[match_id])
        except KeyError:
            return _error(404, "no such match / böyle bir maç yok")
        except ActionRefused as exc:
            return _error(409, str(exc))
        await ctx.hall.record(match_id, EventKind.REFEREE_CONFIRM, {}, time.time(), actor=referee.name)
        return ORJSONResponse(public_view(ctx.hall.match(match_id)))

    async def command(request: Request) -> Response:
        referee = ctx.auth.referee_for(request.headers.get("authorization"))
        if referee is None:
            return _error(401, "a valid referee token is required / geçerli bir hakem anahtarı gerekli")
        session = ctx.sessions.get(request.path_params["table_id"])
        if session is None:
            return _error(404, "no device on that table / bu masada cihaz yok")
        try:
            body = orjson.loads(await request.body())
            wanted = Command.from_body(body)
        except (orjson.JSONDecodeError, BodyError) as exc:
            return _error(400, f"{exc} / geçersiz komut")
        if wanted.cmd not in {c.value for c in CommandName}:
            return _error(
                400, f"unknown command {wanted.cmd!r}; known: {', '.join(c.value for c in CommandName)}"
            )
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
        try:
            body = orjson.loads(await request.body())
            allowed = match.info.rules.referee_inputs
            if not isinstance(body, dict) or body.get("type") not in allowed:
                raise ValueError(
                    f'"type" must be one of {", ".join(allowed) or "nothing yet for this sport"}'
                )
            match.info.rules.report_from_dict(
                body
            )  # refuse what the rules could not read, before it is logged
        except (orjson.JSONDecodeError, ValueError, KeyError, TypeError) as exc:
            return _error(400, f"{exc} / geçersiz hakem girdisi")
        await ctx.hall.record(
            match_id, EventKind.REFEREE_INPUT, {"input": body}, time.time(), actor=referee.name
        )
        return ORJSONResponse(public_view(ctx.hall.match(match_id)))

    async def index(request: Request) -> Response:
        return FileResponse(static_dir / "index.html")

    async def match_page(request: Request) -> Response:
        if request.path_params["match_id"] not in ctx.hall.committed:
            return _error(404, "no such match / böyle bir maç yok")
        return FileResponse(static_dir / "match.html")

    async def feed(websocket: WebSocket) -> None:
        await websocket.accept()
        sub = ctx.fanout.connect()
        try:
            async with asyncio.TaskGroup() as tg:
                tg.create_task(_read_requests(websocket, ctx.fanout, sub, ctx.auth))
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
        Route("/api/matches/{match_id}/export/{name}", export),
        Route("/api/devices", list_devices),
        Route("/api/tables/{table_id}/command", command, methods=["POST"]),
        WebSocketRoute("/ws", feed),
        Mount("/static", StaticFiles(directory=static_dir), name="static"),
    ]
    return Starlette(routes=routes)


class _ClientGone(Exception):
    """The client closed, or was closed for breaking a limit."""


async def _read_requests(websocket: WebSocket, fanout: Fanout, sub: Subscriber, auth: Authenticator) -> None:
    """Handle subscribe/unsubscribe requests; a bad request gets an error message, not silence."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            raise _ClientGone
        text = message.get("text")
        if text is None and message.get("bytes") is not None:
            text = message["bytes"].decode("utf-8", "replace")
        if text is None:
            continue
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
        if batch is False:
            sub.batch_s = None
        elif batch is True or (
            isinstance(batch, int | float) and not isinstance(batch, bool) and 0.05 <= batch <= 5
        ):
            sub.batch_s = BATCH_S if batch is True else float(batch)
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
    """Send queued changes; a socket blocked past the limit is closed so it holds nothing up.

    A client that asked for batches gets at most one message per tick: a JSON array of every change queued
    in that tick, each the latest of its topic and key. The cost of a WebSocket frame is per frame, not per
    byte, so this is what lets thousands of phones watch hundreds of tables."""
    loop = asyncio.get_running_loop()
    next_send = 0.0
    while True:
        frames = await sub.take()
        if sub.batch_s is not None:
            wait = next_send - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                frames += sub.take_now()
            next_send = loop.time() + sub.batch_s
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
            ctx.closed_stuck += 1
            raise _ClientGone from None
        except (RuntimeError, OSError) as exc:  # the socket closed under us
            raise _ClientGone from exc
