"""No code outside a sport's own folder names a sport (issue #36): a sport is `hub/rules/<sport>/`.

The test reads every `.py` file of `hub/` outside `hub/rules/` and every file of `web-display/` but a sport's own
(`web-display/<sport>.js`, `<sport>-<part>.js`, their `.css`) and the pages' registry of sports
(`web-display/sports.js`, `sports-<page>.css`), and fails listing `file:line` for each word that names a sport (its id, its
name in English, with a space or an underscore; any case), code, docstring and comment alike: what is the
sport's is said in its folder, and the rest of the hub asks it through the registry (`hub.rules.registry`); the
pages ask `web-display/sports.js`.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPORT_WORDS = re.compile(r"\b(chess|backgammon|tabletennis|table[ _]tennis)\b", re.IGNORECASE)
SPORT_PAGES = ("tabletennis", "backgammon", "chess")  # web-display/<sport>.js, <sport>-<part>.js, their .css
PAGES_REGISTRY = (
    "sports"  # web-display/sports.js and sports-<page>.css: the one place the pages list the sports
)


def _checked() -> list[Path]:
    """The files no sport owns: `hub/**/*.py` outside `hub/rules/`, `web-display/` but the sports' pages and
    their registry."""
    hub = [p for p in (ROOT / "hub").rglob("*.py") if (ROOT / "hub" / "rules") not in p.parents]
    pages = [
        p
        for p in (ROOT / "web-display").rglob("*")
        if p.is_file()
        and p.suffix in (".js", ".html", ".css")
        and not (p.stem == PAGES_REGISTRY or p.stem.startswith(f"{PAGES_REGISTRY}-"))
        and not any(p.stem == sport or p.stem.startswith(f"{sport}-") for sport in SPORT_PAGES)
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
    found = [line for _, lines in sorted(_naming().items()) for line in lines]
    assert not found, (
        "a sport named outside its own files (ask hub.rules.registry, or web-display/sports.js):\n"
        + "\n".join(found)
    )


def test_the_grep_sees_a_sport_name() -> None:
    """The pattern finds what it is for, so that an empty finding means something."""
    for text in ("Chess", "a backgammon match", "TableTennis", "table tennis", "TABLE_TENNIS"):
        assert SPORT_WORDS.search(text), text
    assert not SPORT_WORDS.search("chessnut") and not SPORT_WORDS.search("tennisball")
