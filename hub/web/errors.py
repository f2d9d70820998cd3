"""The web layer's errors: typed answers, each mapped to its HTTP status by its type, and JSON error bodies.

A route raises an `ApiError` (or lets a domain error through: a refused referee action, an unknown match,
a device command that failed); `EXCEPTION_HANDLERS` turns each into the JSON answer `{"error": …, …}` with
the status its type stands for. No status is chosen by reading an error's text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, ClassVar

import orjson
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from devices.command import CommandFailed, NotConnected
from devices.family import CommandInvalid
from hub.hall.spectators import UnknownMatch
from hub.matches import ActionRefused
from hub.referee import ActionForbidden

NO_MATCH = "no such match / böyle bir maç yok"
NO_TEAM_MATCH = "no such team match / böyle bir takım maçı yok"
REFEREE_REQUIRED = "a valid referee token is required / geçerli bir hakem anahtarı gerekli"


class ORJSONResponse(JSONResponse):
    """JSON through orjson, as the feed is."""

    def render(self, content: Any) -> bytes:
        """Encode the body."""
        return orjson.dumps(content)


class ApiError(Exception):
    """An answer that is not a success: its type says the HTTP status, `extra` the body's other fields."""

    status: ClassVar[int] = 500

    def __init__(self, message: str, *, headers: Mapping[str, str] | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.headers = dict(headers) if headers else None
        self.extra = extra

    def response(self) -> Response:
        """The JSON answer: `{"error": message, **extra}` with this type's status."""
        body = {"error": self.message, **self.extra}
        return ORJSONResponse(body, status_code=self.status, headers=self.headers)


class Invalid(ApiError):
    """400: a request the route refuses; `field` names the first of `fields` its message mentions, else body."""

    status = 400

    def __init__(self, message: str, fields: Iterable[Any] = (), **extra: Any) -> None:
        field = next((f for f in fields if isinstance(f, str) and f and f in message), "body")
        super().__init__(message, field=field, **extra)


class Unauthorized(ApiError):
    """401: no valid referee token; the answer says how to authenticate."""

    status = 401

    def __init__(self, message: str = REFEREE_REQUIRED) -> None:
        super().__init__(message, headers={"WWW-Authenticate": 'Bearer realm="boardcast"'})


class Forbidden(ApiError):
    """403: the referee's role does not allow the action."""

    status = 403


class NotFound(ApiError):
    """404: no such match, team match, table, device or export."""

    status = 404


class Conflict(ApiError):
    """409: the state does not allow it now (a locked match, a table with no device connected)."""

    status = 409


class TooLarge(ApiError):
    """413: a body over its limit; the connection is closed rather than drained."""

    status = 413


class NoAnswer(ApiError):
    """504: the device never acknowledged the command."""

    status = 504


def command_invalid(exc: CommandInvalid) -> ApiError:
    """A command whose values a device must not get: 400 naming the field, and the bound it broke."""
    return Invalid(str(exc), (exc.field,), **({} if exc.limit is None else {"max": exc.limit}))


# Domain errors a route lets through, by type: what each answers.
DOMAIN_ERRORS: dict[type[Exception], Callable[[Any], ApiError]] = {
    ActionForbidden: lambda exc: Forbidden(str(exc)),
    ActionRefused: lambda exc: Conflict(str(exc)),
    UnknownMatch: lambda exc: NotFound(NO_MATCH),
    NotConnected: lambda exc: Conflict(str(exc)),  # before CommandFailed: the first type that fits answers
    CommandFailed: lambda exc: NoAnswer(str(exc)),
    CommandInvalid: command_invalid,
}


async def api_error(request: Request, exc: Exception) -> Response:
    """The answer for an ApiError, or for a domain error by its type (DOMAIN_ERRORS)."""
    if not isinstance(exc, ApiError):
        convert = next(convert for kind, convert in DOMAIN_ERRORS.items() if isinstance(exc, kind))
        exc = convert(exc)
    return exc.response()


async def http_error(request: Request, exc: Exception) -> Response:
    """Routing's own errors (no such page, method not allowed) as JSON with the reason."""
    assert isinstance(exc, HTTPException)
    allowed = (exc.headers or {}).get("Allow")
    message = f"{exc.detail} ({request.method} {request.url.path})" + (
        f"; allowed: {allowed}" if allowed else ""
    )
    return ORJSONResponse({"error": message}, status_code=exc.status_code, headers=exc.headers)


ExceptionHandler = Callable[[Request, Exception], Awaitable[Response]]
EXCEPTION_HANDLERS: dict[Any, ExceptionHandler] = {
    HTTPException: http_error,  # 404 and 405 from routing: JSON like every error
    ApiError: api_error,
    **dict.fromkeys(DOMAIN_ERRORS, api_error),
}
