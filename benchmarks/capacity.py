"""The capacity model of a hall served by spectator edges: measured costs in, cores and Redis load out.

Pure arithmetic over the edges benchmark's measurements (`benchmarks.edges`):

- the hub pays `hub_us_per_change` once per public change, however many edges read;
- Redis pays `redis_us_per_change` to take a change in and `redis_us_per_change_per_edge` for each edge
  that reads it;
- each edge pays `edge_us_per_change` for every change of the hall (reading, decoding, its read model), with
  or without spectators, and `edge_us_per_message` for each message it sends a spectator.

A hall's demand is its changes a second (tables × changes per table) and its messages a second (changes ×
spectators × the share of the hall's changes each spectator follows: 1 for the wall, 1/tables for one match).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BUSY = 0.7  # the share of a core an edge is planned to use, leaving room for bursts


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
    """What a hall asks of its edges."""

    tables: int
    changes_per_table_s: float
    spectators: int
    share: float = 1.0  # of the hall's changes each spectator receives

    @property
    def changes_per_s(self) -> float:
        """Public changes a second, the whole hall."""
        return self.tables * self.changes_per_table_s

    @property
    def messages_per_s(self) -> float:
        """Messages a second to all spectators."""
        return self.changes_per_s * self.spectators * self.share


@dataclass(frozen=True, slots=True)
class Plan:
    """What a hall needs: edges (one core each), and the cores the edges, Redis and the hub use."""

    edges: int | None  # None: one edge cannot keep up with the hall's changes alone
    edge_cores: float
    redis_cores: float
    hub_cores: float


def edge_cpu_s(costs: Costs, edges: int, changes: float, messages: float) -> float:
    """CPU seconds `edges` edges use for `changes` changes and `messages` messages between them."""
    return (edges * changes * costs.edge_us_per_change + messages * costs.edge_us_per_message) / 1e6


def plan(costs: Costs, hall: Hall, busy: float = BUSY) -> Plan:
    """The edges a hall needs so that none is busier than `busy` of its core, and what they all use."""
    changes, messages = hall.changes_per_s, hall.messages_per_s
    spare = busy - changes * costs.edge_us_per_change / 1e6  # what an edge has left for messages
    if spare <= 0:
        return Plan(None, math.inf, math.inf, changes * costs.hub_us_per_change / 1e6)
    edges = max(1, math.ceil(messages * costs.edge_us_per_message / 1e6 / spare))
    redis = changes * (costs.redis_us_per_change + edges * costs.redis_us_per_change_per_edge) / 1e6
    return Plan(
        edges=edges,
        edge_cores=edge_cpu_s(costs, edges, changes, messages),
        redis_cores=redis,
        hub_cores=changes * costs.hub_us_per_change / 1e6,
    )


def describe(hall: Hall, result: Plan) -> str:
    """One line: the hall and what it needs."""
    watching = "the whole hall" if hall.share >= 1 else f"{hall.share:.0%} of the hall"
    demand = (
        f"{hall.tables} tables × {hall.changes_per_table_s:g} changes/s, {hall.spectators:,} spectators "
        f"following {watching} ({hall.messages_per_s:,.0f} messages/s)"
    )
    if result.edges is None:
        return f"{demand}: beyond one edge's change rate"
    return (
        f"{demand}: {result.edges} edge core(s) ({result.edge_cores:.2f} cores busy), Redis "
        f"{result.redis_cores:.1%} of a core, hub {result.hub_cores:.1%} of a core"
    )
