"""A two-player game clock as a pure value: time controls, presses and flag fall, with time as an argument.

Supported controls (one `Period` or several, each with an optional move count):

- Fischer increment: `increment_s` is added after every completed move, and once before move 1 when
  `increment_before_first_move` is set (FIDE practice, as e-board clocks do it: a 90+30 clock starts at 1:30:30).
- Simple (US) delay: the first `delay_s` seconds of each turn do not count.
- Bronstein delay: the clock runs at once; at the press the player gets back what he used, at most `delay_s`.
- Multi-period: when a player completes the move count of a period, the next period's time is added.

The player's press ends his turn and starts the opponent's clock. A clock never reads the wall clock.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any

import msgspec


class DelayMode(enum.StrEnum):
    """How the per-move allowance is given."""

    NONE = "none"
    SIMPLE = "simple"
    BRONSTEIN = "bronstein"


@dataclass(frozen=True, slots=True)
class Period:
    """One stage of a time control: `time_s` for `moves` moves (None = the rest of the game)."""

    time_s: float
    moves: int | None = None
    increment_s: float = 0.0
    delay_s: float = 0.0
    delay_mode: DelayMode = DelayMode.NONE


@dataclass(frozen=True, slots=True)
class TimeControl:
    """The periods of a control, in order."""

    periods: tuple[Period, ...]
    increment_before_first_move: bool = True

    @classmethod
    def fischer(cls, base_s: float, increment_s: float) -> TimeControl:
        """Base time plus an increment per move (and once before move 1)."""
        return cls((Period(base_s, increment_s=increment_s),))

    @classmethod
    def delay(cls, reserve_s: float, delay_s: float, mode: DelayMode | str = DelayMode.SIMPLE) -> TimeControl:
        """A reserve plus a per-move delay, simple (US) or Bronstein."""
        return cls((Period(reserve_s, delay_s=delay_s, delay_mode=DelayMode(mode)),))


@dataclass(frozen=True, slots=True)
class ClockState:
    """Both players' clocks. `remaining_s` is as of `since` for the running side, final for the other."""

    control: TimeControl
    remaining_s: tuple[float, float]
    moves: tuple[int, int] = (0, 0)
    period: tuple[int, int] = (0, 0)
    running: int | None = None
    since: float | None = None
    flagged: int | None = None
    flag_at: float | None = None


def start(control: TimeControl) -> ClockState:
    """A stopped clock with the first period's time on both sides (plus one increment if so set)."""
    first = control.periods[0]
    extra = first.increment_s if control.increment_before_first_move else 0.0
    return ClockState(control, (first.time_s + extra, first.time_s + extra))


def _period(state: ClockState, side: int) -> Period:
    periods = state.control.periods
    return periods[min(state.period[side], len(periods) - 1)]


def _used(period: Period, elapsed: float) -> float:
    """Time taken off the reserve while the turn is still running (before any Bronstein refund)."""
    if period.delay_mode is DelayMode.SIMPLE:
        return max(0.0, elapsed - period.delay_s)
    return elapsed


def remaining(state: ClockState, side: int, at: float) -> float:
    """What the side has left at `at` (never below zero)."""
    left = state.remaining_s[side]
    if state.running == side and state.since is not None:
        left -= _used(_period(state, side), at - state.since)
    return max(0.0, left)


def flag_time(state: ClockState) -> float | None:
    """When the running side's time runs out if nobody presses, or None when no clock runs."""
    if state.running is None or state.since is None:
        return None
    period = _period(state, state.running)
    left = state.remaining_s[state.running]
    if period.delay_mode is DelayMode.SIMPLE:
        return state.since + period.delay_s + left
    return state.since + left


def check_flag(state: ClockState, at: float) -> ClockState:
    """The state with `flagged` set if the running side's time ran out at or before `at`."""
    if state.flagged is not None:
        return state
    when = flag_time(state)
    if when is not None and at >= when:
        return replace(state, flagged=state.running, flag_at=when)
    return state


def start_side(state: ClockState, side: int, at: float) -> ClockState:
    """Run `side`'s clock from `at` (the other side's clock, if running, is stopped without a move)."""
    state = stop(state, at)
    return replace(state, running=side, since=at)


def stop(state: ClockState, at: float) -> ClockState:
    """Stop the running clock without completing a move (a pause, or the end of a game)."""
    if state.running is None or state.since is None:
        return state
    side = state.running
    period = _period(state, side)
    left = list(state.remaining_s)
    left[side] -= _used(period, at - state.since)
    return replace(state, remaining_s=(left[0], left[1]), running=None, since=None)


def press(state: ClockState, side: int, at: float) -> ClockState:
    """`side` completes a move: its time is settled (delay, Bronstein refund, increment, next period)
    and the opponent's clock starts. A press by a side whose clock is not running only starts the other."""
    state = check_flag(state, at)
    if state.running != side or state.since is None or state.flagged is not None:
        return replace(state, running=1 - side, since=at) if state.flagged is None else state
    period = _period(state, side)
    elapsed = at - state.since
    left = list(state.remaining_s)
    left[side] -= _used(period, elapsed)
    if period.delay_mode is DelayMode.BRONSTEIN:
        left[side] += min(elapsed, period.delay_s)
    left[side] += period.increment_s
    moves = list(state.moves)
    moves[side] += 1
    periods = list(state.period)
    if period.moves is not None:
        done_before = sum(p.moves or 0 for p in state.control.periods[: periods[side]])
        if moves[side] - done_before >= period.moves and periods[side] + 1 < len(state.control.periods):
            periods[side] += 1
            left[side] += state.control.periods[periods[side]].time_s
    return replace(
        state,
        remaining_s=(left[0], left[1]),
        moves=(moves[0], moves[1]),
        period=(periods[0], periods[1]),
        running=1 - side,
        since=at,
    )


def period_for(control: TimeControl, index: int) -> Period:
    """The control's period at `index`, or its last one when the index runs past the end."""
    return control.periods[min(index, len(control.periods) - 1)]


def moves_to_complete(control: TimeControl, index: int) -> int | None:
    """How many moves a player must have made when period `index` ends (None: it lasts the game)."""
    if index >= len(control.periods) or control.periods[index].moves is None:
        return None
    return sum(p.moves or 0 for p in control.periods[: index + 1])


def press_window(
    period: Period,
    shown_before_s: float,
    elapsed_s: float,
    resolution_s: float,
    turn_start_s: float | None = None,
) -> tuple[float, float] | None:
    """The range a clock may show for the mover right after a press, given what it showed `elapsed_s` before.

    A display at `resolution_s` hides up to one step either way, and the mover's time kept running for up to
    `elapsed_s` between the two readings. Fischer adds `increment_s`; simple delay adds nothing; Bronstein gives
    back what was used this turn, at most the delay, so it needs the time shown when the turn began
    (`turn_start_s`; None: no judgement possible, returns None).
    """
    if period.delay_mode is DelayMode.BRONSTEIN:
        if turn_start_s is None:
            return None
        used = max(0.0, turn_start_s - shown_before_s)
        expected = turn_start_s - max(0.0, used - period.delay_s)
        return expected - elapsed_s - resolution_s, expected + resolution_s
    gain = period.increment_s if period.delay_mode is DelayMode.NONE else 0.0
    expected = shown_before_s + gain
    return expected - elapsed_s - resolution_s, expected + resolution_s


def control_to_dict(control: TimeControl) -> dict[str, Any]:
    """A time control as plain data (its fields by name); `control_from_dict` reads it back."""
    data: dict[str, Any] = msgspec.to_builtins(control)  # a dataclass: always a dict
    return data


def control_from_dict(data: dict[str, Any]) -> TimeControl:
    """The inverse of `control_to_dict`."""
    return msgspec.convert(data, TimeControl)
