"""The venue's model: tables, referees, players, team matches and the venue itself, as read from its file.

Plain frozen dataclasses and the error a bad file raises; reading and checking the file is `hub.venue.parse`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from hub.articles import RuleOverride
from hub.matches import MatchInfo
from hub.rules.registry import SPORTS

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class VenueError(ValueError):
    """A venue file that cannot be used; str() is the message for the organiser."""

    def __init__(self, path: Path, line: int | None, field: str, message: str) -> None:
        self.path, self.line, self.field = path, line, field
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {field}: {message}")


class Fail(Protocol):
    """The error maker for one place in the file: a key of it (None for the place itself) and the message;
    `at` is the key path to point the line at, when it is not the key's."""

    def __call__(self, key: str | None, message: str, /, at: str | None = None) -> VenueError: ...


class FileFail(Protocol):
    """The error maker for the whole file: `Fail` with the place named, its section and entry index."""

    def __call__(
        self, section: str | None, index: int | None, key: str | None, message: str, /, at: str | None = None
    ) -> VenueError: ...


@dataclass(frozen=True, slots=True)
class TableConfig:
    """A table and the device that reports from it."""

    id: str
    sport: str
    device: str | None = None  # a device URL: serial:///dev/ttyUSB0, /dev/pts/3, socket://host:port
    device_id: str | None = None  # the id the device must announce, when known
    device_token_sha256: str | None = None  # for devices that connect over TCP: SHA-256 of their token
    wristbands: tuple[str, ...] = ()  # umpire wristbands: ble:// URLs with protocol= and side=
    clock: str | None = None  # a separate clock (Boardcast Wire clock), when the board has none
    clock_id: str | None = None  # the id that clock must announce, when known
    orientation: str = "auto"  # the board's way round, "normal" | "rotated", or "auto" (detected)


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """A referee who may act in the console, or an umpire who scores their tables from a browser device, identified by a token
    stored only as its hash."""

    name: str
    role: str  # "referee", "chief" or "umpire"
    token_sha256: str
    tables: tuple[str, ...] = ()  # an umpire's: the tables the token scores

    @property
    def umpire(self) -> bool:
        """Whether this is an umpire's token: it scores its tables and opens no referee route."""
        return self.role == "umpire"

    def may_score(self, table: str) -> bool:
        """Whether this token may score `table` from a browser device: a referee's any table, an umpire's their own."""
        return not self.umpire or table in self.tables


@dataclass(frozen=True, slots=True)
class PlayerConfig:
    """A player's public details, and the contacts only referees and the organiser may see (the tournament
    rules §14)."""

    name: str
    club: str = ""
    city: str = ""
    phone: str | None = None  # private: never in a spectator view
    email: str | None = None  # private: never in a spectator view


# team matches are played on boards by the sport whose rounds come from the pairing program's report file
_BOARDS_SPORT = next(sport for sport in SPORTS.values() if sport.paired_rounds)
CHESS_BOARD_CATEGORIES = _BOARDS_SPORT.board_categories  # a team match's boards, by number
CHESS_TITLES = _BOARDS_SPORT.player_titles  # players' titles as its records write them

FORFEIT_RESULTS = ("1-0F", "0-1F", "0-0F")  # White won, Black won, neither came; the game was not played


@dataclass(frozen=True, slots=True)
class BoardForfeit:
    """A board of a team match decided by forfeit before it was played: no game, no table."""

    board: int
    players: tuple[str, str]  # White first, as if played
    result: str  # one of FORFEIT_RESULTS


@dataclass(frozen=True, slots=True)
class TeamMatchConfig:
    """A team match: two teams on up to eight boards; its games are the matches that name it."""

    id: str
    round: int
    teams: tuple[str, str]  # the first-named team has White on the odd boards unless a game says otherwise
    pairing: tuple[int, int] | None = None  # the two teams' numbers in the tournament file
    forfeits: tuple[BoardForfeit, ...] = ()  # boards decided by forfeit: no game is played on them


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """The event a venue's paired rounds belong to: the pairing program's report file and the standings."""

    trf: Path  # the report file, as a path from the venue file's folder resolved
    tiebreaks: tuple[str, ...] = ()  # as the venue names them ("BH-1", "BH/C1"); empty: the event's usual
    board_prize_min_games: int = 0  # games a player needs for a board prize; 0: no board prizes


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """An analysis engine's share of the machine, for spectators' evaluations: on or off, the time it may
    search a position, and its threads and hash for the whole hub (`[venue] engine`)."""

    enabled: bool = True
    movetime_ms: int = 300
    threads: int = 1
    hash_mb: int = 64


@dataclass(frozen=True, slots=True)
class PerformanceSettings:
    """Players' performance ratings for spectators, where a sport has them (`[venue] performance`): on or off,
    and the ply of the analysis (0 is the quick net; each ply more looks a roll further, ~20× the time)."""

    enabled: bool = True
    ply: int = 0


@dataclass(frozen=True, slots=True)
class Venue:
    """A whole venue, as read from its file."""

    name: str
    tables: tuple[TableConfig, ...]
    matches: tuple[MatchInfo, ...]
    referees: tuple[RefereeConfig, ...] = ()
    path: Path | None = None
    team_matches: tuple[TeamMatchConfig, ...] = ()
    broadcast_delay_s: float = 0.0  # spectators see a delayed sport's games this late (anti-cheating)
    players: tuple[PlayerConfig, ...] = ()  # optional: clubs, cities and the private contacts of players
    show_referee_names: bool = False  # spectators see who confirmed, corrected, decided (notes: never)
    winning_chances: bool = True  # screens show a sport's winning chances (`SportRules.attach_spectators`)
    engine: EngineSettings = EngineSettings()  # an engine's evaluation on screens, where a sport has one
    performance: PerformanceSettings = (
        PerformanceSettings()
    )  # players' performance ratings, where a sport has them
    hall_screens: tuple[str, ...] = ()  # screens in the playing area (`[[screens]]`): never any analysis
    allowed_hosts: tuple[str, ...] = ()  # names the web edge answers to, besides its listen address
    trusted_proxies: tuple[str, ...] = ()  # reverse proxies whose X-Forwarded-For names the client
    rules: dict[str, RuleOverride] = field(default_factory=dict, hash=False)  # the venue's wording, by code
    tournament: TournamentConfig | None = None  # the event of the paired rounds, when it has a report file

    def table(self, table_id: str) -> TableConfig:
        """The table with this id."""
        return next(t for t in self.tables if t.id == table_id)
