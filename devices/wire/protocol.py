"""One Boardcast Wire connection as a pure state machine: bytes and time in, bytes to send and events out.

websockets' `protocol.py` shape: the asyncio session (`devices.wire.session`) hands this object what it read
(`receive_data(data, now)`), calls `tick(now)` when `next_deadline()` comes, and writes `data_to_send()`;
what the device said comes out of `events_received()`. It owns the HELLO (who the device is, refused when it
is the wrong device, the wrong protocol or repeats a secret token), the seq unwrapping across the u16 wrap
and boot epochs, the resync asked at each connection, after a seq gap and for frames before any HELLO (at
most once a second each), the command ACKs with their resends and give-up, and silence. No asyncio, no clock
reads, no I/O: `now` is a monotonic time for deadlines, `at` the wall time stamped on what it reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from devices.command import Ack, CommandFailed, not_connected
from devices.events import CommandAnswered, CommandUnanswered, Rejected, SessionEvent
from devices.observations import DeviceEvent, Observation, Report
from devices.silence import DeviceNoun, LinkReason, Silence
from devices.wire.codec import PROTOCOL_VERSION, Frame, FrameError, FrameErrorKind, MessageType, WireCodec
from devices.wire.messages import BodyError, Command, EventKind, decode_hello, decode_report, state_reader
from devices.wire.sequence import SeqUnwrapper

RESYNC_INTERVAL = 1.0  # at most one resync a second for frames before any HELLO, and one for seq gaps
NO_ACK = "the device does not acknowledge commands"
_DEVICE = DeviceNoun()


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the last device to say HELLO is: the key its observations carry, and what it can do."""

    device_id: str
    boot_epoch: int
    family: str
    capabilities: frozenset[str] = frozenset()


@dataclass(slots=True)
class _Pending:
    """A command waiting for its ACK: the frame to resend, the tries so far and when the next is due."""

    command: Command
    frame: bytes
    attempts: int
    retries: int
    interval: float
    due: float


class WireProtocol:
    """The connection logic of one Boardcast Wire device (one per session, across its reconnects)."""

    def __init__(
        self,
        url: str,
        *,
        expected_device_id: str | None = None,
        silence_timeout: float = 15.0,
        noun: DeviceNoun = _DEVICE,
    ) -> None:
        self.url = url
        self.expected_device_id = expected_device_id
        self._silence = Silence(silence_timeout, noun)
        self._tx_seq = 0
        self._unwrapper = SeqUnwrapper()
        self.identity: Identity | None = None  # the last device that said HELLO on any connection
        self._codec: WireCodec | None = None  # this connection's; None while no connection is open
        self._hello_this_connection = False
        self._last_orphan_resync = float("-inf")
        self._last_gap_resync = float("-inf")
        self._pending: dict[int, _Pending] = {}
        self._out: list[bytes] = []
        self._events: list[SessionEvent] = []
        self.close_reason: LinkReason | None = None  # set when the link must be dropped (silence)
        self.heard_device = False  # a frame (good or not) came on this connection: the backoff starts over
        self.frames_ok = 0  # frames emitted as observations
        self.frame_errors = 0  # frames reported as Rejected
        self.frames_before_hello = 0  # frames dropped because no HELLO had come on that connection yet
        self.bytes_in = 0
        self.last_seen: float | None = None  # wall time when bytes last arrived
        self.gap_resyncs = 0

    # -- what the shell asks ------------------------------------------------------------------------------

    @property
    def device_id(self) -> str | None:
        """The device id from the last HELLO, or None before any."""
        return self.identity.device_id if self.identity else None

    @property
    def connected(self) -> bool:
        """Whether a connection is open now."""
        return self._codec is not None

    @property
    def ready(self) -> bool:
        """Whether the device on this connection has said HELLO (commands can be sent)."""
        return self._codec is not None and self._hello_this_connection and self.identity is not None

    def data_to_send(self) -> bytes:
        """The bytes to write to the device now (empty if none); taking them empties the outbox."""
        out, self._out = self._out, []
        return b"".join(out)

    def events_received(self) -> list[SessionEvent]:
        """What happened since the last call, in the order it happened; taking them empties the list."""
        events, self._events = self._events, []
        return events

    def next_deadline(self) -> float | None:
        """When `tick` must next be called (silence, a resend or a give-up), or None if nothing waits."""
        deadlines = [pending.due for pending in self._pending.values()]
        if self._codec is not None and self.close_reason is None:
            deadlines.append(self._silence.deadline)
        return min(deadlines, default=None)

    # -- what the shell tells ------------------------------------------------------------------------------

    def connection_made(self, now: float, at: float | None = None) -> None:
        """A link opened at `now`: a fresh codec, no HELLO yet, and a resync asked at once."""
        self._codec = WireCodec()
        self._hello_this_connection = False
        self._last_orphan_resync = float("-inf")
        self.close_reason = None
        self.heard_device = False
        self._silence.heard(now)
        self.send(Command.resync())

    def connection_lost(self) -> None:
        """The link ended; commands still waiting go on waiting (a resend may reach the next connection)."""
        self._codec = None
        self._hello_this_connection = False
        self._out.clear()  # nothing can be written to a link that is gone

    def receive_data(self, data: bytes, now: float, at: float | None = None) -> None:
        """Take bytes read from the device at monotonic `now` (wall time `at`, `now` if not given)."""
        codec = self._codec
        if codec is None:
            return
        at = now if at is None else at
        self.bytes_in += len(data)
        self.last_seen = at
        self._silence.heard(now)
        for item in codec.frames(data):
            if isinstance(item, Frame):
                self.heard_device = True
                self._on_frame(item, now, at)
            else:
                self._reject(item, at)

    def tick(self, now: float, at: float | None = None) -> None:
        """Act on what is due at `now`: drop a silent link, resend or give up unanswered commands."""
        if self._codec is not None and self.close_reason is None and self._silence.expired(now):
            self.close_reason = self._silence.reason()
        for seq, pending in list(self._pending.items()):
            if now < pending.due:
                continue
            if pending.attempts > pending.retries:
                del self._pending[seq]
                self._events.append(CommandUnanswered(seq, CommandFailed(self._unanswered(pending))))
                continue
            pending.attempts += 1
            pending.due = now + pending.interval
            self._write(pending.frame)  # the same frame, the same seq: a device does it once

    # -- commands ------------------------------------------------------------------------------------------

    def send(self, command: Command) -> int:
        """Queue one COMMAND frame without waiting for an answer; return its seq."""
        seq = self._next_seq()
        self._write(command.encode(seq))
        return seq

    def command(self, command: Command, now: float, *, retries: int = 3, interval: float = 1.0) -> int:
        """Queue a command to be acknowledged, resent every `interval` s up to `retries` times; return its seq.

        Raise NotConnected if no device has said HELLO on this connection. A device whose HELLO lacks the
        "ack" capability gets the command once, answered at once with an Ack whose ok is None.
        """
        identity = self.identity
        if not self.ready or identity is None:
            raise not_connected(self.url, f"command {command.cmd!r}")
        seq = self._next_seq()
        frame = command.encode(seq)
        self._write(frame)
        if "ack" not in identity.capabilities:
            self._events.append(CommandAnswered(seq, Ack(seq, None, NO_ACK, 1)))
        else:
            self._pending[seq] = _Pending(command, frame, 1, retries, interval, now + interval)
        return seq

    def forget(self, seq: int, now: float | None = None) -> None:
        """Stop resending command `seq` (its caller no longer waits)."""
        self._pending.pop(seq, None)

    def _next_seq(self) -> int:
        seq = self._tx_seq
        self._tx_seq = (self._tx_seq + 1) & 0xFFFF
        return seq

    def _unanswered(self, pending: _Pending) -> str:
        return (
            f"{self.url}: device {self.device_id} did not acknowledge {pending.command.cmd!r} after "
            f"{pending.attempts} tries / cihaz komutu onaylamadı"
        )

    def _on_ack(self, body: dict[str, Any]) -> None:
        seq, ok = body.get("ack"), body.get("ok")
        if not isinstance(seq, int):
            return
        pending = self._pending.pop(seq, None)
        if pending is not None:
            error = body.get("error")
            ack = Ack(seq, bool(ok), error if isinstance(error, str) else "", pending.attempts)
            self._events.append(CommandAnswered(seq, ack))

    # -- frames --------------------------------------------------------------------------------------------

    def _on_frame(self, frame: Frame, now: float, at: float) -> None:
        if frame.type is MessageType.HELLO:
            self._on_hello(frame, at)
            return
        if not self._hello_this_connection or self.identity is None:
            self.frames_before_hello += 1
            if now - self._last_orphan_resync >= RESYNC_INTERVAL:
                self._last_orphan_resync = now
                self.send(Command.resync())
            return
        try:
            report = decode_report(frame, self.identity.family)
        except BodyError as exc:
            self._reject(FrameError(FrameErrorKind.BAD_BODY, f"{exc}.", frame.raw), at)
            return
        if isinstance(report, DeviceEvent) and report.kind == EventKind.ACK.value:
            self._on_ack(report.data)
        before = self._unwrapper.highest
        self._emit(frame, report, at)
        after = self._unwrapper.highest
        if before is not None and after is not None and after > before + 1:
            self._resync_after_gap(now)

    def _resync_after_gap(self, now: float) -> None:
        """Frames went missing: ask for the full state now, at most once a second."""
        if now - self._last_gap_resync >= RESYNC_INTERVAL:
            self._last_gap_resync = now
            self.gap_resyncs += 1
            self.send(Command.resync())

    def _on_hello(self, frame: Frame, at: float) -> None:
        try:
            hello = decode_hello(frame.body)
        except BodyError as exc:
            self._reject(FrameError(FrameErrorKind.BAD_BODY, f"{exc}.", frame.raw), at)
            return
        refusal = self._refusal(frame, hello.device_id, hello.protocol)
        if refusal is not None:
            self._hello_this_connection = False
            self._reject(refusal, at)
            return
        identity = Identity(hello.device_id, hello.boot_epoch, hello.family, frozenset(hello.capabilities))
        known = self.identity
        if known is None or (identity.device_id, identity.boot_epoch) != (known.device_id, known.boot_epoch):
            self._unwrapper.reset()
            self.identity = known = identity
        if self._codec is not None:  # its STATE bodies, read straight into reports from now on
            self._codec.state_reader = state_reader(known.family)
        self._hello_this_connection = True
        self._emit(frame, hello, at)

    def _refusal(self, frame: Frame, device_id: str, protocol: int) -> FrameError | None:
        """Why a well-formed HELLO is refused, or None if it is accepted."""
        if isinstance(frame.body, dict) and "token" in frame.body:
            # Only a TCP gateway reads tokens, from the first HELLO; one here would be written to the log.
            return FrameError(
                FrameErrorKind.BAD_BODY,
                f"Device {device_id!r} on {self.url} repeated its secret token in a HELLO; the frame "
                "is refused so the token is never stored. Send the token only in the first HELLO on TCP.",
                b"",  # not even the raw bytes: they hold the secret
            )
        if self.expected_device_id is not None and device_id != self.expected_device_id:
            return FrameError(
                FrameErrorKind.WRONG_DEVICE,
                f"Device {device_id!r} answered on {self.url}, where {self.expected_device_id!r} "
                "is expected; its frames are ignored until the right device says hello.",
                frame.raw,
            )
        if protocol != PROTOCOL_VERSION:
            return FrameError(
                FrameErrorKind.UNSUPPORTED_PROTOCOL,
                f"Device {device_id!r} on {self.url} speaks Boardcast Wire protocol {protocol}; "
                f"this hub speaks {PROTOCOL_VERSION}. Its frames are ignored; update its firmware.",
                frame.raw,
            )
        return None

    def _emit(self, frame: Frame, report: Report, at: float) -> None:
        identity = self.identity
        assert identity is not None
        seq = self._unwrapper.unwrap(frame.seq)
        self.frames_ok += 1
        self._events.append(Observation(identity.device_id, identity.boot_epoch, seq, at, report, frame.raw))

    def _reject(self, error: FrameError, at: float) -> None:
        self.frame_errors += 1
        self._events.append(Rejected(error, at))

    def _write(self, frame: bytes) -> None:
        if self._codec is not None:
            self._out.append(frame)
