"""The bus between hall hubs and spectator edges: `streams` (Redis Streams, what a hub publishes and an edge
reads), `url` (what a bus URL looks like, without the Redis client), `check` (what an edge checks before it
serves) and `edge` (a spectator edge served from the bus). Import the module you need: `url` must stay
importable without Redis."""

__all__: list[str] = []
