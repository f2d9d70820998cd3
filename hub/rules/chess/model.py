"""The chess rules' data: constants, the configuration, the inputs, the state and what a board means.

`Game` is python-chess's view of the moves (derived, never serialised); `Out` collects what one input
produced; the helpers at the end answer questions about a state (colours, clock sides, times).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import chess

from devices.observations import ChessBoardState, ChessClockState, DeviceEvent
from hub.rules import clock as clk
from hub.rules.base import Anomaly, Fact, Severity
from hub.rules.chess.timecontrol import parse_time_control, time_control_text
from hub.rules.names import colour_mark

# --- constants ------------------------------------------------------------------------------------------

RESULTS = ("1-0", "0-1", "1/2-1/2")
SIDE_NAMES = ("left", "right")
COLOUR_NAMES = {chess.WHITE: "white", chess.BLACK: "black"}
REFEREE_INPUTS = ("keep_illegal", "set_result", "take_back", "clock_sides", "orientation")
# how a result the board cannot see came about (FIDE Laws 5.1.2 resignation, 9.1.2 agreement, 6.7/11 forfeit
# and arbiter's decisions); it becomes the game's result_reason and the PGN's Termination
RESULT_HOWS = ("resignation", "agreement", "flag", "forfeit", "arbiter")  # flag: time, no clock said it
CENTRE = chess.BB_D4 | chess.BB_E4 | chess.BB_D5 | chess.BB_E5
MAGIC_RESULTS = {"white_wins": "1-0", "black_wins": "0-1", "draw": "1/2-1/2"}
BOARD_ENDINGS = (
    "checkmate",
    "stalemate",
    "insufficient_material",
    "seventyfive_moves",
    "fivefold_repetition",
)
COLOUR_TR = {chess.WHITE: "Beyaz", chess.BLACK: "Siyah"}
SIDE_TR = ("sol", "sağ")
LEARN_FRESH_S = 1.5  # a clock reading this recent before a press shows the increment to the second
MEMO_LIMIT = 64  # classified boards kept per game position
RECENT = 16  # boards remembered since the game last changed
EARLY_PRESSES = 2  # presses kept waiting for their plies (more are presses with no move)
CORRECTION_PLIES = 2  # how far back a different move may replace the game's (only plies not yet pressed)
GAP_PLIES = 4  # how far ahead of the game a board may be after a gap (a reconnect, lost updates) and be read
GAP_BUDGET = (
    1500  # plies tried at most in that search (~50 ms at worst); a board that needs more is not guessed
)
# how a board lies on the table: "normal" (a1 at White's left), "rotated" (a1 at Black's left), or "auto"
ORIENTATIONS = ("auto", "normal", "rotated")


# --- configuration --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChessConfig:
    """A game's rules: its time control, which clock side is White's, and the reconstruction thresholds."""

    control: clk.TimeControl | None = None
    clock_white: str | None = None  # "left" | "right" | None: learn it from the clock
    settle_s: float = 0.3  # a board unchanged this long is read (a board scan takes 0.2-0.5 s)
    extend_s: float = 1.0  # a move that could still grow waits this long (or for the clock press)
    illegal_s: float = 5.0  # an illegal-looking board unchanged this long is flagged (a press flags at once)
    mismatch_s: float = 10.0  # a board out of step with the game this long is flagged
    flag_slack_s: float = 2.0  # a running clock this far past zero with no reading is taken as fallen
    # a game whose board and stopped clock have not changed this long is waiting for a result it cannot see
    quiet_s: float = 180.0
    orientation: str = "auto"  # ORIENTATIONS: the venue pins a board's way round, or the rules detect it

    @classmethod
    def from_text(
        cls,
        time_control: str | None,
        clock_white: str | None = None,
        quiet_s: float | None = None,
        orientation: str = "auto",
    ) -> ChessConfig:
        """The configuration from the venue's texts; raises ValueError (English / Turkish) on bad text."""
        if clock_white not in (None, "left", "right"):
            raise ValueError(
                f'clock_white must be "left" or "right", got {clock_white!r} / '
                f'clock_white "left" ya da "right" olmalı'
            )
        if orientation not in ORIENTATIONS:
            raise ValueError(
                f'orientation must be "auto", "normal" or "rotated", got {orientation!r} / '
                f'orientation "auto", "normal" ya da "rotated" olmalı'
            )
        control = parse_time_control(time_control) if time_control is not None else None
        if quiet_s is None:
            return cls(control, clock_white, orientation=orientation)
        return cls(control, clock_white, quiet_s=quiet_s, orientation=orientation)

    @property
    def time_control(self) -> str | None:
        """The control as text, or None."""
        return None if self.control is None else time_control_text(self.control)


# --- inputs ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passed with no report: settles a waiting board and notices a flag that fell unreported."""


@dataclass(frozen=True, slots=True)
class KeepIllegal:
    """The arbiter lets the flagged illegal move stand: it enters the game."""


@dataclass(frozen=True, slots=True)
class SetResult:
    """The arbiter sets the result ("1-0", "0-1", "1/2-1/2"), or reopens the game with "*"; `how` (one of
    RESULT_HOWS, or "") says how a result the board cannot see came about."""

    result: str
    reason: str = ""
    how: str = ""


@dataclass(frozen=True, slots=True)
class TakeBack:
    """The arbiter takes back the last `plies` plies (the main line is rewritten)."""

    plies: int = 1


@dataclass(frozen=True, slots=True)
class ClockSides:
    """The arbiter says which clock side is White's ("left" | "right"); it is never relearned."""

    white: str


@dataclass(frozen=True, slots=True)
class Orientation:
    """The arbiter says how the board lies ("normal" | "rotated"), or hands it back to detection ("auto")."""

    orientation: str


Input = (
    ChessBoardState
    | ChessClockState
    | DeviceEvent
    | Tick
    | KeepIllegal
    | SetResult
    | TakeBack
    | ClockSides
    | Orientation
)


# --- state -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """One ply of the game: `clock_ms` is the mover's time right after the press that completed it."""

    uci: str
    san: str
    at: float
    clock_ms: int | None = None
    illegal: bool = False  # an illegal move the arbiter let stand


@dataclass(frozen=True, slots=True)
class ClockReading:
    """The last clock display, left/right, and when it arrived."""

    remaining_ms: tuple[int, int]
    running: int | None
    at: float
    flags: tuple[bool, bool] = (False, False)
    period_flags: tuple[bool, bool] = (False, False)
    resolution_ms: int = 1000


@dataclass(frozen=True, slots=True)
class IllegalFlag:
    """A board flagged as an illegal move: the moves that make it (a null move first when out of turn)."""

    board_fen: str
    ucis: tuple[str, ...]
    at: float


class Game:
    """python-chess's view of the game: the board after the moves and the placement after every ply.

    Derived from the moves, never serialised, shared by the states that hold the same game. The memo keeps
    what boards mean against this position; it is a cache of a pure function, so sharing it is safe. The
    board keeps only the history its readers need (a full copy per ply costs O(game) each time).
    """

    __slots__ = ("board", "memo", "placements", "ucis")

    def __init__(self, board: chess.Board, placements: tuple[str, ...], ucis: tuple[str, ...]) -> None:
        self.board = board
        self.placements = placements
        self.ucis = ucis
        self.memo: dict[str, Reading] = {}

    @classmethod
    def start(cls) -> Game:
        return cls(chess.Board(), (chess.STARTING_BOARD_FEN,), ())

    @classmethod
    def replay(cls, ucis: Iterable[str]) -> Game:
        board = chess.Board()
        placements = [chess.STARTING_BOARD_FEN]
        done = []
        for uci in ucis:
            board.push(chess.Move.from_uci(uci))
            placements.append(_board_fen(board))
            done.append(uci)
        return cls(board, tuple(placements), tuple(done))

    @property
    def placement(self) -> str:
        return self.placements[-1]

    def scratch(self, history: int = 0) -> chess.Board:
        """A copy to try moves on, with `history` plies that can be popped."""
        return self.board.copy(stack=min(history, len(self.board.move_stack)))

    def push(self, move: chess.Move, placement: str | None = None) -> Game:
        # Enough history for pops (corrections) and for a fivefold repetition, which can only hide in the
        # plies since the last capture or pawn move.
        board = self.board.copy(stack=max(CORRECTION_PLIES, self.board.halfmove_clock + 1))
        board.push(move)
        return Game(board, (*self.placements, placement or _board_fen(board)), (*self.ucis, move.uci()))

    def rewind(self, plies: int) -> Game:
        keep = len(self.ucis) - plies
        if plies <= len(self.board.move_stack):
            board = self.board.copy()
            for _ in range(plies):
                board.pop()
        else:
            board = chess.Board()
            for uci in self.ucis[:keep]:
                board.push(chess.Move.from_uci(uci))
        return Game(board, self.placements[: keep + 1], self.ucis[:keep])


_FEN_CHARS = "pnbrqk"


def _board_fen(board: chess.BaseBoard) -> str:
    """The placement part of a FEN, from the bitboards (python-chess's own is ~15x slower)."""
    white = board.occupied_co[chess.WHITE]
    occupied = board.occupied
    kinds = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
    rows = []
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for square in range(rank * 8, rank * 8 + 8):
            bit = 1 << square
            if not occupied & bit:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            for index in range(6):
                if kinds[index] & bit:
                    char = _FEN_CHARS[index]
                    row += char.upper() if white & bit else char
                    break
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows)


@dataclass(frozen=True, slots=True)
class ChessState:
    """A chess game as the rules see it: the moves, what the board shows, the clock and its binding."""

    config: ChessConfig
    moves: tuple[PlayedMove, ...] = ()
    shown: str = chess.STARTING_BOARD_FEN
    shown_at: float | None = None  # when the board last changed
    recent: tuple[str, ...] = ()  # the boards shown since the game last changed, latest last
    magic: tuple[str, ...] = ()
    out_since: float | None = None  # since when the board differs from the game
    illegal: IllegalFlag | None = None
    mismatch_open: bool = False
    signal: str | None = None  # the result signal the board shows, once reported
    result: str | None = None
    result_reason: str | None = None
    control: clk.TimeControl | None = None  # the control in force: the configured one, or one learned
    control_learned: bool = False
    clock: ClockReading | None = None
    first_clock_ms: tuple[int, int] | None = None  # the first reading, taken before any move
    last_running: int | None = None  # the side that ran last (kept through a pause)
    white_side: int | None = None
    sides_source: str | None = None  # "config" | "referee" | "start" | "press"
    sides_confirmed: bool = False
    sides_open: bool = False  # a chess.clock_sides anomaly waits for a press that agrees
    unpressed: int = 0  # plies decided since the last press
    # presses that came before the ply they complete was read: (at, side, the presser's time after it)
    early_presses: tuple[tuple[float, int, int], ...] = ()
    last_press: tuple[float, int, int] | None = None  # the press that completed the last ply
    turn_start_ms: tuple[int | None, int | None] = (None, None)
    periods_added: tuple[int, int] = (0, 0)
    presses: int = 0
    clock_checked: bool = False
    # the hub joined the clock (hub start, restart, reconnect): its next reading is where the clock stands,
    # not a press or a change to judge against the last reading the hub had (`ChessSport.join`)
    clock_joined: bool = False
    # the same for the board: the plies its first position after the join shows were made unseen (a gap)
    board_joined: bool = False
    game: Game = field(default_factory=Game.start, compare=False, repr=False)
    clock_changed_at: float | None = None  # when the clock's display last changed (times, running side)
    awaiting_open: bool = False  # a chess.awaiting_result anomaly waits for a result or for play
    rotated: bool = False  # the board lies a1 at Black's left: its reports are read turned round (a1<->h8)
    orientation_source: str | None = None  # who decided `rotated`: "auto" | "venue" | "referee"

    @property
    def board(self) -> chess.Board:
        """The game position (a copy is the caller's to change)."""
        return self.game.board


# --- queries --------------------------------------------------------------------------------------------


def initial(config: ChessConfig) -> ChessState:
    """A game at the starting position, nothing played, the clock not yet seen."""
    white = None if config.clock_white is None else SIDE_NAMES.index(config.clock_white)
    pinned = config.orientation != "auto"
    return ChessState(
        config=config,
        control=config.control,
        white_side=white,
        sides_source=None if white is None else "config",
        sides_confirmed=white is not None,
        rotated=config.orientation == "rotated",
        orientation_source="venue" if pinned else None,
    )


def result(state: ChessState) -> str | None:
    """ "1-0", "0-1", "1/2-1/2", or None while the game goes on."""
    return state.result


def winner(state: ChessState) -> int | None:
    """0 White, 1 Black, None for a draw or an unfinished game."""
    return {"1-0": 0, "0-1": 1}.get(state.result or "")


def is_over(state: ChessState) -> bool:
    """True once the game has a result."""
    return state.result is not None


def is_fresh_start(report: Any) -> bool:
    """A board showing the starting position: a board set up for a new game."""
    return (
        isinstance(report, ChessBoardState)
        # the start position either way round: a board may lie a1 at Black's left (turned, the FEN reverses)
        and report.board_fen in (chess.STARTING_BOARD_FEN, chess.STARTING_BOARD_FEN[::-1])
        and not report.magic
    )


# --- what one input produced ----------------------------------------------------------------------------


class Out:
    """What one input produced: facts and anomalies, in order."""

    __slots__ = ("anomalies", "facts")

    def __init__(self) -> None:
        self.facts: list[Fact] = []
        self.anomalies: list[Anomaly] = []

    def fact(self, kind: str, **data: Any) -> None:
        self.facts.append(Fact(kind, data))

    def anomaly(self, code: str, severity: Severity, en: str, tr: str, **data: Any) -> None:
        self.anomalies.append(Anomaly(code, severity, en, tr, data))


# --- what a board means against the game ----------------------------------------------------------------


class Kind(enum.Enum):
    SYNC = "sync"
    MOVE = "move"  # one or two plies from the game position
    TAKEBACK = "takeback"  # an earlier position of the game
    CORRECTION = "correction"  # a different move from an earlier position
    SIGNAL = "signal"  # both kings in the centre
    ILLEGAL = "illegal"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Reading:
    """What a board means against the game: the plies that make it, after taking back `rewind` plies."""

    kind: Kind
    moves: tuple[chess.Move, ...] = ()
    rewind: int = 0
    extendable: bool = False
    result: str | None = None
    squares: tuple[str, ...] = ()
    # two plies that give the same board (c2c4 d4xc3 e.p. and c2c3 d4xc3; e8=Q or e8=R taken at once):
    # each option with the board after its first ply, to be matched against the boards seen on the way
    options: tuple[tuple[tuple[chess.Move, ...], str], ...] = ()
    fallback: Reading | None = None  # a correction's reading if the plies it takes back were pressed
    back: int = 0  # two plies on that also leave an earlier position (a repetition): how far back it is


# --- helpers --------------------------------------------------------------------------------------------


def _who(colour: chess.Color) -> str:
    """The colour's mark in a message: the views write the player's name and colour in its place."""
    return colour_mark(colour == chess.WHITE)


def owner(state: ChessState, side: int) -> str:
    """A mark for " (Ayşe Yılmaz)" after a clock side whose player is known, else nothing."""
    colour = colour_of(state, side)
    return "" if colour is None else f" ({colour_mark(colour == chess.WHITE, player_only=True)})"


def colour_of(state: ChessState, side: int) -> chess.Color | None:
    if state.white_side is None:
        return None
    return chess.WHITE if side == state.white_side else chess.BLACK


def colour_name(state: ChessState, side: int) -> str | None:
    colour = colour_of(state, side)
    return None if colour is None else COLOUR_NAMES[colour]


def moves_by(state: ChessState, colour: chess.Color | None) -> int:
    """Moves made by `colour` (the player to move when the clock's sides are not known)."""
    plies = len(state.moves)
    if colour is None:
        colour = state.game.board.turn
    return (plies + 1) // 2 if colour == chess.WHITE else plies // 2


def clock_running(state: ChessState) -> bool:
    return state.clock is not None and state.clock.running is not None


def colour_times(state: ChessState) -> tuple[int | None, int | None]:
    reading = state.clock
    if reading is None or state.white_side is None:
        return None, None
    return reading.remaining_ms[state.white_side], reading.remaining_ms[1 - state.white_side]


def hms(ms: float) -> str:
    total = max(0, int(ms // 1000))
    return f"{total // 3600}:{total % 3600 // 60:02d}:{total % 60:02d}"
