"""Plain data: the state (`to_dict`/`from_dict`, exact round trip) and the inputs (`input_to_dict`/
`input_from_dict`, which names the faulty field)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import msgspec

from devices.observations import ChessBoardState, ChessClockState, DeviceEvent
from devices.strict import by_tag, complaint
from hub.rules import clock as clk
from hub.rules.chess.board import _placement
from hub.rules.chess.model import (
    COLOUR_NAMES,
    REFEREE_INPUTS,
    RESULT_HOWS,
    RESULTS,
    SIDE_NAMES,
    ChessConfig,
    ChessState,
    ClockReading,
    ClockSides,
    Game,
    IllegalFlag,
    Input,
    KeepIllegal,
    Orientation,
    PlayedMove,
    SetResult,
    TakeBack,
    Tick,
    colour_name,
    colour_times,
)
from hub.rules.chess.timecontrol import time_control_text
from hub.rules.snapshot import StateCodec


def _control_to_dict(control: clk.TimeControl | None) -> dict[str, Any] | None:
    return None if control is None else clk.control_to_dict(control)


def _control_from_dict(d: dict[str, Any] | None) -> clk.TimeControl | None:
    return None if d is None else clk.control_from_dict(d)


def _pair(v: Any) -> tuple[Any, Any]:
    return (v[0], v[1])


def _encode(state: ChessState) -> dict[str, Any]:
    """The state as plain data, for snapshots and spectators; `from_dict` reads it back exactly."""
    board = state.game.board
    return {
        "fen": board.fen(),
        # a finished game shows its final position: what the board shows afterwards is not the game's
        "board_fen": state.shown if state.result is None else state.game.placement,
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
        "clock": clock_view(state),
        "result": state.result,
        "result_reason": state.result_reason,
        "pending": state.result is None and state.shown != state.game.placement,
        "time_control": None if state.control is None else time_control_text(state.control),
        "resume": _resume_to_dict(state),
        "awaiting_result": state.awaiting_open,
    }


def clock_view(state: ChessState) -> dict[str, Any] | None:
    """The clock by colour (and by side, as on the table), or None before the first reading."""
    reading = state.clock
    if reading is None:
        return None
    white, black = colour_times(state)
    running = reading.running
    return {
        "white_ms": white,
        "black_ms": black,
        "running": None if running is None else colour_name(state, running),
        "as_of": reading.at,
        "white_side": None if state.white_side is None else SIDE_NAMES[state.white_side],
        "left_ms": reading.remaining_ms[0],
        "right_ms": reading.remaining_ms[1],
        "running_side": None if running is None else SIDE_NAMES[running],
    }


def _config_to_dict(cfg: ChessConfig) -> dict[str, Any]:
    return {
        "control": _control_to_dict(cfg.control),
        "clock_white": cfg.clock_white,
        "settle_s": cfg.settle_s,
        "extend_s": cfg.extend_s,
        "illegal_s": cfg.illegal_s,
        "mismatch_s": cfg.mismatch_s,
        "flag_slack_s": cfg.flag_slack_s,
        "quiet_s": cfg.quiet_s,
        "orientation": cfg.orientation,
    }


def _resume_to_dict(state: ChessState) -> dict[str, Any]:
    """What only a resumed reducer needs."""
    reading = state.clock
    return {
        "config": _config_to_dict(state.config),
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
        "clock_joined": state.clock_joined,
        "board_joined": state.board_joined,
        "shown": state.shown,  # the public board_fen is the final position once the game is over
        "clock_changed_at": state.clock_changed_at,
        "rotated": state.rotated,
        "orientation_source": state.orientation_source,
    }


def _decode(d: dict[str, Any]) -> ChessState:
    """A state from the current snapshot form (`_encode`); every key is there."""
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
        c["quiet_s"],
        orientation=c["orientation"],
    )
    moves = tuple(  # "illegal" is written only for a move that was
        PlayedMove(m["uci"], m["san"], m["at"], m["clock_ms"], m.get("illegal", False)) for m in d["moves"]
    )
    ill = r["illegal"]
    rd = r["reading"]
    first = r["first_clock_ms"]
    return ChessState(
        config=config,
        moves=moves,
        shown=r["shown"],
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
        clock_joined=r["clock_joined"],
        board_joined=r["board_joined"],
        game=Game.replay(m.uci for m in moves),
        clock_changed_at=r["clock_changed_at"],
        awaiting_open=d["awaiting_result"],
        rotated=r["rotated"],
        orientation_source=r["orientation_source"],
    )


def _from_version_1(d: dict[str, Any]) -> dict[str, Any]:
    """Version 1: every snapshot before versions. What later rules added is what a game that never had it
    holds: the default quiet time and orientation, the board shown as last read, no
    clock or board joined mid-game, no rotation seen, no result awaited."""
    r, c = d["resume"], d["resume"]["config"]
    config = {"quiet_s": ChessConfig().quiet_s, "orientation": "auto", **c}
    resume = {
        "shown": d["board_fen"],
        "clock_joined": False,
        "board_joined": False,
        "clock_changed_at": None,
        "rotated": False,
        "orientation_source": None,
        **r,
        "config": config,
    }
    return {"awaiting_result": False, **d, "resume": resume}


SNAPSHOT: StateCodec[ChessState] = StateCodec(2, _encode, _decode, {1: _from_version_1})


def to_dict(state: ChessState) -> dict[str, Any]:
    """The state as a snapshot: its version, what the screens read, and under "resume" what resuming needs."""
    return SNAPSHOT.to_dict(state)


def from_dict(data: dict[str, Any]) -> ChessState:
    """A state from a snapshot of any version (`to_dict`'s inverse)."""
    return SNAPSHOT.from_dict(data)


def public_dict(state: ChessState) -> dict[str, Any]:
    """What spectators see of the state: the snapshot's current form without its version or "resume"."""
    return {k: v for k, v in _encode(state).items() if k != "resume"}


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
        if (
            item.kind == "result"
        ):  # an umpire's taps: the result entered at the board, read as an arbiter's is
            try:
                return {"type": "set_result", **_tapped_result(dict(item.data))}
            except (KeyError, ValueError, msgspec.ValidationError):
                pass  # kept as it was sent; the rules read nothing from it
        return {"type": "event", "kind": item.kind, "data": dict(item.data)}
    if isinstance(item, Tick):
        return {"type": "tick"}
    if isinstance(item, KeepIllegal):
        return {"type": "keep_illegal"}
    if isinstance(item, SetResult):
        if item.how:  # only when given: the inputs logged before `how` existed encode as they did
            return {"type": "set_result", "result": item.result, "reason": item.reason, "how": item.how}
        return {"type": "set_result", "result": item.result, "reason": item.reason}
    if isinstance(item, TakeBack):
        return {"type": "take_back", "plies": item.plies}
    if isinstance(item, ClockSides):
        return {"type": "clock_sides", "white": item.white}
    if isinstance(item, Orientation):
        return {"type": "orientation", "orientation": item.orientation}
    raise TypeError(f"no chess input encoding for {type(item).__name__}")


_Count = Annotated[int, msgspec.Meta(ge=0)]
_Result = Literal["1-0", "0-1", "1/2-1/2", "*"]  # a result, or "*": none yet
_Side = Literal["left", "right"]
if get_args(_Result) != (*RESULTS, "*") or get_args(_Side) != SIDE_NAMES:
    raise ImportError("the chess input types disagree with the model's RESULTS or SIDE_NAMES")
_How = Literal["resignation", "agreement", "flag", "forfeit", "arbiter"]
if get_args(_How) != RESULT_HOWS:
    raise ImportError("the chess input types disagree with the model's RESULT_HOWS")


class _Input(msgspec.Struct, tag_field="type", frozen=True):
    """An input as plain data, read strictly; `input` builds the rules' value."""

    def input(self) -> Input:
        raise NotImplementedError


class _Board(_Input, tag="board", frozen=True):
    board_fen: str
    magic: list[str] | None = None

    def input(self) -> Input:
        if _placement(self.board_fen) is None:
            raise ValueError(_must("board", "board_fen", self.board_fen))
        return ChessBoardState(self.board_fen, tuple(self.magic or ()))


class _Clock(_Input, tag="clock", frozen=True):
    remaining_ms: tuple[_Count, _Count]
    flags: tuple[bool, bool]
    period_flags: tuple[bool, bool]
    resolution_ms: Annotated[int, msgspec.Meta(gt=0)]
    running: Literal[0, 1] | None = None
    time_per_move: bool | None = None
    moves: tuple[_Count, _Count] | None = None
    period: _Count | None = None

    def input(self) -> Input:
        return ChessClockState(
            self.remaining_ms,
            self.running,
            self.flags,
            self.period_flags,
            self.time_per_move,
            self.resolution_ms,
            self.moves,
            self.period,
        )


class _Event(_Input, tag="event", frozen=True):
    kind: str
    data: dict[Any, Any]

    def input(self) -> Input:
        return DeviceEvent(self.kind, self.data)


class _Tick(_Input, tag="tick", frozen=True):
    def input(self) -> Input:
        return Tick()


class _KeepIllegal(_Input, tag="keep_illegal", frozen=True):
    def input(self) -> Input:
        return KeepIllegal()


class _SetResult(_Input, tag="set_result", frozen=True):
    result: _Result
    reason: str | None = None
    how: _How | None = None

    def input(self) -> Input:
        return SetResult(self.result, self.reason or "", self.how or "")


class _TakeBack(_Input, tag="take_back", frozen=True):
    plies: Annotated[int, msgspec.Meta(ge=1)]

    def input(self) -> Input:
        return TakeBack(self.plies)


class _ClockSides(_Input, tag="clock_sides", frozen=True):
    white: _Side

    def input(self) -> Input:
        return ClockSides(self.white)


class _Orientation(_Input, tag="orientation", frozen=True):
    orientation: Literal["auto", "normal", "rotated"]

    def input(self) -> Input:
        return Orientation(self.orientation)


# each input's Struct by its "type"
_BY_TYPE: dict[str, type[_Input]] = by_tag(
    _Board, _Clock, _Event, _Tick, _KeepIllegal, _SetResult, _TakeBack, _ClockSides, _Orientation
)

# what each field must be, as the errors say it
_MUST = {
    "board_fen": "a placement FEN",
    "magic": "a list of texts",
    "remaining_ms": "two times in ms",
    "running": "0, 1 or null",
    "flags": "two true/false",
    "period_flags": "two true/false",
    "time_per_move": "true, false or null",
    "resolution_ms": "a positive number of ms",
    "moves": "two counts or null",
    "period": "a period number or null",
    "kind": "text",
    "data": "an object",
    "result": '"1-0", "0-1", "1/2-1/2" or "*"',
    "reason": "text",
    "how": '"resignation", "agreement", "flag", "forfeit" or "arbiter"',
    "plies": "a whole number from 1",
    "white": '"left" or "right"',
    "orientation": '"auto", "normal" or "rotated"',
}


def _must(kind: Any, key: str, value: Any) -> str:
    return f'chess input {kind!r}: "{key}" must be {_MUST.get(key, "something else")}, got {value!r}'


def input_from_dict(data: dict[str, Any]) -> Input:
    """The inverse of `input_to_dict`; raises ValueError naming the field when the data is no valid input.

    Read strictly by msgspec (no "1" for 1, no 1 for true); keys the input does not have are ignored (the
    referee API names them itself, from what `input_to_dict` writes back)."""
    if not isinstance(data, dict):
        raise ValueError(f"chess input must be an object, got {type(data).__name__}")
    kind = data.get("type")
    into = _BY_TYPE.get(kind) if isinstance(kind, str) else None
    if into is None:
        raise ValueError(
            f"unknown chess input type {kind!r}; known: board, clock, event, tick, {', '.join(REFEREE_INPUTS)}"
        )
    try:
        return msgspec.convert(data, into, strict=True).input()
    except msgspec.ValidationError as exc:
        said = complaint(exc)
        raise ValueError(_must(kind, said.field or "type", said.value(data))) from None


def _tapped_result(data: dict[str, Any]) -> dict[str, Any]:
    """A result an umpire tapped (`{"result": "1-0", "how": "resignation"}`) as `set_result`'s fields; a draw by
    agreement only (ValueError otherwise, as for an arbiter's)."""
    read = msgspec.convert({"type": "set_result", **data}, _SetResult, strict=True)
    if read.how is None or read.result == "*" or (read.how == "agreement" and read.result != "1/2-1/2"):
        raise ValueError(f"not a result an umpire may enter: {data!r}")
    return {"result": read.result, "reason": "", "how": read.how}
