// The spectator wall: every table live, unconfirmed results marked informational.
import { Feed } from "./feed.js";
import { TEXTS, pickLanguage } from "./i18n.js";
import { renderBackgammonTile } from "./backgammon.js";

const STALE_AFTER_S = 120;
const matches = new Map();
let lang = pickLanguage(localStorage.getItem("boardcast.lang"), navigator.languages);
let connection = "connecting";

function t() { return TEXTS[lang]; }

function applyLanguage() {
  document.documentElement.lang = lang;
  document.getElementById("lang").textContent = lang === "tr" ? "EN" : "TR";
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t()[el.dataset.i18n];
  renderConnection();
  for (const match of matches.values()) render(match);
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
    document.getElementById("wall").append(tile);
    sortTiles();
  }
  return tile;
}

function sortTiles() {
  const wall = document.getElementById("wall");
  const tiles = [...wall.children].sort((a, b) => {
    const ma = matches.get(a.dataset.match), mb = matches.get(b.dataset.match);
    return ma.table.localeCompare(mb.table, undefined, { numeric: true }) || ma.round - mb.round;
  });
  wall.append(...tiles);
}

function render(match) {
  const tile = tileFor(match);
  const s = match.state || {};
  const link = tile.querySelector(".table");
  link.textContent = `${t().table} ${match.table}`;
  link.href = `/match/${encodeURIComponent(match.id)}`;
  link.title = t().openMatch;
  const expedite = tile.querySelector(".expedite");
  expedite.hidden = !s.expedite;
  expedite.textContent = t().expediteShort;
  expedite.title = t().expedite;
  const doubles = Boolean(s.doubles) || match.players.length === 4;
  tile.querySelector(".round").textContent = `${t().round} ${match.round}`;
  const status = tile.querySelector(".status");
  status.textContent = t().status[match.status] || match.status;
  status.className = `status ${match.status}`;
  tile.dataset.status = match.status;
  tile.dataset.version = match.version;
  if (match.sport === "backgammon") renderBackgammonTile(tile, match, lang);
  else renderTableTennis(tile, match, s, doubles);
  const provenance = tile.querySelector(".provenance");
  provenance.textContent = match.official ? t().official : t().informational;
  provenance.className = `provenance ${match.official ? "official" : "informational"}`;
  tile.classList.toggle("official", match.official);
  renderAge(tile, match);
}

function renderTableTennis(tile, match, s, doubles) {
  for (const side of [0, 1]) {
    const row = tile.querySelector(`.side-${side}`);
    const names = doubles ? match.players.slice(2 * side, 2 * side + 2) : [match.players[side]];
    const name = row.querySelector(".name");
    name.textContent = names.filter(Boolean).join(" /\n") || "—";  // a pair takes two short lines
    name.classList.toggle("pair", doubles);
    renderMarks(row.querySelector(".marks"), s, side);
    row.querySelector(".games").textContent = s.games ? s.games[side] : "";
    row.querySelector(".points").textContent = s.points ? s.points[side] : "";
    const serve = row.querySelector(".serve");
    serve.classList.toggle("on", s.server === side && match.status === "live");
    serve.title = serve.classList.contains("on") ? t().serve : "";
    row.classList.toggle("winner", s.winner === side);
  }
  tile.querySelector(".history").textContent = (s.game_scores || []).map(([a, b]) => `${a}-${b}`).join(" · ");
}

// Time-out (used / active), cards and penalty points of one side, small enough for a tile row.
function renderMarks(el, s, side) {
  const marks = [];
  const active = s.timeout_active === side;
  if (active || (s.timeouts && s.timeouts[side])) {
    const timeout = document.createElement("span");
    timeout.className = `mark timeout ${active ? "active" : "used"}`;
    timeout.textContent = "T";
    timeout.title = active ? t().timeoutActive : t().timeoutUsed;
    marks.push(timeout);
  }
  for (const card of (s.cards && s.cards[side]) || []) {
    if (!t().cards[card]) continue;
    const c = document.createElement("span");
    c.className = `mark card card-${card}`;
    c.title = t().cards[card];
    c.setAttribute("role", "img");
    c.setAttribute("aria-label", t().cards[card]);
    marks.push(c);
  }
  const penalty = (s.penalty_points && s.penalty_points[side]) || 0;
  if (penalty > 0) {
    const p = document.createElement("span");
    p.className = "mark penalty";
    p.textContent = `+${penalty}`;
    p.title = t().penalty(penalty);
    marks.push(p);
  }
  el.replaceChildren(...marks);
}

function renderAge(tile, match) {
  const age = tile.querySelector(".age");
  if (!match.updated_at) { age.textContent = t().never; return; }
  const seconds = Math.max(0, Math.round(Date.now() / 1000 - match.updated_at));
  const stale = match.status === "live" && seconds > STALE_AFTER_S;
  age.textContent = stale ? `${t().stale} · ${t().ago(seconds)}` : t().ago(seconds);
  age.classList.toggle("stale", stale);
  tile.classList.toggle("stale", stale);
}

/** Draw one match's tile exactly as a venue change would (exported so tests can draw a crafted state). */
export function show(match) {
  matches.set(match.id, match);
  render(match);
}

function onMessage(message) {
  if (message.topic !== "venue") return;
  if (message.snapshot) {
    document.getElementById("venue-name").textContent = message.data.name;
    document.title = `${message.data.name} — Boardcast`;
    for (const match of message.data.matches) { matches.set(match.id, match); render(match); }
  } else {
    const known = matches.get(message.data.id);
    if (known && known.version > message.data.version) return;
    matches.set(message.data.id, message.data);
    render(message.data);
  }
}

document.getElementById("lang").addEventListener("click", () => {
  lang = lang === "tr" ? "en" : "tr";
  localStorage.setItem("boardcast.lang", lang);
  applyLanguage();
});
applyLanguage();
new Feed(["venue"], onMessage, (state) => { connection = state; renderConnection(); });
setInterval(() => {
  for (const match of matches.values()) renderAge(tileFor(match), match);
}, 1000);
