"""`boardcast round import FILE --round N --venue hall.toml`: a round of the pairing program into the venue file.

FILE is the pairing program's report file (`.trf`, individual or team: the sport with paired rounds) or a draw
(`.csv`: the other sports, `hub.tournament.draw`). The new entries are appended to the venue file, which keeps every byte it had;
`--print` prints them and writes nothing. Exit 0 done, 2 bad input (one line on stderr, naming the file,
line and column when a file is wrong), 1 the venue file could not be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hub.matches.naming import sport_names
from hub.rules.registry import PAIRED_SPORT, SPORTS
from hub.server.startup import EXIT_BAD_INPUT, EXIT_FAILED
from hub.tournament.draw import DRAW_KEYS, DRAW_SPORTS, HEADER, draw_text, plan_csv_draw
from hub.tournament.plan import bye_line, count, forfeit_line
from hub.tournament.rounds import RoundError, RoundPlan, add_to_venue, plan_trf_round
from hub.tournament.trf import TrfError, load_trf
from hub.venue import Venue, VenueError, load_venue


def add_round_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """Add `round import` to the command's subparsers; return `round`'s own subparsers for more actions."""
    round_parser = commands.add_parser(
        "round", help="rounds from the pairing program / eşlendirme programından turlar"
    )
    actions = round_parser.add_subparsers(dest="round_command", metavar="ACTION", required=True)
    paired, drawn = sport_names([PAIRED_SPORT]), sport_names(DRAW_SPORTS)
    imp = actions.add_parser(
        "import",
        help="add a round's games to the venue file / bir turun maçlarını salon dosyasına ekle",
        description=f"FILE.trf: a {paired[0]} round from the pairing program's report file; FILE.csv: a "
        f"{drawn[0]} draw ({HEADER}) / FILE.trf: {paired[1]} turu, FILE.csv: {drawn[1]} kurası ({HEADER})",
    )
    imp.add_argument("file", type=Path, help="the .trf or .csv file / .trf ya da .csv dosyası")
    imp.add_argument(
        "--round",
        type=int,
        help="the round (required for a .trf; a .csv without it gives all its rounds) / tur numarası "
        "(.trf için gerekli; .csv'de verilmezse dosyanın bütün turları)",
    )
    imp.add_argument("--venue", type=Path, required=True, help="the venue file (TOML) / salon dosyası")
    imp.add_argument(
        "--tables",
        help="tables to use in board order: T1-T40 or T1,T2,T5; default: the venue's tables of the sport "
        "in file order / masa sırasıyla kullanılacak masalar: T1-T40 ya da T1,T2,T5; verilmezse salonun "
        "bu spordaki masaları, dosyadaki sırayla",
    )
    imp.add_argument(
        "--time-control",
        help=f"{paired[0]}: every game's time control, \"5400+30\"; default: the report file's own (its 122 "
        f'line) / {paired[1]}: her oyunun süresi, "5400+30"; verilmezse rapor dosyasındaki (122 satırı)',
    )
    for sport, key in DRAW_KEYS.items():
        (en, tr), (what_en, what_tr) = sport_names([sport]), SPORTS[sport].draw_key_help
        imp.add_argument(f"--{key.replace('_', '-')}", type=int, help=f"{en}: {what_en} / {tr}: {what_tr}")
    imp.add_argument(
        "--sport",
        choices=DRAW_SPORTS,
        help="a .csv: only tables of this sport / .csv: yalnızca bu sporun masaları",
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
        return _refuse(
            f"the round could not be added, the venue file is unchanged / tur eklenemedi, salon dosyası "
            f"değişmedi: {exc}"
        )
    except OSError as exc:
        print(
            f"boardcast: {args.venue}: cannot be written ({exc.strerror}) / salon dosyası yazılamadı",
            file=sys.stderr,
        )
        return EXIT_FAILED
    _summary(plan, args.venue)
    return 0


def _plan(args: argparse.Namespace, venue: Venue) -> RoundPlan:
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
            paired = sport_names([PAIRED_SPORT])
            raise RoundError(
                f"--time-control and --tables are for {paired[0]} rounds (.trf); a draw names its tables "
                f"/ --time-control ve --tables {paired[1]} turları (.trf) içindir; kura masaları kendisi yazar"
            )
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise RoundError(f"{path}: cannot be read ({exc.strerror}) / dosya okunamadı") from None
        return plan_csv_draw(
            draw_text(data, str(path)),
            venue,
            args.sport,
            source=str(path),
            round_number=args.round,
            **{key: getattr(args, key) for key in DRAW_KEYS.values()},
        )
    raise RoundError(
        f"{path}: a round comes from a .trf or a .csv file / tur bir .trf ya da .csv dosyasından gelir"
    )


def _refuse(message: str) -> int:
    print(f"boardcast: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _summary(plan: RoundPlan, venue: Path) -> None:
    rounds = ", ".join(str(r) for r in plan.rounds)
    ordinals = ", ".join(f"{r}." for r in plan.rounds)
    several = len(plan.rounds) > 1
    print(
        f"{'Rounds' if several else 'Round'} {rounds} added to {venue} "
        f"/ {ordinals} {'turlar' if several else 'tur'} {venue} dosyasına eklendi:"
    )
    if plan.team_matches:
        n = len(plan.team_matches)
        print(f"  {count(n, 'team match', 'team matches')} / {n} takım maçı")
    if plan.matches:
        n = len(plan.matches)
        print(f"  {count(n, 'match', 'matches')} on {_tables(plan.tables)} / {n} maç")
    team_match_of = {f: t.id for t in plan.team_matches for f in t.forfeits}
    for forfeit in plan.forfeits:
        where = f"{team_match_of[forfeit]} " if forfeit in team_match_of else ""
        print(f"  {where}{forfeit_line(forfeit)}")
    for bye in plan.byes:
        print(f"  {bye_line(bye)}")
    if plan.tournament_trf is not None:
        print(f"  [tournament] trf = {plan.tournament_trf!r} (the hall's event / salonun turnuvası)")
    print(
        "A running hub takes the round from the file within 2 seconds, or at once when the chief referee asks "
        "(POST /api/rounds). / Çalışan merkez turu 2 saniye içinde dosyadan alır; başhakem isterse hemen "
        "(POST /api/rounds)."
    )


def _tables(tables: tuple[str, ...]) -> str:
    """The tables used, each once: "table T1", "tables T1, T2", or "tables T1 … T6" for more than three."""
    distinct = list(dict.fromkeys(tables))
    if len(distinct) == 1:
        return f"table {distinct[0]}"
    if len(distinct) <= 3:
        return f"tables {', '.join(distinct)}"
    return f"tables {distinct[0]} … {distinct[-1]}"
