"""Compile the C reference (firmware-protocols/c) with the system C compiler and run its vector test.

The C code must agree with the hub on every vector, stream and msgpack case, and its payload builders must
produce the Python-generated frames byte for byte. A missing compiler is a failure, never a skip.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
C_DIR = ROOT / "firmware-protocols" / "c"
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
DOC = json.loads((ROOT / "firmware-protocols" / "vectors" / "frames.json").read_text(encoding="utf-8"))


def expected_checks() -> int:
    """What test_vectors.c counts: CRC + writer overflow, each vector, a rebuild of each good vector,
    each stream, each msgpack case and each builder case."""
    good = sum(1 for v in DOC["vectors"] if "frame" in v)
    return (
        2
        + len(DOC["vectors"])
        + good
        + len(DOC["streams"])
        + len(DOC["msgpack_bodies"])
        + len(DOC["c_builders"])
    )


def compiler() -> str:
    found = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if found is None:
        pytest.fail("no C compiler found (cc, gcc or clang): install one, e.g. `apt-get install gcc`")
    return found


@pytest.mark.parametrize("optimise", ["-O0", "-O2"])
def test_c_reference_passes_every_vector(tmp_path: Path, optimise: str) -> None:
    binary = tmp_path / "test_vectors"
    build = subprocess.run(
        [compiler(), *FLAGS, optimise, "-I", str(C_DIR), "-o", str(binary),
         str(C_DIR / "test_vectors.c"), str(C_DIR / "boardcast_wire.c")],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert build.returncode == 0, f"compilation failed:\n{build.stdout}{build.stderr}"
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, f"C vector test failed:\n{run.stdout}{run.stderr}"
    last = run.stdout.strip().splitlines()[-1]
    match = re.fullmatch(r"(\d+) passed, 0 failed", last)
    assert match, f"unexpected summary line {last!r}"
    assert int(match.group(1)) == expected_checks()


def test_library_builds_alone_without_stdio_or_malloc(tmp_path: Path) -> None:
    """The library object must not reference printf/malloc-family symbols (it goes into firmware)."""
    obj = tmp_path / "boardcast_wire.o"
    build = subprocess.run(
        [
            compiler(),
            *FLAGS,
            "-Wconversion",
            "-Wshadow",
            "-O2",
            "-c",
            "-o",
            str(obj),
            str(C_DIR / "boardcast_wire.c"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert build.returncode == 0, f"compilation failed:\n{build.stdout}{build.stderr}"
    nm = shutil.which("nm")
    if nm is None:
        pytest.fail("nm (binutils) is needed to list the library's undefined symbols")
    symbols = subprocess.run([nm, "-u", str(obj)], capture_output=True, text=True, check=True).stdout
    undefined = {line.split()[-1] for line in symbols.splitlines() if line.strip()}
    forbidden = {"malloc", "calloc", "realloc", "free", "printf", "fprintf", "sprintf", "puts", "putchar"}
    assert not (undefined & forbidden), sorted(undefined & forbidden)
