"""The composition root: wires the event log, the hall, device sessions and the web server into one run.

Nothing else in the hub creates transports or servers. `HubRuntime.run()` owns every long-lived task in one
TaskGroup; when the web server stops (Ctrl-C, SIGTERM) the device sessions are cancelled and the log
commits what it holds before the process exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import uvicorn

from devices.family import Hosted, Role, Session, SessionContext
from devices.registry import browser_families, family_for
from devices.transports.base import Opener
from devices.transports.ble import BleConnector
from devices.transports.tcp import UNPROVEN_TOTAL, TcpGateway, parse_tcp_url
from hub.feed.fanout import Fanout
from hub.feed.protocol import announce_started, burst_gone, server_config
from hub.hall.live import Hall
from hub.ingest.sink import Ingest
from hub.log.eventlog import LOG_FILE, EventLog
from hub.referee.tokens import Authenticator
from hub.rules.registry import attach_spectator_extras
from hub.server.connections import Unfinished, quiet_repeats, raise_open_files_limit
from hub.server.heap import HeapStats, collect_on_a_clock, give_back_after_bursts, settle
from hub.server.limits import WILDCARD_HOSTS, Access, WebLimits, access_for
from hub.server.startup import EXIT_BAD_INPUT, StartupError, gateway_refusal, listen, prepare_data_dir
from hub.venue import TableConfig, Venue
from hub.venue.reload import watch_venue_file
from hub.web import WebContext, create_app

log = logging.getLogger(__name__)

DATA_FILES = (LOG_FILE, f"{LOG_FILE}-wal", f"{LOG_FILE}-shm")  # what the hub keeps in its data directory
HEALTH_EVERY_S = 1.0
SEND_BUFFER = 64 * 1024
TICK_EVERY_S = 15.0  # how late, at most, "10 minutes of play, no expedite" is noticed without a report
RELEASE_EVERY_S = 0.2  # how late, at most, a delayed broadcast goes out after its delay


def hub_url(host: str, port: int) -> str:
    """The address to give people for a hub listening on host:port (a wildcard address is no address to go to)."""
    named = socket.gethostname() if host in WILDCARD_HOSTS else host
    return f"http://[{named}]:{port}/" if ":" in named else f"http://{named}:{port}/"


class HubRuntime:
    """One hub: its log, its hall, its devices and its web server."""

    def __init__(
        self,
        venue: Venue,
        data_dir: Path,
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        ble: BleConnector | None = None,
        bus_url: str | None = None,
    ) -> None:
        self.venue = venue
        self.data_dir = Path(data_dir)
        self.host, self.port = host, port
        self.log = EventLog(self.data_dir / LOG_FILE)
        self.web_limits = WebLimits()  # per-address limits of the web edge (hub/server/limits.py)
        self.refused: Counter[str] = Counter()  # web requests and connections refused, by limit
        self.unfinished: Unfinished | None = (
            None  # connections waiting for their request (hub/server/connections.py)
        )
        self.open_files = 0  # the soft open-files limit, once raised
        self.heap = HeapStats()  # the clocked garbage collector's counts, on /api/health
        self.fanout = Fanout()
        self.hall = Hall(venue, self.log, self.fanout)
        attach_spectator_extras(self.hall)
        self.auth = Authenticator(venue.referees)
        self.ingest: Ingest | None = None
        self.sessions: dict[str, Session] = {}
        self.browsers: dict[str, dict[str, Hosted]] = {}  # browser devices' sessions, by page then table
        self.gateways: dict[str, TcpGateway] = {}
        self.ble = ble  # made only when a table has a ble:// device or wristband; tests pass a fake radio
        # what every family's session factory may use: this hub's BLE connector and its TCP gateways
        self.context = SessionContext(ble=self._ble, gateway=self._gateway_opener)
        self.server: uvicorn.Server | None = None
        self.ready = asyncio.Event()
        self._socket: socket.socket | None = None
        self.bus = None  # a BusPublisher when the hub publishes its hall to Redis (`serve --bus`)
        if bus_url is not None:
            from hub.bus.streams import BusPublisher  # redis is needed only by hubs that publish

            self.bus = BusPublisher(bus_url, venue, hub_url=hub_url(host, port))
            self.bus.attach(self.hall)

    def open(self) -> None:
        """Check the data directory, take the listening ports, open the log and rebuild every match from it.

        Raises StartupError (hub.server.startup) for a data directory it cannot use or a port it cannot take, and
        EventLogError on a damaged log, before anything runs. Port 0 takes any free port (`self.port` says which).
        """
        prepare_data_dir(self.data_dir, DATA_FILES)
        self._refuse_gateway_on_web_port()
        self.open_files, _ = raise_open_files_limit()
        self._socket = listen(self.host, self.port)
        self.port = self._socket.getsockname()[1]
        if self.bus is not None:
            self.bus.hub_url = hub_url(self.host, self.port)
        # Accepted sockets inherit this: a client that stops reading fills 64 KiB, not megabytes of
        # autotuned buffer, before the hub notices it is stuck (and memory per stuck client stays small).
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        self.log.open()
        self.hall.load()
        settle()  # what was loaded lives as long as the hub: no collection walks it again
        self.ingest = Ingest(self.hall)
        self.gateways = self._gateways()
        for url, gateway in self.gateways.items():
            # devices waiting to say HELLO take descriptors too: at most an eighth of them
            gateway.unproven_total = max(8, min(UNPROVEN_TOTAL, self.open_files // 8))
            try:
                gateway.bind()
            except OSError as exc:
                tables = [t.id for t in self.venue.tables if t.device == url]
                raise gateway_refusal(exc, url, tables) from None
        for table in self.venue.tables:
            self._table_sessions(table)

    def _table_sessions(self, table: TableConfig) -> None:
        """A session for each device at a table, its own device's under the table's id, the others' beside it."""
        if table.device:
            self._add_session(table, table.device, table.device_id, Role.DEVICE)
        if table.clock:  # a board with no clock of its own: a clock beside it, in its own session
            self._add_session(table, table.clock, table.clock_id, Role.CLOCK)
        for url in table.wristbands:  # an umpire's buttons: their own session, the table's match
            self._add_session(table, url, None, Role.WRISTBAND)
        for family in browser_families():  # a page the hub serves at every table (an umpire's)
            assert self.ingest is not None and family.page is not None
            url = f"{family.schemes[0]}://{table.id}"
            slot = family.slot(url, Role.BROWSER)
            session = family.session(
                url, self.ingest.sink_for(table, url, slot, listed=False), None, self.context
            )
            assert isinstance(session, Hosted)
            self.sessions[f"{table.id}/{slot}"] = session
            self.browsers.setdefault(family.page, {})[table.id] = session

    def _add_session(self, table: TableConfig, url: str, device_id: str | None, role: Role) -> None:
        """The session of the family that reads `url` in `role`, reporting into the table's sink for its slot."""
        assert self.ingest is not None
        family = family_for(url, role)
        slot = family.slot(url, role)
        key = f"{table.id}/{slot}" if slot else table.id
        self.sessions[key] = family.session(
            url, self.ingest.sink_for(table, url, slot), device_id, self.context
        )

    def access(self) -> Access:
        """The names this hub answers to (its listen address, the venue's allowed_hosts) and its trusted proxies."""
        return access_for(self.host, self.port, self.venue.allowed_hosts, self.venue.trusted_proxies)

    def _refuse_gateway_on_web_port(self) -> None:
        """A venue's tcp:// device on the port given to --port: two listeners of this hub on one port."""
        gateways = [t for t in self.venue.tables if t.device and t.device.startswith("tcp://")]
        for table in gateways:
            if self.port and parse_tcp_url(str(table.device))[1] == self.port:
                raise StartupError(
                    f"--port {self.port} is the port of table {table.id}'s device gateway ({table.device}); "
                    f"give the web server another --port / --port, {table.id} masasının cihaz geçidinin "
                    f"bağlantı noktası; başka bir --port verin",
                    EXIT_BAD_INPUT,
                )

    def _gateways(self) -> dict[str, TcpGateway]:
        """One TCP gateway per listen address named by the venue's tcp:// devices."""
        assert self.ingest is not None
        tokens: dict[str, dict[str, str]] = {}
        for table in self.venue.tables:
            if table.device and table.device.startswith("tcp://"):
                assert table.device_id and table.device_token_sha256  # the venue checks this
                tokens.setdefault(table.device, {})[table.device_id] = table.device_token_sha256
        gateways = {}
        for url, device_tokens in tokens.items():
            host, port = parse_tcp_url(url)
            gateways[url] = TcpGateway(host, port, device_tokens, on_refused=self.ingest.device_refused)
        return gateways

    def _ble(self) -> BleConnector:
        """The hub's one BLE connector, made when a first table needs it (tests pass a fake radio)."""
        if self.ble is None:
            self.ble = BleConnector()
        return self.ble

    def _gateway_opener(self, url: str, device_id: str) -> Opener:
        """An opener on this hub's gateway at `url` for the device `device_id`."""
        return self.gateways[url].opener(device_id)

    async def run(self, *extra: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Serve until the web server is told to stop; `extra` are more owned tasks (simulators)."""
        assert self.ingest is not None, "open() first"
        quiet_repeats(asyncio.get_running_loop())
        self.log.start()
        for _, shown in self.hall.all_extras():
            shown.start()  # the net (the engine) loads while the hub starts
        self.unfinished = Unfinished(self.web_limits, self.refused)
        self.unfinished.fit_to_open_files(self.open_files)
        self.unfinished.elsewhere = lambda: sum(g.open_connections() for g in self.gateways.values())
        access = self.access()
        self.unfinished.trusted = access.trusts
        ctx = WebContext(
            self.hall,
            self.fanout,
            self.ingest,
            self.auth,
            sessions=self.sessions,
            browsers=self.browsers,
            gateways=list(self.gateways.values()),
            bus_health=self.bus.health_dict if self.bus is not None else None,
            limits=self.web_limits,
            refused=self.refused,
            heap=self.heap,
            connections=self.unfinished,
            access=access,
            address=hub_url(self.host, self.port),
        )
        # X-Forwarded-For is the Guard's to read, from the venue's trusted proxies only (hub/server/limits.py)
        config = server_config(create_app(ctx), self.unfinished)
        self.server = uvicorn.Server(config)
        try:
            async with contextlib.AsyncExitStack() as stack, asyncio.TaskGroup() as tg:
                if self.ble is not None:  # one scanner and one connect lock per adapter, for every BLE table
                    await stack.enter_async_context(self.ble)
                workers = [tg.create_task(s.run(), name=f"device {s.url}") for s in self.sessions.values()]
                workers += [
                    tg.create_task(g.serve(), name=f"gateway {g.url}") for g in self.gateways.values()
                ]
                workers.append(tg.create_task(self._publish_health(), name="device health"))
                workers.append(tg.create_task(self._tick(), name="rules clock"))
                workers.append(tg.create_task(collect_on_a_clock(self.heap), name="garbage collector"))
                gone = burst_gone(self.server, self.unfinished)
                workers.append(
                    tg.create_task(give_back_after_bursts(gone, self.heap), name="memory give-back")
                )
                if self.bus is not None:  # never awaited by the hall: Redis being away holds nothing up
                    workers.append(tg.create_task(self.bus.run(), name="bus publisher"))
                if self.venue.broadcast_delay_s > 0:
                    workers.append(tg.create_task(self._release(), name="broadcast delay"))
                workers.append(tg.create_task(watch_venue_file(self.hall, self.auth), name="venue file"))
                workers += [tg.create_task(job()) for job in extra]
                assert self._socket is not None, "open() first"
                serving = tg.create_task(self.server.serve(sockets=[self._socket]), name="web")
                tg.create_task(self._announce_ready())
                await serving
                for worker in workers:
                    worker.cancel()
        finally:
            for _, shown in self.hall.all_extras():
                shown.close()
            await self.log.close()

    async def _publish_health(self) -> None:
        assert self.ingest is not None
        while True:
            await asyncio.sleep(HEALTH_EVERY_S)
            self.ingest.board.publish()

    async def _tick(self) -> None:
        every = min(self.hall.tick_every_s(), TICK_EVERY_S)
        while True:
            await asyncio.sleep(every)
            self.hall.tick(time.time())

    async def _release(self) -> None:
        """Publish what the broadcast delay held back, a little after it is due."""
        while True:
            await asyncio.sleep(RELEASE_EVERY_S)
            self.hall.release(time.time())

    async def _announce_ready(self) -> None:
        assert self.server is not None
        await announce_started(self.server, self.ready)

    def stop(self) -> None:
        """Ask the web server to stop; run() then winds everything down."""
        if self.server is not None:
            self.server.should_exit = True
