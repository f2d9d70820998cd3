"""Chess rules as a pure reducer: a game rebuilt from e-board snapshots and clock readings, with its anomalies.

An e-board reports squares, never moves: a move reaches the hub as several snapshots (lift, place, slide) in
any scan order. The reducer keeps the last snapshot and decides what it means once it has *settled*:

- a legal move from the game position (delayed while the move could still grow: a slider that may slide on,
  a king on its way to castle, a pawn's first step, a king stepping into the centre where a result signal
  may be coming); two plies when the opponent answered before the board settled;
- an earlier position of the game (a takeback: the main line is rewritten, never branched), or a different
  move from an earlier position (the last move corrected);
- both kings on d4/e4/d5/e5: an e-board's result signal, never a move;
- a move the rules forbid (`chess.illegal_move`, kept only if the arbiter says so: `KeepIllegal`);
- anything else: a board out of step with the game (`chess.board_mismatch` once it lasts), among them the
  start position after more than four plies: pieces set up again, never a takeback of the whole game.

A game with a result is frozen: later boards and clock readings never change its moves, position or clock
(a result signal is still read); `SetResult("*")` reopens it. A live game whose board and stopped clock stay
unchanged for `quiet_s` raises `chess.awaiting_result` once, resolved by a result, a move or a running clock.

A clock press completes a move, so a press decides at once. Clock readings are left/right as on the table;
the reducer binds them to colours (the side running before White's first move is White's, checked at every
press, `ClockSides` overrides) and judges increments, delays, periods, presses and flag fall against the
time control with the display's resolution and the time between readings.

Time is always an argument; nothing here reads a clock or does I/O. `to_dict`/`from_dict` round-trip the
state exactly (the hub snapshots it and spectators render it).

The package, by meaning: `model` (constants, configuration, inputs, state), `timecontrol` (the notation),
`board` (what a board means against the game), `moves` (entering it into the game), `clock` (readings,
presses, the time control, flag fall), `referee` (the arbiter's inputs), `reducer` (`apply`), `codec`
(plain data), `export` (PGN) and `sport` (`ChessSport`: the package behind the hub's `SportRules`).
"""

from __future__ import annotations

from hub.rules.chess.codec import from_dict, input_from_dict, input_to_dict, to_dict
from hub.rules.chess.export import pgn
from hub.rules.chess.model import (
    CENTRE,
    COLOUR_NAMES,
    LEARN_FRESH_S,
    REFEREE_INPUTS,
    RESULTS,
    SIDE_NAMES,
    ChessConfig,
    ChessState,
    ClockReading,
    ClockSides,
    IllegalFlag,
    Input,
    KeepIllegal,
    Orientation,
    PlayedMove,
    SetResult,
    TakeBack,
    Tick,
    initial,
    is_fresh_start,
    is_over,
    result,
    winner,
)
from hub.rules.chess.reducer import apply
from hub.rules.chess.timecontrol import parse_time_control, time_control_text

__all__ = [
    "CENTRE",
    "COLOUR_NAMES",
    "LEARN_FRESH_S",
    "REFEREE_INPUTS",
    "RESULTS",
    "SIDE_NAMES",
    "ChessConfig",
    "ChessState",
    "ClockReading",
    "ClockSides",
    "IllegalFlag",
    "Input",
    "KeepIllegal",
    "Orientation",
    "PlayedMove",
    "SetResult",
    "TakeBack",
    "Tick",
    "apply",
    "from_dict",
    "initial",
    "input_from_dict",
    "input_to_dict",
    "is_fresh_start",
    "is_over",
    "parse_time_control",
    "pgn",
    "result",
    "time_control_text",
    "to_dict",
    "winner",
]
