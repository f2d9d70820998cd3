"""A played backgammon match as Jellyfish `.mat` text, in the layout GNU Backgammon 1.07 exports and imports.

A is the left column (gnubg's player 0), B the right. Each player's moves are numbered from its own side
(bar = 25, off = 0, `*` = hit), dice higher first; a dance is the dice alone. The Crawford game is not
marked (gnubg does not mark it either). A resigned game is written as gnubg writes one: its plays, then the
winner's `Wins N points`; the offer and the answer are not written (gnubg writes neither, and reads the game
as resigned because it ends before the checkers are borne off). A play recorded as illegal is written as its dice alone, because
the steps of an illegal play are not known; gnubg will then disagree with the positions after it.
"""

from __future__ import annotations

from collections.abc import Iterable

from hub.rules.backgammon.state import Action, BackgammonState, GameRecord

_CELL = 28
_PREFIX = 5  # " 12) "
_UNWRITTEN = ("resign", "accept", "reject", "cube")  # a hand-scored game's cube: its points say it


def _cell(action: Action) -> str:
    if action.kind == "double":
        return " Doubles => {value}"
    if action.kind == "take":
        return " Takes"
    if action.kind == "drop":
        return " Drops"
    assert action.dice is not None
    d1, d2 = sorted(action.dice, reverse=True)
    steps = "".join(f"{f}/{t}{'*' if hit else ''} " for f, t, hit in action.moves) if action.legal else ""
    return f"{d1}{d2}: {steps}"


def _game_lines(game: GameRecord) -> list[str]:
    lines: list[str] = []
    row: list[str | None] = [None, None]
    number = 0
    cube = 1

    def flush() -> None:
        nonlocal row, number
        if row == [None, None]:
            return
        number += 1
        left = (row[0] or "").ljust(_CELL)
        right = row[1] or ""
        lines.append(f"{number:3d}) {left}{right}".rstrip() if not right else f"{number:3d}) {left}{right}")
        row = [None, None]

    for action in game.actions:
        if action.kind in _UNWRITTEN:
            continue
        text = _cell(action)
        if action.kind == "double":
            cube *= 2
            text = text.format(value=cube)
        if action.side == 0:
            flush()
            row[0] = text
        else:
            if row[0] is None and number == 0 and not lines:
                row[0] = ""
            row[1] = text
            flush()
    if game.winner is not None:
        wins = f" Wins {game.points} point{'s' if game.points != 1 else ''}"
        if game.winner == 1 and row[0] is not None and row[1] is None:
            row[1] = wins
            flush()
        else:
            flush()
            indent = " " * _PREFIX + ("" if game.winner == 0 else " " * _CELL)
            lines.append(indent + wins)
    else:
        flush()
    return lines


def written(actions: Iterable[Action]) -> int:
    """How many of a game's actions its `.mat` text writes (each a record when gnubg reads it back)."""
    return sum(1 for action in actions if action.kind not in _UNWRITTEN)


def match_to_mat(state: BackgammonState, names: tuple[str, str] = ("A", "B"), current: bool = False) -> str:
    """The finished games of the match as `.mat` text; with `current`, the game being played too (as far as it
    has gone, without a result: what a live analysis reads)."""
    out = [f" {state.length} point match", ""]
    games = list(state.games)
    if current and state.actions:
        games.append(GameRecord(len(games) + 1, state.score, tuple(state.actions), None, 0, state.crawford))
    for game in games:
        a, b = game.score_before
        out.append(f" Game {game.number}")
        out.append(f" {names[0]} : {a}".ljust(32) + f"{names[1]} : {b}")
        out.extend(_game_lines(game))
        out.append("")
    return "\n".join(out) + "\n"
