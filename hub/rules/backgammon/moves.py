"""The backgammon move generator: every legal play of a roll, as GNU Backgammon's generator finds them.

One depth-first search (`search`) serves both the live rules (`legal_plays`, `legal_results`,
`partial_results`, through `walk`) and the contract function `legal_position_ids`, which agrees with
GNU Backgammon's generator: max dice, then max pips, results deduplicated by resulting position.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress as _compress

from hub.rules.backgammon.ids import IdError
from hub.rules.backgammon.model import CHECKERS, Move, Play, Position

# A side's points as runs of "1"s (its Position ID codes without their "0"), listed bar first: index j is
# point 24 - j (j = 0 the bar, j = 24 the 1-point), so a die d moves a checker from j to j + d and
# "0".join(runs) is the side's Position ID bits reversed, less the first "0".
Runs = list[str]
Key = tuple[str, int]  # (player's runs joined by "0", mask of opponent points hit): a distinct result
Found = dict[Key, None]
Step = tuple[int, int, bool, int]  # (from, to: run indices, beyond 24 = off; hit; die)
Trace = list[tuple[tuple[Step, ...], Key]]  # every leaf of the search: its steps and its result

_J_FROM = [range(j, 25) for j in range(25)]


def search(opp: Runs, ms: Runs, d1: int, d2: int, trace: Trace | None = None) -> Found:
    """Distinct best results, as `Key`s.

    `opp[i]` is the opponent's point i (i = 24 its bar) as a run of "1"s, `ms` the player's runs bar first
    (see `Runs`); `ms` is changed as checkers move and restored on return. Depth-first over both die
    orders (doubles: each move from no higher point than the last), keeping only the sequences that use
    the most dice and then the most pips, as GNU Backgammon's `SaveMoves` does. With `trace`, every leaf
    of the search (a sequence no further die can extend) is also appended to it, in search order.
    """
    if d1 != d2:
        return _search_two(opp, ms, d1, d2, trace)
    return _search_double(opp, ms, d1, trace)


def _steps(opp: Runs, ms: Runs, d: int, mask: int, jmin: int = 0) -> list[tuple[int, int, int]]:
    """The single moves of die `d` from runs `ms` at index `jmin` or later, as `(from, to, mask after)`
    in run indices; `to` beyond 24 is bearing off."""
    out = []
    home = None
    for j in (0,) if ms[0] else _compress(_J_FROM[jmin], ms[jmin:]):
        jt = j + d
        if jt <= 24:
            o = jt - 1
            n = opp[o]
            if n and not mask >> o & 1:
                if n != "1":
                    continue
                out.append((j, jt, mask | 1 << o))
            else:
                out.append((j, jt, mask))
        else:
            if home is None:
                home = not any(ms[:19])
            if home and (jt == 25 or not any(ms[19:j])):
                out.append((j, jt, mask))
    return out


def _last_moves(
    opp: Runs,
    ms: Runs,
    d: int,
    mask: int,
    jmin: int,
    found: Found,
    trace: Trace | None,
    before: tuple[Step, ...],
) -> bool:
    """Record every play's last move of die `d` from run `jmin` on into `found` (each undone at once, as
    `_steps` would find them, without a list); whether there was one. `before` is the play so far, for
    `trace`."""
    moved = False
    home = None
    join = "0".join
    for j in (0,) if ms[0] else _compress(_J_FROM[jmin], ms[jmin:]):
        jt = j + d
        a = ms[j]
        m2 = mask
        if jt <= 24:
            o = jt - 1
            n = opp[o]
            if n and not mask >> o & 1:
                if n != "1":
                    continue
                m2 = mask | 1 << o
            ms[j] = a[1:]
            b = ms[jt]
            ms[jt] = b + "1"
            key = (join(ms), m2)
            ms[jt] = b
        else:
            if home is None:
                home = not any(ms[:19])
            if not home or (jt != 25 and any(ms[19:j])):
                continue
            ms[j] = a[1:]
            key = (join(ms), mask)
        ms[j] = a
        found[key] = None
        if trace is not None:
            trace.append(((*before, (j, jt, m2 != mask, d)), key))
        moved = True
    return moved


def _search_double(opp: Runs, ms: Runs, d: int, trace: Trace | None) -> Found:
    """`search` for a double: up to four moves of `d`, each from no higher point than the last."""
    found: Found = {}
    partial: Found = {}
    partial_n = [1]
    path: list[Step] = []  # the steps down to the current node, kept only with a trace
    steps = _steps
    join = "0".join

    def rec(i: int, jmin: int, mask: int) -> None:
        if i == 3 and _last_moves(
            opp, ms, d, mask, jmin, found, trace, tuple(path) if trace is not None else ()
        ):
            return
        moves = [] if i == 3 else steps(opp, ms, d, mask, jmin)
        if not moves:
            if trace is not None and i:
                trace.append((tuple(path), (join(ms), mask)))
            if i >= partial_n[0] and not found:
                if i > partial_n[0]:
                    partial_n[0] = i
                    partial.clear()
                partial[(join(ms), mask)] = None
            return
        for j, jt, m2 in moves:
            a = ms[j]
            ms[j] = a[1:]
            if trace is not None:
                path.append((j, jt, m2 != mask, d))
            if jt <= 24:
                b = ms[jt]
                ms[jt] = b + "1"
                rec(i + 1, j, m2)
                ms[jt] = b
            else:
                rec(i + 1, j, m2)
            ms[j] = a
            if trace is not None:
                path.pop()

    rec(0, 0, 0)
    return found or partial


def _search_two(opp: Runs, ms: Runs, d1: int, d2: int, trace: Trace | None) -> Found:
    """`search` for a roll that is not a double: plays of both dice if any, else the larger single die."""
    found: Found = {}
    single: Found = {}
    single_pips = 0
    join = "0".join
    for da, db in ((d1, d2), (d2, d1)):
        for j, jt, mask in _steps(opp, ms, da, 0):
            a = ms[j]
            ms[j] = a[1:]
            on = jt <= 24
            if on:
                b = ms[jt]
                ms[jt] = b + "1"
            moved = _last_moves(opp, ms, db, mask, 0, found, trace, ((j, jt, mask != 0, da),))
            if not moved:
                if trace is not None:
                    trace.append((((j, jt, mask != 0, da),), (join(ms), mask)))
                if not found and da >= single_pips:
                    if da > single_pips:
                        single_pips = da
                        single.clear()
                    single[(join(ms), mask)] = None
            ms[j] = a
            if on:
                ms[jt] = b
    return found or single


def check_dice(d1: int, d2: int) -> None:
    """Raise ValueError unless both dice are 1-6."""
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice must be 1-6, got {d1} and {d2}")


# --- the live rules: plays and positions --------------------------------------------------------------


def _runs(counts: tuple[int, ...]) -> Runs:
    """A side's counts (GNU Backgammon's layout, index 24 = bar) as runs, bar first."""
    return ["1" * counts[24 - j] for j in range(25)]


def _move(step: Step) -> Move:
    j, jt, hit, _die = step
    return (25 - j, 25 - jt if jt <= 24 else 0, hit)


def _result(opp: tuple[int, ...], key: Key, turn: int) -> Position:
    """The position a search `Key` stands for, the same side still on roll."""
    runs, mask = key
    me = [len(run) for run in runs.split("0")]  # bar first
    me.reverse()
    them = list(opp)
    while mask:
        low = mask & -mask
        them[low.bit_length() - 1] = 0
        them[24] += 1
        mask ^= low
    return Position.from_board((them, me), turn)


@dataclass(frozen=True, slots=True)
class Walk:
    """A roll's legal plays from a position, in the search's terms: each best result's `Key` with the steps
    of the first play the search found to it (search order), and the keys of every position part-way along a
    best play. Positions are made only when asked for (`result`, `key_of`)."""

    position: Position
    opp: tuple[int, ...]  # the opponent's checkers (GNU Backgammon's layout), as the search saw them
    best: dict[Key, tuple[Step, ...]]
    partial: frozenset[Key]

    def result(self, key: Key) -> Position:
        """The position a result's key stands for."""
        return _result(self.opp, key, self.position.turn)

    def play(self, key: Key) -> Play:
        """The play to a result."""
        return Play(tuple(map(_move, self.best[key])), self.result(key))

    def key_of(self, now: Position) -> Key | None:
        """`now` as the search would key it, if it can be the position on roll after some of the roll's
        moves (the opponent's checkers as they were, less blots sent to the bar); None if it cannot."""
        turn = self.position.turn
        them = now.side_view(1 - turn)
        mask, hit = 0, 0
        for o in range(24):
            if them[o] != self.opp[o]:
                if self.opp[o] != 1 or them[o] != 0:
                    return None
                mask |= 1 << o
                hit += 1
        if them[24] != self.opp[24] + hit:
            return None
        return "0".join(_runs(now.side_view(turn))), mask


@lru_cache(maxsize=1024)
def walk(position: Position, d1: int, d2: int) -> Walk:
    """The roll's legal plays from `position` (best plays only: most dice, then most pips), with every
    position part-way along one. Pure, so kept for the turn: a board's reports during one turn ask again."""
    opp = position.side_view(1 - position.turn)
    trace: Trace = []
    base = _runs(position.side_view(position.turn))
    search([*("1" * n for n in opp)], list(base), d1, d2, trace)
    best: dict[Key, tuple[Step, ...]] = {}
    partial: set[Key] = set()
    if trace:
        scores = [(len(steps), sum(s[3] for s in steps)) for steps, _ in trace]
        top = max(scores)
        prefixes: dict[tuple[Step, ...], tuple[Runs, int]] = {(): (base, 0)}
        for (steps, key), score in zip(trace, scores, strict=True):
            if score != top:
                continue
            best.setdefault(key, steps)
            for k in range(1, len(steps)):
                if steps[:k] in prefixes:
                    continue
                runs, mask = prefixes[steps[: k - 1]]
                runs = runs.copy()
                j, jt, hit, _die = steps[k - 1]
                runs[j] = runs[j][1:]
                if jt <= 24:
                    runs[jt] += "1"
                if hit:
                    mask |= 1 << (jt - 1)
                prefixes[steps[:k]] = (runs, mask)
                partial.add(("0".join(runs), mask))
    return Walk(position, opp, best, frozenset(partial))


def legal_plays(position: Position, d1: int, d2: int) -> tuple[Play, ...]:
    """One play per distinct legal result (GNU Backgammon's list); empty when no play is possible."""
    check_dice(d1, d2)
    found = walk(position, d1, d2)
    return tuple(found.play(key) for key in found.best)


def legal_results(position: Position, d1: int, d2: int) -> frozenset[Position]:
    """Every distinct position the side on roll can reach with the roll (same side still on roll)."""
    check_dice(d1, d2)
    found = walk(position, d1, d2)
    return frozenset(found.result(key) for key in found.best)


def partial_results(position: Position, d1: int, d2: int) -> frozenset[Position]:
    """Positions part-way through some legal play: a prefix that may still be completed legally."""
    check_dice(d1, d2)
    found = walk(position, d1, d2)
    return frozenset(found.result(key) for key in found.partial)


# --- the contract function: Position IDs in, Position IDs out ------------------------------------------

_b2a = binascii.b2a_base64
_ID_SLICES = [slice(16 * k, 16 * k + 14) for k in range(64)]  # the IDs in a run of 16-character chunks


def legal_position_ids(position_id: str, die1: int, die2: int) -> set[str]:
    """GNU Backgammon Position IDs of every distinct position the player on roll can reach with the roll,
    with the same player still on roll; the empty set when no play is possible."""
    if not (1 <= die1 <= 6 and 1 <= die2 <= 6):
        check_dice(die1, die2)
    try:
        raw = binascii.a2b_base64(position_id + "==")
    except binascii.Error:
        raise IdError(f"not a Position ID: {position_id!r}") from None
    if len(position_id) != 14 or len(raw) != 10:
        raise IdError(f"not a Position ID (14 Base64 characters): {position_id!r}")
    bits = format(int.from_bytes(raw, "little"), "080b")  # the bit stream, last bit first
    parts = bits.rsplit("0", 50)  # [rest, player's bar, …, player's 1-point, opponent's bar, …, 1-point]
    if len(parts) < 51:
        raise IdError(f"Position ID {position_id!r} does not describe two sides")
    opp = parts[50:25:-1]
    ms = parts[1:26]
    n_opp = len("".join(opp))
    if n_opp > CHECKERS or len("".join(ms)) > CHECKERS:
        raise IdError(f"Position ID {position_id!r} has more than 15 checkers for one side")
    found = search(opp, ms, die1, die2)
    if not found:
        return set()
    # The reversed bit stream is the player's codes (bar first) then the opponent's, ready for int(..., 2).
    # A hit only empties an opponent blot and adds one to its bar.
    # Each ID's 80 bits are filled out to 96 (12 bytes, 16 Base64 characters, the first 14 of which are the ID's),
    # so every ID is converted by one int(), one to_bytes() and one b2a_base64() for the lot.
    opp_cache = {0: bits[55 - n_opp :]}
    chunks = []
    for m, mask in found:
        rev = opp_cache.get(mask)
        if rev is None:
            hit_parts = opp[::-1]
            hits = 0
            low_bits = mask
            while low_bits:
                low = low_bits & -low_bits
                hit_parts[24 - low.bit_length() + 1] = ""
                hits += 1
                low_bits ^= low
            hit_parts[0] += "1" * hits
            rev = opp_cache[mask] = "0" + "0".join(hit_parts)
        chunks.append((m + rev).zfill(96))
    chunks.reverse()  # the last chunk is the lowest in the integer, the first in the little-endian bytes
    n = len(chunks)
    text = _b2a(int("".join(chunks), 2).to_bytes(12 * n, "little"), newline=False).decode()
    if n <= len(_ID_SLICES):
        return set(map(text.__getitem__, _ID_SLICES[:n]))
    return {text[i : i + 14] for i in range(0, len(text), 16)}
