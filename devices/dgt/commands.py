"""The hub's commands to a DGT board and its DGT 3000 clock, as pure state: one clock command at a time.

``show_text`` and ``set_clock`` go to the clock one at a time, each resent until its acknowledgement comes
(the times come back on the clock after a text's seconds); ``resync`` reads the board again. No I/O and no
clock reads: the protocol (`devices.dgt.protocol`) calls these with the time and writes what they queue.
The checks of their arguments, and what a DGT 3000 can show of a text, are here too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from devices.command import Ack, CommandFailed, not_connected
from devices.dgt.codec import (
    ClockCommand,
    ClockRun,
    encode_clock_end_text,
    encode_clock_set_and_run,
    encode_clock_text,
    encode_command,
)
from devices.dgt.codec import (
    Command as DgtCommand,
)
from devices.dgt.connection import _Connection
from devices.dgt.messages import ClockAck
from devices.events import CommandAnswered, CommandUnanswered, SessionEvent
from devices.observations import DeviceEvent, Report
from devices.wire.messages import Command, CommandName

_ASCII_FOR = str.maketrans("çğıöşüÇĞİÖŞÜâîûÂÎÛ", "cgiosuCGIOSUaiuAIU")


@dataclass(slots=True)
class _ClockExchange:
    """A clock command queued or in flight: the bytes to (re)send, the ack it waits for, its tries."""

    seq: int
    data: bytes
    command: ClockCommand
    retries: int
    interval: float
    answers: bool = True  # False for the session's own END after a text: nobody waits for it
    text_s: float = 0.0  # seconds a shown text stays before the times come back
    attempts: int = 0
    due: float = float("inf")


@dataclass(slots=True)
class _Resync:
    """A resync waiting for the board's dump."""

    seq: int
    retries: int
    interval: float
    attempts: int
    due: float


class DgtCommands:
    """What a DGT protocol does for the hub: clock commands one at a time, each waiting for its ack, and resync.

    The protocol sets `url`, `_connection`, `_events`, `_clock_retry_s` and `_clock_retries`, and gives
    `_ask_dump`, `_write`, `_emit` and `device_id`.
    """

    url: str
    _connection: _Connection | None
    _events: list[SessionEvent]
    _clock_retry_s: float
    _clock_retries: int

    def _commands_init(self) -> None:
        self._command_seq = 0
        self._clock_queue: list[_ClockExchange] = []  # the first is in flight once it has attempts
        self._resyncs: list[_Resync] = []
        self._end_text_at: float | None = None  # when to put the times back on the clock

    @property
    def device_id(self) -> str | None:
        """The board's device id."""
        raise NotImplementedError

    @property
    def identified(self) -> bool:
        """Whether the board on the current connection has said who it is (commands can be sent)."""
        return self._connection is not None and self._connection.identified

    def command(
        self, command: Command, now: float, *, retries: int | None = None, interval: float | None = None
    ) -> int:
        """Queue a hub command for the board or its DGT 3000; return the seq its outcome event will carry.

        ``show_text`` shows up to 8 characters on the clock (the times come back after ``seconds``),
        ``set_clock`` sets both times and the running side (SETNRUN, clock mode 23), ``resync`` reads the
        board again. Clock commands go one at a time, each resent after ``interval`` (2 s) up to ``retries``
        times. Raise CommandFailed now if no board is connected or the arguments are wrong.
        """
        retries = self._clock_retries if retries is None else retries
        interval = self._clock_retry_s if interval is None else interval
        if not self.identified:
            raise not_connected(self.url, f"command {command.cmd!r}")
        self._command_seq += 1
        seq = self._command_seq
        if command.cmd == CommandName.RESYNC:
            self._resyncs.append(_Resync(seq, retries, interval, 1, now + interval))
            self._ask_resync(now)
        elif command.cmd == CommandName.SHOW_TEXT:
            text, seconds = _text_args(self.url, command.args)
            data = encode_clock_text(text)
            self._queue(_ClockExchange(seq, data, ClockCommand.ASCII, retries, interval, text_s=seconds), now)
        elif command.cmd == CommandName.SET_CLOCK:
            data = encode_clock_set_and_run(*_clock_args(self.url, command.args))
            self._queue(_ClockExchange(seq, data, ClockCommand.SETNRUN, retries, interval), now)
        else:
            raise CommandFailed(
                f"{self.url}: a DGT board cannot {command.cmd!r} / DGT tahtası bu komutu alamaz"
            )
        return seq

    def forget(self, seq: int, now: float) -> None:
        """Stop working on command `seq` (its caller no longer waits): the next clock command goes."""
        self._resyncs = [r for r in self._resyncs if r.seq != seq]
        in_flight = bool(self._clock_queue) and self._clock_queue[0].seq == seq
        self._clock_queue = [x for x in self._clock_queue if x.seq != seq]
        if in_flight and self._clock_queue:
            self._try_clock(now)

    def _command_deadlines(self) -> list[float]:
        deadlines = [r.due for r in self._resyncs]
        if self._clock_queue:
            deadlines.append(self._clock_queue[0].due)
        if self._end_text_at is not None and self._connection is not None:
            deadlines.append(self._end_text_at)
        return deadlines

    def _tick_commands(self, now: float) -> None:
        if self._end_text_at is not None and self._connection is not None and now >= self._end_text_at:
            self._end_text_at = None
            self._command_seq += 1
            # If no ack comes the text stays up; nothing to retry here, and the hub sees no ack event.
            end = _ClockExchange(
                self._command_seq,
                encode_clock_end_text(),
                ClockCommand.END,
                self._clock_retries,
                self._clock_retry_s,
                answers=False,
            )
            self._queue(end, now)
        if self._clock_queue and now >= self._clock_queue[0].due:
            head = self._clock_queue[0]
            if head.attempts > head.retries:
                self._finish_clock(now, self._unanswered(head))
            else:
                self._try_clock(now)
        for resync in list(self._resyncs):
            if now < resync.due:
                continue
            if resync.attempts > resync.retries or not self.identified:
                self._fail_resync(resync)
                continue
            resync.attempts += 1
            resync.due = now + resync.interval
            self._ask_resync(now)

    def _commands_lost(self) -> None:
        """The link ended: a resync waiting for a dump fails (a clock command fails at its next try)."""
        for resync in list(self._resyncs):
            self._fail_resync(resync)

    def _queue(self, exchange: _ClockExchange, now: float) -> None:
        self._clock_queue.append(exchange)
        if len(self._clock_queue) == 1:
            self._try_clock(now)

    def _try_clock(self, now: float) -> None:
        """Send the first clock command (again), or fail it when no board is there to take it."""
        head = self._clock_queue[0]
        if not self.identified:
            failure = not_connected(self.url, f"clock command {head.command.name}")
            self._finish_clock(now, failure)
            return
        head.attempts += 1
        head.due = now + head.interval
        self._write(head.data)  # a failed write is retried like a lost ack

    def _finish_clock(self, now: float, outcome: Ack | CommandFailed) -> None:
        head = self._clock_queue.pop(0)
        if head.answers:
            if isinstance(outcome, Ack):
                self._events.append(CommandAnswered(head.seq, outcome))
            else:
                self._events.append(CommandUnanswered(head.seq, outcome))
        if self._clock_queue:
            self._try_clock(now)

    def _unanswered(self, head: _ClockExchange) -> CommandFailed:
        return CommandFailed(
            f"{self.url}: the DGT 3000 on board {self.device_id} did not acknowledge {head.command.name} after "
            f"{head.attempts} tries; is a clock connected and switched on? / saat komutu onaylamadı; "
            "saat bağlı ve açık mı?"
        )

    def _ask_resync(self, now: float) -> None:
        self._ask_dump(now)
        self._write(encode_command(DgtCommand.SEND_CLK))

    def _fail_resync(self, resync: _Resync) -> None:
        self._resyncs.remove(resync)
        failure = CommandFailed(
            f"{self.url}: the board did not send its squares again / tahta yeniden okunamadı"
        )
        self._events.append(CommandUnanswered(resync.seq, failure))

    def _dumped(self) -> None:
        """The board sent all its squares: every resync waiting for them is done."""
        for resync in self._resyncs:
            self._events.append(CommandAnswered(resync.seq, Ack(resync.seq, True, "", resync.attempts)))
        self._resyncs.clear()

    def _on_clock_ack(self, ack: ClockAck, now: float, at: float) -> None:
        """Deliver what the clock said; an ack of the command in flight also answers it."""
        if ack.spontaneous:
            data: dict[str, Any] = {"ack": [ack.ack0, ack.ack1, ack.ack2, ack.ack3]}
            if ack.button is not None:
                data["button"] = ack.button.name.lower()
            kind = {0x81: "clock_ready", 0x88: "clock_button", 0x8A: "clock_mode"}.get(
                ack.ack1, "clock_status"
            )
            self._emit(DeviceEvent(kind, data), ack.raw, at)
            return
        self._emit(
            DeviceEvent(
                "ack",
                {"clock_command": ack.ack1, "ok": ack.ok, "ack": [ack.ack0, ack.ack1, ack.ack2, ack.ack3]},
            ),
            ack.raw,
            at,
        )
        head = self._clock_queue[0] if self._clock_queue else None
        if head is None or head.attempts == 0 or ack.command != head.command:
            return
        if ack.ok and head.text_s > 0:
            self._end_text_at = now + head.text_s
        error = "" if ack.ok else _ack_error(head.command, ack)
        self._finish_clock(now, Ack(head.seq, ack.ok, error, head.attempts))

    def _ask_dump(self, now: float) -> None:
        """Ask the board for all its squares (the protocol counts it)."""
        raise NotImplementedError

    def _write(self, data: bytes) -> None:
        """Queue bytes for the board on this connection."""
        raise NotImplementedError

    def _emit(self, report: Report, raw: bytes, at: float) -> None:
        """Deliver one report under the board's identity."""
        raise NotImplementedError


def clock_text(text: str) -> str:
    """What a DGT 3000 can show of a text: 8 printable ASCII characters, Turkish letters without accents."""
    plain = text.translate(_ASCII_FOR)
    return "".join(ch if " " <= ch <= "~" else "?" for ch in plain)[:8]


def _text_args(url: str, args: dict[str, Any]) -> tuple[str, float]:
    text, seconds = args.get("text"), args.get("seconds", 5)
    if not isinstance(text, str):
        raise CommandFailed(f"{url}: show_text needs a text, got {text!r} / show_text için metin gerekli")
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
        raise CommandFailed(f"{url}: show_text seconds must be 0 or more, got {seconds!r} / süre geçersiz")
    return clock_text(text), float(seconds)


def _clock_args(url: str, args: dict[str, Any]) -> tuple[int, int, ClockRun]:
    remaining, running = args.get("remaining_ms"), args.get("running")
    valid = (
        isinstance(remaining, list | tuple)
        and len(remaining) == 2
        and all(isinstance(ms, int) and not isinstance(ms, bool) and 0 <= ms < 36_000_000 for ms in remaining)
    )
    if not valid:
        raise CommandFailed(
            f"{url}: set_clock needs remaining_ms [left, right] from 0 to 9:59:59, got {remaining!r} "
            "/ saat süreleri geçersiz"
        )
    assert isinstance(remaining, list | tuple)
    if running not in (0, 1, None) or isinstance(running, bool):
        raise CommandFailed(f"{url}: set_clock running is 0 (left), 1 (right) or null, got {running!r}")
    # Whole seconds up: a side with half a second left must not be set to a fallen flag.
    left_s, right_s = (math.ceil(ms / 1000) for ms in remaining)
    left_s, right_s = min(left_s, 35_999), min(right_s, 35_999)
    if running is None:
        run = ClockRun.PAUSE
    else:
        # The lever keeps switching sides afterwards, as it did before the correction.
        run = (ClockRun.LEFT if running == 0 else ClockRun.RIGHT) | ClockRun.TOGGLE_ON_LEVER
    return left_s, right_s, run


def _ack_error(command: ClockCommand, ack: ClockAck) -> str:
    if command is ClockCommand.SETNRUN:
        return (
            "the clock refused SETNRUN; set the DGT 3000 to mode 23 / saat reddetti; DGT 3000'i mod 23'e alın"
        )
    return f"the clock refused {command.name} (ack 0x{ack.ack0:02x}) / saat komutu reddetti"
