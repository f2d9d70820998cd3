"""What the in-process hub tests share: a venue with a referee, a running hub, and a bounded poll."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from hub.matches import MatchInfo
from hub.referee.tokens import hash_token
from hub.server.app import HubRuntime
from hub.venue import RefereeConfig, TableConfig, Venue
from tests.conftest import free_port, get_json

REFEREE_TOKEN = "referee-token-for-tests"


def venue(*tables: TableConfig) -> Venue:
    """One table-tennis match per table, and a chief referee who holds REFEREE_TOKEN."""
    matches = tuple(MatchInfo(f"M-{t.id}", "tabletennis", t.id, 1, ("A", "B"), 5) for t in tables)
    return Venue(
        "Cihaz Testi", tables, matches, (RefereeConfig("Hakem", "chief", hash_token(REFEREE_TOKEN)),)
    )


@asynccontextmanager
async def running_hub(tmp_path: Path, v: Venue, *jobs: Any, **options: Any) -> AsyncIterator[str]:
    """A real hub (server, log, devices) for the block; yields its base URL."""
    runtime = HubRuntime(v, tmp_path / "data", port=free_port(), **options)
    runtime.open()
    async with asyncio.TaskGroup() as tg:
        serving = tg.create_task(runtime.run(*jobs))
        async with asyncio.timeout(10):
            await runtime.ready.wait()
        try:
            yield f"http://127.0.0.1:{runtime.port}/"
        finally:
            runtime.stop()
            await serving


async def until(url: str, predicate: Any, within: float = 10.0) -> Any:
    """GET url until predicate(answer) holds, for at most `within` seconds."""
    async with asyncio.timeout(within):
        while True:
            answer = await asyncio.to_thread(get_json, url)
            if predicate(answer):
                return answer
            await asyncio.sleep(0.05)


def post_json(url: str, body: object, token: str | None = REFEREE_TOKEN) -> tuple[int, dict]:
    """POST a JSON body (as the referee, unless token is None); return the status and the JSON answer."""
    return _ask(urllib.request.Request(url, method="POST", data=json.dumps(body).encode()), token)


def get_json_as(url: str, token: str | None) -> tuple[int, Any]:
    """GET url with a bearer token (none if None); return the status and the JSON answer, errors included."""
    return _ask(urllib.request.Request(url), token)


def _ask(request: urllib.request.Request, token: str | None) -> tuple[int, Any]:
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
