// The referee console: sign in with a token, then the matches waiting for confirmation (always in view), the
// anomaly queue (console-queue.js: grouped by match, worst first, one item per repeated problem), every match's
// actions, each table's device (console-devices.js), and the audit of every referee and hub action. Everything shown
// comes from the `referee` topic (token required) and the public `venue` and `devices` topics; every action is a
// POST the hub checks again and refuses with a reason.
import { Feed } from "./feed.js";
import { CONSOLE_TEXTS, TEXTS, pickLanguage } from "./i18n.js";
import { sync } from "./console-dom.js";
import { $, el, showLanguage } from "./page.js";
import { WAITING, drawQueue, initQueue, resetQueue } from "./console-queue.js";
import { drawDevices, onDevices, resetDevices } from "./console-devices.js";
import { sport } from "./sports.js";  // also joins each sport's words for its inputs to CONSOLE_TEXTS

const TOKEN_KEY = "boardcast.referee";
const SYSTEM_ACTOR = "boardcast";
const PENALTIES = ["warning", "game_loss", "match_loss", "yellow", "yellow_red", "red"];
const RESULTS = ["1-0", "0-1", "1/2-1/2"];

let lang = pickLanguage(localStorage.getItem("boardcast.lang"), navigator.languages);
let token = null;
let me = null;
let feed = null;
let connection = "connecting";
let venueName = "";
const refs = new Map();  // match id -> console view (referee topic)
const pubs = new Map();  // match id -> public summary (venue topic): the live score
const evidence = new Map();  // "match/anomaly" -> {open, events|null, error}
let drawPending = false;

function t() { return CONSOLE_TEXTS[lang]; }
function tt() { return TEXTS[lang]; }

// -- small helpers --------------------------------------------------------------------------------------------


function clock(at) {
  return at ? new Date(at * 1000).toLocaleTimeString(lang === "tr" ? "tr-TR" : "en-GB") : "";
}

function ago(at) {
  return at ? tt().ago(Math.max(0, Math.round(Date.now() / 1000 - at))) : "";
}

function num(x) { return x === 0.5 ? "½" : Number.isInteger(x) ? String(x) : String(x).replace(".5", "½"); }

function sides(match) {
  const p = match.players || [];
  return p.length === 4 ? [`${p[0]} / ${p[1]}`, `${p[2]} / ${p[3]}`] : [p[0] || "A", p[1] || "B"];
}

function where(match) { return `${tt().table} ${match.table} · ${tt().round} ${match.round} · ${match.id}`; }

/** The score to show: the referee's result if there is one, else what the live data says, per sport. */
function scoreOf(match) {
  if (match.result) return `${num(match.result.score[0])}–${num(match.result.score[1])}`;
  const s = (pubs.get(match.id) || {}).state || {};
  const own = sport(match.sport).consoleScore;  // each sport says how its live score reads
  return own ? own(s) : "";
}


function flash(message) {
  const box = $("flash");
  box.textContent = message || "";
  box.hidden = !message;
}

// -- signing in -------------------------------------------------------------------------------------------------

async function signIn(candidate, quiet = false) {
  let answer;
  try {
    answer = await fetch("/api/referee/me", { headers: { Authorization: `Bearer ${candidate}` } });
  } catch {
    answer = null;
  }
  if (!answer || answer.status !== 200) {
    sessionStorage.removeItem(TOKEN_KEY);
    if (!quiet) {
      $("sign-in-error").textContent = t().badToken;
      $("sign-in-error").hidden = false;
    }
    return false;
  }
  me = await answer.json();
  token = candidate;
  venueName = me.venue || "";
  sessionStorage.setItem(TOKEN_KEY, token);
  $("sign-in-error").hidden = true;
  $("token").value = "";
  $("sign-in").hidden = true;
  $("console").hidden = false;
  $("sign-out").hidden = false;
  $("connection").hidden = false;
  $("who").hidden = false;
  document.body.dataset.signedIn = "true";
  renderStatic();
  feed = new Feed(["venue", "referee", "devices"], onMessage, onState, onError, { token });
  return true;
}

function signOut(message = "") {
  if (feed) feed.stop();
  feed = null;
  token = null;
  me = null;
  refs.clear();
  pubs.clear();
  evidence.clear();
  resetQueue();
  resetDevices();
  sessionStorage.removeItem(TOKEN_KEY);
  document.body.dataset.signedIn = "false";
  $("console").hidden = true;
  $("sign-out").hidden = true;
  $("connection").hidden = true;
  $("who").hidden = true;
  $("sign-in").hidden = false;
  $("sign-in-error").textContent = message;
  $("sign-in-error").hidden = !message;
  for (const id of ["queue", "to-confirm", "matches", "devices", "audit"]) $(id).replaceChildren();
}

// -- the feed -----------------------------------------------------------------------------------------------------

function onMessage(message) {
  if (message.topic === "referee") {
    if (message.snapshot) {
      refs.clear();
      for (const match of message.data.matches) refs.set(match.id, match);
    } else {
      const known = refs.get(message.data.id);
      if (!known || known.version <= message.data.version) refs.set(message.data.id, message.data);
    }
  } else if (message.topic === "devices") {
    onDevices(message);
  } else if (message.topic === "venue") {
    const entries = message.snapshot ? message.data.matches : [message.data];
    if (message.snapshot) venueName = message.data.name || venueName;
    for (const entry of entries) {
      if (!entry || !entry.sport) continue;  // a team match's entry: its games come one by one
      const known = pubs.get(entry.id);
      if (!known || known.version <= entry.version) pubs.set(entry.id, entry);
    }
  }
  scheduleDraw();
}

function onState(state) {
  connection = state;
  const node = $("connection");
  node.className = `conn conn-${state}`;
  node.textContent = state === "open" ? tt().connected : tt()[state];
}

function onError(message) {
  if (message.topic === "referee" || /token/.test(message.error || "")) signOut(t().badToken);
}

function scheduleDraw() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => { drawPending = false; draw(); });
}

// -- drawing ------------------------------------------------------------------------------------------------------

function renderStatic() {
  showLanguage(lang, t());
  if (me) $("who").textContent = `${me.name} (${t().roles[me.role] || me.role})`;
  onState(connection);
  const c = t().cols;
  $("matches").replaceChildren(
    el("thead", {}, el("tr", {}, ...[c.table, c.round, c.players, c.status, c.score, ""].map((h) => el("th", { text: h })))),
    el("tbody", { id: "matches-body" }),
  );
  $("devices").replaceChildren(
    el("thead", {}, el("tr", {}, ...t().devices.cols.map((h) => el("th", { text: h })))),
    el("tbody", { id: "devices-body" }),
  );
  $("audit").replaceChildren(
    el("thead", {}, el("tr", {}, ...[c.time, c.who, c.match, c.action, c.detail].map((h) => el("th", { text: h })))),
    el("tbody", { id: "audit-body" }),
  );
  draw();
}

function draw() {
  if (!me) return;
  $("venue-name").textContent = venueName;
  drawQueue();
  drawToConfirm();
  drawMatches();
  drawDevices({ $, t, ago, refs, lang, scoreFrom });
  drawAudit();
}

/** The players' sign-off at the table, beside a match waiting for confirmation: both signed, one, or none. */
function signedNote(match) {
  const signed = match.signoffs;
  if (!signed) return null;
  const agreed = signed.sides.filter((s) => s && s.agree).length;
  if (signed.both) return el("span", { class: "m-signed", "data-signed": "both", text: t().signedBoth });
  if (signed.sides.some((s) => s && !s.agree)) return el("span", { class: "m-warn", "data-signed": "disputed", text: t().signedDisputed });
  return agreed ? el("span", { class: "m-signed", "data-signed": "one", text: t().signedOne }) : null;
}

function waitingCount(match) {
  return (match.anomalies || []).filter((a) => WAITING.has(a.state)).length;
}

function drawToConfirm() {
  const items = [...refs.values()]
    .filter((m) => m.status === "finished" || m.status === "protested")
    .sort((a, b) => (a.finished_at || 0) - (b.finished_at || 0));
  $("confirm-empty").hidden = items.length > 0;
  sync($("to-confirm"), items, (m) => m.id,
    (m) => JSON.stringify([lang, m.status, m.version, scoreOf(m), waitingCount(m), me && me.role, m.offers, m.signoffs]),
    (m) => {
      const names = sides(m);
      const waiting = waitingCount(m);
      const offers = m.offers || [];  // the hub's: a button shows only while the hub would take its action
      const chiefOnly = (m.chief_only || []).includes("decide") && me.role !== "chief";
      return el("li", { "data-match": m.id, "data-status": m.status },
        el("span", { class: "m-where", text: `${tt().table} ${m.table} · ${tt().round} ${m.round}` }),
        el("span", { class: "m-players", text: `${names[0]} – ${names[1]}` }),
        el("span", { class: "m-score", text: scoreOf(m) }),
        el("span", { class: "m-meta" },
          el("span", { class: `status ${m.status}`, text: tt().status[m.status] || m.status }),
          waiting ? el("span", { class: "m-warn", title: t().waiting(waiting), text: `⚠ ${waiting}` }) : null,
          signedNote(m)),
        el("span", { class: "m-buttons" },
          offers.includes("decide")
            ? el("button", { type: "button", "data-action": "decide", text: t().actions.decide,
              disabled: chiefOnly, title: chiefOnly ? t().chiefOnly : null,
              onclick: () => openDialog(m, "decide") }) : null,
          offers.includes("confirm")
            ? el("button", { type: "button", class: "confirm", "data-action": "confirm", text: t().actions.confirm,
              onclick: () => act(m.id, { action: "confirm" }) }) : null,
          el("button", { type: "button", "data-action": "act", text: t().act, onclick: () => openDialog(m) })));
    });
}

function drawMatches() {
  const items = [...refs.values()].sort((a, b) =>
    a.table.localeCompare(b.table, undefined, { numeric: true }) || a.round - b.round || a.id.localeCompare(b.id));
  sync($("matches-body"), items, (m) => m.id,
    (m) => JSON.stringify([lang, m.status, m.locked, scoreOf(m), m.contacts, m.appeal_until]),
    (m) => {
      const names = sides(m);
      const contacts = (m.contacts || []).map((c) => [c.name, c.phone, c.email].filter(Boolean).join(" · "));
      return el("tr", { "data-match": m.id, "data-status": m.status },
        el("td", { text: m.table }),
        el("td", { text: String(m.round), "data-label": tt().round }),  // the label shows on a phone's card
        el("td", {}, el("div", {}, sport(m.sport).refereePage  // the game's page, with its referee view in this tab
          ? el("a", { href: `/match/${encodeURIComponent(m.id)}`, class: "game-link", text: `${names[0]} – ${names[1]}` })
          : `${names[0]} – ${names[1]}`),
          contacts.length ? el("div", { class: "contacts", title: t().contacts, text: contacts.join(" | ") }) : null),
        el("td", {}, el("span", { class: `status ${m.status}`, text: tt().status[m.status] || m.status }),
          m.locked ? el("span", { class: "flag", text: t().locked }) : null,
          m.appeal_until ? el("span", { class: `appeal-left${appealOpen(m) ? "" : " closed"}`, "data-match": m.id,
            text: appealText(m) }) : null),
        el("td", { class: "m-score", text: scoreOf(m) }),
        el("td", {}, el("button", { type: "button", "data-action": "act", text: t().act, onclick: () => openDialog(m) })));
    });
}

function auditItems() {
  const items = [];
  for (const match of refs.values()) {
    for (const action of match.actions || []) items.push({ match, action });
  }
  items.sort((x, y) => y.action.at - x.action.at || x.match.id.localeCompare(y.match.id) || y.action.offset - x.action.offset);
  return items;
}

function describe({ match, action }) {
  const b = action.body || {};
  const names = sides(match);
  const parts = [];
  if (action.kind === "referee.anomaly") {
    const ids = b.anomalies || [b.anomaly];
    parts.push(`${ids.length > 1 ? t().items(ids.length) : ids[0]}: ${t().states[b.state] || b.state}`);
  }
  if (action.kind === "referee.input" && b.input && b.input.how) {  // a result the board cannot see
    parts.push(`${b.input.result} · ${t().hows[b.input.how] || b.input.how}`);
    if (b.input.reason) parts.push(b.input.reason);
  } else if (action.kind === "referee.input" && b.input && b.input.type === "card") {  // by name, as a penalty
    parts.push(`${t().penalties[b.input.card] || b.input.card} → ${b.input.name ?? names[b.input.side] ?? b.input.side}`);
  } else if (action.kind === "referee.input" && b.input) parts.push(JSON.stringify(b.input));
  if (b.penalty) parts.push(`${t().penalties[b.penalty] || b.penalty} → ${b.name ?? names[b.side] ?? b.side}`);
  if (b.loser != null) parts.push(`${t().loser}: ${b.loser_name ?? names[b.loser] ?? b.loser}`);
  if (b.decision) parts.push(t().decisions[b.decision] || b.decision);
  if (b.score) parts.push(`${num(b.score[0])}–${num(b.score[1])}`);
  if (b.appellant) parts.push(`${t().appellant}: ${b.appellant}`);
  if (action.kind === "match.lock") parts.push(t().lockedBecause(b.because));
  if (action.kind === "referee.scored_by") parts.push(`${tt().table} ${b.table}: ${t().scoredBy[b.by] || b.by}`);
  if (b.reason) parts.push(b.reason);
  if (b.reasoning) parts.push(b.reasoning);
  return parts.join(" · ");
}

function drawAudit() {
  const items = auditItems();
  $("audit-empty").hidden = items.length > 0;
  sync($("audit-body"), items, ({ match, action }) => `${match.id}/${action.offset}`,
    ({ action }) => `${lang}/${action.offset}`,
    (item) => {
      const { match, action } = item;
      const who = action.actor === SYSTEM_ACTOR ? t().system : action.actor || "";
      return el("tr", { "data-kind": action.kind, "data-actor": action.actor || "", "data-match": match.id },
        el("td", { text: clock(action.at) }),
        el("td", { text: who }),
        el("td", { text: `${match.id} (${tt().table} ${match.table})` }),
        el("td", { text: t().kinds[action.kind] || action.kind }),
        el("td", { text: describe(item) }));
    });
}

// -- tables: who scores them, and their cards ---------------------------------------------------------------------

/** Switch a table's scoring to its umpire's pad (its device broke) or back to its device, with a reason. */
async function scoreFrom(table, by) {
  const reason = prompt(t().devices.switchReason, "");
  if (reason === null) return;
  flash("");
  const answer = await fetch(`/api/tables/${encodeURIComponent(table)}/scored-by`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ by, reason }),
  }).catch(() => null);
  if (!answer || !answer.ok) flash((answer && (await answer.json().catch(() => ({}))).error) || t().unreachable);
}

/** Every table's card (its pad's address as a QR code, no token in it), laid out to print, then printed. */
async function printCards() {
  const answer = await fetch("/api/tables/cards", { headers: { Authorization: `Bearer ${token}` } }).catch(() => null);
  if (!answer || !answer.ok) { flash(t().unreachable); return; }
  const cards = await answer.json();
  const box = $("cards");
  if (cards.length && !cards[0].reachable) flash(t().devices.cardsUnreachable);
  box.replaceChildren(...cards.map((c) => {
    const code = el("div", { class: "card-qr" });
    code.innerHTML = c.svg;  // the hub's own SVG, made from the table's address
    return el("article", { class: "table-card", "data-table": c.table },
      el("h3", null, `${tt().table} ${c.table}`), code, el("p", "card-url", c.url), el("p", "muted", t().devices.cardHint));
  }));
  box.hidden = false;
  document.body.classList.add("printing-cards");
  window.print();
}

window.addEventListener("afterprint", () => {
  document.body.classList.remove("printing-cards");
  $("cards").hidden = true;
});

// -- actions ------------------------------------------------------------------------------------------------------

async function act(matchId, request, path = "actions") {
  flash("");
  let answer, body;
  try {
    const url = path ? `/api/matches/${encodeURIComponent(matchId)}/${path}` : "/api/referee/anomalies";
    answer = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(request),
    });
    body = await answer.json();
  } catch (error) {
    return String(error);
  }
  if (answer.status === 401) { signOut(t().badToken); return body.error; }
  if (!answer.ok) return body.error || String(answer.status);
  // an action answers with the console's view; an input with the public one, which holds no offers: the
  // referee topic brings that match's console view
  const known = refs.get(matchId);
  if (body.offers && (!known || known.version <= body.version)) refs.set(matchId, body);
  scheduleDraw();
  return null;
}

/** Whether an appeal may still be made: the hub's deadline (15 minutes after the end, whether or not the
 * next round has started) has not passed. */
function appealOpen(match, now = Date.now() / 1000) {
  return match.appeal_until != null && now <= match.appeal_until;
}

/** The time left to appeal, counting down, or why appeals are closed; "" while the match has no result. */
function appealText(match, now = Date.now() / 1000) {
  if (match.appeal_until == null) return "";
  if (!appealOpen(match, now)) return t().appealClosed;
  const left = Math.floor(match.appeal_until - now);
  return t().appealLeft(`${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`);
}

/** The actions the hub offers on a match now, from the checks that refuse them (its `offers`), less those a
 * referee who is not the chief may not take, and an appeal whose deadline has passed since the hub said so. */
function actionsFor(match) {
  const chief = me && me.role === "chief";
  const chiefOnly = match.chief_only || [];
  return (match.offers || []).filter((a) => (chief || !chiefOnly.includes(a)) && (a !== "appeal" || appealOpen(match)));
}

let dialogState = null;

function openDialog(match, action = null, anomaly = null, bulk = null) {
  const options = anomaly || bulk ? [action] : actionsFor(match);
  dialogState = { match, anomaly, bulk, action: action || options[0], options };
  $("action-error").hidden = true;
  drawDialog();
  const dialog = $("action-dialog");
  if (!dialog.open) dialog.showModal();
}

/** Several items of one match handled for one reason: those of `code`, or every one when `code` is null. */
function openBulk(match, code, action) {
  const waiting = (match.anomalies || []).filter((a) => (action === "acknowledge" ? a.state === "open" : WAITING.has(a.state))
    && (code == null || a.code === code));
  openDialog(match, action, null, { code, count: waiting.length });
}

function dialogHeader(match) {
  const appeal = appealText(match);
  return `${where(match)} · ${sides(match).join(" – ")}${appeal ? ` · ${appeal}` : ""}`;
}

/** Each second: the countdowns, and an open dialog's choices once the appeal closes (or the hub withdrew an
 * action since it opened): what is no longer offered leaves the list. */
function tickAppeals() {
  for (const node of document.querySelectorAll(".appeal-left[data-match]")) {
    const match = refs.get(node.dataset.match);
    if (!match) continue;
    node.textContent = appealText(match);
    node.classList.toggle("closed", !appealOpen(match));
  }
  if (!dialogState || !$("action-dialog").open) return;
  const match = refs.get(dialogState.match.id) || dialogState.match;
  $("action-match").textContent = dialogHeader(match);
  if (dialogState.anomaly || dialogState.bulk) return;
  const options = actionsFor(match);
  if (options.join() === dialogState.options.join()) return;
  dialogState = { ...dialogState, match, options };
  if (!options.includes(dialogState.action)) {
    dialogState.action = options[0];
    drawDialog();
  } else {
    for (const option of [...$("action-kind").options]) if (!options.includes(option.value)) option.remove();
  }
}

function field(label, input) { return el("label", {}, el("span", { text: label }), input); }

function sideSelect(name, match) {
  const names = sides(match);
  return el("select", { name }, el("option", { value: "0", text: names[0] }), el("option", { value: "1", text: names[1] }));
}

function scoreInputs(match, required) {
  const names = sides(match);
  return el("div", { class: "score-inputs" },
    el("input", { name: "score0", type: "number", min: "0", step: "0.5", required, "aria-label": names[0] }),
    el("span", { text: "–" }),
    el("input", { name: "score1", type: "number", min: "0", step: "0.5", required, "aria-label": names[1] }));
}

/** What an anomaly code is about, as its rule's title says it (the raw code only where no rule names it). */
function titleOf(match, code) {
  const rule = ((match.anomalies || []).find((a) => a.code === code) || {}).rule;
  return (rule && rule.title && rule.title[lang]) || code;
}

function drawDialog() {
  const { match, anomaly, bulk, action, options } = dialogState;
  $("action-title").textContent = anomaly ? `${t().actions[action]}: ${titleOf(match, anomaly.code)}`
    : bulk ? `${t().actions[action]}: ${t().items(bulk.count)}${bulk.code ? ` (${titleOf(match, bulk.code)})` : ""}`
    : t().act.replace("…", "");
  $("action-match").textContent = dialogHeader(match);
  const fields = [];
  if (bulk) {
    const choices = bulk.count && action !== "acknowledge" ? ["dismiss", "resolve"] : [action];
    if (choices.length > 1) {
      fields.push(field(t().cols.action, el("select", { name: "action", onchange: (e) => { dialogState.action = e.target.value; drawDialog(); } },
        ...choices.map((o) => el("option", { value: o, text: t().actions[o], selected: o === action })))));
    }
  } else if (!anomaly) {
    const chooser = el("select", { name: "action", id: "action-kind", onchange: (e) => { dialogState.action = e.target.value; drawDialog(); } },
      ...options.map((o) => el("option", { value: o, text: t().actions[o], selected: o === action })));
    fields.push(field(t().cols.action, chooser));
  }
  if (action === "correct") fields.push(field(t().score, scoreInputs(match, true)));
  if (action === "penalty") {
    fields.push(field(t().side, sideSelect("side", match)));
    fields.push(field(t().actions.penalty, el("select", { name: "penalty" },
      ...PENALTIES.filter((p) => (match.penalty_kinds || []).includes(p))
        .map((p) => el("option", { value: p, text: t().penalties[p] })))));
  }
  if (action === "forfeit") fields.push(field(t().loser, sideSelect("loser", match)));
  if (action === "result") {
    const names = sides(match);
    const label = { "1-0": `1–0 (${names[0]})`, "0-1": `0–1 (${names[1]})`, "1/2-1/2": "½–½" };
    fields.push(field(t().result, el("select", { name: "result" },
      ...RESULTS.map((r) => el("option", { value: r, text: label[r] })))));
    fields.push(field(t().how, el("select", { name: "how" },
      ...Object.entries(t().hows).map(([h, text]) => el("option", { value: h, text })))));
  }
  if (action === "orientation") {
    fields.push(field(t().actions.orientation, el("select", { name: "orientation" },
      ...Object.entries(t().orientations).map(([o, text]) => el("option", { value: o, text })))));
  }
  if (action === "resign") {
    fields.push(field(t().side, sideSelect("side", match)));
    fields.push(field(t().resignValue, el("select", { name: "value" },
      ...Object.entries(t().resignValues).map(([v, text]) => el("option", { value: v, text })))));
  }
  if (action === "accept" || action === "reject") {
    const offer = ((pubs.get(match.id) || {}).state || {}).resign || {};
    const answering = offer.side === "B" ? "0" : "1";  // the opponent of the side resigning answers
    const select = sideSelect("side", match);
    select.value = answering;
    fields.push(field(t().side, select));
  }
  if (action === "appeal") {
    const names = (match.players || []).filter(Boolean);
    fields.push(field(t().appellant, el("input", { name: "appellant", list: "appellants", required: true, value: names[0] || "" })));
    fields.push(el("datalist", { id: "appellants" }, ...names.map((n) => el("option", { value: n }))));
  }
  if (action === "decide") {
    fields.push(field(t().decision, el("select", { name: "decision" },
      el("option", { value: "rejected", text: t().decisions.rejected }),
      el("option", { value: "upheld", text: t().decisions.upheld }))));
    fields.push(field(t().newScore, scoreInputs(match, false)));
  }
  if (action === "decide") fields.push(field(t().reasoning, el("textarea", { name: "reasoning", required: true })));
  else if (bulk || (action !== "confirm" && action !== "acknowledge" && !INPUTS[action])) {
    fields.push(field(t().reason, el("textarea", { name: "reason", required: action !== "result" && action !== "acknowledge" })));
  }
  $("action-fields").replaceChildren(...fields);
  $("action-submit").textContent = action === "confirm" ? t().actions.confirm : t().submit;
}

/** The referee inputs the console sends (read by the sport's rules), each as its request from the form. */
const INPUTS = {
  orientation: (data) => ({ type: "orientation", orientation: String(data.get("orientation")) }),
  resign: (data) => ({ type: "resign", side: Number(data.get("side")), value: Number(data.get("value")) }),
  accept: (data) => ({ type: "accept", side: Number(data.get("side")) }),
  reject: (data) => ({ type: "reject", side: Number(data.get("side")) }),
};

function requestFromForm(form) {
  const { action, anomaly } = dialogState;
  const data = new FormData(form);
  const request = { action };
  if (anomaly) request.anomaly = anomaly.id;
  for (const key of ["reason", "reasoning", "appellant", "penalty", "decision", "result", "how"]) {
    if (data.has(key)) request[key] = String(data.get(key));
  }
  for (const key of ["side", "loser"]) if (data.has(key)) request[key] = Number(data.get(key));
  if (data.has("score0") && String(data.get("score0")) !== "" && String(data.get("score1")) !== "") {
    request.score = [Number(data.get("score0")), Number(data.get("score1"))];
  }
  return request;
}

async function submitDialog(event) {
  event.preventDefault();
  const form = $("action-form");
  if (!form.reportValidity()) return;
  const submit = $("action-submit");
  submit.disabled = true;
  const { bulk, match } = dialogState;
  const error = bulk  // several items at once: the venue's bulk route, which names the match
    ? await act(match.id, { action: dialogState.action, match: match.id, ...(bulk.code ? { code: bulk.code } : {}),
      reason: String(new FormData(form).get("reason") || "") }, null)
    : INPUTS[dialogState.action]  // a referee input, read by the rules, not an action
    ? await act(dialogState.match.id, INPUTS[dialogState.action](new FormData(form)), "inputs")
    : await act(dialogState.match.id, requestFromForm(form));
  submit.disabled = false;
  if (error) {
    $("action-error").textContent = error;
    $("action-error").hidden = false;
    return;
  }
  $("action-dialog").close();
}

// -- start --------------------------------------------------------------------------------------------------------

$("sign-in-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const candidate = $("token").value.trim();
  if (candidate) signIn(candidate);
});
$("sign-out").addEventListener("click", () => signOut());
$("print-cards").addEventListener("click", () => printCards());
$("lang").addEventListener("click", () => {
  lang = lang === "tr" ? "en" : "tr";
  localStorage.setItem("boardcast.lang", lang);
  renderStatic();
});
$("show-handled").addEventListener("change", () => drawQueue());
$("action-form").addEventListener("submit", submitDialog);
$("action-cancel").addEventListener("click", () => $("action-dialog").close());
initQueue({
  refs, evidence, $, t, tt, clock, ago, sides, scoreOf, act, openDialog, openBulk,
  lang: () => lang, token: () => token, me: () => me,
});
renderStatic();
const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved) signIn(saved, true);
setInterval(() => {
  for (const node of document.querySelectorAll(".a-age[data-at]")) node.textContent = ago(Number(node.dataset.at));
}, 5000);
setInterval(tickAppeals, 1000);
setInterval(() => { if (me) drawDevices({ $, t, ago, refs, lang, scoreFrom }); }, 2000);  // the devices' "… ago" times
