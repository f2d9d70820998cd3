"""PGN export of a chess game: the Seven Tag Roster, TimeControl, and the moves with `[%clk]` comments."""

from __future__ import annotations

from collections.abc import Callable

import chess

from hub.rules.chess.model import ChessState
from hub.rules.chess.timecontrol import time_control_text

SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?", "Black": "?"}
_TERMINATION = {
    "flag_fall": "time forfeit",
    "checkmate": "normal",
    "stalemate": "normal",
    "insufficient_material": "normal",
    "seventyfive_moves": "normal",
    "fivefold_repetition": "normal",
    "result_signal": "normal",
    # results the board cannot see (the arbiter's `result` action): as lichess and other relays write them
    "resignation": "normal",
    "agreement": "normal",
    "flag": "time forfeit",
    "forfeit": "forfeit",
    "arbiter": "adjudication",
}
_LINE = 79  # PGN export format: lines shorter than 80 characters


def clk(ms: int) -> str:
    """`[%clk]` time: H:MM:SS, with tenths only when the clock shows them."""
    tenths = (ms % 1000) // 100
    total = ms // 1000
    text = f"{total // 3600}:{total % 3600 // 60:02d}:{total % 60:02d}"
    return f"{text}.{tenths}" if tenths else text


def _tag(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def pgn(
    state: ChessState, headers: dict[str, str], annotate: Callable[[str], str | None] | None = None
) -> str:
    """The game as PGN. `headers` fill the roster (missing ones are "?"); Result, TimeControl and Termination
    come from the game unless given (a given Result also ends the movetext). Each move carries
    `{[%clk H:MM:SS]}` when the press that completed it was read. An illegal move the arbiter let stand is
    written as played, with a comment saying so."""
    result = headers.get("Result") or state.result or "*"  # the hub's (a referee's) result wins
    tags = dict(_DEFAULTS)
    tags.update(headers)
    tags["Result"] = result
    if "TimeControl" not in headers and state.control is not None:
        tags["TimeControl"] = time_control_text(state.control)
    if "Termination" not in headers and state.result_reason in _TERMINATION:
        tags["Termination"] = _TERMINATION[state.result_reason]
    order = [*SEVEN_TAGS, *(k for k in tags if k not in SEVEN_TAGS)]
    lines = [_tag(k, tags[k]) for k in order]

    tokens: list[str] = []
    after_comment = False
    board = chess.Board() if annotate is not None else None  # the positions, for their comments
    for ply, move in enumerate(state.moves):
        number = ply // 2 + 1
        if ply % 2 == 0:
            tokens.append(f"{number}.")
        elif after_comment or ply == 0:
            tokens.append(f"{number}...")
        tokens.append(move.san)
        comments = []
        if move.clock_ms is not None:
            comments.append(f"[%clk {clk(move.clock_ms)}]")
        if move.illegal and move.san != "--":
            comments.append("illegal move, kept by the arbiter")
        if board is not None and annotate is not None:
            board = _after(board, move.uci)
            said = None if board is None else annotate(board.fen())
            if said:
                comments.append(said)
        after_comment = bool(comments)
        if comments:
            tokens.append("{" + " ".join(comments) + "}")
    tokens.append(result)

    movetext: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > _LINE:
            movetext.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    if line:
        movetext.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(movetext) + "\n"


def _after(board: chess.Board, uci: str) -> chess.Board | None:
    """The position after `uci`, or None once a move cannot be played on it (a null or kept illegal move):
    no position after it is annotated."""
    try:
        board.push_uci(uci)
    except ValueError:
        return None
    return board
