"""A simulated DGT 3000 clock counting Fischer time, set from a time control such as 5400+30.

The increment is added before move 1 and after each press, as DGT and FIDE do it; at zero the clock blocks
with the flag shown. Pure: no clock is read, `now` is always an argument.
"""

from __future__ import annotations

import math
import re

from devices.dgt.codec import ClockRun
from devices.dgt.messages import ClockDisplay, ClockTimes

LEFT, RIGHT = 0, 1
_TIME_CONTROL = re.compile(r"^(\d+)(?:\+(\d+))?$")


def parse_time_control(text: str) -> tuple[int, int]:
    """Read "5400+30" (base seconds + increment seconds, "5400" for none); raise ValueError saying why."""
    match = _TIME_CONTROL.match(text.strip())
    if not match:
        raise ValueError(
            f"time control {text!r} is not seconds+increment like 5400+30 / "
            f"süre kontrolü {text!r} 5400+30 biçiminde değil"
        )
    base, increment = int(match[1]), int(match[2] or 0)
    if not 0 < base + increment < 10 * 3600:
        raise ValueError(f"a DGT 3000 holds up to 9:59:59, {text!r} does not fit / saat bu süreyi gösteremez")
    return base, increment


class Dgt3000:
    """A DGT 3000 counting Fischer time; every method takes the game time `now` in seconds. Sides: 0 left, 1 right."""

    def __init__(self, base_s: int, increment_s: int, *, adds_increment: bool = True) -> None:
        self.base_s = base_s
        self.increment_s = increment_s
        self.adds_increment = adds_increment  # False: set without the increment, a fault the hub should see
        self.remaining = [0.0, 0.0]
        self.running: int | None = None
        self.high = LEFT  # the side whose lever is up: its time runs (or will, once started)
        self.flags = [False, False]
        self._since = 0.0
        self.reset(0.0)

    @property
    def increment(self) -> int:
        """The seconds added at each press (and once before move 1)."""
        return self.increment_s if self.adds_increment else 0

    def reset(self, now: float, high: int = LEFT) -> None:
        """Stop and show the time control again, the increment already added (1:30:30 for 90+30)."""
        start = float(self.base_s + self.increment)
        self.remaining = [start, start]
        self.running = None
        self.high = high
        self.flags = [False, False]
        self._since = now

    def resume(self, left_s: float, right_s: float, running: int | None, now: float) -> None:
        """Stand as a clock that stayed on: these times, `running`'s counting down (or stopped), from `now`."""
        self.remaining = [max(0.0, left_s), max(0.0, right_s)]
        self.flags = [t <= 0 for t in self.remaining]
        self.running = None if running is None or self.flags[running] else running
        self.high = self.high if running is None else running
        self._since = now

    def times(self, now: float) -> tuple[float, float]:
        """Both sides' remaining seconds at `now`."""
        self._advance(now)
        return self.remaining[LEFT], self.remaining[RIGHT]

    def start(self, side: int, now: float) -> None:
        """Start `side`'s time (the arbiter starts the clock, or the opponent pressed before move 1)."""
        self._advance(now)
        self.running = side
        self.high = side

    def press(self, side: int, now: float) -> None:
        """The player on `side` presses the lever: their time stops and gains the increment, the other runs."""
        self._advance(now)
        if self.running != side:
            return  # a press on the side that is not running moves nothing on a DGT 3000
        self.remaining[side] += self.increment
        self.running = 1 - side
        self.high = 1 - side

    def pause(self, now: float) -> None:
        """Stop both times."""
        self._advance(now)
        self.running = None

    def set_and_run(self, left_s: int, right_s: int, run: int, now: float) -> None:
        """SETNRUN: set both times, then run the side named (or pause)."""
        self._advance(now)
        self.remaining = [float(left_s), float(right_s)]
        self.flags = [False, False]
        if run & ClockRun.PAUSE:
            self.running = None
        elif run & ClockRun.RIGHT:
            self.running = self.high = RIGHT
        elif run & ClockRun.LEFT:
            self.running = self.high = LEFT
        else:
            self.running = None

    def shown(self, now: float) -> tuple[int, int]:
        """The whole seconds each side shows (rounded up: 0:00:00 means the flag fell)."""
        left, right = self.times(now)
        return _shown(left), _shown(right)

    def until_change(self, now: float) -> float:
        """Game seconds until the display next changes; infinity while stopped."""
        self._advance(now)
        if self.running is None:
            return math.inf
        left = self.remaining[self.running]
        return max(1e-3, left - (math.ceil(round(left, 6)) - 1))

    def reading(self, now: float) -> ClockTimes:
        """The BWTIME reading the board sends for this clock at `now`."""
        shown = self.shown(now)
        icon = self.increment > 0
        left, right = (
            _display(shown[side], final_flag=self.flags[side], time_per_move=icon) for side in (LEFT, RIGHT)
        )
        return ClockTimes(
            left=left,
            right=right,
            running=self.running is not None,
            right_high=self.high == RIGHT,
            left_turn=self.high == LEFT,
            right_turn=self.high == RIGHT,
        )

    def _advance(self, now: float) -> None:
        if self.running is not None:
            side = self.running
            left = self.remaining[side] - (now - self._since)
            if left <= 0:
                left = 0.0
                self.flags[side] = True
                self.running = None  # the DGT 3000 blocks at zero with the flag shown
            self.remaining[side] = left
        self._since = now


def _shown(seconds: float) -> int:
    return min(35_999, max(0, math.ceil(round(seconds, 6))))


def _display(seconds: int, *, final_flag: bool, time_per_move: bool) -> ClockDisplay:
    return ClockDisplay(
        seconds // 3600, seconds // 60 % 60, seconds % 60, final_flag=final_flag, time_per_move=time_per_move
    )
