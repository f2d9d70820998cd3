"""No code outside a sport's own folder names a sport (issue #36): a sport is `hub/rules/<sport>/`.

The test reads every `.py` file of `hub/` outside `hub/rules/` and every file of `web-display/` but a sport's own
page (`web-display/<sport>.js`, its `.css`), and fails listing `file:line` for each word that names a sport (its id, its
name in English, with a space or an underscore; any case), code, docstring and comment alike: what is the
sport's is said in its folder, and the rest of the hub asks it through the registry (`hub.rules.registry`).

`PENDING` lists the files not yet moved to that shape. It may only shrink: a file listed there that no longer
names a sport fails the test too, so that it is struck from the list.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPORT_WORDS = re.compile(r"\b(chess|backgammon|tabletennis|table[ _]tennis)\b", re.IGNORECASE)
SPORT_PAGES = {"tabletennis", "backgammon", "chess"}  # web-display/<sport>.js and its .css

# files that still name a sport, to be moved into their sport's folder or reworded (issue #36)
PENDING = frozenset(
    {
        "web-display/chances.css",
        "web-display/console-queue.js",
        "web-display/console.css",
        "web-display/console.js",
        "web-display/i18n.js",
        "web-display/index.html",
        "web-display/match.css",
        "web-display/match.html",
        "web-display/match.js",
        "web-display/referee-result.js",
        "web-display/standings.js",
        "web-display/team.js",
        "web-display/wall-tiles.js",
        "web-display/wall.css",
        "web-display/wall.js",
    }
)


def _checked() -> list[Path]:
    """The files no sport owns: `hub/**/*.py` outside `hub/rules/`, `web-display/` but the sports' pages."""
    hub = [p for p in (ROOT / "hub").rglob("*.py") if (ROOT / "hub" / "rules") not in p.parents]
    pages = [
        p
        for p in (ROOT / "web-display").rglob("*")
        if p.is_file() and p.stem not in SPORT_PAGES and p.suffix in (".js", ".html", ".css")
    ]
    return sorted(hub + pages)


def _naming() -> dict[str, list[str]]:
    """Each checked file that names a sport, with its `file:line: text` findings."""
    found: dict[str, list[str]] = {}
    for path in _checked():
        name = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SPORT_WORDS.search(line):
                found.setdefault(name, []).append(f"{name}:{number}: {line.strip()}")
    return found


def test_no_code_outside_a_sports_folder_names_a_sport() -> None:
    found = _naming()
    new = [line for name, lines in sorted(found.items()) if name not in PENDING for line in lines]
    assert not new, "a sport named outside its folder (ask hub.rules.registry instead):\n" + "\n".join(new)


def test_the_pending_list_only_shrinks() -> None:
    cleared = sorted(PENDING - set(_naming()))
    assert not cleared, f"no longer naming a sport, strike from PENDING: {', '.join(cleared)}"


def test_the_grep_sees_a_sport_name() -> None:
    """The pattern finds what it is for, so that an empty finding means something."""
    for text in ("Chess", "a backgammon match", "TableTennis", "table tennis", "TABLE_TENNIS"):
        assert SPORT_WORDS.search(text), text
    assert not SPORT_WORDS.search("chessnut") and not SPORT_WORDS.search("tennisball")
