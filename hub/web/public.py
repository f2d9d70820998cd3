"""The public routes: the pages, the REST reads of matches and team matches, exports, PGN and the `/ws` feed.

Everything here is for spectators and needs no token; it reads only a `PublicContext`, so a spectator edge
serves these same routes from the bus.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from hub.matches.model import MatchStatus
from hub.matches.naming import sport_name, sport_names
from hub.rules.registry import SPORTS
from hub.rules.sport import GameRecords
from hub.tournament.export import ExportError, ExportFormat, export_round_file
from hub.tournament.model import Tournament
from hub.tournament.trf import TrfError
from hub.venue import RefereeConfig
from hub.venue.keys import nearest_key
from hub.web.context import PublicContext
from hub.web.errors import NO_MATCH, NO_TEAM_MATCH, Forbidden, NotFound, ORJSONResponse
from hub.web.feed import feed_route
from hub.web.referee import referee_of, referee_only

NO_STANDINGS = (
    "this venue names no tournament file ([tournament] trf), so it has no standings "
    "/ bu salonun turnuva dosyası yok, sıralama gösterilmiyor"
)
NO_ANALYSIS = (
    "no analysis of this match: its venue shows none for its sport, or none is made yet "
    "/ bu maçın çözümlemesi yok: salon bu spor için göstermiyor ya da henüz yapılmadı"
)
ANALYSIS_AFTER = (
    "the analysis is shown once the match is over (referees see it live) "
    "/ çözümleme maç bitince gösterilir (hakemler canlı görür)"
)
WEB_DISPLAY = Path(__file__).resolve().parent.parent.parent / "web-display"


def record_response(records: GameRecords, text: str) -> Response:
    """Game records for relays that poll: never cached, so each poll sees the latest move."""
    return Response(
        text,
        media_type=records.media_type,
        headers={"Cache-Control": "no-cache, max-age=0", "Access-Control-Allow-Origin": "*"},
    )


def unknown_screen(screen: str, listed: tuple[str, ...]) -> str:
    """Why `?screen=NAME` is refused: the venue lists no such screen (the nearest, or those it lists)."""
    nearest = nearest_key(screen, listed)
    hint = f"did you mean {nearest}?" if nearest else f"the venue lists: {', '.join(listed) or 'none'}"
    hint_tr = (
        f"{nearest} mı demek istediniz?"
        if nearest
        else f"salon dosyasındakiler: {', '.join(listed) or 'yok'}"
    )
    return (
        f"no screen {screen!r} in this venue's [[screens]]; {hint} "
        f"/ salon dosyasının [[screens]] listesinde {screen!r} diye bir ekran yok; {hint_tr}"
    )


def _recorded_sports() -> tuple[str, str]:
    """The sports whose games have records (PGN), named in English and Turkish."""
    return sport_names((name for name, sport in SPORTS.items() if sport.records is not None), ("and", "ve"))


class PublicRoutes:
    """The spectators' endpoints of one hall."""

    def __init__(self, ctx: PublicContext, static_dir: Path) -> None:
        self.ctx = ctx
        self.static_dir = static_dir

    def _page(self, request: Request, name: str) -> Response:
        """A page's file; a screen the venue lists in the playing area (`?screen=NAME`, `[[screens]]`) is sent
        on to the same page with `hall=1` first, so it shows no analysis whatever its settings."""
        params = request.query_params
        screen, listed = params.get("screen"), self.ctx.hall.venue.hall_screens
        if screen is not None and screen not in listed:  # a misspelt hall screen must not show analysis
            raise NotFound(unknown_screen(screen, listed))
        if screen is not None and params.get("hall") != "1":
            url = request.url.include_query_params(hall="1")
            return RedirectResponse(f"{url.path}?{url.query}", status_code=307)
        return FileResponse(self.static_dir / name)

    async def index(self, request: Request) -> Response:
        """The venue's wall."""
        return self._page(request, "index.html")

    async def console_page(self, request: Request) -> Response:
        """The referee console's page: no data in it; every call it makes needs a referee token."""
        return FileResponse(self.static_dir / "console.html")

    async def match_page(self, request: Request) -> Response:
        """One match's page."""
        if request.path_params["match_id"] not in self.ctx.hall.infos:  # an edge has no committed state
            raise NotFound(NO_MATCH)
        return self._page(request, "match.html")

    async def analysis_page(self, request: Request) -> Response:
        """A match's analysis report page (its sport's, where the venue shows one)."""
        if request.path_params["match_id"] not in self.ctx.hall.infos:
            raise NotFound(NO_MATCH)
        return self._page(request, "analysis.html")

    async def match_analysis(self, request: Request) -> Response:
        """A match's analysis (each player's figures, every decision, the largest errors): for spectators once
        the match is over, for a referee (token) at any time; `?download=1` as a file."""
        hall, match_id = self.ctx.hall, request.path_params["match_id"]
        match = hall.public_match(match_id)
        reports = hall.analysis_reports(match_id)
        if not reports:
            raise NotFound(NO_ANALYSIS)
        over = match.status not in (MatchStatus.SCHEDULED, MatchStatus.LIVE)
        complete = over and all(r.get("complete", True) for r in reports.values())
        if not complete and referee_of(self.ctx.auth, request) is None:
            raise Forbidden(ANALYSIS_AFTER)
        headers = {}
        if request.query_params.get("download") == "1":
            headers["Content-Disposition"] = f'attachment; filename="{match_id}-analysis.json"'
        body = {"match": match_id, "status": match.status.value, "complete": complete, **reports}
        return ORJSONResponse(body, headers=headers)

    async def team_page(self, request: Request) -> Response:
        """One team match's page."""
        if request.path_params["team_id"] not in self.ctx.hall.team_matches:
            raise NotFound(NO_TEAM_MATCH)
        return self._page(request, "team.html")

    async def standings_page(self, request: Request) -> Response:
        """The event's standings page."""
        if self.ctx.hall.standings is None:
            raise NotFound(NO_STANDINGS)
        return self._page(request, "standings.html")

    async def get_standings(self, request: Request) -> Response:
        """The event's standings as the hall's games stand (404 when the venue names no report file)."""
        view = self.ctx.hall.standings_view()
        if view is None:
            raise NotFound(NO_STANDINGS)
        return ORJSONResponse(view)

    async def list_matches(self, request: Request) -> Response:
        """Every public match, as spectators see it."""
        hall = self.ctx.hall
        return ORJSONResponse([hall.spectator_view(m) for m in hall.public_matches()])

    async def get_match(self, request: Request) -> Response:
        """One match, as spectators see it (404 when unknown)."""
        hall = self.ctx.hall
        return ORJSONResponse(hall.spectator_view(hall.public_match(request.path_params["match_id"])))

    async def export(self, request: Request) -> Response:
        """One of a sport's exports of a match: text, or JSON with the match's status."""
        match = self.ctx.hall.public_match(request.path_params["match_id"])
        exports = match.info.rules.exports
        name = request.path_params["name"]
        if name not in exports:
            en, tr = sport_name(match.info.sport)
            raise NotFound(
                f"no export {name!r} for {en}; known: {', '.join(exports)} "
                f"/ {tr} maçında {name!r} diye bir dışa aktarım yok; olanlar: {', '.join(exports)}"
            )
        data = exports[name](match.sport_state, match.info.players)
        if isinstance(data, str):
            return Response(data + "\n", media_type="text/plain; charset=utf-8")
        return ORJSONResponse({"official": match.official, "status": match.status.value, name: data})

    async def list_team_matches(self, request: Request) -> Response:
        """Every team match."""
        hall = self.ctx.hall
        return ORJSONResponse([hall.team_view(t) for t in hall.team_matches])

    async def get_team_match(self, request: Request) -> Response:
        """One team match (404 when unknown)."""
        team_id = request.path_params["team_id"]
        if team_id not in self.ctx.hall.team_matches:
            raise NotFound(NO_TEAM_MATCH)
        return ORJSONResponse(self.ctx.hall.team_view(team_id))

    async def game_pgn(self, request: Request) -> Response:
        """One game's record (PGN), for a sport that keeps them."""
        match = self.ctx.hall.public_match(request.path_params["match_id"])
        records = match.info.rules.records
        if records is None:
            en, tr = _recorded_sports()
            raise NotFound(f"PGN is for {en} games only / PGN yalnızca {tr} oyunları için")
        annotate = self.ctx.hall.annotator(match.info.sport)
        return record_response(records, records.game(match, self.ctx.hall.venue, self._event(), annotate))

    async def round_pgn(self, request: Request) -> Response:
        """Every game of a round with records (PGN), as one file."""
        hall, number = self.ctx.hall, request.path_params["round"]
        info = next((m for m in hall.infos.values() if m.rules.records and m.round == number), None)
        records = None if info is None else info.rules.records
        if records is None:
            en, tr = _recorded_sports()
            raise NotFound(f"no {en} games in round {number} / bu turda {tr} oyunu yok")
        assert info is not None
        annotate = hall.annotator(info.sport)
        return record_response(
            records, records.round(hall.public_matches(), hall.venue, number, self._event(), annotate)
        )

    def _event(self) -> Tournament | None:
        """The venue's report file as the standings last read it (the PGN's Event and Site), if it has one."""
        standings = self.ctx.hall.standings
        return None if standings is None else standings.base()

    async def round_trf(self, request: Request, referee: RefereeConfig) -> Response:
        """The venue's report file with a round's results of its paired games: official ones, or with `?live=1`
        every one.
        Referees only (`referee_only`): the file holds players' dates of birth and FIDE ids, which spectators
        never get."""
        return await self._round_export(request, ExportFormat.TRF, "text/plain")

    async def round_csv(self, request: Request) -> Response:
        """A round's matches drawn from a CSV (sports without a pairing program's file) as CSV: scores official
        only, unless `?live=1`."""
        return await self._round_export(request, ExportFormat.CSV, "text/csv")

    async def _round_export(self, request: Request, fmt: ExportFormat, media_type: str) -> Response:
        hall, number = self.ctx.hall, request.path_params["round"]
        live = request.query_params.get("live") == "1"
        try:  # the report file is read now, off the event loop: the pairing program may have written it since
            exported = await asyncio.to_thread(
                export_round_file, hall.venue, hall.public_matches(), number, fmt, live=live
            )
        except (ExportError, TrfError) as exc:
            raise NotFound(str(exc)) from None
        return Response(  # the bytes as made: a report file keeps the encoding it was read with
            exported.data,
            media_type=f"{media_type}; charset={exported.charset}",
            headers={"Cache-Control": "no-cache, max-age=0"},
        )


def public_routes(ctx: PublicContext, static_dir: Path = WEB_DISPLAY) -> list[BaseRoute]:
    """The routes anyone may use, on a hub and on its spectator edges alike."""
    api = PublicRoutes(ctx, static_dir)
    return [
        Route("/", api.index),
        Route("/match/{match_id}", api.match_page),
        Route("/match/{match_id}/analysis", api.analysis_page),
        Route("/console", api.console_page),
        Route("/team/{team_id}", api.team_page),
        Route("/standings", api.standings_page),
        Route("/api/standings", api.get_standings),
        Route("/api/matches", api.list_matches),
        Route("/api/matches/{match_id}", api.get_match),
        Route("/api/matches/{match_id}/export/{name}", api.export),
        Route("/api/matches/{match_id}/analysis", api.match_analysis),
        Route("/api/team-matches", api.list_team_matches),
        Route("/api/team-matches/{team_id}", api.get_team_match),
        Route("/pgn/round-{round:int}.pgn", api.round_pgn),
        Route("/api/rounds/{round:int}/export.trf", referee_only(ctx.auth, api.round_trf)),
        Route("/api/rounds/{round:int}/export.csv", api.round_csv),
        Route("/pgn/{match_id}.pgn", api.game_pgn),
        feed_route(ctx),
        Mount("/static", StaticFiles(directory=static_dir), name="static"),
    ]
