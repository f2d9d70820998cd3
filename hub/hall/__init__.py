"""The venue's matches: `live` (`Hall`, each match's state advanced only through the event log) and
`spectators` (`PublicHall`, what spectators may see, shared by a hub and its edges)."""

__all__: list[str] = []
