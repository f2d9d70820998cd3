"""A new round while the hub runs: the venue file read again, when the chief referee asks or the file changes.

`boardcast round import` writes a round's matches into the venue file; the running hub takes them either at
once, on the chief referee's `POST /api/rounds`, or within `WATCH_EVERY_S` of the file changing. Both read the
file in full and take it only if it adds matches and changes nothing already running
(`hub.venue.changes.new_rounds`); a file with a mistake or a change to a running round is refused with its
message and the hall goes on as it was.
"""

from __future__ import annotations

import asyncio
import logging

from hub.hall.live import Hall
from hub.referee.tokens import Authenticator
from hub.tournament.live import check_event
from hub.venue import VenueError, file_stamp, load_venue
from hub.venue.changes import NewRounds, VenueChangeRefused, new_rounds

log = logging.getLogger(__name__)

WATCH_EVERY_S = 2.0


class NoVenueFile(ValueError):
    """The hub's venue was not read from a file (a demo): there is nothing to read again."""


async def take_new_rounds(hall: Hall, actor: str | None, auth: Authenticator | None = None) -> NewRounds:
    """Read the hall's venue file again and add its new rounds (and referees, to `auth`); VenueError or
    VenueChangeRefused when it cannot be taken (nothing changes then)."""
    path = hall.venue.path
    if path is None:
        raise NoVenueFile("this hub's venue has no file to read again / bu salonun dosyası yok")
    async with hall.taking_rounds:  # the chief's request and the file watch never take one round twice
        read = load_venue(path)
        check_event(read)
        new = new_rounds(hall.venue, read)
        for referee in new.referees:
            if auth is not None:
                auth.add(referee)
            log.warning("referee %s added from %s / hakem eklendi", referee.name, path)
        if not (new.matches or new.team_matches):
            if new.referees:  # the only change: the hall goes on with the file as it now is
                hall.venue = new.venue
            return new
        await hall.add_rounds(new, actor)
        log.warning(
            "round %s added from %s: %d matches, %d team matches / yeni tur eklendi",
            ", ".join(map(str, new.rounds)),
            path,
            len(new.matches),
            len(new.team_matches),
        )
    return new


async def watch_venue_file(hall: Hall, auth: Authenticator, every_s: float = WATCH_EVERY_S) -> None:
    """Take new rounds when the venue file changes (and send the standings again when the event's report file
    does); a file that cannot be taken is logged and waited out."""
    path = hall.venue.path
    if path is None:
        return
    seen = file_stamp(path)
    while True:
        await asyncio.sleep(every_s)
        hall.refresh_standings()  # the report file is watched too: the pairing program may write it
        stamp = file_stamp(path)
        if stamp == seen or stamp is None:
            continue
        seen = stamp
        try:
            await take_new_rounds(hall, None, auth)
        except (VenueError, VenueChangeRefused) as exc:
            log.warning("the venue file changed but was not taken: %s", exc)
