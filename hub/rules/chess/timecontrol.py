"""Time-control notation: `5400+30`, `300d5`, `300b5`, `40/6000+30:1800+30`, read and written back."""

from __future__ import annotations

import re

from hub.rules import clock as clk
from hub.rules.clockwords import seconds_text

_NUMBER = r"\d+(?:\.\d+)?"
_PERIOD = re.compile(rf"^(?:(\d+)/)?({_NUMBER})(?:([+db])({_NUMBER}))?$")
_CONTROL_HELP_EN = (
    "write seconds+increment such as 5400+30, a delay such as 300d5 or 300b5, or 40/6000+30:1800+30"
)
_CONTROL_HELP_TR = "saniye+artış (5400+30), gecikme (300d5, 300b5) ya da 40/6000+30:1800+30 biçiminde yazın"


def _control_error(text: str, en: str, tr: str) -> ValueError:
    return ValueError(
        f"time control {text!r}: {en}; {_CONTROL_HELP_EN} / süre kontrolü {text!r}: {tr}; {_CONTROL_HELP_TR}"
    )


def parse_time_control(text: str) -> clk.TimeControl:
    """`5400+30` (Fischer, increment also before move 1), `300d5` (simple delay), `300b5` (Bronstein),
    `40/6000+30:1800+30` (periods with move counts, joined by ':'); raises ValueError naming the fault."""
    if not isinstance(text, str) or not text.strip():
        raise _control_error(str(text), "it is empty", "boş")
    parts = text.strip().split(":")
    periods = []
    for i, part in enumerate(parts):
        m = _PERIOD.match(part.strip())
        if m is None:
            raise _control_error(text, f"period {part!r} cannot be read", f"{part!r} dönemi okunamadı")
        moves, base, mode, extra = m.group(1), float(m.group(2)), m.group(3), m.group(4)
        if base <= 0:
            raise _control_error(text, f"period {part!r} has no time", f"{part!r} döneminde süre yok")
        if moves is not None and int(moves) < 1:
            raise _control_error(
                text, f"period {part!r} needs at least one move", f"{part!r} en az bir hamle"
            )
        if moves is None and i < len(parts) - 1:
            raise _control_error(
                text,
                f"period {part!r} needs a move count (moves/seconds) before the next period",
                f"{part!r} döneminden sonra dönem geliyorsa hamle sayısı (hamle/saniye) gerekir",
            )
        if moves is not None and i == len(parts) - 1:
            raise _control_error(
                text,
                f"the last period {part!r} must last the rest of the game (no move count)",
                f"son dönem {part!r} oyunun sonuna kadar sürmeli (hamle sayısı olmadan)",
            )
        amount = float(extra) if extra is not None else 0.0
        periods.append(
            clk.Period(
                base,
                int(moves) if moves is not None else None,
                increment_s=amount if mode == "+" else 0.0,
                delay_s=amount if mode in ("d", "b") else 0.0,
                delay_mode={"d": clk.DelayMode.SIMPLE, "b": clk.DelayMode.BRONSTEIN}.get(
                    mode or "", clk.DelayMode.NONE
                ),
            )
        )
    return clk.TimeControl(tuple(periods))


def time_control_text(control: clk.TimeControl) -> str:
    """The text `parse_time_control` reads back into `control`."""
    out = []
    for p in control.periods:
        text = (f"{p.moves}/" if p.moves is not None else "") + seconds_text(p.time_s)
        if p.delay_mode is clk.DelayMode.SIMPLE:
            text += f"d{seconds_text(p.delay_s)}"
        elif p.delay_mode is clk.DelayMode.BRONSTEIN:
            text += f"b{seconds_text(p.delay_s)}"
        elif p.increment_s:
            text += f"+{seconds_text(p.increment_s)}"
        out.append(text)
    return ":".join(out)
