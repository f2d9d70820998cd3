"""A time control in words, as a referee says it (English and Turkish), for every sport with a clock."""

from __future__ import annotations

from hub.rules import clock as clk


def seconds_text(value: float) -> str:
    """A number of seconds as written in a time control: whole numbers without a point ("30", "2.5")."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _duration(seconds: float) -> tuple[str, str]:
    """A period's time in words: whole minutes as minutes, anything else as seconds (English, Turkish)."""
    if seconds >= 60 and float(seconds / 60).is_integer():
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}", f"{minutes} dakika"
    return f"{seconds_text(seconds)} second{'s' if seconds != 1 else ''}", f"{seconds_text(seconds)} saniye"


def _period_words(p: clk.Period) -> tuple[str, str]:
    time_en, time_tr = _duration(p.time_s)
    if p.moves is not None:
        time_en, time_tr = f"{p.moves} moves in {time_en}", f"{p.moves} hamle için {time_tr}"
    if p.delay_mode is not clk.DelayMode.NONE:
        delay_en, delay_tr = _duration(p.delay_s)
        kind_en, kind_tr = (
            ("simple delay", "basit gecikme")
            if p.delay_mode is clk.DelayMode.SIMPLE
            else ("Bronstein", "Bronstein")
        )
        return (
            f"{time_en} with a delay of {delay_en} a move ({kind_en})",
            f"{time_tr}, hamle başına {delay_tr} gecikme ({kind_tr})",
        )
    if p.increment_s:
        inc_en, inc_tr = _duration(p.increment_s)
        return f"{time_en} + {inc_en} a move (Fischer)", f"{time_tr} + hamle başına {inc_tr} (Fischer)"
    return time_en, time_tr


def time_control_words(control: clk.TimeControl) -> tuple[str, str]:
    """The control as a referee says it, in English and Turkish: "5 minutes + 3 seconds a move (Fischer)"."""
    words = [_period_words(p) for p in control.periods]
    return "; then ".join(en for en, _ in words), "; ardından ".join(tr for _, tr in words)
