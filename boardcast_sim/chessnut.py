"""A simulated Chessnut board's firmware, for tests and demos over the fake BLE radio (boardcast_sim.ble_fake).

It behaves as the hardware capture says (research notes §2): nothing is reported until the central writes
``21 01 00`` on this connection (then ``23 01 00``), after which the whole board goes out every
`report_every_s` whether or not it changed; ``29 01 00`` gets ``2a 02 <level> 00``; LED and beep commands
get ``23 01 00``. A new connection starts with reports off again. Commands arrive as a byte stream of
``<code> <length> <payload>`` messages, split or merged as the central wrote them. Fault knobs: ignore the
next enables, stop reporting, send any raw value on either characteristic.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Sequence
from typing import Protocol

import chess

from devices.chessnut.codec import CommandCode, MessageCode, encode_board_report
from devices.chessnut.session import CHESSNUT_BOARD, CHESSNUT_REPLIES

ACK = bytes([MessageCode.ACK, 0x01, 0x00])
NEW_GAME = bytes([MessageCode.BUTTON, 0x01, 0x02])


class ChessnutPeripheral(Protocol):
    """What the simulator needs of a fake peripheral (a `FakeBleDevice` with `layout=ChessnutLayout()`)."""

    @property
    def connected(self) -> bool: ...

    @property
    def incoming(self) -> asyncio.StreamReader: ...

    @property
    def clients(self) -> Sequence[object]: ...  # every client that connected, in order

    def notify_on(self, uuid: str, value: bytes) -> bool: ...


class Channel(enum.StrEnum):
    """Which notify characteristic a raw value goes out on."""

    BOARD = "board"
    REPLIES = "replies"


class SimulatedChessnut:
    """One Chessnut board: its placement, its battery and the commands it was sent; `run(device)` until cancelled."""

    def __init__(
        self,
        *,
        board_fen: str = chess.STARTING_BOARD_FEN,
        report_every_s: float = 0.1,
        battery: int = 87,
        uptime_s: int = 0,
    ) -> None:
        if report_every_s <= 0:
            raise ValueError(f"report_every_s must be positive, got {report_every_s}")
        chess.BaseBoard(board_fen)  # a bad FEN fails here, not in the report loop
        self.board_fen = board_fen
        self.report_every_s = report_every_s
        self.battery = battery
        self._uptime_start = uptime_s
        self._started: float | None = None
        self.enabled = False
        self.reporting = True  # fault knob: False stops reports while the link stays up
        self.ignore_enables = 0  # fault knob: this many enable commands are dropped unanswered
        self.commands: list[bytes] = []  # every command received, in order
        self.enables = 0  # enable commands received (ignored ones included)
        self.leds: bytes = bytes(8)
        self.beeps: list[tuple[int, int]] = []
        self.reports_sent = 0
        self._connection = 0
        self._device: ChessnutPeripheral | None = None

    @property
    def uptime_s(self) -> int:
        """Seconds since the simulated power-on, as the report counter says."""
        if self._started is None:
            return self._uptime_start
        return self._uptime_start + int(asyncio.get_running_loop().time() - self._started)

    def place(self, board_fen: str) -> None:
        """Set the pieces on the board (a lift, a placement, a whole new position)."""
        chess.BaseBoard(board_fen)
        self.board_fen = board_fen

    def press_new_game(self) -> bool:
        """Press the NEW GAME button (``0f 01 02``); False if nobody listens."""
        return self.send_raw(NEW_GAME, Channel.REPLIES)

    def send_raw(self, value: bytes, channel: Channel = Channel.BOARD) -> bool:
        """Fault hook: notify any value on either characteristic; False if nobody listens."""
        device = self._device
        if device is None:
            return False
        return device.notify_on(CHESSNUT_BOARD if channel is Channel.BOARD else CHESSNUT_REPLIES, value)

    async def run(self, device: ChessnutPeripheral) -> None:
        """Be the board's firmware behind `device` until cancelled."""
        self._device = device
        self._started = asyncio.get_running_loop().time()
        async with asyncio.TaskGroup() as group:
            group.create_task(self._commands(device))
            group.create_task(self._reports(device))

    def _same_connection(self, device: ChessnutPeripheral) -> None:
        # A new connection starts with reports off, as on the hardware.
        if len(device.clients) != self._connection:
            self._connection = len(device.clients)
            self.enabled = False

    async def _reports(self, device: ChessnutPeripheral) -> None:
        while True:
            await asyncio.sleep(self.report_every_s)
            self._same_connection(device)
            report = encode_board_report(self.board_fen, self.uptime_s)
            if (
                device.connected
                and self.enabled
                and self.reporting
                and device.notify_on(CHESSNUT_BOARD, report)
            ):
                self.reports_sent += 1

    async def _commands(self, device: ChessnutPeripheral) -> None:
        pending = bytearray()
        while data := await device.incoming.read(4096):
            pending += data
            while len(pending) >= 2 and len(pending) >= 2 + pending[1]:
                size = 2 + pending[1]
                command = bytes(pending[:size])
                del pending[:size]
                self._same_connection(device)
                self._on_command(device, command)

    def _on_command(self, device: ChessnutPeripheral, command: bytes) -> None:
        self.commands.append(command)
        code = command[0]
        if code == CommandCode.ENABLE_REPORTS:
            self.enables += 1
            if self.ignore_enables > 0:
                self.ignore_enables -= 1
                return
            self.enabled = True
            device.notify_on(CHESSNUT_REPLIES, ACK)
        elif code == CommandCode.BATTERY:
            device.notify_on(CHESSNUT_REPLIES, bytes([MessageCode.BATTERY, 0x02, self.battery, 0x00]))
        elif code == CommandCode.LEDS and len(command) == 10:
            self.leds = command[2:]
            device.notify_on(CHESSNUT_REPLIES, ACK)
        elif code == CommandCode.BEEP and len(command) == 6:
            self.beeps.append((int.from_bytes(command[2:4], "big"), int.from_bytes(command[4:6], "big")))
            device.notify_on(CHESSNUT_REPLIES, ACK)
