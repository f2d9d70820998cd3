"""The composition root: wires the event log, the hall, device sessions and the web server into one run.

Nothing else in the hub creates transports or servers. `HubRuntime.run()` owns every long-lived task in one
TaskGroup; when the web server stops (Ctrl-C, SIGTERM) the device sessions are cancelled and the log
commits what it holds before the process exits.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

import uvicorn

from devices.session import DeviceSession
from hub.auth import Authenticator
from hub.eventlog import EventLog
from hub.fanout import Fanout
from hub.hall import Hall
from hub.ingest import Ingest
from hub.venue import Venue
from hub.web import WebContext, create_app

log = logging.getLogger(__name__)

LOG_FILE = "events.sqlite3"


class HubRuntime:
    """One hub: its log, its hall, its devices and its web server."""

    def __init__(self, venue: Venue, data_dir: Path, *, host: str = "127.0.0.1", port: int = 8000) -> None:
        self.venue = venue
        self.data_dir = Path(data_dir)
        self.host, self.port = host, port
        self.log = EventLog(self.data_dir / LOG_FILE)
        self.fanout = Fanout()
        self.hall = Hall(venue, self.log, self.fanout)
        self.auth = Authenticator(venue.referees)
        self.ingest: Ingest | None = None
        self.sessions: list[DeviceSession] = []
        self.server: uvicorn.Server | None = None
        self.ready = asyncio.Event()
        self._socket: socket.socket | None = None

    def open(self) -> None:
        """Take the listening port, open the log and rebuild every match from it.

        Raises OSError when the port is taken and EventLogError on a damaged log, before anything runs.
        """
        self._socket = socket.create_server((self.host, self.port))
        self.log.open()
        self.hall.load()
        self.ingest = Ingest(self.hall)

    async def run(self, *extra: Callable[[], Awaitable[None]]) -> None:
        """Serve until the web server is told to stop; `extra` are more owned tasks (simulators)."""
        assert self.ingest is not None, "open() first"
        self.log.start()
        ctx = WebContext(self.hall, self.fanout, self.ingest, self.auth)
        config = uvicorn.Config(
            create_app(ctx),
            host=self.host,
            port=self.port,
            ws="websockets-sansio",
            ws_max_size=64 * 1024,
            log_level="warning",
            lifespan="off",
        )
        self.server = uvicorn.Server(config)
        for table in self.venue.tables:
            if table.device:
                sink = self.ingest.sink_for(table)
                self.sessions.append(
                    DeviceSession.for_url(table.device, sink, expected_device_id=table.device_id)
                )
        try:
            async with asyncio.TaskGroup() as tg:
                workers = [tg.create_task(s.run(), name=f"device {s.url}") for s in self.sessions]
                workers += [tg.create_task(job()) for job in extra]
                serving = tg.create_task(self.server.serve(sockets=[self._socket]), name="web")
                tg.create_task(self._announce_ready())
                await serving
                for worker in workers:
                    worker.cancel()
        finally:
            await self.log.close()

    async def _announce_ready(self) -> None:
        assert self.server is not None
        while not self.server.started:  # noqa: ASYNC110 - uvicorn offers a flag, not an event
            await asyncio.sleep(0.02)
        self.ready.set()

    def stop(self) -> None:
        """Ask the web server to stop; run() then winds everything down."""
        if self.server is not None:
            self.server.should_exit = True
