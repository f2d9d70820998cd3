"""The hub's commands to a DGT board and its DGT 3000 clock: one clock command at a time, each acknowledged.

``show_text`` and ``set_clock`` go to the clock one at a time, each resent until its acknowledgement comes
(the times come back on the clock after a text's seconds); ``resync`` reads the board again. The checks of
their arguments, and what a DGT 3000 can show of a text, are here too.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from dataclasses import dataclass
from typing import Any

from devices.command import Ack, CommandFailed, NotConnected
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
from devices.link import write_drained
from devices.observations import DeviceEvent
from devices.synthetic import SyntheticIdentity
from devices.wire.messages import Command, CommandName

_ASCII_FOR = str.maketrans("çğıöşüÇĞİÖŞÜâîûÂÎÛ", "cgiosuCGIOSUaiuAIU")


@dataclass(frozen=True, slots=True)
class _ClockExchange:
    """A clock command in flight: the bytes to (re)send and the ack it waits for."""

    data: bytes
    command: ClockCommand
    answer: asyncio.Future[ClockAck]


class DgtCommands(SyntheticIdentity):
    """What a DGT session does for the hub: clock commands one at a time, each waiting for its ack, and resync.

    The session sets `_connection` and the clock-command state below, and asks the board for a dump
    (`_ask_dump`) in its own way.
    """

    _connection: _Connection | None
    _clock_retry_s: float
    _clock_retries: int
    _command_seq: int
    _clock_lock: asyncio.Lock  # the DGT 3000 takes one command at a time
    _exchange: _ClockExchange | None
    _end_text_at: float | None  # loop time to put the times back on the clock
    _text_changed: asyncio.Event

    @property
    def identified(self) -> bool:
        """Whether the board on the current connection has said who it is (commands can be sent)."""
        return self._connection is not None and self._connection.identified

    async def command(
        self, command: Command, *, retries: int | None = None, interval: float | None = None
    ) -> Ack:
        """Do a hub command on the board or its DGT 3000 and wait for the acknowledgement.

        ``show_text`` shows up to 8 characters on the clock (the times come back after ``seconds``),
        ``set_clock`` sets both times and the running side (SETNRUN, clock mode 23), ``resync`` reads the
        board again. Clock commands go one at a time, each resent after ``interval`` (2 s) up to ``retries``
        times; raise CommandFailed if no board is connected, the arguments are wrong or no ack comes.
        """
        retries = self._clock_retries if retries is None else retries
        interval = self._clock_retry_s if interval is None else interval
        if not self.identified:
            raise NotConnected(
                f"{self.url}: no device connected; command {command.cmd!r} not sent / cihaz bağlı değil"
            )
        self._command_seq += 1
        seq = self._command_seq
        if command.cmd == CommandName.RESYNC:
            return await self._resync(seq, retries, interval)
        if command.cmd == CommandName.SHOW_TEXT:
            text, seconds = _text_args(self.url, command.args)
            ack = await self._clock_command(
                seq, encode_clock_text(text), ClockCommand.ASCII, retries, interval
            )
            if ack.ok and seconds > 0:
                self._end_text_at = asyncio.get_running_loop().time() + seconds
                self._text_changed.set()
            return ack
        if command.cmd == CommandName.SET_CLOCK:
            data = encode_clock_set_and_run(*_clock_args(self.url, command.args))
            return await self._clock_command(seq, data, ClockCommand.SETNRUN, retries, interval)
        raise CommandFailed(f"{self.url}: a DGT board cannot {command.cmd!r} / DGT tahtası bu komutu alamaz")

    async def _clock_command(
        self, seq: int, data: bytes, command: ClockCommand, retries: int, interval: float
    ) -> Ack:
        async with self._clock_lock:
            exchange = _ClockExchange(data, command, asyncio.get_running_loop().create_future())
            self._exchange = exchange
            try:
                for attempt in range(1, retries + 2):
                    connection = self._connection
                    if connection is None or not connection.identified:
                        raise NotConnected(
                            f"{self.url}: no device connected; clock command {command.name} not sent "
                            "/ cihaz bağlı değil"
                        )
                    await self._write(connection, data)  # a failed write is retried like a lost ack
                    try:
                        async with asyncio.timeout(interval):
                            ack = await asyncio.shield(exchange.answer)
                    except TimeoutError:
                        continue
                    error = "" if ack.ok else _ack_error(command, ack)
                    return Ack(seq, ack.ok, error, attempt)
            finally:
                self._exchange = None
        raise CommandFailed(
            f"{self.url}: the DGT 3000 on board {self.device_id} did not acknowledge {command.name} after "
            f"{retries + 1} tries; is a clock connected and switched on? / saat komutu onaylamadı; "
            "saat bağlı ve açık mı?"
        )

    async def _resync(self, seq: int, retries: int, interval: float) -> Ack:
        for attempt in range(1, retries + 2):
            connection = self._connection
            if connection is None or not connection.identified:
                break
            dumped: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            connection.dump_waiters.append(dumped)
            await self._ask_dump(connection)
            await self._write(connection, encode_command(DgtCommand.SEND_CLK))
            try:
                async with asyncio.timeout(interval):
                    if await dumped:
                        return Ack(seq, True, "", attempt)
            except TimeoutError:
                continue
            break  # the connection ended while waiting
        raise CommandFailed(f"{self.url}: the board did not send its squares again / tahta yeniden okunamadı")

    async def _text_timer(self, connection: _Connection) -> None:
        """Put the times back on the clock once a text has been shown for its seconds."""
        loop = asyncio.get_running_loop()
        while True:
            if self._end_text_at is None:
                self._text_changed.clear()
                await self._text_changed.wait()
                continue
            delay = self._end_text_at - loop.time()
            if delay > 0:
                self._text_changed.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._text_changed.wait()
                continue
            self._end_text_at = None
            self._command_seq += 1
            # If no ack comes the text stays up; nothing to retry here, and the hub sees no ack event.
            with contextlib.suppress(CommandFailed):
                await self._clock_command(
                    self._command_seq,
                    encode_clock_end_text(),
                    ClockCommand.END,
                    self._clock_retries,
                    self._clock_retry_s,
                )

    def _on_clock_ack(self, ack: ClockAck, now: float) -> None:
        """Deliver what the clock said; an ack of the command in flight also answers it."""
        exchange = self._exchange
        if ack.spontaneous:
            data: dict[str, Any] = {"ack": [ack.ack0, ack.ack1, ack.ack2, ack.ack3]}
            if ack.button is not None:
                data["button"] = ack.button.name.lower()
            kind = {0x81: "clock_ready", 0x88: "clock_button", 0x8A: "clock_mode"}.get(
                ack.ack1, "clock_status"
            )
            self._emit(DeviceEvent(kind, data), ack.raw, now)
            return
        self._emit(
            DeviceEvent(
                "ack",
                {"clock_command": ack.ack1, "ok": ack.ok, "ack": [ack.ack0, ack.ack1, ack.ack2, ack.ack3]},
            ),
            ack.raw,
            now,
        )
        if exchange is not None and ack.command == exchange.command and not exchange.answer.done():
            exchange.answer.set_result(ack)

    async def _ask_dump(self, connection: _Connection) -> None:
        """Ask the board for all its squares (the session counts it)."""
        raise NotImplementedError

    async def _write(self, connection: _Connection, data: bytes) -> bool:
        """Send bytes to the board on this connection; False if the link failed."""
        return await write_drained(connection.writer, data)


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
