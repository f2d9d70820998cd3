"""A simulated table-tennis scoreboard that speaks Boardcast Wire, for demos, tests and device makers.

`TableTennisMatchSim` (devices.simulators.tabletennis_match, re-exported here) is the pure part: a seeded
match under the ITTF rules, singles or doubles, with expedite, time-outs, cards and injectable faults.
`TableTennisScoreboard` is the device: it boots, says HELLO, sends a STATE frame after each rally and an
EVENT frame for each time-out, card and expedite call, sends heartbeats when idle and answers resync
commands, over a pseudo-terminal fd or an asyncio stream pair.
Run ``python -m devices.simulators.tabletennis --pty`` to get a pty path to point a hub at.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import os
import random
import sys
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from devices.observations import DeviceEvent, DeviceFamily, DeviceHello, Heartbeat, Report, ScoreboardState
from devices.simulators.tabletennis_match import (
    PLAIN_MATCH,
    RALLY_SECONDS,
    CardPlan,
    EventKind,
    ExpeditePlan,
    Fault,
    MatchOptions,
    Ruleset,
    TableTennisMatchSim,
    TimeOutPlan,
    game_over,
)
from devices.wire.codec import PROTOCOL_VERSION, Frame, MessageType, WireCodec, encode_frame
from devices.wire.messages import BodyError, Command, CommandName, report_to_body

BETWEEN_GAMES_S = 30.0
BETWEEN_MATCHES_S = 60.0
HEARTBEAT_S = 5.0
TIMEOUT_S = 20.0  # a time-out is up to 60 s; the simulator keeps it short

__all__ = [
    "CardPlan",
    "ExpeditePlan",
    "Fault",
    "MatchOptions",
    "Ruleset",
    "TableTennisMatchSim",
    "TableTennisScoreboard",
    "TimeOutPlan",
    "game_over",
]


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


class TableTennisScoreboard:
    """A simulated Boardcast Wire table-tennis scoreboard; run it on a pty master fd or a stream pair."""

    def __init__(
        self,
        device_id: str,
        *,
        seed: int,
        speed: float = 1.0,
        best_of: int = 5,
        matches: int = 1,
        boot_epoch: int | None = None,
        start: ScoreboardState | None = None,
        first_seq: int = 0,
        battery: int | None = 87,
        token: str | None = None,
        options: MatchOptions = PLAIN_MATCH,
        faults: Collection[Fault] | Mapping[Fault, float] | None = None,
    ) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, got {speed}")
        if matches < 0:
            raise ValueError(f"matches must be 0 or more, got {matches}")  # 0: boots, shows 0-0, idles
        self.device_id = device_id
        self.speed = speed
        self.best_of = best_of
        self.matches = matches
        self.boot_epoch = int(time.time()) if boot_epoch is None else boot_epoch
        self.battery = battery
        self.token = token
        self._seed = seed
        self._timing = random.Random(seed ^ 0x5EED)
        self.options = options if faults is None else replace(options, faults=faults)
        self._sim = TableTennisMatchSim(
            seed, best_of, first_server=seed % 2, start=start, options=self.options
        )
        self._past_injected: list[tuple[Fault, int]] = []
        self._seq = first_seq & 0xFFFF
        self._link: _Link | None = None
        self._send_lock = asyncio.Lock()
        self._last_tx = 0.0
        self._last_frame = b""
        self._booted_at = time.monotonic()
        self.history: list[ScoreboardState] = [self._sim.state]  # every display shown, in order
        self.events: list[DeviceEvent] = []  # every match EVENT sent (time-out, card, expedite), in order
        self.commands: list[Command] = []  # every command received, in order
        self.shown_text = ""
        self.drop_acks = 0  # fault hook: how many commands to execute without acknowledging
        self._executed: set[int] = set()
        self.frames_sent = 0
        self.matches_played = 0
        self.done = asyncio.Event()  # set when the last match has ended; the device stays on

    @property
    def state(self) -> ScoreboardState:
        """What the scoreboard shows now."""
        return self._sim.state

    @property
    def sim(self) -> TableTennisMatchSim:
        """The match being played now."""
        return self._sim

    @property
    def injected(self) -> list[tuple[Fault, int]]:
        """Every fault injected in every match so far, with the match's rally count at the time."""
        return [*self._past_injected, *self._sim.injected]

    @property
    def hello(self) -> DeviceHello:
        """The HELLO this device sends."""
        return DeviceHello(
            device_id=self.device_id,
            family=DeviceFamily.TT_SCOREBOARD.value,
            model="BC-TT1 simulator",
            firmware="sim-1.0",
            protocol=PROTOCOL_VERSION,
            boot_epoch=self.boot_epoch,
            capabilities=("resync", "show_text", "ack"),
        )

    @property
    def next_seq(self) -> int:
        """The u16 seq the next frame will carry."""
        return self._seq

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

    async def send_event(self, kind: str, data: dict[str, object] | None = None) -> None:
        """Send an EVENT frame (a button press, a time-out)."""
        await self._send(DeviceEvent(kind, dict(data or {})))

    async def _run(self, link: _Link) -> None:
        self._link = link
        await link.write(b"\x00")  # ends any frame torn by a reset, as the spec asks of every device
        if self.token is not None:  # on TCP the first HELLO of a connection proves who we are
            _, body = report_to_body(self.hello)
            await self._send_raw(MessageType.HELLO, {**body, "token": self.token})
        else:
            await self._send(self.hello)
        await self._send(self.state)
        async with asyncio.TaskGroup() as group:
            group.create_task(self._listen(link))
            group.create_task(self._heartbeats())
            await self._play()

    async def _play(self) -> None:
        for match_number in range(self.matches):
            if match_number > 0:
                await asyncio.sleep(BETWEEN_MATCHES_S / self.speed)
                self._past_injected.extend(self._sim.injected)
                self._sim = TableTennisMatchSim(
                    self._seed + match_number,
                    self.best_of,
                    (self._seed + match_number) % 2,
                    options=self.options,
                )
                self.history.append(self._sim.state)
                await self._send(self._sim.state)
            while not self._sim.finished:
                shown = self._sim.state
                starting_game = shown.points == (0, 0) and sum(shown.games) > 0
                pause = BETWEEN_GAMES_S if starting_game else self._timing.uniform(*RALLY_SECONDS)
                await asyncio.sleep(pause / self.speed)
                for report in self._sim.step():
                    if isinstance(report, ScoreboardState):
                        self.history.append(report)
                    elif isinstance(report, DeviceEvent):
                        self.events.append(report)
                    await self._send(report)
                    if isinstance(report, DeviceEvent) and report.kind == EventKind.TIMEOUT:
                        await asyncio.sleep(TIMEOUT_S / self.speed)
            self.matches_played += 1
        self.done.set()

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
        ok, error = True, ""
        if command.cmd == CommandName.SHOW_TEXT:
            self.shown_text = str(command.args.get("text", ""))
        elif command.cmd != CommandName.RESYNC:
            ok, error = False, f"a scoreboard cannot {command.cmd}"
        if self.drop_acks > 0:  # fault hook: done, but the acknowledgement is lost, as on a noisy link
            self.drop_acks -= 1
        else:
            await self._ack(frame.seq, ok=ok, error=error)
        if command.cmd == CommandName.RESYNC:
            await self._send(self.hello)
            await self._send(self.state)

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
            frame = encode_frame(message_type, self._seq, body)
            self._seq = (self._seq + 1) & 0xFFFF
            self._last_frame = frame
            self.frames_sent += 1
            await self._write_locked(frame)

    async def _write(self, data: bytes) -> None:
        async with self._send_lock:
            await self._write_locked(data)

    async def _write_locked(self, data: bytes) -> None:
        if self._link is None:
            raise RuntimeError("the scoreboard is not running")
        await self._link.write(data)
        self._last_tx = asyncio.get_running_loop().time()


async def _serve_pty(args: argparse.Namespace) -> None:
    from devices.simulators.pty import open_pty_pair

    with open_pty_pair() as pair:
        print(pair.slave_path, flush=True)
        showcase = MatchOptions.showcase(doubles=args.doubles)
        options = showcase if args.showcase else MatchOptions(doubles=args.doubles)
        board = TableTennisScoreboard(
            args.device_id,
            seed=args.seed,
            speed=args.speed,
            matches=args.matches,
            options=options,
            faults={Fault(name) for name in args.fault},
        )
        await board.run_on_fd(pair.master_fd)


def main(argv: Sequence[str] | None = None) -> int:
    """Run a simulated scoreboard on a new pty and print its path."""
    parser = argparse.ArgumentParser(prog="python -m devices.simulators.tabletennis", description=__doc__)
    parser.add_argument("--pty", action="store_true", required=True, help="serve on a new pseudo-terminal")
    parser.add_argument("--device-id", default="tt-sim-1")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--speed", type=float, default=1.0, help="time compression, e.g. 10 for 10x")
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--doubles", action="store_true", help="play doubles (server_player A1..B2 shown)")
    parser.add_argument(
        "--showcase", action="store_true", help="a time-out, a yellow card, expedite in game 3"
    )
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        choices=[fault.value for fault in Fault],
        help="inject this display error once per match (repeatable)",
    )
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve_pty(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
