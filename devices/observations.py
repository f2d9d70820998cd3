"""What devices report, as frozen values that know nothing of matches or the hub.

Every transport and codec in `devices` turns bytes into these values; `hub` binds them to tables and
matches. Nothing here imports `hub`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Literal, get_args


class DeviceFamily(enum.StrEnum):
    """Boardcast Wire device families."""

    TT_SCOREBOARD = "tt-scoreboard"
    BACKGAMMON_BOARD = "backgammon-board"
    CHESS_CLOCK = "chess-clock"
    CHESS_BOARD = (
        "chess-board"  # an e-board: piece placement, and the clock of boards that have one through them
    )
    TT_WRISTBAND = "tt-wristband"  # an umpire's wristband: point and undo buttons, no display


class Ends(enum.StrEnum):
    """Which way round the sides play, as a table-tennis board shows it."""

    NORMAL = "normal"  # side 0 on the left, as at the start of the match
    SWAPPED = "swapped"


DOUBLES_PLAYERS = ("A1", "A2", "B1", "B2")  # side 0 is pair A, side 1 is pair B


@dataclass(frozen=True, slots=True)
class DeviceHello:
    """A device announcing itself after boot or on request."""

    device_id: str
    family: str
    model: str
    firmware: str
    protocol: int
    boot_epoch: int
    capabilities: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """A device saying it is alive, with what it knows of its own health."""

    battery: int | None = None  # percent, None when mains-powered or unknown
    uptime_s: int | None = None


@dataclass(frozen=True, slots=True)
class ScoreboardState:
    """A table-tennis scoreboard's full display: what a spectator at the table would read."""

    points: tuple[int, int]
    games: tuple[int, int]
    server: int | None = None  # 0 or 1: the side the device shows as serving; never trusted by the rules
    game_scores: tuple[tuple[int, int], ...] = ()  # finished games, when the device keeps them
    ends: str | None = None  # "normal" (side 0 on the left) | "swapped" | None when the board cannot tell
    expedite: bool | None = None  # the board's expedite indicator, None if it has none
    server_player: str | None = None  # doubles: "A1" | "A2" | "B1" | "B2"; None in singles or unknown


@dataclass(frozen=True, slots=True)
class DeviceEvent:
    """A discrete event a device reports (a button, a time-out, a card); kind is family-specific."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


DICE_SOURCES = ("keypad", "app", "camera")  # where a backgammon board's dice came from
# what a backgammon resignation gives up, times the cube: 1 a single game, 2 a gammon, 3 a backgammon
ResignValue = Literal[1, 2, 3]
RESIGN_VALUES: tuple[int, ...] = get_args(ResignValue)


@dataclass(frozen=True, slots=True)
class BackgammonBoardState:
    """A backgammon board's full state: checkers, dice, cube and whose turn the board shows.

    `points[i]` is point i+1 counted from side 0's home board: positive counts side 0's checkers, negative
    side 1's. During the opening roll `dice` is (side 0's die, side 1's die). `cube_owner` and `turn` are what
    the board shows; the rules never trust them.
    """

    points: tuple[int, ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    dice: tuple[int, int] | None = None
    dice_source: str | None = None  # "keypad" | "app" | "camera" | None
    cube_value: int = 1
    cube_owner: int | None = None
    turn: int | None = None


@dataclass(frozen=True, slots=True)
class BackgammonBoardEvent:
    """Something that happens at a backgammon board: a clock press, a cube action, a roll, cocked dice.

    Kept apart from `DeviceEvent` so the hub reads it with backgammon's rules: `kind` is one of "press",
    "cube", "roll", "invalid_dice", "opening", "resign", "accept", "reject", and `data` was checked field by field when decoded.
    """

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChessBoardState:
    """An e-board's squares as the placement part of a FEN ("rnbqkbnr/pppppppp/8/…"), a8 first, as seen
    from White whatever way round the board stands. Never a move: boards scan square by square, so a move
    arrives as several states (lift, place, slide) that the rules must settle. `magic` names squares holding
    an e-board's result pieces ("e4=white_wins"), which a FEN cannot place."""

    board_fen: str
    magic: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ChessClockState:
    """A chess clock's display: sides are the clock's left (0) and right (1) as it stands on the table,
    never colours; binding them to White and Black is the rules' job.

    `remaining_ms` is what each side shows (a clock read through its board: whole seconds). `running` is the
    side whose time runs, None when stopped. `flags` are the fallen flags (the clock blocked at zero);
    `period_flags` the flags a multi-period clock shows while it keeps running into the next period.
    `moves` and `period` only come from clocks that count them (Boardcast Wire), else None.
    """

    remaining_ms: tuple[int, int]
    running: int | None = None
    flags: tuple[bool, bool] = (False, False)
    period_flags: tuple[bool, bool] = (False, False)
    time_per_move: bool | None = None  # the increment/delay icon, when the clock shows one
    resolution_ms: int = 1000
    moves: tuple[int, int] | None = None
    period: int | None = None


Report = (
    DeviceHello
    | Heartbeat
    | ScoreboardState
    | DeviceEvent
    | BackgammonBoardState
    | BackgammonBoardEvent
    | ChessBoardState
    | ChessClockState
)


@dataclass(frozen=True, slots=True)
class Observation:
    """One report from one device, keyed so that the hub can store it exactly once.

    `seq` is the device's frame counter unwrapped to a growing integer within one `boot_epoch`.
    `raw` is the frame exactly as received, so the log keeps what the device said, not our reading of it.
    """

    device_id: str
    boot_epoch: int
    seq: int
    received_at: float
    report: Report
    raw: bytes = b""


class LinkState(enum.StrEnum):
    """Where a device connection stands."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"


@dataclass(frozen=True, slots=True)
class LinkChange:
    """A device connection changing state; `detail` says why in words an organiser can act on."""

    url: str
    state: LinkState
    at: float
    detail: str = ""
    device_id: str | None = None
    attempt: int = 0
