"""The reliability tests' ledger: each test records the faults and attacks it tried and what it saw.

`tried(fault, area, count, observed)` adds one row. At the end of the session the rows are merged into
`build/reliability.json` (a row per fault, replaced by the latest run), which
`scripts/reliability_report.py` renders as `docs/RELIABILITY.md`.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LEDGER = Path(os.environ.get("BOARDCAST_RELIABILITY_JSON", ROOT / "build" / "reliability.json"))

_rows: dict[str, dict] = {}

Tried = Callable[..., None]


@pytest.fixture
def tried(request: pytest.FixtureRequest) -> Iterator[Tried]:
    """Record `tried(fault, area=…, count=…, observed=…[, test=…])`; kept only if the test passes."""
    mine: list[dict] = []

    def record(fault: str, *, area: str, count: int, observed: str, test: str | None = None) -> None:
        mine.append(
            {
                "fault": fault,
                "area": area,
                "count": int(count),
                "observed": observed,
                "test": test or request.node.nodeid,
            }
        )

    yield record
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.passed:
        for row in mine:
            _rows[row["fault"]] = row


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Keep the call phase's report on the item, so `tried` knows whether its test passed."""
    report = yield
    if report.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Merge this run's rows into the ledger."""
    if not _rows:
        return
    LEDGER.parent.mkdir(parents=True, exist_ok=True)
    # under pytest-xdist each worker merges its own rows: one at a time, or one would undo another's
    with open(LEDGER.with_name(LEDGER.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            rows = {r["fault"]: r for r in json.loads(LEDGER.read_text())["rows"]}
        except (OSError, ValueError, KeyError):
            rows = {}
        rows.update(_rows)
        LEDGER.write_text(
            json.dumps({"rows": sorted(rows.values(), key=lambda r: (r["area"], r["fault"]))}, indent=1)
        )
