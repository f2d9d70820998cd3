"""The sports the hub knows: `SportRules`, what a sport gives the match model, and `SPORTS`, them by name.

Each sport is one class in its own package (`hub/rules/<sport>/sport.py`) over the shared defaults of
`hub.rules.sport.SportDefaults`; mypy holds each against `SportRules` where the registry names it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TextIO, TypeVar

from hub.rules.articles import Rule, Words
from hub.rules.backgammon.boards import BackgammonConfig
from hub.rules.backgammon.sport import BackgammonSport
from hub.rules.backgammon.state import BackgammonState
from hub.rules.base import Outcome
from hub.rules.chess.model import ChessConfig, ChessState
from hub.rules.chess.sport import ChessSport
from hub.rules.sport import (
    CheckOption,
    Export,
    FieldFail,
    GameRecords,
    MatchTerms,
    SpectatorExtra,
    VenueSoFar,
)
from hub.rules.tabletennis.model import TableTennisConfig, TableTennisState
from hub.rules.tabletennis.sport import TableTennisSport

S = TypeVar("S")  # the sport's state
C = TypeVar("C")  # the sport's match configuration


class SportRules(Protocol[S, C]):
    """How one sport plugs into the match model: its devices, its reducer, its state as data and as views."""

    @property
    def name(self) -> str:
        """The sport's name in the venue file and the log ("tabletennis")."""

    @property
    def families(self) -> frozenset[str]:
        """The device families whose reports feed this sport."""

    @property
    def report_type(self) -> tuple[type, ...]:
        """The device report classes the sport's rules accept."""

    @property
    def tick(self) -> Callable[[], Any] | None:
        """An input meaning "time passed", for rules that watch the clock; None: the hub never ticks them."""

    @property
    def tick_every_s(self) -> float:
        """How often the hub lets time pass for this sport's live matches."""

    @property
    def referee_inputs(self) -> tuple[str, ...]:
        """The input "type"s a referee may record on a match of this sport."""

    @property
    def exports(self) -> Mapping[str, Export[S]]:
        """The match's exports by name (PGN, `.mat`, the match card)."""

    @property
    def title(self) -> tuple[str, str]:
        """The sport's name in messages, English and Turkish ("table tennis", "masa tenisi")."""

    @property
    def match_keys(self) -> tuple[str, ...]:
        """The venue file's `[[matches]]` keys only this sport's matches take."""

    @property
    def broadcast_delayed(self) -> bool:
        """Spectators see this sport's matches after the venue's `broadcast_delay_s` (anti-cheating)."""

    @property
    def check_options(self) -> tuple[CheckOption, ...]:
        """The options `boardcast check SPORT` takes for this sport beyond FILE."""

    @property
    def checks_json_lines(self) -> bool:
        """`boardcast check SPORT FILE` reads JSON lines (`hub.check.run`, through `check_lines`)."""

    def attach_spectators(self, hall: Any) -> SpectatorExtra | None:
        """Add the sport's spectator extra (winning chances) to a `PublicHall` if its venue wants it."""

    @property
    def paired_rounds(self) -> bool:
        """Its rounds come from a pairing program's report file (`.trf`), its team matches play boards."""

    def clock_view(self, state: S) -> dict[str, Any] | None:
        """The match's clock as a team match's board shows it; None: no clock to show."""

    @property
    def articles(self) -> Mapping[str, Rule]:
        """The rule each of the sport's anomaly codes points to, as its referees know it."""

    @property
    def doubles_allowed(self) -> bool:
        """Its matches may be doubles (four players: A1, A2, B1, B2)."""

    @property
    def draw_key(self) -> str | None:
        """The one term a CSV draw may give each match (its column; `--best-of` on the command); None: none."""

    @property
    def draw_key_help(self) -> tuple[str, str]:
        """What `draw_key` is, for the command's help (English, Turkish)."""

    @property
    def records(self) -> GameRecords | None:
        """Its games' records for relays (`/pgn/…`: one game's, a round's); None: it keeps none."""

    def round_scores(self, state: S) -> tuple[Sequence[float], tuple[Sequence[float], ...]]:
        """The match score and each game's (or the points each game won), for a round's CSV export."""

    def final_score(self, state: S) -> tuple[float, float]:
        """The match score as the players sign it at the end: games, points, or a game's 1-0 / ½-½."""

    @property
    def appeal_rule(self) -> tuple[str, str] | None:
        """The rule a refused late appeal cites for the 15 minutes (English, Turkish); None: no citation."""

    def referee_result(self, result: Any, how: Any, reason: str) -> dict[str, Any]:
        """A referee's result the board cannot see as the rules' `set_result` input, or ValueError saying why."""

    @property
    def separate_clock(self) -> bool:
        """Its tables may have a clock device apart from the board (the venue's table `clock`)."""

    @property
    def board_orientation(self) -> bool:
        """Its boards may be set up either way round (the venue's table `orientation`)."""

    @property
    def board_categories(self) -> Mapping[int, tuple[str, str]]:
        """A team match's boards by number, each with the category of player it is kept for (English, Turkish)."""

    @property
    def player_titles(self) -> tuple[str, ...]:
        """Players' titles as the sport's records write them ("GM"); none for most sports."""

    @property
    def logs(self) -> tuple[str, ...]:
        """The keys of its public state's lists that grow a play at a time: screens are sent them an item at a
        time (`hub.feed.reuse`)."""

    @property
    def unstated_time_control(self) -> Words | None:
        """What a clock rule says of the time control when the venue states none ("the event's time control")."""

    def time_control_words(self, info: MatchTerms) -> Words | None:
        """The match's time control as a referee says it; None: the venue gives the match no clock."""

    def read_match(
        self, entry: Mapping[str, Any], doubles: bool, fail: FieldFail, venue: VenueSoFar
    ) -> dict[str, Any]:
        """A `[[matches]]` entry's terms of this sport (its `match_keys`), checked, as `MatchInfo` fields."""

    def check(self, file: str | None, options: Mapping[str, Any]) -> int:
        """`boardcast check SPORT`: audit a recorded match offline; the exit code."""

    def check_lines(self, lines: Iterable[str], name: str, out: TextIO, err: TextIO) -> int:
        """Fold a recorded match's JSON lines through the rules, printing what they find; the exit code."""

    def initial(self, config: C) -> S:
        """A match not yet started."""

    def apply(self, state: S, report: Any, at: float) -> Outcome[S]:
        """Fold one device report or referee input into the match; time is an argument."""

    def join(self, state: S, report: Any, at: float) -> Outcome[S]:
        """Fold a device's first report after the hub joined it (the log body's `"joined": true`): taken as
        where the match stands, never judged against what the hub knew before."""

    def to_dict(self, state: S) -> dict[str, Any]:
        """The whole state as plain data, for snapshots; `from_dict` reverses it."""

    def from_dict(self, data: dict[str, Any]) -> S:
        """The inverse of `to_dict`."""

    def input_to_dict(self, report: Any) -> dict[str, Any]:
        """A device report or rules input as plain data with a "type" key, for the log."""

    def report_from_dict(self, data: dict[str, Any]) -> Any:
        """The inverse of `input_to_dict`: a rules input."""

    def winner(self, state: S) -> int | None:
        """The side that won the match (0 or 1), or None."""

    def result(self, state: S) -> str | None:
        """The result in the sport's notation ("1-0", "1/2-1/2"), for sports with draws; None otherwise."""

    def is_fresh_start(self, report: Any) -> bool:
        """A report that can only open a new match (0-0, no games; pieces set up)."""

    def config(self, info: MatchTerms) -> C:
        """The rules' match configuration from the venue's terms for the match (`MatchInfo`)."""

    def result_input(self, state: S, score: tuple[float, float]) -> Any | None:
        """The rules input a referee's corrected match score stands for (table tennis: the games), or None."""

    def forfeit_score(self, info: MatchTerms) -> tuple[float, float]:
        """A forfeit's score, the winner's and the loser's."""

    def public_state(self, state: S) -> dict[str, Any]:
        """The state as spectators' screens get it (no bookkeeping the rules keep for themselves)."""

    def tile_state(self, state: S) -> dict[str, Any]:
        """The state as a venue wall tile gets it: the wall carries every match to thousands of screens."""

    def is_over(self, state: S) -> bool:
        """True once the live data says the match has ended (a winner, or a result such as a draw)."""


TABLE_TENNIS: SportRules[TableTennisState, TableTennisConfig] = TableTennisSport()
BACKGAMMON: SportRules[BackgammonState, BackgammonConfig] = BackgammonSport()
CHESS: SportRules[ChessState, ChessConfig] = ChessSport()

SPORTS: dict[str, SportRules[Any, Any]] = {sport.name: sport for sport in (TABLE_TENNIS, BACKGAMMON, CHESS)}
# the sport whose rounds come from the pairing program's report file, its teams playing boards (there is one)
(PAIRED_SPORT,) = (name for name, sport in SPORTS.items() if sport.paired_rounds)
# each sport's own report classes (not their subclasses): the sport that encodes it, first one named first
_REPORT_TO_DICT: dict[type, Callable[[Any], dict[str, Any]]] = {}
for _sport in SPORTS.values():
    for _cls in _sport.report_type:
        _REPORT_TO_DICT.setdefault(_cls, _sport.input_to_dict)


def report_to_dict(report: Any) -> dict[str, Any]:
    """A device report as plain data for the log body, in the encoding of the sport that reads it."""
    encode = _REPORT_TO_DICT.get(type(report))  # one per device report logged: a lookup, not a search
    if encode is not None:
        return encode(report)
    for sport in SPORTS.values():
        if isinstance(report, sport.report_type):
            return sport.input_to_dict(report)
    raise TypeError(f"no log encoding for {type(report).__name__}")


def attach_spectator_extras(hall: Any) -> None:
    """Give a `PublicHall` each sport's spectator extra that its venue wants (`SportRules.attach_spectators`)."""
    for sport in SPORTS.values():
        sport.attach_spectators(hall)
