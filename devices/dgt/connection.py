"""What a DGT session knows about the board on the current connection, from the port opening to its end."""

from __future__ import annotations

from dataclasses import dataclass, field

from devices.dgt.messages import DgtMessage, SerialNumber, Version
from devices.dgt.reader import DgtReport


@dataclass(eq=False)
class _Connection:
    """What the session knows about the board on the current connection."""

    started: float  # monotonic time when the port opened
    serial: SerialNumber | None = None
    version: Version | None = None
    identified: bool = False
    long_serial: bool = True  # which serial number the keep-alive asks for
    long_asks: int = 0  # long serial numbers asked during the handshake
    short_serial: SerialNumber | None = None  # a 5-digit answer, used if the long one never comes
    long_asks_since_short: int = 0
    pending: list[tuple[DgtReport | DgtMessage, float]] = field(default_factory=list)
    dump_asked_at: float = float("-inf")
    updates_before_dump: int = 0  # DgtReader's counter when last looked at
    battery_asked_at: float = float("-inf")
    keepalive_due: float = float("inf")  # when the next keep-alive (or handshake step) is due
