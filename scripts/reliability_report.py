"""Render docs/RELIABILITY.md from the ledger the reliability tests write (build/reliability.json).

    .venv/bin/python -m pytest tests/reliability            # the tests fill build/reliability.json
    .venv/bin/python -m tests.reliability.fuzz_long --minutes 10 --ledger   # optional: the long fuzz run
    .venv/bin/python scripts/reliability_report.py          # writes docs/RELIABILITY.md

Nothing in the table is written by hand: each row is what one test tried, how many times, and what it saw.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AREAS = [
    "crash safety",
    "device faults",
    "hostile web clients",
    "access",
    "bad requests",
    "bad input",
    "fuzzing",
]


def render(rows: list[dict]) -> str:
    """The Markdown page for the ledger's rows."""
    lines = [
        "# Reliability and security: the faults and attacks tested",
        "",
        "Generated from a test run by `scripts/reliability_report.py`; do not edit by hand. Each row is one "
        "fault or attack a test in `tests/reliability/` (or the long fuzz run) makes, how many times, and "
        "what it observes; a row is recorded only when its test passes.",
        "",
        "Regenerate:",
        "",
        "```",
        ".venv/bin/python -m pytest tests/reliability",
        ".venv/bin/python -m tests.reliability.fuzz_long --minutes 10 --ledger   # optional, minutes",
        ".venv/bin/python scripts/reliability_report.py",
        "```",
        "",
        f"Ledger: `build/reliability.json`, {len(rows)} rows.",
        "",
    ]
    order = {area: i for i, area in enumerate(AREAS)}
    for area in sorted({r["area"] for r in rows}, key=lambda a: (order.get(a, len(AREAS)), a)):
        lines += [
            f"## {area[0].upper()}{area[1:]}",
            "",
            "| Fault or attack | Times | Observed | Test |",
            "|---|--:|---|---|",
        ]
        for row in sorted((r for r in rows if r["area"] == area), key=lambda r: r["fault"]):
            test = row["test"].split("::")[-1] if "::" in row["test"] else row["test"]
            cells = [row["fault"], f"{row['count']:,}", row["observed"], f"`{test}`"]
            lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Read the ledger, write the page."""
    parser = argparse.ArgumentParser(description="Render docs/RELIABILITY.md from build/reliability.json")
    parser.add_argument("--ledger", type=Path, default=ROOT / "build" / "reliability.json")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "RELIABILITY.md")
    args = parser.parse_args(argv)
    try:
        rows = json.loads(args.ledger.read_text())["rows"]
    except (OSError, ValueError, KeyError) as exc:
        print(
            f"reliability_report: cannot read {args.ledger}: {exc}; run the reliability tests first",
            file=sys.stderr,
        )
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(rows))
    print(f"wrote {args.out} ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
