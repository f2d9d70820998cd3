"""Where device reports enter the hub: `sink` (dedupe, gaps, binding to a table's match, logging), `health`
(each table's link, counters and battery) and `outages` (a live match's device going away)."""

__all__: list[str] = []
