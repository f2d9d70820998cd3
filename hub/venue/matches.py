"""The venue file's `[[matches]]`: the fields every match has, then those of its table's sport.

A sport reads its own terms (`SportRules.read_match`, with its `match_keys`); a key of another sport's matches is
refused saying whose it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from hub.matches import MatchInfo
from hub.rules.registry import SPORTS
from hub.rules.sport import FieldFail
from hub.venue.keys import MATCH_KEYS, SPORT_MATCH_KEYS, array, ident, unknown_key
from hub.venue.model import Fail, FileFail, TableConfig, TeamMatchConfig


@dataclass(frozen=True, slots=True)
class _SoFar:
    """The venue read so far, as a sport's match reader may ask of it (`hub.rules.sport.VenueSoFar`)."""

    settings: Mapping[str, Any]
    settings_fail: FieldFail
    team_matches: tuple[TeamMatchConfig, ...]
    matches: list[MatchInfo]

    def team_match_round(self, team_match: str) -> int | None:
        """The round of a `[[team_matches]]` entry; None: no such entry."""
        return next((t.round for t in self.team_matches if t.id == team_match), None)

    def board_taken(self, team_match: str, board: int) -> bool:
        """A board of the team match already has a game or a forfeit."""
        forfeited = any(
            t.id == team_match and any(f.board == board for f in t.forfeits) for t in self.team_matches
        )
        return forfeited or any(m.team_match == team_match and m.board == board for m in self.matches)

    def unknown_key(self, key: str, known: tuple[str, ...]) -> str:
        """The file's message for a key not known here (`hub.venue.keys.unknown_key`)."""
        return unknown_key(key, known)


def parse_matches(
    data: dict[str, Any],
    tables: tuple[TableConfig, ...],
    team_matches: tuple[TeamMatchConfig, ...],
    fail: FileFail,
) -> tuple[MatchInfo, ...]:
    """The `[[matches]]` entries, each checked against its table's sport."""
    matches: list[MatchInfo] = []
    venue = data.get("venue")
    settings = venue if isinstance(venue, dict) else {}
    so_far = _SoFar(settings, partial(fail, "venue", None), team_matches, matches)
    ids: set[str] = set()  # a venue of 10,000 matches: a scan of those before each took 1.6 s of a start
    for i, m in enumerate(array(data, "matches", fail)):
        at = partial(fail, "matches", i)
        table = next((t for t in tables if t.id == m.get("table")), None)
        _match_keys(m, table.sport if table else None, at)
        mid = ident(m, "id", at)
        if mid in ids:
            raise at("id", f"match {mid!r} is defined twice / maç iki kez tanımlı")
        if table is None:
            raise at("table", f"no table {m.get('table')!r} in [[tables]] / böyle bir masa yok")
        matches.append(_match(m, mid, table, so_far, at))
        ids.add(mid)
    return tuple(matches)


def _match_keys(m: dict[str, Any], sport: str | None, fail: Fail) -> None:
    """Refuse a key no match takes, or one another sport's matches take (a match length on a game of a sport
    that has none)."""
    every = MATCH_KEYS + tuple(k for keys in SPORT_MATCH_KEYS.values() for k in keys)
    known = every if sport is None else MATCH_KEYS + SPORT_MATCH_KEYS.get(sport, ())
    for key in m:
        if key in known:
            continue
        if key not in every:
            raise fail(key, unknown_key(key, known))
        owners = [SPORTS[s].title for s, keys in SPORT_MATCH_KEYS.items() if key in keys]
        en, tr = SPORTS[sport].title if sport is not None else ("", "")  # a table of no sport knows every key
        raise fail(
            key,
            f"{key} is for {' and '.join(o[0] for o in owners)} matches, not {en}; a {en} match takes "
            f"{', '.join(known)} / {key} {' ve '.join(o[1] for o in owners)} maçları içindir, {tr} maçında "
            f"kullanılmaz",
        )


def _match(m: dict[str, Any], mid: str, table: TableConfig, so_far: _SoFar, fail: Fail) -> MatchInfo:
    """One match on its table: the fields every sport has, then its sport's own."""
    rnd = m.get("round", 1)
    if not isinstance(rnd, int) or isinstance(rnd, bool) or rnd < 1:
        raise fail("round", "must be a whole number from 1 / 1 veya büyük bir tam sayı olmalı")
    doubles = m.get("doubles", False)
    if not isinstance(doubles, bool):
        raise fail("doubles", "must be true or false / true ya da false olmalı")
    rules = SPORTS[table.sport]
    if doubles and not rules.doubles_allowed:  # said before the players, whose count doubles would change
        en, tr = rules.title
        raise fail("doubles", f"{en} is played one against one / {tr} bire bir oynanır")
    wanted = 4 if doubles else 2
    players = m.get("players", [""] * wanted)
    if not (
        isinstance(players, list) and len(players) == wanted and all(isinstance(p, str) for p in players)
    ):
        shape = '["A1", "A2", "B1", "B2"]' if doubles else '["A", "B"]'
        raise fail("players", f"must be {wanted} names, {shape} / {wanted} isim olmalı")
    terms = {"round": rnd, **rules.read_match(m, doubles, fail, so_far)}
    return MatchInfo(
        mid,
        table.sport,
        table.id,
        players=tuple(players),
        doubles=doubles,
        orientation=table.orientation,
        **terms,
    )


def read_terms(sport: str, entry: Mapping[str, Any], fail: FieldFail) -> dict[str, Any]:
    """A lone entry's terms of `sport` as the venue file reads them (a draw's column, a command's option),
    with no venue around it."""
    alone = _SoFar({}, fail, (), [])
    return SPORTS[sport].read_match(entry, False, fail, alone)
