"""A sport's state as versioned snapshot data: the form it is written in now, and one rule per older form
that brings a snapshot one version forward, so an old snapshot is read by rule, never by defaults.

Snapshots are durable (the event log keeps them, edges read them from the bus): a snapshot written by any
earlier hub must still read. One written before snapshots carried a version is version 1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

S = TypeVar("S")
VERSION_KEY = "snapshot_version"
FIRST_VERSION = 1  # the form of every snapshot written before they carried VERSION_KEY
Migration = Callable[[dict[str, Any]], dict[str, Any]]


class SnapshotTooNew(ValueError):
    """A snapshot written by a newer hub than this one: its form is not known here."""


@dataclass(frozen=True, slots=True)
class StateCodec(Generic[S]):
    """A state's snapshot codec: `encode`/`decode` of the current form, tagged with `version`, and in
    `migrations` the rule that turns version n's form into version n + 1's, for every n below `version`."""

    version: int
    encode: Callable[[S], dict[str, Any]]
    decode: Callable[[dict[str, Any]], S]
    migrations: Mapping[int, Migration]

    def __post_init__(self) -> None:
        missing = [n for n in range(FIRST_VERSION, self.version) if n not in self.migrations]
        if missing:
            raise ValueError(f"no migration from snapshot version {missing[0]}")

    def to_dict(self, state: S) -> dict[str, Any]:
        """The state as plain data in the current form, with its version."""
        return {VERSION_KEY: self.version, **self.encode(state)}

    def from_dict(self, data: dict[str, Any]) -> S:
        """A state from a snapshot of any version up to the current one, migrated form by form."""
        return self.decode(self.current(data))

    def current(self, data: dict[str, Any]) -> dict[str, Any]:
        """A snapshot of any known version brought to the current form (without its version key)."""
        found = data.get(VERSION_KEY, FIRST_VERSION)  # no key: the one form written before there was one
        if not isinstance(found, int) or not FIRST_VERSION <= found <= self.version:
            raise SnapshotTooNew(f"snapshot version {found!r}; this hub reads 1 to {self.version}")
        form = {k: v for k, v in data.items() if k != VERSION_KEY}
        for version in range(found, self.version):
            form = self.migrations[version](form)
        return form
