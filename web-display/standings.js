// The spectators' standings: the event's ranking with the regulations' tie-breaks as the hub works it out from the
// report file and the hall's results, the round's byes and forfeits with their codes explained, and board prizes for
// team events. Live on the `standings` topic (each message the whole view). Informational until every counted
// result is confirmed by a referee. `renderStandings(view)` is exported so tests draw crafted views with the very
// code the live feed uses. On a hall screen the table fits the screen (in columns when long); `?rotate=8` pages
// through it 60 rows at a time, then the byes and board prizes.
import { Feed, showConnection } from "./feed.js";
import { STANDINGS_TEXTS, TEXTS, pickLanguage } from "./i18n.js";
import { rotateSeconds } from "./wall-pager.js";
import { $, el, keepHallLinks, showLanguage } from "./page.js";

const ROWS_PER_COLUMN = 20;  // past this a wide screen splits the table into columns side by side
const MAX_COLUMNS = 3;
const CODES = ["U", "H", "F", "Z", "+", "-"];

let lang = pickLanguage(localStorage.getItem("boardcast.lang"), navigator.languages);
let connection = "connecting";
let current = null;
let currentVersion = -1;
let notFound = false;

function st() { return STANDINGS_TEXTS[lang]; }
function t() { return TEXTS[lang]; }

function asNumber(value) {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return null;
}

const QUARTERS = ["", "¼", "½", "¾"];

/** Points or a tie-break as standings write them, in quarters (4.5 → "4½", 11.25 → "11¼"; Sonneborn-Berger
 * gives quarters); a value that is no quarter in decimals; anything not a number → "–". */
export function fmtNumber(value) {
  const n = asNumber(value);
  if (n == null) return "–";
  if (n < 0) return `−${fmtNumber(-n)}`;
  if (!Number.isInteger(n * 4)) return String(Math.round(n * 100) / 100);
  const whole = Math.floor(n);
  const quarter = QUARTERS[Math.round((n - whole) * 4)];
  return quarter ? `${whole || ""}${quarter}` : String(whole);
}

function decimals(n) { return Number.isInteger(n) ? 0 : Number.isInteger(n * 10) ? 1 : 2; }

/**
 * How a column's values are written, the same way on every row: in quarters (½ ¼ ¾) when every value is one,
 * else all in decimals with the same digits (an average such as ARO or AOB: "12.50", "11.33"), so that a column
 * never mixes "½" and "0.25".
 */
export function columnFormat(values) {
  const numbers = values.map(asNumber).filter((n) => n != null);
  if (numbers.every((n) => Number.isInteger(n * 4))) return fmtNumber;
  const digits = Math.max(...numbers.map(decimals));
  return (value) => {
    const n = asNumber(value);
    if (n == null) return "–";
    return n < 0 ? `−${(-n).toFixed(digits)}` : n.toFixed(digits);
  };
}

// The formats of the standings' points and tie-break columns, worked out over every row of the view.
function tableFormats(view) {
  const rows = view.rows || [];
  const tiebreaks = {};
  for (const name of view.tiebreaks || []) tiebreaks[name] = columnFormat(rows.map((r) => (r.tiebreaks || {})[name]));
  return { points: columnFormat(rows.map((r) => r.points)), tiebreaks };
}

function fmtPlain(value, digits, language) {
  const n = asNumber(value);
  if (n == null) return "–";
  return n.toLocaleString(language === "tr" ? "tr-TR" : "en-GB", { maximumFractionDigits: digits, useGrouping: false });
}

/**
 * The rank shown on each row: a place shared by several rows is written once, on its first row, as "3–5"
 * (the places the tied rows share), and left blank on the others.
 */
export function rankLabels(rows) {
  const labels = [];
  for (let i = 0; i < rows.length; i += 1) {
    const rank = rows[i].rank;
    if (i > 0 && rank != null && rank === rows[i - 1].rank) { labels.push(""); continue; }
    let size = 1;
    while (i + size < rows.length && rank != null && rows[i + size].rank === rank) size += 1;
    const n = asNumber(rank);
    if (n == null) labels.push(rank == null ? "–" : String(rank));
    else labels.push(size > 1 ? `${n}–${n + size - 1}` : String(n));
  }
  return labels;
}

function category(prize, language) {
  const [en, tr] = Array.isArray(prize.name) ? prize.name : [prize.category_en, prize.category_tr];
  return language === "tr" ? tr || en || "" : en || tr || "";
}

// The board or boards of a prize category: "1", or "1–4" for a category of several boards.
function boardsLabel(prize) {
  const boards = (Array.isArray(prize.boards) ? prize.boards : [prize.board]).filter((b) => b != null);
  if (!boards.length) return "–";
  const low = Math.min(...boards), high = Math.max(...boards);
  return low === high ? String(low) : `${low}–${high}`;
}

function wide() { return matchMedia("(min-aspect-ratio: 1/1)").matches && innerWidth >= 1000; }

function headCell(text, cls, hint) {
  const th = el("th", cls, text);
  th.scope = "col";
  if (hint) th.title = hint;
  return th;
}

// The starting-number column only when the view gives numbers.
function numbered(view) { return (view.rows || []).some((row) => row.number != null); }

function standingsHead(view) {
  const x = st();
  // What `points` counts: the view says so ("MP" match points, else game points), or its kind does.
  const counts = view.points ?? (view.kind === "team" ? "MP" : "PTS");
  const kind = counts === "MP" ? "team" : "individual";
  const row = el("tr");
  row.append(
    headCell(x.rank, "st-rank"), ...(numbered(view) ? [headCell(x.number, "st-no")] : []),
    headCell(view.kind === "team" ? x.team : x.player, "st-name"),
    headCell(x.points[kind], "st-points", x.pointsHint[kind]),
    ...(view.tiebreaks || []).map((name) => {
      const th = headCell(name, "st-tb", x.tiebreaks[name] || x.tiebreaks[String(name).split("/")[0]]);
      th.dataset.tiebreak = name;
      return th;
    }),
  );
  const head = el("thead");
  head.append(row);
  return head;
}

function standingsRow(view, row, label, shared, formats) {
  const tr = el("tr", "st-row");
  tr.dataset.rank = row.rank == null ? "" : String(row.rank);
  tr.dataset.number = row.number == null ? "" : String(row.number);
  tr.dataset.shared = String(shared);
  const tiebreaks = row.tiebreaks || {};
  tr.append(
    el("td", "st-rank", label), ...(numbered(view) ? [el("td", "st-no", row.number == null ? "" : String(row.number))] : []),
    el("td", "st-name", row.name || "—"), el("td", "st-points", formats.points(row.points)),
    ...(view.tiebreaks || []).map((name) => {
      const td = el("td", "st-tb", formats.tiebreaks[name](tiebreaks[name]));
      td.dataset.tiebreak = name;
      return td;
    }),
  );
  return tr;
}

// Rows `start`..`end` of the table, cut into `columns` tables of consecutive rows; a column or page starting inside a
// shared place repeats it.
function renderTables(view, columns, start, end) {
  const rows = view.rows || [];
  const box = $("tables");
  box.style.setProperty("--cols", String(columns));
  if (!rows.length) { box.replaceChildren(el("p", "st-empty", st().noRows)); return; }
  const labels = rankLabels(rows);
  const formats = tableFormats(view);
  const per = Math.ceil((end - start) / columns);
  const parts = [];
  for (let first = start; first < end; first += per) {
    const table = el("table", "st-table");
    table.append(standingsHead(view));
    const body = el("tbody");
    for (let i = first; i < Math.min(end, first + per); i += 1) {
      let label = labels[i];
      if (i === first && label === "") label = labels.slice(0, i).reverse().find((l) => l !== "") || "";
      const rank = rows[i].rank;
      const shared = rank != null && (rows[i - 1]?.rank === rank || rows[i + 1]?.rank === rank);
      body.append(standingsRow(view, rows[i], label, shared, formats));
    }
    table.append(body);
    const wrap = el("div", "st-box");
    wrap.append(table);
    parts.push(wrap);
  }
  box.replaceChildren(...parts);
}

// A team match forfeited on every board: one line, the teams and their board points, not a chip per player.
function teamForfeitLine(match, x, format) {
  const [home, away] = match.teams || ["", ""];
  const [a, b] = match.score || [null, null];
  const li = el("li", "team-forfeit");
  li.append(el("span", "tf-team", home || "—"), el("span", "tf-score", `${format(a)}–${format(b)}`),
    el("span", "tf-team", away || "—"), el("span", "tf-note", `(${x.forfeit})`));
  return li;
}

function renderByes(view) {
  const x = st();
  const byes = view.byes || [];
  const forfeits = view.team_forfeits || [];
  $("byes").hidden = !byes.length && !forfeits.length;
  $("byes-title").textContent = x.byes(view.round ?? "");
  const format = columnFormat([...forfeits.flatMap((m) => m.score || []), ...byes.map((b) => b.points)]);
  $("team-forfeits").hidden = !forfeits.length;
  $("team-forfeits").replaceChildren(...forfeits.map((match) => teamForfeitLine(match, x, format)));
  $("bye-list").hidden = !byes.length;
  $("bye-list").replaceChildren(...byes.map((bye) => {
    const li = el("li", "bye");
    li.dataset.code = bye.code || "";
    const code = el("span", "code", bye.code || "?");
    code.title = x.codes[bye.code] || "";
    li.append(code, el("span", "bye-name", bye.name || "—"));
    if (bye.number != null) li.append(el("span", "bye-no", `(${bye.number})`));
    li.append(el("span", "bye-points", format(bye.points)));
    return li;
  }));
  const used = CODES.filter((code) => byes.some((bye) => bye.code === code));
  $("codes").replaceChildren(...used.map((code) => {
    const item = el("div", "code-item");  // a dt and its dd kept together when the legend wraps
    item.dataset.code = code;
    item.append(el("dt", "code", code), el("dd", null, x.codes[code]));
    return item;
  }));
}

const PRIZE_COLUMNS = ["rank", "name", "team", "games", "points", "performance", "wins", "percent"];

function prizeCell(column, row, points, x) {
  const cls = `p-${column}`;
  if (column === "name" || column === "team") return el("td", cls, row[column] || "—");
  if (column === "points") return el("td", cls, points(row.points));
  if (column === "percent") return el("td", cls, fmtPlain(row.percent, 1, lang));
  if (column === "performance" && !asNumber(row.performance)) return el("td", cls, "–");  // no game played
  const td = el("td", cls, fmtPlain(row[column], 0, lang));
  const forfeits = asNumber(row.forfeits) || 0;
  if (column === "games" && forfeits) td.title = x.forfeitsNotGames(forfeits);  // in points, not in games
  return td;
}

function renderPrizes(view) {
  const x = st();
  const prizes = view.kind === "team" ? view.board_prizes || [] : [];
  $("prizes").hidden = !prizes.length;
  $("prizes-title").textContent = x.boardPrizes;
  $("prize-tables").replaceChildren(...prizes.map((prize) => {
    const table = el("table", "prize-table");
    table.dataset.board = boardsLabel(prize);
    table.append(el("caption", null, x.boardCategory(boardsLabel(prize), category(prize, lang))));
    const head = el("tr");
    head.append(...PRIZE_COLUMNS.map((c) => headCell(x.prizeCols[c], `p-${c}`, x.prizeHints[c])));
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    const rows = prize.rows || prize.lines || [];
    const labels = rankLabels(rows);
    const points = columnFormat(rows.map((row) => row.points));
    body.append(...rows.map((row, i) => {
      const tr = el("tr");
      tr.append(...PRIZE_COLUMNS.map((c) => (c === "rank" ? el("td", "p-rank", labels[i]) : prizeCell(c, row, points, x))));
      return tr;
    }));
    const least = asNumber(view.board_prize_min_games);
    if (!rows.length && least) {
      const td = el("td", "p-empty", x.noPrizeYet(least));
      td.colSpan = PRIZE_COLUMNS.length;
      const tr = el("tr");
      tr.append(td);
      body.append(tr);
    }
    table.append(thead, body);
    const wrap = el("div", "st-box");
    wrap.append(table);
    return wrap;
  }));
}

function renderProvenance(view) {
  const x = st();
  const provenance = $("provenance");
  const waiting = asNumber(view.provisional) || 0;
  provenance.textContent = view.official ? x.official : waiting ? `${x.informational} — ${x.awaiting(waiting)}` : x.informational;
  provenance.className = `provenance ${view.official ? "official" : "informational"}`;
}

/** Draw the whole standings page from a view (the page's #standings container and its bar). */
export function renderStandings(view) {
  current = view;
  notFound = false;
  $("not-found").hidden = true;
  if (!view) return;
  const x = st();
  document.title = `${view.event || x.standings} — ${x.standings} — Boardcast`;
  $("title").textContent = x.standings;
  $("event").textContent = view.event || "";
  $("round").textContent = view.round != null ? x.round(view.round, view.rounds) : "";
  renderProvenance(view);
  const root = $("standings");
  root.dataset.kind = view.kind === "team" ? "team" : "individual";
  root.dataset.official = String(Boolean(view.official));
  const counted = asNumber(view.counted);
  $("counted").textContent = counted != null ? x.counted(counted, asNumber(view.from_hall) || 0) : "";
  const pending = asNumber(view.pending) || 0;
  $("pending").textContent = pending ? x.pending(pending, view.round ?? "") : "";
  $("error").hidden = !view.error;
  $("error").textContent = view.error ? x.error(view.error) : "";
  renderByes(view);
  renderPrizes(view);
  layout();
}

// A hall screen: the table's font as large as lets every row show (never below ~1.4 % of the height); the page
// scrolls elsewhere (phones, portrait) and the table's box scrolls sideways when it must.
function fitTable() {
  const box = $("tables");
  if (!wide() || $("table-page").hidden) { box.style.removeProperty("--st-font"); return; }
  const bottom = () => box.getBoundingClientRect().bottom + scrollY;
  const limit = innerHeight - (parseFloat(getComputedStyle($("standings")).paddingBottom) || 0) - 2;
  let size = Math.round(innerHeight * 0.04);
  const least = Math.max(12, Math.round(innerHeight * 0.014));
  box.style.setProperty("--st-font", `${size}px`);
  while (bottom() > limit && size > least) {
    size = Math.max(least, Math.floor(size * 0.93));
    box.style.setProperty("--st-font", `${size}px`);
  }
}

// `?rotate=S` on a wide screen: pages of at most 60 rows, then the byes and board prizes, S seconds each. Without
// it the whole table is drawn (in up to three columns on a wide screen) and the byes and prizes follow below it.
const rotate = rotateSeconds(new URLSearchParams(location.search).get("rotate"));
const ROWS_PER_PAGE = MAX_COLUMNS * ROWS_PER_COLUMN;
let page = 0;

function pageList(view) {
  const rows = (view.rows || []).length;
  const paged = Boolean(rotate) && wide();
  const per = paged ? ROWS_PER_PAGE : Math.max(rows, 1);
  const list = [];
  for (let start = 0; start < Math.max(rows, 1); start += per) {
    list.push({ kind: "table", start, end: Math.min(rows, start + per) });
  }
  if (paged && (!$("byes").hidden || !$("prizes").hidden)) list.push({ kind: "extras" });
  return list;
}

function layout() {
  const view = current;
  const list = pageList(view);
  page %= list.length;
  const shown = list[page];
  const paged = list.length > 1;
  $("table-page").hidden = shown.kind !== "table";
  $("extras-page").hidden = paged && shown.kind !== "extras";
  $("pager").hidden = !paged;
  $("pager").textContent = paged ? t().page(page + 1, list.length) : "";
  if (shown.kind === "table") {
    const count = shown.end - shown.start;
    const columns = wide() ? Math.min(MAX_COLUMNS, Math.max(1, Math.ceil(count / ROWS_PER_COLUMN))) : 1;
    renderTables(view, columns, shown.start, shown.end);
  }
  fitTable();
}

function renderConnection() { showConnection($("connection"), connection, t()); }

function applyLanguage() {
  showLanguage(lang, t());
  for (const node of document.querySelectorAll("[data-standings-i18n]")) node.textContent = st()[node.dataset.standingsI18n];
  renderConnection();
  if (current) renderStandings(current);
  $("not-found").hidden = !notFound;
}

function start() {
  keepHallLinks();  // a hall screen's way back keeps it one
  $("lang").addEventListener("click", () => {
    lang = lang === "tr" ? "en" : "tr";
    localStorage.setItem("boardcast.lang", lang);
    applyLanguage();
  });
  applyLanguage();
  let resizing = false;
  addEventListener("resize", () => {
    if (resizing) return;
    resizing = true;
    requestAnimationFrame(() => { resizing = false; if (current) renderStandings(current); });
  });
  if (rotate) setInterval(() => { page += 1; if (current) layout(); }, rotate * 1000);
  new Feed(
    ["standings"],
    (message) => {
      if (message.topic !== "standings") return;
      if (current && !message.snapshot && currentVersion > message.version) return;
      currentVersion = message.version;
      renderStandings(message.data);
    },
    (state) => { connection = state; renderConnection(); },
    (error) => {
      if (error.topic === "standings" && !current) { notFound = true; $("not-found").hidden = false; }
    },
  );
}

if (document.body && document.body.dataset.page === "standings") start();
