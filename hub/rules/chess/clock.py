"""The clock: readings and presses bound to colours, the time control judged (start time, increments,
delays, periods, time going up) and flag fall, from readings or estimated between them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import chess

from devices.observations import ChessClockState, DeviceEvent
from hub.rules import clock as clk
from hub.rules.base import Severity
from hub.rules.chess.model import (
    COLOUR_NAMES,
    EARLY_PRESSES,
    LEARN_FRESH_S,
    SIDE_NAMES,
    SIDE_TR,
    ChessState,
    ClockReading,
    Out,
    _who,
    colour_name,
    colour_of,
    hms,
    moves_by,
    owner,
)
from hub.rules.chess.moves import _complete, pressed_before_join, settle
from hub.rules.chess.timecontrol import time_control_text
from hub.rules.clockwords import seconds_text

RAN_ON_SLACK_MS = 500  # the link's delay on top of two display steps, when times are summed over a gap


def reading_of(report: ChessClockState, at: float) -> ClockReading | None:
    """The report as a reading, or None when its fields are not two times and two pairs of flags."""
    try:
        return ClockReading(
            (int(report.remaining_ms[0]), int(report.remaining_ms[1])),
            report.running,
            at,
            (bool(report.flags[0]), bool(report.flags[1])),
            (bool(report.period_flags[0]), bool(report.period_flags[1])),
            int(report.resolution_ms),
        )
    except (TypeError, ValueError, IndexError):
        return None


def on_event(state: ChessState, event: DeviceEvent, at: float, out: Out) -> ChessState:
    """A clock's press event `{"side": 0|1, "remaining_ms": [a, b]}`; other events change nothing."""
    if event.kind != "press":
        return settle(state, at, out)
    side = event.data.get("side")
    remaining = event.data.get("remaining_ms")
    if side not in (0, 1) or isinstance(side, bool):
        out.anomaly(
            "chess.bad_event",
            Severity.WARNING,
            f"A clock press event names no side (0 or 1): {event.data!r}; it was kept and skipped.",
            f"Saat basma olayında taraf (0 ya da 1) yok: {event.data!r}; saklandı ve atlandı.",
            data=dict(event.data),
        )
        return settle(state, at, out)
    prev = state.clock
    if (
        isinstance(remaining, list | tuple)
        and len(remaining) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in remaining)
    ):
        times = (remaining[0], remaining[1])
    elif prev is not None:
        times = prev.remaining_ms
    else:
        return settle(state, at, out)  # a press with no time at all: nothing to judge yet
    reading = ClockReading(
        times,
        1 - side,
        at,
        prev.flags if prev else (False, False),
        prev.period_flags if prev else (False, False),
        prev.resolution_ms if prev else 1000,
    )
    return on_clock(state, reading, at, out, press_side=side)


def on_clock(
    state: ChessState, reading: ClockReading, at: float, out: Out, *, press_side: int | None = None
) -> ChessState:
    if state.result is not None:
        # The game is over: its clock times are the final ones. What the clock shows afterwards (reset for
        # the next game, left running) is in the log as the device reported it, never applied to the game.
        return settle(state, at, out)
    state = settle(state, at, out)
    if reading.running not in (None, 0, 1) or min(reading.remaining_ms) < 0 or reading.resolution_ms <= 0:
        out.anomaly(
            "chess.bad_event",
            Severity.WARNING,
            f"A clock reading cannot be right (running {reading.running!r}, times {list(reading.remaining_ms)}, "
            f"resolution {reading.resolution_ms} ms); it was kept and skipped.",
            f"Bir saat okuması doğru olamaz (çalışan {reading.running!r}, süreler {list(reading.remaining_ms)}, "
            f"çözünürlük {reading.resolution_ms} ms); saklandı ve atlandı.",
            running=reading.running,
            remaining_ms=list(reading.remaining_ms),
            resolution_ms=reading.resolution_ms,
        )
        return state
    prev = state.clock
    joined = state.clock_joined
    if joined:
        state = replace(state, clock_joined=False)
    if prev is not None and press_side is None and _same_reading(prev, reading):
        return replace(state, clock=replace(prev, at=at))  # nothing new (a press event was already folded)
    if joined and (prev is not None or reading.running is not None):
        return _caught_up(state, reading, at, out)
    pressed = press_side
    if pressed is None and reading.running is not None and state.last_running not in (None, reading.running):
        pressed = state.last_running
    over = state.result is not None
    if not state.clock_checked and not state.moves and state.control is not None:
        state = _check_start(state, reading, out)
    if state.first_clock_ms is None and not state.moves:
        state = replace(state, first_clock_ms=reading.remaining_ms)
    started = reading.running is not None and state.last_running is None and pressed is None
    if started and state.white_side is None and not over:
        assert reading.running is not None  # `started` says so
        turn = state.game.board.turn
        white = reading.running if turn == chess.WHITE else 1 - reading.running
        state = replace(state, white_side=white, sides_source="start")
        out.fact("clock_sides", white_side=SIDE_NAMES[white], source="start")
    explained = [False, False]
    if pressed is not None:
        explained[pressed] = True
    unseen = None if prev is None or press_side is not None or over else _ran_on(state, prev, reading, at)
    if unseen is not None:
        assert prev is not None  # `_ran_on` compares two readings
        explained = [True, True]  # every time the clock gained came from presses the hub did not see
        out.fact("clock_ran_on", presses=unseen, since=prev.at, remaining_ms=list(reading.remaining_ms))
    state, explained = _periods(state, prev, reading, at, out, explained)
    if prev is not None and not over:
        _time_increases(state, prev, reading, explained, out)
    new_state = _with_reading(state, reading, at, turn_begins=started or pressed is not None)
    if pressed is not None and not over:
        # presses missed while the hub was away: the board is read, but no single press can be judged
        new_state = _press(new_state, pressed, None if unseen else prev, reading, at, out)
    return _flags(new_state, prev, reading, at, out)


def _with_reading(
    state: ChessState, reading: ClockReading, at: float, *, turn_begins: bool, **more: Any
) -> ChessState:
    """The state with `reading` as its clock; when `turn_begins`, the running side's turn starts at it."""
    running = reading.running if reading.running is not None else state.last_running
    turn_start = list(state.turn_start_ms)
    if turn_begins and reading.running is not None:
        turn_start[reading.running] = reading.remaining_ms[reading.running]
    return replace(
        state,
        clock=reading,
        last_running=running,
        turn_start_ms=(turn_start[0], turn_start[1]),
        clock_changed_at=at,
        **more,
    )


def _caught_up(state: ChessState, reading: ClockReading, at: float, out: Out) -> ChessState:
    """The first reading after the hub joined the clock of a game under way (or one the hub has read
    before): where the clock stands. Presses, increments and time added between the hub's last reading and
    this one are not judged (it did not see them); a flag shown is still a flag, and what follows is judged
    from this reading."""
    prev = state.clock
    shown = f"{hms(reading.remaining_ms[0])} – {hms(reading.remaining_ms[1])}"
    out.fact(
        "joined",
        message_en=f"Joined the clock at {shown} (left – right).",
        message_tr=f"Saate {shown} (sol – sağ) durumunda katılındı.",
        remaining_ms=list(reading.remaining_ms),
        running=reading.running,
        since=None if prev is None else prev.at,
    )
    # a clock joined under way is past its start: its setting is not checked
    new_state = _with_reading(state, reading, at, turn_begins=True, clock_checked=True)
    if new_state.moves and new_state.result is None:  # the last ply's press may be one the hub did not see
        new_state = pressed_before_join(new_state, out)
    return _flags(new_state, prev, reading, at, out)


def _ran_on(state: ChessState, prev: ClockReading, reading: ClockReading, at: float) -> int | None:
    """How many presses (two or more) the hub missed between two readings of a Fischer clock that ran on
    meanwhile (a hub restart, a lost link: a clock keeps running), or None when the readings do not say so.

    Both times together fall by the time that passed and rise by one increment a press: the one count of
    presses that fits (with the parity of the side now running) explains any time either side gained."""
    control = state.control
    if control is None or prev.running is None or reading.running is None:
        return None  # a stopped clock does not run on: time it gained was set by hand
    res = max(prev.resolution_ms, reading.resolution_ms)
    turned = reading.running != prev.running
    if not turned and all(reading.remaining_ms[s] <= prev.remaining_ms[s] + res for s in (0, 1)):
        return None  # nothing gained and no side change: the reading needs no explaining
    period = clk.period_for(control, state.periods_added[prev.running])
    other = clk.period_for(control, state.periods_added[1 - prev.running])
    increment_ms = round(period.increment_s * 1000)
    same = (other.increment_s, other.delay_mode) == (period.increment_s, period.delay_mode)
    slack = 2 * res + RAN_ON_SLACK_MS  # two displays' rounding and the link's delay
    if period.delay_mode is not clk.DelayMode.NONE or increment_ms <= slack or not same:
        return None  # no Fischer increment (a clock that ran on never gains), or one too small to count
    gained = sum(reading.remaining_ms) - sum(prev.remaining_ms) + (at - prev.at) * 1000
    # the count of presses has the parity of the side change: candidates two increments apart, one fits
    nearest = round(gained / increment_ms)
    presses = min(
        (n for n in (nearest - 1, nearest, nearest + 1) if n % 2 == int(turned)),
        key=lambda n: abs(gained - n * increment_ms),
    )
    if presses < 2 or abs(gained - presses * increment_ms) > slack:
        return None
    first = prev.running  # the side running before presses first, then they alternate
    for side, count in ((first, (presses + 1) // 2), (1 - first, presses // 2)):
        if reading.remaining_ms[side] > prev.remaining_ms[side] + count * increment_ms + slack:
            return None
    return presses


def _same_reading(a: ClockReading, b: ClockReading) -> bool:
    return (
        a.remaining_ms == b.remaining_ms
        and a.running == b.running
        and a.flags == b.flags
        and a.period_flags == b.period_flags
    )


def _check_start(state: ChessState, reading: ClockReading, out: Out) -> ChessState:
    """Before the first move the clock must show the control's starting time (with or without the first
    increment); a running side may already have used some."""
    assert state.control is not None
    first = state.control.periods[0]
    base = first.time_s * 1000
    allowed = {base, base + first.increment_s * 1000}
    res = reading.resolution_ms
    wrong = []
    for side in (0, 1):
        shown = reading.remaining_ms[side]
        if reading.running == side:
            ok = any(shown <= a + res for a in allowed)
        else:
            ok = any(abs(shown - a) <= res for a in allowed)
        if not ok:
            wrong.append(side)
    if wrong:
        text = time_control_text(state.control)
        shown_text = ", ".join(
            f"{SIDE_NAMES[s]}{owner(state, s)} {hms(reading.remaining_ms[s])}" for s in wrong
        )
        shown_tr = ", ".join(f"{SIDE_TR[s]}{owner(state, s)} {hms(reading.remaining_ms[s])}" for s in wrong)
        expected = " or ".join(hms(a) for a in sorted(allowed))
        out.anomaly(
            "chess.clock_setting",
            Severity.WARNING,
            f"The clock starts at {shown_text}, but the time control {text} starts at {expected}; set the clock.",
            f"Saat {shown_tr} ile başlıyor, ancak {text} süre kontrolü {expected} ile başlar; saati ayarlayın.",
            sides=[SIDE_NAMES[s] for s in wrong],
            shown_ms=list(reading.remaining_ms),
            expected_ms=sorted(int(a) for a in allowed),
            time_control=text,
        )
    return replace(state, clock_checked=True)


def _periods(
    state: ChessState,
    prev: ClockReading | None,
    reading: ClockReading,
    at: float,
    out: Out,
    explained: list[bool],
) -> tuple[ChessState, list[bool]]:
    """A period flag rising: the clock added the next period at zero. The hub checks the move count."""
    for side in (0, 1):
        if not reading.period_flags[side] or (prev is not None and prev.period_flags[side]):
            continue
        explained[side] = True
        if state.result is not None:
            continue
        index = state.periods_added[side]
        colour = colour_of(state, side)
        control = state.control
        if control is not None:
            need = clk.moves_to_complete(control, index)
            made = moves_by(state, colour)
            if need is None or made < need:
                state = _flag_fall(
                    state,
                    side,
                    at,
                    out,
                    source="period",
                    detail=f"{made} of {need} moves made" if need is not None else "no further period",
                )
                continue
        added = list(state.periods_added)
        added[side] += 1
        state = replace(state, periods_added=(added[0], added[1]))
        out.fact(
            "period",
            side=SIDE_NAMES[side],
            colour=None if colour is None else COLOUR_NAMES[colour],
            period=added[side] + 1,
            remaining_ms=reading.remaining_ms[side],
        )
    return state, explained


def _time_increases(
    state: ChessState, prev: ClockReading, reading: ClockReading, explained: list[bool], out: Out
) -> None:
    res = max(prev.resolution_ms, reading.resolution_ms)
    for side in (0, 1):
        if explained[side]:
            continue
        before, after = prev.remaining_ms[side], reading.remaining_ms[side]
        if after > before + res:
            out.anomaly(
                "chess.time_increased",
                Severity.WARNING,
                f"The {SIDE_NAMES[side]} clock{owner(state, side)} went up from {hms(before)} to {hms(after)} with no press or new "
                f"period; check that the times were set on purpose.",
                f"{SIDE_TR[side].capitalize()} saat{owner(state, side)}, basma ya da yeni dönem olmadan {hms(before)}'den "
                f"{hms(after)}'e çıktı; sürelerin bilerek ayarlandığını kontrol edin.",
                side=SIDE_NAMES[side],
                colour=colour_name(state, side),
                before_ms=before,
                after_ms=after,
                ply=len(state.moves),
            )


def _press(
    state: ChessState, side: int, prev: ClockReading | None, reading: ClockReading, at: float, out: Out
) -> ChessState:
    """`side` pressed: the board is read at once, the press completes the last ply, and it is judged."""
    entry = (at, side, reading.remaining_ms[side])
    state = replace(state, early_presses=(*state.early_presses[-(EARLY_PRESSES - 1) :], entry))
    state = settle(state, at, out, press=True)
    if state.unpressed >= 1 and state.early_presses:
        state = _complete(replace(state, early_presses=state.early_presses[1:]), state.early_presses[0], out)
    completed = entry not in state.early_presses
    presses = state.presses + 1
    state = replace(state, presses=presses)
    out.fact(
        "press",
        side=SIDE_NAMES[side],
        colour=colour_name(state, side),
        ply=len(state.moves),
        clock_ms=reading.remaining_ms[side],
        completes=state.moves[-1].uci if completed and state.moves else None,
    )
    if prev is None or prev.running != side:
        return state  # the side was not seen running: no time to judge
    if state.control is None:
        if state.first_clock_ms is not None:
            state = _learn_control(state, side, prev, reading, at, out)
        return state
    return _judge_press(state, side, prev, reading, at, out)


def _learn_control(
    state: ChessState, side: int, prev: ClockReading, reading: ClockReading, at: float, out: Out
) -> ChessState:
    """No control was given: learn it from the start reading, which holds the base plus one increment.

    Bases are whole minutes, so a start of 3:02 is 3+2 and 1:30:30 is 90+30. A start on a whole minute
    leaves the increment to the first press read within `LEARN_FRESH_S` of the reading before it (a
    staler pair hides the increment behind the time that ran between them): until then, nothing is judged.
    """
    assert state.first_clock_ms is not None
    start_s = round(state.first_clock_ms[side] / 1000)
    if start_s % 60:
        increment = start_s % 60
    elif at - prev.at <= LEARN_FRESH_S:
        increment = max(0, round((reading.remaining_ms[side] - prev.remaining_ms[side]) / 1000))
    else:
        return state
    base = start_s - increment
    if base <= 0:
        return state
    control = clk.TimeControl.fischer(float(base), float(increment))
    text = time_control_text(control)
    out.fact("time_control", text=text, learned=True, increment_s=increment, base_s=base)
    return replace(state, control=control, control_learned=True)


def _judge_press(
    state: ChessState, side: int, prev: ClockReading, reading: ClockReading, at: float, out: Out
) -> ChessState:
    """Increment, delay or refund at the press, judged with the display resolution and the time between
    the last reading and the press."""
    control = state.control
    assert control is not None
    index = state.periods_added[side]
    period = clk.period_for(control, index)
    before, after = prev.remaining_ms[side], reading.remaining_ms[side]
    elapsed = max(0.0, at - prev.at)
    res_s = max(prev.resolution_ms, reading.resolution_ms) / 1000
    start = state.turn_start_ms[side]
    window = clk.press_window(period, before / 1000, elapsed, res_s, None if start is None else start / 1000)
    if window is None:
        return state
    low, high = window
    shown = after / 1000
    if low - 1e-6 <= shown <= high + 1e-6:
        return state
    colour = colour_of(state, side)
    counted = _period_at_count(state, side, colour, window, after, out)
    if counted is not None:
        return counted
    gain = after - before
    expected_low, expected_high = round(low * 1000), round(high * 1000)
    what_en, what_tr = _what_press_gives(period)
    gives_time = period.increment_s > res_s or (
        period.delay_mode is clk.DelayMode.BRONSTEIN and high * 1000 - before > prev.resolution_ms
    )
    missing = shown < low and gives_time and gain <= reading.resolution_ms
    code = "chess.increment_missing" if missing else "chess.increment_wrong"
    if missing:
        en = f"The {SIDE_NAMES[side]} clock{owner(state, side)} got no {what_en} at the press: {hms(before)} became {hms(after)}."
        tr = f"{SIDE_TR[side].capitalize()} saate{owner(state, side)} basınca {what_tr} eklenmedi: {hms(before)} → {hms(after)}."
    else:
        en = (
            f"The {SIDE_NAMES[side]} clock{owner(state, side)} shows {hms(after)} after the press, expected "
            f"{hms(expected_low)}-{hms(expected_high)} ({what_en}, from {hms(before)})."
        )
        tr = (
            f"{SIDE_TR[side].capitalize()} saat{owner(state, side)} basıştan sonra {hms(after)} gösteriyor, beklenen "
            f"{hms(expected_low)}-{hms(expected_high)} ({what_tr}, {hms(before)}'den)."
        )
    out.anomaly(
        code,
        Severity.WARNING,
        en,
        tr,
        side=SIDE_NAMES[side],
        colour=None if colour is None else COLOUR_NAMES[colour],
        before_ms=before,
        after_ms=after,
        expected_ms=[expected_low, expected_high],
        since_reading_s=round(elapsed, 3),
        ply=len(state.moves),
        time_control=time_control_text(control),
    )
    return state


def _period_at_count(
    state: ChessState,
    side: int,
    colour: chess.Color | None,
    window: tuple[float, float],
    after: int,
    out: Out,
) -> ChessState | None:
    """A clock that adds the next period when the move count is reached: the press shows the window plus the
    next period's time. The state with the period added, or None when the press shows no such thing."""
    control = state.control
    assert control is not None
    index = state.periods_added[side]
    low, high = window
    shown = after / 1000
    need = clk.moves_to_complete(control, index)
    if need is not None and index + 1 < len(control.periods) and moves_by(state, colour) >= need:
        extra = control.periods[index + 1].time_s
        if low + extra - 1e-6 <= shown <= high + extra + 1e-6:  # a clock that adds the period at the count
            added = list(state.periods_added)
            added[side] += 1
            out.fact(
                "period",
                side=SIDE_NAMES[side],
                colour=None if colour is None else COLOUR_NAMES[colour],
                period=added[side] + 1,
                remaining_ms=after,
            )
            return replace(state, periods_added=(added[0], added[1]))
    return None


def _what_press_gives(period: clk.Period) -> tuple[str, str]:
    """What a press should give in `period`, in English and Turkish."""
    what_en = {
        clk.DelayMode.NONE: f"increment of {seconds_text(period.increment_s)} s",
        clk.DelayMode.SIMPLE: f"delay of {seconds_text(period.delay_s)} s (no time added)",
        clk.DelayMode.BRONSTEIN: f"Bronstein refund of up to {seconds_text(period.delay_s)} s",
    }[period.delay_mode]
    what_tr = {
        clk.DelayMode.NONE: f"{seconds_text(period.increment_s)} sn artış",
        clk.DelayMode.SIMPLE: f"{seconds_text(period.delay_s)} sn gecikme (süre eklenmez)",
        clk.DelayMode.BRONSTEIN: f"en çok {seconds_text(period.delay_s)} sn Bronstein iadesi",
    }[period.delay_mode]
    return what_en, what_tr


def _flags(
    state: ChessState, prev: ClockReading | None, reading: ClockReading, at: float, out: Out
) -> ChessState:
    for side in (0, 1):
        if reading.flags[side] and not (prev is not None and prev.flags[side]) and state.result is None:
            state = _flag_fall(state, side, at, out, source="clock")
    return state


def _flag_fall(
    state: ChessState, side: int, at: float, out: Out, *, source: str, detail: str = ""
) -> ChessState:
    """`side`'s time is up: the opponent wins, or it is a draw when the opponent cannot mate (FIDE 6.9)."""
    board = state.game.board
    colour = colour_of(state, side)
    if colour is None:
        colour = board.turn  # the clock runs for the player to move
    opponent = not colour
    draw = board.has_insufficient_material(opponent)
    outcome = "1/2-1/2" if draw else ("1-0" if opponent == chess.WHITE else "0-1")
    reading = state.clock
    shown = None if reading is None else reading.remaining_ms[side]
    out.fact("game_over", result=outcome, reason="flag_fall", ply=len(state.moves), side=SIDE_NAMES[side])
    tail_en = f"a draw: {_who(opponent)} cannot checkmate" if draw else f"{_who(opponent)} wins"
    tail_tr = f"berabere: {_who(opponent)} mat edemez" if draw else f"{_who(opponent)} kazanır"
    how_en = {
        "clock": "",
        "period": f" (the time control was not reached: {detail})",
        "estimate": " (no reading since)",
    }
    how_tr = {
        "clock": "",
        "period": f" (süre kontrolüne ulaşılamadı: {detail})",
        "estimate": " (o zamandan beri okuma yok)",
    }
    out.anomaly(
        "chess.flag_fall",
        Severity.INFO,
        f"The flag of {_who(colour)} fell on the {SIDE_NAMES[side]} clock{how_en[source]}: {tail_en} ({outcome}).",
        f"{_who(colour)} oyuncusunun {SIDE_TR[side]} saatte bayrağı düştü{how_tr[source]}: {tail_tr} "
        f"({outcome}).",
        side=SIDE_NAMES[side],
        colour=COLOUR_NAMES[colour],
        result=outcome,
        draw=draw,
        source=source,
        remaining_ms=shown,
        ply=len(state.moves),
        at=at,
    )
    return replace(
        state, result=outcome, result_reason="flag_fall", illegal=None, mismatch_open=False, out_since=None
    )


def on_tick(state: ChessState, at: float, out: Out) -> ChessState:
    state = settle(state, at, out)
    reading = state.clock
    control = state.control
    if state.result is not None or reading is None or reading.running is None or control is None:
        return state
    side = reading.running
    if state.periods_added[side] < len(control.periods) - 1:
        return state  # the clock adds the next period at zero; its reading will tell
    period = clk.period_for(control, state.periods_added[side])
    grace = period.delay_s if period.delay_mode is clk.DelayMode.SIMPLE else 0.0
    left_s = reading.remaining_ms[side] / 1000 - (at - reading.at) + grace
    if left_s < -state.config.flag_slack_s:
        return _flag_fall(state, side, at, out, source="estimate")
    return state
