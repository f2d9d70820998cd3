// A team match screen: both teams, the live score, match points once every board is done, and one row
// per board (category, players with their colours, titles and ratings, each game's clocks counting down, result,
// status) linking to the game. Live on `team:ID`.
// `renderTeam(view)` and `renderTeamTile(tile, view, lang)` are exported so tests and the wall draw crafted views
// with the very code the live feed uses.
import { sport } from "./sports.js";
import { Feed, showConnection } from "./feed.js";
import { TEAM_TEXTS, TEXTS, pickLanguage } from "./i18n.js";
import { $, el, hallHref, hallScreen, keepHallLinks, pathId, showLanguage, withoutAnalysis } from "./page.js";

const HALL = hallScreen();  // a screen in the playing hall: no analysis on it

let lang = pickLanguage(localStorage.getItem("boardcast.lang"), navigator.languages);
let connection = "connecting";
let current = null;
let currentVersion = -1;
let notFound = false;

function tt() { return TEAM_TEXTS[lang]; }
function t() { return TEXTS[lang]; }

/** A team score with halves as its players write it: 4.5 → "4½", 0.5 → "½", 3 → "3". */
export function fmtScore(value) {
  const n = Number(value) || 0;
  const whole = Math.floor(n);
  const half = n - whole >= 0.5;
  if (!half) return String(whole);
  return whole ? `${whole}½` : "½";
}

const HOME_POINTS = { "1-0": ["1", "0"], "0-1": ["0", "1"], "1/2-1/2": ["½", "½"], "0-0": ["0", "0"] };

/** A board's result as the teams score it, home first ("1–0" when the home player won), or "" while played. */
export function boardScore(board) {
  const points = HOME_POINTS[board.result];
  if (!points) return "";
  const [white, black] = points;
  return board.home_is_white ? `${white}–${black}` : `${black}–${white}`;
}

/** The home and away player of a board with their colours, titles, ratings and clock times (null: not known). */
export function boardPlayers(board) {
  const clock = board.clock || null;
  const side = (colour) => ({
    name: board[colour] || "—",
    colour,
    title: board[`${colour}_title`] || null,
    rating: board[`${colour}_rating`] || null,
    ms: clock ? clock[`${colour}_ms`] ?? null : null,
    running: Boolean(clock && clock.running === colour),
  });
  const white = side("white"), black = side("black");
  return board.home_is_white ? [white, black] : [black, white];
}

function colourDot(colour, label) {
  const dot = el("span", `colour colour-${colour}`);
  dot.dataset.colour = colour;
  dot.title = label;
  dot.setAttribute("role", "img");
  dot.setAttribute("aria-label", label);
  return dot;
}

function category(board, language) {
  return language === "tr" ? board.category_tr || board.category_en : board.category_en || board.category_tr;
}

function outcomeText(view, x) {
  const [home, away] = view.teams || ["", ""];
  if (!view.complete || !view.match_points) return "";
  const [a, b] = view.match_points;
  return a > b ? x.won(home) : b > a ? x.won(away) : x.drawn;
}

/** Draw the whole team match screen (the page's #team container). */
export function renderTeam(view) {
  current = view;
  notFound = false;
  $("not-found").hidden = true;
  if (!view) return;
  const x = tt();
  const [home, away] = view.teams || ["", ""];
  const score = view.score || [0, 0];
  const boards = (view.boards || []).map((board) => (HALL ? withoutAnalysis(board) : board));
  document.title = `${home} ${fmtScore(score[0])}–${fmtScore(score[1])} ${away} — Boardcast`;
  $("title").textContent = x.teamMatch;
  $("round").textContent = view.round != null ? `${t().round} ${view.round}` : "";
  const provenance = $("provenance");
  provenance.textContent = view.official ? t().official : t().informational;
  provenance.className = `provenance ${view.official ? "official" : "informational"}`;

  const root = $("team");
  root.dataset.complete = String(Boolean(view.complete));
  root.dataset.official = String(Boolean(view.official));
  $("home-name").textContent = home;
  $("away-name").textContent = away;
  $("home-score").textContent = fmtScore(score[0]);
  $("away-score").textContent = fmtScore(score[1]);
  const mp = view.match_points;
  $("match-points").hidden = !(view.complete && mp);
  $("match-points").textContent = view.complete && mp ? `${x.matchPoints}: ${mp[0]}–${mp[1]}` : "";
  $("outcome").textContent = outcomeText(view, x);
  $("decided").textContent = x.decided(view.decided ?? 0, boards.length);
  $("home-name").classList.toggle("winner", Boolean(mp && mp[0] > mp[1]));
  $("away-name").classList.toggle("winner", Boolean(mp && mp[1] > mp[0]));

  const head = $("boards-head");
  head.replaceChildren(
    el("span", "c-no", x.board), el("span", "c-cat", x.category), el("span", "c-home", home),
    el("span", "c-res", x.result), el("span", "c-away", away), el("span", "c-status", x.status),
  );
  const list = $("boards");
  if (!boards.length) { list.replaceChildren(el("li", "team-empty", x.noBoards)); return; }
  list.replaceChildren(...boards.map((board) => {
    const li = el("li", "team-board");
    li.dataset.board = String(board.board);
    li.dataset.result = board.result || "";
    li.dataset.status = board.status || "";
    const row = el(board.match_id ? "a" : "div", "team-row");  // a board decided by forfeit has no game
    if (board.match_id) {
      row.href = hallHref(`/match/${encodeURIComponent(board.match_id)}`);
      row.title = x.openGame;
    }
    const [homePlayer, awayPlayer] = boardPlayers(board);
    const delayS = Number(view.broadcast_delay_s) || 0;
    const player = (p, cls) => {
      const cell = el("span", `player ${cls}`);
      const info = el("span", "pinfo");
      const name = el("span", "pname");
      if (p.title) name.append(el("span", "ptitle", p.title), " ");
      name.append(p.name);
      info.append(name);
      const meta = el("span", "pmeta");
      if (p.rating) meta.append(el("span", "prating", String(p.rating)));
      const clockEl = sport(view.sport).clockEl;  // the games' sport draws its clock
      if (board.clock && clockEl) {
        const clock = clockEl("pclock", p.ms, p.running, board.clock.as_of, delayS);
        clock.title = p.running ? x.clockRunning : x.clock;
        meta.append(clock);
      }
      if (meta.childNodes.length) info.append(meta);
      cell.append(colourDot(p.colour, p.colour === "white" ? x.white : x.black), info);
      return cell;
    };
    const res = el("span", "c-res", boardScore(board) || "–");
    res.classList.toggle("pending", !board.result);
    const extra = sport(view.sport).boardExtra;  // what the games' sport adds to a board (an engine's evaluation)
    const chip = extra ? extra(board, lang) : null;
    if (chip) res.append(chip);
    const status = el("span", `c-status status ${board.status || ""}`, t().status[board.status] || board.status || "");
    if (board.official) status.classList.add("official");
    row.append(
      el("span", "c-no", String(board.board)), el("span", "c-cat", category(board, lang)),
      player(homePlayer, "c-home"), res, player(awayPlayer, "c-away"), status,
    );
    li.append(row);
    return li;
  }));
}

/** The wall tile of a team match: both teams with the live score, match points when complete; links to /team/ID. */
export function renderTeamTile(tile, view, language) {
  const x = TEAM_TEXTS[language] || TEAM_TEXTS.en;
  const tx = TEXTS[language] || TEXTS.en;
  if (!tile.querySelector(".rows")) {
    tile.innerHTML = `
      <header class="tile-head">
        <a class="table" href="#"></a><span class="round"></span><span class="status"></span>
      </header>
      <div class="rows">
        <div class="row team-side" data-side="0"><span class="name"></span><span class="points"></span></div>
        <div class="row team-side" data-side="1"><span class="name"></span><span class="points"></span></div>
      </div>
      <footer class="tile-foot"><span class="history"></span><span class="provenance"></span></footer>`;
  }
  const link = tile.querySelector(".table");
  link.textContent = x.teamMatch;
  link.href = hallHref(`/team/${encodeURIComponent(view.id)}`);
  link.title = x.teamMatch;
  tile.querySelector(".round").textContent = view.round != null ? `${tx.round} ${view.round}` : "";
  const mp = view.match_points;
  const status = tile.querySelector(".status");
  const state = view.complete ? "finished" : anyLive(view) || (view.decided ?? 0) > 0 ? "live" : "scheduled";
  status.textContent = tx.status[state];
  status.className = `status ${state}`;
  tile.dataset.status = state;
  (view.teams || []).forEach((team, side) => {
    const row = tile.querySelector(`.team-side[data-side="${side}"]`);
    row.querySelector(".name").textContent = team;
    row.querySelector(".points").textContent = fmtScore((view.score || [0, 0])[side]);
    row.classList.toggle("winner", Boolean(mp && mp[side] > mp[1 - side]));
  });
  const boards = (view.boards || []).length;
  tile.querySelector(".history").textContent = view.complete && mp
    ? `${x.matchPoints} ${mp[0]}–${mp[1]}`
    : x.decided(view.decided ?? 0, boards);
  const provenance = tile.querySelector(".provenance");
  provenance.textContent = view.official ? tx.official : tx.informational;
  provenance.className = `provenance ${view.official ? "official" : "informational"}`;
  tile.classList.toggle("official", Boolean(view.official));
  tile.dataset.complete = String(Boolean(view.complete));
}

function anyLive(view) { return (view.boards || []).some((b) => b.status === "live"); }

function renderConnection() { showConnection($("connection"), connection, t()); }

function applyLanguage() {
  showLanguage(lang, t());
  for (const node of document.querySelectorAll("[data-team-i18n]")) node.textContent = tt()[node.dataset.teamI18n];
  renderConnection();
  if (current) renderTeam(current);
  $("not-found").hidden = !notFound;
}

function start() {
  keepHallLinks();  // a hall screen's way back keeps it one
  const id = pathId("team");
  $("lang").addEventListener("click", () => {
    lang = lang === "tr" ? "en" : "tr";
    localStorage.setItem("boardcast.lang", lang);
    applyLanguage();
  });
  applyLanguage();
  if (!id) { notFound = true; $("not-found").hidden = false; return; }
  const topic = `team:${id}`;
  new Feed(
    [topic],
    (message) => {
      if (message.topic !== topic) return;
      if (current && !message.snapshot && currentVersion > message.version) return;
      currentVersion = message.version;
      renderTeam(message.data);
    },
    (state) => { connection = state; renderConnection(); },
    (error) => {
      if (error.topic === topic && !current) { notFound = true; $("not-found").hidden = false; }
    },
  );
}

// The wall imports this module for its tiles; only the team page itself starts a feed.
if (document.body && document.body.dataset.page === "team") start();
