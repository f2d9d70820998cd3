"""A simulated umpire pad: a script in the umpire's place that taps what a match at its table brings, through
the pad's own endpoint (`POST /api/pad/TABLE`, as the page sends it), so a demo shows tables scored without a
device. It scores nothing itself: it sends taps and reads back the hub's view, as the page does.

Table tennis: a rally every few seconds, the match's players each winning their share; at the match's end both
players sign the score, and the next match's first point starts it. Backgammon: a game every minute or so, won
single, gammon or backgammon, the cube at what the game reached (never in the Crawford game), some resigned.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

RALLY_S = 4.0  # seconds a rally takes at speed 1
GAME_S = 90.0  # seconds a backgammon game takes at speed 1
BREAK_S = 60.0  # between two matches at a table, at speed 1


@dataclass(slots=True)
class SimulatedPad:
    """One table's pad, driven by a script: its identity, its taps' numbers, and the hub's last answer."""

    url: str  # the hub, e.g. http://127.0.0.1:8000/
    table: str
    token: str
    sport: str
    seed: int
    speed: float = 1.0
    pad: str = ""
    epoch: int = field(default_factory=lambda: int(time.time() * 1000))
    seq: int = 0
    answer: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.pad = self.pad or f"sim-{self.table}-{self.seed % 10**8:08d}"[:64]

    async def run(self) -> None:
        """Score the table's matches until none is left (then keep the pad open, as an umpire's page stays)."""
        rng = random.Random(self.seed)
        await self.send([])
        while True:
            match = self.answer.get("match")
            if match is None:
                return
            if match["status"] not in ("scheduled", "live"):
                await self.sign_off(match)
                if self.answer.get("next") is None:
                    while True:  # nothing more to score: the page stays open, asking the state
                        await asyncio.sleep(4.0)
                        await self.send([])
                await asyncio.sleep(BREAK_S / self.speed * rng.uniform(0.5, 1.0))
            if self.sport == "backgammon":
                await asyncio.sleep(GAME_S / self.speed * rng.uniform(0.5, 1.5))
                await self.tap("game", self.game(rng))
            else:
                await asyncio.sleep(RALLY_S / self.speed * rng.uniform(0.6, 1.4))
                await self.tap("point", {"side": 0 if rng.random() < 0.52 else 1})

    def game(self, rng: random.Random) -> dict[str, Any]:
        """A backgammon game's result as an umpire enters it: what most games end as, the cube where it went."""
        state = (self.answer.get("match") or self.answer.get("next") or {}).get("state") or {}
        crawford = bool(state.get("crawford_next"))
        value = rng.choices((1, 2, 3), weights=(80, 17, 3))[0]
        cube = 1 if crawford else rng.choice((1, 1, 1, 2, 2, 4))
        return {"winner": rng.randrange(2), "value": value, "cube": cube, "resigned": rng.random() < 0.2}

    async def tap(self, kind: str, data: dict[str, Any]) -> None:
        """One tap, numbered as the page numbers them, sent until the hub has it."""
        self.seq += 1
        await self.send([{"seq": self.seq, "kind": kind, "data": data, "tapped_at": time.time()}])

    async def sign_off(self, match: dict[str, Any]) -> None:
        """Both players confirm the final score on the pad, once."""
        signed = match.get("signoffs") or {}
        for side, said in enumerate(signed.get("sides") or [None, None]):
            if said is None and match["status"] == "finished":
                await asyncio.to_thread(
                    self._post, f"api/pad/{self.table}/signoff", {"side": side, "agree": True}
                )

    async def send(self, reports: list[dict[str, Any]]) -> None:
        """Send `reports` (none: ask the state), again after a pause while the hub cannot be reached."""
        body = {"pad": self.pad, "epoch": self.epoch, "reports": reports}
        while True:
            answer = await asyncio.to_thread(self._post, f"api/pad/{self.table}", body)
            if answer is not None:
                self.answer = answer
                return
            await asyncio.sleep(1.0)

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                answer: dict[str, Any] = json.loads(response.read())
                return answer
        except urllib.error.HTTPError as error:  # refused: the answer says why; the pad keeps its taps
            return None if error.code >= 500 or error.code == 429 else json.loads(error.read() or b"{}")
        except OSError:
            return None
