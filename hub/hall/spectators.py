"""What spectators may see of a venue, and how it reaches them: one read model for a hub and its edges.

`PublicHall` holds each match's public state (for a hub: the committed state, late by the broadcast delay
for a sport that has one; for an edge: what the hub published on the bus), answers the web layer's reads (`public_match`,
`public_matches`, `spectator_view`, `team_view`, `venue_snapshot`) and publishes a state to the `match:ID`,
`venue` and `team:ID` topics. `hub.hall.live.Hall` and `hub.bus.edge.EdgeHall` differ only in where states come
from.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from hub.feed.fanout import Fanout, SnapshotSource, running_loop
from hub.feed.reuse import ListEncodings
from hub.matches import MatchInfo, MatchState, MatchStatus, new_match, public_view, summary
from hub.rules.registry import SPORTS
from hub.rules.sport import SpectatorExtra
from hub.tournament.live import LiveStandings
from hub.tournament.teams import game_result, team_match_view
from hub.venue import TeamMatchConfig, Venue

# A match's screens get its state at most this often: a change sooner after the last goes out when the
# interval is up, as the match's latest state. Live play is seconds between points; changes closer than this
# come from a table catching up (a burst of reports after an outage), where every view built and encoded for
# an intermediate score was work no screen needed (half of each report's cost when they came one per read).
SCREENS_EVERY_S = 0.1
# The standings go out at most this often: a round's results arriving together are worked out once.
STANDINGS_EVERY_S = 1.0


class UnknownMatch(KeyError):
    """No match with that id in this venue."""


class PublicHall:
    """Every match of a venue as spectators may see it, and the topics that carry it."""

    def __init__(self, venue: Venue, fanout: Fanout) -> None:
        self.venue = venue
        self.fanout = fanout
        self.infos: dict[str, MatchInfo] = {m.id: m for m in venue.matches}
        self.public: dict[str, MatchState] = {}
        self.team_matches = {t.id: t for t in venue.team_matches}
        self._team_games: dict[str, list[str]] = {t: [] for t in self.team_matches}
        for info in self.infos.values():
            if info.team_match is not None:
                self._team_games[info.team_match].append(info.id)
        self.venue_version = 0
        # called with (state, venue_version) whenever a state becomes public: the bus to spectator edges
        self.public_listeners: list[Callable[[MatchState, int], None]] = []
        self._sent_at: dict[str, float] = {}  # match id -> loop time its screens were last sent to
        self._due: dict[str, MatchState] = {}  # match id -> the state its screens get when the interval ends
        self._shown: dict[str, MatchState] = {}  # match id -> the state its match topic was last sent
        self._encodings = ListEncodings()  # a match topic's logs, each item encoded once
        # match id -> its last state and that state's wall tile
        self._summaries: dict[str, tuple[MatchState, dict[str, Any]]] = {}
        # each sport's spectator extras, if shown (winning chances, an engine's evaluation, performance
        # ratings), by the key its matches' views carry each under
        self.extras: dict[str, dict[str, SpectatorExtra]] = {}
        # the event's standings, where the venue names its report file: worked out again when a result changes
        self.standings = LiveStandings(venue.tournament) if venue.tournament is not None else None
        self._results: dict[str, tuple[str | None, MatchStatus]] = {}  # event game id -> result, status shown
        self._standings_timer: asyncio.TimerHandle | None = None
        self._standings_view: dict[str, Any] | None = None
        fanout.add_source(self._snapshot_source)

    def add_matches(
        self, venue: Venue, matches: tuple[MatchInfo, ...], team_matches: tuple[TeamMatchConfig, ...]
    ) -> None:
        """Take the venue file read again with a new round: its matches join, scheduled; nothing else changes."""
        self.venue = venue
        if venue.tournament is not None and self.standings is None:  # the round brought the event's file
            self.standings = LiveStandings(venue.tournament)
        self._standings_view = None  # the report file may have the new round's pairings
        for config in team_matches:
            self.team_matches[config.id] = config
            self._team_games[config.id] = []
        for info in matches:
            self.infos[info.id] = info
            self.public[info.id] = new_match(info)
            if info.team_match is not None:
                self._team_games[info.team_match].append(info.id)

    def show_new(self, matches: tuple[MatchInfo, ...]) -> None:
        """Send new matches (and their team matches) to the screens at the venue's current version."""
        self.fanout.forget_snapshot("venue")
        for info in matches:
            self._to_screens(self.public[info.id])
        if self.standings is not None:
            self._send_standings()

    # -- reads ----------------------------------------------------------------------------------------------

    def public_match(self, match_id: str) -> MatchState:
        """What spectators may see of a match: its committed state, late by the sport's broadcast delay."""
        try:
            return self.public[match_id]
        except KeyError:
            raise UnknownMatch(match_id) from None

    def public_matches(self) -> list[MatchState]:
        """Every match as spectators may see it, by table then round."""
        return sorted(self.public.values(), key=lambda m: (m.info.table, m.info.round, m.info.id))

    def spectator_view(self, state: MatchState) -> dict[str, Any]:
        """A match's full public view; a delayed one says by how much, so screens run its clock late too.
        Referees' names only where the venue opts in (`show_referee_names`); their notes never."""
        return self._delayed(state, public_view(state, referee_names=self.venue.show_referee_names))

    def spectator_summary(self, state: MatchState) -> dict[str, Any]:
        """A match's wall tile view (see `spectator_view`). Built once per state: the wall gets it with the
        change, and every phone that opens the wall gets it again in the venue's snapshot (a hall's phones
        arriving at once would otherwise rebuild every match's tile each)."""
        kept = self._summaries.get(state.info.id)
        if kept is None or kept[0] is not state:
            kept = self._summaries[state.info.id] = (state, summary(state))
        return self._delayed(state, kept[1].copy())  # its values are shared: never changed, only added to

    def _delayed(self, state: MatchState, view: dict[str, Any]) -> dict[str, Any]:
        delay = self.delay_s(state.info)
        if delay:
            view["broadcast_delay_s"] = delay
        self._add_extras(view, state.info, time.time())
        return view

    def _add_extras(self, view: dict[str, Any], info: MatchInfo, now: float) -> None:
        """What each of the match's sport's extras may show of it now, under its key."""
        for key, extra in self.extras.get(info.sport, {}).items():
            view[key] = extra.shown(info.id, now)

    def show_extra(
        self,
        sport: str,
        make: Callable[[Callable[[str], None], float], SpectatorExtra],
        key: str = "chances",
    ) -> SpectatorExtra:
        """Show a sport's spectator extra (`SportRules.attach_spectators`) on its matches' screens under `key`,
        behind the venue's broadcast delay: `make(resend, delay_s)` builds it."""
        extra = make(self._resend_extra, self.venue.broadcast_delay_s)
        self.extras.setdefault(sport, {})[key] = extra
        return extra

    def analysis_reports(self, match_id: str) -> dict[str, Any]:
        """A match's analysis reports (`SpectatorExtra.report`), by the key its screens show each under."""
        extras = self.extras.get(self.public_match(match_id).info.sport, {})
        return {key: found for key, extra in extras.items() if (found := extra.report(match_id)) is not None}

    def all_extras(self) -> list[tuple[str, SpectatorExtra]]:
        """Every spectator extra shown, with its key: to start, stop and report on them."""
        return [item for extras in self.extras.values() for item in extras.items()]

    def annotator(self, sport: str) -> Callable[[str], str | None] | None:
        """What comments a sport's game records carry on positions (its extra's, as an engine's `[%eval]`)."""
        extras = list(self.extras.get(sport, {}).values())
        if not extras:
            return None
        return lambda position: next((c for e in extras if (c := e.annotate(position)) is not None), None)

    def _resend_extra(self, match_id: str) -> None:
        """What a match's extra may show changed: send its screens its current state again."""
        state = self._shown.get(match_id)
        if state is not None:
            self._to_screens(state)

    def delay_s(self, info: MatchInfo) -> float:
        """The broadcast delay of a match: a sport whose games go out late (`SportRules.broadcast_delayed`) so
        no one can relay moves to a player."""
        return self.venue.broadcast_delay_s if SPORTS[info.sport].broadcast_delayed else 0.0

    def team_view(self, team_match_id: str) -> dict[str, Any]:
        """A team match as spectators see it (boards, score, match points)."""
        config = self.team_matches[team_match_id]
        view = team_match_view(config, [self.public[m] for m in self._team_games[team_match_id]])
        now = time.time()
        for board in view[
            "boards"
        ]:  # each game's analysis, where its sport shows one (an engine's evaluation)
            if board["match_id"] is not None:
                self._add_extras(board, self.infos[board["match_id"]], now)
        delay = self.venue.broadcast_delay_s
        if delay:  # the boards' clocks are read that late: screens run them late too
            view["broadcast_delay_s"] = delay
        return view

    def venue_snapshot(self) -> dict[str, Any]:
        """The venue topic's full state, as spectators may see it."""
        matches = self.public_matches()
        return {
            "name": self.venue.name,
            "official": all(m.official for m in matches),
            "matches": [self.spectator_summary(m) for m in matches],
            "team_matches": [self.team_view(t) for t in self.team_matches],
        }

    # -- publishing -----------------------------------------------------------------------------------------

    def _publish_public(self, state: MatchState) -> None:
        """Make a state what spectators see (reads and the bus at once), and send it to the match, venue and
        team topics, at most every `SCREENS_EVERY_S` per match."""
        info = state.info
        self.public[info.id] = state
        if running_loop() is not None:
            for extra in self.extras.get(info.sport, {}).values():
                extra.note(info.id, state.sport_state, state.updated_at or time.time())
        for listener in self.public_listeners:
            listener(state, self.venue_version)
        match_id = info.id
        if match_id in self._due:  # already waiting for its interval to end: it will go out as this state
            self._due[match_id] = state
            return
        loop = running_loop()
        if loop is None:  # no event loop (a plain function using the hall): nothing to wait for
            self._to_screens(state)
            return
        now = loop.time()
        due = self._sent_at.get(match_id, float("-inf")) + SCREENS_EVERY_S
        if now >= due:
            self._sent_at[match_id] = now
            self._to_screens(state)
        else:
            self._due[match_id] = state
            loop.call_at(due, self._send_due, match_id)

    def _send_due(self, match_id: str) -> None:
        state = self._due.pop(match_id, None)
        if state is not None:
            self._sent_at[match_id] = asyncio.get_running_loop().time()
            self._to_screens(state)

    def _to_screens(self, state: MatchState) -> None:
        """Send a state to the match, venue and team topics."""
        info = state.info
        self._shown[info.id] = state
        # views are built only for topics someone watches: the fan-out calls these when it has a watcher
        self.fanout.publish(f"match:{info.id}", state.version, lambda: self._match_message(state))
        self.fanout.publish("venue", self.venue_version, lambda: self.spectator_summary(state), key=info.id)
        if info.pairing is not None and self.standings is not None:
            self._note_result(state)
        if info.team_match is not None:
            team_topic = f"team:{info.team_match}"
            team_match = info.team_match
            team = _Once(lambda: self.team_view(team_match))
            self.fanout.forget_snapshot(team_topic)
            self.fanout.publish(team_topic, self.venue_version, team)
            self.fanout.publish("venue", self.venue_version, team, key=team_topic)

    def _match_message(self, state: MatchState) -> dict[str, Any]:
        """A match topic's change: the match's view, its logs (its facts, its sport's) sent an item at a time."""
        logs = [("facts",), *(("state", name) for name in state.info.rules.logs)]
        return self._encodings.reuse(f"match:{state.info.id}", self.spectator_view(state), logs)

    # -- standings ------------------------------------------------------------------------------------------

    def standings_view(self) -> dict[str, Any] | None:
        """The event's standings as spectators may see them, or None when the venue names no report file."""
        if self.standings is None:
            return None
        if self._standings_view is None or self.standings.stale():
            self._standings_view = self.standings.view(self.public.values())
        return self._standings_view

    def _note_result(self, state: MatchState) -> None:
        """A game of the event was shown: when its result or status changed, the standings are due."""
        seen = (game_result(state), state.status)
        if self._results.get(state.info.id) == seen:
            return
        self._results[state.info.id] = seen
        self._standings_view = None
        loop = running_loop()
        if loop is None:
            self._send_standings()
        elif self._standings_timer is None:  # results that come together go out as one standings
            self._standings_timer = loop.call_later(STANDINGS_EVERY_S, self._send_standings)

    def refresh_standings(self) -> None:
        """Send the standings again if the report file changed on disk since they were worked out."""
        if self.standings is not None and self.standings.stale():
            self._standings_view = None
            self._send_standings()

    def _send_standings(self) -> None:
        self._standings_timer = None
        self.fanout.forget_snapshot("standings")
        self.fanout.publish("standings", self.venue_version, self.standings_view)

    def _snapshot_source(self, topic: str) -> SnapshotSource | None:
        if topic == "standings" and self.standings is not None:
            return lambda: (self.venue_version, self.standings_view())
        if topic == "venue":  # built only when the cached one is older (see Fanout._snapshot)
            return lambda: (self.venue_version, self.venue_snapshot)
        if topic.startswith("team:") and topic[5:] in self.team_matches:
            team_id = topic[5:]
            return lambda: (self.venue_version, self.team_view(team_id))
        if topic.startswith("match:") and topic[6:] in self.public:
            match_id = topic[6:]
            return lambda: self._match_snapshot(match_id)
        return None

    def _match_snapshot(self, match_id: str) -> tuple[int, dict[str, Any]]:
        # What the topic was last sent, not a state still waiting for its interval: that one follows as a
        # change, and a client must never get a version its snapshot already held.
        state = self._shown.get(match_id) or self.public[match_id]
        return state.version, self.spectator_view(state)


class _Once:
    """A view built at most once, however many topics carry it."""

    __slots__ = ("_build", "_built", "_value")

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._built = False
        self._value: Any = None

    def __call__(self) -> Any:
        if not self._built:
            self._value, self._built = self._build(), True
        return self._value
