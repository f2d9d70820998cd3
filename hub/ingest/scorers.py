"""What each table's score is taken from: its device, or its umpire's browser device once a referee switched
the table to it (a scoreboard broken mid-match). While a table is scored by its umpire, its device's reports
are logged and not applied; switched back, the device's next report is taken as where the match stands.

The switch is a referee action logged on the table's match (`referee.scored_by`, with who and when): a
restarted hub finds each table's latest switch in its matches' records.
"""

from __future__ import annotations

from hub.hall.live import Hall
from hub.matches import ScoredBy, scored_by_of


class Scorers:
    """The tables scored by their umpire, and which devices' sinks are browser devices (never set aside)."""

    def __init__(self, hall: Hall) -> None:
        self.by_umpire: set[str] = set()
        self.browser_keys: set[str] = set()
        for table in hall.venue.tables:  # the latest switch on any of the table's matches stands
            switches = [
                found
                for match in hall.working.values()
                if match.info.table == table.id and (found := scored_by_of(match)) is not None
            ]
            if switches and max(switches, key=lambda s: s[1])[0] is ScoredBy.UMPIRE:
                self.by_umpire.add(table.id)

    def set_aside(self, table_id: str, key: str) -> bool:
        """Whether the device reporting into sink `key` is set aside: its table is scored by its umpire."""
        return table_id in self.by_umpire and key not in self.browser_keys

    def switch(self, table_id: str, by: ScoredBy) -> None:
        """Take `table_id`'s score from `by` from now on."""
        if by is ScoredBy.UMPIRE:
            self.by_umpire.add(table_id)
        else:
            self.by_umpire.discard(table_id)
