"""What a request may carry: bounded JSON bodies with known fields only, and ranged query numbers.

Every route that takes a body reads it through `read_object`; every whole-number query goes through
`query_int`. A refusal is an `Invalid` (400 naming the field) or a `TooLarge` (413 naming the limit).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection
from typing import Any

import orjson
from starlette.requests import ClientDisconnect, Request

from hub.web.errors import Invalid, TooLarge

MAX_BODY = 8 * 1024  # bytes of a request body: two referee texts of 1,000 characters, a device's text, fit
MAX_DEPTH = 3  # lists and objects nested in a body field's value: "score": [3, 1] is 1
MAX_OFFSET = 2**62  # a log offset in a query: SQLite's integers are 64-bit

# What a body may hold, given the body: its allowed field names, or None when the route's own check will refuse
# it anyway (an unknown action or command).
FieldsFor = Callable[[dict[str, Any]], Collection[str] | None]


def no_fields(body: dict[str, Any]) -> Collection[str]:
    """A body with nothing to say: `{}` or no body at all."""
    return ()


async def read_object(request: Request, fields: FieldsFor, refused: Counter[str]) -> dict[str, Any]:
    """A request's body as a JSON object with no field but those `fields` allows; raise the error to answer.

    The body is read from the ASGI stream no further than MAX_BODY bytes (a Content-Length over it is refused
    before any is read): 413 naming the limit, and the connection is closed rather than drained. An empty
    body is `{}`. Not JSON, not an object, nested deeper than MAX_DEPTH or an unknown field: 400 naming it."""
    raw = await read_body(request, refused)
    try:
        body = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError as exc:
        raise Invalid(f"the body is not JSON: {exc} / gövde JSON değil") from None
    if not isinstance(body, dict):
        raise Invalid('the body must be a JSON object, {"field": value, …} / gövde bir JSON nesnesi olmalı')
    deep = next((key for key, value in body.items() if _depth(value) > MAX_DEPTH), None)
    if deep is not None:
        raise Invalid(f'"{deep}" is nested deeper than {MAX_DEPTH} levels / "{deep}" çok iç içe', (deep,))
    allowed = fields(body)
    unknown = [key for key in body if allowed is not None and key not in allowed]
    if unknown:
        raise Invalid(
            f"unknown field {', '.join(map(repr, unknown))}; allowed: {', '.join(sorted(allowed or ())) or 'none'} "
            f"/ bilinmeyen alan",
            unknown,
            unknown=unknown,
        )
    return body


async def read_body(request: Request, refused: Counter[str]) -> bytes:
    """A request's body as bytes, read no further than MAX_BODY bytes (413 naming the limit, the connection
    closed rather than drained); 400 if the client left before it ended."""
    try:
        raw = await _bounded_body(request)
    except ClientDisconnect:  # nobody is left to read the answer; nothing is done
        raise Invalid("the client left before its body ended / gövde yarıda kaldı") from None
    if raw is None:
        refused["body_bytes"] += 1
        raise TooLarge(
            f"request bodies are limited to {MAX_BODY} bytes / istek gövdesi en fazla {MAX_BODY} bayt olabilir",
            headers={"Connection": "close"},
            limit="body_bytes",
            max=MAX_BODY,
        )
    return raw


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


class QueryInvalid(Invalid):
    """A query parameter out of its range (400); `name` says which."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message, (name,))
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
