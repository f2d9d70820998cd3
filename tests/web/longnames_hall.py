"""`python -m tests.web.longnames_hall demo --data DIR --port N …`: the demo hall with long Turkish names.

The same real hub, simulated boards and pages as `boardcast demo` (every option of it is taken), with every
player and team named as long as a hall's longest (24 characters and more): the table-tennis and backgammon
players, and the chess league's report file rewritten into the data directory's parent with long player and
team names in their own columns. Only the names differ from the demo; the layout tests run on both.
"""

from __future__ import annotations

import sys
from pathlib import Path

import boardcast_sim.demo.run
from hub.cli import main as boardcast

# Each at least 24 characters, with the letters that draw widest and the Turkish ones that draw differently.
LONG_NAMES = [
    "Abdurrahman Karamanoğlugil",
    "Gülşen Yıldızoğlu-Kocabıyık",
    "Muhammed Şükrü Çalışkanoğlu",
    "Ayşegül Büyükkaraağaçlıoğlu",
    "Mustafa Kemal Özdemiroğlu",
    "Şehriban Gümüşhanelioğulları",
    "Hüseyin Hüsnü Kahramanmaraşlı",
    "Zübeyde Ilgaz Karaosmanoğlu",
    "İbrahim Halil Değirmencioğlu",
    "Nur Özlem Çağlayangüneşli",
]
LONG_TEAMS = [
    "Karadeniz Ereğli Belediyespor",
    "Büyükşehir Gençlik ve Satranç",
    "Kahramanmaraş Şehitkamil SK",
    "Gaziosmanpaşa Üniversitesi SK",
]
NAME_FIELD = slice(14, 47)  # TRF-16 001: the player's name, columns 15-47
TEAM_FIELD = slice(4, 36)  # TRF-16 013: the team's name, columns 5-36


def long_name(i: int) -> str:
    """The i-th long name (II, III, … keep them apart once the list is used up)."""
    name = LONG_NAMES[i % len(LONG_NAMES)]
    return name + ("", " II", " III", " IV", " V")[i // len(LONG_NAMES)]


def _put(line: str, field: slice, text: str) -> str:
    width = field.stop - field.start
    assert len(text) <= width, f"{text!r} is wider than its {width} columns"
    return line[: field.start] + text.ljust(width) + line[field.stop :]


def long_trf(source: Path, target: Path) -> Path:
    """`source` with every player and team renamed long, each in its columns; written to `target`."""
    lines, players, teams = [], 0, 0
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.startswith("001"):
            line = _put(line, NAME_FIELD, long_name(players))
            players += 1
        elif line.startswith("013"):
            line = _put(line, TEAM_FIELD, LONG_TEAMS[teams % len(LONG_TEAMS)])
            teams += 1
        lines.append(line)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def main(argv: list[str]) -> int:
    """Run `boardcast argv` (`demo …`) with the long names."""
    data = Path(argv[argv.index("--data") + 1])
    event = data.parent / "long-event"
    event.mkdir(parents=True, exist_ok=True)
    boardcast_sim.demo.run.CHESS_EVENT = long_trf(boardcast_sim.demo.run.CHESS_EVENT, event / "demo.trf")
    names = [long_name(i) for i in range(2 * len(boardcast_sim.demo.run.PLAYERS))]
    boardcast_sim.demo.run.PLAYERS = list(zip(names[::2], names[1::2], strict=True))
    boardcast_sim.demo.run.BG_PLAYERS = [
        (long_name(i + 3), long_name(i + 5)) for i in range(len(boardcast_sim.demo.run.BG_PLAYERS))
    ]
    return boardcast(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
