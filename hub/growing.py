"""Views of records that only grow (a match's facts, a rally log), each item's view built once.

A match's page gets the whole match at every change, and late in a match its logs are most of it: ~90 points
of a rally log, as many facts. `ItemViews` keeps, per log, the views already built and builds only the items
added since. It is only ever a shortcut: a log that does not start with the one last seen is built again.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")
V = TypeVar("V")

KEPT = 256  # logs remembered: a hall's live matches fit; the one least recently shown goes first


class ItemViews(Generic[T, V]):
    """`make(item, context)` applied to every item of a log, reusing the views built for the items it had
    when last seen: a log that grows at its end, and may drop items from its front (a match keeps its newest
    facts).

    A log is known by `key` (by default its first item, kept alive by the entry so its id stays its own); its
    views are reused only under the same `context` (what else a view depends on: a match's names, a venue's
    choice), and only for items equal to those last seen (`==` takes the very same object as equal at once),
    so a view is always `make`'s. The views returned are shared with earlier calls and must not be changed;
    the list holding them is the caller's own.
    """

    def __init__(self, make: Callable[[T, Any], V], kept: int = KEPT) -> None:
        self._make = make
        self._kept = kept
        self._logs: dict[Hashable, tuple[Sequence[T], list[V], Any]] = {}

    def __call__(self, log: Sequence[T], context: Any = None, key: Hashable | None = None) -> list[V]:
        """The view of every item of `log`, in order."""
        if not log:
            return []
        make = self._make
        key = id(log[0]) if key is None else key
        kept = self._logs.pop(key, None)
        start = None if kept is None or kept[2] != context else carried_over(kept[0], log)
        if start is None:
            views = [make(item, context) for item in log]
        else:
            old, old_views = kept[0], kept[1]  # type: ignore[index]
            views = old_views[start:] + [make(item, context) for item in log[len(old) - start :]]
        self._logs[key] = (log, views, context)
        if len(self._logs) > self._kept:
            del self._logs[next(iter(self._logs))]
        return views.copy()

    def __len__(self) -> int:
        """Logs remembered."""
        return len(self._logs)


def carried_over(old: Sequence[Any], new: Sequence[Any]) -> int | None:
    """Where in `old` the log `new` starts, if `new` is `old` less some items at its front and more at its
    end; else None. A front dropped is found by the very same object; otherwise items need only be equal."""
    if not old or not new:
        return None
    first = new[0]
    if old[0] is first or old[0] == first:  # grown at its end, its items the same or equal (rebuilt)
        start = 0
    else:
        for start, item in enumerate(old):  # noqa: B007 (the position found is the answer)
            if item is first:
                break
        else:
            return None
    overlap = len(old) - start
    if overlap <= len(new) and new[:overlap] == old[start:]:
        return start
    return None
