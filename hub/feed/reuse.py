"""A topic's long lists encoded a piece at a time: each item of a growing list turned into JSON once.

A match topic carries the whole match at every change, and late in a match its logs (the facts, a rally
log) are most of the message: encoding it again at every point cost as much as building it. `ListEncodings`
keeps, per topic and list, the JSON of the items already sent and encodes only those added since (a list that
changed otherwise, or keeps only its newest items as a match's facts do, is encoded whole, in one call); the
message is then encoded with that JSON put in as it is (`orjson.Fragment`). The bytes are the same as
encoding the whole view: a list that does not start with the items last seen is encoded again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from hub.growing import carried_over

MIN_ITEMS = 8  # shorter lists are encoded whole: looking them up costs more than it saves
KEPT = 1024  # lists remembered (a match topic has one to three): the one least recently sent goes first


class ListEncodings:
    """Per topic, the JSON of its long lists' items, reused while each list only grows."""

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._lists: dict[tuple[str, ...], tuple[list[Any], bytes]] = {}

    def reuse(self, topic: str, view: dict[str, Any], logs: Iterable[tuple[str, ...]]) -> dict[str, Any]:
        """`view` with its logs (each a path of keys: `("facts",)`, `("state", "points_log")`) as encoded JSON,
        for `orjson.dumps`; a path that is not there, or not a list as long as `MIN_ITEMS`, is left as it is."""
        out = view.copy()
        for path in logs:
            *parents, name = path
            inner, source = out, view
            for key in parents:
                found = source.get(key)
                if type(found) is not dict:
                    break
                source = found
                copied = inner[key]
                if copied is found:  # the first log under this key: the caller's dict is not changed
                    copied = inner[key] = found.copy()
                inner = copied
            else:
                items = source.get(name)
                if type(items) is list and len(items) >= MIN_ITEMS:
                    inner[name] = self._encoded((topic, *path), items)
        return out

    def __len__(self) -> int:
        """Lists remembered."""
        return len(self._lists)

    def _encoded(self, path: tuple[str, ...], items: list[Any]) -> orjson.Fragment:
        kept = self._lists.pop(path, None)
        # views that reuse their items' dicts (`hub.growing.ItemViews`) are matched at a pointer's cost each;
        # items rebuilt at every view (a codec's) are compared by value, which takes 1, 1.0 and True as one:
        # a log's items come from its records through one codec, so an item's types do not change
        if kept is not None and carried_over(kept[0], items) == 0:  # the list grew at its end, if at all
            old, encoded = kept
            if len(items) > len(old):  # the items added, spliced in: `[a,b]` and `[c]` make `[a,b,c]`
                encoded = encoded[:-1] + b"," + orjson.dumps(items[len(old) :])[1:]
        else:  # first seen, taken back, or shifted (a window of the newest): all of it, in one call
            encoded = orjson.dumps(items)
        self._lists[path] = (items, encoded)
        if len(self._lists) > self._kept:
            del self._lists[next(iter(self._lists))]
        return orjson.Fragment(encoded)
