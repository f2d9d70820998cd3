"""Reading a venue file: TOML in, a checked `Venue` out, or one `VenueError` naming file, line and field.

The `[venue]` settings, `[[tables]]`, `[[team_matches]]`, `[[referees]]` and `[[players]]` are checked here;
devices (`hub.venue.devices`), matches (`hub.venue.matches`) and the venue's wording of rules
(`hub.venue.rules`) have modules of their own.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from hub.rules.registry import SPORTS
from hub.rules.terms import number_pair
from hub.server.limits import split_host
from hub.tournament.tiebreaks import parse_tiebreaks
from hub.venue.devices import (
    same_gateway_same_address,
    table_clock,
    table_device,
    table_orientation,
    table_wristbands,
)
from hub.venue.keys import (
    FORFEIT_KEYS,
    PLAYER_KEYS,
    REFEREE_KEYS,
    SCREEN_KEYS,
    TABLE_KEYS,
    TEAM_MATCH_KEYS,
    TOP_KEYS,
    TOURNAMENT_KEYS,
    VENUE_KEYS,
    Locator,
    entries,
    ident,
    nearest_key,
    refuse_unknown,
    unknown_key,
)
from hub.venue.matches import parse_matches
from hub.venue.model import (
    CHESS_BOARD_CATEGORIES,
    FORFEIT_RESULTS,
    BoardForfeit,
    EngineSettings,
    Fail,
    FileFail,
    PerformanceSettings,
    PlayerConfig,
    RefereeConfig,
    TableConfig,
    TeamMatchConfig,
    TournamentConfig,
    Venue,
    VenueError,
)
from hub.venue.rules import parse_rules

_ROLES = ("referee", "chief", "umpire")  # an umpire scores their own tables, nothing more


def file_stamp(path: Path) -> tuple[int, int] | None:
    """When a file last changed and its size, to see that it changed; None when it cannot be read."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


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
    loc = Locator(text)

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
            raise fail(None, None, key, unknown_key(key, TOP_KEYS, table=bool(is_table)))
    venue_table = data.get("venue", {})
    if not isinstance(venue_table, dict):
        raise fail("venue", None, None, "must be a table ([venue]) / [venue] bir tablo olmalı")
    refuse_unknown(venue_table, VENUE_KEYS, partial(fail, "venue", None))
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
    chances = venue_table.get("winning_chances", True)
    if not isinstance(chances, bool):
        raise fail("venue", None, "winning_chances", "must be true or false / true ya da false olmalı")
    engine = _settings(venue_table, "engine", EngineSettings, _ENGINE_RANGES, partial(fail, "venue", None))
    performance = _settings(
        venue_table, "performance", PerformanceSettings, _PERFORMANCE_RANGES, partial(fail, "venue", None)
    )
    allowed_hosts = _allowed_hosts(venue_table, partial(fail, "venue", None))
    trusted_proxies = _trusted_proxies(venue_table, partial(fail, "venue", None))
    team_matches = _team_matches(data, fail)
    matches = parse_matches(data, tables, team_matches, fail)
    referees = _referees(data, tuple(t.id for t in tables), fail)
    players = _players(data, fail)
    rules = parse_rules(data, loc, path)
    tournament = _tournament(data, path, partial(fail, "tournament", None))
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
        winning_chances=chances,
        engine=engine,
        performance=performance,
        hall_screens=_screens(data, fail),
        allowed_hosts=allowed_hosts,
        trusted_proxies=trusted_proxies,
        rules=rules,
        tournament=tournament,
    )


# `[venue] engine`: each key's type and range (a thread per core at most)
_ENGINE_RANGES: dict[str, tuple[int, int]] = {
    "movetime_ms": (10, 60_000),
    "threads": (1, os.cpu_count() or 1),
    "hash_mb": (1, 4096),
}


# `[venue] performance`: the analysis's ply (2 plies is ~400× the time of 0: a hall's boards would wait)
_PERFORMANCE_RANGES: dict[str, tuple[int, int]] = {"ply": (0, 2)}

Settings = TypeVar("Settings", EngineSettings, PerformanceSettings)


def _settings(
    venue_table: dict[str, Any],
    name: str,
    make: type[Settings],
    ranges: dict[str, tuple[int, int]],
    fail: Fail,
) -> Settings:
    """A `[venue]` table of an analysis's settings, e.g. `engine = { enabled = true, movetime_ms = 300 }`:
    `enabled` and whole numbers in their ranges, each optional, no other key."""
    table = venue_table.get(name, {})
    if not isinstance(table, dict):
        raise fail(name, "must be a table, e.g. { enabled = true } / bir tablo olmalı")
    for key in table:
        if key != "enabled" and key not in ranges:
            raise fail(f"{name}.{key}", unknown_key(key, ("enabled", *ranges)))
    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        raise fail(f"{name}.enabled", "must be true or false / true ya da false olmalı")
    numbers: dict[str, int] = {}
    for key, (low, high) in ranges.items():
        value = table.get(key, getattr(make(), key))
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise fail(
                f"{name}.{key}",
                f"must be a whole number from {low} to {high}, got {value!r} / {low} ile {high} arasında bir tam "
                f"sayı olmalı",
            )
        numbers[key] = value
    return make(enabled, **numbers)


def _strings(venue_table: dict[str, Any], key: str, fail: Fail, shape: str) -> list[str]:
    """A `[venue]` list of strings, or [] when absent."""
    value = venue_table.get(key, [])
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise fail(key, f"must be a list of strings such as {shape} / metin listesi olmalı: {shape}")
    return value


def _allowed_hosts(venue_table: dict[str, Any], fail: Fail) -> tuple[str, ...]:
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


def _trusted_proxies(venue_table: dict[str, Any], fail: Fail) -> tuple[str, ...]:
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


def _tables(data: dict[str, Any], fail: FileFail) -> tuple[TableConfig, ...]:
    """The `[[tables]]` entries, each with its device, wristbands and clock checked."""
    tables: list[TableConfig] = []
    for at, t in entries(data, "tables", TABLE_KEYS, fail):
        tid = ident(t, "id", at)
        if any(x.id == tid for x in tables):
            raise at("id", f"table {tid!r} is defined twice / masa iki kez tanımlı")
        sport = t.get("sport")
        if sport not in SPORTS:
            raise at("sport", f"unknown sport {sport!r}; known: {', '.join(SPORTS)} / bilinmeyen spor dalı")
        device, device_id, digest = table_device(t, sport, at)
        same_gateway_same_address(device, tables, at)
        if device_id is not None and any(x.device_id == device_id for x in tables):
            raise at("device_id", f"device {device_id!r} is already on another table / cihaz başka masada")
        wristbands = table_wristbands(t, at)
        clock_url, clock_id = table_clock(t, sport, at)
        if clock_id is not None and any(clock_id in (x.device_id, x.clock_id) for x in tables):
            raise at("clock_id", f"device {clock_id!r} is already on another table / cihaz başka masada")
        orientation = table_orientation(t, sport, at)
        tables.append(
            TableConfig(tid, sport, device, device_id, digest, wristbands, clock_url, clock_id, orientation)
        )
    return tuple(tables)


def _team_matches(data: dict[str, Any], fail: FileFail) -> tuple[TeamMatchConfig, ...]:
    """The `[[team_matches]]` entries: team matches, each two teams in a round."""
    team_matches: list[TeamMatchConfig] = []
    for at, tm in entries(data, "team_matches", TEAM_MATCH_KEYS, fail):
        tmid = ident(tm, "id", at)
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
        pairing = number_pair(tm, "pairing", at, least=1, what="team numbers")
        forfeits = _board_forfeits(tm.get("forfeits", []), at)
        team_matches.append(TeamMatchConfig(tmid, rnd, (teams[0], teams[1]), pairing, forfeits))
    return tuple(team_matches)


def _referees(
    data: dict[str, Any], known_tables: tuple[str, ...], fail: FileFail
) -> tuple[RefereeConfig, ...]:
    """The `[[referees]]` entries: a name, a role, the SHA-256 of the token and an umpire's tables."""
    referees: list[RefereeConfig] = []
    for at, r in entries(data, "referees", REFEREE_KEYS, fail):
        rname = r.get("name")
        if not isinstance(rname, str) or not rname.strip():
            raise at("name", "must be a non-empty string / boş olmayan bir metin olmalı")
        role = r.get("role", "referee")
        if role not in _ROLES:
            near = nearest_key(str(role), _ROLES)
            hint = f"; did you mean {near!r}?" if near else ""
            raise at("role", f"must be one of {', '.join(_ROLES)}, got {role!r}{hint} / geçersiz rol")
        digest = r.get("token_sha256")
        if not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
            raise at("token_sha256", "must be 64 lowercase hex digits (a SHA-256) / SHA-256 özeti olmalı")
        if any(x.name == rname for x in referees):  # the audit names referees: a name must say who
            raise at("name", f"referee {rname!r} is listed twice / hakem iki kez yazılmış")
        referees.append(RefereeConfig(rname, role, digest, _umpire_tables(r, role, known_tables, at)))
    return tuple(referees)


def _umpire_tables(entry: dict[str, Any], role: str, known: tuple[str, ...], at: Fail) -> tuple[str, ...]:
    """An umpire's `tables`: the venue's tables the umpire's token scores (a referee needs none)."""
    tables = entry.get("tables")
    if role != "umpire":
        if tables is not None:
            raise at(
                "tables",
                "only an umpire is given tables; a referee may use every table / yalnız "
                "yardımcı hakeme masa verilir; hakem her masayı kullanabilir",
            )
        return ()
    if not isinstance(tables, list) or not tables or not all(isinstance(t, str) for t in tables):
        raise at(
            "tables",
            'an umpire needs the tables they score, e.g. tables = ["T3", "T4"] / yardımcı '
            "hakemin masaları gerekli",
        )
    for table in tables:
        if table not in known:
            raise at(
                "tables",
                f"no table {table!r} in this venue (its tables: {', '.join(known)}) / "
                f"salonda {table!r} masası yok",
            )
    return tuple(dict.fromkeys(tables))


def _players(data: dict[str, Any], fail: FileFail) -> tuple[PlayerConfig, ...]:
    """The `[[players]]` entries: a name, optional club and city (public), phone and e-mail (referees only)."""
    players: list[PlayerConfig] = []
    for at, p in entries(data, "players", PLAYER_KEYS, fail):
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


def _screens(data: dict[str, Any], fail: FileFail) -> tuple[str, ...]:
    """The `[[screens]]` entries: the names of the screens in the playing area (a page opened with
    `?screen=NAME`), which show no analysis whatever the venue's settings."""
    names: list[str] = []
    for at, entry in entries(data, "screens", SCREEN_KEYS, fail):
        name = entry.get("name")
        if name is None:
            raise at("name", "is required: the screen's name, as in ?screen=NAME / gerekli: ekranın adı")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", name):
            raise at(
                "name",
                f"must be 1 to 40 letters, digits, . _ -, got {name!r} / 1-40 harf, rakam, . _ - olmalı",
            )
        if name in names:
            raise at("name", f"screen {name!r} is listed twice / ekran iki kez yazılmış")
        names.append(name)
    return tuple(names)


def _tournament(data: dict[str, Any], path: Path, fail: Fail) -> TournamentConfig | None:
    """`[tournament]`: the report file of the event (a path from the venue file's folder) and its standings."""
    section = data.get("tournament")
    if section is None:
        return None
    if not isinstance(section, dict):
        raise fail(None, "must be a table ([tournament]) / [tournament] bir tablo olmalı")
    refuse_unknown(section, TOURNAMENT_KEYS, fail)
    trf = section.get("trf")
    if not isinstance(trf, str) or not trf.strip():
        raise fail("trf", 'must name the report file, such as "event.trf" / rapor dosyasının adı olmalı')
    names = section.get("tiebreaks", [])
    if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
        raise fail("tiebreaks", 'must be a list such as ["MP", "BH-1", "GP", "DE"] / liste olmalı')
    try:
        parse_tiebreaks(names)
    except ValueError as exc:
        raise fail("tiebreaks", str(exc)) from None
    min_games = section.get("board_prize_min_games", 0)
    if not isinstance(min_games, int) or isinstance(min_games, bool) or min_games < 0:
        raise fail("board_prize_min_games", "must be a whole number from 0 / 0 veya büyük tam sayı olmalı")
    return TournamentConfig((path.parent / trf).resolve(), tuple(names), min_games)


def _entry_fail(fail: Fail, number: int, message: str) -> VenueError:
    """An error in entry `number` of a team match's `forfeits`, naming the entry."""
    return fail("forfeits", f"entry {number}: {message}")


def _board_forfeits(value: Any, fail: Fail) -> tuple[BoardForfeit, ...]:
    """A team match's `forfeits`: boards decided before play, `{board = 3, players = ["W", "B"], result = "1-0F"}`."""
    shape = '[{board = 3, players = ["White", "Black"], result = "1-0F"}]'
    if not (isinstance(value, list) and all(isinstance(f, dict) for f in value)):
        raise fail("forfeits", f"must be a list such as {shape} / liste olmalı: {shape}")
    out: list[BoardForfeit] = []
    for number, entry in enumerate(value, start=1):
        at = partial(_entry_fail, fail, number)
        for key in entry:
            if key not in FORFEIT_KEYS:
                raise at(unknown_key(key, FORFEIT_KEYS))
        board, players, result = entry.get("board"), entry.get("players"), entry.get("result")
        if not isinstance(board, int) or isinstance(board, bool) or board not in CHESS_BOARD_CATEGORIES:
            raise at(f"board must be 1-8, got {board!r} / masa 1-8 arası olmalı")
        if any(f.board == board for f in out):
            raise at(f"board {board} is listed twice / masa iki kez yazılmış")
        if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) for p in players)):
            raise at('players must be two names, White first, ["White", "Black"] / iki isim olmalı')
        if result not in FORFEIT_RESULTS:
            raise at(f"result must be one of {', '.join(FORFEIT_RESULTS)}, got {result!r} / geçersiz sonuç")
        out.append(BoardForfeit(board, (players[0], players[1]), result))
    return tuple(out)
