"""The benchmark harness runs end to end at tiny sizes: one row per benchmark, with numbers, exit code 0.

No timing is asserted: figures on a shared CI machine say nothing; the harness working does.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from benchmarks.__main__ import BENCHMARKS

ROOT = Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"\d")


def test_smoke_run_prints_a_row_per_benchmark(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--smoke", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # every benchmark at smoke size, one after another (each ≤ 15 s of work)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {}
    for line in proc.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 6 and cells[0] in BENCHMARKS:
            rows[cells[0]] = cells
    assert set(rows) == set(BENCHMARKS), proc.stdout
    for name, (_, ours, _baseline, _ratio, target, result) in rows.items():
        assert NUMBER.search(ours), f"{name}: no figure in {ours!r}"
        assert result in ("pass", "FAIL"), f"{name}: {result}"
        assert target, name
        assert f"{name} (" in proc.stdout, f"{name}: sizes line missing"
    saved = json.loads(out.read_text())
    assert {r["name"] for r in saved["results"]} == set(BENCHMARKS)
    # figures depend on the interpreter's build, so the run says which it was
    assert f"interpreter: cpython {sys.version_info[0]}.{sys.version_info[1]}." in proc.stdout
    assert saved["interpreter"] in proc.stdout and "libpython" in saved["interpreter"]
