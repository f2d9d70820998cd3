"""A draw from a CSV file, for the sports whose rounds no pairing program's report file brings, planned as venue
`[[matches]]` (`RoundPlan`).

The header is `round,table,player_a,player_b`, with `partner_a,partner_b` for doubles where the sport has them
and, when the rows need them, each sport's own term (`SportRules.draw_key`: games per match, a match length),
checked as the venue file checks it (`SportRules.read_match`); any other column is refused naming the nearest
known one. Each row is one match on its table, id `R<round>-<table>`; the table's sport decides
the match's keys. Every refusal names the CSV line and the column. `draw_text` reads the file's bytes as UTF-8,
naming where a byte is not.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hub.matches.naming import sport_names
from hub.rules.registry import PAIRED_SPORT, SPORTS
from hub.tournament.plan import (
    PlannedMatch,
    RoundError,
    RoundPlan,
    count,
    no_table,
    refuse_clashes,
)
from hub.venue import Venue
from hub.venue.keys import nearest_key
from hub.venue.matches import read_terms
from hub.venue.write import TomlValue

REQUIRED = ("round", "table", "player_a", "player_b")
DRAW_SPORTS = tuple(name for name, sport in SPORTS.items() if not sport.paired_rounds)
DRAW_KEYS = {name: key for name in DRAW_SPORTS if (key := SPORTS[name].draw_key) is not None}
COLUMNS = (*REQUIRED, "partner_a", "partner_b", *DRAW_KEYS.values())
HEADER = ",".join(REQUIRED) + "[,partner_a,partner_b]" + "".join(f"[,{key}]" for key in DRAW_KEYS.values())
# the columns of a match's players, in the venue's order (doubles: A1, A2, B1, B2)
PLAYER_COLUMNS = {2: ("player_a", "player_b"), 4: ("player_a", "partner_a", "player_b", "partner_b")}


Fail = Callable[[str, str], RoundError]  # (column, message) -> the error naming the row's line


def draw_text(data: bytes, source: str) -> str:
    """A draw file's text; raise RoundError naming the line and column of the first byte that is not UTF-8
    (a file saved as Latin-1 or Windows-1254)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[line_start : exc.start].decode("utf-8")) + 1
        raise RoundError(
            f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02X} at line {line}, column {column}); save it "
            f"as UTF-8 / dosya UTF-8 değil ({line}. satır, {column}. sütun); UTF-8 olarak kaydedin"
        ) from None


@dataclass(frozen=True, slots=True)
class _Row:
    line: int
    round: int
    table: str
    sport: str
    match: PlannedMatch


def plan_csv_draw(
    text: str,
    venue: Venue,
    sport: str | None = None,
    *,
    source: str = "<csv>",
    round_number: int | None = None,
    **defaults: int | None,
) -> RoundPlan:
    """The venue entries of a draw (every round in it, or only `round_number`); `defaults` give a sport's
    `draw_key` (best_of=3) where a row does not. Raise RoundError naming the line and column of the first row
    that cannot be a match, and plan nothing."""
    if sport is not None and sport not in DRAW_SPORTS:
        names = sport_names(DRAW_SPORTS)
        paired = sport_names([PAIRED_SPORT])
        raise RoundError(
            f"a draw file is for {names[0]}; {paired[0]} rounds come from the pairing program's report file "
            f"(.trf) / kura dosyası {names[1]} içindir; {paired[1]} turları eşlendirme programının rapor "
            f"dosyasından (.trf) gelir",
            source,
        )
    given = {key: value for key, value in defaults.items() if value is not None}
    for name, key in DRAW_KEYS.items():
        if key in given:
            _check_default(name, key, given[key])
    unknown = sorted(set(defaults) - set(DRAW_KEYS.values()))
    if unknown:
        raise TypeError(f"plan_csv_draw takes no default {unknown[0]!r}")
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff")))
    columns = _header(next(reader, []), source)
    rows: list[_Row] = []
    for values in reader:
        if not any(v.strip() for v in values):
            continue
        line = reader.line_num
        if len(values) != len(columns):
            raise RoundError(
                f"{len(values)} fields, the header has {len(columns)} "
                f"/ {len(values)} alan var, başlıkta {len(columns)} sütun var",
                source,
                line,
            )
        fields = {c: v.strip() for c, v in zip(columns, values, strict=True)}
        row = _row(fields, line, venue, sport, source, given)
        if round_number is None or row.round == round_number:
            rows.append(row)
    if not rows:
        which = (
            (f"round {round_number}", f"{round_number}. tur için")
            if round_number is not None
            else ("any round", "hiçbir tur için")
        )
        raise RoundError(f"no rows for {which[0]} / {which[1]} satır yok", source)
    _refuse_repeats(rows, source)
    _refuse_rounds_in_venue(rows, venue, source)
    refuse_clashes([r.match.id for r in rows], venue)
    return RoundPlan(
        source,
        tuple(sorted({r.round for r in rows})),
        tuple(r.match for r in rows),
        tables=tuple(r.table for r in rows),
    )


def _header(names: list[str], source: str) -> list[str]:
    columns = [n.strip().lower() for n in names]
    for index, name in enumerate(columns, start=1):
        if name not in COLUMNS:
            near = nearest_key(name, COLUMNS)
            hint = (f"; did you mean {near}?", f"; {near} mı demek istediniz?") if near else ("", "")
            raise RoundError(
                f"unknown column {name!r} (column {index}){hint[0]}; known: {', '.join(COLUMNS)} "
                f"/ bilinmeyen sütun {name!r} ({index}. sütun){hint[1]}; bilinenler: {', '.join(COLUMNS)}",
                source,
                1,
                "header",
            )
        if columns.index(name) != index - 1:
            raise RoundError(
                f"column {name!r} is written twice / {name!r} sütunu iki kez yazılmış", source, 1, "header"
            )
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise RoundError(
            f"the header needs {', '.join(missing)}: {HEADER} / başlıkta eksik sütun: {', '.join(missing)}; "
            f"başlık: {HEADER}",
            source,
            1,
            "header",
        )
    if ("partner_a" in columns) != ("partner_b" in columns):
        raise RoundError(
            "partner_a and partner_b go together / partner_a ile partner_b birlikte yazılır",
            source,
            1,
            "header",
        )
    return columns


def _row(
    fields: dict[str, str],
    line: int,
    venue: Venue,
    sport: str | None,
    source: str,
    defaults: Mapping[str, int],
) -> _Row:
    def fail(column: str, message: str) -> RoundError:  # a `Fail`
        return RoundError(message, source, line, column)

    round_number = _number(
        fields["round"], 1, fail("round", "must be a whole number from 1 / 1 veya büyük bir tam sayı olmalı")
    )
    table_id = fields["table"]
    table = next((t for t in venue.tables if t.id == table_id), None)
    if table is None:
        raise fail("table", no_table(table_id, venue))
    wanted = (sport,) if sport is not None else DRAW_SPORTS
    if table.sport not in wanted:
        has, names = sport_names([table.sport]), sport_names(wanted)
        raise fail(
            "table",
            f"table {table_id} is a {has[0]} table; this draw is for {names[0]} "
            f"/ {table_id} bir {has[1]} masası; bu kura {names[1]} içindir",
        )
    players = [fields["player_a"], fields["player_b"]]
    partners = [fields.get("partner_a", ""), fields.get("partner_b", "")]
    for column, name in zip(
        ("player_a", "player_b", "partner_a", "partner_b"), players + partners, strict=True
    ):
        if not name and (column.startswith("player") or any(partners)):
            raise fail(column, "the player's name is missing / oyuncu adı eksik")
    extra: list[tuple[str, TomlValue]] = []
    if any(partners):
        if not SPORTS[table.sport].doubles_allowed:
            names = sport_names([table.sport])
            raise fail("partner_a", f"{names[0]} is played one against one / {names[1]} bire bir oynanır")
        players = [players[0], partners[0], players[1], partners[1]]
        extra.append(("doubles", True))
    extra += _sport_keys(fields, table.sport, fail, defaults)
    match = PlannedMatch(f"R{round_number}-{table_id}", table_id, round_number, tuple(players), tuple(extra))
    return _Row(line, round_number, table_id, table.sport, match)


def _sport_keys(
    fields: dict[str, str], sport: str, fail: Fail, defaults: Mapping[str, int]
) -> list[tuple[str, TomlValue]]:
    """The sport's own term (`draw_key`) from its column or the default given, checked by the sport as the
    venue file's would be; none when the sport's own default serves."""
    own = DRAW_KEYS.get(sport)
    for other in DRAW_KEYS.values():
        if other != own and fields.get(other):
            names = sport_names([sport])
            raise fail(
                other, f"{other} is not for {names[0]} matches / {other} {names[1]} maçlarında kullanılmaz"
            )
    if own is None:
        return []
    text = fields.get(own, "")
    if text:
        value = _number(
            text, 1, fail(own, "must be a whole number from 1 / 1 veya daha büyük bir tam sayı olmalı")
        )
        _terms(sport, {own: value}, lambda _column, message: fail(own, message))
        return [(own, value)]
    if own in defaults:
        return [(own, defaults[own])]
    try:
        _terms(sport, {}, lambda _column, message: fail(own, message))
    except RoundError:
        names = sport_names([sport])
        raise fail(
            own,
            f"a {names[0]} match needs its {own}: a {own} column or --{own.replace('_', '-')} "
            f"/ {names[1]} maçı için {own} gerekli: {own} sütunu ya da --{own.replace('_', '-')}",
        ) from None
    return []


def _check_default(sport: str, key: str, value: int) -> None:
    """A command's default for a sport's `draw_key` (`--best-of 4`), checked as a row's would be."""
    option = f"--{key.replace('_', '-')} {value}"

    def fail(_column: str | None, message: str) -> RoundError:
        return RoundError(f"{option}: {message}")

    _terms(sport, {key: value}, fail)


def _terms(sport: str, entry: Mapping[str, Any], fail: Callable[[str | None, str], RoundError]) -> None:
    """Check a match's terms of `sport` as the venue file does (`SportRules.read_match`)."""

    def field_fail(key: str | None, message: str, /, at: str | None = None) -> RoundError:
        return fail(key, message)

    read_terms(sport, entry, field_fail)


def _number(text: str, least: int, error: RoundError) -> int:
    if not text.isdigit() or int(text) < least:
        raise error
    return int(text)


def _refuse_repeats(rows: list[_Row], source: str) -> None:
    """A table once a round, a player once a round."""
    tables: dict[tuple[int, str], int] = {}
    players: dict[tuple[int, str], int] = {}
    for row in rows:
        earlier = tables.setdefault((row.round, row.table), row.line)
        if earlier != row.line:
            raise RoundError(
                f"table {row.table} is already used in round {row.round} on line {earlier} "
                f"/ {row.table} masası {row.round}. turda {earlier}. satırda zaten kullanılmış",
                source,
                row.line,
                "table",
            )
        names = row.match.players
        columns = PLAYER_COLUMNS[len(names)]
        for index, (name, column) in enumerate(zip(names, columns, strict=True)):
            if name in names[:index]:
                half = len(names) // 2  # side A's players come first
                same_side = (names.index(name) < half) == (index < half)
                raise RoundError(
                    f"{name} is written twice on one side / {name} aynı tarafta iki kez yazılmış"
                    if same_side
                    else f"{name} is on both sides of the match / {name} maçın iki tarafında da yazılmış",
                    source,
                    row.line,
                    column,
                )
            earlier = players.setdefault((row.round, name), row.line)
            if earlier != row.line:
                raise RoundError(
                    f"{name} already plays in round {row.round} on line {earlier} "
                    f"/ {name} {row.round}. turda {earlier}. satırda zaten oynuyor",
                    source,
                    row.line,
                    column,
                )


def _refuse_rounds_in_venue(rows: list[_Row], venue: Venue, source: str) -> None:
    """A round of a sport the venue already has matches of is refused: the draw would add to it twice."""
    sport_of = {t.id: t.sport for t in venue.tables}
    for row in rows:
        have = sum(1 for m in venue.matches if m.round == row.round and sport_of.get(m.table) == row.sport)
        if have:
            names = sport_names([row.sport])
            raise RoundError(
                f"round {row.round} of {names[0]} is already in the venue ({count(have, 'match', 'matches')}); "
                f"remove it first / {names[1]} {row.round}. turu salon dosyasında zaten var ({have} maç); "
                f"önce çıkarın",
                source,
                row.line,
                "round",
            )
