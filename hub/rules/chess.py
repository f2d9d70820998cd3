"""Chess rules as a pure reducer: a game rebuilt from e-board snapshots and clock readings, with its anomalies.

An e-board reports squares, never moves: a move reaches the hub as several snapshots (lift, place, slide) in
any scan order. The reducer keeps the last snapshot and decides what it means once it has *settled*:

- a legal move from the game position (delayed while the move could still grow: a slider that may slide on,
  a king on its way to castle, a pawn's first step, a king stepping into the centre where a result signal
  may be coming); two plies when the opponent answered before the board settled;
- an earlier position of the game (a takeback: the main line is rewritten, never branched), or a different
  move from an earlier position (the last move corrected);
- both kings on d4/e4/d5/e5: the DGT result signal, never a move;
- a move the rules forbid (`chess.illegal_move`, kept only if the arbiter says so: `KeepIllegal`);
- anything else: a board out of step with the game (`chess.board_mismatch` once it lasts).

A clock press completes a move, so a press decides at once. Clock readings are left/right as on the table;
the reducer binds them to colours (the side running before White's first move is White's, checked at every
press, `ClockSides` overrides) and judges increments, delays, periods, presses and flag fall against the
time control with the display's resolution and the time between readings.

Time is always an argument; nothing here reads a clock or does I/O. `to_dict`/`from_dict` round-trip the
state exactly (the hub snapshots it and spectators render it).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import chess

from devices.observations import ChessBoardState, ChessClockState, DeviceEvent
from hub.rules import clock as clk
from hub.rules.base import Anomaly, Fact, Outcome, Severity

RESULTS = ("1-0", "0-1", "1/2-1/2")
SIDE_NAMES = ("left", "right")
COLOUR_NAMES = {chess.WHITE: "white", chess.BLACK: "black"}
REFEREE_INPUTS = ("keep_illegal", "set_result", "take_back", "clock_sides")
CENTRE = chess.BB_D4 | chess.BB_E4 | chess.BB_D5 | chess.BB_E5
_MAGIC_RESULTS = {"white_wins": "1-0", "black_wins": "0-1", "draw": "1/2-1/2"}
_BOARD_ENDINGS = (
    "checkmate",
    "stalemate",
    "insufficient_material",
    "seventyfive_moves",
    "fivefold_repetition",
)
_COLOUR_TR = {chess.WHITE: "Beyaz", chess.BLACK: "Siyah"}
_SIDE_TR = ("sol", "sağ")
LEARN_FRESH_S = 1.5  # a clock reading this recent before a press shows the increment to the second
_MEMO_LIMIT = 64  # classified boards kept per game position
_RECENT = 16  # boards remembered since the game last changed
_EARLY_PRESSES = 2  # presses kept waiting for their plies (more are presses with no move)
_CORRECTION_PLIES = 2  # how far back a different move may replace the game's (only plies not yet pressed)


# --- time controls ---------------------------------------------------------------------------------------

_NUMBER = r"\d+(?:\.\d+)?"
_PERIOD = re.compile(rf"^(?:(\d+)/)?({_NUMBER})(?:([+db])({_NUMBER}))?$")
_CONTROL_HELP_EN = (
    "write seconds+increment such as 5400+30, a delay such as 300d5 or 300b5, or 40/6000+30:1800+30"
)
_CONTROL_HELP_TR = "saniye+artış (5400+30), gecikme (300d5, 300b5) ya da 40/6000+30:1800+30 biçiminde yazın"


def _control_error(text: str, en: str, tr: str) -> ValueError:
    return ValueError(
        f"time control {text!r}: {en}; {_CONTROL_HELP_EN} / süre kontrolü {text!r}: {tr}; {_CONTROL_HELP_TR}"
    )


def parse_time_control(text: str) -> clk.TimeControl:
    """`5400+30` (Fischer, increment also before move 1), `300d5` (simple delay), `300b5` (Bronstein),
    `40/6000+30:1800+30` (periods with move counts, joined by ':'); raises ValueError naming the fault."""
    if not isinstance(text, str) or not text.strip():
        raise _control_error(str(text), "it is empty", "boş")
    parts = text.strip().split(":")
    periods = []
    for i, part in enumerate(parts):
        m = _PERIOD.match(part.strip())
        if m is None:
            raise _control_error(text, f"period {part!r} cannot be read", f"{part!r} dönemi okunamadı")
        moves, base, mode, extra = m.group(1), float(m.group(2)), m.group(3), m.group(4)
        if base <= 0:
            raise _control_error(text, f"period {part!r} has no time", f"{part!r} döneminde süre yok")
        if moves is not None and int(moves) < 1:
            raise _control_error(
                text, f"period {part!r} needs at least one move", f"{part!r} en az bir hamle"
            )
        if moves is None and i < len(parts) - 1:
            raise _control_error(
                text,
                f"period {part!r} needs a move count (moves/seconds) before the next period",
                f"{part!r} döneminden sonra dönem geliyorsa hamle sayısı (hamle/saniye) gerekir",
            )
        if moves is not None and i == len(parts) - 1:
            raise _control_error(
                text,
                f"the last period {part!r} must last the rest of the game (no move count)",
                f"son dönem {part!r} oyunun sonuna kadar sürmeli (hamle sayısı olmadan)",
            )
        amount = float(extra) if extra is not None else 0.0
        periods.append(
            clk.Period(
                base,
                int(moves) if moves is not None else None,
                increment_s=amount if mode == "+" else 0.0,
                delay_s=amount if mode in ("d", "b") else 0.0,
                delay_mode={"d": clk.DelayMode.SIMPLE, "b": clk.DelayMode.BRONSTEIN}.get(
                    mode or "", clk.DelayMode.NONE
                ),
            )
        )
    return clk.TimeControl(tuple(periods))


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def time_control_text(control: clk.TimeControl) -> str:
    """The text `parse_time_control` reads back into `control`."""
    out = []
    for p in control.periods:
        text = (f"{p.moves}/" if p.moves is not None else "") + _num(p.time_s)
        if p.delay_mode is clk.DelayMode.SIMPLE:
            text += f"d{_num(p.delay_s)}"
        elif p.delay_mode is clk.DelayMode.BRONSTEIN:
            text += f"b{_num(p.delay_s)}"
        elif p.increment_s:
            text += f"+{_num(p.increment_s)}"
        out.append(text)
    return ":".join(out)


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

    @classmethod
    def from_text(cls, time_control: str | None, clock_white: str | None = None) -> ChessConfig:
        """The configuration from the venue's texts; raises ValueError (English / Turkish) on bad text."""
        if clock_white not in (None, "left", "right"):
            raise ValueError(
                f'clock_white must be "left" or "right", got {clock_white!r} / '
                f'clock_white "left" ya da "right" olmalı'
            )
        control = parse_time_control(time_control) if time_control is not None else None
        return cls(control, clock_white)

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
    """The arbiter sets the result ("1-0", "0-1", "1/2-1/2"), or reopens the game with "*"."""

    result: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class TakeBack:
    """The arbiter takes back the last `plies` plies (the main line is rewritten)."""

    plies: int = 1


@dataclass(frozen=True, slots=True)
class ClockSides:
    """The arbiter says which clock side is White's ("left" | "right"); it is never relearned."""

    white: str


Input = (
    ChessBoardState | ChessClockState | DeviceEvent | Tick | KeepIllegal | SetResult | TakeBack | ClockSides
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


class _Game:
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
        self.memo: dict[str, _Reading] = {}

    @classmethod
    def start(cls) -> _Game:
        return cls(chess.Board(), (chess.STARTING_BOARD_FEN,), ())

    @classmethod
    def replay(cls, ucis: Iterable[str]) -> _Game:
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

    def push(self, move: chess.Move, placement: str | None = None) -> _Game:
        # Enough history for pops (corrections) and for a fivefold repetition, which can only hide in the
        # plies since the last capture or pawn move.
        board = self.board.copy(stack=max(_CORRECTION_PLIES, self.board.halfmove_clock + 1))
        board.push(move)
        return _Game(board, (*self.placements, placement or _board_fen(board)), (*self.ucis, move.uci()))

    def rewind(self, plies: int) -> _Game:
        keep = len(self.ucis) - plies
        if plies <= len(self.board.move_stack):
            board = self.board.copy()
            for _ in range(plies):
                board.pop()
        else:
            board = chess.Board()
            for uci in self.ucis[:keep]:
                board.push(chess.Move.from_uci(uci))
        return _Game(board, self.placements[: keep + 1], self.ucis[:keep])


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
    game: _Game = field(default_factory=_Game.start, compare=False, repr=False)

    @property
    def board(self) -> chess.Board:
        """The game position (a copy is the caller's to change)."""
        return self.game.board


def initial(config: ChessConfig) -> ChessState:
    """A game at the starting position, nothing played, the clock not yet seen."""
    white = None if config.clock_white is None else SIDE_NAMES.index(config.clock_white)
    return ChessState(
        config=config,
        control=config.control,
        white_side=white,
        sides_source=None if white is None else "config",
        sides_confirmed=white is not None,
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
        and report.board_fen == chess.STARTING_BOARD_FEN
        and not report.magic
    )


# --- the reducer -------------------------------------------------------------------------------------------


class _Out:
    """What one input produced: facts and anomalies, in order."""

    __slots__ = ("anomalies", "facts")

    def __init__(self) -> None:
        self.facts: list[Fact] = []
        self.anomalies: list[Anomaly] = []

    def fact(self, kind: str, **data: Any) -> None:
        self.facts.append(Fact(kind, data))

    def anomaly(self, code: str, severity: Severity, en: str, tr: str, **data: Any) -> None:
        self.anomalies.append(Anomaly(code, severity, en, tr, data))


def apply(state: ChessState, item: Input, at: float) -> Outcome[ChessState]:
    """Fold one input into the game; never raises on what a device reported, reports it."""
    out = _Out()
    if isinstance(item, ChessBoardState):
        state = _on_board(state, item, at, out)
    elif isinstance(item, ChessClockState):
        reading = _reading_of(item, at)
        if reading is None:
            out.anomaly(
                "chess.bad_event",
                Severity.WARNING,
                f"A clock reading cannot be read ({item!r}); it was kept and skipped.",
                f"Bir saat okuması okunamadı ({item!r}); saklandı ve atlandı.",
                report=repr(item),
            )
        else:
            state = _on_clock(state, reading, at, out)
    elif isinstance(item, DeviceEvent):
        state = _on_event(state, item, at, out)
    elif isinstance(item, Tick):
        state = _on_tick(state, at, out)
    elif isinstance(item, KeepIllegal):
        state = _on_keep_illegal(_settle(state, at, out), at, out)
    elif isinstance(item, SetResult):
        state = _on_set_result(_settle(state, at, out), item, at, out)
    elif isinstance(item, TakeBack):
        state = _on_take_back(_settle(state, at, out), item, at, out)
    elif isinstance(item, ClockSides):
        state = _on_clock_sides(state, item, out)
    else:
        out.anomaly(
            "chess.unknown_input",
            Severity.ERROR,
            f"The chess rules got an input they do not know ({type(item).__name__}); it was kept and skipped.",
            f"Satranç kuralları tanımadığı bir girdi aldı ({type(item).__name__}); saklandı ve atlandı.",
            type=type(item).__name__,
        )
    return Outcome(state, tuple(out.facts), tuple(out.anomalies))


# --- the board ---------------------------------------------------------------------------------------------


class _Kind(enum.Enum):
    SYNC = "sync"
    MOVE = "move"  # one or two plies from the game position
    TAKEBACK = "takeback"  # an earlier position of the game
    CORRECTION = "correction"  # a different move from an earlier position
    SIGNAL = "signal"  # both kings in the centre
    ILLEGAL = "illegal"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class _Reading:
    """What a board means against the game: the plies that make it, after taking back `rewind` plies."""

    kind: _Kind
    moves: tuple[chess.Move, ...] = ()
    rewind: int = 0
    extendable: bool = False
    result: str | None = None
    squares: tuple[str, ...] = ()
    # two plies that give the same board (c2c4 d4xc3 e.p. and c2c3 d4xc3; e8=Q or e8=R taken at once):
    # each option with the board after its first ply, to be matched against the boards seen on the way
    options: tuple[tuple[tuple[chess.Move, ...], str], ...] = ()
    fallback: _Reading | None = None  # a correction's reading if the plies it takes back were pressed
    back: int = 0  # two plies on that also leave an earlier position (a repetition): how far back it is


_SYNC = _Reading(_Kind.SYNC)


def _on_board(state: ChessState, report: ChessBoardState, at: float, out: _Out) -> ChessState:
    state = _settle(state, at, out)
    magic = tuple(report.magic)
    if report.board_fen == state.shown and magic == state.magic:
        return state
    recent = (*state.recent[-(_RECENT - 1) :], report.board_fen) if state.result is None else ()
    state = replace(state, shown=report.board_fen, shown_at=at, magic=magic, recent=recent)
    if state.result is None and report.board_fen == state.game.placement:
        return _in_step(state, out, "the board was set back to the game position")
    if state.out_since is None and state.result is None:
        state = replace(state, out_since=at)
    return state


def _in_step(state: ChessState, out: _Out, how: str) -> ChessState:
    """The board shows the game again: flags about it are resolved by the rules."""
    if state.illegal is not None:
        out.fact("anomaly_resolved", code="chess.illegal_move", how=how)
    if state.mismatch_open:
        out.fact("anomaly_resolved", code="chess.board_mismatch", how=how)
    return replace(state, illegal=None, mismatch_open=False, out_since=None)


def _settle(state: ChessState, at: float, out: _Out, *, press: bool = False) -> ChessState:
    """Decide what the board shows, if it has waited long enough (a press: at once)."""
    if state.shown_at is None:
        return state
    if state.result is not None:
        return _watch_after_end(state, at, out)
    if state.magic and (press or at - state.shown_at >= state.config.settle_s):
        signal, squares, _ = _signal_of(state.shown, state.magic)
        if signal is not None:  # a DGT result piece: the players' result, like the kings in the centre
            return _result_signal(
                state, _Reading(_Kind.SIGNAL, result=signal, squares=squares), at, out, "magic"
            )
    if state.shown == state.game.placement:
        return state
    cfg = state.config
    waited = at - state.shown_at
    overdue = (
        state.out_since is not None and at - state.out_since >= cfg.mismatch_s and not state.mismatch_open
    )
    if not press and waited < cfg.settle_s and not overdue:
        return state
    reading = _classify(state.game, state.shown)
    lag = _scan_lag(state, reading)
    stale = reading.kind is _Kind.CORRECTION and reading.rewind > state.unpressed and not lag
    if stale and state.last_running is not None:
        # A pressed move is complete (FIDE 6.2): changing it is the arbiter's call, not the board's.
        assert reading.fallback is not None
        reading = reading.fallback
    if reading.back and not any(via in state.recent for _, via in reading.options):
        # In a repetition two plies on and two plies back leave the same board: only the board between the
        # two forward plies, seen on the way, says it was played on rather than taken back.
        reading = _Reading(_Kind.TAKEBACK, rewind=reading.back)
    kind = reading.kind
    if kind is _Kind.SIGNAL:
        if press or waited >= cfg.settle_s:
            return _result_signal(state, reading, at, out)
        return state
    if kind in (_Kind.MOVE, _Kind.CORRECTION):
        # every ply shown already completed by a press (a waiting press first completes an unpressed ply)?
        owed = 1 if state.unpressed - reading.rewind >= 1 else 0
        pressed = len(state.early_presses) + lag - owed >= len(reading.moves)
        if press and pressed:
            need = 0.0  # the player says the move is complete: even a slider has arrived
        elif (reading.extendable or kind is _Kind.CORRECTION) and not pressed:
            need = cfg.extend_s  # a hand still on its way, or a piece held in the air, must not rewrite moves
        else:
            need = cfg.settle_s
        if waited < need:
            return state
        if lag:  # the press went with the ply it completed: it completes the corrected one instead
            assert state.last_press is not None
            state = replace(state, early_presses=(state.last_press, *state.early_presses))
        return _accept(state, reading, out)
    if kind is _Kind.TAKEBACK:
        return _accept(state, reading, out) if press or waited >= cfg.extend_s else state
    if kind is _Kind.ILLEGAL:
        if (press or waited >= cfg.illegal_s) and (
            state.illegal is None or state.illegal.board_fen != state.shown
        ):
            return _flag_illegal(state, reading, at, out)
        return state
    if overdue:
        assert state.out_since is not None  # `overdue` says so
        game = state.game
        out.anomaly(
            "chess.board_mismatch",
            Severity.WARNING,
            f"The board has differed from the game for {at - state.out_since:.0f} s on "
            f"{', '.join(reading.squares) or 'no square'}; set the pieces as in the game or correct the game.",
            f"Tahta {at - state.out_since:.0f} sn'dir oyundan farklı ({', '.join(reading.squares) or '-'}); "
            f"taşları oyundaki gibi dizin ya da oyunu düzeltin.",
            squares=list(reading.squares),
            board_fen=state.shown,
            game_fen=game.board.fen(),
            ply=len(state.moves),
            since=state.out_since,
        )
        return replace(state, mismatch_open=True)
    return state


def _scan_lag(state: ChessState, reading: _Reading) -> bool:
    """A board that changes the ply a press has just completed, within a scan of the press: the board had not
    finished reporting the move when the press was read (a fast hand, a slow scan), so it may still correct it."""
    press = state.last_press
    return (
        reading.kind is _Kind.CORRECTION
        and reading.rewind == 1
        and state.unpressed == 0
        and press is not None
        and state.shown_at is not None
        and state.shown_at - press[0] <= state.config.settle_s
    )


def _accept(state: ChessState, reading: _Reading, out: _Out) -> ChessState:
    """Enter what the board shows into the game: a takeback first, then the plies."""
    at = state.shown_at if state.shown_at is not None else 0.0
    moves = reading.moves
    for option, via in reading.options:
        if via in state.recent:  # the board was seen after this first ply: that is what was played
            moves = option
            break
    if reading.rewind:
        state = _rewind(state, reading.rewind, out, by="board")
    for i, move in enumerate(moves):
        # the board shows what the last ply leaves: no need to work the placement out again
        state = _push(state, move, at, out, placement=state.shown if i == len(moves) - 1 else None)
        if state.result is not None:
            break
    if state.shown == state.game.placement:
        how = "a legal move was made" if moves else "the board was set back to an earlier position"
        state = _in_step(state, out, how)
    return state


def _rewind(state: ChessState, plies: int, out: _Out, *, by: str) -> ChessState:
    taken = state.moves[len(state.moves) - plies :]
    out.fact(
        "takeback",
        plies=plies,
        moves=[m.uci for m in taken],
        ply=len(state.moves) - plies,
        by=by,
    )
    return replace(
        state,
        moves=state.moves[: len(state.moves) - plies],
        game=state.game.rewind(plies),
        recent=(),
        unpressed=max(0, state.unpressed - plies),
    )


def _push(
    state: ChessState,
    move: chess.Move,
    at: float,
    out: _Out,
    *,
    illegal: bool = False,
    placement: str | None = None,
) -> ChessState:
    """Add one ply; the press bookkeeping decides whether the previous ply went without a press."""
    game = state.game
    board = game.board
    mover = board.turn
    if not move:  # the null ply before a move made out of turn: no move of its own, no press to judge
        played = PlayedMove(move.uci(), "--", at, None, True)
        return replace(state, moves=(*state.moves, played), game=game.push(move), recent=())
    san = board.san(move) if not illegal else _illegal_san(board, move)
    queue = state.early_presses
    if state.unpressed >= 1 and queue:  # a waiting press completes the ply before this one first
        state = _complete(replace(state, early_presses=queue[1:]), queue[0], out)
        queue = state.early_presses
    clock_ms = None
    unpressed = state.unpressed
    press_side = None
    last_press = None
    if queue:  # the press came before the board was read: it completes this ply
        last_press = queue[0]
        _, press_side, clock_ms = last_press
        queue = queue[1:]
        unpressed = 0
    else:
        if unpressed >= 1 and _clock_running(state) and state.moves:
            last = state.moves[-1]
            out.anomaly(
                "chess.move_without_press",
                Severity.WARNING,
                f"{_colour_en(not mover)} played {last.san} (ply {len(state.moves)}) and {_colour_en(mover)} "
                f"moved without the clock being pressed in between.",
                f"{_COLOUR_TR[not mover]} {last.san} oynadı ({len(state.moves)}. yarım hamle) ve saate "
                f"basılmadan {_COLOUR_TR[mover]} hamle yaptı.",
                ply=len(state.moves),
                san=last.san,
                colour=COLOUR_NAMES[not mover],
            )
        if _clock_running(state):  # with the clock stopped (or not yet started) no press is owed
            unpressed += 1
    played = PlayedMove(move.uci(), san, at, clock_ms, illegal)
    state = replace(
        state,
        moves=(*state.moves, played),
        game=game.push(move, placement),
        recent=(),
        unpressed=unpressed,
        early_presses=queue,
        last_press=last_press,
    )
    if press_side is not None:
        state = _check_sides(state, press_side, out)
    white_ms, black_ms = _colour_times(state)
    out.fact(
        "move",
        ply=len(state.moves),
        uci=played.uci,
        san=san,
        colour=COLOUR_NAMES[mover],
        clock_ms=clock_ms,
        white_ms=white_ms,
        black_ms=black_ms,
        moved_at=at,
        **({"illegal": True} if illegal else {}),
    )
    if not illegal:
        outcome = state.game.board.outcome(claim_draw=False)
        if outcome is not None:
            reason = outcome.termination.name.lower()
            state = replace(state, result=outcome.result(), result_reason=reason, out_since=None)
            out.fact("game_over", result=outcome.result(), reason=reason, ply=len(state.moves))
    return state


def _illegal_san(board: chess.Board, move: chess.Move) -> str:
    """A readable name for a move the rules forbid (long algebraic: python-chess's SAN needs a legal move)."""
    piece = board.piece_at(move.from_square)
    letter = "" if piece is None or piece.piece_type == chess.PAWN else piece.symbol().upper()
    sep = "x" if board.piece_at(move.to_square) is not None else "-"
    promo = f"={chess.piece_symbol(move.promotion).upper()}" if move.promotion else ""
    return f"{letter}{chess.square_name(move.from_square)}{sep}{chess.square_name(move.to_square)}{promo}"


def _flag_illegal(state: ChessState, reading: _Reading, at: float, out: _Out) -> ChessState:
    board = state.game.board
    moves = [m for m in reading.moves if m]
    move = moves[-1]
    piece = board.piece_at(move.from_square)
    colour = piece.color if piece is not None else board.turn
    out_of_turn = colour != board.turn
    text = _illegal_san(board, move)
    why_en = "out of turn" if out_of_turn else "not legal in this position"
    why_tr = "sırası gelmeden" if out_of_turn else "bu konumda kurallara aykırı"
    out.anomaly(
        "chess.illegal_move",
        Severity.ERROR,
        f"{_colour_en(colour)} played {text}, {why_en} (after ply {len(state.moves)}); restore the position "
        f"or let the move stand.",
        f"{_COLOUR_TR[colour]} {text} oynadı, {why_tr} ({len(state.moves)}. yarım hamleden sonra); konumu "
        f"geri kurun ya da hamleyi geçerli sayın.",
        uci=move.uci(),
        move=text,
        colour=COLOUR_NAMES[colour],
        out_of_turn=out_of_turn,
        from_square=chess.square_name(move.from_square),
        to_square=chess.square_name(move.to_square),
        ply=len(state.moves),
        board_fen=state.shown,
        game_fen=board.fen(),
    )
    return replace(state, illegal=IllegalFlag(state.shown, tuple(m.uci() for m in reading.moves), at))


def _result_signal(
    state: ChessState, reading: _Reading, at: float, out: _Out, source: str = "kings"
) -> ChessState:
    """Both kings in the centre: the players' result, informational like every result; never a move."""
    assert reading.result is not None
    played = state.moves[-1] if state.moves and source == "kings" else None
    if played is not None and played.clock_ms is None and at - played.at < state.config.mismatch_s:
        last = chess.Move.from_uci(played.uci)
        piece = state.game.board.piece_at(last.to_square)
        if piece is not None and piece.piece_type == chess.KING and chess.BB_SQUARES[last.to_square] & CENTRE:
            # a king just stepped into the centre, no press completed it: the first half of the signal
            state = _rewind(state, 1, out, by="result_signal")
    out.fact("result_signal", result=reading.result, kings=list(reading.squares), source=source)
    state = replace(
        state,
        result=reading.result,
        result_reason="result_signal",
        signal=reading.result,
        illegal=None,
        mismatch_open=False,
        out_since=None,
    )
    out.fact("game_over", result=reading.result, reason="result_signal", ply=len(state.moves))
    return state


def _watch_after_end(state: ChessState, at: float, out: _Out) -> ChessState:
    """After the result only a result signal means something: reported once per signal."""
    if state.shown_at is None or at - state.shown_at < state.config.settle_s:
        return state
    signal, squares, source = _signal_of(state.shown, state.magic)
    if signal == state.signal:
        return state
    if signal is not None:
        out.fact("result_signal", result=signal, kings=list(squares), source=source)
        if signal != state.result:
            out.anomaly(
                "chess.result_conflict",
                Severity.WARNING,
                f"The players signal {signal} on the board, but the game ended {state.result} "
                f"({state.result_reason}); check the result.",
                f"Oyuncular tahtada {signal} sonucunu gösteriyor, ancak oyun {state.result} bitti "
                f"({state.result_reason}); sonucu kontrol edin.",
                signal=signal,
                result=state.result,
                reason=state.result_reason,
            )
    return replace(state, signal=signal)


def _signal_of(shown: str, magic: tuple[str, ...]) -> tuple[str | None, tuple[str, ...], str]:
    """The result a board signals (kings in the centre, or DGT result pieces), with the squares."""
    if magic:
        kinds = {entry.partition("=")[2] for entry in magic}
        if len(kinds) == 1 and next(iter(kinds)) in _MAGIC_RESULTS:
            return _MAGIC_RESULTS[next(iter(kinds))], tuple(e.partition("=")[0] for e in magic), "magic"
    placement = _placement(shown)
    if placement is None:
        return None, (), "kings"
    found = _kings_signal(placement)
    if found is None:
        return None, (), "kings"
    return found[0], found[1], "kings"


def _kings_signal(placement: chess.BaseBoard) -> tuple[str, tuple[str, ...]] | None:
    kings = placement.kings
    white = kings & placement.occupied_co[chess.WHITE]
    black = kings & placement.occupied_co[chess.BLACK]
    if chess.popcount(white) != 1 or chess.popcount(black) != 1 or (kings & ~CENTRE):
        return None
    wk, bk = chess.lsb(white), chess.lsb(black)
    light_w = bool(chess.BB_SQUARES[wk] & chess.BB_LIGHT_SQUARES)
    light_b = bool(chess.BB_SQUARES[bk] & chess.BB_LIGHT_SQUARES)
    outcome = "1-0" if light_w and light_b else "0-1" if not light_w and not light_b else "1/2-1/2"
    return outcome, (chess.square_name(wk), chess.square_name(bk))


# --- reading a board against the game ------------------------------------------------------------------------

_PLACEMENTS: dict[str, chess.BaseBoard | None] = {}
_PIECE_INDEX = {c: i for i, c in enumerate("pnbrqkPNBRQK")}


def _placement(fen: str) -> chess.BaseBoard | None:
    """A placement FEN as a board (cached; python-chess's own parser is ~10x slower), None if malformed."""
    found = _PLACEMENTS.get(fen, False)
    if found is not False:
        return found  # type: ignore[return-value]
    masks = [0] * 12
    square = 56
    ok = True
    rank_len = 0
    ranks = 1
    for ch in fen:
        if ch == "/":
            if rank_len != 8:
                ok = False
                break
            square -= 16
            rank_len = 0
            ranks += 1
        elif "1" <= ch <= "8":
            square += ord(ch) - 48
            rank_len += ord(ch) - 48
        else:
            index = _PIECE_INDEX.get(ch)
            if index is None or rank_len >= 8:
                ok = False
                break
            masks[index] |= 1 << square
            square += 1
            rank_len += 1
    board: chess.BaseBoard | None = None
    if ok and ranks == 8 and rank_len == 8:
        board = chess.BaseBoard.empty()
        board.pawns = masks[0] | masks[6]
        board.knights = masks[1] | masks[7]
        board.bishops = masks[2] | masks[8]
        board.rooks = masks[3] | masks[9]
        board.queens = masks[4] | masks[10]
        board.kings = masks[5] | masks[11]
        board.occupied_co[chess.BLACK] = masks[0] | masks[1] | masks[2] | masks[3] | masks[4] | masks[5]
        board.occupied_co[chess.WHITE] = masks[6] | masks[7] | masks[8] | masks[9] | masks[10] | masks[11]
        board.occupied = board.occupied_co[chess.WHITE] | board.occupied_co[chess.BLACK]
    if len(_PLACEMENTS) > 4096:
        _PLACEMENTS.clear()
    _PLACEMENTS[fen] = board
    return board


def _diff(a: chess.BaseBoard, b: chess.BaseBoard) -> int:
    """The squares whose content differs."""
    return (
        (a.pawns ^ b.pawns)
        | (a.knights ^ b.knights)
        | (a.bishops ^ b.bishops)
        | (a.rooks ^ b.rooks)
        | (a.queens ^ b.queens)
        | (a.kings ^ b.kings)
        | (a.occupied_co[chess.WHITE] ^ b.occupied_co[chess.WHITE])
        | (a.occupied_co[chess.BLACK] ^ b.occupied_co[chess.BLACK])
    )


def _classify(game: _Game, shown: str) -> _Reading:
    """What `shown` means against the game (memoised per game position)."""
    found = game.memo.get(shown)
    if found is not None:
        return found
    reading = _read(game, shown)
    if len(game.memo) >= _MEMO_LIMIT:
        game.memo.clear()
    game.memo[shown] = reading
    return reading


def _read(game: _Game, shown: str) -> _Reading:
    if shown == game.placement:
        return _SYNC
    target = _placement(shown)
    if target is None:
        return _Reading(_Kind.UNKNOWN, squares=("?",))
    signal = _kings_signal(target)
    if signal is not None:
        return _Reading(_Kind.SIGNAL, result=signal[0], squares=signal[1])
    board = game.scratch()
    diff = _diff(board, target)
    # Cheap counts rule most boards out before any move is generated: a move never removes the mover's own
    # pieces and takes at most one of the opponent's; a board with a king missing is a hand in the air.
    mover, other = board.turn, not board.turn
    kings = target.kings
    whole = (
        chess.popcount(kings & target.occupied_co[chess.WHITE])
        == 1
        == chess.popcount(kings & target.occupied_co[chess.BLACK])
    )
    have_m, have_o = chess.popcount(board.occupied_co[mover]), chess.popcount(board.occupied_co[other])
    show_m, show_o = chess.popcount(target.occupied_co[mover]), chess.popcount(target.occupied_co[other])
    if whole and show_m == have_m and show_o in (have_o, have_o - 1):
        move = _successor(board, target, diff)
        if move is not None:
            return _Reading(_Kind.MOVE, (move,), extendable=_extendable(board, move))
    # the opponent's answer leaves the square it came from empty
    answered = board.occupied_co[other] & ~target.occupied
    if whole and answered and show_m in (have_m, have_m - 1) and show_o in (have_o, have_o - 1):
        pairs = _two_plies(board, target, diff)
    else:
        pairs = ()
    n = len(game.placements) - 1
    back = next((n - ply for ply in range(n - 1, -1, -1) if game.placements[ply] == shown), 0)
    if pairs:
        first = pairs[0][0]
        return _Reading(
            _Kind.MOVE, first, extendable=_extendable_after(board, first), options=pairs, back=back
        )
    if back:
        return _Reading(_Kind.TAKEBACK, rewind=back)
    illegal = _illegal(board, target, diff)
    if illegal is not None:
        rest = _Reading(_Kind.ILLEGAL, illegal)
    else:
        rest = _Reading(_Kind.UNKNOWN, squares=tuple(chess.square_name(s) for s in chess.scan_forward(diff)))
    earlier = game.scratch(_CORRECTION_PLIES if whole else 0)
    for rewind in range(1, min(_CORRECTION_PLIES, len(earlier.move_stack)) + 1):
        earlier.pop()
        scratch = earlier.copy(stack=False)
        move = _successor(scratch, target, _diff(scratch, target))
        if move is not None:
            return _Reading(
                _Kind.CORRECTION, (move,), rewind=rewind, extendable=_extendable(scratch, move), fallback=rest
            )
    return rest


def _same(a: chess.BaseBoard, b: chess.BaseBoard) -> bool:
    return _diff(a, b) == 0


def _successor(board: chess.Board, target: chess.BaseBoard, diff: int) -> chess.Move | None:
    """The legal move from `board` (a scratch copy) that gives `target`; a move changes its from and to squares."""
    if not diff:
        return None
    for move in list(board.generate_legal_moves(from_mask=diff, to_mask=diff)):
        board.push(move)
        same = _same(board, target)
        board.pop()
        if same:
            return move
    return None


def _two_plies(
    board: chess.Board, target: chess.BaseBoard, diff: int
) -> tuple[tuple[tuple[chess.Move, ...], str], ...]:
    """Every two legal plies that give `target` (the opponent answered before the board settled), each with
    the board after its first ply."""
    found: list[tuple[tuple[chess.Move, ...], str]] = []
    if not diff or chess.popcount(diff) > 8:
        return ()
    for first in list(board.generate_legal_moves(from_mask=diff)):
        board.push(first)
        left = _diff(board, target)
        if left:
            for second in list(board.generate_legal_moves(from_mask=left, to_mask=left)):
                board.push(second)
                if _same(board, target):
                    board.pop()
                    found.append(((first, second), _board_fen(board)))
                    board.push(second)
                board.pop()
        board.pop()
    return tuple(found)


_CASTLING_STEPS = {
    # a piece part-way through castling: (from, to) -> the castling move it may be part of
    (chess.E1, chess.F1): chess.Move(chess.E1, chess.G1),
    (chess.E1, chess.D1): chess.Move(chess.E1, chess.C1),
    (chess.E8, chess.F8): chess.Move(chess.E8, chess.G8),
    (chess.E8, chess.D8): chess.Move(chess.E8, chess.C8),
    (chess.H1, chess.F1): chess.Move(chess.E1, chess.G1),
    (chess.A1, chess.D1): chess.Move(chess.E1, chess.C1),
    (chess.H8, chess.F8): chess.Move(chess.E8, chess.G8),
    (chess.A8, chess.D8): chess.Move(chess.E8, chess.C8),
}


def _extendable(board: chess.Board, move: chess.Move) -> bool:
    """Could the hand still be on its way with this piece? Then the move waits (or the press decides)."""
    piece = board.piece_type_at(move.from_square)
    castle = _CASTLING_STEPS.get((move.from_square, move.to_square))
    if castle is not None and piece in (chess.KING, chess.ROOK) and board.is_legal(castle):
        return True
    if piece == chess.KING:
        return bool(chess.BB_SQUARES[move.to_square] & CENTRE)  # a result signal may be on its way
    if piece == chess.PAWN:
        if board.is_capture(move) or chess.square_distance(move.from_square, move.to_square) != 1:
            return False
        step = 8 if board.turn == chess.WHITE else -8
        start_rank = 1 if board.turn == chess.WHITE else 6
        if chess.square_rank(move.from_square) != start_rank:
            return False
        return board.is_legal(chess.Move(move.from_square, move.from_square + 2 * step))
    if piece in (chess.ROOK, chess.BISHOP, chess.QUEEN) and not board.is_capture(move):
        df = chess.square_file(move.to_square) - chess.square_file(move.from_square)
        dr = chess.square_rank(move.to_square) - chess.square_rank(move.from_square)
        f = chess.square_file(move.to_square) + (df > 0) - (df < 0)
        r = chess.square_rank(move.to_square) + (dr > 0) - (dr < 0)
        if 0 <= f < 8 and 0 <= r < 8:
            return board.is_legal(chess.Move(move.from_square, chess.square(f, r)))
    return False


def _extendable_after(board: chess.Board, pair: tuple[chess.Move, ...]) -> bool:
    board.push(pair[0])
    try:
        return _extendable(board, pair[1])
    finally:
        board.pop()


def _illegal(board: chess.Board, target: chess.BaseBoard, diff: int) -> tuple[chess.Move, ...] | None:
    """The move a forbidden board shows: a pseudo-legal move into check, a piece moved where it cannot go,
    out of turn, or castling without the right. None if no single move explains it."""
    candidates: list[chess.Move] = [
        m for m in board.generate_pseudo_legal_moves(from_mask=diff, to_mask=diff) if not board.is_legal(m)
    ]
    emptied = [
        s for s in chess.scan_forward(diff) if board.piece_at(s) is not None and target.piece_at(s) is None
    ]
    filled = [s for s in chess.scan_forward(diff) if target.piece_at(s) is not None]
    if len(emptied) == 1 and len(filled) == 1:
        origin, dest = emptied[0], filled[0]
        piece, placed = board.piece_at(origin), target.piece_at(dest)
        assert piece is not None and placed is not None
        if placed == piece:
            candidates.append(chess.Move(origin, dest))
        elif (
            piece.piece_type == chess.PAWN
            and placed.color == piece.color
            and placed.piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
            and chess.square_rank(dest) == (7 if piece.color == chess.WHITE else 0)
        ):
            candidates.append(chess.Move(origin, dest, placed.piece_type))
    elif len(emptied) == 2 and len(filled) == 2:
        kings = [s for s in emptied if board.piece_type_at(s) == chess.KING]
        landed = [s for s in filled if target.piece_type_at(s) == chess.KING]
        if len(kings) == 1 and len(landed) == 1:
            candidates.append(chess.Move(kings[0], landed[0]))  # castling that the rules forbid
    for move in candidates:
        colour = board.color_at(move.from_square)
        scratch = board.copy(stack=False)
        moves: tuple[chess.Move, ...] = (move,)
        if colour is not None and colour != scratch.turn:
            scratch.push(chess.Move.null())
            moves = (chess.Move.null(), move)
        try:
            scratch.push(move)
        except (ValueError, AssertionError, IndexError):
            continue
        if _same(scratch, target):
            return moves
    return None


# --- the clock -------------------------------------------------------------------------------------------------


def _reading_of(report: ChessClockState, at: float) -> ClockReading | None:
    """The report as a reading, or None when its fields are not two times and two pairs of flags."""
    try:
        return ClockReading(
            (int(report.remaining_ms[0]), int(report.remaining_ms[1])),
            report.running,
            at,
            (bool(report.flags[0]), bool(report.flags[1])),
            (bool(report.period_flags[0]), bool(report.period_flags[1])),
            int(report.resolution_ms),
        )
    except (TypeError, ValueError, IndexError):
        return None


def _on_event(state: ChessState, event: DeviceEvent, at: float, out: _Out) -> ChessState:
    """A Wire clock's press event `{"side": 0|1, "remaining_ms": [a, b]}`; other events change nothing."""
    if event.kind != "press":
        return _settle(state, at, out)
    side = event.data.get("side")
    remaining = event.data.get("remaining_ms")
    if side not in (0, 1) or isinstance(side, bool):
        out.anomaly(
            "chess.bad_event",
            Severity.WARNING,
            f"A clock press event names no side (0 or 1): {event.data!r}; it was kept and skipped.",
            f"Saat basma olayında taraf (0 ya da 1) yok: {event.data!r}; saklandı ve atlandı.",
            data=dict(event.data),
        )
        return _settle(state, at, out)
    prev = state.clock
    if (
        isinstance(remaining, list | tuple)
        and len(remaining) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in remaining)
    ):
        times = (remaining[0], remaining[1])
    elif prev is not None:
        times = prev.remaining_ms
    else:
        return _settle(state, at, out)  # a press with no time at all: nothing to judge yet
    reading = ClockReading(
        times,
        1 - side,
        at,
        prev.flags if prev else (False, False),
        prev.period_flags if prev else (False, False),
        prev.resolution_ms if prev else 1000,
    )
    return _on_clock(state, reading, at, out, press_side=side)


def _on_clock(
    state: ChessState, reading: ClockReading, at: float, out: _Out, *, press_side: int | None = None
) -> ChessState:
    state = _settle(state, at, out)
    if reading.running not in (None, 0, 1) or min(reading.remaining_ms) < 0 or reading.resolution_ms <= 0:
        out.anomaly(
            "chess.bad_event",
            Severity.WARNING,
            f"A clock reading cannot be right (running {reading.running!r}, times {list(reading.remaining_ms)}, "
            f"resolution {reading.resolution_ms} ms); it was kept and skipped.",
            f"Bir saat okuması doğru olamaz (çalışan {reading.running!r}, süreler {list(reading.remaining_ms)}, "
            f"çözünürlük {reading.resolution_ms} ms); saklandı ve atlandı.",
            running=reading.running,
            remaining_ms=list(reading.remaining_ms),
            resolution_ms=reading.resolution_ms,
        )
        return state
    prev = state.clock
    if prev is not None and press_side is None and _same_reading(prev, reading):
        return replace(state, clock=replace(prev, at=at))  # nothing new (a press event was already folded)
    pressed = press_side
    if pressed is None and reading.running is not None and state.last_running not in (None, reading.running):
        pressed = state.last_running
    over = state.result is not None
    if not state.clock_checked and not state.moves and state.control is not None:
        state = _check_start(state, reading, out)
    if state.first_clock_ms is None and not state.moves:
        state = replace(state, first_clock_ms=reading.remaining_ms)
    started = reading.running is not None and state.last_running is None and pressed is None
    if started and state.white_side is None and not over:
        assert reading.running is not None  # `started` says so
        turn = state.game.board.turn
        white = reading.running if turn == chess.WHITE else 1 - reading.running
        state = replace(state, white_side=white, sides_source="start")
        out.fact("clock_sides", white_side=SIDE_NAMES[white], source="start")
    explained = [False, False]
    if pressed is not None:
        explained[pressed] = True
    state, explained = _periods(state, prev, reading, at, out, explained)
    if prev is not None and not over:
        _time_increases(state, prev, reading, explained, out)
    running = reading.running if reading.running is not None else state.last_running
    turn_start = list(state.turn_start_ms)
    if started and reading.running is not None:
        turn_start[reading.running] = reading.remaining_ms[reading.running]
    if pressed is not None and reading.running is not None:
        turn_start[reading.running] = reading.remaining_ms[reading.running]
    new_state = replace(
        state, clock=reading, last_running=running, turn_start_ms=(turn_start[0], turn_start[1])
    )
    if pressed is not None and not over:
        new_state = _press(new_state, pressed, prev, reading, at, out)
    return _flags(new_state, prev, reading, at, out)


def _same_reading(a: ClockReading, b: ClockReading) -> bool:
    return (
        a.remaining_ms == b.remaining_ms
        and a.running == b.running
        and a.flags == b.flags
        and a.period_flags == b.period_flags
    )


def _check_start(state: ChessState, reading: ClockReading, out: _Out) -> ChessState:
    """Before the first move the clock must show the control's starting time (with or without the first
    increment); a running side may already have used some."""
    assert state.control is not None
    first = state.control.periods[0]
    base = first.time_s * 1000
    allowed = {base, base + first.increment_s * 1000}
    res = reading.resolution_ms
    wrong = []
    for side in (0, 1):
        shown = reading.remaining_ms[side]
        if reading.running == side:
            ok = any(shown <= a + res for a in allowed)
        else:
            ok = any(abs(shown - a) <= res for a in allowed)
        if not ok:
            wrong.append(side)
    if wrong:
        text = time_control_text(state.control)
        shown_text = ", ".join(f"{SIDE_NAMES[s]} {_hms(reading.remaining_ms[s])}" for s in wrong)
        shown_tr = ", ".join(f"{_SIDE_TR[s]} {_hms(reading.remaining_ms[s])}" for s in wrong)
        expected = " or ".join(_hms(a) for a in sorted(allowed))
        out.anomaly(
            "chess.clock_setting",
            Severity.WARNING,
            f"The clock starts at {shown_text}, but the time control {text} starts at {expected}; set the clock.",
            f"Saat {shown_tr} ile başlıyor, ancak {text} süre kontrolü {expected} ile başlar; saati ayarlayın.",
            sides=[SIDE_NAMES[s] for s in wrong],
            shown_ms=list(reading.remaining_ms),
            expected_ms=sorted(int(a) for a in allowed),
            time_control=text,
        )
    return replace(state, clock_checked=True)


def _periods(
    state: ChessState,
    prev: ClockReading | None,
    reading: ClockReading,
    at: float,
    out: _Out,
    explained: list[bool],
) -> tuple[ChessState, list[bool]]:
    """A period flag rising: the clock added the next period at zero. The hub checks the move count."""
    for side in (0, 1):
        if not reading.period_flags[side] or (prev is not None and prev.period_flags[side]):
            continue
        explained[side] = True
        if state.result is not None:
            continue
        index = state.periods_added[side]
        colour = _colour_of(state, side)
        control = state.control
        if control is not None:
            need = clk.moves_to_complete(control, index)
            made = _moves_by(state, colour)
            if need is None or made < need:
                state = _flag_fall(
                    state,
                    side,
                    at,
                    out,
                    source="period",
                    detail=f"{made} of {need} moves made" if need is not None else "no further period",
                )
                continue
        added = list(state.periods_added)
        added[side] += 1
        state = replace(state, periods_added=(added[0], added[1]))
        out.fact(
            "period",
            side=SIDE_NAMES[side],
            colour=None if colour is None else COLOUR_NAMES[colour],
            period=added[side] + 1,
            remaining_ms=reading.remaining_ms[side],
        )
    return state, explained


def _time_increases(
    state: ChessState, prev: ClockReading, reading: ClockReading, explained: list[bool], out: _Out
) -> None:
    res = max(prev.resolution_ms, reading.resolution_ms)
    for side in (0, 1):
        if explained[side]:
            continue
        before, after = prev.remaining_ms[side], reading.remaining_ms[side]
        if after > before + res:
            out.anomaly(
                "chess.time_increased",
                Severity.WARNING,
                f"The {SIDE_NAMES[side]} clock went up from {_hms(before)} to {_hms(after)} with no press or new "
                f"period; check that the times were set on purpose.",
                f"{_SIDE_TR[side].capitalize()} saat, basma ya da yeni dönem olmadan {_hms(before)}'den "
                f"{_hms(after)}'e çıktı; sürelerin bilerek ayarlandığını kontrol edin.",
                side=SIDE_NAMES[side],
                colour=_colour_name(state, side),
                before_ms=before,
                after_ms=after,
                ply=len(state.moves),
            )


def _press(
    state: ChessState, side: int, prev: ClockReading | None, reading: ClockReading, at: float, out: _Out
) -> ChessState:
    """`side` pressed: the board is read at once, the press completes the last ply, and it is judged."""
    entry = (at, side, reading.remaining_ms[side])
    state = replace(state, early_presses=(*state.early_presses[-(_EARLY_PRESSES - 1) :], entry))
    state = _settle(state, at, out, press=True)
    if state.unpressed >= 1 and state.early_presses:
        state = _complete(replace(state, early_presses=state.early_presses[1:]), state.early_presses[0], out)
    completed = entry not in state.early_presses
    presses = state.presses + 1
    state = replace(state, presses=presses)
    out.fact(
        "press",
        side=SIDE_NAMES[side],
        colour=_colour_name(state, side),
        ply=len(state.moves),
        clock_ms=reading.remaining_ms[side],
        completes=state.moves[-1].uci if completed and state.moves else None,
    )
    if prev is None or prev.running != side:
        return state  # the side was not seen running: no time to judge
    if state.control is None:
        if state.first_clock_ms is not None:
            state = _learn_control(state, side, prev, reading, at, out)
        return state
    return _judge_press(state, side, prev, reading, at, out)


def _complete(state: ChessState, press: tuple[float, int, int], out: _Out) -> ChessState:
    """A press completes the last ply (decided before the press was read)."""
    last = state.moves[-1]
    state = replace(
        state, moves=(*state.moves[:-1], replace(last, clock_ms=press[2])), unpressed=0, last_press=press
    )
    return _check_sides(state, press[1], out)


def _check_sides(state: ChessState, side: int, out: _Out) -> ChessState:
    """The side that pressed should be the side of the player who just moved."""
    mover = not state.game.board.turn  # the colour that made the last ply
    if state.white_side is None:
        white = side if mover == chess.WHITE else 1 - side
        out.fact("clock_sides", white_side=SIDE_NAMES[white], source="press")
        return replace(state, white_side=white, sides_source="press", sides_confirmed=True)
    agrees = (state.white_side == side) == (mover == chess.WHITE)
    if agrees:
        if state.sides_open:
            out.fact("anomaly_resolved", code="chess.clock_sides", how="a press agreed with the sides")
        return replace(state, sides_confirmed=True, sides_open=False)
    if not state.sides_confirmed and state.sides_source in ("start", "press"):
        white = 1 - state.white_side
        out.fact("clock_sides", white_side=SIDE_NAMES[white], source="press")
        return replace(state, white_side=white, sides_source="press", sides_confirmed=True)
    if not state.sides_open:
        out.anomaly(
            "chess.clock_sides",
            Severity.WARNING,
            f"The {SIDE_NAMES[side]} clock was pressed after {_colour_en(mover)}'s move, but that side is "
            f"{_colour_en(not mover)}'s; the clock runs for the wrong player or its sides are set wrong.",
            f"{_colour_en(mover)} hamlesinden sonra {_SIDE_TR[side]} saate basıldı, ancak o taraf "
            f"{_COLOUR_TR[not mover]} oyuncusunun; saat yanlış oyuncu için çalışıyor ya da taraflar yanlış.",
            side=SIDE_NAMES[side],
            mover=COLOUR_NAMES[mover],
            white_side=SIDE_NAMES[state.white_side],
            ply=len(state.moves),
        )
    return replace(state, sides_open=True)


def _learn_control(
    state: ChessState, side: int, prev: ClockReading, reading: ClockReading, at: float, out: _Out
) -> ChessState:
    """No control was given: learn it from the start reading, which holds the base plus one increment.

    Bases are whole minutes, so a start of 3:02 is 3+2 and 1:30:30 is 90+30. A start on a whole minute
    leaves the increment to the first press read within `LEARN_FRESH_S` of the reading before it (a
    staler pair hides the increment behind the time that ran between them): until then, nothing is judged.
    """
    assert state.first_clock_ms is not None
    start_s = round(state.first_clock_ms[side] / 1000)
    if start_s % 60:
        increment = start_s % 60
    elif at - prev.at <= LEARN_FRESH_S:
        increment = max(0, round((reading.remaining_ms[side] - prev.remaining_ms[side]) / 1000))
    else:
        return state
    base = start_s - increment
    if base <= 0:
        return state
    control = clk.TimeControl.fischer(float(base), float(increment))
    text = time_control_text(control)
    out.fact("time_control", text=text, learned=True, increment_s=increment, base_s=base)
    return replace(state, control=control, control_learned=True)


def _judge_press(
    state: ChessState, side: int, prev: ClockReading, reading: ClockReading, at: float, out: _Out
) -> ChessState:
    """Increment, delay or refund at the press, judged with the display resolution and the time between
    the last reading and the press."""
    control = state.control
    assert control is not None
    index = state.periods_added[side]
    period = clk.period_for(control, index)
    before, after = prev.remaining_ms[side], reading.remaining_ms[side]
    elapsed = max(0.0, at - prev.at)
    res_s = max(prev.resolution_ms, reading.resolution_ms) / 1000
    start = state.turn_start_ms[side]
    window = clk.press_window(period, before / 1000, elapsed, res_s, None if start is None else start / 1000)
    if window is None:
        return state
    low, high = window
    shown = after / 1000
    if low - 1e-6 <= shown <= high + 1e-6:
        return state
    colour = _colour_of(state, side)
    need = clk.moves_to_complete(control, index)
    if need is not None and index + 1 < len(control.periods) and _moves_by(state, colour) >= need:
        extra = control.periods[index + 1].time_s
        if low + extra - 1e-6 <= shown <= high + extra + 1e-6:  # a clock that adds the period at the count
            added = list(state.periods_added)
            added[side] += 1
            out.fact(
                "period",
                side=SIDE_NAMES[side],
                colour=None if colour is None else COLOUR_NAMES[colour],
                period=added[side] + 1,
                remaining_ms=after,
            )
            return replace(state, periods_added=(added[0], added[1]))
    gain = after - before
    expected_low, expected_high = round(low * 1000), round(high * 1000)
    what_en = {
        clk.DelayMode.NONE: f"increment of {_num(period.increment_s)} s",
        clk.DelayMode.SIMPLE: f"delay of {_num(period.delay_s)} s (no time added)",
        clk.DelayMode.BRONSTEIN: f"Bronstein refund of up to {_num(period.delay_s)} s",
    }[period.delay_mode]
    what_tr = {
        clk.DelayMode.NONE: f"{_num(period.increment_s)} sn artış",
        clk.DelayMode.SIMPLE: f"{_num(period.delay_s)} sn gecikme (süre eklenmez)",
        clk.DelayMode.BRONSTEIN: f"en çok {_num(period.delay_s)} sn Bronstein iadesi",
    }[period.delay_mode]
    gives_time = period.increment_s > res_s or (
        period.delay_mode is clk.DelayMode.BRONSTEIN and high * 1000 - before > prev.resolution_ms
    )
    missing = shown < low and gives_time and gain <= reading.resolution_ms
    code = "chess.increment_missing" if missing else "chess.increment_wrong"
    if missing:
        en = f"The {SIDE_NAMES[side]} clock got no {what_en} at the press: {_hms(before)} became {_hms(after)}."
        tr = f"{_SIDE_TR[side].capitalize()} saate basınca {what_tr} eklenmedi: {_hms(before)} → {_hms(after)}."
    else:
        en = (
            f"The {SIDE_NAMES[side]} clock shows {_hms(after)} after the press, expected "
            f"{_hms(expected_low)}-{_hms(expected_high)} ({what_en}, from {_hms(before)})."
        )
        tr = (
            f"{_SIDE_TR[side].capitalize()} saat basıştan sonra {_hms(after)} gösteriyor, beklenen "
            f"{_hms(expected_low)}-{_hms(expected_high)} ({what_tr}, {_hms(before)}'den)."
        )
    out.anomaly(
        code,
        Severity.WARNING,
        en,
        tr,
        side=SIDE_NAMES[side],
        colour=None if colour is None else COLOUR_NAMES[colour],
        before_ms=before,
        after_ms=after,
        expected_ms=[expected_low, expected_high],
        since_reading_s=round(elapsed, 3),
        ply=len(state.moves),
        time_control=time_control_text(control),
    )
    return state


def _flags(
    state: ChessState, prev: ClockReading | None, reading: ClockReading, at: float, out: _Out
) -> ChessState:
    for side in (0, 1):
        if reading.flags[side] and not (prev is not None and prev.flags[side]) and state.result is None:
            state = _flag_fall(state, side, at, out, source="clock")
    return state


def _flag_fall(
    state: ChessState, side: int, at: float, out: _Out, *, source: str, detail: str = ""
) -> ChessState:
    """`side`'s time is up: the opponent wins, or it is a draw when the opponent cannot mate (FIDE 6.9)."""
    board = state.game.board
    colour = _colour_of(state, side)
    if colour is None:
        colour = board.turn  # the clock runs for the player to move
    opponent = not colour
    draw = board.has_insufficient_material(opponent)
    outcome = "1/2-1/2" if draw else ("1-0" if opponent == chess.WHITE else "0-1")
    reading = state.clock
    shown = None if reading is None else reading.remaining_ms[side]
    out.fact("game_over", result=outcome, reason="flag_fall", ply=len(state.moves), side=SIDE_NAMES[side])
    tail_en = f"a draw: {_colour_en(opponent)} cannot checkmate" if draw else f"{_colour_en(opponent)} wins"
    tail_tr = f"berabere: {_COLOUR_TR[opponent]} mat edemez" if draw else f"{_COLOUR_TR[opponent]} kazanır"
    how_en = {
        "clock": "",
        "period": f" (the time control was not reached: {detail})",
        "estimate": " (no reading since)",
    }
    how_tr = {
        "clock": "",
        "period": f" (süre kontrolüne ulaşılamadı: {detail})",
        "estimate": " (o zamandan beri okuma yok)",
    }
    out.anomaly(
        "chess.flag_fall",
        Severity.INFO,
        f"{_colour_en(colour)}'s flag fell on the {SIDE_NAMES[side]} clock{how_en[source]}: {tail_en} ({outcome}).",
        f"{_COLOUR_TR[colour]} oyuncusunun {_SIDE_TR[side]} saatte bayrağı düştü{how_tr[source]}: {tail_tr} "
        f"({outcome}).",
        side=SIDE_NAMES[side],
        colour=COLOUR_NAMES[colour],
        result=outcome,
        draw=draw,
        source=source,
        remaining_ms=shown,
        ply=len(state.moves),
        at=at,
    )
    return replace(
        state, result=outcome, result_reason="flag_fall", illegal=None, mismatch_open=False, out_since=None
    )


def _on_tick(state: ChessState, at: float, out: _Out) -> ChessState:
    state = _settle(state, at, out)
    reading = state.clock
    control = state.control
    if state.result is not None or reading is None or reading.running is None or control is None:
        return state
    side = reading.running
    if state.periods_added[side] < len(control.periods) - 1:
        return state  # the clock adds the next period at zero; its reading will tell
    period = clk.period_for(control, state.periods_added[side])
    grace = period.delay_s if period.delay_mode is clk.DelayMode.SIMPLE else 0.0
    left_s = reading.remaining_ms[side] / 1000 - (at - reading.at) + grace
    if left_s < -state.config.flag_slack_s:
        return _flag_fall(state, side, at, out, source="estimate")
    return state


# --- referee inputs ------------------------------------------------------------------------------------------


def _referee_problem(out: _Out, en: str, tr: str, **data: Any) -> None:
    out.anomaly("chess.referee_input", Severity.WARNING, en, tr, **data)


def _on_keep_illegal(state: ChessState, at: float, out: _Out) -> ChessState:
    flag = state.illegal
    if flag is None:
        _referee_problem(
            out,
            "There is no flagged illegal move to keep; nothing was changed.",
            "Geçerli sayılacak işaretli bir kuralsız hamle yok; hiçbir şey değişmedi.",
        )
        return state
    state = replace(state, illegal=None)
    for uci in flag.ucis:
        move = chess.Move.from_uci(uci)
        state = _push(state, move, at, out, illegal=bool(move))
    out.fact("anomaly_resolved", code="chess.illegal_move", how="kept by the arbiter")
    if state.shown == state.game.placement:
        state = replace(state, out_since=None, mismatch_open=False)
    elif state.out_since is None:
        state = replace(state, out_since=at)
    return state


def _on_set_result(state: ChessState, item: SetResult, at: float, out: _Out) -> ChessState:
    if item.result == "*":
        out.fact("reopened", previous=state.result, reason=item.reason)
        out_since = None if state.shown == state.game.placement else at
        return replace(state, result=None, result_reason=None, signal=None, out_since=out_since)
    if item.result not in RESULTS:
        _referee_problem(
            out,
            f"{item.result!r} is not a result (1-0, 0-1, 1/2-1/2, or * to reopen); nothing was changed.",
            f"{item.result!r} bir sonuç değil (1-0, 0-1, 1/2-1/2 ya da yeniden açmak için *); değişiklik yok.",
            result=item.result,
        )
        return state
    out.fact(
        "game_over", result=item.result, reason=item.reason or "referee", ply=len(state.moves), by="referee"
    )
    return replace(
        state,
        result=item.result,
        result_reason=item.reason or "referee",
        illegal=None,
        mismatch_open=False,
        out_since=None,
    )


def _on_take_back(state: ChessState, item: TakeBack, at: float, out: _Out) -> ChessState:
    plies = item.plies
    if isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= len(state.moves):
        _referee_problem(
            out,
            f"Cannot take back {plies!r} plies: the game has {len(state.moves)}; nothing was changed.",
            f"{plies!r} yarım hamle geri alınamaz: oyunda {len(state.moves)} var; değişiklik yok.",
            plies=plies,
            ply=len(state.moves),
        )
        return state
    state = _rewind(state, plies, out, by="referee")
    if state.result_reason in _BOARD_ENDINGS:
        out.fact("reopened", previous=state.result, reason="take_back")
        state = replace(state, result=None, result_reason=None)
    state = replace(state, illegal=None, early_presses=())
    if state.shown == state.game.placement:
        return _in_step(state, out, "the game was corrected")
    # The board still shows what the arbiter took back: it must not be read again until it changes.
    return replace(state, shown_at=None, out_since=None, mismatch_open=False)


def _on_clock_sides(state: ChessState, item: ClockSides, out: _Out) -> ChessState:
    if item.white not in SIDE_NAMES:
        _referee_problem(
            out,
            f'White\'s clock side must be "left" or "right", got {item.white!r}; nothing was changed.',
            f'Beyazın saat tarafı "left" ya da "right" olmalı, gelen {item.white!r}; değişiklik yok.',
            white=item.white,
        )
        return state
    if state.sides_open:
        out.fact("anomaly_resolved", code="chess.clock_sides", how="set by the arbiter")
    out.fact("clock_sides", white_side=item.white, source="referee")
    return replace(
        state,
        white_side=SIDE_NAMES.index(item.white),
        sides_source="referee",
        sides_confirmed=True,
        sides_open=False,
    )


# --- helpers ---------------------------------------------------------------------------------------------------


def _colour_en(colour: chess.Color) -> str:
    return "White" if colour == chess.WHITE else "Black"


def _colour_of(state: ChessState, side: int) -> chess.Color | None:
    if state.white_side is None:
        return None
    return chess.WHITE if side == state.white_side else chess.BLACK


def _colour_name(state: ChessState, side: int) -> str | None:
    colour = _colour_of(state, side)
    return None if colour is None else COLOUR_NAMES[colour]


def _moves_by(state: ChessState, colour: chess.Color | None) -> int:
    """Moves made by `colour` (the player to move when the clock's sides are not known)."""
    plies = len(state.moves)
    if colour is None:
        colour = state.game.board.turn
    return (plies + 1) // 2 if colour == chess.WHITE else plies // 2


def _clock_running(state: ChessState) -> bool:
    return state.clock is not None and state.clock.running is not None


def _colour_times(state: ChessState) -> tuple[int | None, int | None]:
    reading = state.clock
    if reading is None or state.white_side is None:
        return None, None
    return reading.remaining_ms[state.white_side], reading.remaining_ms[1 - state.white_side]


def _hms(ms: float) -> str:
    total = max(0, int(ms // 1000))
    return f"{total // 3600}:{total % 3600 // 60:02d}:{total % 60:02d}"


# --- plain data ------------------------------------------------------------------------------------------------


def _control_to_dict(control: clk.TimeControl | None) -> dict[str, Any] | None:
    if control is None:
        return None
    return {
        "periods": [
            {
                "time_s": p.time_s,
                "moves": p.moves,
                "increment_s": p.increment_s,
                "delay_s": p.delay_s,
                "delay_mode": p.delay_mode.value,
            }
            for p in control.periods
        ],
        "increment_before_first_move": control.increment_before_first_move,
    }


def _control_from_dict(d: dict[str, Any] | None) -> clk.TimeControl | None:
    if d is None:
        return None
    return clk.TimeControl(
        tuple(
            clk.Period(
                p["time_s"], p["moves"], p["increment_s"], p["delay_s"], clk.DelayMode(p["delay_mode"])
            )
            for p in d["periods"]
        ),
        d["increment_before_first_move"],
    )


def _pair(v: Any) -> tuple[Any, Any]:
    return (v[0], v[1])


def to_dict(state: ChessState) -> dict[str, Any]:
    """The state as plain data, for snapshots and spectators; `from_dict` reads it back exactly."""
    board = state.game.board
    reading = state.clock
    clock = None
    if reading is not None:
        white, black = _colour_times(state)
        running = reading.running
        clock = {
            "white_ms": white,
            "black_ms": black,
            "running": None if running is None else _colour_name(state, running),
            "as_of": reading.at,
            "white_side": None if state.white_side is None else SIDE_NAMES[state.white_side],
            "left_ms": reading.remaining_ms[0],
            "right_ms": reading.remaining_ms[1],
            "running_side": None if running is None else SIDE_NAMES[running],
        }
    cfg = state.config
    return {
        "fen": board.fen(),
        "board_fen": state.shown,
        "turn": COLOUR_NAMES[board.turn],
        "moves": [
            {
                "ply": i,
                "uci": m.uci,
                "san": m.san,
                "clock_ms": m.clock_ms,
                "at": m.at,
                **({"illegal": True} if m.illegal else {}),
            }
            for i, m in enumerate(state.moves, start=1)
        ],
        "clock": clock,
        "result": state.result,
        "result_reason": state.result_reason,
        "pending": state.result is None and state.shown != state.game.placement,
        "time_control": None if state.control is None else time_control_text(state.control),
        # what only a resumed reducer needs
        "resume": {
            "config": {
                "control": _control_to_dict(cfg.control),
                "clock_white": cfg.clock_white,
                "settle_s": cfg.settle_s,
                "extend_s": cfg.extend_s,
                "illegal_s": cfg.illegal_s,
                "mismatch_s": cfg.mismatch_s,
                "flag_slack_s": cfg.flag_slack_s,
            },
            "shown_at": state.shown_at,
            "recent": list(state.recent),
            "magic": list(state.magic),
            "out_since": state.out_since,
            "illegal": None
            if state.illegal is None
            else {
                "board_fen": state.illegal.board_fen,
                "ucis": list(state.illegal.ucis),
                "at": state.illegal.at,
            },
            "mismatch_open": state.mismatch_open,
            "signal": state.signal,
            "control": _control_to_dict(state.control),
            "control_learned": state.control_learned,
            "reading": None
            if reading is None
            else {
                "remaining_ms": list(reading.remaining_ms),
                "running": reading.running,
                "at": reading.at,
                "flags": list(reading.flags),
                "period_flags": list(reading.period_flags),
                "resolution_ms": reading.resolution_ms,
            },
            "first_clock_ms": None if state.first_clock_ms is None else list(state.first_clock_ms),
            "last_running": state.last_running,
            "white_side": state.white_side,
            "sides_source": state.sides_source,
            "sides_confirmed": state.sides_confirmed,
            "sides_open": state.sides_open,
            "unpressed": state.unpressed,
            "early_presses": [list(p) for p in state.early_presses],
            "last_press": None if state.last_press is None else list(state.last_press),
            "turn_start_ms": list(state.turn_start_ms),
            "periods_added": list(state.periods_added),
            "presses": state.presses,
            "clock_checked": state.clock_checked,
        },
    }


def from_dict(d: dict[str, Any]) -> ChessState:
    """The inverse of `to_dict`."""
    r = d["resume"]
    c = r["config"]
    config = ChessConfig(
        _control_from_dict(c["control"]),
        c["clock_white"],
        c["settle_s"],
        c["extend_s"],
        c["illegal_s"],
        c["mismatch_s"],
        c["flag_slack_s"],
    )
    moves = tuple(
        PlayedMove(m["uci"], m["san"], m["at"], m["clock_ms"], m.get("illegal", False)) for m in d["moves"]
    )
    ill = r["illegal"]
    rd = r["reading"]
    first = r["first_clock_ms"]
    return ChessState(
        config=config,
        moves=moves,
        shown=d["board_fen"],
        shown_at=r["shown_at"],
        recent=tuple(r["recent"]),
        magic=tuple(r["magic"]),
        out_since=r["out_since"],
        illegal=None if ill is None else IllegalFlag(ill["board_fen"], tuple(ill["ucis"]), ill["at"]),
        mismatch_open=r["mismatch_open"],
        signal=r["signal"],
        result=d["result"],
        result_reason=d["result_reason"],
        control=_control_from_dict(r["control"]),
        control_learned=r["control_learned"],
        clock=None
        if rd is None
        else ClockReading(
            _pair(rd["remaining_ms"]),
            rd["running"],
            rd["at"],
            _pair(rd["flags"]),
            _pair(rd["period_flags"]),
            rd["resolution_ms"],
        ),
        first_clock_ms=None if first is None else _pair(first),
        last_running=r["last_running"],
        white_side=r["white_side"],
        sides_source=r["sides_source"],
        sides_confirmed=r["sides_confirmed"],
        sides_open=r["sides_open"],
        unpressed=r["unpressed"],
        early_presses=tuple((p[0], p[1], p[2]) for p in r["early_presses"]),
        last_press=None
        if r["last_press"] is None
        else (r["last_press"][0], r["last_press"][1], r["last_press"][2]),
        turn_start_ms=_pair(r["turn_start_ms"]),
        periods_added=_pair(r["periods_added"]),
        presses=r["presses"],
        clock_checked=r["clock_checked"],
        game=_Game.replay(m.uci for m in moves),
    )


def input_to_dict(item: Any) -> dict[str, Any]:
    """An input (or a device report) as plain data with a "type" key; `input_from_dict` reverses it."""
    if isinstance(item, ChessBoardState):
        return {"type": "board", "board_fen": item.board_fen, "magic": list(item.magic)}
    if isinstance(item, ChessClockState):
        return {
            "type": "clock",
            "remaining_ms": list(item.remaining_ms),
            "running": item.running,
            "flags": list(item.flags),
            "period_flags": list(item.period_flags),
            "time_per_move": item.time_per_move,
            "resolution_ms": item.resolution_ms,
            "moves": None if item.moves is None else list(item.moves),
            "period": item.period,
        }
    if isinstance(item, DeviceEvent):
        return {"type": "event", "kind": item.kind, "data": dict(item.data)}
    if isinstance(item, Tick):
        return {"type": "tick"}
    if isinstance(item, KeepIllegal):
        return {"type": "keep_illegal"}
    if isinstance(item, SetResult):
        return {"type": "set_result", "result": item.result, "reason": item.reason}
    if isinstance(item, TakeBack):
        return {"type": "take_back", "plies": item.plies}
    if isinstance(item, ClockSides):
        return {"type": "clock_sides", "white": item.white}
    raise TypeError(f"no chess input encoding for {type(item).__name__}")


def _field(data: dict[str, Any], key: str, ok: Any, what: str) -> Any:
    value = data.get(key)
    if not ok(value):
        raise ValueError(f'chess input {data.get("type")!r}: "{key}" must be {what}, got {value!r}')
    return value


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _ints(n: int, *, low: int = 0) -> Any:
    return lambda v: isinstance(v, list | tuple) and len(v) == n and all(_is_int(x) and x >= low for x in v)


def _bools(n: int) -> Any:
    return lambda v: isinstance(v, list | tuple) and len(v) == n and all(isinstance(x, bool) for x in v)


def input_from_dict(data: dict[str, Any]) -> Input:
    """The inverse of `input_to_dict`; raises ValueError naming the field when the data is no valid input."""
    if not isinstance(data, dict):
        raise ValueError(f"chess input must be an object, got {type(data).__name__}")
    kind = data.get("type")
    if kind == "board":
        fen = _field(
            data, "board_fen", lambda v: isinstance(v, str) and _placement(v) is not None, "a placement FEN"
        )
        magic = _field(
            data,
            "magic",
            lambda v: v is None or (isinstance(v, list) and all(isinstance(x, str) for x in v)),
            "a list of texts",
        )
        return ChessBoardState(fen, tuple(magic or ()))
    if kind == "clock":
        side = lambda v: v is None or (_is_int(v) and v in (0, 1))  # noqa: E731
        moves = data.get("moves")
        if moves is not None:
            _field(data, "moves", _ints(2), "two counts or null")
        period = _field(
            data, "period", lambda v: v is None or (_is_int(v) and v >= 0), "a period number or null"
        )
        per_move = _field(
            data, "time_per_move", lambda v: v is None or isinstance(v, bool), "true, false or null"
        )
        return ChessClockState(
            _pair(_field(data, "remaining_ms", _ints(2), "two times in ms")),
            _field(data, "running", side, "0, 1 or null"),
            _pair(_field(data, "flags", _bools(2), "two true/false")),
            _pair(_field(data, "period_flags", _bools(2), "two true/false")),
            per_move,
            _field(data, "resolution_ms", lambda v: _is_int(v) and v > 0, "a positive number of ms"),
            None if moves is None else _pair(moves),
            period,
        )
    if kind == "event":
        return DeviceEvent(
            _field(data, "kind", lambda v: isinstance(v, str), "text"),
            dict(_field(data, "data", lambda v: isinstance(v, dict), "an object")),
        )
    if kind == "tick":
        return Tick()
    if kind == "keep_illegal":
        return KeepIllegal()
    if kind == "set_result":
        res = _field(data, "result", lambda v: v in (*RESULTS, "*"), '"1-0", "0-1", "1/2-1/2" or "*"')
        reason = _field(data, "reason", lambda v: v is None or isinstance(v, str), "text")
        return SetResult(res, reason or "")
    if kind == "take_back":
        return TakeBack(_field(data, "plies", lambda v: _is_int(v) and v >= 1, "a whole number from 1"))
    if kind == "clock_sides":
        return ClockSides(_field(data, "white", lambda v: v in SIDE_NAMES, '"left" or "right"'))
    raise ValueError(
        f"unknown chess input type {kind!r}; known: board, clock, event, tick, {', '.join(REFEREE_INPUTS)}"
    )
