"""The venue file's `[[matches]]`: the fields every match has, then those of its table's sport.

Table tennis (best_of, ruleset, the toss), chess (time control, clock side, team-match board) and
backgammon (length, clock, the score a resumed match starts at); a key of another sport's matches is refused saying whose it is.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from hub.matches import MatchInfo
from hub.rules.backgammon.terms import CLOCK_MODES, is_length
from hub.rules.tabletennis.terms import RULESETS as RULESETS
from hub.rules.tabletennis.terms import odd_games
from hub.venue.keys import (
    BACKGAMMON_CLOCK_KEYS,
    MATCH_KEYS,
    SPORT_MATCH_KEYS,
    array,
    ident,
    nearest_key,
    unknown_key,
)
from hub.venue.model import CHESS_BOARD_CATEGORIES, CHESS_TITLES, Fail, FileFail, TableConfig, TeamMatchConfig


def parse_matches(
    data: dict[str, Any],
    tables: tuple[TableConfig, ...],
    team_matches: tuple[TeamMatchConfig, ...],
    fail: FileFail,
) -> tuple[MatchInfo, ...]:
    """The `[[matches]]` entries, each checked against its table's sport."""
    matches: list[MatchInfo] = []
    venue = data.get("venue")
    quiet = None
    if isinstance(venue, dict) and "awaiting_result_s" in venue:
        quiet = awaiting_result_s(venue["awaiting_result_s"], partial(fail, "venue", None))
    ids: set[str] = set()  # a venue of 10,000 matches: a scan of those before each took 1.6 s of a start
    for i, m in enumerate(array(data, "matches", fail)):
        at = partial(fail, "matches", i)
        table = next((t for t in tables if t.id == m.get("table")), None)
        _match_keys(m, table.sport if table else None, at)
        mid = ident(m, "id", at)
        if mid in ids:
            raise at("id", f"match {mid!r} is defined twice / maç iki kez tanımlı")
        if table is None:
            raise at("table", f"no table {m.get('table')!r} in [[tables]] / böyle bir masa yok")
        match = _match(m, mid, table, team_matches, matches, at)
        if match.sport == "chess" and (quiet is not None or "awaiting_result_s" in m):
            own = m.get("awaiting_result_s")
            match = replace(match, awaiting_result_s=quiet if own is None else awaiting_result_s(own, at))
        matches.append(match)
        ids.add(mid)
    return tuple(matches)


def _match_keys(m: dict[str, Any], sport: str | None, fail: Fail) -> None:
    """Refuse a key no match takes, or one another sport's matches take (best_of on a chess game)."""
    every = MATCH_KEYS + tuple(k for keys in SPORT_MATCH_KEYS.values() for k in keys)
    known = every if sport is None else MATCH_KEYS + SPORT_MATCH_KEYS.get(sport, ())
    for key in m:
        if key in known:
            continue
        if key not in every:
            raise fail(key, unknown_key(key, known))
        others = [s for s, keys in SPORT_MATCH_KEYS.items() if key in keys]
        raise fail(
            key,
            f"{key} is for {' and '.join(others)} matches, not {sport}; a {sport} match takes "
            f"{', '.join(known)} / {key} bu spor dalının maçında kullanılmaz",
        )


def _match(
    m: dict[str, Any],
    mid: str,
    table: TableConfig,
    team_matches: tuple[TeamMatchConfig, ...],
    matches: list[MatchInfo],
    fail: Fail,
) -> MatchInfo:
    """One match on its table: the fields every sport has, then its sport's own."""
    rnd = m.get("round", 1)
    if not isinstance(rnd, int) or isinstance(rnd, bool) or rnd < 1:
        raise fail("round", "must be a whole number from 1 / 1 veya büyük bir tam sayı olmalı")
    doubles = m.get("doubles", False)
    if not isinstance(doubles, bool):
        raise fail("doubles", "must be true or false / true ya da false olmalı")
    wanted = 4 if doubles else 2
    players = m.get("players", [""] * wanted)
    if not (
        isinstance(players, list) and len(players) == wanted and all(isinstance(p, str) for p in players)
    ):
        shape = '["A1", "A2", "B1", "B2"]' if doubles else '["A", "B"]'
        raise fail("players", f"must be {wanted} names, {shape} / {wanted} isim olmalı")
    best_of, ruleset, first_server, first_receiver = _tabletennis_fields(m, doubles, fail)
    length, clock, start_score = 0, None, (0, 0)
    clock_white, board, team_match = None, None, None
    pairing = ratings = fide_ids = None
    titles: tuple[str, str] | None = None
    if table.sport == "backgammon":
        length, clock = _backgammon_fields(m, fail)
        start_score = _start_score(m, length, fail)
    if table.sport == "chess":
        clock, clock_white, board, team_match = _chess_fields(m, list(team_matches), fail)
        forfeited = any(
            t.id == team_match and any(f.board == board for f in t.forfeits) for t in team_matches
        )
        if forfeited or (
            team_match is not None and any(x.team_match == team_match and x.board == board for x in matches)
        ):
            raise fail("board", f"board {board} of {team_match} is defined twice / masa iki kez tanımlı")
        rnd = next(t.round for t in team_matches if t.id == team_match) if team_match else rnd
        pairing = number_pair(m, "pairing", fail, least=1, what="starting ranks")
        ratings = number_pair(m, "ratings", fail, least=0, what="ratings")
        fide_ids = number_pair(m, "fide_ids", fail, least=0, what="FIDE ids")
        titles = _titles(m, fail)
    return MatchInfo(
        mid,
        table.sport,
        table.id,
        rnd,
        tuple(players),
        best_of,
        doubles,
        first_server,
        first_receiver,
        ruleset,
        length,
        clock or None,
        clock_white,
        board,
        team_match,
        orientation=table.orientation,
        start_score=start_score,
        pairing=pairing,
        ratings=ratings,
        titles=titles,
        fide_ids=fide_ids,
    )


def _tabletennis_fields(
    m: dict[str, Any], doubles: bool, fail: Fail
) -> tuple[int, str, str | None, str | None]:
    """A table-tennis match's best_of, ruleset and toss (first server, and first receiver in doubles)."""
    best_of = m.get("best_of", 5)
    if not odd_games(best_of):
        raise fail(
            "best_of",
            f"must be an odd number of games (3, 5, 7), got {best_of!r} / tek bir tam sayı olmalı",
        )
    ruleset = m.get("ruleset", "ittf")
    if ruleset not in RULESETS:
        raise fail("ruleset", f"must be one of {', '.join(RULESETS)} / geçersiz kural seti")
    sides = ("A1", "A2", "B1", "B2") if doubles else ("A", "B")
    first_server = m.get("first_server")
    if first_server is not None and first_server not in sides:
        raise fail("first_server", f"must be one of {', '.join(sides)} / geçersiz ilk servis")
    first_receiver = m.get("first_receiver")
    if first_receiver is not None:
        if not doubles or first_receiver not in sides:
            raise fail("first_receiver", "only for doubles: one of B1, B2, A1, A2 / yalnızca çiftlerde")
        if first_server is not None and first_receiver[0] == first_server[0]:
            raise fail(
                "first_receiver", "must be on the other side from first_server / karşı taraftan olmalı"
            )
    return best_of, ruleset, first_server, first_receiver


def _chess_fields(
    m: dict[str, Any], team_matches: list[TeamMatchConfig], fail: Fail
) -> tuple[str | None, str | None, int | None, str | None]:
    """A chess game's time control, clock side for White, board number and team match."""
    from hub.rules.chess import ChessConfig  # the rules own the time-control notation

    if m.get("doubles", False):
        raise fail("doubles", "chess is played one against one / satranç bire bir oynanır")
    control = m.get("time_control")
    if control is not None:
        if not isinstance(control, str):
            raise fail("time_control", 'must be text such as "5400+30" / "5400+30" gibi bir metin olmalı')
        try:
            ChessConfig.from_text(control)
        except ValueError as exc:
            raise fail("time_control", str(exc)) from None
    clock_white = m.get("clock_white")
    if clock_white not in (None, "left", "right"):
        raise fail("clock_white", 'must be "left" or "right" / "left" ya da "right" olmalı')
    team_match = m.get("team_match")
    board = m.get("board")
    if team_match is None:
        if board is not None:
            raise fail("board", "a board number needs its team_match / masa numarası takım maçıyla verilir")
        return control, clock_white, None, None
    if not any(t.id == team_match for t in team_matches):
        raise fail(
            "team_match", f"no team match {team_match!r} in [[team_matches]] / böyle bir takım maçı yok"
        )
    if not isinstance(board, int) or isinstance(board, bool) or board not in CHESS_BOARD_CATEGORIES:
        raise fail("board", f"must be a board number 1-8, got {board!r} / 1-8 arası masa numarası olmalı")
    return control, clock_white, board, team_match


def number_pair(m: dict[str, Any], key: str, fail: Fail, *, least: int, what: str) -> tuple[int, int] | None:
    """Two whole numbers from `least` (White's first, or the first-named team's), or None when absent."""
    value = m.get(key)
    if value is None:
        return None
    if not (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= least for v in value)
    ):
        raise fail(
            key, f"must be two {what} from {least}, such as [12, 7] / {least} veya büyük iki sayı olmalı"
        )
    return value[0], value[1]


def _titles(m: dict[str, Any], fail: Fail) -> tuple[str, str] | None:
    """`titles = ["GM", ""]`: White's and Black's FIDE titles as PGN writes them ("": no title)."""
    value = m.get("titles")
    if value is None:
        return None
    if not (isinstance(value, list) and len(value) == 2 and all(v in ("", *CHESS_TITLES) for v in value)):
        known = ", ".join(CHESS_TITLES)
        raise fail(
            "titles",
            f'must be two titles, each one of {known} or "" (none), such as ["GM", ""], got {value!r} '
            f'/ iki unvan olmalı, her biri {known} ya da "" (unvansız)',
        )
    return value[0], value[1]


def awaiting_result_s(value: Any, fail: Fail) -> float:
    """`awaiting_result_s`: seconds a chess game's board and stopped clock stay unchanged before the game is
    shown as waiting for a result (a resignation or a draw agreed the board cannot show)."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 10 <= value <= 24 * 3600:
        raise fail(
            "awaiting_result_s",
            f"must be a number of seconds from 10 to 86400, got {value!r} "
            f"/ 10-86400 arası saniye olmalı, verilen {value!r}",
        )
    return float(value)


def _backgammon_fields(m: dict[str, Any], fail: Fail) -> tuple[int, str]:
    """A backgammon match's `length` (required, at least 1) and optional `clock`, as (length, clock text).

    The clock is kept as text (`simple:600:12`, mode:reserve_s:delay_s) in MatchInfo.clock.
    """
    if m.get("doubles", False):
        raise fail("doubles", "backgammon is played one against one / tavla bire bir oynanır")
    length = m.get("length")
    if not is_length(length):
        raise fail(
            "length",
            f"a backgammon match needs its length in points, a whole number from 1, got {length!r} "
            f"/ maç uzunluğu (puan) 1 veya büyük bir tam sayı olmalı",
        )
    clock = m.get("clock")
    if clock is None:
        return length, ""
    if not isinstance(clock, dict):
        raise fail(
            "clock", 'must be a table: {mode = "simple", reserve_s = 600, delay_s = 12} / tablo olmalı'
        )
    unknown = [key for key in clock if key not in BACKGAMMON_CLOCK_KEYS]
    if unknown:
        nearest = nearest_key(unknown[0], BACKGAMMON_CLOCK_KEYS)
        hint = (f"; did you mean {nearest}?", f"; {nearest} mı demek istediniz?") if nearest else ("", "")
        raise fail(
            "clock",
            f"unknown keys {', '.join(sorted(unknown))}; known: mode, reserve_s, delay_s{hint[0]} "
            f"/ bilinmeyen alan{hint[1]}",
            at=f"clock.{unknown[0]}",
        )
    mode = clock.get("mode", "simple")
    if mode not in CLOCK_MODES:
        raise fail("clock.mode", f'must be "simple" or "bronstein", got {mode!r} / geçersiz saat türü')
    reserve = clock.get("reserve_s", 600)
    if not isinstance(reserve, int | float) or isinstance(reserve, bool) or reserve <= 0:
        raise fail(
            "clock.reserve_s",
            f"must be a positive number of seconds, got {reserve!r} / pozitif saniye olmalı",
        )
    delay = clock.get("delay_s", 12)
    if not isinstance(delay, int | float) or isinstance(delay, bool) or delay < 0:
        raise fail(
            "clock.delay_s", f"must be a number of seconds >= 0, got {delay!r} / 0 veya büyük saniye olmalı"
        )
    return length, f"{mode}:{float(reserve):g}:{float(delay):g}"


def _start_score(m: dict[str, Any], length: int, fail: Fail) -> tuple[int, int]:
    """`start_score = [3, 1]`: the score a backgammon match resumed at a score starts from, each below the
    length (a side at the length would have won); 0-0 when absent."""
    score = m.get("start_score", [0, 0])
    if (
        not isinstance(score, list)
        or len(score) != 2
        or any(not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < length for s in score)
    ):
        raise fail(
            "start_score",
            f"must be two scores [A, B], each a whole number from 0 to {length - 1} (below the length), "
            f"got {score!r} / iki skor olmalı, her biri 0 ile {length - 1} arası (maç uzunluğunun altında)",
        )
    return score[0], score[1]
