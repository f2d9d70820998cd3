"""Positions per second of `legal_position_ids` against GNU Backgammon's own generator (PyPI gnubg-nn).

Both produce the set of Position IDs for the same fixed positions and rolls (random, bar-heavy and
bear-off), passes alternate so load affects both alike, and the sets are asserted equal on every pass.
Run: `python -m benchmarks.bg_legal` (prints one line).
"""

from __future__ import annotations

import random
import time

from hub.rules.backgammon import legal_position_ids
from hub.rules.backgammon.ids import position_id

CASES = 1500
SEED = 20261129


def _board(rng: random.Random, kind: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    b = [[0] * 25, [0] * 25]
    for side in (0, 1):
        for _ in range(15 - (rng.randint(0, 10) if rng.random() < 0.4 else 0)):
            r = rng.random()
            if kind == "bearoff" and side == 1:
                b[side][rng.randint(0, 5)] += 1
            elif kind == "bar" and r < 0.25:
                b[side][24] += 1
            elif kind == "bar" and side == 0 and r < 0.75:
                b[side][rng.randint(0, 5)] += 1
            elif r < 0.05:
                b[side][24] += 1
            elif r < 0.4:
                b[side][rng.randint(0, 5)] += 1
            else:
                b[side][rng.randint(0, 23)] += 1
    for i in range(24):
        if b[1][i] and b[0][23 - i]:
            loser = rng.randrange(2)
            point = i if loser == 1 else 23 - i
            b[loser][24] += b[loser][point]
            b[loser][point] = 0
    return tuple(b[0]), tuple(b[1])


def cases(n: int = CASES, seed: int = SEED) -> list[tuple[str, int, int]]:
    """A fixed set of (Position ID, die, die): a third each random, bar-heavy and bear-off."""
    rng = random.Random(seed)
    kinds = ("any", "bar", "bearoff")
    return [(position_id(_board(rng, kinds[i % 3])), rng.randint(1, 6), rng.randint(1, 6)) for i in range(n)]


def run(seconds: float = 5.0) -> dict[str, float]:
    """Positions/s for ours and for gnubg-nn over the same cases, and ours/gnubg."""
    import gnubg_nn as g  # GNU Backgammon's generator; required

    work = cases()

    def ours() -> list[set[str]]:
        return [legal_position_ids(pid, d1, d2) for pid, d1, d2 in work]

    board_from_id, moves, from_key, to_id = (
        g.board_from_position_id,
        g.moves,
        g.board_from_position_key,
        g.position_id,
    )

    def baseline() -> list[set[str]]:
        out = []
        for pid, d1, d2 in work:
            keys = moves(board_from_id(pid), d1, d2)
            out.append({to_id([list(s) for s in from_key(k)]) for k in keys})
        return out

    t_ours = t_base = 0.0
    n_ours = n_base = 0
    deadline = time.perf_counter() + seconds
    while True:
        t0 = time.perf_counter()
        mine = ours()
        t1 = time.perf_counter()
        theirs = baseline()
        t2 = time.perf_counter()
        assert mine == theirs, "legal_position_ids disagrees with GNU Backgammon"
        t_ours += t1 - t0
        t_base += t2 - t1
        n_ours += len(work)
        n_base += len(work)
        if t2 >= deadline:
            break
    rate_ours = n_ours / t_ours
    rate_base = n_base / t_base
    return {"ours": rate_ours, "baseline": rate_base, "ratio": rate_ours / rate_base}


if __name__ == "__main__":
    r = run()
    print(
        f"legal_position_ids: ours {r['ours']:.0f} positions/s, gnubg-nn {r['baseline']:.0f} positions/s, "
        f"ratio {r['ratio']:.2f}"
    )
