// The wall's tile parts shared by every sport: the score tile of a sport without a board of its own (games and
// points), a decided match's result in the big column with its winner marked, the one-line row of a scheduled
// match, and names fitted to their boxes.
import { sport } from "./sports.js";
import { fmtScore } from "./team.js";

const ONE_LINE_SCALE = 0.75;  // a name a little too long for one line shrinks this far before it takes two
const MIN_NAME_SCALE = 0.5;  // a name never shrinks below half its size; past that it takes more lines

function isSide(value) { return value === 0 || value === 1; }

function winnerOf(score) {
  const [a, b] = score.map(Number);
  return a > b ? 0 : b > a ? 1 : null;
}

/**
 * A decided match's result for the big column: {score: [a, b] as printed, winner: 0, 1 or null (a draw)}, or
 * null while it is played. A referee's result (a correction, a forfeit, an appeal decision) supersedes the
 * board's; then a board game counts as its sport says (`PAGES.result`: match points, 1 / ½ / 0), any other
 * sport in games won.
 */
export function tileResult(match) {
  const r = match.result;
  if (r && Array.isArray(r.score)) {
    return { score: r.score.map(fmtScore), winner: isSide(r.winner) ? r.winner : winnerOf(r.score) };
  }
  const own = sport(match.sport).result;
  if (own) return own(match);
  const s = match.state || {};
  return isSide(s.winner) && s.games ? { score: s.games.map(String), winner: s.winner } : null;
}

/** Put a decided match's result in the big column and mark its winner: a tick and weight, not only a colour. */
export function renderOutcome(tile, match, texts) {
  const outcome = tileResult(match);
  tile.classList.toggle("decided", Boolean(outcome));
  for (const side of [0, 1]) {
    const row = tile.querySelector(`.side-${side}`);
    if (!row) continue;
    const won = Boolean(outcome) && outcome.winner === side;
    if (outcome) row.querySelector(".points").textContent = outcome.score[side];
    row.classList.toggle("winner", won);
    row.classList.toggle("loser", Boolean(outcome) && outcome.winner === 1 - side);
    row.title = won ? texts.winner : "";
  }
}

/** Each side's names as one line of a compact row: "A – B", a pair as "A1 / A2 – B1 / B2". */
export function sideNames(match) {
  const players = match.players || [];
  const doubles = Boolean(match.state && match.state.doubles) || players.length === 4;
  const sides = doubles ? [players.slice(0, 2), players.slice(2, 4)] : [[players[0]], [players[1]]];
  return sides.map((names) => names.filter(Boolean).join(" / ") || "—");
}

/** A scheduled match takes one compact row: table, round, names, "scheduled"; returns whether it is one. */
export function renderCompact(tile, match) {
  const compact = match.status === "scheduled";
  tile.classList.toggle("compact", compact);
  let line = tile.querySelector(".compact-names");
  if (!line) {
    line = document.createElement("span");
    line.className = "name compact-names";
    tile.querySelector(".tile-head .round").after(line);
  }
  line.hidden = !compact;
  line.textContent = compact ? sideNames(match).join(" – ") : "";
  return compact;
}

/** The score tile of a sport without a board of its own: names (a pair on two lines), marks, games won and the
 * points. */
export function renderScoreTile(tile, match, texts) {
  const s = match.state || {};
  const doubles = Boolean(s.doubles) || match.players.length === 4;
  for (const side of [0, 1]) {
    const row = tile.querySelector(`.side-${side}`);
    const names = doubles ? match.players.slice(2 * side, 2 * side + 2) : [match.players[side]];
    const name = row.querySelector(".name");
    name.textContent = names.filter(Boolean).join(" /\n") || "—";  // a pair takes two short lines
    name.classList.toggle("pair", doubles);
    renderMarks(row.querySelector(".marks"), s, side, texts);
    row.querySelector(".games").textContent = s.games ? s.games[side] : "";
    row.querySelector(".points").textContent = s.points ? s.points[side] : "";
    const serve = row.querySelector(".serve");
    serve.classList.toggle("on", s.server === side && match.status === "live");
    serve.title = serve.classList.contains("on") ? texts.serve : "";
  }
  tile.querySelector(".history").textContent = (s.game_scores || []).map(([a, b]) => `${a}-${b}`).join(" · ");
}

// Time-out (used / active), cards and penalty points of one side, small enough for a tile row.
function renderMarks(el, s, side, texts) {
  const marks = [];
  const active = s.timeout_active === side;
  if (active || (s.timeouts && s.timeouts[side])) {
    const timeout = document.createElement("span");
    timeout.className = `mark timeout ${active ? "active" : "used"}`;
    timeout.textContent = "T";
    timeout.title = active ? texts.timeoutActive : texts.timeoutUsed;
    marks.push(timeout);
  }
  for (const card of (s.cards && s.cards[side]) || []) {
    if (!texts.cards[card]) continue;
    const c = document.createElement("span");
    c.className = `mark card card-${card}`;
    c.title = texts.cards[card];
    c.setAttribute("role", "img");
    c.setAttribute("aria-label", texts.cards[card]);
    marks.push(c);
  }
  const penalty = (s.penalty_points && s.penalty_points[side]) || 0;
  if (penalty > 0) {
    const p = document.createElement("span");
    p.className = "mark penalty";
    p.textContent = `+${penalty}`;
    p.title = texts.penalty(penalty);
    marks.push(p);
  }
  el.replaceChildren(...marks);
}

function overflows(el) { return el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight; }

function lines(el) { return Math.round(el.clientHeight / parseFloat(getComputedStyle(el).lineHeight)); }

// The largest size in [low, 1] × base at which `el` fits, to within 1 %; `low` when nothing does.
function shrinkTo(el, base, low) {
  let high = 1;
  el.style.fontSize = `${base * low}px`;
  if (overflows(el)) return false;
  for (let i = 0; i < 6; i++) {
    const mid = (low + high) / 2;
    el.style.fontSize = `${base * mid}px`;
    if (overflows(el)) high = mid; else low = mid;
  }
  el.style.fontSize = `${base * low}px`;
  return true;
}

/**
 * Fit names to their boxes so that none is cut: on one line if a little smaller does it, else on two lines,
 * shrunk as far as that needs (a pair of names has its two lines already). Fitting measures the page (a
 * layout each time): the sizes are reset for all the names first and measured together (one layout), only a
 * name that overflows is fitted on its own, and a name is left alone while what it shows and its row's marks
 * (the winner's weight) are what it was fitted for, unless `force` (the page's size changed). Hidden names are
 * fitted when they are shown.
 */
export function fitAll(names, force = false) {
  const todo = [];
  for (const el of names) {
    const key = `${el.textContent}|${el.parentElement ? el.parentElement.className : ""}`;
    if (!force && el.dataset.fitted === key) continue;
    el.style.fontSize = "";
    el.classList.remove("one-line", "two-lines", "more-lines", "break-words");
    todo.push([el, key]);
  }
  const over = [];
  const seen = [];
  for (const [el, key] of todo) {  // reads only: one layout for all of them
    if (!el.offsetParent) continue;
    seen.push([el, key]);
    const pair = el.classList.contains("pair") || el.classList.contains("compact-names");
    if (overflows(el) || (!pair && lines(el) >= 2)) over.push([el, pair]);
  }
  for (const [el, key] of seen) el.dataset.fitted = key;
  for (const [el, pair] of over) fitOverflowing(el, pair);
}

function fitOverflowing(el, pair) {
  const base = parseFloat(getComputedStyle(el).fontSize);
  if (!pair) {
    el.classList.add("one-line");
    if (shrinkTo(el, base, ONE_LINE_SCALE)) return;
    el.classList.remove("one-line");
    el.style.fontSize = "";
    if (!overflows(el)) return;
  }
  if (shrinkTo(el, base, MIN_NAME_SCALE)) return;
  // Too long for its lines even at half size: more lines (a scheduled row a second one, a tile's name four),
  // and past that a word longer than the box breaks inside it; the tile grows, the name is never cut.
  el.classList.add(el.classList.contains("compact-names") ? "two-lines" : "more-lines");
  el.style.fontSize = "";
  if (shrinkTo(el, base, MIN_NAME_SCALE)) return;
  el.classList.add("break-words");  // at the smallest size: as few words broken as can be
  el.style.fontSize = `${base * MIN_NAME_SCALE}px`;
}

/** Fit one name (see `fitAll`). */
export function fitName(el, force = false) {
  fitAll([el], force);
}

/** Fit every player and team name under `root` (all of them again when `force`: the page's size changed). */
export function fitNames(root, force = false) {
  fitAll(root.querySelectorAll(".tile .name"), force);
}
