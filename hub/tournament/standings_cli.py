"""`boardcast standings FILE.trf`: the standings of a tournament report file, one JSON line per player or team.

Offline: reads the file, prints, exits. A file that cannot be read is one line on stderr naming the place
(exit 2); so is an unknown tie-break.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hub.tournament.standings import standings
from hub.tournament.tiebreaks import parse_tiebreaks
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
        tiebreaks = parse_tiebreaks(names) if names else None
        tournament = load_trf(args.trf)
        lines = standings(tournament, args.rounds, tiebreaks)
    except TrfError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{args.trf}: {exc.strerror or exc} / dosya okunamadı", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    for line in lines:
        print(json.dumps(line.to_json(), ensure_ascii=False))
    return 0
