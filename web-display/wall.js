// The spectator wall: every table live, unconfirmed results marked informational.
import { Feed } from "./feed.js";
import { TEXTS, pickLanguage } from "./i18n.js";
import { SPORT_ORDER, sport, sportName } from "./sports.js";
import { renderTeamTile } from "./team.js";
import { fitAll, fitNames, renderCompact, renderOutcome, renderScoreTile } from "./wall-tiles.js";
import { Pager, rotateSeconds } from "./wall-pager.js";
import { hallHref, hallScreen, showLanguage, withoutAnalysis } from "./page.js";

const HALL = hallScreen();  // a screen in the playing hall (`?hall=1`): no analysis on it

const STALE_AFTER_S = 120;
const matches = new Map();
const teams = new Map();  // team matches: id -> {view, version}
let lang = pickLanguage(localStorage.getItem("boardcast.lang"), navigator.languages);
let connection = "connecting";

function t() { return TEXTS[lang]; }

function applyLanguage() {
  showLanguage(lang, t());
  renderConnection();
  renderFilters();
  for (const match of matches.values()) render(match);
  for (const { view } of teams.values()) renderTeam(view);
  if (pager) pager.refresh();
}

function renderConnection() {
  const el = document.getElementById("connection");
  el.className = `conn conn-${connection}`;
  el.textContent = t()[connection];
}

function tileFor(match) {
  let tile = document.getElementById(`match-${match.id}`);
  if (!tile) {
    tile = document.getElementById("tile").content.firstElementChild.cloneNode(true);
    tile.id = `match-${match.id}`;
    tile.dataset.match = match.id;
    tile.dataset.sport = match.sport;
    tile.dataset.table = match.table;
    document.getElementById("wall").append(tile);
    sortTiles();
  }
  return tile;
}

// The wall is grouped by sport, each group under its heading; within a group, by table then round.
const links = new Map();  // table -> its device's link ("connected", …), from the devices topic
const params = new URLSearchParams(location.search);
const filter = { sport: params.get("sport") || "", table: params.get("table") || "" };  // a screen can be pinned

function sportOf(node) { return node.dataset.sport || ""; }

function sportRank(node) {
  const i = SPORT_ORDER.indexOf(sportOf(node));
  return i < 0 ? SPORT_ORDER.length : i;
}

function sortTiles() {
  const wall = document.getElementById("wall");
  for (const sport of new Set([...wall.querySelectorAll(".tile")].map(sportOf))) {
    if (wall.querySelector(`.group-head[data-sport="${sport}"]`)) continue;
    const head = document.createElement("h2");
    head.className = "group-head";
    head.dataset.sport = sport;
    head.dataset.heading = "true";
    wall.append(head);
  }
  for (const gap of wall.querySelectorAll(".group-break")) gap.remove();
  const tiles = [...wall.children].sort((a, b) => {
    const bySport = sportRank(a) - sportRank(b) || sportOf(a).localeCompare(sportOf(b));
    if (bySport) return bySport;
    if (a.dataset.heading || b.dataset.heading) return a.dataset.heading ? -1 : 1;
    const byCompact = Number(a.classList.contains("compact")) - Number(b.classList.contains("compact"));
    if (byCompact) return byCompact;
    if (a.dataset.team || b.dataset.team) return compareTeamTiles(a, b);
    const ma = matches.get(a.dataset.match), mb = matches.get(b.dataset.match);
    return ma.table.localeCompare(mb.table, undefined, { numeric: true }) || ma.round - mb.round;
  });
  placeInOrder(wall, tiles);
  let previous = null;
  for (const tile of tiles) {  // the first compact row after a group's tiles starts a row of its own
    if (tile.classList.contains("compact") && previous?.classList.contains("tile") && !previous.classList.contains("compact")) {
      const gap = document.createElement("div");
      gap.className = "group-break";
      gap.dataset.sport = sportOf(tile);
      gap.setAttribute("aria-hidden", "true");
      tile.before(gap);
    }
    previous = tile;
  }
  renderFilters();
}

// Only the nodes out of place move: moving a node cancels a click in progress on it (a spectator tapping a tile
// while another match ends would otherwise lose the tap).
function placeInOrder(parent, nodes) {
  let next = parent.firstElementChild;
  for (const node of nodes) {
    if (node === next) next = node.nextElementSibling;
    else parent.insertBefore(node, next);
  }
}

function renderFilters() {
  const wall = document.getElementById("wall");
  for (const head of wall.querySelectorAll(".group-head")) head.textContent = sportName(head.dataset.sport, lang);
  const sports = [...new Set([...wall.querySelectorAll(".tile")].map(sportOf))];
  const tables = [...new Set([...matches.values()].map((m) => m.table))]
    .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  fillSelect(document.getElementById("sport-filter"), t().allSports, sports.map((s) => [s, sportName(s, lang)]), filter.sport);
  fillSelect(document.getElementById("table-filter"), t().allTables, tables.map((x) => [x, `${t().table} ${x}`]), filter.table);
  for (const tile of wall.querySelectorAll(".tile")) {
    tile.hidden = Boolean((filter.sport && sportOf(tile) !== filter.sport) || (filter.table && tile.dataset.table !== filter.table));
  }
  const shown = (sport, compact) => [...wall.querySelectorAll(".tile")]
    .some((x) => !x.hidden && sportOf(x) === sport && (compact == null || x.classList.contains("compact") === compact));
  for (const head of wall.querySelectorAll(".group-head")) head.hidden = !shown(head.dataset.sport);
  for (const gap of wall.querySelectorAll(".group-break")) {  // only between shown tiles and shown rows
    gap.hidden = !shown(gap.dataset.sport, false) || !shown(gap.dataset.sport, true);
  }
  if (pager) pager.refresh();
}

function fillSelect(select, allText, options, value) {
  const wanted = [["", allText], ...options];
  const now = [...select.options].map((o) => [o.value, o.textContent]);
  if (JSON.stringify(now) !== JSON.stringify(wanted)) {
    select.replaceChildren(...wanted.map(([v, text]) => Object.assign(document.createElement("option"), { value: v, textContent: text })));
  }
  select.value = value;
}

function onFilter() {
  filter.sport = document.getElementById("sport-filter").value;
  filter.table = document.getElementById("table-filter").value;
  const search = new URLSearchParams(location.search);  // other settings (`rotate`) stay as they were
  for (const [key, value] of Object.entries(filter)) if (value) search.set(key, value); else search.delete(key);
  const query = search.toString();
  history.replaceState(null, "", query ? `?${query}` : location.pathname);
  renderFilters();
  fitNames(document.getElementById("wall"), true);
}

function onDevices(message) {
  const entries = message.snapshot ? message.data.tables : [message.data];
  for (const h of entries) if (h && !h.slot) links.set(h.table, h.link);
  for (const match of matches.values()) renderAge(tileFor(match), match);
}

function deviceSilent(match) {
  const link = links.get(match.table);
  return link != null && link !== "connected";
}

// A referee's result (a correction, a forfeit, an appeal decision) or an open appeal, under the score.
function renderResult(tile, match) {
  let note = tile.querySelector(".referee-result");
  if (!note) {
    note = document.createElement("div");
    note.className = "referee-result";
    tile.querySelector(".tile-foot").before(note);
  }
  const r = match.result;
  note.hidden = !r && match.status !== "protested";
  note.textContent = match.status === "protested"
    ? t().appealOpen
    : r ? `${t().refereeResult}: ${r.score[0]}–${r.score[1]} (${t().resultBy[r.source] || r.source})` : "";
}

function render(match) {
  const tile = tileFor(match);
  const s = match.state || {};
  const link = tile.querySelector(".table");
  link.textContent = `${t().table} ${match.table}`;
  link.href = hallHref(`/match/${encodeURIComponent(match.id)}`);
  link.title = t().openMatch;
  const expedite = tile.querySelector(".expedite");
  expedite.hidden = !s.expedite;
  expedite.textContent = t().expediteShort;
  expedite.title = t().expedite;
  tile.querySelector(".round").textContent = `${t().round} ${match.round}`;
  const status = tile.querySelector(".status");
  status.textContent = t().status[match.status] || match.status;
  status.className = `status ${match.status}`;
  tile.dataset.status = match.status;
  tile.dataset.version = match.version;
  const drawTile = sport(match.sport).tile;  // a board game's own tile; else the score tile
  if (drawTile) drawTile(tile, HALL ? withoutAnalysis(match) : match, lang);
  else renderScoreTile(tile, match, t());
  renderOutcome(tile, match, t());
  const wasCompact = tile.classList.contains("compact");
  if (renderCompact(tile, match) !== wasCompact) sortTiles();
  const provenance = tile.querySelector(".provenance");
  provenance.textContent = match.official ? t().official : t().informational;
  provenance.className = `provenance ${match.official ? "official" : "informational"}`;
  tile.classList.toggle("official", match.official);
  renderResult(tile, match);
  renderAge(tile, match);
  fitTile(tile);
}

// Long names shrink to fit their boxes (never cut); a hidden tile's names are fitted when it is shown. The
// tiles changed in one turn (a snapshot, a batch of changes) are fitted together at the next frame.
const toFit = new Set();
function fitTile(tile) {
  if (!toFit.size) requestAnimationFrame(() => {
    const names = [...toFit].flatMap((t) => [...t.querySelectorAll(".name")]);
    toFit.clear();
    fitAll(names);
    for (const name of names) watchWidth(name);
  });
  toFit.add(tile);
}

// A name's box narrows when something beside it grows (a clock reaching "1:30:00", a card, the winner's
// tick): a name fitted to the wider box would be cut, so it is fitted again when its width changes.
const widths = new WeakMap();
const resized = new ResizeObserver((entries) => {
  const changed = [];
  for (const { target, contentRect } of entries) {
    const before = widths.get(target);
    widths.set(target, contentRect.width);
    if (before !== undefined && Math.abs(before - contentRect.width) >= 1) changed.push(target);
  }
  if (changed.length) fitAll(changed, true);
});
function watchWidth(name) {
  if (widths.has(name)) return;
  widths.set(name, undefined);
  resized.observe(name);
}

function renderAge(tile, match) {
  const age = tile.querySelector(".age");
  if (!match.updated_at) { age.textContent = t().never; return; }
  const seconds = Math.max(0, Math.round(Date.now() / 1000 - match.updated_at));
  const silent = match.status === "live" && deviceSilent(match);  // the table's device lost its link
  // a game the hub shows as waiting for its result is quiet for a known reason: not stale
  const waiting = Boolean(match.state && match.state.awaiting_result);
  const stale = silent || (match.status === "live" && seconds > STALE_AFTER_S && !waiting);
  const marker = silent ? `${t().stale} (${t().deviceSilent})` : t().stale;
  age.textContent = stale ? `${marker} · ${t().ago(seconds)}` : t().ago(seconds);
  age.classList.toggle("stale", stale);
  tile.classList.toggle("stale", stale);
}

/** Draw one match's tile exactly as a venue change would (exported so tests can draw a crafted state). */
export function show(match) {
  matches.set(match.id, match);
  render(match);
}

// Team matches: a tile with both teams and the live score, first in its sport's group, linking to /team/ID.
function compareTeamTiles(a, b) {
  if (!a.dataset.team || !b.dataset.team) return a.dataset.team ? -1 : 1;
  const ta = teams.get(a.dataset.team).view, tb = teams.get(b.dataset.team).view;
  return (ta.round ?? 0) - (tb.round ?? 0) || String(ta.id).localeCompare(String(tb.id), undefined, { numeric: true });
}

function renderTeam(view) {
  let tile = document.getElementById(`team-${view.id}`);
  if (!tile) {
    tile = document.createElement("article");
    tile.className = "tile team-tile";
    tile.id = `team-${view.id}`;
    tile.dataset.team = view.id;
    tile.dataset.sport = view.sport || "";  // its games' sport: the tile stands in that group
    document.getElementById("wall").append(tile);
    sortTiles();
  }
  renderTeamTile(tile, view, lang);
  fitTile(tile);
}

/** Draw one team match's tile exactly as a venue change would (exported so tests can draw a crafted view). */
export function showTeam(view, version = 0) {
  teams.set(view.id, { view, version });
  renderTeam(view);
}

function onMessage(message) {
  if (message.topic === "devices") { onDevices(message); return; }
  if (message.topic !== "venue") return;
  if (message.snapshot) {
    document.getElementById("venue-name").textContent = message.data.name;
    document.title = `${message.data.name} — Boardcast`;
    for (const match of message.data.matches) { matches.set(match.id, match); render(match); }
    for (const view of message.data.team_matches || []) showTeam(view, message.version);
  } else if (message.data.kind === "team_match") {
    const known = teams.get(message.data.id);
    if (known && known.version > message.version) return;
    showTeam(message.data, message.version);
  } else {
    const known = matches.get(message.data.id);
    if (known && known.version > message.data.version) return;
    matches.set(message.data.id, message.data);
    render(message.data);
  }
}

// A hall screen (`?rotate=8`) pages through tiles that do not fit; without it the page scrolls.
const seconds = rotateSeconds(params.get("rotate"));
const pager = seconds ? new Pager(document.getElementById("wall"), document.getElementById("pager"), seconds,
  (page, pages) => t().page(page, pages), () => fitNames(document.getElementById("wall"))) : null;
addEventListener("resize", () => fitNames(document.getElementById("wall"), true));
document.getElementById("lang").addEventListener("click", () => {
  lang = lang === "tr" ? "en" : "tr";
  localStorage.setItem("boardcast.lang", lang);
  applyLanguage();
});
applyLanguage();
document.getElementById("sport-filter").addEventListener("change", onFilter);
document.getElementById("table-filter").addEventListener("change", onFilter);
new Feed(["venue", "devices"], onMessage, (state) => { connection = state; renderConnection(); });
// The standings link only for an event with standings (a venue with a tournament answers 200).
fetch("/api/standings").then((r) => { document.getElementById("standings-link").hidden = !r.ok; }, () => {});
setInterval(() => {
  for (const match of matches.values()) renderAge(tileFor(match), match);
}, 1000);
