"""A simulated table-tennis scoreboard that speaks Boardcast Wire, for demos, tests and device makers.

`TableTennisMatchSim` (boardcast_sim.tabletennis_match, re-exported here) is the pure part: a seeded
match under the ITTF rules, singles or doubles, with expedite, time-outs, cards and injectable faults.
`TableTennisScoreboard` is the device: it boots, says HELLO, sends a STATE frame after each rally and an
EVENT frame for each time-out, card and expedite call, sends heartbeats when idle and answers resync
commands, over a pseudo-terminal fd or an asyncio stream pair.
Run ``python -m boardcast_sim.tabletennis --pty`` to get a pty path to point a hub at.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from boardcast_sim.tabletennis_match import RALLY_SECONDS, TableTennisMatchSim, game_over
from boardcast_sim.tabletennis_options import (
    PLAIN_MATCH,
    CardPlan,
    EventKind,
    ExpeditePlan,
    Fault,
    MatchOptions,
    Ruleset,
    TimeOutPlan,
)
from boardcast_sim.wire_device import SimulatedWireDevice, run_on_new_pty, simulator_parser
from devices.observations import DeviceEvent, DeviceFamily, DeviceHello, ScoreboardState
from devices.wire.codec import PROTOCOL_VERSION

BETWEEN_GAMES_S = 30.0
BETWEEN_MATCHES_S = 60.0
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


class TableTennisScoreboard(SimulatedWireDevice):
    """A simulated Boardcast Wire table-tennis scoreboard; run it on a pty master fd or a stream pair."""

    noun = short_noun = "scoreboard"

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
        first_server: int | None = None,  # the toss of the first match; None: from the seed
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
        self.best_of = best_of
        self._seed = seed
        self._timing = random.Random(seed ^ 0x5EED)
        self.options = options if faults is None else replace(options, faults=faults)
        self._sim = TableTennisMatchSim(
            seed,
            best_of,
            first_server=seed % 2 if first_server is None else first_server,
            start=start,
            options=self.options,
        )
        self._past_injected: list[tuple[Fault, int]] = []
        self.history: list[ScoreboardState] = [self._sim.state]  # every display shown, in order
        self.events: list[DeviceEvent] = []  # every match EVENT sent (time-out, card, expedite), in order

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

    def current_state(self) -> ScoreboardState:
        """The display, sent at boot and on resync."""
        return self.state

    async def _play(self) -> None:
        for match_number in range(self.matches):
            if match_number > 0:
                await asyncio.sleep(BETWEEN_MATCHES_S / self.speed)
                self._past_injected.extend(self._sim.injected)
                self._sim = TableTennisMatchSim(
                    self._seed + match_number,
                    self.best_of,
                    (self._seed + match_number) % 2,
                    # the players named to serve and receive first were the first match's (a resumed
                    # match's toss); each later match has a toss of its own
                    options=replace(self.options, first_server_player=None, first_receiver_player=None),
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run a simulated scoreboard on a new pty and print its path."""
    parser = simulator_parser(
        "python -m boardcast_sim.tabletennis",
        __doc__,
        device_id="tt-sim-1",
        seed=int(time.time()),
        faults=[fault.value for fault in Fault],
        fault_help="inject this display error once per match (repeatable)",
    )
    parser.add_argument("--doubles", action="store_true", help="play doubles (server_player A1..B2 shown)")
    parser.add_argument(
        "--showcase", action="store_true", help="a time-out, a yellow card, expedite in game 3"
    )

    def board(args: argparse.Namespace) -> TableTennisScoreboard:
        showcase = MatchOptions.showcase(doubles=args.doubles)
        return TableTennisScoreboard(
            args.device_id,
            seed=args.seed,
            speed=args.speed,
            matches=args.matches,
            options=showcase if args.showcase else MatchOptions(doubles=args.doubles),
            faults={Fault(name) for name in args.fault},
        )

    return run_on_new_pty(parser, argv, board)


if __name__ == "__main__":
    sys.exit(main())
