"""The `boardcast` command: `demo`, `serve --venue FILE`, `token add NAME`, `--version`.

Messages are in English and Turkish, one line each. Exit codes: 0 done; 1 could not run (a damaged log, a
port another program holds, the web server's or a device gateway's; an edge's Redis that does not answer, or
no hub of its venue within `--wait-for-hub`); 2 bad input (the venue file, arguments: a port number out of
0-65535, a `--host` that is not an address of this machine, a `--data` that is a file or a directory this
user cannot make or write in; an edge's `--bus` whose name does not resolve, that wants another password or
is not Redis, or that carries other halls but not the venue's). `hub.server.startup` and `hub.bus.check` make the
start-up refusals.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from boardcast_sim.demo import options as demo_options
from devices.transports.tcp import token_digest
from hub import __version__
from hub.bus.url import BusUrlError, check_bus_url, redact
from hub.log.eventlog import EventLogError
from hub.referee.tokens import hash_token, new_token
from hub.rules.registry import SPORTS
from hub.server.allocator import prefer_returning_allocator
from hub.server.startup import EXIT_BAD_INPUT, EXIT_FAILED, StartupError, parse_port, venue_data_dir
from hub.tournament.export_cli import add_export_parser
from hub.tournament.live import check_event
from hub.tournament.round_cli import add_round_parser
from hub.tournament.standings_cli import add_standings_parser
from hub.venue import ID_PATTERN as _DEVICE_ID
from hub.venue import Venue, VenueError, load_venue
from hub.venue.write import append_to_venue, toml_value

if TYPE_CHECKING:  # imported where a hub is run: after `prefer_returning_allocator` (see `_hub_runtime`)
    import uvicorn

    from hub.server.app import HubRuntime

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boardcast",
        description="Live hub for tournament halls / Turnuva salonları için canlı veri merkezi.",
    )
    parser.add_argument("--version", action="version", version=f"boardcast {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more / daha ayrıntılı günlük")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    # checked by parse_port, not argparse: a bad value is one line, not the usage text
    port_help = "port to listen on, 0-65535, 0: any free port / dinlenecek bağlantı noktası"

    def common(p: argparse.ArgumentParser, data_default: str | None) -> None:
        where = data_default or "VENUE-data beside the venue file, as `round export` finds it"
        p.add_argument(
            "--data", default=data_default, help=f"data directory (default: {where}) / veri dizini"
        )
        p.add_argument("--host", default="127.0.0.1", help="address to listen on / dinlenecek adres")
        p.add_argument("--port", default="8000", help=port_help)

    demo = commands.add_parser("demo", help="simulated tables, no hardware / donanımsız simülasyon")
    common(demo, "./boardcast-data")
    demo_options.add_options(demo)

    serve = commands.add_parser("serve", help="run a venue / bir salonu çalıştır")
    serve.add_argument("--venue", required=True, type=Path, help="venue file (TOML) / salon dosyası")
    common(serve, None)
    bus_help = (
        "Redis for several halls: redis://HOST:PORT/N; by default $BOARDCAST_BUS, which keeps a password "
        "out of the process list / birden çok salon için Redis; verilmezse $BOARDCAST_BUS"
    )
    bus_default = os.environ.get("BOARDCAST_BUS") or None
    serve.add_argument("--bus", metavar="URL", default=bus_default, help=bus_help)
    edge = commands.add_parser(
        "edge",
        help="serve spectators of a hall from the bus / bir salonun seyircilerine veri yolundan hizmet",
    )
    edge.add_argument(
        "--bus", metavar="URL", default=bus_default, required=bus_default is None, help=bus_help
    )
    edge.add_argument("--venue", required=True, type=Path, help="the hall's venue file / salon dosyası")
    edge.add_argument("--host", default="127.0.0.1", help="address to listen on / dinlenecek adres")
    edge.add_argument("--port", default="8000", help=port_help)
    edge.add_argument(
        "--wait-for-hub",
        metavar="SECONDS",
        type=float,
        default=30.0,
        help="wait this long for the hall's hub to publish the venue, then exit: 2 if Redis carries other "
        "halls but not this one (a typo in [venue] name), else 1 / merkezin salonu yayınlamasını bu kadar "
        "bekle, sonra çık: Redis başka salonları taşıyıp bunu taşımıyorsa 2 ([venue] name yanlış), yoksa 1",
    )
    devices = commands.add_parser(
        "devices",
        help="list serial ports and nearby BLE devices / seri portları ve yakındaki BLE cihazlarını listele",
    )
    devices.add_argument("--scan", type=float, default=5.0, help="BLE scan seconds / BLE tarama süresi (sn)")

    token = commands.add_parser(
        "device-token", help="make a token for a TCP device / TCP cihazı için belirteç üret"
    )
    token.add_argument("device_id", help="the device id / cihaz kimliği")

    referee_token = commands.add_parser("token", help="referee tokens / hakem anahtarları")
    token_commands = referee_token.add_subparsers(dest="token_command", metavar="ACTION", required=True)
    token_add = token_commands.add_parser(
        "add", help="make a referee's token, shown once / hakem anahtarı üret (bir kez gösterilir)"
    )
    token_add.add_argument("name", help="the referee's name / hakemin adı")
    token_add.add_argument(
        "--role",
        choices=["referee", "chief", "umpire"],
        default="referee",
        help="referee, chief, or umpire (scores only its --tables) / hakem, başhakem ya da yardımcı "
        "hakem (yalnız --tables masalarını puanlar)",
    )
    token_add.add_argument(
        "--tables",
        help="an umpire's tables, comma-separated (T3,T4) / yardımcı hakemin masaları, virgülle",
    )
    token_add.add_argument(
        "--venue",
        type=Path,
        help="venue file to add the referee to; without it the TOML block is printed / hakemin ekleneceği salon dosyası",
    )

    check = commands.add_parser(
        "check", help="audit a recorded match stream (JSON lines) / kayıtlı bir maçı denetle"
    )
    check.add_argument("sport", choices=list(SPORTS), help="the sport / spor dalı")
    check.add_argument(
        "file", nargs="?", help="JSON lines file, '-' for standard input / JSON satırları dosyası"
    )
    for option in (option for sport in SPORTS.values() for option in sport.check_options):
        check.add_argument(
            option.flag,
            help=option.help,
            metavar=option.metavar,
            choices=option.choices,
            default=option.default,
        )
    round_commands = add_round_parser(commands)
    add_export_parser(round_commands)
    add_standings_parser(commands)
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
    problem = _option_problem(args)
    if problem is not None:
        print(f"boardcast: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.command == "devices":
        return _list_devices(args.scan)
    if args.command == "device-token":
        return _device_token(args.device_id)
    if args.command in ("round", "standings"):
        return int(args.handler(args))
    if args.command == "token":
        return _referee_token(args.name, args.role, args.venue, args.tables)
    if args.command == "check":
        return SPORTS[args.sport].check(args.file, vars(args))
    if argv is None and args.command in ("demo", "serve", "edge"):
        prefer_returning_allocator()  # a process that runs for hours gives back what a burst freed
    try:
        if args.command == "demo":
            return _run_demo(args)
        if args.command == "edge":
            return _run_edge(args)
        return _run_serve(args)
    except VenueError as exc:
        print(f"boardcast: venue file error / salon dosyası hatası:\n  {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except StartupError as exc:  # the data directory, --host, a port: says which and why
        print(f"boardcast: {exc}", file=sys.stderr)
        return exc.exit_code
    except EventLogError as exc:
        print(f"boardcast: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:  # anything else the system refused at start (a pseudo-terminal for the demo)
        print(f"boardcast: could not start: {exc} / başlatılamadı", file=sys.stderr)
        return EXIT_FAILED


def _option_problem(args: argparse.Namespace) -> str | None:
    """Why the command line's options cannot be used, in one line, or None; `--port` becomes a number."""
    if args.command == "demo" and (problem := demo_options.option_problem(args)) is not None:
        return problem
    if args.command == "edge" and not 0 <= args.wait_for_hub <= 86_400:
        return "--wait-for-hub must be 0 to 86400 seconds / 0-86400 saniye olmalı"
    if args.command in ("demo", "serve", "edge"):
        try:
            args.port = parse_port(args.port)
        except StartupError as exc:
            return str(exc)
    return None


def _url(host: str, port: int) -> str:
    """The address a banner shows for host:port."""
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def _list_devices(scan_seconds: float) -> int:
    """Print serial ports, then nearby BLE devices Boardcast can talk to (or why there are none)."""
    from serial.tools import list_ports

    from devices.registry import ble_protocol_of
    from devices.transports.ble import BluetoothUnavailable, scan_nearby

    ports = sorted(list_ports.comports(), key=lambda p: p.device)
    print(f"Serial ports / Seri portlar: {len(ports)}")
    for port in ports:
        ids = f" [{port.vid:04x}:{port.pid:04x}]" if port.vid is not None and port.pid is not None else ""
        print(f"  serial://{port.device}  {port.description or ''}{ids}")
    try:
        nearby = asyncio.run(scan_nearby(scan_seconds, ble_protocol_of))
    except BluetoothUnavailable as exc:
        print(str(exc).splitlines()[0])
        return 0
    print(f"Bluetooth LE devices / BLE cihazları: {len(nearby)}")
    for device in nearby:
        print(f"  {device.url}  {device.name or '?'}  {device.rssi} dBm")
    return 0


def _device_token(device_id: str) -> int:
    """Print a new device token once, and the venue-file line that holds only its hash."""
    if not _DEVICE_ID.match(device_id):
        print(
            f"boardcast: {device_id!r} is not a device id (letters, digits, '-', '_', '.') / geçersiz kimlik",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    token = new_token()
    print(
        f"Token for {device_id} (shown once; put it in the device) / {device_id} belirteci (bir kez gösterilir):"
    )
    print(f"  {token}")
    print("Venue file, in the device's [[tables]] entry / Salon dosyasına:")
    print(f'  device_id = "{device_id}"')
    print(f'  device_token_sha256 = "{token_digest(token)}"')
    return 0


def _referee_token(name: str, role: str, venue_path: Path | None, tables_arg: str | None = None) -> int:
    """Make a referee's or an umpire's token: the venue file gets only its hash; the token is printed once."""
    name = name.strip()
    if not name:
        print("boardcast: the referee needs a name / hakemin adı gerekli", file=sys.stderr)
        return EXIT_BAD_INPUT
    tables = [t.strip() for t in (tables_arg or "").split(",") if t.strip()]
    if (role == "umpire") != bool(tables):
        print(
            "boardcast: an umpire needs --tables (T3,T4), and only an umpire takes them / yardımcı hakeme "
            "--tables gerekli; hakem ve başhakeme verilmez",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    token = new_token()
    block = (
        f"[[referees]]\nname = {toml_value(name)}\nrole = {toml_value(role)}\n"
        + (f"tables = {toml_value(tuple(tables))}\n" if tables else "")
        + f'token_sha256 = "{hash_token(token)}"\n'
    )
    if venue_path is not None:
        try:
            venue = load_venue(venue_path)
        except VenueError as exc:
            print(f"boardcast: venue file error / salon dosyası hatası:\n  {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        unknown = [t for t in tables if t not in {table.id for table in venue.tables}]
        if unknown:
            known = ", ".join(t.id for t in venue.tables)
            print(
                f"boardcast: {venue_path} has no table {', '.join(unknown)} (its tables: {known}); nothing was "
                f"added / salon dosyasında bu masa yok, bir şey eklenmedi",
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
        if any(r.name == name for r in venue.referees):
            print(
                f"boardcast: {venue_path} already has a referee named {name!r}; choose another name "
                f"/ bu adla bir hakem zaten var",
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
        try:  # the file must still be a venue: else it stays as it was
            append_to_venue(venue_path, block)
        except VenueError as exc:
            print(
                f"boardcast: the token could not be added, file unchanged: {exc} / anahtar eklenmedi",
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
        print(f"Added {role} {name!r} to {venue_path} / {venue_path} dosyasına eklendi.")
        print(
            "A running hub accepts the token within 2 seconds. / Çalışan merkez anahtarı 2 saniye içinde tanır."
        )
    else:
        print("Add this to the venue file / Salon dosyasına ekleyin:")
        print(block)
    whom = "the umpire" if role == "umpire" else "the referee"
    print(f"Token for {name} (shown once; give it to {whom}) / {name} anahtarı (bir kez gösterilir):")
    print(f"  {token}")
    return 0


def _hub_runtime() -> type[HubRuntime]:
    """The hub, imported only when one is to run: `main` may first restart the process onto the allocator
    (`prefer_returning_allocator`), and imported at the top of this module its 1.2 s of imports (the web
    server, every device session) were paid twice by every `boardcast serve` and `demo`."""
    from hub.server.app import HubRuntime

    return HubRuntime


def _run_serve(args: argparse.Namespace) -> int:
    venue = load_venue(args.venue)
    check_event(venue)
    data = venue_data_dir(args.venue, args.data)
    if args.bus is not None and not _bus_url_ok(args.bus):
        return EXIT_BAD_INPUT
    runtime = _hub_runtime()(venue, data, host=args.host, port=args.port, bus_url=args.bus)
    runtime.open()
    url = _url(args.host, runtime.port)
    where = data.resolve()

    banner = [
        f"Boardcast {__version__}: {venue.name}",
        f"  Spectators / Seyirciler: {url}",
        f"  Referee console / Hakem masası: {url}console",
        f"  Data / Veri: {where}",
    ]
    if runtime.bus is not None:
        banner.append(f"  Bus / Veri yolu: {redact(args.bus)} (stream {runtime.bus.keys.stream})")
    return _run(runtime, banner)


def _bus_url_ok(url: str) -> bool:
    """Check a --bus URL before anything starts; print why it is refused."""
    try:
        check_bus_url(url)
    except BusUrlError as exc:
        print(f"boardcast: --bus {exc}", file=sys.stderr)
        return False
    return True


def _check_edge_bus(url: str, venue: Venue, wait_for_hub_s: float) -> None:
    """The edge's start check (`hub.bus.check`): StartupError, the line to print, when Redis or the venue is
    not there; Ctrl-C while it waits for the hub stops the start."""
    from hub.bus.check import check_edge_start

    def waiting(others: list[str]) -> None:
        carries = f" (it carries {', '.join(map(repr, others))})" if others else ""
        print(
            f"Waiting up to {wait_for_hub_s:g} s for the hub of {venue.name!r} to publish on {redact(url)}"
            f"{carries} / merkezin yayın yapması bekleniyor",
            flush=True,
        )

    try:
        asyncio.run(check_edge_start(url, venue, wait_for_hub_s=wait_for_hub_s, waiting=waiting))
    except KeyboardInterrupt:
        raise StartupError(
            "stopped while waiting for the hub / merkez beklenirken durduruldu", EXIT_FAILED
        ) from None


def _run_edge(args: argparse.Namespace) -> int:
    """A spectator edge: no devices, no data directory; the hall's public state comes from the bus."""
    from hub.bus.edge import EdgeRuntime
    from hub.server.startup import listen

    venue = load_venue(args.venue)
    check_event(venue)
    if not _bus_url_ok(args.bus):
        return EXIT_BAD_INPUT
    runtime = EdgeRuntime(venue, args.bus, host=args.host, port=args.port)
    # --host and --port first, refused the same way whatever the bus does; but the port is taken only once
    # the bus is there, so a load balancer never sends spectators to an edge still waiting for its hub
    listen(args.host, args.port).close()
    _check_edge_bus(args.bus, venue, args.wait_for_hub)
    runtime.open()
    url = _url(args.host, runtime.port)

    banner = [
        f"Boardcast {__version__} spectator edge / seyirci sunucusu: {venue.name}",
        f"  Spectators / Seyirciler: {url}",
        f"  Bus / Veri yolu: {redact(args.bus)} (stream {runtime.reader.keys.stream})",
    ]
    return _run(runtime, banner, stopped="Stopped. / Durduruldu.")


def _run_demo(args: argparse.Namespace) -> int:
    from boardcast_sim.demo import command as demo_command  # the simulators: only when the demo runs
    from hub.server.limits import WILDCARD_HOSTS

    data = Path(args.data)
    demo = demo_command.prepare(args, data)
    runtime = _hub_runtime()(demo.venue, data, host=args.host, port=args.port)
    runtime.open()
    url = _url(args.host, runtime.port)
    local = (
        f"http://127.0.0.1:{runtime.port}/" if args.host in WILDCARD_HOSTS else url
    )  # the simulators' way in
    jobs = demo_command.jobs(demo, runtime.hall, args, local)
    where = data.resolve()

    banner = [
        demo_options.title(args, __version__),
        f"  Spectators / Seyirciler:  {url}",
        *([f"  Standings / Puan durumu:  {url}standings"] if demo_options.has_standings(args) else []),
        f"  API:                      {url}api/matches",
        f"  Referee console / Hakem masası: {url}console",
        f"  Referee token / Hakem anahtarı: {demo.token}",
        f"  Confirm / Onay: curl -X POST -H 'Authorization: Bearer {demo.token}' {url}api/matches/ID/confirm",
        f"  Data / Veri: {where}  (run again to resume / tekrar çalıştırınca devam eder)",
    ]
    try:
        return _run(runtime, banner, *jobs)
    finally:
        for pty in demo.ptys:
            pty.close()


HUB_STOPPED = "Stopped; every accepted event is on disk. / Durduruldu; kabul edilen her olay diskte."


def _run(
    runtime: _Serving,
    banner: list[str],
    *jobs: Callable[[], Coroutine[Any, Any, None]],
    stopped: str = HUB_STOPPED,
) -> int:
    """Serve a hub or an edge until Ctrl-C or SIGTERM; print the banner once the server listens."""

    async def announce() -> None:
        await runtime.ready.wait()
        for line in [*banner, "  Stop with Ctrl-C / Durdurmak için Ctrl-C"]:
            print(line, flush=True)

    stopping = _stop_cleanly_on_sigterm(runtime)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(runtime.run(announce, *jobs))
    finally:
        signal.signal(signal.SIGTERM, stopping)
    with contextlib.suppress(OSError):  # stdout may be gone when the terminal closed
        print(stopped, flush=True)
    return 0


class _Serving(Protocol):
    """A hub or an edge (`HubRuntime`, `EdgeRuntime`): what `_run` serves."""

    server: uvicorn.Server | None
    ready: asyncio.Event

    async def run(self, *jobs: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Serve until the web server is told to stop."""


def _stop_cleanly_on_sigterm(runtime: _Serving) -> Any:
    """Make SIGTERM (systemd's stop) stop a hub or an edge as Ctrl-C does; return the handler it replaces.

    While serving, the web server takes SIGTERM, shuts down, then raises the signal again for whoever
    handled it before. With the default handler that second SIGTERM killed the process before the log was
    closed: what its writer still held was lost and "Stopped" never printed. That echo is now ignored, and
    a SIGTERM before the server runs (while the log loads) stops the start as Ctrl-C would."""

    def handle(signum: int, frame: object) -> None:
        server = runtime.server
        if server is not None and server.should_exit:
            return  # the web server took this stop and is shutting down; the log closes after it
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, handle)


if __name__ == "__main__":
    sys.exit(main())
