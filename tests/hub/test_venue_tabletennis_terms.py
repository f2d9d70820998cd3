"""A table-tennis match's terms in the venue file: each one the rules refuse is named, with the value given,
in English and Turkish (the check is `TableTennisTerms.fault`, the words `hub/rules/tabletennis/venue.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.venue import VenueError, parse_venue

VENUE = """
[venue]
name = "Salon"

[[tables]]
id = "T1"
sport = "tabletennis"

[[matches]]
id = "M1"
table = "T1"
{terms}
"""


def read(terms: str, tmp_path: Path) -> object:
    return parse_venue(VENUE.format(terms=terms), tmp_path / "hall.toml")


@pytest.mark.parametrize(
    ("terms", "field", "words"),
    [
        (
            "best_of = 4",
            "best_of",
            "must be an odd number of games (3, 5, 7), got 4 / oyun sayısı tek olmalı",
        ),
        ('best_of = "5"', "best_of", "got '5' / oyun sayısı tek olmalı (3, 5, 7), verilen '5'"),
        ("best_of = true", "best_of", "got True"),
        (
            'ruleset = "ittf2"',
            "ruleset",
            "got 'ittf2'; did you mean ittf? / şunlardan biri olmalı: ittf, legacy21",
        ),
        ('first_server = "C"', "first_server", "must be one of A, B, got 'C' / şunlardan biri olmalı: A, B"),
        ('first_receiver = "B1"', "first_receiver", "only for doubles: one of B1, B2, A1, A2, got 'B1'"),
        (
            'doubles = true\nplayers = ["a", "b", "c", "d"]\nfirst_server = "A1"\nfirst_receiver = "A2"',
            "first_receiver",
            "must be on the other side from first_server, got 'A2' / ilk servisi atanın karşı tarafından olmalı",
        ),
        (
            'doubles = true\nplayers = ["a", "b", "c", "d"]\nfirst_server = "A"',
            "first_server",
            "must be one of A1, A2, B1, B2, got 'A'",
        ),
    ],
)
def test_a_term_the_rules_refuse_is_named_with_its_value(
    tmp_path: Path, terms: str, field: str, words: str
) -> None:
    with pytest.raises(VenueError) as error:
        read(terms, tmp_path)
    assert error.value.field == f"matches[1].{field}"  # as the file counts its entries, from 1
    assert words in str(error.value)


def test_sound_terms_reach_the_match(tmp_path: Path) -> None:
    terms = 'best_of = 7\nruleset = "legacy21"\ndoubles = true\nplayers = ["a", "b", "c", "d"]\nfirst_server = "B2"'
    match = read(terms + '\nfirst_receiver = "A1"', tmp_path).matches[0]  # type: ignore[attr-defined]
    assert (match.best_of, match.ruleset, match.first_server, match.first_receiver) == (
        7,
        "legacy21",
        "B2",
        "A1",
    )
