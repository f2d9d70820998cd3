"""Where a key of the venue file is and whether it may be there: line finding, known keys, suggestions.

`Locator` finds the line of a section, an entry or a key, for the error message; the key tables list what
each place may hold, and an unknown key is refused naming the nearest known one.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from functools import partial
from typing import Any

from hub.rules.registry import SPORTS
from hub.venue.model import ID_PATTERN, Fail, FileFail


class Locator:
    """Finds the line of `[[section]]` number i, of a key inside it, or of a key at the top of the file.

    A key is found written as `key = …` (or `key.sub = …`) in the entry, or as the header of a sub-table
    of it (`[matches.clock]`); a dotted key `clock.delai_s` is looked for inside that sub-table.
    """

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def _headers(self, name: str, *, sub: bool = False) -> list[int]:
        tail = r"\s*(\.|\]\]?\s*(#.*)?$)" if sub else r"\s*\]\]?\s*(#.*)?$"
        header = re.compile(rf"^\s*\[\[?\s*{_key_pattern(name)}{tail}")
        return [i for i, line in enumerate(self.lines) if header.match(line)]

    def _end(self, start: int) -> int:
        later = range(start + 1, len(self.lines))
        return next((i for i in later if self.lines[i].lstrip().startswith("[")), len(self.lines))

    def section(self, name: str, index: int | None) -> tuple[int, int] | None:
        starts = self._headers(name)
        pick = starts[index or 0] if len(starts) > (index or 0) else None
        if pick is None:
            return None
        return pick, self._end(pick)

    def _key(self, start: int, end: int, key: str) -> int | None:
        pattern = re.compile(rf"^\s*{_key_pattern(key)}\s*[=.]")
        return next((i for i in range(start, end) if pattern.match(self.lines[i])), None)

    def line(self, name: str | None, index: int | None, key: str | None = None) -> int | None:
        if name is None:  # the top of the file: keys before the first header, or a table's own header
            span: tuple[int, int] | None = (-1, self._end(-1))
        else:
            span = self.section(name, index)
        if span is None:
            return None
        start, end = span
        if key is None:
            return start + 1 if name is not None else None
        head, _, rest = key.partition(".")
        found = self._key(start + 1, end, head)
        if found is not None:
            return found + 1
        following = [i for i in self._headers(name) if i > start] if name else []
        limit = following[0] if following else len(self.lines)
        prefix = f"{name}.{head}" if name else head
        sub = next((i for i in self._headers(prefix, sub=True) if start < i < limit), None)
        if sub is None:
            return start + 1 if name is not None else None
        inner = self._key(sub + 1, self._end(sub), rest.partition(".")[0]) if rest else None
        return (inner if inner is not None else sub) + 1


def _key_pattern(name: str) -> str:
    """A TOML key, dotted or not, written bare or quoted; `name` is its parts joined with '.'."""
    return r"\s*\.\s*".join(
        rf"""(?:{re.escape(part)}|"{re.escape(part)}"|'{re.escape(part)}')""" for part in name.split(".")
    )


# Every key the file may hold, by where it is. Any other is refused, naming the nearest of these.
TOP_KEYS = (
    "venue",
    "tournament",
    "tables",
    "matches",
    "referees",
    "team_matches",
    "players",
    "rules",
    "screens",
)
VENUE_KEYS = (
    "name",
    "broadcast_delay_s",
    "show_referee_names",
    "winning_chances",
    "engine",
    "performance",
    "allowed_hosts",
    "trusted_proxies",
    "awaiting_result_s",  # the default of the match key of that name, for the sports that take it
)
TABLE_KEYS = (
    *("id", "sport", "device", "device_id", "device_token_sha256", "wristbands", "clock", "clock_id"),
    "orientation",  # which way round a board lies, "auto" | "normal" | "rotated"
)
MATCH_KEYS = ("id", "table", "round", "players", "doubles")  # and those of the table's sport:
SPORT_MATCH_KEYS = {name: sport.match_keys for name, sport in SPORTS.items()}
SCREEN_KEYS = ("name",)  # a screen in the playing area: it shows no analysis
TEAM_MATCH_KEYS = ("id", "round", "teams", "pairing", "forfeits")
FORFEIT_KEYS = ("board", "players", "result")  # a team match's board decided by forfeit
# the event the hall's paired rounds belong to: its report file (rounds in, results out) and its standings
TOURNAMENT_KEYS = ("trf", "tiebreaks", "board_prize_min_games")
REFEREE_KEYS = ("name", "role", "token_sha256", "tables")
PLAYER_KEYS = ("name", "club", "city", "phone", "email")


def nearest_key(key: str, known: tuple[str, ...]) -> str | None:
    close = difflib.get_close_matches(key.lower(), known, n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_key(key: str, known: tuple[str, ...], *, table: bool = False) -> str:
    """The message for a key the file may not hold here: the nearest known name, else all of them."""
    english, turkish = ("table", "tablo") if table else ("key", "alan")
    nearest = nearest_key(key, known)
    if nearest is not None:
        return (
            f"unknown {english} {key}; did you mean {nearest}? "
            f"/ bilinmeyen {turkish} {key}; {nearest} mı demek istediniz?"
        )
    return f"unknown {english} {key}; known: {', '.join(known)} / bilinmeyen {turkish} {key}"


def refuse_unknown(entry: dict[str, Any], known: tuple[str, ...], fail: Fail) -> None:
    """Raise for the first key of `entry` (in the file's order) that is not in `known`."""
    for key in entry:
        if key not in known:
            raise fail(key, unknown_key(key, known))


def array(data: dict[str, Any], key: str, fail: FileFail) -> list[dict[str, Any]]:
    """The `[[key]]` entries of the file, [] when absent."""
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise fail(key, None, None, f"must be written as [[{key}]] entries / [[{key}]] biçiminde olmalı")
    return value


def entries(
    data: dict[str, Any], key: str, known: tuple[str, ...], fail: FileFail
) -> Iterator[tuple[Fail, dict[str, Any]]]:
    """Each `[[key]]` entry with the error maker for its place in the file, a key it may not hold refused."""
    for index, entry in enumerate(array(data, key, fail)):
        at = partial(fail, key, index)
        refuse_unknown(entry, known, at)
        yield at, entry


def ident(entry: dict[str, Any], key: str, fail: Fail) -> str:
    """An entry's id field, checked against ID_PATTERN."""
    value = entry.get(key)
    if not isinstance(value, str) or not ID_PATTERN.match(value):
        raise fail(
            key,
            f"missing or not an id (letters, digits, '-', '_', '.'; up to 64): {value!r} "
            f"/ eksik ya da geçersiz kimlik",
        )
    return value
