"""The rally shortcut through a table-tennis match: `fold_rallies`, the sport's `fold_reports` hook
(`sport.py`), folds logged scoreboard displays that are each one plain rally (or the next game's first
display) in one step, and gives exactly what `reducer.apply` gives on each row, row by row
(tests/hub/test_tabletennis_fastpath.py and tests/hub/test_matches_fastpath.py hold the two equal). The match
reducer calls it for replay's runs (`hub.matches.fold_events`) and for a live report, a run of one
(`hub.matches.reducer.device_report`); nothing else does.

Kept on measurement: replay of 200,000 logged events takes about 0.9 s of CPU with it and 3.0 s with every
row through `apply`; live ingest makes 17 % fewer Python calls per report with it (the full walk through
every rule for the commonest report of all). `apply` itself has no shortcut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from msgspec.structs import replace

from hub.rules.base import Fact
from hub.rules.tabletennis.codec import input_from_dict
from hub.rules.tabletennis.model import (
    DOUBLES_PLAYERS,
    ENDS,
    Display,
    PointRecord,
    TableTennisConfig,
    TableTennisState,
    _other_ends,
)
from hub.rules.tabletennis.service import _CYCLES

# per ruleset: points that win a game, the score that changes ends in the last game, seconds of play before
# the expedite system is due, serves each, and the points after which service changes every point
_ITTF = (11, 5, 600.0, 2, 20)
_LEGACY21 = (21, 10, 900.0, 5, 40)


def _cycle_pairs(cycle: Any, played: int, serves: int, deuce: int) -> tuple[Any, Any]:
    """Who served rally `played` and who serves the next, in a game with no anchor: the cycle moves on
    every `serves` rallies, and every rally from deuce on."""
    if played < deuce:
        return cycle[(played // serves) % 4], cycle[((played + 1) // serves) % 4]
    return (
        cycle[(min(played, deuce) // serves + max(0, played - deuce)) % 4],
        cycle[(min(played + 1, deuce) // serves + max(0, played + 1 - deuce)) % 4],
    )


def _after_rally(
    s: TableTennisState,
    points: tuple[int, int],
    points_log: tuple[PointRecord, ...],
    rallies: int,
    game_clock: float | None,
    paused: float,
    last_display: Display | None,
) -> TableTennisState:
    """The state after one plain rally: `replace` with those fields set and the time-out cleared, written out
    as one constructor call (no per-field introspection), as a rally is most of what a match folds."""
    return TableTennisState(
        config=s.config,
        toss=s.toss,
        game_order=s.game_order,
        points=points,
        games=s.games,
        game_scores=s.game_scores,
        winner=s.winner,
        final_scores=s.final_scores,
        rallies=rallies,
        swap_at=s.swap_at,
        ends_anchor=s.ends_anchor,
        expedite=s.expedite,
        expedite_since=s.expedite_since,
        expedite_anchor=s.expedite_anchor,
        order_anchor=s.order_anchor,
        timeouts=s.timeouts,
        timeout_active=None,
        timeout_at=None,
        cards=s.cards,
        penalty_points=s.penalty_points,
        unshown=s.unshown,
        carry=s.carry,
        game_clock=game_clock,
        paused=paused,
        expedite_due_game=s.expedite_due_game,
        expedite_dropped_game=s.expedite_dropped_game,
        ends_flagged=s.ends_flagged,
        last_display=last_display,
        points_log=points_log,
    )


def _settled_singles(s: TableTennisState) -> bool:
    """A singles match `fold_rallies` may fold into: a display seen, the toss known, no winner yet, no
    expedite, no penalty points waiting to be shown or carried."""
    return (
        s.last_display is not None
        and s.winner is None
        and s.toss is not None
        and not s.expedite
        and not s.config.doubles
        and s.unshown == (0, 0)
        and s.carry == (0, 0)
        and s.final_scores is None
    )


def fold_rallies(
    s: TableTennisState, rows: Sequence[tuple[Any, ...]], start: int, end: int
) -> tuple[TableTennisState, int, Callable[[int], list[tuple[int, Fact]]]]:
    """Fold `rows[start:end]` (match events `(offset, kind, at, actor, body)`) while each is a device report
    `apply` can only read one way in a singles match: one plain rally more, a rally that wins a game but not
    the match, the next game's first display. Returns the state, how many rows it folded, and the run's facts
    (`facts(n)`: its newest n, oldest first, each with its row from `start`): what `apply` row by row gives.
    Each display is read and checked as `apply` would, but what a rally cannot change is checked once per
    game, and one state is built per run; the first row that is anything else ends it."""
    last, game_order = s.last_display, s.game_order
    cycle = _CYCLES.get(game_order) if game_order is not None else None
    if last is None or game_order is None or cycle is None or not _run_may_start(s):
        return s, 0, _NO_FACTS
    config = s.config
    target, swap_point, clock_limit, serves, deuce = _LEGACY21 if config.ruleset == "legacy21" else _ITTF
    games, game_scores, swap_at = s.games, s.game_scores, s.swap_at
    game, last_game, games_list, last_points, last_history = _in_game(games, last, config.best_of)
    ends = _ends_in_game(game, last_game and swap_at is not None, s.ends_anchor)  # points alone keep them
    a, b = s.points
    over = max(a, b) >= target and abs(a - b) >= 2  # the game is won: only the next game's display may follow
    rallies, clock, paused, timeout_at = s.rallies, s.game_clock, s.paused, s.timeout_at
    due_game, games_to_win = s.expedite_due_game, config.games_to_win
    last_data: dict[str, Any] | None = None  # the run's last display, read into a Display once, as it ends
    records: list[PointRecord] = []
    record_rows: list[int] = []  # the row of each record, from `start`
    game_points: list[int] = []  # records that won a game
    i = start
    while i < end:
        _offset, kind, at, _actor, body = rows[i]
        data = body.get("report") if kind == "device.report" and type(body) is dict else None
        if type(data) is not dict or data.get("type", "display") != "display":
            break
        raw = data.get("points")
        if over:
            step = _next_game_row(data, (a, b), games, game_scores, game_order, s.ends_anchor, config)
            if step is None:
                break
            last, games, game_scores, game_order, cycle, ends = step  # `new_game`, kept in locals
            game, last_game, games_list, last_points, last_history = _in_game(games, last, config.best_of)
            swap_at, a, b, over, last_data = None, 0, 0, False, None
            clock, paused, timeout_at = None, 0.0, None
            i += 1
            continue
        # what usually ends a run (a match point, a game's first display after a rally) is seen before the
        # display is read: `apply` then reads that row once, not twice
        if raw == [a + 1, b]:
            won, side = a + 1 >= target and a + 1 - b >= 2, 0
        elif raw == [a, b + 1]:
            won, side = b + 1 >= target and b + 1 - a >= 2, 1
        else:
            break
        if won and games[side] + 1 >= games_to_win:
            break  # the match point
        pair, after = _cycle_pairs(cycle, a + b, serves, deuce)  # after a game won a board may show either
        server, game_ends = (None, None) if won else (0 if after[0][0] == "A" else 1, ends)
        if not _plain_display(data, games_list, last_history, server, game_ends):
            break
        shown = (raw[0], raw[1])
        if last_points == shown:
            break  # the same score again: `apply` says whether it is the same display
        if swap_at is None and last_game and max(shown) >= swap_point:
            break
        new_paused = paused if timeout_at is None else paused + min(60.0, max(0.0, at - timeout_at))
        if clock is not None and at - clock - new_paused >= clock_limit and due_game != game:
            break
        if won:  # the rally: what `_Fold.score_point` makes of it, kept in locals until the run ends
            game_points.append(len(records))
            over = True
        records.append(PointRecord(game, shown, side, 0 if pair[0][0] == "A" else 1, None, at, False))
        record_rows.append(i - start)
        a, b = shown
        rallies += 1
        clock = at if clock is None else clock
        paused, timeout_at = new_paused, None
        last_data, last_points = data, shown
        i += 1
    if i == start:
        return s, 0, _NO_FACTS
    run = (games, game_scores, game_order, swap_at, (a, b), records, rallies, clock, paused, last, last_data)
    return _run_state(s, *run), i - start, _run_facts(records, record_rows, game_points)


def _run_state(
    s: TableTennisState,
    games: tuple[int, int],
    game_scores: tuple[tuple[int, int], ...],
    game_order: tuple[str, str],
    swap_at: int | None,
    points: tuple[int, int],
    records: list[PointRecord],
    rallies: int,
    clock: float | None,
    paused: float,
    last: Display | None,
    last_data: dict[str, Any] | None,
) -> TableTennisState:
    """The state a run of `fold_rallies` ends in: rallies in the game it began in, or in a next game; `last`
    is the display the run's last game began with, `last_data` its last rally's display (None: none)."""
    points_log = s.points_log + tuple(records) if records else s.points_log
    if last_data is not None:
        last = _read_display(last_data)  # checked as it was folded: a Display
    if games == s.games:
        return _after_rally(s, points, points_log, rallies, clock, paused, last)
    return replace(
        s,
        games=games,
        game_scores=game_scores,
        points=points,
        points_log=points_log,
        rallies=rallies,
        swap_at=swap_at,
        game_order=game_order,
        game_clock=clock,
        paused=paused,
        timeout_active=None,
        timeout_at=None,
        last_display=last,
    )


def _in_game(
    games: tuple[int, int], last: Display, best_of: int
) -> tuple[int, bool, list[int], tuple[int, int], list[list[int]]]:
    """The game a run of `fold_rallies` folds rallies of, as its locals: its number, whether it is the last,
    and the games, points and history (as a logged display holds them) of the last display, which stand for
    every rally of the run until the next game's first display."""
    game = games[0] + games[1] + 1
    return game, game == best_of, [games[0], games[1]], last.points, [[x, y] for x, y in last.game_scores]


def _run_may_start(s: TableTennisState) -> bool:
    """A match `fold_rallies` may fold rows into: `_settled_singles`, no anchor in the game, the last display
    showing the games reached."""
    last = s.last_display
    return (
        _settled_singles(s)
        and s.order_anchor is None
        and s.expedite_anchor is None
        and last is not None
        and last.games == s.games
    )


def _ends_in_game(game: int, swapped: bool, ends_anchor: tuple[int, str]) -> str:
    """`TableTennisState.ends` in game `game` (`swapped`: after the change at 5 in the last game), inline."""
    changes, ends = ends_anchor
    return _other_ends(ends) if (game - 1 + (1 if swapped else 0) - changes) % 2 else ends


def _history_agrees(
    history: tuple[tuple[int, int], ...], shown: tuple[int, int], ours: tuple[tuple[int, int], ...]
) -> bool:
    """The board's game history at a game's close, as `_same_game` and `_check_board` read it: its last game
    the one just closed (`ours[-1]`), adding up to the games shown, agreeing with the games played."""
    if not history or len(history) != shown[0] + shown[1]:
        return True
    if history[-1] != ours[-1]:
        return False  # the board's own record of the game just closed: `_same_game` reads it
    if (sum(1 for x, y in history if x > y), sum(1 for x, y in history if x <= y)) != shown:
        return False  # `_check_board`: the history does not add up to the games shown
    return len(ours) < len(history) or ours[: len(history)] == history


def _next_game_row(
    data: dict[str, Any],
    score: tuple[int, int],
    games: tuple[int, int],
    game_scores: tuple[tuple[int, int], ...],
    order: tuple[str, str],
    ends_anchor: tuple[int, str],
    config: TableTennisConfig,
) -> tuple[Display, tuple[int, int], tuple[tuple[int, int], ...], tuple[str, str], Any, str] | None:
    """A logged row of `fold_rallies` that is the next game's first display in singles (0-0, one game
    more for the side that won the game at `score`) read, and what `new_game` makes of it: (the display,
    games, game scores, game order, its serve cycle, ends); None when anything else would be said."""
    closing = 0 if score[0] > score[1] else 1
    if data.get("points") != [0, 0] or data.get("games") != [games[0] + 1 - closing, games[1] + closing]:
        return None
    d = _read_display(data)
    if d is None or d.expedite is True or d.points != (0, 0) or max(d.games) >= config.games_to_win:
        return None
    ours = (*game_scores, score)
    if not _history_agrees(d.game_scores, d.games, ours):
        return None
    next_order = (order[1], order[0])  # 2.13.6
    next_cycle = _CYCLES.get(next_order)
    if next_cycle is None:
        return None
    ends = _ends_in_game(d.games[0] + d.games[1] + 1, False, ends_anchor)
    if d.server is not None and d.server != (0 if next_cycle[0][0][0] == "A" else 1):
        return None
    if d.ends is not None and d.ends != ends:
        return None
    return d, d.games, ours, next_order, next_cycle, ends


def _plain_display(
    data: dict[str, Any], games: list[int], history: list[list[int]], server: int | None, ends: str | None
) -> bool:
    """A logged display (its points one rally on) checked field by field as `input_from_dict` checks it,
    against the last one: ints, the same games and history, each indicator absent or one a board may show,
    and the server and ends the rally leads to where they are given (None: after a game won, either)."""
    raw, shown_games = data["points"], data.get("games")
    if (
        shown_games != games
        or type(raw[0]) is not int
        or type(raw[1]) is not int
        or type(shown_games[0]) is not int
        or type(shown_games[1]) is not int
    ):
        return False
    shown_history = data.get("game_scores")
    if history:
        # equal, and integers (11.0 and True compare equal to 11 and 1)
        if shown_history != history or not _int_pairs(shown_history):
            return False
    elif shown_history:
        return False
    shown = data.get("server")
    if shown is not None and (
        type(shown) is not int or (shown != 0 and shown != 1) or (server is not None and shown != server)
    ):
        return False
    shown = data.get("ends")
    if shown is not None and (
        type(shown) is not str or shown not in ENDS or (ends is not None and shown != ends)
    ):
        return False
    expedite = data.get("expedite")
    if expedite is not None and expedite is not False:
        return False  # True starts the expedite system; anything else is not a display
    player = data.get("server_player")
    return player is None or (type(player) is str and player in DOUBLES_PLAYERS)


def _int_pairs(pairs: list[Any]) -> bool:
    """Every pair holds two ints (a loop: `all` over a generator costs more for the few a history has)."""
    for x, y in pairs:  # noqa: SIM110 - measured: the loop, not `all` over a generator
        if type(x) is not int or type(y) is not int:
            return False
    return True


def _NO_FACTS(wanted: int) -> list[tuple[int, Fact]]:
    return []


def _run_facts(
    records: list[PointRecord], rows: list[int], game_points: list[int]
) -> Callable[[int], list[tuple[int, Fact]]]:
    """The facts `apply` raised on a run `fold_rallies` folded, built only when asked for (a match keeps its
    newest few): a point for each rally, and a game after the rally that won one."""

    def newest(wanted: int) -> list[tuple[int, Fact]]:
        out: list[tuple[int, Fact]] = []
        won = set(game_points)
        k = len(records) - 1
        while k >= 0 and len(out) < wanted:
            r = records[k]
            if k in won:
                out.append(
                    (
                        rows[k],
                        Fact("game", {"side": r.side, "score": [r.points[0], r.points[1]], "game": r.game}),
                    )
                )
                if len(out) >= wanted:
                    break
            data: dict[str, Any] = {
                "side": r.side,
                "points": [r.points[0], r.points[1]],
                "game": r.game,
                "server": r.server,
            }
            out.append((rows[k], Fact("point", data)))
            k -= 1
        out.reverse()
        return out

    return newest


def _read_display(data: dict[str, Any]) -> Display | None:
    """A logged display as `apply` reads it (`input_from_dict`); None for anything else."""
    try:
        d = input_from_dict(data)
    except ValueError:
        return None  # `apply` is given the row and says what is wrong with it
    return d if type(d) is Display else None
