"""A report file's time control (its `122` line) in the hub's notation (`SportRules.read_match` of the sport with
paired rounds reads it).

Pairing programs write the line for people, not for programs: `90'/40+30'+30''`, `90 min + 30 sec`, `5+3`,
or the hub's own `5400+30`. What is read:

- minutes and seconds marked (`'` `min` `dk` for minutes, `''` `"` `s` `sec` `sn` for seconds, `h` for hours):
  periods joined by `+`, each with an optional move count (`90'/40` or `40/90'`), and an increment in seconds
  as the last term (`+30''`, `+30 sec/move`), which applies from move 1 in every period, as FIDE's
  "90 minutes for 40 moves, then 30 minutes, with 30 seconds a move from move 1" is played;
- no marks at all: `A+B` is minutes and seconds when A is under 180 (`5+3`, `90+30`), else the hub's seconds
  (`5400+30`, `40/6000+30:1800+30`, delays `300d5`).

Anything else cannot be read: the caller says so and asks for `--time-control`.
"""

from __future__ import annotations

import re

from hub.tournament.plan import check_time_control

_MINUTES_UNTIL = 180  # a bare base under this is minutes ("90+30"), from it seconds ("5400+30")
_UNITS = {
    "h": 3600,
    "hr": 3600,
    "'": 60,
    "’": 60,
    "′": 60,
    "m": 60,
    "min": 60,
    "mins": 60,
    "dk": 60,
    "dak": 60,
    "''": 1,
    "’’": 1,
    "″": 1,
    '"': 1,
    "s": 1,
    "sec": 1,
    "secs": 1,
    "sn": 1,
    "san": 1,
}
_UNIT = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_TERM = re.compile(
    rf"^(?:(?P<before>\d+)\s*/\s*)?(?P<amount>\d+(?:[.,]\d+)?)\s*(?P<unit>{_UNIT})?\.?"
    rf"(?:\s*/\s*(?:(?P<after>\d+)(?:\s*(?:moves?|hamle))?|(?P<per>moves?|hamle|mv)\.?))?$",
    re.IGNORECASE,
)


def read_time_control(text: str) -> str | None:
    """The `122` line as the hub's time-control text ("40/5400+30:1800+30"), or None when it cannot be read."""
    line = " ".join(text.split())
    if not line:
        return None
    if not re.search(rf"(?:{_UNIT})(?![a-z])", line, re.IGNORECASE):
        return _bare(line)
    return _marked(line)


def _bare(line: str) -> str | None:
    """No units: minutes+seconds under 180 minutes' base, else already the hub's seconds."""
    short = re.fullmatch(r"(\d+)\s*\+\s*(\d+)", line)
    if short and int(short[1]) < _MINUTES_UNTIL:
        return _checked(f"{int(short[1]) * 60}+{int(short[2])}")
    lone = re.fullmatch(r"\d+", line)
    if lone and int(line) < _MINUTES_UNTIL:
        return _checked(str(int(line) * 60))
    return _checked(line.replace(" ", ""))


def _marked(line: str) -> str | None:
    """Periods with units joined by '+', the last term in seconds being the increment."""
    terms = [t.strip() for t in line.split("+")]
    read = [_TERM.match(t) for t in terms]
    if not terms or any(m is None for m in read):
        return None
    periods: list[tuple[int | None, float]] = []
    increment = 0.0
    for index, m in enumerate(read):
        assert m is not None
        unit = _UNITS[(m["unit"] or "").lower()] if m["unit"] else None
        seconds = float(m["amount"].replace(",", ".")) * (unit or 60)
        per_move = m["per"] is not None
        last = index == len(read) - 1
        if last and index > 0 and (unit == 1 or per_move):
            increment = seconds
            continue
        if per_move:
            return None  # "30 sec/move" as the only term: no time to play with
        moves = m["before"] or m["after"]
        periods.append((int(moves) if moves else None, seconds))
    if not periods:
        return None
    tail = f"+{_num(increment)}" if increment else ""
    text = ":".join(f"{f'{moves}/' if moves else ''}{_num(seconds)}{tail}" for moves, seconds in periods)
    return _checked(text)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _checked(text: str) -> str | None:
    """The text when the rules read it (a move count on every period but the last), else None."""
    return text if check_time_control(text) is None else None
