"""msgspec's complaints as the field they name: one reading of its "… - at `$.points[1]`" messages for every
strict decoder (the wire's bodies, the hub's rules inputs and `boardcast check` lines)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

_S = TypeVar("_S", bound=msgspec.Struct)
_AT = re.compile(r"(.*) - at `\$(.*)`", re.S)
_MISSING = re.compile(r"Object missing required field `(.*)`")
_UNKNOWN = re.compile(r"Object contains unknown field `(.*)`")
_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\[\.\.\.\]")


@dataclass(frozen=True, slots=True)
class Complaint:
    """What msgspec found wrong: where (keys and list indexes from the top), and its reason."""

    path: tuple[str | int, ...]
    reason: str
    missing: bool = False  # the last key of `path` is a required field that is absent
    unknown: bool = False  # the last key of `path` is a field the Struct does not have

    @property
    def field(self) -> str | None:
        """The top-level key at fault, or None when the fault is the object itself."""
        return self.path[0] if self.path and isinstance(self.path[0], str) else None

    def value(self, data: Any, depth: int = 1) -> Any:
        """The value at the first `depth` steps of `path` in `data`; None where it is absent."""
        return value_at(data, self.path[:depth])


def complaint(exc: msgspec.ValidationError | str) -> Complaint:
    """msgspec's message ("Expected `int`, got `str` - at `$.points[1]`") as a `Complaint`."""
    text = str(exc)
    match = _AT.fullmatch(text)
    reason, where = (match[1], match[2]) if match else (text, "")
    path = path_of(where)
    if missing := _MISSING.fullmatch(reason):
        return Complaint((*path, missing[1]), reason, missing=True)
    if unknown := _UNKNOWN.fullmatch(reason):
        return Complaint((*path, unknown[1]), reason, unknown=True)
    return Complaint(path, reason)


def path_of(where: str) -> tuple[str | int, ...]:
    """A msgspec path (`$.points[1]`, with or without its `$`) as keys and list indexes."""
    return tuple(m[1] if m[1] is not None else int(m[2]) for m in _PART.finditer(where) if m[0] != "[...]")


def value_at(data: Any, path: tuple[str | int, ...]) -> Any:
    """The value at `path` in `data`; None where it is absent."""
    for step in path:
        if isinstance(step, str):
            data = data.get(step) if isinstance(data, dict) else None
        else:
            data = data[step] if isinstance(data, list | tuple) and step < len(data) else None
    return data


def by_tag(*classes: type[_S]) -> dict[str, type[_S]]:
    """Tagged Struct classes by their tag: converting to the one class a tag names is about ten times
    faster than converting to their union (msgspec builds a union's decoder on every call)."""
    return {str(cls.__struct_config__.tag): cls for cls in classes}
