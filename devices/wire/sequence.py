"""Device frame counters: 16-bit sequence numbers unwrapped to a growing integer within one boot."""

from __future__ import annotations

_MODULUS = 1 << 16
_HALF = _MODULUS // 2


class SeqUnwrapper:
    """Turns u16 seq values into integers that keep growing across the 65535 -> 0 wrap.

    Each value is placed at the candidate nearest the highest value seen so far, so duplicates map to the
    same integer and small reorders stay in place. A value seen before the first one may come out negative.
    """

    __slots__ = ("_highest",)

    def __init__(self) -> None:
        self._highest: int | None = None

    @property
    def highest(self) -> int | None:
        """The highest unwrapped value so far, or None before the first."""
        return self._highest

    def unwrap(self, seq: int) -> int:
        """The unwrapped value for a u16 seq."""
        if not 0 <= seq < _MODULUS:
            raise ValueError(f"seq must fit in 16 bits (0..65535), got {seq}")
        if self._highest is None:
            self._highest = seq
            return seq
        delta = (seq - self._highest) % _MODULUS
        if delta >= _HALF:
            delta -= _MODULUS
        value = self._highest + delta
        if value > self._highest:
            self._highest = value
        return value

    def reset(self) -> None:
        """Start over, as on a new boot epoch."""
        self._highest = None
