"""The long fuzz run, outside CI: `python -m tests.reliability.fuzz_long --minutes 10 [--seed N]`.

Round-robin over every target in `fuzz_targets`, half random bytes and half mutated real inputs, until the
time is up; prints the count of inputs per target and every crash (with the seed that reproduces it).
Exit code 0 when nothing crashed, 1 otherwise. With `--ledger`, the run's figures are added to
`build/reliability.json`, the source of `docs/RELIABILITY.md`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections import Counter

from tests.reliability.conftest import LEDGER
from tests.reliability.fuzz_targets import SEEDS, TARGETS, mutate


def main(argv: list[str] | None = None) -> int:
    """Fuzz until the time is up; report counts and crashes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--ledger", action="store_true", help=f"add the figures to {LEDGER}")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    crashes: list[str] = []
    end = time.monotonic() + args.minutes * 60
    names = sorted(TARGETS)
    print(f"fuzzing {len(names)} targets for {args.minutes:g} min, seed {seed}", flush=True)
    while time.monotonic() < end:
        for name in names:
            case = rng.randrange(2**32)
            case_rng = random.Random(case)
            if case % 2:
                data = case_rng.randbytes(case_rng.randint(0, 600))
            else:
                data = mutate(case_rng.choice(SEEDS[name]), case_rng, case_rng.randint(1, 12))
            counts[name] += 1
            try:
                TARGETS[name](data)
            except Exception:
                crashes.append(f"{name}: case {case}\n{traceback.format_exc()}")
    for name in names:
        print(f"  {name:28} {counts[name]:>9} inputs")
    print(f"total {sum(counts.values())} inputs, {len(crashes)} crashes")
    for crash in crashes[:20]:
        print(crash, file=sys.stderr)
    if args.ledger:
        _record(args.minutes, seed, counts, len(crashes))
    return 1 if crashes else 0


def _record(minutes: float, seed: int, counts: Counter[str], crashes: int) -> None:
    try:
        rows = json.loads(LEDGER.read_text())["rows"]
    except (OSError, ValueError, KeyError):
        rows = []
    fault = "long fuzz run of every codec and check reader (outside CI)"
    rows = [r for r in rows if r["fault"] != fault]
    rows.append(
        {
            "fault": fault,
            "area": "fuzzing",
            "count": sum(counts.values()),
            "observed": f"{crashes} crashes in {minutes:g} min (seed {seed}); "
            + ", ".join(f"{name} {n}" for name, n in sorted(counts.items())),
            "test": f"python -m tests.reliability.fuzz_long --minutes {minutes:g} --seed {seed} --ledger",
        }
    )
    LEDGER.parent.mkdir(parents=True, exist_ok=True)
    LEDGER.write_text(json.dumps({"rows": sorted(rows, key=lambda r: (r["area"], r["fault"]))}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
