"""The capacity model of a hall served by spectator edges: measured costs in, edges and Redis load out.

Pure arithmetic over the edges benchmark's measurements (`benchmarks.edges`):

- the hub pays `hub_us_per_change` once per public change, however many edges read;
- Redis pays `redis_us_per_change` to take a change in and `redis_us_per_change_per_edge` for each edge
  that reads it;
- each edge pays `edge_us_per_change` for every change of the hall (reading, decoding, its read model), with
  or without spectators, and `edge_us_per_message` for each WebSocket message it sends a spectator.

Messages follow the fan-out's own rule (`hub.feed.fanout.window_s`): a topic watched by many on one edge
gathers its changes for a window that grows with its watchers there, and each watcher gets one message per
window (the pages subscribe in batches). Changes are taken as arriving at random (Poisson): after a message,
the next goes when the window has passed and a change has come, so a watcher gets 1 / (w + e^(-c·w) / c)
messages a second from a topic changing c times a second with window w (c when w = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hub.feed.fanout import window_s

BUSY = 0.7  # the share of a core an edge is planned to use, leaving room for bursts
MOST_EDGES = 1000


@dataclass(frozen=True, slots=True)
class Costs:
    """CPU microseconds, as measured."""

    hub_us_per_change: float
    redis_us_per_change: float
    redis_us_per_change_per_edge: float
    edge_us_per_change: float
    edge_us_per_message: float


@dataclass(frozen=True, slots=True)
class Hall:
    """What a hall asks of its edges: its changes, and spectators on the wall or following one match."""

    tables: int
    changes_per_table_s: float
    wall: int = 0  # spectators following the whole hall (the wall page)
    one_match: int = 0  # spectators following one match each, spread evenly over the tables

    @property
    def changes_per_s(self) -> float:
        """Public changes a second, the whole hall."""
        return self.tables * self.changes_per_table_s

    def messages_per_s(self, edges: int) -> float:
        """Messages a second to all spectators when `edges` edges share them evenly."""
        wall = self.wall * messages_per_watcher(self.changes_per_s, self.wall / edges)
        per_match = self.one_match / self.tables / edges  # watchers of one match on one edge
        return wall + self.one_match * messages_per_watcher(self.changes_per_table_s, per_match)


def messages_per_watcher(changes_per_s: float, watchers: float) -> float:
    """Messages a second each watcher of a topic gets on an edge where `watchers` watch it."""
    if changes_per_s <= 0:
        return 0.0
    window = window_s(math.ceil(watchers))
    if not window:
        return changes_per_s
    return 1 / (window + math.exp(-changes_per_s * window) / changes_per_s)


@dataclass(frozen=True, slots=True)
class Plan:
    """What a hall needs: edges (one core each), and the cores the edges, Redis and the hub use."""

    edges: int | None  # None: one edge cannot keep up with the hall's changes alone
    messages_per_s: float
    edge_cores: float
    redis_cores: float
    hub_cores: float


def edge_cpu_s(costs: Costs, edges: int, changes: float, messages: float) -> float:
    """CPU seconds `edges` edges use for `changes` changes and `messages` messages between them."""
    return (edges * changes * costs.edge_us_per_change + messages * costs.edge_us_per_message) / 1e6


def plan(costs: Costs, hall: Hall, busy: float = BUSY) -> Plan:
    """The fewest edges a hall needs so that none is busier than `busy` of its core, and what all use."""
    changes = hall.changes_per_s
    hub = changes * costs.hub_us_per_change / 1e6
    for edges in range(1, MOST_EDGES + 1):
        messages = hall.messages_per_s(edges)
        cores = edge_cpu_s(costs, edges, changes, messages)
        if cores / edges <= busy:
            redis = changes * (costs.redis_us_per_change + edges * costs.redis_us_per_change_per_edge) / 1e6
            return Plan(edges, messages, cores, redis, hub)
    return Plan(None, hall.messages_per_s(MOST_EDGES), math.inf, math.inf, hub)


def describe(hall: Hall, result: Plan) -> str:
    """One line: the hall and what it needs."""
    watching = [f"{hall.wall:,} on the wall"] if hall.wall else []
    watching += [f"{hall.one_match:,} following one match"] if hall.one_match else []
    demand = f"{hall.tables} tables × {hall.changes_per_table_s:g} changes/s, {' and '.join(watching)}"
    if result.edges is None:
        return f"{demand}: more than {MOST_EDGES} edges"
    return (
        f"{demand}: {result.edges} edge(s) ({result.messages_per_s:,.0f} messages/s, "
        f"{result.edge_cores:.2f} cores busy), Redis {result.redis_cores:.1%} of a core, hub "
        f"{result.hub_cores:.1%} of a core"
    )
