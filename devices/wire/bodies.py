"""Strict reading of Boardcast Wire message bodies: msgspec field types and refusals worded as `BodyError`.

A body is converted into a msgspec `Struct` in one C call (`read_body`); a refusal names the field the way
`musts` words it: ``state.points must be two non-negative integers, got [1]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import Meta

from devices.strict import complaint, path_of, value_at


class BodyError(ValueError):
    """A frame whose body does not match its message type; the message names the field."""


MAX_CLOCK_MS = 0xFFFFFFFF  # a u32 of milliseconds, about 49.7 days

Natural = Annotated[int, Meta(ge=0)]
Pair = tuple[Natural, Natural]  # two non-negative integers, one per side
Side = Literal[0, 1]
ClockMs = Annotated[int, Meta(ge=0, le=MAX_CLOCK_MS)]
ClockTimes = tuple[ClockMs, ClockMs]  # both sides' remaining times in milliseconds
NonEmpty = Annotated[str, Meta(min_length=1)]

PAIR = "two non-negative integers"
CLOCK_TIMES = f"two times in milliseconds, 0..{MAX_CLOCK_MS}"

_T = TypeVar("_T")
_KEY_AT = "`key` in `"
_MAPS_DEEP = 8  # a body's maps read with their string keys only, at most this many


def read_body(body: Any, into: type[_T], where: str, musts: Mapping[str, str]) -> _T:
    """`body` converted strictly into `into`; raise BodyError naming the field as `musts` words it.

    `musts` maps a field (``points``, ``cube.value``, ``game_scores[]`` for any item) to what it must be.
    A map key that is not a string is skipped, as a dict lookup by name skips it."""
    try:
        return msgspec.convert(body, into, strict=True)
    except msgspec.ValidationError as exc:
        message = str(exc)
    for _ in range(_MAPS_DEEP):  # refused: for a key that is not a string, again without such keys
        if _KEY_AT not in message:
            raise refusal(message, body, where, musts)
        body = _string_keys_only(body, path_of(message.rpartition(_KEY_AT)[2].rstrip("`")))
        try:
            return msgspec.convert(body, into, strict=True)
        except msgspec.ValidationError as exc:
            message = str(exc)
    raise BodyError(f"{where} body has maps nested deeper than {_MAPS_DEEP} with keys that are not strings")


def refusal(message: str, body: Any, where: str, musts: Mapping[str, str]) -> BodyError:
    """The BodyError for a msgspec ValidationError's message about `body`."""
    pattern, name, value = fault(message, body, musts)
    if not name:
        return BodyError(f"{where} body must be a map, got {type(body).__name__} {body!r}")
    must = musts.get(pattern)
    if must is None:  # a field `musts` does not word: msgspec's words, without its path
        return BodyError(f"{where}.{name}: {message.partition(' - at ')[0]}, got {value!r}")
    return BodyError(f"{where}.{name} must be {must}, got {value!r}")


def fault(message: str, body: Any, known: Mapping[str, Any]) -> tuple[str, str, Any]:
    """The field a ValidationError's message is about, as (its pattern, its name, its value in `body`).

    The field is the longest start of the error's path that `known` has (``game_scores[]`` for the path
    ``$.game_scores[1][0]``, named ``game_scores[1]``), else the whole path; ("", "", body) for the body."""
    said = complaint(message)
    path = said.path[:-1] if said.unknown else said.path  # an unknown key is the fault of the map holding it
    for end in range(len(path), 0, -1):
        if _written(path[:end], any_index=True) in known:
            path = path[:end]
            break
    return _written(path, any_index=True), _written(path), value_at(body, path)


def require_lists(body: Mapping[str, Any], where: str, musts: Mapping[str, str], *keys: str) -> None:
    """Refuse a tuple or set where a body must hold a list (msgspec reads either into a sequence field)."""
    for key in keys:
        value = body.get(key)
        if value is not None and not isinstance(value, list):
            raise BodyError(f"{where}.{key} must be {musts[key]}, got {value!r}")


def _written(path: tuple[str | int, ...], any_index: bool = False) -> str:
    """A path as a field is named: ``cube.value``, ``game_scores[1]`` (``game_scores[]`` for any index)."""
    return "".join(
        ("[]" if any_index else f"[{step}]") if isinstance(step, int) else f".{step}" if i else step
        for i, step in enumerate(path)
    )


def _string_keys_only(body: Any, path: tuple[str | int, ...]) -> Any:
    """A copy of `body` whose map at `path` keeps only its string keys."""
    if not path:
        return {key: value for key, value in body.items() if isinstance(key, str)}
    step, *rest = path
    copy: Any = dict(body) if isinstance(body, dict) else list(body)
    copy[step] = _string_keys_only(body[step], tuple(rest))
    return copy
