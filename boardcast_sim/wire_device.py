"""The plumbing every simulated Boardcast Wire device shares, whatever it plays.

`SimulatedWireDevice` boots on a byte link (a pseudo-terminal fd or an asyncio stream pair), writes a 0x00 to
end any frame torn by a reset, says HELLO (with the connection token, if any) and its state, then plays while
it sends heartbeats when idle and answers commands: each acknowledged once per command seq (a resend is
acknowledged again, not redone), resync answered with HELLO and the state. Fault hooks write raw bytes, repeat
the last frame or lose acknowledgements. A device says what it is (`hello`), what it shows
(`current_state()`), which commands it does (`can_do`) and how it plays (`_play()`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import os
import time
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar, Protocol

from devices.observations import DeviceHello, Heartbeat, Report
from devices.wire.codec import Frame, MessageType, WireCodec, encode_frame
from devices.wire.messages import BodyError, Command, CommandName, report_to_body

HEARTBEAT_S = 5.0


class _Link(Protocol):
    async def read(self) -> bytes: ...

    async def write(self, data: bytes) -> None: ...


class _FdLink:
    """A non-blocking file descriptor as a byte link; a full buffer drops bytes, as a UART would."""

    def __init__(self, fd: int, write_timeout: float = 1.0) -> None:
        self._fd = fd
        self._write_timeout = write_timeout
        os.set_blocking(fd, False)

    async def read(self) -> bytes:
        while True:
            try:
                return os.read(self._fd, 4096)
            except BlockingIOError:
                await self._ready(reading=True)
            except OSError as exc:
                if exc.errno == errno.EIO:  # no one has the other end open
                    return b""
                raise

    async def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._fd, view) :]
            except BlockingIOError:
                try:
                    async with asyncio.timeout(self._write_timeout):
                        await self._ready(reading=False)
                except TimeoutError:
                    return

    async def _ready(self, *, reading: bool) -> None:
        loop = asyncio.get_running_loop()
        ready = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        (loop.add_reader if reading else loop.add_writer)(self._fd, wake)
        try:
            await ready
        finally:
            (loop.remove_reader if reading else loop.remove_writer)(self._fd)


class _StreamLink:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self) -> bytes:
        return await self._reader.read(4096)

    async def write(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()


class SimulatedWireDevice:
    """A simulated Boardcast Wire device; subclasses give `hello`, `current_state()` and `_play()`."""

    noun: ClassVar[str] = "device"  # error texts: "a <noun> cannot show_clock"
    short_noun: ClassVar[str] = "device"  # error texts: "the <short noun> is not running"

    def __init__(
        self,
        device_id: str,
        *,
        speed: float,
        matches: int,
        boot_epoch: int | None,
        first_seq: int,
        battery: int | None,
        token: str | None,
    ) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, got {speed}")
        if matches < 0:
            raise ValueError(f"matches must be 0 or more, got {matches}")  # 0: boots, shows its state, idles
        self.device_id = device_id
        self.speed = speed
        self.matches = matches
        self.boot_epoch = int(time.time()) if boot_epoch is None else boot_epoch
        self.battery = battery
        self.token = token
        self._seq = first_seq & 0xFFFF
        self._link: _Link | None = None
        self._send_lock = asyncio.Lock()
        self._last_tx = 0.0
        self._last_frame = b""
        self._booted_at = time.monotonic()
        self.commands: list[Command] = []  # every command received, in order
        self.shown_text = ""
        self.drop_acks = 0  # fault hook: how many commands to execute without acknowledging
        self._executed: set[int] = set()
        self.frames_sent = 0
        self.matches_played = 0
        self.done = asyncio.Event()  # set when the last match has ended; the device stays on

    @property
    def hello(self) -> DeviceHello:
        """The HELLO this device sends."""
        raise NotImplementedError

    def current_state(self) -> Report:
        """The STATE report of what the device shows now: sent at boot and on resync."""
        raise NotImplementedError

    def can_do(self, cmd: str) -> tuple[bool, str]:
        """Whether the device does command `cmd`, and the ACK's error text if not; resync and show_text here."""
        if cmd in (CommandName.RESYNC, CommandName.SHOW_TEXT):
            return True, ""
        return False, f"a {self.noun} cannot {cmd}"

    def execute(self, command: Command) -> tuple[bool, str]:
        """Do a command `can_do` accepted, once per command seq; return (ok, the ACK's error text if not)."""
        if command.cmd == CommandName.SHOW_TEXT:
            self.shown_text = str(command.args.get("text", ""))
        return True, ""

    async def _play(self) -> None:
        """Play the matches, sending their reports; set `done` at the end."""
        raise NotImplementedError

    async def run_on_fd(self, fd: int) -> None:
        """Be the device behind a pty master (or any fd) until cancelled; the fd stays open."""
        await self._run(_FdLink(fd))

    async def run_on_streams(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Be the device behind an asyncio stream pair until cancelled."""
        await self._run(_StreamLink(reader, writer))

    async def inject(self, data: bytes) -> None:
        """Fault hook: write raw bytes between frames (garbage, a torn frame)."""
        await self._write(data)

    async def repeat_last_frame(self) -> None:
        """Fault hook: send the last frame again, same seq, as a flaky radio would."""
        await self._write(self._last_frame)

    async def _run(self, link: _Link) -> None:
        self._link = link
        await link.write(b"\x00")  # ends any frame torn by a reset, as the spec asks of every device
        if self.token is not None:  # on TCP the first HELLO of a connection proves who we are
            _, body = report_to_body(self.hello)
            await self._send_raw(MessageType.HELLO, {**body, "token": self.token})
        else:
            await self._send(self.hello)
        await self._send(self.current_state())
        async with asyncio.TaskGroup() as group:
            group.create_task(self._listen(link))
            group.create_task(self._heartbeats())
            await self._play()

    async def _heartbeats(self) -> None:
        loop = asyncio.get_running_loop()
        interval = HEARTBEAT_S / self.speed
        while True:
            await asyncio.sleep(max(0.0, self._last_tx + interval - loop.time()))
            if loop.time() - self._last_tx >= interval:
                uptime = int(time.monotonic() - self._booted_at)
                await self._send(Heartbeat(battery=self.battery, uptime_s=uptime))

    async def _listen(self, link: _Link) -> None:
        codec = WireCodec()
        while data := await link.read():
            for item in codec.feed(data):
                if isinstance(item, Frame) and item.type is MessageType.COMMAND:
                    await self._on_command(item)

    async def _on_command(self, frame: Frame) -> None:
        try:
            command = Command.decode(frame)
        except BodyError as exc:
            await self._send_raw(MessageType.ERROR, {"code": "bad_command", "detail": str(exc)})
            return
        self.commands.append(command)
        if frame.seq in self._executed:  # a resend of a command already done: acknowledge, do not redo
            await self._ack(frame.seq, ok=True)
            return
        self._executed.add(frame.seq)
        ok, error = self.can_do(command.cmd)
        if ok:
            ok, error = self.execute(command)
        if self.drop_acks > 0:  # fault hook: done, but the acknowledgement is lost, as on a noisy link
            self.drop_acks -= 1
        else:
            await self._ack(frame.seq, ok=ok, error=error)
        if command.cmd == CommandName.RESYNC:
            await self._send(self.hello)
            await self._send(self.current_state())

    async def _ack(self, seq: int, *, ok: bool, error: str = "") -> None:
        body: dict[str, object] = {"ack": seq, "ok": ok}
        if error:
            body["error"] = error
        await self._send_raw(MessageType.ACK, body)

    async def _send(self, report: Report) -> None:
        message_type, body = report_to_body(report)
        await self._send_raw(message_type, body)

    async def _send_raw(self, message_type: MessageType, body: dict[str, object]) -> None:
        async with self._send_lock:
            self._check_running()  # before the seq is spent: a frame never sent takes none
            frame = encode_frame(message_type, self._seq, body)
            self._seq = (self._seq + 1) & 0xFFFF
            self._last_frame = frame
            self.frames_sent += 1
            await self._write_locked(frame)

    async def _write(self, data: bytes) -> None:
        async with self._send_lock:
            await self._write_locked(data)

    async def _write_locked(self, data: bytes) -> None:
        link = self._check_running()
        await link.write(data)
        self._last_tx = asyncio.get_running_loop().time()

    def _check_running(self) -> _Link:
        if self._link is None:
            raise RuntimeError(f"the {self.short_noun} is not running")
        return self._link


def simulator_parser(
    prog: str, description: str | None, *, device_id: str, seed: int, faults: Iterable[str], fault_help: str
) -> argparse.ArgumentParser:
    """The command-line options every simulated board shares; callers add their own."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--pty", action="store_true", required=True, help="serve on a new pseudo-terminal")
    parser.add_argument("--device-id", default=device_id)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--speed", type=float, default=1.0, help="time compression, e.g. 10 for 10x")
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--fault", action="append", default=[], choices=list(faults), help=fault_help)
    return parser


def run_on_new_pty(
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None,
    make: Callable[[argparse.Namespace], SimulatedWireDevice],
) -> int:
    """Parse the options, open a pty, print its path for the hub's venue file, and be the device there."""
    args = parser.parse_args(argv)

    async def serve() -> None:
        from boardcast_sim.pty import open_pty_pair

        with open_pty_pair() as pair:
            print(pair.slave_path, flush=True)
            await make(args).run_on_fd(pair.master_fd)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return 0
