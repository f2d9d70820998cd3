"""The shared defaults of the sport classes (`hub/rules/<sport>/sport.py`) behind `hub.rules.registry.SportRules`.

Each default is here once; a sport overrides only what it does differently. This module and the sport
classes import nothing from the hub's match model (`hub.matches`, `hub.rules.registry`): the match's venue terms
reach them as `MatchTerms`, which the hub's `MatchInfo` fits.
"""

from __future__ import annotations

import contextlib
import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic, Protocol, TextIO, TypeAlias, TypeVar

from hub.rules.articles import Rule, Words
from hub.rules.base import Outcome

S = TypeVar("S")  # the sport's state

# an export of a match: (state, players' names) -> text, or plain data for JSON
Export: TypeAlias = Callable[[S, tuple[str, ...]], Any]


@dataclass(frozen=True, slots=True)
class CheckOption:
    """An option of `boardcast check SPORT` that the sport's checker reads, in argparse's words."""

    flag: str  # "--time-control"
    help: str
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    default: str | None = None


Annotate = Callable[[str], "str | None"]  # a position (its FEN) -> its comment in a game record, or None


@dataclass(frozen=True, slots=True)
class GameRecords:
    """A sport's game records for relays that poll (`/pgn/…`): one game's and a round's, as text."""

    media_type: str  # as HTTP names it
    # (MatchState, Venue, the event's report file or None, a position's comment or None) -> text
    game: Callable[[Any, Any, Any, Annotate | None], str]
    # (every MatchState, Venue, round, event, a position's comment or None) -> the round's
    round: Callable[[list[Any], Any, int, Any, Annotate | None], str]


class SpectatorExtra(Protocol):
    """A service beside a sport's rules that adds to what spectators see of its matches (winning chances)."""

    def start(self) -> None:
        """Begin the work (load what it needs) while the hub starts."""

    def close(self) -> None:
        """Stop the work as the hub stops."""

    def note(self, match_id: str, state: Any, at: float) -> None:
        """A match's state spectators were shown, at `at`."""

    def shown(self, match_id: str, now: float) -> Any:
        """What spectators may see of it for a match now (behind the broadcast delay)."""

    def health(self) -> dict[str, Any]:
        """What /api/health says of it: running or why not, and how much it did."""

    def annotate(self, position: str) -> str | None:
        """A game record's comment on a position spectators may see (an engine's `[%eval]`), or None."""

    def report(self, match_id: str) -> dict[str, Any] | None:
        """A match's whole analysis as far as it goes (a report page, a referee's download), or None."""


class Shown(Protocol):
    """What a spectator extra knows of a position: what screens get of it."""

    def to_dict(self) -> dict[str, Any]:
        """As screens get it."""
        ...


def shown_behind(
    seen: Sequence[tuple[float, Hashable]], known: Mapping[Any, Shown], now: float, delay_s: float
) -> dict[str, Any] | None:
    """What a spectator extra shows at `now`: what it knows of the newest position seen (`(since when, key)`,
    oldest first) that is at least `delay_s` old, with that position's time (`at`); None before there is one.
    Players may not use analysis: the current position's never shows before the broadcast delay."""
    for at, key in reversed(seen):
        if at > now - delay_s:
            continue
        found = known.get(key)
        if found is not None:
            return {**found.to_dict(), "at": at}
    return None


def lower_priority() -> None:
    """Run in an analysis engine's process before it starts: the lowest priority, so it takes only what the
    hub, its devices and its clients leave."""
    with contextlib.suppress(OSError):
        os.nice(19)


class MatchTerms(Protocol):
    """A match's terms from the venue file, as the sports read them (the hub's `MatchInfo` has them all)."""

    @property
    def best_of(self) -> int:
        """Table tennis: games in the match."""

    @property
    def doubles(self) -> bool:
        """Table tennis: a doubles match."""

    @property
    def first_server(self) -> str | None:
        """Table tennis: "A"/"B", or in doubles "A1".."B2"; None: from the first report."""

    @property
    def first_receiver(self) -> str | None:
        """Table tennis, doubles: the first receiver."""

    @property
    def ruleset(self) -> str:
        """Table tennis: "ittf" or "legacy21"."""

    @property
    def length(self) -> int:
        """Backgammon: the match is played to this many points."""

    @property
    def clock(self) -> str | None:
        """The time control in the sport's notation (backgammon "simple:600:12", chess "5400+30")."""

    @property
    def clock_white(self) -> str | None:
        """Chess: "left" or "right", the clock side White's time is on; None: learn it."""

    @property
    def orientation(self) -> str:
        """Chess: the board's way round, "normal" | "rotated", or "auto" (detected from the position)."""

    @property
    def awaiting_result_s(self) -> float | None:
        """Chess: a quiet game waits for a result after this many seconds; None: the rules' default."""

    @property
    def start_score(self) -> tuple[int, int]:
        """Backgammon: the score a match resumed at a score starts from (0-0 for a new one)."""


class FieldFail(Protocol):
    """The venue file reader's error maker for one entry: a key of it (None: the entry) and the message; `at`
    is the key path to point the line at, when it is not the key's."""

    def __call__(self, key: str | None, message: str, /, at: str | None = None) -> Exception: ...


class VenueSoFar(Protocol):
    """What a sport's `[[matches]]` reader may ask of the venue file read so far."""

    @property
    def settings(self) -> Mapping[str, Any]:
        """The file's `[venue]` table as written (a sport's hall-wide defaults for its matches)."""

    @property
    def settings_fail(self) -> FieldFail:
        """The error maker for a key of `[venue]`."""

    def team_match_round(self, team_match: str) -> int | None:
        """The round of a `[[team_matches]]` entry; None: no such entry."""

    def board_taken(self, team_match: str, board: int) -> bool:
        """A board of the team match already has a game or a forfeit."""

    def unknown_key(self, key: str, known: tuple[str, ...]) -> str:
        """The file's message for a key not known here: the nearest known name, else all of them."""


class SportDefaults(ABC, Generic[S]):
    """The parts of `SportRules` most sports share; a subclass names its sport and its rules' functions."""

    name: str
    families: frozenset[str]
    report_type: tuple[type, ...]
    tick: Callable[[], Any] | None = None  # no input for "time passed": the hub does not tick this sport
    tick_every_s: float = 15.0
    referee_inputs: tuple[str, ...] = ()
    exports: Mapping[str, Export[S]] = MappingProxyType({})
    title: tuple[str, str]  # the sport's name in messages, English and Turkish
    match_keys: tuple[str, ...] = ()  # the venue file's `[[matches]]` keys only this sport's matches take
    broadcast_delayed: bool = False  # spectators see its matches after the venue's `broadcast_delay_s`
    check_options: tuple[CheckOption, ...] = ()  # `boardcast check SPORT` options beyond FILE
    checks_json_lines: bool = True  # `boardcast check` reads JSON lines for it (`hub.check.run`)
    paired_rounds: bool = False  # its rounds come from a pairing program's report file, its teams play boards
    articles: Mapping[str, Rule] = MappingProxyType({})  # the rule each of its anomaly codes points to
    doubles_allowed: bool = False  # its matches may be doubles (four players)
    draw_key: str | None = None  # the term a CSV draw may give a match (a column, an option of the command)
    draw_key_help: tuple[str, str] = ("", "")  # that term, for the command's help (English, Turkish)
    records: GameRecords | None = None  # its games' records for relays (PGN); None: it has none
    appeal_rule: tuple[str, str] | None = None  # the rule the appeal window is cited by (English, Turkish)
    separate_clock: bool = False  # its tables may have a clock device apart from the board
    board_orientation: bool = False  # its boards may be set up either way round (venue `orientation`)
    board_categories: Mapping[int, tuple[str, str]] = MappingProxyType({})  # a team match's boards (paired)
    player_titles: tuple[str, ...] = ()  # players' titles as the sport's records write them ("GM")
    logs: tuple[str, ...] = ()  # its public state's lists that grow a play at a time (sent an item at a time)
    unstated_time_control: Words | None = None  # a clock rule's words when the venue states no time control

    def time_control_words(self, info: MatchTerms) -> Words | None:
        """The match's time control as a referee says it; None: the venue gives the match no clock."""
        return None

    def round_scores(self, state: S) -> tuple[Sequence[float], tuple[Sequence[float], ...]]:
        """The match score and each game's, as a round's CSV export lists them (sports drawn from a CSV)."""
        raise NotImplementedError(f"{self.name} matches are not exported as CSV")

    def final_score(self, state: S) -> tuple[float, float]:
        """The match score the players sign: the round export's (`round_scores`)."""
        a, b = self.round_scores(state)[0]
        return (a, b)

    def referee_result(self, result: Any, how: Any, reason: str) -> dict[str, Any]:
        """A referee's result the board cannot see as the rules' `set_result` input (plain data), or ValueError
        with the message; only for a sport whose `referee_inputs` take `set_result`."""
        raise ValueError(f"{self.title[0]} takes no referee result / {self.title[1]} hakem sonucu almaz")

    def read_match(
        self, entry: Mapping[str, Any], doubles: bool, fail: FieldFail, venue: VenueSoFar
    ) -> dict[str, Any]:
        """A `[[matches]]` entry's terms of this sport (its `match_keys`), checked, as `MatchInfo` fields; by
        default a sport played one against one, with no terms of its own."""
        if doubles:
            en, tr = self.title
            raise fail("doubles", f"{en} is played one against one / {tr} bire bir oynanır")
        return {}

    def clock_view(self, state: S) -> dict[str, Any] | None:
        """The match's clock as a team match's board shows it; None: no clock to show."""
        return None

    def attach_spectators(self, hall: Any) -> SpectatorExtra | None:
        """Add the sport's spectator extra to a hall (`PublicHall.show_extra`) if its venue wants one; none."""
        return None

    def check(self, file: str | None, options: Mapping[str, Any]) -> int:
        """`boardcast check SPORT FILE`: audit a recorded match of JSON lines (`hub.check.run`)."""
        from hub.check import run
        from hub.check.common import EXIT_BAD_INPUT

        if file is None:
            print(f"boardcast check {self.name}: give FILE / DOSYA verin", file=sys.stderr)
            return EXIT_BAD_INPUT
        return run(self.name, file)

    def check_lines(self, lines: Iterable[str], name: str, out: TextIO, err: TextIO) -> int:
        """Fold a recorded match's JSON lines through the rules, printing what they find; the exit code."""
        raise NotImplementedError(f"boardcast check reads no JSON lines for {self.name}")

    @abstractmethod
    def apply(self, state: S, report: Any, at: float) -> Outcome[S]:
        """Fold one device report or referee input into the match (the defaults below call it)."""

    def join(self, state: S, report: Any, at: float) -> Outcome[S]:
        """Fold a device's first report after the hub joined it (hub start, restart, reconnect): by default
        the same as `apply`; a sport whose rules judge one report against the last overrides it to take this
        one as where the match stands (a catch-up), and to judge only what follows."""
        return self.apply(state, report, at)

    @abstractmethod
    def to_dict(self, state: S) -> dict[str, Any]:
        """The whole state as plain data (the defaults below read it)."""

    @abstractmethod
    def winner(self, state: S) -> int | None:
        """The side that won, if any (the defaults below read it)."""

    def result(self, state: S) -> str | None:
        """No notation for a result: the sport says only who won (`winner`)."""
        return None

    def result_input(self, state: S, score: tuple[float, float]) -> Any | None:
        """No rules input stands for a referee's corrected result: the result record alone carries it."""
        return None

    def forfeit_score(self, info: MatchTerms) -> tuple[float, float]:
        """A forfeit is 1-0."""
        return (1, 0)

    def public_state(self, state: S) -> dict[str, Any]:
        """Spectators get the whole state (`to_dict`)."""
        return self.to_dict(state)

    def tile_state(self, state: S) -> dict[str, Any]:
        """A wall tile gets what spectators get (`public_state`)."""
        return self.public_state(state)

    def is_over(self, state: S) -> bool:
        """Over once there is a result (a draw has no winner) or a winner."""
        return self.result(state) is not None or self.winner(state) is not None
