"""A chess result the board cannot see on the far paths: held back by the broadcast delay for spectators while
referees see it at once, and carried over a real Redis to a spectator edge (real `boardcast serve --bus` and
`boardcast edge` processes) with its PGN."""

from __future__ import annotations

import asyncio
import time
import urllib.request
from pathlib import Path

from hub.matches import MatchInfo
from hub.referee.tokens import hash_token
from hub.venue import RefereeConfig, TableConfig, Venue
from tests.conftest import get_json
from tests.hubsupport import REFEREE_TOKEN, get_json_as, post_json, running_hub, until
from tests.test_bus import TOKEN, edge_node, hub_node, redis_server  # noqa: F401  (the real redis-server)

DELAY_S = 2.0
RESIGN = {"action": "result", "result": "0-1", "how": "resignation", "reason": "beyaz terk etti"}


def get_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


async def test_spectators_see_the_result_after_the_broadcast_delay_and_referees_at_once(
    tmp_path: Path,
) -> None:
    venue = Venue(
        "Satranç",
        (TableConfig("C1", "chess"),),
        (MatchInfo("G1", "chess", "C1", 1, ("Ayşe", "Elif"), clock="300+3"),),
        (RefereeConfig("Hakem", "chief", hash_token(REFEREE_TOKEN)),),
        broadcast_delay_s=DELAY_S,
    )
    async with running_hub(tmp_path, venue) as url:
        status, _ = await asyncio.to_thread(post_json, url + "api/matches/G1/actions", RESIGN)
        sent = time.monotonic()
        assert status == 200
        _, seen = await asyncio.to_thread(get_json_as, url + "api/referee/matches", REFEREE_TOKEN)
        assert [m["status"] for m in seen] == ["finished"]  # referees at once
        early = await asyncio.to_thread(get_json, url + "api/matches/G1")
        assert early["state"]["result"] is None and '"0-1"' not in await asyncio.to_thread(
            get_text, url + "pgn/G1.pgn"
        )
        late = await until(
            url + "api/matches/G1", lambda m: m["state"]["result"] == "0-1", within=DELAY_S + 2
        )
        waited = time.monotonic() - sent
        assert DELAY_S - 0.3 <= waited <= DELAY_S + 1.0, waited  # after the delay, within a second of it
        assert late["state"]["result_reason"] == "resignation"
        pgn = await asyncio.to_thread(get_text, url + "pgn/G1.pgn")
        assert '[Result "0-1"]' in pgn and '[Termination "normal"]' in pgn


VENUE = """[venue]
name = "Satranç Salonu"

[[tables]]
id = "C1"
sport = "chess"

[[matches]]
id = "G1"
table = "C1"
players = ["Ayşe", "Elif"]
time_control = "300+3"

[[referees]]
name = "Hakem"
role = "chief"
token_sha256 = "{digest}"
"""


async def test_a_result_reaches_a_spectator_edge_over_redis_within_a_second(
    tmp_path: Path,
    redis_server,  # noqa: F811
) -> None:
    venue = tmp_path / "satranc.toml"
    venue.write_text(VENUE.format(digest=hash_token(TOKEN)), encoding="utf-8")
    hub = hub_node(tmp_path, venue, redis_server.url).start()
    edge = edge_node(tmp_path, venue, redis_server.url, 1).start()
    try:
        await until(edge.url + "api/matches/G1", lambda m: m["status"] == "scheduled")
        status, answer = await asyncio.to_thread(post_json, hub.url + "api/matches/G1/actions", RESIGN, TOKEN)
        sent = time.monotonic()
        assert status == 200, answer
        shown = await until(edge.url + "api/matches/G1", lambda m: m["state"]["result"] == "0-1", within=1.0)
        assert time.monotonic() - sent < 1.0
        assert shown["status"] == "finished" and shown["state"]["result_reason"] == "resignation"
        pgn = await asyncio.to_thread(get_text, edge.url + "pgn/G1.pgn")
        assert '[Result "0-1"]' in pgn and '[Termination "normal"]' in pgn and "terk" not in pgn
        # a referee action on the edge is refused with the hub's address: only the hub records results
        status, _ = await asyncio.to_thread(post_json, edge.url + "api/matches/G1/actions", RESIGN, TOKEN)
        assert status != 200
    finally:
        edge.stop()
        hub.stop()
