"""The analysis worker: a script run inside GNU Backgammon's own Python (`gnubg -t -q -r -p gnubg_worker.py`).

It reads one job a line on stdin, `{"mat": TEXT, "first": N, "ply": P}`: a match as `.mat` text (its last game
may be unfinished), the first game (0-based) to analyse and the evaluation's ply. It imports the match,
analyses each game from `first` on with gnubg's own analysis (checker play and cube, at that ply) and answers
one line on stdout, `BOARDCAST {"games": [{"index": I, "records": [...]}, ...]}` or `BOARDCAST {"error": ...}`.
Each record is gnubg's own, cut to what the hub reads (`hub.rules.backgammon.analysis.decisions`). gnubg
prints boards and notices on the same stdout: the hub reads only the lines with the prefix.

It imports nothing of the hub (it runs in the system's Python, inside gnubg).
"""

import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from typing import Any

import gnubg  # type: ignore[import-not-found]  # provided by GNU Backgammon itself

PREFIX = "BOARDCAST "


def moves_of(move: Any) -> list[list[int]]:
    """A play as [[from, to], ...] (gnubg's points, 25 = bar, 0 = off)."""
    return [list(step) for step in move or ()]


def record_of(record: dict[str, Any], cube: Callable[[float], float]) -> dict[str, Any]:
    """What the hub reads of one of gnubg's move records; `cube` makes the cube's equities, which gnubg keeps
    as match winning chances in a match, normalised equities like every other figure."""
    analysis = record.get("analysis") or {}
    out: dict[str, Any] = {
        "action": record.get("action"),
        "player": record.get("player"),
        "board": record.get("board"),
    }
    if record.get("dice"):
        out["dice"] = list(record["dice"])
    if "move" in record:
        out["move"] = moves_of(record["move"])
    if "luck-value" in analysis:
        out["luck"] = analysis["luck-value"]
    for key, name in (("nd-cubeful-eq", "nd"), ("dt-cubeful-eq", "dt")):
        if key in analysis:
            out[name] = cube(analysis[key])
    moves = analysis.get("moves")
    if moves:
        chosen = analysis.get("imove", -1)
        out["choices"] = len(moves)
        out["best"] = moves[0]["score"]
        out["best_move"] = moves_of(moves[0]["move"])
        if 0 <= chosen < len(moves):
            out["chosen"] = moves[chosen]["score"]
    return out


def analyse(job: dict[str, Any]) -> list[dict[str, Any]]:
    """The analysed games of one job."""
    ply = int(job.get("ply", 0))
    gnubg.command(f"set analysis chequerplay evaluation plies {ply}")
    gnubg.command(f"set analysis cubedecision evaluation plies {ply}")
    expected = job["mat"].count("\n Game ")
    if not expected:
        return []  # nothing played yet: nothing to analyse (and nothing to import)
    handle, path = tempfile.mkstemp(suffix=".mat")
    try:
        with os.fdopen(handle, "w") as file:
            file.write(job["mat"])
        gnubg.command(f"import mat {path}")
    finally:
        os.unlink(path)
    match = gnubg.match(0, 0, 0)
    count = len(match["games"]) if match else 0
    if count != expected:  # an import that failed leaves the match before it loaded: never analyse that one
        raise ValueError(f"gnubg read {count} games of the {expected} in the match")
    first = int(job.get("first", 0))
    for index in range(first, count):
        gnubg.navigate()
        if index:
            gnubg.navigate(game=index)
        gnubg.command("analyse game")
    match = gnubg.match(1, 1, 0)
    length = int(match["match-info"].get("match-length", 0) or 0)
    return [game_of(index, match["games"], length) for index in range(first, count)]


def game_of(index: int, games: list[dict[str, Any]], length: int) -> dict[str, Any]:
    """One analysed game's records, the cube followed through it (its value and owner set what an equity is)."""
    info = games[index]["info"]
    score = (info.get("score-X", 0), info.get("score-O", 0))
    crawford = (
        bool(length)
        and (length - 1 in score)
        and all(
            length - 1 not in (g["info"].get("score-X", 0), g["info"].get("score-O", 0))
            for g in games[:index]
        )
    )
    value, owner = 1, -1
    records: list[dict[str, Any]] = []
    for record in games[index]["game"]:
        player = 0 if record.get("player") == "X" else 1

        def cube(mwc: float, player: int = player, value: int = value, owner: int = owner) -> float:
            if not length:
                return mwc
            info = gnubg.cubeinfo(value, owner, player, length, score, int(crawford))
            return float(gnubg.mwc2eq(mwc, info))

        records.append(record_of(record, cube))
        if record.get("action") == "take":
            value, owner = value * 2, player
    return {"index": index, "records": records}


def main() -> None:
    gnubg.command("set threads 1")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer: dict[str, Any] = {"games": analyse(json.loads(line))}
        except Exception as error:  # one bad match must not end the worker
            answer = {"error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc(limit=3)}
        sys.stdout.write(PREFIX + json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
