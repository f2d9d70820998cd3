"""A simulated backgammon board that speaks Boardcast Wire (`backgammon-board`), for demos, tests and makers.

`BackgammonMatchSim` (boardcast_sim.backgammon_match, re-exported here) is the pure part: seeded
matches with random legal plays, doubles, takes and drops, a clock and injectable errors. `BackgammonBoard`
is the device: it boots, says HELLO, sends a full STATE after every change (the checkers sometimes one at a
time), EVENTs for clock presses, cube actions and cocked dice, heartbeats when idle, and answers resync,
over a pseudo-terminal fd or an asyncio stream pair.
Run ``python -m boardcast_sim.backgammon --pty`` to get a pty path to point a hub at.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from boardcast_sim.backgammon_match import (
    BackgammonMatchSim,
    Board,
    Fault,
    MatchOptions,
    Resume,
    plays,
)
from boardcast_sim.wire_device import SimulatedWireDevice, run_on_new_pty, simulator_parser
from devices.observations import (
    BackgammonBoardState,
    DeviceFamily,
    DeviceHello,
    Report,
)
from devices.wire.codec import PROTOCOL_VERSION

BETWEEN_MATCHES_S = 60.0

__all__ = ["BackgammonBoard", "BackgammonMatchSim", "Board", "Fault", "MatchOptions", "Resume", "plays"]


class BackgammonBoard(SimulatedWireDevice):
    """A simulated Boardcast Wire backgammon board; run it on a pty master fd or a stream pair."""

    noun = "backgammon board"
    short_noun = "board"

    def __init__(
        self,
        device_id: str,
        *,
        seed: int,
        speed: float = 1.0,
        matches: int = 1,
        boot_epoch: int | None = None,
        options: MatchOptions | None = None,
        faults: Collection[Fault] | Mapping[Fault, float] | None = None,
        resume: Resume | None = None,
        first_seq: int = 0,
        battery: int | None = 92,
        token: str | None = None,
    ) -> None:
        super().__init__(
            device_id,
            speed=speed,
            matches=matches,
            boot_epoch=boot_epoch,
            first_seq=first_seq,
            battery=battery,
            token=token,
        )
        options = options or MatchOptions()
        self.options = options if faults is None else replace(options, faults=faults)
        self._seed = seed
        self._sim = BackgammonMatchSim(seed, self.options, resume)
        self._shown: BackgammonBoardState = self._initial_display(resume)
        self._past: list[BackgammonMatchSim] = []
        self.sent: list[Report] = []  # every STATE and EVENT of the match play, in order

    def _initial_display(self, resume: Resume | None) -> BackgammonBoardState:
        if resume is None:
            return self._sim.state()
        turn = None if resume.phase in ("opening", "match_over") else resume.turn
        return self._sim.state(dice=resume.shown_dice, turn=turn, board=resume.board)

    @property
    def sim(self) -> BackgammonMatchSim:
        """The match being played now."""
        return self._sim

    @property
    def sims(self) -> list[BackgammonMatchSim]:
        """Every match played so far, the current one last."""
        return [*self._past, self._sim]

    @property
    def state(self) -> BackgammonBoardState:
        """What the board shows now."""
        return self._shown

    @property
    def hello(self) -> DeviceHello:
        """The HELLO this device sends."""
        return DeviceHello(
            device_id=self.device_id,
            family=DeviceFamily.BACKGAMMON_BOARD.value,
            model="BC-BG1 simulator",
            firmware="sim-1.0",
            protocol=PROTOCOL_VERSION,
            boot_epoch=self.boot_epoch,
            capabilities=("resync", "show_text", "ack"),
        )

    def current_state(self) -> BackgammonBoardState:
        """What the board shows, sent at boot and on resync."""
        return self._shown

    async def _play(self) -> None:
        for number in range(self.matches):
            if number > 0:
                await asyncio.sleep(BETWEEN_MATCHES_S / self.speed)
                self._past.append(self._sim)
                self._sim = BackgammonMatchSim(self._seed + number, self.options)
            while not self._sim.finished:
                for pause, report in self._sim.step():
                    await asyncio.sleep(pause / self.speed)
                    await self._send_play(report)
            self.matches_played += 1
        self.done.set()

    async def _send_play(self, report: Report) -> None:
        if isinstance(report, BackgammonBoardState):
            self._shown = report
        self.sent.append(report)
        await self._send(report)


def main(argv: Sequence[str] | None = None) -> int:
    """Run a simulated backgammon board on a new pty and print its path."""
    parser = simulator_parser(
        "python -m boardcast_sim.backgammon",
        __doc__,
        device_id="bg-sim-1",
        seed=random.SystemRandom().randrange(2**32),
        faults=[fault.value for fault in Fault],
        fault_help="make this error once per match (repeatable)",
    )
    parser.add_argument("--length", type=int, default=5, help="match length in points")

    def board(args: argparse.Namespace) -> BackgammonBoard:
        return BackgammonBoard(
            args.device_id,
            seed=args.seed,
            speed=args.speed,
            matches=args.matches,
            options=MatchOptions(length=args.length),
            faults={Fault(name) for name in args.fault},
        )

    return run_on_new_pty(parser, argv, board)


if __name__ == "__main__":
    sys.exit(main())
