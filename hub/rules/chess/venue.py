"""A chess game's terms in the venue file's `[[matches]]`: time control, clock side, team-match board, and the
players' starting ranks, ratings, titles and FIDE ids; the hall's `awaiting_result_s` from `[venue]`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hub.rules.chess.model import ChessConfig
from hub.rules.sport import FieldFail, VenueSoFar
from hub.rules.terms import number_pair

# the club championship regulations 4.2.2 and 5.5: boards 1-4 are open; the others are kept for a
# category. (Its 4.3 fills boards 5 and 6 the other way round; 5.5, which the medals follow, is used here.)
BOARD_CATEGORIES = {
    1: ("open", "genel"),
    2: ("open", "genel"),
    3: ("open", "genel"),
    4: ("open", "genel"),
    5: ("under 20", "20 yaş ve altı"),
    6: ("woman", "kadın"),
    7: ("under 16", "16 yaş ve altı"),
    8: ("under 16 girl", "16 yaş ve altı kadın"),
}

# FIDE's titles as PGN writes them (`WhiteTitle`); "" is a player with none
TITLES = ("GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM")


def read_match(entry: Mapping[str, Any], doubles: bool, fail: FieldFail, venue: VenueSoFar) -> dict[str, Any]:
    """The entry's chess terms as `MatchInfo` fields; a team match's game takes its round."""
    clock, clock_white, board, team_match = _chess_fields(entry, venue, fail)
    terms: dict[str, Any] = {
        "clock": clock or None,
        "clock_white": clock_white,
        "board": board,
        "team_match": team_match,
        "pairing": number_pair(entry, "pairing", fail, least=1, what="starting ranks"),
        "ratings": number_pair(entry, "ratings", fail, least=0, what="ratings"),
        "fide_ids": number_pair(entry, "fide_ids", fail, least=0, what="FIDE ids"),
        "titles": _titles(entry, fail),
    }
    if team_match is not None and board is not None:
        if venue.board_taken(team_match, board):
            raise fail("board", f"board {board} of {team_match} is defined twice / masa iki kez tanımlı")
        terms["round"] = venue.team_match_round(team_match)
    quiet = venue.settings.get("awaiting_result_s")
    own = entry.get("awaiting_result_s")
    if own is not None:
        terms["awaiting_result_s"] = awaiting_result_s(own, fail)
    elif quiet is not None:
        terms["awaiting_result_s"] = awaiting_result_s(quiet, venue.settings_fail)
    return terms


def _chess_fields(
    m: Mapping[str, Any], venue: VenueSoFar, fail: FieldFail
) -> tuple[str | None, str | None, int | None, str | None]:
    """A chess game's time control, clock side for White, board number and team match."""
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
    if venue.team_match_round(team_match) is None:
        raise fail(
            "team_match", f"no team match {team_match!r} in [[team_matches]] / böyle bir takım maçı yok"
        )
    if not isinstance(board, int) or isinstance(board, bool) or board not in BOARD_CATEGORIES:
        raise fail("board", f"must be a board number 1-8, got {board!r} / 1-8 arası masa numarası olmalı")
    return control, clock_white, board, team_match


def _titles(m: Mapping[str, Any], fail: FieldFail) -> tuple[str, str] | None:
    """`titles = ["GM", ""]`: White's and Black's FIDE titles as PGN writes them ("": no title)."""
    value = m.get("titles")
    if value is None:
        return None
    if not (isinstance(value, list) and len(value) == 2 and all(v in ("", *TITLES) for v in value)):
        known = ", ".join(TITLES)
        raise fail(
            "titles",
            f'must be two titles, each one of {known} or "" (none), such as ["GM", ""], got {value!r} '
            f'/ iki unvan olmalı, her biri {known} ya da "" (unvansız)',
        )
    return value[0], value[1]


def awaiting_result_s(value: Any, fail: FieldFail) -> float:
    """`awaiting_result_s`: seconds a chess game's board and stopped clock stay unchanged before the game is
    shown as waiting for a result (a resignation or a draw agreed the board cannot show)."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 10 <= value <= 24 * 3600:
        raise fail(
            "awaiting_result_s",
            f"must be a number of seconds from 10 to 86400, got {value!r} "
            f"/ 10-86400 arası saniye olmalı, verilen {value!r}",
        )
    return float(value)
