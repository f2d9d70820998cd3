"""Plain data: the state (`to_dict`/`from_dict`, exact round trip) and the inputs (`input_to_dict`/
`input_from_dict`, which names the faulty field)."""

from __future__ import annotations

from typing import Any

from devices.observations import ChessBoardState, ChessClockState, DeviceEvent
from hub.rules import clock as clk
from hub.rules.chess.board import _placement
from hub.rules.chess.model import (
    COLOUR_NAMES,
    REFEREE_INPUTS,
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
    PlayedMove,
    SetResult,
    TakeBack,
    Tick,
    _colour_name,
    _colour_times,
)
from hub.rules.chess.timecontrol import time_control_text


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
        "clock": _clock_view(state),
        "result": state.result,
        "result_reason": state.result_reason,
        "pending": state.result is None and state.shown != state.game.placement,
        "time_control": None if state.control is None else time_control_text(state.control),
        "resume": _resume_to_dict(state),
    }


def _clock_view(state: ChessState) -> dict[str, Any] | None:
    """The clock by colour (and by side, as on the table), or None before the first reading."""
    reading = state.clock
    if reading is None:
        return None
    white, black = _colour_times(state)
    running = reading.running
    return {
        "white_ms": white,
        "black_ms": black,
        "running": None if running is None else _colour_name(state, running),
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
        game=Game.replay(m.uci for m in moves),
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
