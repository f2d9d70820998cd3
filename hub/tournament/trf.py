"""The FIDE Tournament Report File (TRF-16, with TRF-2025's team records): read strictly, written back.

Reading checks every field it uses at its columns and names the line and column of the first that is
wrong. The records read are the header (012 name, 142/XXR rounds, and the other 0x2 lines kept as text),
players (001), and teams, either TRF-16's 013 (name, then the players' starting ranks) or TRF-2025's 310
(number, name, strength, match points, game points, rank, players). Any other record is kept as it is.
The bytes are UTF-8 (a byte-order mark is skipped) or else Windows-1254, the Turkish Windows code page
pairing programs' non-Unicode exports use; lines end in LF, CRLF or CR. A paired round whose line ends
right after the colour (its blank result trimmed away, as editors do) is a game without a result yet.

Writing (`write_round`) changes only what a round's results change: the result columns of that round and the
players' (and 310 teams') totals; every other byte of the file is the one read, in the encoding, byte-order
mark and line breaks it was read with.
"""

from __future__ import annotations

import codecs
import re
from fractions import Fraction
from pathlib import Path

from hub.tournament.model import (
    Colour,
    Entry,
    FileForm,
    LineEnding,
    Outcome,
    Player,
    Team,
    TextEncoding,
    Tournament,
)
from hub.tournament.results import team_totals

_CODE = re.compile(r"^(?:[0-9]{3}|[A-Z]{3}|###)(?: |$)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ROUND_START = 91  # 0-based column of round 1's opponent field on a 001 line; each round takes 10
_OUTCOMES = {o.value: o for o in Outcome}


class TrfError(ValueError):
    """A report file that cannot be read; str() names the file, and the line and column when there is one."""

    def __init__(self, source: str, line: int, column: int, message: str) -> None:
        self.source, self.line, self.column = source, line, column
        where = f"{source}:{line}:{column}" if line else source  # a file not read at all has no place in it
        super().__init__(f"{where}: {message}")


def load_trf(path: Path | str) -> Tournament:
    """Read a report file; raise TrfError naming the line and column of the first wrong field."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TrfError(str(path), 0, 0, f"cannot be read ({exc.strerror}) / dosya okunamadı") from None
    text, encoding = decode_trf(data, str(path))
    return parse_trf(text, str(path), encoding)


def decode_trf(data: bytes, source: str = "<trf>") -> tuple[str, TextEncoding]:
    """A report file's text and encoding: UTF-8 (a byte-order mark stays, as U+FEFF), else Windows-1254."""
    try:
        return data.decode(TextEncoding.UTF8.value), TextEncoding.UTF8
    except UnicodeDecodeError as exc:
        if data.startswith(codecs.BOM_UTF8):  # the file says it is UTF-8: no guessing
            raise _byte_error(
                data, exc.start, source, "UTF-8 (the file starts with its byte-order mark)"
            ) from None
    try:
        return data.decode(TextEncoding.WINDOWS_1254.value), TextEncoding.WINDOWS_1254
    except UnicodeDecodeError as exc:  # the few bytes Windows-1254 leaves undefined
        raise _byte_error(data, exc.start, source, "UTF-8 or Windows-1254 (Turkish) text") from None


def _byte_error(data: bytes, at: int, source: str, what: str) -> TrfError:
    line_start = max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at)) + 1
    line = len(_LINE_BREAK.findall(data[:line_start].decode("latin-1"))) + 1
    return TrfError(
        source,
        line,
        at - line_start + 1,
        f"byte 0x{data[at]:02X} is not {what} / dosya UTF-8 ya da Windows-1254 (Türkçe) metin değil",
    )


def parse_trf(text: str, source: str = "<trf>", encoding: TextEncoding = TextEncoding.UTF8) -> Tournament:
    """Read a report file's text (see `load_trf`); `encoding` is the one its bytes had, for writing back."""
    marked = text.startswith("\ufeff")
    text = text[1:] if marked else text
    found = _LINE_BREAK.search(text)
    form = FileForm(
        encoding,
        marked and encoding is TextEncoding.UTF8,  # only UTF-8 has the mark
        LineEnding(found.group()) if found else LineEnding.LF,
        text == "" or text[-1] in "\r\n",
    )
    split = _LINE_BREAK.split(text)
    lines = tuple(split[:-1] if split[-1] == "" else split)
    players: dict[int, Player] = {}
    team_lines: list[tuple[int, str]] = []
    header: dict[str, str] = {}
    declared = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if not _CODE.match(line):
            raise TrfError(
                source,
                number,
                1,
                f"a record starts with a three-character code and a space, such as '001 ', not "
                f"{line[:4]!r} / kayıt üç karakterlik bir kodla başlamalı",
            )
        code = line[:3]
        if code == "001":
            player = _player(line, number, source)
            if player.number in players:
                raise TrfError(
                    source,
                    number,
                    5,
                    f"starting rank {player.number} is also on line {players[player.number].line} "
                    f"/ başlangıç sıra numarası iki kez kullanılmış",
                )
            players[player.number] = player
        elif code in ("013", "310"):
            team_lines.append((number, line))
        else:
            header.setdefault(code, line[4:].rstrip())
            if code in ("XXR", "142"):
                declared = _int(line, number, 4, len(line), "the number of rounds", source)
    teams = tuple(_team(line, number, index, source) for index, (number, line) in enumerate(team_lines))
    if not players:  # an empty or cut file: nothing to pair, nothing to stand on
        raise TrfError(
            source, len(lines) + 1 if lines else 1, 1, "no player records (001) / oyuncu kaydı (001) yok"
        )
    _check_references(players, teams, source)
    most = max((len(p.rounds) for p in players.values()), default=0)
    return Tournament(
        header.get("012", ""),
        players,
        teams,
        max(declared, most),
        header,
        lines,
        form,
    )


def _player(line: str, number: int, source: str) -> Player:
    """A 001 record: starting rank, sex, title, name, rating, federation, FIDE id, birth, points, rank, rounds."""
    if len(line.rstrip()) < 84:  # a record cut before its points (columns 81-84) is not one to guess at
        raise TrfError(
            source,
            number,
            len(line.rstrip()) + 1,
            "the player record ends before its points (columns 81-84) / oyuncu kaydı puan sütunlarından "
            "(81-84) önce bitiyor",
        )
    if len(line) < 89:
        line = line.ljust(89)
    start = _int(line, number, 4, 8, "the starting rank", source)
    name = line[14:47].strip()
    if not name:
        raise TrfError(source, number, 15, "the player's name (columns 15-47) is empty / oyuncu adı boş")
    rating = _int(line, number, 48, 52, "the rating", source, blank=0)
    points_text = line[80:84].strip()
    points = _points(points_text, line, number, 80, source) if points_text else None
    rank_text = line[85:89].strip()
    rank = _int(line, number, 85, 89, "the rank", source) if rank_text else None
    for column in (89, 90):  # the two blanks between the rank and round 1
        _blank(line, number, column, source, "two blanks separate the rank from round 1 (columns 90-91)")
    rounds: list[Entry | None] = []
    column = _ROUND_START
    while column < len(line.rstrip()):
        rounds.append(_entry(line, number, column, source))
        column += 10
    while rounds and rounds[-1] is None:
        rounds.pop()
    return Player(
        start,
        name,
        rating,
        tuple(rounds),
        sex=line[9].strip(),
        title=line[10:13].strip(),
        federation=line[53:56].strip(),
        fide_id=line[57:68].strip(),
        birth=line[69:79].strip(),
        stated_points=points,
        stated_rank=rank,
        line=number,
    )


def _entry(line: str, number: int, column: int, source: str) -> Entry | None:
    """One round's 8 columns: opponent (4), colour, result; all blank: nothing recorded."""
    round_number = (column - _ROUND_START) // 10 + 1
    end = len(line.rstrip())
    if column < end < column + 6:  # ended inside the opponent, or before the colour: a number may be cut
        raise TrfError(
            source,
            number,
            end + 1,
            f"round {round_number} is cut short: the line ends inside its 8 columns (opponent, colour, "
            f"result) / {round_number}. tur eksik: satır turun 8 sütunu içinde bitiyor",
        )
    for offset, why in (
        (4, f"round {round_number}'s opponent and colour are separated by a blank"),
        (6, f"round {round_number}'s colour and result are separated by a blank"),
        (8, "two blanks separate one round from the next"),
        (9, "two blanks separate one round from the next"),
    ):
        _blank(line, number, column + offset, source, why)
    field = line[column : column + 8].ljust(8)
    if not field.strip():
        return None
    opponent_text = field[:4].strip()
    if opponent_text and not opponent_text.isdigit():
        raise TrfError(
            source, number, column + 1, f"opponent {opponent_text!r} is not a number / rakip numarası değil"
        )
    opponent = int(opponent_text) if opponent_text else 0
    colour_char = field[5]
    if colour_char not in ("w", "b", "-", " "):
        raise TrfError(
            source, number, column + 6, f"colour {colour_char!r} must be w, b or - / renk w, b ya da - olmalı"
        )
    result_char = field[7]
    outcome = _OUTCOMES.get(result_char)
    if outcome is None:
        raise TrfError(
            source,
            number,
            column + 8,
            f"result {result_char!r} is not one of 1 = 0 + - W D L H F U Z / geçersiz sonuç kodu",
        )
    if opponent == 0 and not (
        outcome.is_bye or outcome is Outcome.FORFEIT_LOSS or outcome is Outcome.FORFEIT_WIN
    ):
        raise TrfError(
            source,
            number,
            column + 8,
            f"result {result_char!r} needs an opponent; a round without one is a bye (H F U Z) or a "
            f"forfeit (+ -) / rakipsiz tur bay ya da hükmen olmalı",
        )
    if opponent and outcome.is_bye:
        raise TrfError(
            source, number, column + 8, f"a bye ({result_char}) has no opponent / bay turunda rakip olmaz"
        )
    colour = Colour(colour_char) if colour_char != " " else Colour.NONE
    return Entry(opponent or None, colour, outcome)


def _blank(line: str, number: int, column: int, source: str, why: str) -> None:
    """Refuse a character in a column that must be blank (0-based `column`)."""
    if line[column : column + 1].strip():
        raise TrfError(
            source,
            number,
            column + 1,
            f"column {column + 1} must be blank, found {line[column]!r}: {why} "
            f"/ {column + 1}. sütun boş olmalı",
        )


def _team(line: str, number: int, index: int, source: str) -> Team:
    """A 013 (TRF-16) or 310 (TRF-2025) team record."""
    if line.startswith("013"):
        name = line[4:36].strip()
        first, team_number = 36, index + 1
        match_points = game_points = None
        rank = None
    else:
        team_number = _int(line, number, 4, 7, "the team number", source)
        name = line[8:40].strip()
        line = line.ljust(71)
        match_points = _points(line[54:60].strip(), line, number, 54, source) if line[54:60].strip() else None
        game_points = _points(line[61:67].strip(), line, number, 61, source) if line[61:67].strip() else None
        rank = _int(line, number, 68, 71, "the team's rank", source) if line[68:71].strip() else None
        first = 73
    if not name:
        raise TrfError(
            source, number, 5 if line.startswith("013") else 9, "the team's name is empty / takım adı boş"
        )
    players = []
    column = first
    while column < len(line.rstrip()):
        players.append(_int(line, number, column, column + 4, "a player's starting rank", source))
        column += 5
    return Team(team_number, name, tuple(players), match_points, game_points, rank, number)


def _check_references(players: dict[int, Player], teams: tuple[Team, ...], source: str) -> None:
    """Every opponent and team member must be a player of the file, and games must agree on both sides."""
    for player in players.values():
        for round_number, entry in enumerate(player.rounds, start=1):
            if entry is not None and entry.opponent is not None:
                _check_game(players, player, round_number, entry, source)
    seen: dict[int, Team] = {}
    for team in teams:
        for board, number in enumerate(team.players, start=1):
            if number not in players:
                raise TrfError(
                    source,
                    team.line,
                    1,
                    f"team {team.name!r} board {board}: player {number} is not in the file / oyuncu dosyada yok",
                )
            if number in seen:
                raise TrfError(
                    source,
                    team.line,
                    1,
                    f"player {number} is in two teams ({seen[number].name!r} and {team.name!r}) "
                    f"/ oyuncu iki takımda",
                )
            seen[number] = team


def _check_game(
    players: dict[int, Player], player: Player, round_number: int, entry: Entry, source: str
) -> None:
    """A game of `player`: a real opponent, who names `player` back, with a result that matches."""
    column = _ROUND_START + 10 * (round_number - 1) + 1
    if entry.opponent == player.number:
        raise TrfError(
            source,
            player.line,
            column,
            f"round {round_number}: player {player.number} is paired with themselves "
            f"/ oyuncu kendisiyle eşleştirilmiş",
        )
    other = players.get(entry.opponent or 0)
    if other is None:
        raise TrfError(
            source,
            player.line,
            column,
            f"round {round_number}: opponent {entry.opponent} is not a player of the file / rakip dosyada yok",
        )
    back = other.entry(round_number)
    if back is None or back.opponent != player.number:
        raise TrfError(
            source,
            player.line,
            column,
            f"round {round_number}: player {player.number} meets {entry.opponent}, but "
            f"{entry.opponent}'s line (line {other.line}) does not say so / eşleşme iki satırda farklı",
        )
    if not _results_agree(entry.outcome, back.outcome):
        first, second = sorted(((player, entry), (other, back)), key=lambda side: side[0].line)
        raise TrfError(
            source,
            second[0].line,
            column + 7,
            f"round {round_number}: player {first[0].number} (line {first[0].line}) has "
            f"{first[1].outcome.value!r} against {second[0].number}, who has {second[1].outcome.value!r} "
            f"/ iki oyuncunun sonucu uyuşmuyor",
        )


def _results_agree(one: Outcome, other: Outcome) -> bool:
    """The two sides of one game: both blank, a played result and its mirror (1-0, =-=, W-L, D-D…), or
    forfeits where at most one side wins (+-, -+, --)."""
    if Outcome.NOT_PLAYED in (one, other):
        return one is other
    if one.played != other.played:
        return False
    total = one.points + other.points
    return total == 1 if one.played else total <= 1


def _int(
    line: str, number: int, start: int, end: int, what: str, source: str, *, blank: int | None = None
) -> int:
    text = line[start:end].strip()
    if not text and blank is not None:
        return blank
    if not text.isdigit():
        raise TrfError(
            source,
            number,
            start + 1,
            f"{what} (columns {start + 1}-{end}) must be a whole number, found {text!r} / tam sayı olmalı",
        )
    return int(text)


def _points(text: str, line: str, number: int, start: int, source: str) -> Fraction:
    if not re.fullmatch(r"\d{1,3}(\.\d)?", text):
        raise TrfError(
            source, number, start + 1, f"points {text!r} must be written like 4.5 / puan 4.5 gibi yazılmalı"
        )
    value = Fraction(text)
    if value.denominator not in (1, 2):
        raise TrfError(
            source, number, start + 1, f"points {text!r} must be whole or half / tam ya da yarım olmalı"
        )
    return value


# -- writing --------------------------------------------------------------------------------------------------


def write_round(tournament: Tournament, round_number: int) -> bytes:
    """The file read, with `round_number`'s result columns and the totals as `tournament` now has them, in
    the encoding, byte-order mark and line breaks it was read with."""
    out: list[str] = []
    for line in tournament.lines:
        code = line[:3]
        written = line
        if code == "001" and line[4:8].strip().isdigit() and int(line[4:8]) in tournament.players:
            written = _player_line(line, tournament.players[int(line[4:8])], round_number)
        elif code == "310":
            team = next(
                (t for t in tournament.teams if t.line and line == tournament.lines[t.line - 1]), None
            )
            written = _team_line(line, tournament, team) if team is not None else line
        # a line that changed only in trailing blanks did not change: it keeps its own
        out.append(line if written.rstrip() == line.rstrip() else written)
    return encode_trf(out, tournament.form)


def encode_trf(lines: list[str] | tuple[str, ...], form: FileForm) -> bytes:
    """Lines of a report file as the bytes of a file stored as `form` says."""
    newline = form.newline.value
    text = newline.join(lines) + (newline if form.final_newline and lines else "")
    if form.bom:
        text = "\ufeff" + text
    return text.encode(form.encoding.value)


def _player_line(line: str, player: Player, round_number: int) -> str:
    column = _ROUND_START + 10 * (round_number - 1)
    entry = player.entry(round_number)
    width = max(len(line), column + 8)
    chars = list(line.ljust(width))
    read = _entry(line.ljust(width), 0, column, "")
    if entry != read:  # an unchanged round keeps its own spelling
        chars[column : column + 8] = list(_entry_text(entry))
    # the stated total moves by what this round changed: the pairing program's way of scoring other rounds
    # (byes, say) stays its own
    stated = player.stated_points
    change = (entry.points if entry else Fraction(0)) - (read.points if read else Fraction(0))
    total = player.points() if stated is None else stated + change
    if total != stated:
        chars[80:84] = list(f"{_points_text(total):>4}")
    # up to the last round's result column: a game paired and not yet played keeps its blank result, which
    # readers that take each round as 10 columns need
    last = _ROUND_START + 10 * len(player.rounds) - 2 if player.rounds else 0
    return "".join(chars).rstrip().ljust(last)


def _entry_text(entry: Entry | None) -> str:
    if entry is None:
        return " " * 8
    opponent = "0000" if entry.opponent is None else f"{entry.opponent:>4}"
    return f"{opponent} {entry.colour.value} {entry.outcome.value}"


def _team_line(line: str, tournament: Tournament, team: Team) -> str:
    match_points, game_points = team_totals(tournament, team)
    chars = list(line.ljust(71))
    chars[54:60] = list(f"{_points_text(match_points, 1):>6}")
    chars[61:67] = list(f"{_points_text(game_points, 1):>6}")
    return "".join(chars)


def _points_text(value: Fraction, decimals: int = 1) -> str:
    return f"{float(value):.{decimals}f}"
