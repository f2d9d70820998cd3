"""A tournament as the pairing program sees it: players, teams, and what each did in every round.

Plain frozen values read from a FIDE Tournament Report File (`hub.tournament.trf`) and changed only by
making new ones (`Tournament.with_result`): a result the hall reports for a game becomes a new tournament,
never an edit of the one read.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction


class Outcome(StrEnum):
    """A round's result code, as the report file writes it (one character)."""

    WIN = "1"
    DRAW = "="
    LOSS = "0"
    FORFEIT_WIN = "+"
    FORFEIT_LOSS = "-"
    UNRATED_WIN = "W"
    UNRATED_DRAW = "D"
    UNRATED_LOSS = "L"
    HALF_BYE = "H"
    FULL_BYE = "F"
    PAIRING_BYE = "U"  # the pairing-allocated bye
    ZERO_BYE = "Z"
    NOT_PLAYED = " "  # paired, no result yet

    @property
    def points(self) -> Fraction:
        """The game points this result scores."""
        return _POINTS[self]

    @property
    def played(self) -> bool:
        """A game was played over the board (forfeits and byes were not)."""
        return self in _PLAYED

    @property
    def is_bye(self) -> bool:
        """A round with no opponent."""
        return self in _BYES


_POINTS = {
    Outcome.WIN: Fraction(1),
    Outcome.DRAW: Fraction(1, 2),
    Outcome.LOSS: Fraction(0),
    Outcome.FORFEIT_WIN: Fraction(1),
    Outcome.FORFEIT_LOSS: Fraction(0),
    Outcome.UNRATED_WIN: Fraction(1),
    Outcome.UNRATED_DRAW: Fraction(1, 2),
    Outcome.UNRATED_LOSS: Fraction(0),
    Outcome.HALF_BYE: Fraction(1, 2),
    Outcome.FULL_BYE: Fraction(1),
    Outcome.PAIRING_BYE: Fraction(1),
    Outcome.ZERO_BYE: Fraction(0),
    Outcome.NOT_PLAYED: Fraction(0),
}
_PLAYED = {
    Outcome.WIN,
    Outcome.DRAW,
    Outcome.LOSS,
    Outcome.UNRATED_WIN,
    Outcome.UNRATED_DRAW,
    Outcome.UNRATED_LOSS,
}
_BYES = {Outcome.HALF_BYE, Outcome.FULL_BYE, Outcome.PAIRING_BYE, Outcome.ZERO_BYE}
# a game's result as the hall writes it ("1-0") -> White's and Black's codes
GAME_OUTCOMES = {
    "1-0": (Outcome.WIN, Outcome.LOSS),
    "0-1": (Outcome.LOSS, Outcome.WIN),
    "1/2-1/2": (Outcome.DRAW, Outcome.DRAW),
    "1-0F": (Outcome.FORFEIT_WIN, Outcome.FORFEIT_LOSS),  # forfeits: the game was not played
    "0-1F": (Outcome.FORFEIT_LOSS, Outcome.FORFEIT_WIN),
    "0-0F": (Outcome.FORFEIT_LOSS, Outcome.FORFEIT_LOSS),
}


class TextEncoding(StrEnum):
    """How a report file's bytes are text: UTF-8, or Turkish Windows (Swiss-Manager's non-Unicode export)."""

    UTF8 = "utf-8"
    WINDOWS_1254 = "windows-1254"  # the name HTTP and Python's codecs both know


class LineEnding(StrEnum):
    """The line break a report file uses (the first one found; a file mixing them is written with that one)."""

    LF = "\n"
    CRLF = "\r\n"
    CR = "\r"


@dataclass(frozen=True, slots=True)
class FileForm:
    """How a report file was stored, so that it is written back the same way, byte for byte."""

    encoding: TextEncoding = TextEncoding.UTF8
    bom: bool = False  # a UTF-8 byte-order mark before the first record
    newline: LineEnding = LineEnding.LF
    final_newline: bool = True  # the last line ends with a line break


class Colour(StrEnum):
    """The colour a player had in a round."""

    WHITE = "w"
    BLACK = "b"
    NONE = "-"


@dataclass(frozen=True, slots=True)
class Entry:
    """One round of one player: the opponent (None for a bye), the colour and the result."""

    opponent: int | None
    colour: Colour
    outcome: Outcome

    @property
    def points(self) -> Fraction:
        """The game points this round scored."""
        return self.outcome.points


@dataclass(frozen=True, slots=True)
class Player:
    """A player of the report file's player section (record 001)."""

    number: int  # the starting rank: how every other record names the player
    name: str
    rating: int  # 0: unrated
    rounds: tuple[Entry | None, ...]  # round 1 first; None: nothing recorded for that round
    sex: str = ""
    title: str = ""
    federation: str = ""
    fide_id: str = ""
    birth: str = ""
    stated_points: Fraction | None = None  # the total the file states
    stated_rank: int | None = None
    line: int = 0  # where the record is in its file (1-based)

    def entry(self, round_number: int) -> Entry | None:
        """What the player did in a round (1-based), or None."""
        return self.rounds[round_number - 1] if 0 < round_number <= len(self.rounds) else None

    def points(self, rounds: int | None = None) -> Fraction:
        """Game points over the first `rounds` rounds (all when None)."""
        chosen = self.rounds if rounds is None else self.rounds[:rounds]
        return sum((e.points for e in chosen if e is not None), Fraction(0))


@dataclass(frozen=True, slots=True)
class Team:
    """A team of a team event (record 013 or 310), its players in board order."""

    number: int
    name: str
    players: tuple[int, ...]  # starting ranks, board 1 first
    stated_match_points: Fraction | None = None
    stated_game_points: Fraction | None = None
    stated_rank: int | None = None
    line: int = 0


@dataclass(frozen=True, slots=True)
class Tournament:
    """A whole report file: its header, players and teams; the text it was read from is kept for writing."""

    name: str
    players: dict[int, Player] = field(hash=False)
    teams: tuple[Team, ...] = ()
    rounds: int = 0  # the number of rounds the event has (XXR or 142), or the most any player has
    header: dict[str, str] = field(default_factory=dict, hash=False)  # record code -> its text (first one)
    lines: tuple[str, ...] = ()  # without their line breaks
    form: FileForm = FileForm()  # the encoding and line breaks the file was read with

    @property
    def is_team_event(self) -> bool:
        """Teams play each other; a player's games count for the team."""
        return bool(self.teams)

    def team_of(self, number: int) -> Team | None:
        """The team a player plays for."""
        return next((t for t in self.teams if number in t.players), None)

    def player_named(self, name: str) -> Player | None:
        """The player with exactly this name."""
        return next((p for p in self.players.values() if p.name == name), None)

    def with_result(self, round_number: int, white: int, black: int, result: str) -> Tournament:
        """The tournament with a game's result ("1-0", "0-1", "1/2-1/2", "1-0F", …) written for both players."""
        white_outcome, black_outcome = GAME_OUTCOMES[result]
        players = dict(self.players)
        for number, opponent, colour, outcome in (
            (white, black, Colour.WHITE, white_outcome),
            (black, white, Colour.BLACK, black_outcome),
        ):
            players[number] = _with_entry(players[number], round_number, Entry(opponent, colour, outcome))
        return replace(self, players=players, rounds=max(self.rounds, round_number))


def _with_entry(player: Player, round_number: int, entry: Entry) -> Player:
    rounds = list(player.rounds) + [None] * max(0, round_number - len(player.rounds))
    rounds[round_number - 1] = entry
    return replace(player, rounds=tuple(rounds))
