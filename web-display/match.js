// The match screen: one table's live scoreboard, big enough to read across a hall, mirrored to the table's ends.
// `render(match)` draws a match topic's data (hub public_view) and is exported so tests can draw a crafted state
// with the very same code the live feed uses.
import { Feed, showConnection } from "./feed.js";
import { TEXTS, pickLanguage } from "./i18n.js";
import { SPORTS, sport } from "./sports.js";
import { $, hallScreen, keepHallLinks, pathId, showLanguage, withoutAnalysis } from "./page.js";

const STALE_AFTER_S = 120;
const HALL = hallScreen();  // a screen in the playing hall: no analysis on it
const PLAYER_INDEX = { A1: 0, A2: 1, B1: 2, B2: 3 };
const CARD_KINDS = ["yellow", "yellow_red", "red"];

let lang = pickLanguage(localStorage.getItem("boardcast.lang"), navigator.languages);
let connection = "connecting";
let current = null;
let notFound = false;

function t() { return TEXTS[lang]; }

/** ITTF compact notation from side 0's view: the loser's points, negative when side 0 lost ("7/-4/8/5"). */
export function compactNotation(gameScores) {
  return (gameScores || []).map(([a, b]) => (a > b ? String(b) : `-${a}`)).join("/");
}

/** Each side's player names: one per side in singles, a pair in doubles ([A1, A2], [B1, B2]). */
export function sidesOf(match) {
  const players = match.players || [];
  const doubles = (match.state && match.state.doubles) || players.length === 4;
  return doubles ? [[players[0], players[1]], [players[2], players[3]]] : [[players[0]], [players[1]]];
}

function sideEl(side) {
  const el = $(`side-${side}`);
  if (!el.firstElementChild) el.append($("side").content.cloneNode(true));
  return el;
}

function isSide(value) { return value === 0 || value === 1; }

/** A sport's own screen (`PAGES.screen`): a `<main>` beside the score board, made the first time it is asked for. */
function screenEl(screen) {
  let root = document.getElementById(screen.id);
  if (!root) {
    root = document.createElement("main");
    root.id = screen.id;
    root.className = `${screen.className} sport-screen`;
    root.hidden = true;
    if (screen.live) root.setAttribute("aria-live", "polite");  // read out as it changes
    document.querySelector("footer.foot").before(root);
  }
  return root;
}

export function render(shown) {
  const match = HALL ? withoutAnalysis(shown) : shown;
  current = match;
  notFound = false;
  $("not-found").hidden = true;
  if (!match) return;
  const s = match.state || {};
  const status = match.status || "scheduled";
  const playing = status === "live";
  const ends = s.ends === "swapped" ? "swapped" : "normal";
  const left = ends === "swapped" ? 1 : 0;
  const doubles = Boolean(s.doubles) || (match.players || []).length === 4;
  const sides = sidesOf(match);

  document.title = `${t().table} ${match.table} — ${sides.map((p) => p.filter(Boolean).join(" / ")).join(" – ")}`;
  $("table").textContent = `${t().table} ${match.table ?? ""}`;
  $("round").textContent = match.round != null ? `${t().round} ${match.round}` : "";
  const gameNo = s.game || (s.games ? s.games[0] + s.games[1] + 1 : null);
  $("game-no").textContent = gameNo && s.winner == null ? t().gameNo(gameNo) : "";
  const statusEl = $("status");
  statusEl.textContent = t().status[status] || status;
  statusEl.className = `status ${status}`;

  const provenance = $("provenance");
  provenance.textContent = match.official ? t().official : t().informational;
  provenance.className = `provenance ${match.official ? "official" : "informational"}`;
  renderRefereeNote(match);

  // a board game draws its own screen (its module's `PAGES.screen`); any other sport, the score board below
  const screen = sport(match.sport).screen;
  for (const other of Object.values(SPORTS)) if (other.screen) screenEl(other.screen).hidden = other.screen !== screen;
  $("board").hidden = Boolean(screen);
  $("history").hidden = Boolean(screen);
  document.querySelector(".compact-wrap").hidden = Boolean(screen);
  if (screen) {
    $("game-no").textContent = screen.gameNo(match, lang);
    const root = screenEl(screen);
    root.dataset.status = status;
    root.dataset.version = match.version ?? "";
    root.dataset.official = String(Boolean(match.official));
    screen.render(root, match, lang, statusEl);
    renderAge();
    return;
  }
  const board = $("board");
  board.dataset.ends = ends;
  board.dataset.status = status;
  board.dataset.version = match.version ?? "";
  board.dataset.official = String(Boolean(match.official));
  board.classList.toggle("doubles", doubles);
  // Once decided, the big numbers are the games won (the rally score of a finished match is history).
  const decided = isSide(s.winner);
  board.classList.toggle("decided", decided);
  $("ends-note").hidden = ends !== "swapped";

  const expedite = $("expedite");
  expedite.hidden = !s.expedite;
  const since = s.expedite_since;
  expedite.querySelector(".expedite-since").textContent =
    s.expedite && since && since.points ? t().expediteSince(since.game, since.points[0], since.points[1]) : "";

  for (const side of [0, 1]) {
    const el = sideEl(side);
    const position = side === left ? "left" : "right";
    el.classList.toggle("left", position === "left");
    el.classList.toggle("right", position === "right");
    el.dataset.position = position;
    const serving = playing && s.server === side;
    el.classList.toggle("serving", serving);
    el.dataset.serving = String(serving);
    el.querySelector(".ball").title = serving ? t().serve : "";
    el.classList.toggle("winner", s.winner === side);

    const names = el.querySelector(".names");
    names.replaceChildren(...sides[side].map((name, i) => {
      const code = `${side === 0 ? "A" : "B"}${i + 1}`;
      const row = document.createElement("div");
      row.className = "player";
      row.dataset.player = code;
      const label = document.createElement("span");
      label.className = "pname";
      label.textContent = name || "—";
      row.append(label);
      if (doubles && playing) {
        const role = s.server_player === code ? "serve" : s.receiver_player === code ? "receive" : null;
        if (role) {
          const tag = document.createElement("span");
          tag.className = `role role-${role}`;
          tag.textContent = role === "serve" ? t().serve : t().receive;
          row.append(tag);
          row.dataset.role = role;
        }
      }
      return row;
    }));

    const timeout = el.querySelector(".timeout");
    const over = s.winner !== null && s.winner !== undefined;
    const active = !over && s.timeout_active === side;
    const used = !over && Boolean(s.timeouts && s.timeouts[side]); // nothing left to use once the match is over
    timeout.hidden = !(active || used);
    timeout.className = `timeout ${active ? "active" : "used"}`;
    timeout.textContent = active ? t().timeoutActive : t().timeout;
    timeout.title = active ? t().timeoutActive : t().timeoutUsed;
    timeout.dataset.state = active ? "active" : used ? "used" : "none";

    const cards = ((s.cards && s.cards[side]) || []).filter((c) => CARD_KINDS.includes(c));
    el.querySelector(".cards").replaceChildren(...cards.map((card) => {
      const c = document.createElement("span");
      c.className = `card card-${card}`;
      c.dataset.card = card;
      c.title = t().cards[card];
      c.setAttribute("role", "img");
      c.setAttribute("aria-label", t().cards[card]);
      return c;
    }));
    const penalty = el.querySelector(".penalty");
    const penaltyPoints = (s.penalty_points && s.penalty_points[side]) || 0;
    penalty.hidden = !(penaltyPoints > 0);
    penalty.textContent = penaltyPoints > 0 ? t().penalty(penaltyPoints) : "";
    const won = el.querySelector(".won");
    won.hidden = s.winner !== side;
    won.textContent = t().winner;

    el.querySelector(".games-label").textContent = t().games;
    el.querySelector(".games-value").textContent = s.games ? s.games[side] : "0";
    const bigNumber = decided ? s.games : s.points;
    el.querySelector(".points .digits").textContent = bigNumber ? bigNumber[side] : "0";
  }

  renderHistory(match, sides);
  $("compact").textContent = compactNotation(s.game_scores) || "—";
  renderAge();
}

// A referee's result and the latest appeal with its decision and reasoning: shown to players, whom the
// tournament rules entitle to see how an appeal was decided.
function renderRefereeNote(match) {
  const note = $("referee-note");
  const parts = [];
  const r = match.result;
  if (r) parts.push(`${t().refereeResult}: ${r.score[0]}–${r.score[1]} (${t().resultBy[r.source] || r.source})`);
  const appeal = (match.appeals || []).at(-1);
  if (appeal && !appeal.decision) parts.push(t().appealOpen);
  if (appeal && appeal.decision) parts.push(`${t().appealDecision[appeal.decision]}: ${appeal.reasoning}`);
  note.textContent = parts.join(" · ");
  note.hidden = parts.length === 0;
}

function renderHistory(match, sides) {
  const scores = (match.state && match.state.game_scores) || [];
  const table = $("history");
  const head = document.createElement("tr");
  head.append(cell("th", t().history));
  scores.forEach((_, i) => head.append(cell("th", String(i + 1))));
  const rows = [0, 1].map((side) => {
    const row = document.createElement("tr");
    row.append(cell("th", sides[side].filter(Boolean).map(shortName).join(" / ") || "—"));
    for (const game of scores) {
      const td = cell("td", String(game[side]));
      if (game[side] > game[1 - side]) td.className = "game-won";
      row.append(td);
    }
    return row;
  });
  table.replaceChildren(head, ...rows);
}

function cell(tag, text) {
  const el = document.createElement(tag);
  el.textContent = text;
  return el;
}

function shortName(name) {
  const parts = String(name).trim().split(/\s+/);
  return parts.length > 1 ? `${parts[0][0]}. ${parts.slice(1).join(" ")}` : parts[0];
}

function renderAge() {
  const age = $("age");
  if (!current || !current.updated_at) { age.textContent = current ? t().never : ""; return; }
  const seconds = Math.max(0, Math.round(Date.now() / 1000 - current.updated_at));
  const waiting = Boolean(current.state && current.state.awaiting_result);  // quiet for a known reason
  const stale = current.status === "live" && seconds > STALE_AFTER_S && !waiting;
  age.textContent = `${t().updated}: ${stale ? `${t().stale} · ` : ""}${t().ago(seconds)}`;
  age.classList.toggle("stale", stale);
  $("board").classList.toggle("stale", stale);
}

function renderConnection() { showConnection($("connection"), connection, t()); }

function applyLanguage() {
  showLanguage(lang, t());
  $("history").setAttribute("aria-label", t().history);
  renderConnection();
  if (current) render(current);
  $("not-found").hidden = !notFound;
}

function start() {
  keepHallLinks();  // a hall screen's way back keeps it one
  const id = pathId("match");
  $("lang").addEventListener("click", () => {
    lang = lang === "tr" ? "en" : "tr";
    localStorage.setItem("boardcast.lang", lang);
    applyLanguage();
  });
  applyLanguage();
  setInterval(() => {
    renderAge();
    const screen = current && sport(current.sport).screen;
    if (screen && screen.ticking(current)) render(current);  // a clock the page counts down
  }, 1000);
  if (!id) { notFound = true; $("not-found").hidden = false; return; }
  const topic = `match:${id}`;
  new Feed(
    [topic],
    (message) => {
      if (message.topic !== topic) return;
      if (current && !message.snapshot && current.version > message.data.version) return;
      render(message.data);
    },
    (state) => { connection = state; renderConnection(); },
    (error) => {
      if (error.topic === topic && !current) { notFound = true; $("not-found").hidden = false; }
    },
  );
}

start();
