"""The `boardcast` command: `demo`, `serve --venue FILE`, `--version`.

Messages are in English and Turkish. Exit codes: 0 done, 1 could not run (damaged log, port in use),
2 bad input (venue file, arguments).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from hub import __version__
from hub.app import HubRuntime
from hub.eventlog import EventLogError
from hub.venue import VenueError, load_venue

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boardcast",
        description="Live hub for tournament halls / Turnuva salonları için canlı veri merkezi.",
    )
    parser.add_argument("--version", action="version", version=f"boardcast {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more / daha ayrıntılı günlük")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def common(p: argparse.ArgumentParser, data_default: str | None) -> None:
        p.add_argument("--data", default=data_default, help="data directory / veri dizini")
        p.add_argument("--host", default="127.0.0.1", help="address to listen on / dinlenecek adres")
        p.add_argument(
            "--port", type=int, default=8000, help="port to listen on / dinlenecek bağlantı noktası"
        )

    demo = commands.add_parser("demo", help="simulated tables, no hardware / donanımsız simülasyon")
    common(demo, "./boardcast-data")
    demo.add_argument("--tables", type=int, default=4, help="simulated tables / simüle masa sayısı")
    demo.add_argument("--speed", type=float, default=1.0, help="simulation speed factor / simülasyon hızı")
    demo.add_argument("--seed", type=int, default=None, help="random seed / rastgele tohum")

    serve = commands.add_parser("serve", help="run a venue / bir salonu çalıştır")
    serve.add_argument("--venue", required=True, type=Path, help="venue file (TOML) / salon dosyası")
    common(serve, None)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    if args.command is None:
        _parser().print_help()
        return EXIT_BAD_INPUT
    if args.tables < 1 if args.command == "demo" else False:
        print("boardcast: --tables must be at least 1 / en az 1 masa", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if args.command == "demo":
            return _run_demo(args)
        return _run_serve(args)
    except VenueError as exc:
        print(f"boardcast: venue file error / salon dosyası hatası:\n  {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except EventLogError as exc:
        print(f"boardcast: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(
            f"boardcast: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}; choose another --port "
            f"/ bu adreste dinlenemiyor; başka bir --port seçin",
            file=sys.stderr,
        )
        return EXIT_FAILED


def _run_serve(args: argparse.Namespace) -> int:
    venue = load_venue(args.venue)
    data = Path(args.data) if args.data else args.venue.parent / f"{args.venue.stem}-data"
    runtime = HubRuntime(venue, data, host=args.host, port=args.port)
    runtime.open()
    url = f"http://{args.host}:{args.port}/"
    where = data.resolve()

    banner = [
        f"Boardcast {__version__}: {venue.name}",
        f"  Spectators / Seyirciler: {url}",
        f"  Data / Veri: {where}",
    ]
    return _run(runtime, banner)


def _run_demo(args: argparse.Namespace) -> int:
    from hub.demo import build_demo_venue, scoreboards_for

    demo = build_demo_venue(args.tables)
    data = Path(args.data)
    runtime = HubRuntime(demo.venue, data, host=args.host, port=args.port)
    runtime.open()
    boards = scoreboards_for(demo, runtime.hall.working, speed=args.speed, seed=args.seed)
    url = f"http://{args.host}:{args.port}/"
    where = data.resolve()

    banner = [
        f"Boardcast {__version__} demo: {len(boards)} simulated table-tennis tables",
        f"  Spectators / Seyirciler:  {url}",
        f"  API:                      {url}api/matches",
        f"  Referee token / Hakem anahtarı: {demo.token}",
        f"  Confirm / Onay: curl -X POST -H 'Authorization: Bearer {demo.token}' {url}api/matches/ID/confirm",
        f"  Data / Veri: {where}  (run again to resume / tekrar çalıştırınca devam eder)",
    ]
    boards_running = [lambda b=b, p=p: b.run_on_fd(p.master_fd) for b, p in boards]
    try:
        return _run(runtime, banner, *boards_running)
    finally:
        for pty in demo.ptys:
            pty.close()


def _run(runtime: HubRuntime, banner: list[str], *jobs: Callable[[], Awaitable[None]]) -> int:
    """Serve until Ctrl-C or SIGTERM; print the banner once the server listens."""

    async def announce() -> None:
        await runtime.ready.wait()
        for line in [*banner, "  Stop with Ctrl-C / Durdurmak için Ctrl-C"]:
            print(line, flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(runtime.run(announce, *jobs))
    with contextlib.suppress(OSError):  # stdout may be gone when the terminal closed
        print(
            "Stopped; every accepted event is on disk. / Durduruldu; kabul edilen her olay diskte.",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
