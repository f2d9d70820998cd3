"""`boardcast round import FILE --round N --venue hall.toml`: a round of the pairing program into the venue file.

FILE is the pairing program's report file (`.trf`: chess, individual or team) or a draw (`.csv`: table
tennis and backgammon). The new entries are appended to the venue file, which keeps every byte it had;
`--print` prints them and writes nothing. Exit 0 done, 2 bad input (one line on stderr, naming the file,
line and column when a file is wrong), 1 the venue file could not be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hub.startup import EXIT_BAD_INPUT, EXIT_FAILED
from hub.tournament.draw import DRAW_SPORTS, plan_csv_draw
from hub.tournament.rounds import RoundError, RoundPlan, add_to_venue, plan_trf_round
from hub.tournament.trf import TrfError, load_trf
from hub.venue import VenueError, load_venue


def add_round_parser(commands: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """Add `round import` to the command's subparsers; return `round`'s own subparsers for more actions."""
    round_parser = commands.add_parser(
        "round", help="rounds from the pairing program / eşlendirme programından turlar"
    )
    actions = round_parser.add_subparsers(dest="round_command", metavar="ACTION", required=True)
    imp = actions.add_parser(
        "import",
        help="add a round's games to the venue file / bir turun maçlarını salon dosyasına ekle",
        description="FILE.trf: a chess round from the pairing program's report file; FILE.csv: a table tennis "
        "or backgammon draw (round,table,player_a,player_b[,partner_a,partner_b]) / FILE.trf: satranç turu, "
        "FILE.csv: masa tenisi ya da tavla kurası",
    )
    imp.add_argument("file", type=Path, help="the .trf or .csv file / .trf ya da .csv dosyası")
    imp.add_argument(
        "--round",
        type=int,
        help="the round (required for a .trf; a .csv without it gives all its rounds) / tur numarası",
    )
    imp.add_argument("--venue", type=Path, required=True, help="the venue file (TOML) / salon dosyası")
    imp.add_argument(
        "--tables",
        help="tables to use in board order: T1-T40 or T1,T2,T5; default: the venue's free tables of the "
        "sport in file order / kullanılacak masalar",
    )
    imp.add_argument("--time-control", help='chess: every game\'s time control, "5400+30" / satranç süresi')
    imp.add_argument("--best-of", type=int, help="table tennis: games per match when the CSV gives none")
    imp.add_argument("--length", type=int, help="backgammon: match length when the CSV gives none")
    imp.add_argument(
        "--sport", choices=DRAW_SPORTS, help="a .csv: only tables of this sport / yalnızca bu spor"
    )
    imp.add_argument(
        "--print",
        action="store_true",
        help="print the entries, write nothing / yalnızca yazdır, dosyaya ekleme",
    )
    imp.set_defaults(handler=run_round_import)
    return actions


def run_round_import(args: argparse.Namespace) -> int:
    """Plan the round against the venue, then print it (`--print`) or add it to the venue file."""
    try:
        venue = load_venue(args.venue)
        plan = _plan(args, venue)
    except (VenueError, TrfError, RoundError) as exc:
        return _refuse(str(exc))
    if args.print:
        sys.stdout.write(plan.toml())
        return 0
    try:
        add_to_venue(args.venue, plan)
    except VenueError as exc:
        return _refuse(f"the round could not be added, the venue file is unchanged: {exc}")
    except OSError as exc:
        print(f"boardcast: {args.venue}: cannot be written ({exc.strerror}) / yazılamadı", file=sys.stderr)
        return EXIT_FAILED
    _summary(plan, args.venue)
    return 0


def _plan(args: argparse.Namespace, venue) -> RoundPlan:
    path: Path = args.file
    kind = path.suffix.lower()
    if kind == ".trf":
        if args.round is None:
            raise RoundError("a .trf import needs --round N / .trf için --round N gerekli")
        tournament = load_trf(path)
        return plan_trf_round(
            tournament, args.round, venue, args.tables, time_control=args.time_control, trf_path=path
        )
    if kind == ".csv":
        if args.time_control is not None or args.tables is not None:
            raise RoundError(
                "--time-control and --tables are for chess rounds (.trf); a draw names its tables "
                "/ yalnızca satranç için; kura masaları kendisi yazar"
            )
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RoundError(f"{path}: cannot be read ({exc}) / dosya okunamadı") from None
        return plan_csv_draw(
            text,
            venue,
            args.sport,
            source=str(path),
            round_number=args.round,
            best_of=args.best_of,
            length=args.length,
        )
    raise RoundError(f"{path}: a round comes from a .trf or a .csv file / dosya .trf ya da .csv olmalı")


def _refuse(message: str) -> int:
    print(f"boardcast: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _summary(plan: RoundPlan, venue: Path) -> None:
    rounds = ", ".join(str(r) for r in plan.rounds)
    print(f"Round {rounds} added to {venue} / {rounds}. tur {venue} dosyasına eklendi:")
    if plan.team_matches:
        print(f"  {len(plan.team_matches)} team matches / takım maçı")
    tables = f"{plan.tables[0]} … {plan.tables[-1]}" if len(plan.tables) > 2 else ", ".join(plan.tables)
    print(f"  {len(plan.matches)} games on tables {tables} / {len(plan.matches)} maç")
    for forfeit in plan.forfeits:
        print(
            f"  board {forfeit.board}: {forfeit.white} - {forfeit.black} {forfeit.result} (no table / masasız)"
        )
    for bye in plan.byes:
        print(f"  {bye.player} ({bye.number}): {bye.code} {float(bye.points):g} (no game / maçsız)")
    if plan.tournament_trf is not None:
        print(f"  [tournament] trf = {plan.tournament_trf!r} (the hall's event / salonun turnuvası)")
    print("Restart the hub to load the round. / Turun yüklenmesi için merkezi yeniden başlatın.")
