"""D-SCORE button codes, sans-I/O: notification values and their times in, point and undo events out.

A band notifies one byte whenever its buttons change: 0 released, 1 secondary (red), 2 primary (green),
3 both (Squore's bluetooth_le_config.json, research notes §1.3). A press is a non-zero value; the next 0 is
its release, which gives the press its length. Green awards the band's side a point, red takes the side's
last point back. A second press of the same button within `debounce_s` of the last one that counted is a
double tap (a bouncing button or a nervous thumb) and is dropped. The codec never reads a clock and never
raises on what a band sends: bad values come back as `FrameError`s.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from devices.observations import DeviceEvent
from devices.wire.codec import FrameError, FrameErrorKind


class Button(enum.IntEnum):
    """The value a D-SCORE band notifies: which buttons are down."""

    RELEASED = 0
    SECONDARY = 1  # red
    PRIMARY = 2  # green
    BOTH = 3


class PressLength(enum.StrEnum):
    """How long a button was held, known at its release."""

    SHORT = "short"
    LONG = "long"


@dataclass(frozen=True, slots=True)
class DScoreStats:
    """Counters of one codec since it was made."""

    presses: int  # non-zero values that started a press
    events: int  # point and undo events returned
    double_taps: int  # presses dropped as double taps
    chords: int  # both buttons at once: no event
    long_presses: int  # presses held at least long_press_s
    errors: int  # values that were not one byte 0..3


_EVENTS = {Button.PRIMARY: "point", Button.SECONDARY: "undo"}


class DScoreCodec:
    """One band's button codes to `point` / `undo` events for its side, with double-tap debounce."""

    def __init__(self, side: int, *, debounce_s: float = 0.35, long_press_s: float = 1.0) -> None:
        if side not in (0, 1):
            raise ValueError(f"side must be 0 or 1, got {side!r}")
        if debounce_s < 0 or long_press_s <= 0:
            raise ValueError(
                f"debounce_s must be >= 0 and long_press_s > 0, got {debounce_s}, {long_press_s}"
            )
        self.side = side
        self.debounce_s = debounce_s
        self.long_press_s = long_press_s
        self._held: Button = Button.RELEASED
        self._pressed_at: float | None = None
        self._last_counted: dict[Button, float] = {}
        self.last_press: PressLength | None = None  # the length of the last press released
        self._presses = self._events = self._double_taps = self._chords = self._long = self._errors = 0

    @property
    def double_taps(self) -> int:
        """Presses dropped as double taps."""
        return self._double_taps

    @property
    def errors(self) -> int:
        """Values that were not one byte 0..3."""
        return self._errors

    @property
    def stats(self) -> DScoreStats:
        """A snapshot of the counters."""
        return DScoreStats(
            self._presses, self._events, self._double_taps, self._chords, self._long, self._errors
        )

    def feed(self, value: bytes, at: float) -> list[DeviceEvent | FrameError]:
        """One notification value received at time `at` (seconds, any monotonic origin)."""
        if len(value) != 1 or value[0] > Button.BOTH:
            self._errors += 1
            what = "empty" if not value else f"{len(value)} bytes" if len(value) > 1 else f"value {value[0]}"
            return [
                FrameError(
                    FrameErrorKind.BAD_BODY,
                    f"D-SCORE notification was {what}; a band sends one byte 0-3 (released, red, green, both).",
                    bytes(value),
                )
            ]
        button = Button(value[0])
        if button is Button.RELEASED:
            self._release(at)
            return []
        if self._held is not Button.RELEASED and self._pressed_at is not None and button is Button.BOTH:
            self._held = button  # a second button joined a press: a chord, after the fact
            self._chords += 1
            return []
        self._presses += 1
        self._held, self._pressed_at = button, at
        if button is Button.BOTH:
            self._chords += 1
            return []
        last = self._last_counted.get(button)
        if last is not None and 0 <= at - last < self.debounce_s:
            self._double_taps += 1
            return []
        self._last_counted[button] = at
        self._events += 1
        return [DeviceEvent(_EVENTS[button], {"side": self.side})]

    def _release(self, at: float) -> None:
        if self._pressed_at is not None and self._held is not Button.RELEASED:
            held = at - self._pressed_at
            self.last_press = PressLength.LONG if held >= self.long_press_s else PressLength.SHORT
            if self.last_press is PressLength.LONG:
                self._long += 1
        self._held, self._pressed_at = Button.RELEASED, None
