"""No device family is named outside its own folder and the registry: the hub reaches families only there.

What is checked, in every .py file under `hub/` and under `devices/` except `devices/<family>/` (a family's own
folder, for each family in `devices.registry.FAMILIES`) and `devices/registry.py`:

- each family's name and its `protocol=` value as a word or an identifier's part, case-insensitive
  (`dgt`, `DgtSession`, `chessnut`, `dscore`, `D-SCORE`), for every family but the first;
- the first family's (Boardcast Wire's) folder and identifiers: `devices.wire`, `devices/wire/`, a quoted
  "wire", `protocol=wire`, `wire` as an identifier's part (`parse_wire_ble_url`), and `Wire` as a capitalised word that is not part of its protocol's name
  "Boardcast Wire" (the name of the protocol the whole system speaks may appear in prose, and "wire" in
  lower case is the English word, as in "wire formats").

A hit fails the test with file:line and the line. `STILL_NAMED` lists the places that name a family on
purpose or for now, each with why; a listed text that no longer occurs fails too, so the list only shrinks.
"""

from __future__ import annotations

import re
from pathlib import Path

from devices.registry import FAMILIES

ROOT = Path(__file__).resolve().parent.parent

# path (relative to the repository) -> (texts a hit's line may contain, or None for the whole file; why)
STILL_NAMED: dict[str, tuple[tuple[str, ...] | None, str]] = {
    "devices/family.py": (
        ("from devices.wire.messages import",),
        "the command vocabulary every family's session takes is Boardcast Wire's; the hub takes it from here",
    ),
    "devices/command.py": (
        None,
        "the command vocabulary is the Wire protocol's (shared by every family's commands)",
    ),
    "devices/synthetic.py": (
        ("from devices.wire.codec import PROTOCOL_VERSION",),
        "the HELLO said for a device without one carries the hub's protocol version",
    ),
    "devices/transports/tcp.py": (
        None,
        "the TCP gateway reads a Wire HELLO to prove a token: Wire's own transport",
    ),
    "hub/rules/chess/check.py": (
        None,
        "`boardcast check chess --dgt` reads a DGT capture: the check's input",
    ),
    "hub/rules/chess/sport.py": (
        ("DGT capture", "--dgt", 'options.get("dgt")'),
        "the chess check's `--dgt` option (user-facing, must not change) and its help",
    ),
}


def _patterns() -> list[re.Pattern[str]]:
    first, *others = FAMILIES
    names = {n for f in others for n in (f.name, f.protocol)}
    spelled = "|".join(re.escape(n).replace("score", "-?score") for n in sorted(names))
    return [
        re.compile(rf"(?i)(?<![a-z])({spelled})"),
        re.compile(
            rf"devices[./]{first.name}\b|[\"']{first.protocol}[\"']|protocol={first.protocol}\b"
            rf"|(?<!Boardcast ){first.name.capitalize()}\b|(?<![a-z]){first.name}_|_{first.name}\b"
        ),
    ]


def _checked_files() -> list[Path]:
    family_dirs = tuple(ROOT / "devices" / f.name for f in FAMILIES)
    files = sorted((ROOT / "hub").rglob("*.py")) + sorted((ROOT / "devices").rglob("*.py"))
    return [
        p
        for p in files
        if p != ROOT / "devices" / "registry.py" and not any(p.is_relative_to(d) for d in family_dirs)
    ]


def _hits() -> list[tuple[str, int, str]]:
    patterns = _patterns()
    hits = []
    for path in _checked_files():
        rel = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(p.search(line) for p in patterns):
                hits.append((rel, number, line.strip()))
    return hits


def _allowed(rel: str, line: str) -> bool:
    if rel not in STILL_NAMED:
        return False
    texts, _ = STILL_NAMED[rel]
    return texts is None or any(t in line for t in texts)


def test_no_family_is_named_outside_its_folder_and_the_registry() -> None:
    unexpected = [f"{rel}:{n}: {line}" for rel, n, line in _hits() if not _allowed(rel, line)]
    assert not unexpected, "a device family named outside devices/<family>/:\n" + "\n".join(unexpected)


def test_every_place_still_named_still_names_a_family() -> None:
    hits = _hits()
    stale = [
        f"{rel}: {text or '(whole file)'}"
        for rel, (texts, _) in STILL_NAMED.items()
        for text in (texts or (None,))
        if not any(r == rel and (text is None or text in line) for r, _, line in hits)
    ]
    assert not stale, "STILL_NAMED lists places that no longer name a family; remove them:\n" + "\n".join(
        stale
    )


def test_the_patterns_catch_what_they_are_for() -> None:
    patterns = _patterns()
    caught = [
        "from devices.dgt.session import DgtSession",
        "a Chessnut board",
        "DScoreSession(url)",
        "D-SCORE wristbands",
        "from devices.wire.codec import Frame",
        'if protocol == "wire":',
        "a Wire chess clock",
        "parse_wire_ble_url(url)",
    ]
    passed = ["Boardcast Wire frames", "the wire text of one change", "a chess board", "scoreboard"]
    assert all(any(p.search(t) for p in patterns) for t in caught)
    assert not any(p.search(t) for p in patterns for t in passed)
