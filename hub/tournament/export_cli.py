"""`boardcast round export`: a round's results from a hall's data directory, as a report file, PGN or CSV.

Thin: the venue file says which matches make the round and where the report file is; the data directory's
log, read without writing (a hub may be running on it), says how each match stands; `hub.tournament.export`
makes the text. A refusal is one line in English and Turkish, exit 2; nothing is written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hub.log.eventlog import EventLogError
from hub.matches.naming import sport_names
from hub.server.startup import EXIT_BAD_INPUT, EXIT_FAILED, venue_data_dir
from hub.tournament.export import (
    Exported,
    ExportError,
    ExportFormat,
    check_round,
    export_round_file,
    read_round,
)
from hub.tournament.trf import TrfError
from hub.venue import Venue, VenueError, load_venue

PROG = "boardcast round export"


def add_export_parser(
    round_commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """Add `export` to the `round` command's subparsers; its handler is `run_round_export`."""
    paired, drawn = sport_names(ExportFormat.TRF.sports), sport_names(ExportFormat.CSV.sports, ("and", "ve"))
    export = round_commands.add_parser(
        "export",
        help="a round's results as a report file, PGN or CSV / bir turun sonuçları (TRF, PGN ya da CSV)",
        description="A round's results from the hub's data directory (read-only, beside a running hub): "
        "confirmed ones, or with --live every one / Bir turun sonuçları, hub'ın veri dizininden (salt "
        "okunur, çalışan hub'ın yanında): onaylı olanlar, --live ile hepsi",
    )
    export.add_argument("--round", type=int, required=True, help="the round / tur")
    export.add_argument(
        "--format",
        choices=[f.value for f in ExportFormat],
        required=True,
        help=f"trf: the [tournament] report file with the round's {paired[0]} results; pgn: the round's "
        f"{paired[0]} games; csv: its {drawn[0]} matches / trf: turun {paired[1]} sonuçlarıyla [tournament] "
        f"rapor dosyası; pgn: turun {paired[1]} oyunları; csv: {drawn[1]} maçları",
    )
    export.add_argument("--venue", type=Path, required=True, help="venue file (TOML) / salon dosyası")
    export.add_argument(
        "--data",
        type=Path,
        default=None,
        help="the hub's data directory; by default, as `boardcast serve`: VENUE-data beside the venue file "
        "/ merkezin veri dizini",
    )
    export.add_argument(
        "--live",
        action="store_true",
        help="also results not yet confirmed by a referee / hakemin henüz onaylamadığı sonuçlar da",
    )
    export.add_argument("--output", type=Path, default=None, help="write here, not to stdout / çıktı dosyası")
    export.set_defaults(handler=run_round_export)
    return export


def run_round_export(args: argparse.Namespace) -> int:
    """Run `round export`: the text on stdout (or --output), a summary on stderr; 2 on a refusal."""
    try:
        venue = load_venue(args.venue)
        exported = export_round(
            venue, venue_data_dir(args.venue, args.data), args.round, ExportFormat(args.format), args.live
        )
    except VenueError as exc:
        return _refuse(f"venue file error / salon dosyası hatası: {exc}")
    except (ExportError, TrfError) as exc:
        return _refuse(str(exc))
    except EventLogError as exc:  # a damaged log: as `serve` says it
        print(f"{PROG}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.output is None:  # the bytes as they are: a report file keeps its encoding and line breaks
        sys.stdout.flush()
        sys.stdout.buffer.write(exported.data)
        sys.stdout.buffer.flush()
    else:
        try:
            args.output.write_bytes(exported.data)
        except OSError as exc:
            return _refuse(f"{args.output}: cannot be written ({exc.strerror}) / dosya yazılamıyor")
    if exported.summary:
        print(f"{PROG}: {exported.summary}", file=sys.stderr)
    return 0


def export_round(venue: Venue, data_dir: Path, round_number: int, fmt: ExportFormat, live: bool) -> Exported:
    """The round's export from the data directory's log, with a summary line (empty when nothing to say)."""
    check_round(venue, round_number, fmt)  # before the log is opened: a wrong format needs no data
    matches = read_round(venue, data_dir, round_number)
    return export_round_file(venue, matches, round_number, fmt, live=live)


def _refuse(message: str) -> int:
    print(f"{PROG}: {' '.join(message.split())}", file=sys.stderr)  # one line, whatever the message held
    return EXIT_BAD_INPUT
