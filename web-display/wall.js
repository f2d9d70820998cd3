// The spectator wall: every table live, unconfirmed results marked informational.
import { Feed } from "./feed.js";
import { TEXTS, pickLanguage } from "./i18n.js";

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
  tile.querySelector(".table").textContent = `${t().table} ${match.table}`;
  tile.querySelector(".round").textContent = `${t().round} ${match.round}`;
  const status = tile.querySelector(".status");
  status.textContent = t().status[match.status] || match.status;
  status.className = `status ${match.status}`;
  tile.dataset.status = match.status;
  tile.dataset.version = match.version;
  for (const side of [0, 1]) {
    const row = tile.querySelector(`.side-${side}`);
    row.querySelector(".name").textContent = match.players[side] || "—";
    row.querySelector(".games").textContent = s.games ? s.games[side] : "";
    row.querySelector(".points").textContent = s.points ? s.points[side] : "";
    row.querySelector(".serve").classList.toggle("on", s.server === side && match.status === "live");
    row.classList.toggle("winner", s.winner === side);
  }
  tile.querySelector(".history").textContent = (s.game_scores || []).map(([a, b]) => `${a}-${b}`).join("  ");
  const provenance = tile.querySelector(".provenance");
  provenance.textContent = match.official ? t().official : t().informational;
  provenance.className = `provenance ${match.official ? "official" : "informational"}`;
  tile.classList.toggle("official", match.official);
  renderAge(tile, match);
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
