"""The spectators' `/ws` feed: one socket per client, its subscribe/unsubscribe requests and what it is owed.

Under the hub's own WebSocket protocol (`hub.feed.protocol`) the fan-out writes to each socket itself and this
module only reads requests; under any other ASGI server a writer task per client sends what is queued.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated

import msgspec
import orjson
from msgspec import UNSET, UnsetType
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from devices.strict import complaint
from hub.feed.fanout import CLOSE_STUCK, Fanout, Subscriber, SubscriptionRefused
from hub.feed.protocol import LINK
from hub.referee.tokens import Authenticator
from hub.server.limits import CLOSE_POLICY, RateLimiter, WebLimits
from hub.web.context import PublicContext

MAX_CLIENT_MESSAGE = 4096
CLOSE_TOO_BIG = 1009
YIELD_EVERY = 32
BATCH_S = 0.2  # a tick for clients that ask for batches: at most 5 messages a second
REFEREE_TOPICS = frozenset({"referee"})  # topics that carry what only referees may see


def feed_route(ctx: PublicContext) -> WebSocketRoute:
    """The `/ws` route: every client of the hall's fan-out, until it leaves or is closed."""
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

    return WebSocketRoute("/ws", feed)


class _ClientGone(Exception):
    """The client closed, or was closed for breaking a limit."""


async def _read_requests(
    websocket: WebSocket,
    fanout: Fanout,
    sub: Subscriber,
    auth: Authenticator,
    ctx: PublicContext | None = None,
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


class FeedRequest(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A client's request: topics to leave and to join (resuming after the versions it holds), batching, and
    a referee token for the referee topic. A key it does not name is refused."""

    subscribe: list[str] | UnsetType = UNSET
    unsubscribe: list[str] | UnsetType = UNSET
    resume: dict[str, int] | None = None
    batch: bool | Annotated[float, msgspec.Meta(ge=0.05, le=5)] | UnsetType | None = UNSET
    token: str | UnsetType | None = UNSET


_FEED_REQUEST = msgspec.json.Decoder(FeedRequest)
_REQUEST_KEYS = ", ".join(FeedRequest.__struct_fields__)
_FIELD_HELP = {  # what each field must be, said when msgspec refuses it
    "subscribe": "subscribe must be a list of topic names / konu adları listesi olmalı",
    "unsubscribe": "unsubscribe must be a list of topic names / konu adları listesi olmalı",
    "resume": "resume must map topics to versions, whole numbers / resume konu→sürüm (tam sayı) olmalı",
    "batch": "batch must be true, false or seconds between 0.05 and 5 / geçersiz batch",
    "token": "token must be text / token metin olmalı",
}


def handle_request(
    fanout: Fanout, sub: Subscriber, text: str, auth: Authenticator | None = None
) -> list[str]:
    """Apply one client request; return the error replies to send, if any."""
    try:
        request = _FEED_REQUEST.decode(text)
    except msgspec.ValidationError as exc:
        return [_client_error(_refusal(exc))]
    except msgspec.DecodeError:
        return [_client_error('not JSON; send {"subscribe": ["venue"]} / JSON değil')]
    errors: list[str] = []
    resume = request.resume or {}
    for topic in request.unsubscribe or ():
        fanout.unsubscribe(sub, topic)
    if request.batch is not None and request.batch is not UNSET:
        if isinstance(request.batch, bool):
            fanout.set_batch(sub, request.batch)
        else:
            fanout.set_batch(sub, True, request.batch)
    if isinstance(request.token, str) and auth is not None:
        referee = auth.referee_with(request.token)
        if referee is None:
            errors.append(_client_error("the referee token is not valid / hakem anahtarı geçersiz"))
        sub.referee = referee.name if referee else sub.referee
    for topic in request.subscribe or ():
        _subscribe(fanout, sub, topic, resume.get(topic), errors)
    if all(getattr(request, key) is UNSET for key in ("subscribe", "unsubscribe", "batch", "token")):
        errors.append(_client_error('nothing to do: use "subscribe" or "unsubscribe" / istek boş'))
    return errors


def _refusal(exc: msgspec.ValidationError) -> str:
    """msgspec's complaint about a request as what the field it names must be."""
    said = complaint(exc)
    if said.unknown:
        return f"unknown field {said.field!r}; a request has {_REQUEST_KEYS} / bilinmeyen alan"
    if said.field is None:
        return 'expected an object such as {"subscribe": ["venue"]} / nesne bekleniyordu'
    return _FIELD_HELP[said.field]


def _subscribe(fanout: Fanout, sub: Subscriber, topic: str, version: int | None, errors: list[str]) -> None:
    """Subscribe to one topic, resuming after `version` when given; a refusal is added to `errors`."""
    if topic in REFEREE_TOPICS and sub.referee is None:
        errors.append(
            _client_error(
                'this topic needs a referee token: {"subscribe": ["referee"], "token": "…"} '
                "/ bu konu hakem anahtarı ister",
                topic,
            )
        )
        return
    try:
        fanout.subscribe(sub, topic, version)
    except SubscriptionRefused as exc:
        errors.append(_client_error(str(exc), topic))


def _client_error(message: str, topic: str | None = None) -> str:
    return orjson.dumps({"error": message, "topic": topic} if topic else {"error": message}).decode()


async def _write_changes(websocket: WebSocket, sub: Subscriber, ctx: PublicContext) -> None:
    """Send queued changes to a client with no direct link; a socket blocked past the limit is closed.

    Only under an ASGI server other than the hub's (see `hub.feed.protocol`). A client that asked for batches gets
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
