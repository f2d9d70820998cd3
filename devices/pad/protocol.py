"""One table's pad connection as a pure state machine: messages and time in, observations and answers out.

Which pad scores the table: the first to send holds it while it is heard at least every `lease` seconds
(a pad asks the state every few seconds while it is open); another pad is answered `HELD_ELSEWHERE` and
may only show the score, so two pads never score one table at once. When the holder goes quiet (the hall
Wi-Fi, a dead battery), the table is free again once the lease has run out, and the link is said to be
down, as a device gone silent is.

Each tap becomes an `Observation` keyed by (pad id, epoch, seq), the key a hardware device's frames carry:
the hub stores each once and applies only what is new, so a tap sent again after a lost answer costs
nothing. No asyncio, no clock reads: `now` is monotonic time, `at` the wall time stamped on observations.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from devices.family import Reply, Text
from devices.observations import DeviceEvent, LinkChange, LinkState, Observation
from devices.pad.messages import PadMessage, encode_tap
from devices.silence import Silence

LEASE_S = 30.0  # a pad holds its table this long after it was last heard


class Verdict(enum.Enum):
    """What became of a pad's message."""

    ACCEPTED = "accepted"  # the pad holds the table: its taps were taken
    WATCHING = "watching"  # the pad sent no taps and holds nothing: it is shown the score
    HELD_ELSEWHERE = "held_elsewhere"  # another pad holds the table: its taps were not taken


@dataclass(frozen=True, slots=True)
class Holder:
    """The pad that scores the table now, and whose token it was sent with."""

    pad: str
    epoch: int
    user: str


@dataclass(frozen=True, slots=True)
class PadAnswer:
    """The answer to a pad: its verdict, the last of its taps the hub has (0 for none), who holds the table
    (None: no pad), and how long until another holder's lease runs out if it stays quiet."""

    verdict: Verdict
    acked: int
    holder: Holder | None
    lease: float
    free_in_s: float = 0.0


class PadProtocol:
    """The pads of one table: who holds it, what each pad's epoch has had acknowledged, the lease."""

    def __init__(self, url: str, lease: float = LEASE_S) -> None:
        self.url = url
        self.holder: Holder | None = None
        self._silence = Silence(lease)
        self._acked: dict[tuple[str, int], int] = {}  # (pad, epoch) -> the highest seq taken
        self._events: list[Observation | LinkChange] = []
        self.taps = 0  # taps taken, resent ones too

    def receive(self, message: PadMessage, user: str, now: float, at: float) -> PadAnswer:
        """Take a pad's message sent with `user`'s token at monotonic `now` (wall time `at`).

        A pad takes the table with its first tap while no other pad holds it, and keeps it by being heard;
        a message with no taps (the page asking the state) takes nothing, so a pad opened only to look never
        keeps another from scoring."""
        holder = self._current(now, at)
        if holder is not None and holder.pad != message.pad:
            verdict = Verdict.HELD_ELSEWHERE if message.reports else Verdict.WATCHING
            acked = self._acked.get((message.pad, message.epoch), 0)
            return PadAnswer(verdict, acked, holder, self._silence.timeout, self._silence.deadline - now)
        if holder is None and not message.reports:
            return PadAnswer(Verdict.WATCHING, self._acked.get((message.pad, message.epoch), 0), None, 0.0)
        mine = Holder(message.pad, message.epoch, user)
        if holder != mine:
            self._events.append(
                LinkChange(
                    self.url, LinkState.CONNECTED, at, f"pad of {user} scoring / {user} tabletten puanlıyor",
                    message.pad, 1,
                )
            )  # fmt: skip
        self.holder = mine
        self._silence.heard(now)
        key = (message.pad, message.epoch)
        for tap in message.reports:
            data = dict(tap.data)
            if tap.tapped_at is not None:
                data["tapped_at"] = tap.tapped_at
            self._events.append(
                Observation(
                    message.pad, message.epoch, tap.seq, at, DeviceEvent(tap.kind, data), encode_tap(tap)
                )
            )
            self._acked[key] = max(self._acked.get(key, 0), tap.seq)
            self.taps += 1
        return PadAnswer(Verdict.ACCEPTED, self._acked.get(key, 0), mine, self._silence.timeout)

    def _current(self, now: float, at: float) -> Holder | None:
        """The pad holding the table at `now`: none once its lease has run out (`tick` says so to the sink)."""
        if self.holder is not None and self._silence.expired(now):
            self.tick(now, at)
        return self.holder

    def next_deadline(self) -> float | None:
        """When `tick` must next be called (the holder's lease running out), or None while no pad holds it."""
        return None if self.holder is None else self._silence.deadline

    def tick(self, now: float, at: float) -> None:
        """The lease of a quiet holder runs out: the table is free and the pad's link is down."""
        if self.holder is None or not self._silence.expired(now):
            return
        seconds = f"{self._silence.timeout:g}"
        self._events.append(
            LinkChange(
                self.url,
                LinkState.DISCONNECTED,
                at,
                f"no data from the pad for {seconds} s; another pad may score the table / tabletten "
                f"{seconds} sn veri gelmedi; masa başka bir tablete açık",
                self.holder.pad,
                1,
            )
        )
        self.holder = None

    def events_received(self) -> list[Observation | LinkChange]:
        """What happened since the last call, in order; taking them empties the list."""
        events, self._events = self._events, []
        return events


def reply(answer: PadAnswer) -> Reply:
    """A pad's answer as the hub sends it back: the taps it has, who holds the table and, when another pad does
    and this one sent taps, why they were not taken."""
    holder = answer.holder
    body: dict[str, object] = {
        "acked": answer.acked,
        "holder": None if holder is None else {"pad": holder.pad, "user": holder.user},
        "yours": answer.verdict is Verdict.ACCEPTED,  # this pad holds the table
        "free_in_s": round(max(0.0, answer.free_in_s), 1),
        "lease_s": answer.lease,
    }
    if answer.verdict is not Verdict.HELD_ELSEWHERE:
        return Reply(True, body)
    assert holder is not None  # only a holder refuses a pad
    wait = f"{max(0.0, answer.free_in_s):.0f}"
    return Reply(
        False,
        body,
        Text(
            f"{holder.user} is scoring this table on another pad; this one only shows the score, and may score "
            f"once the other has been silent for {answer.lease:g} s (in {wait} s at the earliest)",
            f"bu masayı {holder.user} başka bir tabletten puanlıyor; bu tablet yalnız skoru gösterir, öteki "
            f"{answer.lease:g} sn sessiz kalınca puanlayabilir (en erken {wait} sn sonra)",
        ),
    )
