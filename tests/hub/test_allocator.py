"""Memory given back after a burst: when a burst is over, that the pages really go back, and the allocator
the long-running commands choose for themselves."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hub.server import allocator
from hub.server.connections import Unfinished
from hub.server.heap import HeapStats, give_back_after_bursts
from hub.server.limits import WebLimits
from tests.conftest import ROOT, free_port

pytestmark = pytest.mark.skipif(not allocator.can_give_back(), reason="needs glibc's malloc_trim")


def test_an_ebb_is_over_only_when_the_count_has_stopped_falling() -> None:
    unfinished = Unfinished(WebLimits())
    unfinished.high_water = 2000  # as every accept of a burst leaves it
    said = [unfinished.ebbed(held, by=256) for held in (1900, 1500, 600, 40, 40, 40, 40)]
    # still falling: no; two looks without a fall at 40: yes, and once
    assert said == [False, False, False, False, False, True, False]
    said = [unfinished.ebbed(held, by=256) for held in (100, 200, 200, 200, 10, 10, 10)]
    # rising and steady, but never 256 below the mark (now 40, then 200 at most): no
    assert said == [False] * 7


def test_every_accept_raises_the_high_water_mark_between_looks() -> None:
    unfinished = Unfinished(WebLimits())
    assert [unfinished.ebbed(0, by=256) for _ in range(3)] == [False, False, False]
    unfinished.high_water = max(unfinished.high_water, 900)  # what `add` does at each accept
    assert [unfinished.ebbed(0, by=256) for _ in range(3)] == [True, False, False]


async def test_the_give_back_runs_once_per_ebb_and_counts_what_it_returned() -> None:
    answers = [False, True, False, False]
    stats = HeapStats()
    task = asyncio.get_running_loop().create_task(
        give_back_after_bursts(lambda: answers.pop(0) if answers else False, stats, every_s=0.01)
    )
    try:
        async with asyncio.timeout(5):
            while answers:
                await asyncio.sleep(0.01)
    finally:
        task.cancel()
    assert stats.given_back == 1
    assert stats.returned_mb >= 0 and stats.longest_pause_ms > 0


FRAGMENTED = textwrap.dedent(
    """
    import gc, json, sys
    from hub.server import allocator
    kept = []
    chunks = [bytes(200 + i % 300) for i in range(400_000)]  # ~130 MB of small objects
    kept = chunks[::64]  # one in 64 outlives the burst, scattered through the heap
    del chunks
    gc.collect()
    before = allocator.resident_bytes()
    allocator.trim()
    print(json.dumps([before, allocator.resident_bytes(), len(kept)]))
    """
)


@pytest.mark.parametrize("python_malloc", ["malloc", "pymalloc"])
def test_a_trim_returns_pages_between_survivors_only_on_the_c_allocator(python_malloc: str) -> None:
    env = dict(os.environ, PYTHONMALLOC=python_malloc, MALLOC_ARENA_MAX="1")
    out = subprocess.run(
        [sys.executable, "-c", FRAGMENTED], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    before, after, kept = (int(v) for v in out.stdout.strip().strip("[]").split(","))
    returned_mb = (before - after) / (1 << 20)
    assert kept == 6250
    if python_malloc == "malloc":
        assert returned_mb > 100, (before, after)
    else:  # pymalloc's arenas are not the C heap's: the trim cannot reach them (why the hub runs on malloc)
        assert returned_mb < 25, (before, after)


def _environ(pid: int) -> dict[str, str]:
    pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(p.decode().split("=", 1) for p in pairs if b"=" in p)


@pytest.mark.parametrize("chosen", [None, "pymalloc"])
def test_serve_runs_itself_on_the_c_allocator_unless_the_operator_chose(
    tmp_path: Path, chosen: str | None
) -> None:
    venue = tmp_path / "hall.toml"
    venue.write_text('[venue]\nname = "x"\n[[tables]]\nid = "T1"\nsport = "tabletennis"\n', encoding="utf-8")
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONMALLOC", "MALLOC_ARENA_MAX", "GLIBC_TUNABLES")
    }
    if chosen is not None:
        env["PYTHONMALLOC"] = chosen
    command = [sys.executable, "-m", "hub", "serve", "--venue", str(venue), "--port", str(free_port())]
    proc = subprocess.Popen(
        [*command, "--data", str(tmp_path / "data")], cwd=ROOT, env=env, stdout=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 20
        seen: dict[str, str] = {}
        while time.monotonic() < deadline:  # the process replaces itself once, keeping its id
            seen = _environ(proc.pid)
            if chosen is not None or "PYTHONMALLOC" in seen:
                break
            time.sleep(0.05)
        time.sleep(0.3)
        assert proc.poll() is None
        seen = _environ(proc.pid)
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().split(b"\0")
    finally:
        proc.terminate()
        proc.wait(20)
    if chosen is None:
        assert (seen.get("PYTHONMALLOC"), seen.get("MALLOC_ARENA_MAX")) == ("malloc", "1")
        assert seen.get("GLIBC_TUNABLES") == "glibc.malloc.mxfast=0"
    else:
        assert seen.get("PYTHONMALLOC") == chosen and "MALLOC_ARENA_MAX" not in seen
    assert [c.decode() for c in cmdline[1:7]] == command[1:7]
