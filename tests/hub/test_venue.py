"""The venue file: a mistake is reported with the file, the line and the field."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hub.venue import VenueError, load_venue

GOOD = """\
[venue]
name = "Ankara Salon 1"

[[tables]]
id = "T1"
sport = "tabletennis"
device = "serial:///dev/ttyUSB0"

[[tables]]
id = "T2"
sport = "tabletennis"

[[matches]]
id = "M1"
table = "T1"
players = ["Ayşe", "Elif"]
best_of = 5

[[referees]]
name = "Hakem Bey"
token_sha256 = "{digest}"
""".replace("{digest}", "a" * 64)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "venue.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_venue_loads(tmp_path: Path) -> None:
    venue = load_venue(write(tmp_path, GOOD))
    assert venue.name == "Ankara Salon 1"
    assert [t.id for t in venue.tables] == ["T1", "T2"]
    assert venue.matches[0].players == ("Ayşe", "Elif")
    assert venue.referees[0].role == "referee"


@pytest.mark.parametrize(
    ("broken", "line", "field"),
    [
        (GOOD.replace('sport = "tabletennis"\ndevice', 'sport = "tenis"\ndevice'), 6, "tables[1].sport"),
        (GOOD.replace("best_of = 5", "best_of = 4"), 17, "matches[1].best_of"),
        (GOOD.replace('table = "T1"', 'table = "T9"'), 15, "matches[1].table"),
        (GOOD.replace('id = "T2"', 'id = "T1"'), 10, "tables[2].id"),
        (GOOD + '\n[[matches]]\nid = "M1"\ntable = "T2"\nplayers = ["A", "B"]\n', 24, "matches[2].id"),
        (GOOD.replace('"a" * 64', "").replace("a" * 64, "xyz"), 21, "referees[1].token_sha256"),
        (GOOD.replace('name = "Ankara Salon 1"', 'name = "Ankara'), 2, "toml"),
    ],
)
def test_each_mistake_names_file_line_and_field(tmp_path: Path, broken: str, line: int, field: str) -> None:
    path = write(tmp_path, broken)
    with pytest.raises(VenueError) as caught:
        load_venue(path)
    assert caught.value.line == line
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{path}:{line}: {field}: ")


def test_serve_with_a_bad_venue_exits_2_with_one_clear_message(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("best_of = 5", 'best_of = "five"'))
    result = subprocess.run(
        [sys.executable, "-m", "hub", "serve", "--venue", str(path), "--data", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert f"{path}:17: matches[1].best_of: must be an odd number" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_venue_file_exits_2(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hub", "serve", "--venue", str(tmp_path / "nope.toml")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "nope.toml: file: no such file" in result.stderr


@pytest.mark.parametrize("document", ["README.md", "docs/VENUE.md"])
def test_the_readmes_venue_example_loads_once_its_hashes_are_filled_in(tmp_path: Path, document: str) -> None:
    """The organiser copies the README's example (and the venue reference's, the same one): it must be a
    venue, with `"…"` standing for the hashes."""
    text = (Path(__file__).resolve().parents[2] / document).read_text(encoding="utf-8")
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    assert example.count('"…"') == 2
    venue_file = tmp_path / "hall.toml"
    venue_file.write_text(example.replace('"…"', f'"{"ab" * 32}"'), encoding="utf-8")
    venue = load_venue(venue_file)
    assert [t.id for t in venue.tables] == ["T1", "T2"] and len(venue.matches) == 2
