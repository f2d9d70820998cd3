"""GNU Backgammon Position ID, Match ID and eXtreme Gammon XGID, encoded and decoded bit for bit.

Boards here are GNU Backgammon's `TanBoard`: a pair `(opponent, on_roll)` of 25 checker counts, each side
counted from its own 1-point, index 24 = bar. Players are numbered 0 (A, XGID's bottom player, moving
from its 24-point to its 1-point) and 1 (B, top). Formats are described in the GNU Backgammon manual
("A technical description of the Position ID / Match ID") and XG's `SetXGID` parser in gnubg `set.c`.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

Side = tuple[int, ...]
Board = tuple[Side, Side]

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_INDEX = {c: i for i, c in enumerate(_B64)}
# A side's 25 counts as a unary bit string (n ones then a zero); cached per count for speed.
_UNARY = [(1 << n) - 1 for n in range(16)]


class IdError(ValueError):
    """An ID string that is not a valid GNU Backgammon or XG identifier; the message names the problem."""


# --- Position ID -------------------------------------------------------------------------------------


def position_key(board: Board) -> int:
    """The 80-bit key as an integer (bit 0 = first bit of the stream)."""
    key = 0
    shift = 0
    unary = _UNARY
    for side in board:
        for n in side:
            if n:
                key |= unary[n] << shift
                shift += n + 1
            else:
                shift += 1
    return key


def position_id(board: Board) -> str:
    """GNU Backgammon Position ID (14 characters) of `(opponent, on_roll)`."""
    raw = position_key(board).to_bytes(10, "little")
    return base64.b64encode(raw).decode("ascii")[:14]


def board_from_position_id(pid: str) -> Board:
    """Decode a Position ID into `(opponent, on_roll)`; raises `IdError` when it is not one."""
    pid = pid.strip()
    if len(pid) != 14 or any(c not in _B64_INDEX for c in pid):
        raise IdError(f"not a Position ID (14 Base64 characters): {pid!r}")
    raw = base64.b64decode(pid + "==")
    key = int.from_bytes(raw, "little")
    sides: list[list[int]] = [[0] * 25, [0] * 25]
    side = 0
    index = 0
    bit = 0
    while side < 2 and bit < 80:
        if key >> bit & 1:
            sides[side][index] += 1
        else:
            index += 1
            if index == 25:
                side += 1
                index = 0
        bit += 1
    if side < 2:
        raise IdError(f"Position ID {pid!r} ends before both sides are described")
    for s in sides:
        if sum(s) > 15:
            raise IdError(f"Position ID {pid!r} has more than 15 checkers for one side")
    return tuple(sides[0]), tuple(sides[1])


# --- Match ID ----------------------------------------------------------------------------------------

GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROPPED = range(5)


@dataclass(frozen=True, slots=True)
class MatchKey:
    """The fields of a GNU Backgammon Match ID; players 0 and 1."""

    cube_value: int = 1
    cube_owner: int | None = None  # None = centred
    on_roll: int = 0  # fMove: the player on roll, or who rolled
    crawford: bool = False
    game_state: int = GAME_PLAYING
    turn: int = 0  # fTurn: who must act now (differs from on_roll while a double is offered)
    double_offered: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    length: int = 0
    score: tuple[int, int] = (0, 0)


_FIELDS = (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15)


def match_id(key: MatchKey) -> str:
    """GNU Backgammon Match ID (12 characters). The dice are stored higher first, as gnubg does."""
    if key.cube_value < 1 or key.cube_value & (key.cube_value - 1):
        raise IdError(f"cube value must be a power of two, got {key.cube_value}")
    d1, d2 = key.dice
    if d2 > d1:
        d1, d2 = d2, d1
    values = (
        key.cube_value.bit_length() - 1,
        3 if key.cube_owner is None else key.cube_owner,
        key.on_roll,
        int(key.crawford),
        key.game_state,
        key.turn,
        int(key.double_offered),
        key.resigned,
        d1,
        d2,
        key.length,
        key.score[0],
        key.score[1],
    )
    bits = 0
    shift = 0
    for width, value in zip(_FIELDS, values, strict=True):
        if not 0 <= value < 1 << width:
            raise IdError(f"Match ID field out of range: {value} in {width} bits")
        bits |= value << shift
        shift += width
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match_id(mid: str) -> MatchKey:
    """Decode a Match ID; raises `IdError` when it is not one. Bit 67 (gnubg's "not Jacoby") is ignored."""
    mid = mid.strip()
    if len(mid) != 12 or any(c not in _B64_INDEX for c in mid):
        raise IdError(f"not a Match ID (12 Base64 characters): {mid!r}")
    bits = int.from_bytes(base64.b64decode(mid), "little")
    values = []
    shift = 0
    for width in _FIELDS:
        values.append(bits >> shift & ((1 << width) - 1))
        shift += width
    cube_log, owner, on_roll, crawford, state, turn, doubled, resigned, d1, d2, length, s0, s1 = values
    if owner == 2 or state > GAME_DROPPED or d1 > 6 or d2 > 6:
        raise IdError(f"Match ID {mid!r} has an impossible field")
    return MatchKey(
        cube_value=1 << cube_log,
        cube_owner=None if owner == 3 else owner,
        on_roll=on_roll,
        crawford=bool(crawford),
        game_state=state,
        turn=turn,
        double_offered=bool(doubled),
        resigned=resigned,
        dice=(d1, d2),
        length=length,
        score=(s0, s1),
    )


def gnubg_id(board: Board, key: MatchKey) -> str:
    """`posid:matchid`, the GNUbgID."""
    return f"{position_id(board)}:{match_id(key)}"


# --- XGID --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Xgid:
    """An XGID's content. `points[0]` is point 1 from the bottom player's (A's) view; A positive, B negative."""

    points: tuple[int, ...]
    bar: tuple[int, int] = (0, 0)  # (A/bottom, B/top)
    cube_value: int = 1
    cube_owner: int | None = None  # 0 = A/bottom, 1 = B/top, None = centred
    turn: int = 0  # 0 = A/bottom, 1 = B/top
    dice: tuple[int, int] = (0, 0)  # (0, 0) = not rolled
    double_offered: bool = False
    score: tuple[int, int] = (0, 0)  # (A/bottom, B/top)
    crawford: bool = False  # match play: this is the Crawford game
    length: int = 0
    max_cube_log2: int = 10

    @property
    def off(self) -> tuple[int, int]:
        """Checkers borne off, derived from 15 a side."""
        a = sum(n for n in self.points if n > 0) + self.bar[0]
        b = -sum(n for n in self.points if n < 0) + self.bar[1]
        return 15 - a, 15 - b


def _xg_char(n: int) -> str:
    if n == 0:
        return "-"
    if n > 0:
        return chr(ord("A") + n - 1)
    return chr(ord("a") - n - 1)


def encode_xgid(x: Xgid) -> str:
    """`XGID=…` text for the state."""
    if len(x.points) != 24:
        raise IdError("an XGID needs 24 points")
    board = _xg_char(-x.bar[1]) + "".join(_xg_char(n) for n in x.points) + _xg_char(x.bar[0])
    cube_pos = 0 if x.cube_owner is None else (1 if x.cube_owner == 0 else -1)
    turn = 1 if x.turn == 0 else -1
    if x.double_offered:
        dice = "D"
    elif x.dice == (0, 0):
        dice = "00"
    else:
        dice = f"{x.dice[0]}{x.dice[1]}"
    rules = int(x.crawford)
    return (
        f"XGID={board}:{x.cube_value.bit_length() - 1}:{cube_pos}:{turn}:{dice}:"
        f"{x.score[0]}:{x.score[1]}:{rules}:{x.length}:{x.max_cube_log2}"
    )


def decode_xgid(text: str) -> Xgid:
    """Parse `XGID=…` (the prefix is optional); raises `IdError` naming the field that is wrong."""
    body = text.strip()
    if body.startswith("XGID="):
        body = body[5:]
    fields = body.split(":")
    if len(fields) not in (9, 10):
        raise IdError(f"an XGID has 9 or 10 colon-separated fields, got {len(fields)}: {text!r}")
    pos = fields[0]
    if len(pos) != 26:
        raise IdError(f"XGID position must be 26 characters, got {len(pos)}")

    def count(c: str) -> int:
        if c == "-":
            return 0
        if "A" <= c <= "P":
            return ord(c) - ord("A") + 1
        if "a" <= c <= "p":
            return -(ord(c) - ord("a") + 1)
        raise IdError(f"XGID position character {c!r} is not '-', A-P or a-p")

    counts = [count(c) for c in pos]
    try:
        cube_log, cube_pos, turn = int(fields[1]), int(fields[2]), int(fields[3])
        score = (int(fields[5]), int(fields[6]))
        rules, length = int(fields[7]), int(fields[8])
        max_cube = int(fields[9]) if len(fields) == 10 else 10
    except ValueError as exc:
        raise IdError(f"XGID field is not a number: {exc}") from None
    dice_text = fields[4]
    double_offered = dice_text == "D"
    if double_offered or dice_text == "00":
        dice = (0, 0)
    elif len(dice_text) == 2 and all(c in "123456" for c in dice_text):
        dice = (int(dice_text[0]), int(dice_text[1]))
    else:
        raise IdError(f"XGID dice must be '00', 'D' or two digits 1-6, got {dice_text!r}")
    if cube_pos not in (-1, 0, 1) or turn not in (-1, 1):
        raise IdError("XGID cube position must be -1, 0 or 1 and turn 1 or -1")
    return Xgid(
        points=tuple(counts[1:25]),
        bar=(max(counts[25], 0), max(-counts[0], 0)),
        cube_value=1 << cube_log,
        cube_owner=None if cube_pos == 0 else (0 if cube_pos == 1 else 1),
        turn=0 if turn == 1 else 1,
        dice=dice,
        double_offered=double_offered,
        score=score,
        crawford=bool(rules & 1) if length else False,
        length=length,
        max_cube_log2=max_cube,
    )


def xgid_board(x: Xgid) -> Board:
    """The XGID's checkers as a `TanBoard` `(opponent, on_roll)` for the side whose turn it is."""
    a = (*(n if n > 0 else 0 for n in x.points), x.bar[0])
    b = (*(-x.points[23 - i] if x.points[23 - i] < 0 else 0 for i in range(24)), x.bar[1])
    return (b, a) if x.turn == 0 else (a, b)


def xgid_to_gnubg_id(x: Xgid, resign: tuple[int, int] | None = None) -> str:
    """The GNUbgID GNU Backgammon shows after `set xgid`: its player 1 is the side on roll, player 0 the
    other; with a double offered the doubler keeps the Position ID and the turn passes to the opponent.
    `resign` (side, value), a resignation offered (which an XGID cannot say): the turn passes to the side
    that answers and the Match ID holds the value, as gnubg shows it while the offer stands."""

    def num(side: int) -> int:
        return 1 if side == x.turn else 0

    key = MatchKey(
        cube_value=x.cube_value,
        cube_owner=None if x.cube_owner is None else num(x.cube_owner),
        on_roll=1,
        crawford=x.crawford,
        game_state=GAME_PLAYING,
        turn=num(1 - resign[0]) if resign else 0 if x.double_offered else 1,
        double_offered=x.double_offered,
        resigned=resign[1] if resign else 0,
        dice=x.dice,
        length=x.length,
        score=(x.score[1 - x.turn], x.score[x.turn]),
    )
    return gnubg_id(xgid_board(x), key)
