"""The venue file: tables, their devices, matches and referees, read from TOML and checked field by field.

A mistake in the file is reported once, precisely: the file, the line, the field, what is wrong, in English
and Turkish. The organiser fixes one line and runs again.
"""

from __future__ import annotations

import difflib
import ipaddress
import re
import tomllib
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from devices.chessnut.session import parse_chessnut_url
from devices.dgt.session import parse_dgt_url
from devices.dscore.session import parse_dscore_url
from devices.transports.ble import parse_wire_ble_url
from devices.transports.serial import parse_wire_serial_url
from devices.transports.tcp import parse_tcp_url
from hub.limits import split_host
from hub.matches import MatchInfo
from hub.sports import SPORTS

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_ID = ID_PATTERN
_ROLES = ("referee", "chief")
RULESETS = ("ittf", "legacy21")
CHESS_BOARD_PROTOCOLS = {"dgt": parse_dgt_url, "chessnut": parse_chessnut_url}  # URL checks by protocol=


class VenueError(ValueError):
    """A venue file that cannot be used; str() is the message for the organiser."""

    def __init__(self, path: Path, line: int | None, field: str, message: str) -> None:
        self.path, self.line, self.field = path, line, field
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {field}: {message}")


@dataclass(frozen=True, slots=True)
class TableConfig:
    """A table and the device that reports from it."""

    id: str
    sport: str
    device: str | None = None  # a device URL: serial:///dev/ttyUSB0, /dev/pts/3, socket://host:port
    device_id: str | None = None  # the id the device must announce, when known
    device_token_sha256: str | None = None  # for devices that connect over TCP: SHA-256 of their token
    wristbands: tuple[str, ...] = ()  # D-SCORE umpire wristbands: ble://AA:..?protocol=dscore&side=0
    clock: str | None = None  # chess: a separate clock (Boardcast Wire chess-clock), when the board has none
    clock_id: str | None = None  # the id that clock must announce, when known


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """A referee who may act in the console, identified by a token stored only as its hash."""

    name: str
    role: str
    token_sha256: str


@dataclass(frozen=True, slots=True)
class PlayerConfig:
    """A player's public details and the contacts only referees and the organiser may see (seed 000 §14)."""

    name: str
    club: str = ""
    city: str = ""
    phone: str | None = None  # private: never in a spectator view
    email: str | None = None  # private: never in a spectator view


# Seed 002 §4.2.2 and §5.5 (RULES.md §2): boards 1-4 are open; the others are kept for a category. (§4.3 of
# the same seed fills boards 5 and 6 the other way round; §5.5, which the medals follow, is used here.)
CHESS_BOARD_CATEGORIES = {
    1: ("open", "genel"),
    2: ("open", "genel"),
    3: ("open", "genel"),
    4: ("open", "genel"),
    5: ("under 20", "20 yaş ve altı"),
    6: ("woman", "kadın"),
    7: ("under 16", "16 yaş ve altı"),
    8: ("under 16 girl", "16 yaş ve altı kadın"),
}


@dataclass(frozen=True, slots=True)
class TeamMatchConfig:
    """A chess team match: two teams on up to eight boards; its games are the matches that name it."""

    id: str
    round: int
    teams: tuple[str, str]  # the first-named team has White on the odd boards unless a game says otherwise


@dataclass(frozen=True, slots=True)
class Venue:
    """A whole venue, as read from its file."""

    name: str
    tables: tuple[TableConfig, ...]
    matches: tuple[MatchInfo, ...]
    referees: tuple[RefereeConfig, ...] = ()
    path: Path | None = None
    team_matches: tuple[TeamMatchConfig, ...] = ()
    broadcast_delay_s: float = 0.0  # chess: spectators see every game this many seconds late (anti-cheating)
    players: tuple[PlayerConfig, ...] = ()  # optional: clubs, cities and the private contacts of players
    show_referee_names: bool = False  # spectators see who confirmed, corrected, decided (notes: never)
    allowed_hosts: tuple[str, ...] = ()  # names the web edge answers to, besides its listen address
    trusted_proxies: tuple[str, ...] = ()  # reverse proxies whose X-Forwarded-For names the client

    def table(self, table_id: str) -> TableConfig:
        """The table with this id."""
        return next(t for t in self.tables if t.id == table_id)


class _Locator:
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
TOP_KEYS = ("venue", "tables", "matches", "referees", "team_matches", "players")
VENUE_KEYS = ("name", "broadcast_delay_s", "show_referee_names", "allowed_hosts", "trusted_proxies")
TABLE_KEYS = ("id", "sport", "device", "device_id", "device_token_sha256", "wristbands", "clock", "clock_id")
MATCH_KEYS = ("id", "table", "round", "players", "doubles")  # and those of the table's sport:
SPORT_MATCH_KEYS = {
    "tabletennis": ("best_of", "ruleset", "first_server", "first_receiver"),
    "backgammon": ("length", "clock"),
    "chess": ("time_control", "clock_white", "board", "team_match"),
}
TEAM_MATCH_KEYS = ("id", "round", "teams")
REFEREE_KEYS = ("name", "role", "token_sha256")
PLAYER_KEYS = ("name", "club", "city", "phone", "email")
BACKGAMMON_CLOCK_KEYS = ("mode", "reserve_s", "delay_s")


def _nearest(key: str, known: tuple[str, ...]) -> str | None:
    close = difflib.get_close_matches(key.lower(), known, n=1, cutoff=0.6)
    return close[0] if close else None


def _unknown(key: str, known: tuple[str, ...], *, table: bool = False) -> str:
    """The message for a key the file may not hold here: the nearest known name, else all of them."""
    english, turkish = ("table", "tablo") if table else ("key", "alan")
    nearest = _nearest(key, known)
    if nearest is not None:
        return (
            f"unknown {english} {key}; did you mean {nearest}? "
            f"/ bilinmeyen {turkish} {key}; {nearest} mı demek istediniz?"
        )
    return f"unknown {english} {key}; known: {', '.join(known)} / bilinmeyen {turkish} {key}"


def _refuse_unknown(entry: dict[str, Any], known: tuple[str, ...], fail) -> None:
    """Raise for the first key of `entry` (in the file's order) that is not in `known`."""
    for key in entry:
        if key not in known:
            raise fail(key, _unknown(key, known))


def load_venue(path: Path | str) -> Venue:
    """Read and check a venue file; raise VenueError naming the file, line and field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise VenueError(path, None, "file", "no such file / dosya bulunamadı") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise VenueError(path, None, "file", f"cannot be read ({exc}) / dosya okunamadı") from None
    return parse_venue(text, path)


def parse_venue(text: str, path: Path) -> Venue:
    """Check a venue file's text; raise VenueError naming the file, line and field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        raise VenueError(
            path, int(match.group(1)) if match else None, "toml", f"{exc} / TOML sözdizimi hatası"
        ) from None
    loc = _Locator(text)

    def fail(
        section: str | None, index: int | None, key: str | None, message: str, at: str | None = None
    ) -> VenueError:
        """The error for a field; `at` is the key path to point the line at, when it is not the field's."""
        field = section if index is None else f"{section}[{index + 1}]"
        if key:
            field = f"{field}.{key}" if field else key
        return VenueError(path, loc.line(section, index, at or key), field or "", message)

    for key, value in data.items():
        if key not in TOP_KEYS:
            is_table = isinstance(value, dict) or (
                isinstance(value, list) and value and isinstance(value[0], dict)
            )
            raise fail(None, None, key, _unknown(key, TOP_KEYS, table=bool(is_table)))
    venue_table = data.get("venue", {})
    if not isinstance(venue_table, dict):
        raise fail("venue", None, None, "must be a table ([venue]) / [venue] bir tablo olmalı")
    _refuse_unknown(venue_table, VENUE_KEYS, partial(fail, "venue", None))
    name = venue_table.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise fail("venue", None, "name", "must be a non-empty string / boş olmayan bir metin olmalı")
    tables = _tables(data, fail)
    delay = venue_table.get("broadcast_delay_s", 0)
    if not isinstance(delay, int | float) or isinstance(delay, bool) or not 0 <= delay <= 24 * 3600:
        raise fail(
            "venue",
            None,
            "broadcast_delay_s",
            f"must be a number of seconds from 0 to 86400, got {delay!r} / 0-86400 arası saniye olmalı",
        )
    show_names = venue_table.get("show_referee_names", False)
    if not isinstance(show_names, bool):
        raise fail("venue", None, "show_referee_names", "must be true or false / true ya da false olmalı")
    allowed_hosts = _allowed_hosts(venue_table, partial(fail, "venue", None))
    trusted_proxies = _trusted_proxies(venue_table, partial(fail, "venue", None))
    team_matches = _team_matches(data, fail)
    matches = _matches(data, tables, team_matches, fail)
    referees = _referees(data, fail)
    players = _players(data, fail)
    return Venue(
        name,
        tables,
        matches,
        referees,
        path,
        team_matches,
        float(delay),
        players=players,
        show_referee_names=show_names,
        allowed_hosts=allowed_hosts,
        trusted_proxies=trusted_proxies,
    )


def _strings(venue_table: dict[str, Any], key: str, fail, shape: str) -> list[str]:
    """A `[venue]` list of strings, or [] when absent."""
    value = venue_table.get(key, [])
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise fail(key, f"must be a list of strings such as {shape} / metin listesi olmalı: {shape}")
    return value


def _allowed_hosts(venue_table: dict[str, Any], fail) -> tuple[str, ...]:
    """`allowed_hosts`: the names (host or host:port, no URL) spectators and referees reach the hub by."""
    names = _strings(venue_table, "allowed_hosts", fail, '["hall.example.org", "10.0.0.5:8000"]')
    for name in names:
        if split_host(name) is None:
            raise fail(
                "allowed_hosts",
                f"{name!r} is not a host name or address with an optional :port (write hall.example.org, "
                f"not http://hall.example.org/) / {name!r} bir ana makine adı ya da adresi değil",
            )
    return tuple(names)


def _trusted_proxies(venue_table: dict[str, Any], fail) -> tuple[str, ...]:
    """`trusted_proxies`: IP addresses or networks of reverse proxies allowed to name the client."""
    proxies = _strings(venue_table, "trusted_proxies", fail, '["127.0.0.1", "10.0.0.0/8"]')
    for proxy in proxies:
        try:
            ipaddress.ip_network(proxy, strict=False)
        except ValueError:
            raise fail(
                "trusted_proxies",
                f"{proxy!r} is not an IP address or network such as 127.0.0.1 or 10.0.0.0/8 "
                f"/ {proxy!r} bir IP adresi ya da ağı değil",
            ) from None
    return tuple(proxies)


def _tables(data: dict[str, Any], fail) -> tuple[TableConfig, ...]:
    """The `[[tables]]` entries, each with its device, wristbands and clock checked."""
    tables: list[TableConfig] = []
    for i, t in enumerate(_array(data, "tables", fail)):
        at = partial(fail, "tables", i)
        _refuse_unknown(t, TABLE_KEYS, at)
        tid = _ident(t, "id", at)
        if any(x.id == tid for x in tables):
            raise at("id", f"table {tid!r} is defined twice / masa iki kez tanımlı")
        sport = t.get("sport")
        if sport not in SPORTS:
            raise at("sport", f"unknown sport {sport!r}; known: {', '.join(SPORTS)} / bilinmeyen spor dalı")
        device, device_id, digest = _table_device(t, sport, at)
        _same_gateway_same_address(device, tables, at)
        if device_id is not None and any(x.device_id == device_id for x in tables):
            raise at("device_id", f"device {device_id!r} is already on another table / cihaz başka masada")
        wristbands = t.get("wristbands", [])
        if not (isinstance(wristbands, list) and all(isinstance(w, str) for w in wristbands)):
            raise at("wristbands", "must be a list of ble:// URLs / ble:// adresleri listesi olmalı")
        for url in wristbands:
            try:
                parse_dscore_url(url)
            except ValueError as exc:
                raise at("wristbands", f"{exc} / geçersiz bileklik adresi") from None
        clock_url, clock_id = _table_clock(t, sport, at)
        if clock_id is not None and any(clock_id in (x.device_id, x.clock_id) for x in tables):
            raise at("clock_id", f"device {clock_id!r} is already on another table / cihaz başka masada")
        tables.append(
            TableConfig(tid, sport, device, device_id, digest, tuple(wristbands), clock_url, clock_id)
        )
    return tuple(tables)


def _same_gateway_same_address(device: str | None, tables: list[TableConfig], fail) -> None:
    """Devices on one TCP gateway port must name it the same way: the hub opens one gateway per address, and
    tcp://127.0.0.1:7000 beside tcp://0.0.0.0:7000 would be two gateways on one port."""
    if device is None or not device.startswith("tcp://"):
        return
    port = parse_tcp_url(device)[1]
    gateways = [x for x in tables if x.device and x.device.startswith("tcp://") and x.device != device]
    for other in gateways:
        if parse_tcp_url(str(other.device))[1] == port:
            raise fail(
                "device",
                f"table {other.id!r} names the gateway on port {port} as {other.device}; write the same "
                f"address for every device on that port / aynı bağlantı noktasındaki cihazlar aynı adresi "
                f"yazmalı",
            )


def _table_device(t: dict[str, Any], sport: str, fail) -> tuple[str | None, str | None, str | None]:
    """A table's `device` URL, checked by the parser its session uses, with its `device_id` and token hash."""
    device = t.get("device")
    if device is not None and (not isinstance(device, str) or not device.strip()):
        raise fail("device", "must be a device URL such as serial:///dev/ttyUSB0 / cihaz adresi")
    device_id = t.get("device_id")
    if device_id is not None and not (isinstance(device_id, str) and _ID.match(device_id)):
        raise fail("device_id", "must be an id (letters, digits, '-', '_', '.') / kimlik olmalı")
    digest = t.get("device_token_sha256")
    if digest is not None and not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
        raise fail(
            "device_token_sha256", "must be 64 lowercase hex digits (a SHA-256) / SHA-256 özeti olmalı"
        )
    if device is None:
        return None, device_id, digest
    kind = device_kind(device)
    if kind in CHESS_BOARD_PROTOCOLS and sport != "chess":
        raise fail("device", f"a {kind} e-board needs a chess table / satranç masası gerekli")
    try:
        DEVICE_URL_PARSERS[kind](device)
    except ValueError as exc:
        raise fail("device", f"{exc} / {_BAD_URL[kind]}") from None
    if kind == "tcp" and device_id is None:
        raise fail("device_id", "a TCP device needs its device_id / TCP cihazı için kimlik gerekli")
    if kind == "tcp" and digest is None:
        raise fail(
            "device_token_sha256",
            "a TCP device needs the SHA-256 of its token (boardcast device-token ID) / belirteç özeti gerekli",
        )
    return device, device_id, digest


def _team_matches(data: dict[str, Any], fail) -> tuple[TeamMatchConfig, ...]:
    """The `[[team_matches]]` entries: chess team matches, each two teams in a round."""
    team_matches: list[TeamMatchConfig] = []
    for i, tm in enumerate(_array(data, "team_matches", fail)):
        at = partial(fail, "team_matches", i)
        _refuse_unknown(tm, TEAM_MATCH_KEYS, at)
        tmid = _ident(tm, "id", at)
        if any(x.id == tmid for x in team_matches):
            raise at("id", f"team match {tmid!r} is defined twice / iki kez tanımlı")
        teams = tm.get("teams")
        if not (
            isinstance(teams, list)
            and len(teams) == 2
            and all(isinstance(x, str) and x.strip() for x in teams)
        ):
            raise at("teams", 'must be two team names, ["Home", "Away"] / iki takım adı olmalı')
        rnd = tm.get("round", 1)
        if not isinstance(rnd, int) or isinstance(rnd, bool) or rnd < 1:
            raise at("round", "must be a whole number from 1 / 1 veya büyük bir tam sayı olmalı")
        team_matches.append(TeamMatchConfig(tmid, rnd, (teams[0], teams[1])))
    return tuple(team_matches)


def _matches(
    data: dict[str, Any], tables: tuple[TableConfig, ...], team_matches: tuple[TeamMatchConfig, ...], fail
) -> tuple[MatchInfo, ...]:
    """The `[[matches]]` entries, each checked against its table's sport."""
    matches: list[MatchInfo] = []
    for i, m in enumerate(_array(data, "matches", fail)):
        at = partial(fail, "matches", i)
        table = next((t for t in tables if t.id == m.get("table")), None)
        _match_keys(m, table.sport if table else None, at)
        mid = _ident(m, "id", at)
        if any(x.id == mid for x in matches):
            raise at("id", f"match {mid!r} is defined twice / maç iki kez tanımlı")
        if table is None:
            raise at("table", f"no table {m.get('table')!r} in [[tables]] / böyle bir masa yok")
        matches.append(_match(m, mid, table, team_matches, matches, at))
    return tuple(matches)


def _match_keys(m: dict[str, Any], sport: str | None, fail) -> None:
    """Refuse a key no match takes, or one another sport's matches take (best_of on a chess game)."""
    every = MATCH_KEYS + tuple(k for keys in SPORT_MATCH_KEYS.values() for k in keys)
    known = every if sport is None else MATCH_KEYS + SPORT_MATCH_KEYS.get(sport, ())
    for key in m:
        if key in known:
            continue
        if key not in every:
            raise fail(key, _unknown(key, known))
        others = [s for s, keys in SPORT_MATCH_KEYS.items() if key in keys]
        raise fail(
            key,
            f"{key} is for {' and '.join(others)} matches, not {sport}; a {sport} match takes "
            f"{', '.join(known)} / {key} bu spor dalının maçında kullanılmaz",
        )


def _match(
    m: dict[str, Any],
    mid: str,
    table: TableConfig,
    team_matches: tuple[TeamMatchConfig, ...],
    matches: list[MatchInfo],
    fail,
) -> MatchInfo:
    """One match on its table: the fields every sport has, then its sport's own."""
    rnd = m.get("round", 1)
    if not isinstance(rnd, int) or isinstance(rnd, bool) or rnd < 1:
        raise fail("round", "must be a whole number from 1 / 1 veya büyük bir tam sayı olmalı")
    doubles = m.get("doubles", False)
    if not isinstance(doubles, bool):
        raise fail("doubles", "must be true or false / true ya da false olmalı")
    wanted = 4 if doubles else 2
    players = m.get("players", [""] * wanted)
    if not (
        isinstance(players, list) and len(players) == wanted and all(isinstance(p, str) for p in players)
    ):
        shape = '["A1", "A2", "B1", "B2"]' if doubles else '["A", "B"]'
        raise fail("players", f"must be {wanted} names, {shape} / {wanted} isim olmalı")
    best_of, ruleset, first_server, first_receiver = _tabletennis_fields(m, doubles, fail)
    length, clock = 0, None
    clock_white, board, team_match = None, None, None
    if table.sport == "backgammon":
        length, clock = _backgammon_fields(m, fail)
    if table.sport == "chess":
        clock, clock_white, board, team_match = _chess_fields(m, list(team_matches), fail)
        if team_match is not None and any(x.team_match == team_match and x.board == board for x in matches):
            raise fail("board", f"board {board} of {team_match} is defined twice / masa iki kez tanımlı")
        rnd = next(t.round for t in team_matches if t.id == team_match) if team_match else rnd
    return MatchInfo(
        mid,
        table.sport,
        table.id,
        rnd,
        tuple(players),
        best_of,
        doubles,
        first_server,
        first_receiver,
        ruleset,
        length,
        clock or None,
        clock_white,
        board,
        team_match,
    )


def _tabletennis_fields(m: dict[str, Any], doubles: bool, fail) -> tuple[int, str, str | None, str | None]:
    """A table-tennis match's best_of, ruleset and toss (first server, and first receiver in doubles)."""
    best_of = m.get("best_of", 5)
    if not isinstance(best_of, int) or isinstance(best_of, bool) or best_of < 1 or best_of % 2 == 0:
        raise fail(
            "best_of",
            f"must be an odd number of games (3, 5, 7), got {best_of!r} / tek bir tam sayı olmalı",
        )
    ruleset = m.get("ruleset", "ittf")
    if ruleset not in RULESETS:
        raise fail("ruleset", f"must be one of {', '.join(RULESETS)} / geçersiz kural seti")
    sides = ("A1", "A2", "B1", "B2") if doubles else ("A", "B")
    first_server = m.get("first_server")
    if first_server is not None and first_server not in sides:
        raise fail("first_server", f"must be one of {', '.join(sides)} / geçersiz ilk servis")
    first_receiver = m.get("first_receiver")
    if first_receiver is not None:
        if not doubles or first_receiver not in sides:
            raise fail("first_receiver", "only for doubles: one of B1, B2, A1, A2 / yalnızca çiftlerde")
        if first_server is not None and first_receiver[0] == first_server[0]:
            raise fail(
                "first_receiver", "must be on the other side from first_server / karşı taraftan olmalı"
            )
    return best_of, ruleset, first_server, first_receiver


def _referees(data: dict[str, Any], fail) -> tuple[RefereeConfig, ...]:
    """The `[[referees]]` entries: a name, a role and the SHA-256 of the referee's token."""
    referees: list[RefereeConfig] = []
    for i, r in enumerate(_array(data, "referees", fail)):
        at = partial(fail, "referees", i)
        _refuse_unknown(r, REFEREE_KEYS, at)
        rname = r.get("name")
        if not isinstance(rname, str) or not rname.strip():
            raise at("name", "must be a non-empty string / boş olmayan bir metin olmalı")
        role = r.get("role", "referee")
        if role not in _ROLES:
            raise at("role", f"must be one of {', '.join(_ROLES)} / geçersiz rol")
        digest = r.get("token_sha256")
        if not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
            raise at("token_sha256", "must be 64 lowercase hex digits (a SHA-256) / SHA-256 özeti olmalı")
        if any(x.name == rname for x in referees):  # the audit names referees: a name must say who
            raise at("name", f"referee {rname!r} is listed twice / hakem iki kez yazılmış")
        referees.append(RefereeConfig(rname, role, digest))
    return tuple(referees)


def _players(data: dict[str, Any], fail) -> tuple[PlayerConfig, ...]:
    """The `[[players]]` entries: a name, optional club and city (public), phone and e-mail (referees only)."""
    players: list[PlayerConfig] = []
    for i, p in enumerate(_array(data, "players", fail)):
        at = partial(fail, "players", i)
        _refuse_unknown(p, PLAYER_KEYS, at)
        pname = p.get("name")
        if not isinstance(pname, str) or not pname.strip():
            raise at("name", "must be a non-empty string / boş olmayan bir metin olmalı")
        if any(x.name == pname for x in players):
            raise at("name", f"player {pname!r} is listed twice / oyuncu iki kez yazılmış")
        for key in ("club", "city", "phone", "email"):
            if key in p and not isinstance(p[key], str):
                raise at(key, "must be text / metin olmalı")
        email = p.get("email")
        if email is not None and not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", email):
            raise at("email", f"{email!r} is not an e-mail address / geçersiz e-posta")
        phone = p.get("phone")
        if phone is not None and not re.fullmatch(r"\+?[0-9 ()-]{5,24}", phone):
            raise at("phone", f"{phone!r} is not a phone number / geçersiz telefon")
        players.append(PlayerConfig(pname, p.get("club", ""), p.get("city", ""), phone, email))
    return tuple(players)


def device_protocol(url: str) -> str | None:
    """The `protocol=` a device URL names (dgt, chessnut, dscore, wire), or None for Boardcast Wire."""
    try:
        values = parse_qs(urlsplit(url).query).get("protocol")
    except ValueError:  # not a URL at all (urlsplit refuses "serial://[x"): its parser says why
        return None
    return values[-1] if values else None


def device_kind(url: str) -> str:
    """Which session reads a table's device, as hub/app.py `_session` and `_opener` choose it: "dgt" and
    "chessnut" by `protocol=`, else Boardcast Wire over "tcp", "ble" or "serial" (any port pyserial opens)."""
    protocol = device_protocol(url)
    if protocol in CHESS_BOARD_PROTOCOLS:
        return protocol
    if url.startswith("tcp://"):
        return "tcp"
    return "ble" if url.startswith("ble://") else "serial"


# The parser each kind of session checks its URL with when the hub starts: the venue check calls the same.
DEVICE_URL_PARSERS = {
    **CHESS_BOARD_PROTOCOLS,
    "tcp": parse_tcp_url,
    "ble": parse_wire_ble_url,
    "serial": parse_wire_serial_url,
}
_BAD_URL = {
    "dgt": "geçersiz satranç tahtası adresi",
    "chessnut": "geçersiz satranç tahtası adresi",
    "tcp": "geçersiz TCP adresi",
    "ble": "geçersiz BLE adresi",
    "serial": "geçersiz cihaz adresi",
}


def _table_clock(t: dict[str, Any], sport: str, fail) -> tuple[str | None, str | None]:
    """A chess table's separate clock device (URL and optional id), for boards without a clock of their own."""
    url, clock_id = t.get("clock"), t.get("clock_id")
    if url is None:
        if clock_id is not None:
            raise fail("clock_id", "needs a clock URL beside it / yanında saat adresi gerekli")
        return None, None
    if sport != "chess":
        raise fail(
            "clock", "only a chess table has a separate clock / ayrı saat yalnızca satranç masasında olur"
        )
    if not isinstance(url, str) or not url.strip() or url.startswith("tcp://"):
        raise fail(
            "clock",
            "must be a serial or ble:// URL of a Boardcast Wire chess clock / seri ya da ble:// saat adresi olmalı",
        )
    try:  # a Boardcast Wire session, as hub/app.py `_opener` makes for it
        (parse_wire_ble_url if url.startswith("ble://") else parse_wire_serial_url)(url)
    except ValueError as exc:
        raise fail("clock", f"{exc} / geçersiz saat adresi") from None
    if clock_id is not None and not (isinstance(clock_id, str) and _ID.match(clock_id)):
        raise fail("clock_id", "must be an id (letters, digits, '-', '_', '.') / kimlik olmalı")
    return url, clock_id


def _chess_fields(
    m: dict[str, Any], team_matches: list[TeamMatchConfig], fail
) -> tuple[str | None, str | None, int | None, str | None]:
    """A chess game's time control, clock side for White, board number and team match."""
    from hub.rules.chess import ChessConfig  # the rules own the time-control notation

    if m.get("doubles", False):
        raise fail("doubles", "chess is played one against one / satranç bire bir oynanır")
    control = m.get("time_control")
    if control is not None:
        if not isinstance(control, str):
            raise fail("time_control", 'must be text such as "5400+30" / "5400+30" gibi bir metin olmalı')
        try:
            ChessConfig.from_text(control)
        except ValueError as exc:
            raise fail("time_control", str(exc)) from None
    clock_white = m.get("clock_white")
    if clock_white not in (None, "left", "right"):
        raise fail("clock_white", 'must be "left" or "right" / "left" ya da "right" olmalı')
    team_match = m.get("team_match")
    board = m.get("board")
    if team_match is None:
        if board is not None:
            raise fail("board", "a board number needs its team_match / masa numarası takım maçıyla verilir")
        return control, clock_white, None, None
    if not any(t.id == team_match for t in team_matches):
        raise fail(
            "team_match", f"no team match {team_match!r} in [[team_matches]] / böyle bir takım maçı yok"
        )
    if not isinstance(board, int) or isinstance(board, bool) or board not in CHESS_BOARD_CATEGORIES:
        raise fail("board", f"must be a board number 1-8, got {board!r} / 1-8 arası masa numarası olmalı")
    return control, clock_white, board, team_match


def _backgammon_fields(m: dict[str, Any], fail) -> tuple[int, str]:
    """A backgammon match's `length` (required, at least 1) and optional `clock`, as (length, clock text).

    The clock is kept as text (`simple:600:12`, mode:reserve_s:delay_s) in MatchInfo.clock.
    """
    if m.get("doubles", False):
        raise fail("doubles", "backgammon is played one against one / tavla bire bir oynanır")
    length = m.get("length")
    if not isinstance(length, int) or isinstance(length, bool) or length < 1:
        raise fail(
            "length",
            f"a backgammon match needs its length in points, a whole number from 1, got {length!r} "
            f"/ maç uzunluğu (puan) 1 veya büyük bir tam sayı olmalı",
        )
    clock = m.get("clock")
    if clock is None:
        return length, ""
    if not isinstance(clock, dict):
        raise fail(
            "clock", 'must be a table: {mode = "simple", reserve_s = 600, delay_s = 12} / tablo olmalı'
        )
    unknown = [key for key in clock if key not in BACKGAMMON_CLOCK_KEYS]
    if unknown:
        nearest = _nearest(unknown[0], BACKGAMMON_CLOCK_KEYS)
        hint = (f"; did you mean {nearest}?", f"; {nearest} mı demek istediniz?") if nearest else ("", "")
        raise fail(
            "clock",
            f"unknown keys {', '.join(sorted(unknown))}; known: mode, reserve_s, delay_s{hint[0]} "
            f"/ bilinmeyen alan{hint[1]}",
            at=f"clock.{unknown[0]}",
        )
    mode = clock.get("mode", "simple")
    if mode not in ("simple", "bronstein"):
        raise fail("clock.mode", f'must be "simple" or "bronstein", got {mode!r} / geçersiz saat türü')
    reserve = clock.get("reserve_s", 600)
    if not isinstance(reserve, int | float) or isinstance(reserve, bool) or reserve <= 0:
        raise fail(
            "clock.reserve_s",
            f"must be a positive number of seconds, got {reserve!r} / pozitif saniye olmalı",
        )
    delay = clock.get("delay_s", 12)
    if not isinstance(delay, int | float) or isinstance(delay, bool) or delay < 0:
        raise fail(
            "clock.delay_s", f"must be a number of seconds >= 0, got {delay!r} / 0 veya büyük saniye olmalı"
        )
    return length, f"{mode}:{float(reserve):g}:{float(delay):g}"


def _array(data: dict[str, Any], key: str, fail) -> list[dict[str, Any]]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise fail(key, None, None, f"must be written as [[{key}]] entries / [[{key}]] biçiminde olmalı")
    return value


def _ident(entry: dict[str, Any], key: str, fail) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not _ID.match(value):
        raise fail(
            key,
            f"missing or not an id (letters, digits, '-', '_', '.'; up to 64): {value!r} "
            f"/ eksik ya da geçersiz kimlik",
        )
    return value
