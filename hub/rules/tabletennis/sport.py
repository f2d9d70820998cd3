"""`TableTennisSport`: this package as the hub's match model sees it (`hub.rules.registry.SportRules`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Any, TextIO

from devices.observations import DeviceEvent, DeviceFamily, ScoreboardState
from hub.rules.base import Outcome
from hub.rules.sport import MatchTerms, SportDefaults
from hub.rules.tabletennis import codec, export, model, reducer, venue, views
from hub.rules.tabletennis.articles import ARTICLES
from hub.rules.tabletennis.model import TableTennisConfig, TableTennisState


def _card(state: TableTennisState, players: tuple[str, ...]) -> dict[str, Any]:
    """The match card, with every point (`export.match_card`)."""
    return export.match_card(state, players)


def _compact(state: TableTennisState, players: tuple[str, ...]) -> str:
    """The compact notation of the games played ("7/-4/8")."""
    return export.compact(state)


class TableTennisSport(SportDefaults[TableTennisState]):
    """Scoreboards and wristbands feed an ITTF match; replay folds runs of plain rallies in one step."""

    name = "tabletennis"
    logs = ("points_log",)  # its public state's lists that grow a play at a time
    families = frozenset({DeviceFamily.TT_SCOREBOARD, DeviceFamily.TT_WRISTBAND})
    report_type = (ScoreboardState, DeviceEvent)
    tick = model.Tick  # the expedite system comes due on time
    referee_inputs = ("timeout", "card", "expedite", "correction", "point", "undo", "toss")
    exports = MappingProxyType({"card": _card, "compact": _compact})
    title = ("table tennis", "masa tenisi")
    match_keys = ("best_of", "ruleset", "first_server", "first_receiver")
    doubles_allowed = True
    draw_key = "best_of"
    draw_key_help = ("games per match when the CSV gives none", "CSV vermediğinde bir maçın oyun sayısı")
    # the ITTF says who may appeal to whom (Regulations 3.3.4) but sets no time: the hall's 15 minutes apply,
    # as for backgammon (docs/REFEREE.md)
    appeal_rule = (
        "the hall's appeal rule, as Backgammon Tournament Rules §10; ITTF Regulations 3.3.4 set no time",
        "salonun itiraz kuralı, Tavla Turnuva Kuralları §10 gibi; ITTF Yönetmelikleri 3.3.4 süre belirtmez",
    )
    articles = MappingProxyType(ARTICLES)
    read_match = staticmethod(venue.read_match)  # its `[[matches]]` terms, checked

    def round_scores(self, state: TableTennisState) -> tuple[Sequence[float], tuple[Sequence[float], ...]]:
        """Games won, and each game's points (`model.match_result`)."""
        return model.match_result(state)

    def check_lines(self, lines: Iterable[str], name: str, out: TextIO, err: TextIO) -> int:
        """`boardcast check` of a recorded match's JSON lines (`check.check`)."""
        from hub.rules.tabletennis import check

        return check.check(lines, name, out, err)

    def initial(self, config: TableTennisConfig) -> TableTennisState:
        """A match not yet started."""
        return model.initial(config)

    def apply(self, state: TableTennisState, report: Any, at: float) -> Outcome[TableTennisState]:
        """Fold one scoreboard report or umpire input (`reducer.apply`)."""
        return reducer.apply(state, report, at)

    def join(self, state: TableTennisState, report: Any, at: float) -> Outcome[TableTennisState]:
        """A board's first report since the hub joined it: a display is where the match stands unless it
        simply goes on by a rally (`reducer.apply`, joined)."""
        return reducer.apply(state, report, at, joined=True)

    def to_dict(self, state: TableTennisState) -> dict[str, Any]:
        """The state as plain data (`codec.to_dict`)."""
        return codec.to_dict(state)

    def from_dict(self, data: dict[str, Any]) -> TableTennisState:
        """The inverse of `to_dict`."""
        return codec.from_dict(data)

    def input_to_dict(self, report: Any) -> dict[str, Any]:
        """A scoreboard report or umpire input as plain data."""
        return codec.input_to_dict(report)

    def report_from_dict(self, data: dict[str, Any]) -> Any:
        """The inverse of `input_to_dict`: a rules input."""
        return codec.input_from_dict(data)

    def winner(self, state: TableTennisState) -> int | None:
        """The side that won the match."""
        return state.winner

    def is_fresh_start(self, report: Any) -> bool:
        """A report that can only be a match's beginning once the table's match is over: a display in the
        first game (0-0, or a few rallies in when the reset was missed), or an umpire's point."""
        if isinstance(report, ScoreboardState):  # not a best-of-1 match's final display: no game's end
            return tuple(report.games) == (0, 0) and max(report.points) < model.game_target("ittf")
        return isinstance(report, DeviceEvent) and report.kind == "point"

    def config(self, info: MatchTerms) -> TableTennisConfig:
        """Best of, doubles, the first server and receiver and the ruleset from the venue."""
        return TableTennisConfig.from_names(
            info.best_of, info.doubles, info.first_server, info.first_receiver, info.ruleset
        )

    def result_input(self, state: TableTennisState, score: tuple[float, float]) -> Any | None:
        """A corrected score is the games won: a correction to them at 0-0, unless the games already say so."""
        games = (int(score[0]), int(score[1]))
        if games != score or min(games) < 0 or model.match_result(state)[0] == games:
            return None
        return model.Correction((0, 0), games, "result corrected")

    def forfeit_score(self, info: MatchTerms) -> tuple[float, float]:
        """The games needed to win, to none."""
        return (info.best_of // 2 + 1, 0)

    def public_state(self, state: TableTennisState) -> dict[str, Any]:
        """What screens get (`views.view`): no bookkeeping the rules keep for themselves."""
        return views.view(state)

    def tile_state(self, state: TableTennisState) -> dict[str, Any]:
        """What a wall tile gets (`views.tile`): the score, not its history."""
        return views.tile(state)
