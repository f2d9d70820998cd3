"""`boardcast standings FILE.trf`: the standings of a tournament report file, one JSON line per player or team.

Offline: reads the file, prints, exits. The tie-breaks are --tiebreaks, else the file's own (record 212 or
202), else the defaults (`hub.tournament.tiebreaks.event_tiebreaks`). A file that cannot be read is one line
on stderr naming the place (exit 2); so is an unknown tie-break, and --rounds outside the file's rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from hub.tournament.model import Tournament
from hub.tournament.standings import standings
from hub.tournament.tiebreaks import event_tiebreaks, parse_tiebreaks, stated_text, stated_tiebreaks
from hub.tournament.trf import TrfError, load_trf


def add_standings_parser(commands: Any) -> argparse.ArgumentParser:
    """Add `standings` to a subparsers object; returns its parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "standings",
        help="standings of a tournament report file (TRF) as JSON lines / TRF dosyasından sıralama",
    )
    parser.add_argument("trf", metavar="FILE.trf", help="the tournament report file / turnuva rapor dosyası")
    parser.add_argument("--rounds", type=int, default=None, help="over the first N rounds / ilk N tur")
    parser.add_argument(
        "--tiebreaks",
        default=None,
        help="comma-separated, such as MP,BH-1,GP,DE or BH/C1,SB / virgülle ayrılmış eşitlik bozma ölçütleri",
    )
    parser.set_defaults(handler=run_standings)
    return parser


def run_standings(args: argparse.Namespace) -> int:
    """Print the standings; 2 for a bad file, a bad round count or an unknown tie-break."""
    try:
        names = [n for n in (args.tiebreaks or "").split(",") if n.strip()]
        named = parse_tiebreaks(names) if names else None
        tournament = load_trf(args.trf)
        _check_rounds(args.rounds, tournament)
        lines = standings(tournament, args.rounds, event_tiebreaks(tournament, named))
    except (TrfError, ValueError) as exc:
        print("boardcast standings: " + " ".join(str(exc).split()), file=sys.stderr)  # one line
        return 2
    if named is None and stated_tiebreaks(tournament) is None and stated_text(tournament):
        print(
            f"{args.trf}: the file's tie-breaks ({stated_text(tournament)}) are not all known here for this "
            f"event; the defaults are used / dosyadaki eşitlik bozma ölçütleri tanınmadı, varsayılanlar "
            f"kullanıldı",
            file=sys.stderr,
        )
    try:
        for line in lines:
            print(json.dumps(line.to_json(), ensure_ascii=False))
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
    return 0


def _check_rounds(rounds: int | None, tournament: Tournament) -> None:
    """--rounds counts from 1 up to the rounds the file has."""
    if rounds is not None and not 1 <= rounds <= tournament.rounds:
        raise ValueError(
            f"--rounds {rounds}: the file has rounds 1 to {tournament.rounds} "
            f"/ dosyada 1 ile {tournament.rounds} arası turlar var"
        )
