"""Which way round the board lies: a board set up with its a1 corner at Black's left reports every square
turned 180 degrees (a1<->h8). Its reports are read turned back, so the game sees the same moves either way.

Detected from the position (`auto`): the start position or the game's position seen turned round, or a
settled board that only the turned reading explains (a move, or a gap's plies, on from the game); the venue
may pin it per table and the arbiter may flip it. What was decided is logged as a fact, with its source; the
report as the board sent it stays in the log untouched.
"""

from __future__ import annotations

from dataclasses import replace

import chess

from devices.observations import ChessBoardState
from hub.rules.base import Severity
from hub.rules.chess.board import _diff, _placement, classify, gap_reading
from hub.rules.chess.model import GAP_PLIES, ORIENTATIONS, ChessState, Kind, Orientation, Out


def turned_fen(fen: str) -> str:
    """A placement FEN turned 180 degrees (a1<->h8): its ranks in reverse order, each read backwards, which is
    the text reversed (every rank's run lengths are single digits)."""
    return fen[::-1]


def turned_square(name: str) -> str:
    """A square's name on the board turned round (a1 -> h8, e4 -> d5)."""
    return chess.square_name(63 - chess.parse_square(name))


def _turned_magic(magic: tuple[str, ...]) -> tuple[str, ...]:
    """An e-board's result pieces ("e4=white_wins") on the board turned round; an entry without a square is kept."""
    turned = []
    for entry in magic:
        square, sep, kind = entry.partition("=")
        try:
            turned.append(f"{turned_square(square)}{sep}{kind}")
        except ValueError:
            turned.append(entry)
    return tuple(turned)


def as_read(state: ChessState, report: ChessBoardState) -> ChessBoardState:
    """The report as the game reads it: turned back when the board lies the other way round."""
    if not state.rotated:
        return report
    return ChessBoardState(turned_fen(report.board_fen), _turned_magic(tuple(report.magic)))


def _pinned(state: ChessState) -> bool:
    return state.orientation_source in ("venue", "referee")


def detect(state: ChessState, report: ChessBoardState, out: Out) -> ChessState:
    """In `auto`, a report that shows the game's position (the start position before any move) only when
    turned the other way flips how the board is read; logged as a `board_orientation` fact."""
    if _pinned(state):
        return state
    raw = report.board_fen
    placement = state.game.placement
    # read as it comes, does it show the game? then that is its way round (the cheap, usual case first)
    if raw == placement:
        rotated = False
    elif turned_fen(raw) == placement:
        rotated = True
    else:
        return state
    if rotated == state.rotated:
        return state
    return _set(state, rotated, "auto", out)


def turned_round(state: ChessState, out: Out) -> ChessState | None:
    """In `auto`, a settled board the game does not explain but does explain turned round (one or two plies
    on, or a gap's plies): the board lies the other way; the state reading it so, or None."""
    if _pinned(state):
        return None
    turned = turned_fen(state.shown)
    target = _placement(turned)
    # a few plies change a few squares (four plies at most 16); the wrong way round nearly all differ
    if target is None or chess.popcount(_diff(state.game.board, target)) > 4 * GAP_PLIES:
        return None
    if classify(state.game, turned).kind is not Kind.MOVE and gap_reading(state.game, turned) is None:
        return None
    return _set(state, not state.rotated, "auto", out)


def _set(state: ChessState, rotated: bool, source: str, out: Out) -> ChessState:
    """Read the board the other way from now on: what it showed is turned too, so it is read again."""
    out.fact(
        "board_orientation",
        orientation="rotated" if rotated else "normal",
        source=source,
        ply=len(state.moves),
    )
    if rotated != state.rotated:
        state = replace(
            state,
            shown=turned_fen(state.shown),
            recent=tuple(turned_fen(fen) for fen in state.recent),
            magic=_turned_magic(state.magic),
            illegal=None,  # a flag on the board read the wrong way round was about nothing played
        )
    return replace(state, rotated=rotated, orientation_source=source)


def on_orientation(state: ChessState, item: Orientation, at: float, out: Out) -> ChessState:
    """The arbiter pins the board's way round ("normal" | "rotated") or hands it back to detection."""
    if item.orientation not in ORIENTATIONS:
        out.anomaly(
            "chess.referee_input",
            Severity.WARNING,
            f"{item.orientation!r} is not a way round (auto, normal, rotated); nothing was changed.",
            f"{item.orientation!r} bir yön değil (auto, normal, rotated); değişiklik yok.",
            orientation=item.orientation,
        )
        return state
    if item.orientation == "auto":
        out.fact("board_orientation", orientation="auto", source="referee", ply=len(state.moves))
        return replace(state, orientation_source="auto")
    state = _set(state, item.orientation == "rotated", "referee", out)
    if state.result is None and state.shown_at is not None and state.shown != state.game.placement:
        # the board is read again from the flip on (the reducer resolves flags if it now shows the game)
        state = replace(state, shown_at=at, out_since=state.out_since if state.out_since is not None else at)
    return state
