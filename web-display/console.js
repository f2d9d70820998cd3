// The referee console: sign in with a token, then a live anomaly queue (severity, then longest waiting first)
// with each anomaly's rule and evidence, the matches waiting for confirmation, every match's actions, and the
// audit of every referee and hub action. Everything shown comes from the `referee` topic (token required) and
// the public `venue` topic; every action is a POST the hub checks again and refuses with a reason.
import { Feed } from "./feed.js";
import { CONSOLE_TEXTS, TEXTS, pickLanguage } from "./i18n.js";

const TOKEN_KEY = "boardcast.referee";
const SEVERITY_RANK = { error: 0, warning: 1, info: 2 };
const WAITING = new Set(["open", "acknowledged"]);
const SYSTEM_ACTOR = "boardcast";
const RULES_ACTOR = "rules";
const PENALTIES = ["warning", "game_loss", "match_loss", "yellow", "yellow_red", "red"];
const RESULTS = ["1-0", "0-1", "1/2-1/2"];
const HOWS = ["resignation", "agreement", "forfeit", "arbiter"];
const RESIGN_VALUES = [1, 2, 3];  // a backgammon resignation: a single game, a gammon, a backgammon (times the cube)
const ORIENTATIONS = ["rotated", "normal", "auto"];  // which way round a chess board lies (the rules' input)  // how a chess result the board cannot see came about

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

const $ = (id) => document.getElementById(id);
function t() { return CONSOLE_TEXTS[lang]; }
function tt() { return TEXTS[lang]; }

// -- small helpers --------------------------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key.startsWith("data-")) node.dataset[key.slice(5).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c != null));
  return node;
}

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
  if (Array.isArray(s.games) && match.sport === "tabletennis") return `${s.games[0]}–${s.games[1]}`;
  if (s.score && s.score.A != null) return `${s.score.A}–${s.score.B}`;
  if (typeof s.result === "string") return s.result;
  return "";
}

/** Keep each child whose key and content signature are unchanged, so buttons do not move under a click. */
function sync(container, items, key, signature, build) {
  const old = new Map([...container.children].map((node) => [node.dataset.key, node]));
  const next = items.map((item) => {
    const k = key(item);
    const sig = signature(item);
    let node = old.get(k);
    if (!node || node.dataset.sig !== sig) {
      node = build(item);
      node.dataset.key = k;
      node.dataset.sig = sig;
    }
    return node;
  });
  if (next.length !== container.children.length || next.some((node, i) => container.children[i] !== node)) {
    container.replaceChildren(...next);
  }
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
  feed = new Feed(["venue", "referee"], onMessage, onState, onError, { token });
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
  known.clear();
  fresh.clear();
  primed = false;
  sessionStorage.removeItem(TOKEN_KEY);
  document.body.dataset.signedIn = "false";
  $("console").hidden = true;
  $("sign-out").hidden = true;
  $("connection").hidden = true;
  $("who").hidden = true;
  $("sign-in").hidden = false;
  $("sign-in-error").textContent = message;
  $("sign-in-error").hidden = !message;
  for (const id of ["queue", "to-confirm", "matches", "audit"]) $(id).replaceChildren();
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
  document.documentElement.lang = lang;
  $("lang").textContent = lang === "tr" ? "EN" : "TR";
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t()[node.dataset.i18n];
  if (me) $("who").textContent = `${me.name} (${t().roles[me.role] || me.role})`;
  onState(connection);
  const c = t().cols;
  $("matches").replaceChildren(
    el("thead", {}, el("tr", {}, ...[c.table, c.round, c.players, c.status, c.score, ""].map((h) => el("th", { text: h })))),
    el("tbody", { id: "matches-body" }),
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
  drawAudit();
}

// -- the anomaly queue: one group per match, worst first; one item per repeated problem ----------------------

/** How bad an item is, for sorting: waiting before handled, then severity, open before acknowledged, then the
 *  most occurrences, then the one waiting longest. */
function badness(a) {
  return [WAITING.has(a.state) ? 0 : 1, SEVERITY_RANK[a.severity] ?? 3, a.state === "open" ? 0 : 1, -(a.count || 1), a.at];
}

function compare(x, y) {
  const bx = badness(x), by = badness(y);
  for (let i = 0; i < bx.length; i++) if (bx[i] !== by[i]) return bx[i] < by[i] ? -1 : 1;
  return 0;
}

/** The queue: each match with something to show, its items worst first; handled items of a confirmed match fold
 *  away, other handled items show only with "show handled". */
function queueGroups() {
  const showHandled = $("show-handled").checked;
  const groups = [];
  for (const match of refs.values()) {
    const all = [...(match.anomalies || [])].sort(compare);
    const waiting = all.filter((a) => WAITING.has(a.state));
    const handled = all.filter((a) => !WAITING.has(a.state));
    const shownHandled = showHandled && match.status !== "official" ? handled : [];
    if (!waiting.length && !shownHandled.length) continue;
    groups.push({ match, items: [...waiting, ...shownHandled], waiting, folded: handled.length - shownHandled.length });
  }
  groups.sort((x, y) => (x.waiting.length ? 0 : 1) - (y.waiting.length ? 0 : 1)
    || compare(x.items[0], y.items[0]) || x.match.id.localeCompare(y.match.id));
  return groups;
}

// An alert is a new item: it flashes once and the page title counts the open ones. A problem seen again
// raises its item's count and does not alert again.
const known = new Set();  // "match/item" keys seen since signing in
const fresh = new Map();  // key -> until when it flashes (ms)
let primed = false;  // the first snapshot is what was already there: no alert for it

function noteNewItems(groups) {
  const now = Date.now();
  for (const { match, waiting } of groups) {
    for (const a of waiting) {
      const key = `${match.id}/${a.id}`;
      if (known.has(key)) continue;
      known.add(key);
      if (primed) fresh.set(key, now + 6000);
    }
  }
  primed = primed || refs.size > 0;
}

function drawQueue() {
  const groups = queueGroups();
  noteNewItems(groups);
  $("queue-empty").hidden = groups.length > 0;
  const open = groups.reduce((n, g) => n + g.waiting.length, 0);
  $("queue-count").textContent = open ? String(open) : "";
  document.title = `${open ? `(${open}) ` : ""}Boardcast — ${t().title}`;
  sync(
    $("queue"),
    groups,
    (g) => g.match.id,
    (g) => JSON.stringify([lang, g.match.status, g.match.players, scoreOf(g.match), g.folded, me && me.role,
      g.items.map((a) => [a.id, a.state, a.count, a.last_at, a.reason, evidence.get(`${g.match.id}/${a.id}`)])]),
    queueGroup,
  );
}

function queueGroup({ match, items, waiting, folded }) {
  const names = sides(match);
  const open = waiting.filter((a) => a.state === "open");
  return el("li", { class: "q-group", "data-match": match.id, "data-status": match.status },
    el("div", { class: "q-head" },
      el("span", { class: "q-where", text: `${tt().table} ${match.table} · ${tt().round} ${match.round}` }),
      el("span", { class: "q-players", text: `${names[0]} – ${names[1]}` }),
      el("span", { class: "m-score", text: scoreOf(match) }),
      el("span", { class: `status ${match.status}`, text: tt().status[match.status] || match.status }),
      el("span", { class: "q-bulk" },
        open.length > 1 ? el("button", { type: "button", "data-action": "acknowledge-all",
          text: t().acknowledgeAll(open.length), onclick: () => openBulk(match, null, "acknowledge") }) : null,
        waiting.length > 1 ? el("button", { type: "button", "data-action": "dismiss-all",
          text: t().closeAll, onclick: () => openBulk(match, null, "dismiss") }) : null)),
    el("ol", { class: "q-items" }, ...items.map((anomaly) => anomalyItem({ match, anomaly }))),
    folded ? el("p", { class: "q-folded muted", text: t().folded(folded) }) : null);
}

/** Who an item is about, in the names the venue file gives: the side's player (or pair) where it names one. */
function whoOf(match, anomaly) {
  const side = (anomaly.data || {}).side;
  const names = sides(match);
  if (side === "A" || side === 0) return names[0];
  if (side === "B" || side === 1) return names[1];
  return "";
}

// where a rule is written: "FIDE Laws of Chess 6.9 · The chessclock: the allotted time" (the hub's own rules
// name Boardcast and a title, no article)
function ruleSource(rule) {
  const pick = (words) => (words ? (lang === "tr" ? words.tr : words.en) : "");
  const where = [pick(rule.document), rule.article].filter(Boolean).join(" ");
  return rule.title ? `${where} · ${pick(rule.title)}` : where;
}

function ruleLine(rule) {
  if (!rule) return null;
  return el("p", { class: "rule" },
    el("span", { class: "rule-source", text: `${t().rule}: ${ruleSource(rule)}` }),
    el("span", { text: lang === "tr" ? rule.tr : rule.en }));
}

function anomalyItem({ match, anomaly }) {
  const key = `${match.id}/${anomaly.id}`;
  const waiting = WAITING.has(anomaly.state);
  const latest = (anomaly.occurrences || []).at(-1) || anomaly;
  const message = lang === "tr" ? latest.message_tr : latest.message_en;
  const byRules = anomaly.handled_by === RULES_ACTOR;
  const stateText = byRules ? t().resolvedByRules : t().states[anomaly.state] || anomaly.state;
  const handledBy = anomaly.handled_by && !byRules ? ` — ${anomaly.handled_by}, ${clock(anomaly.handled_at)}` : "";
  const count = anomaly.count || 1;
  const lastAt = anomaly.last_at || anomaly.at;
  const shown = evidence.get(key);
  const sameCode = (match.anomalies || []).filter((a) => a.code === anomaly.code && a.state === "open").length;
  const offers = anomaly.offers || [];  // the hub's: what this anomaly may take now
  const item = el(
    "li",
    {
      class: `anomaly sev-${anomaly.severity} state-${anomaly.state}${waiting ? "" : " handled"}${(fresh.get(key) || 0) > Date.now() ? " fresh" : ""}`,
      "data-match": match.id, "data-anomaly": anomaly.id, "data-code": anomaly.code, "data-state": anomaly.state,
      "data-by": anomaly.handled_by || "", "data-count": count, "data-key": key,
    },
    el("div", { class: "a-head" },
      el("span", { class: "sev", text: t().severity[anomaly.severity] || anomaly.severity }),
      el("span", { class: "code", text: anomaly.code }),
      whoOf(match, anomaly) ? el("span", { class: "a-who", text: whoOf(match, anomaly) }) : null,
      count > 1 ? el("span", { class: "a-count", title: t().occurrences, text: `×${count}` }) : null,
      el("span", { class: "a-age", "data-at": lastAt,
        title: count > 1 ? t().firstLast(clock(anomaly.at), clock(lastAt)) : clock(anomaly.at), text: ago(lastAt) })),
    el("p", { class: "msg", text: message }),
    count > 1 ? el("p", { class: "a-times muted", text: t().firstLast(clock(anomaly.at), clock(lastAt)) }) : null,
    ruleLine(anomaly.rule),
    waiting && anomaly.state === "open" ? null : el("p", { class: "a-state" },
      el("span", { class: "state", text: stateText }),
      el("span", { text: handledBy }),
      anomaly.reason ? el("span", { class: "reason", text: ` · ${anomaly.reason}` }) : null),
    el("div", { class: "a-actions" },
      el("button", { type: "button", class: "evidence-toggle", "data-action": "evidence",
        text: shown && shown.open ? t().hideEvidence : t().evidence, onclick: () => toggleEvidence(match, anomaly) }),
      offers.includes("acknowledge") ? el("button", { type: "button", "data-action": "acknowledge",
        text: t().actions.acknowledge,
        onclick: () => act(match.id, { action: "acknowledge", anomaly: anomaly.id }) }) : null,
      offers.includes("resolve") ? el("button", { type: "button", "data-action": "resolve", text: t().actions.resolve,
        onclick: () => openDialog(match, "resolve", anomaly) }) : null,
      offers.includes("dismiss") ? el("button", { type: "button", "data-action": "dismiss", text: t().actions.dismiss,
        onclick: () => openDialog(match, "dismiss", anomaly) }) : null,
      sameCode > 1 && anomaly.state === "open" ? el("button", { type: "button", "data-action": "acknowledge-code",
        text: t().acknowledgeCode(sameCode), onclick: () => openBulk(match, anomaly.code, "acknowledge") }) : null),
  );
  if (shown && shown.open) item.append(evidenceTable(anomaly, shown));
  return item;
}

/** Every occurrence of the item, then the log around its latest one with each occurrence's event marked. */
function evidenceTable(anomaly, shown) {
  const box = el("div", { class: "evidence" });
  const seen = [anomaly, ...(anomaly.occurrences || [])];
  const offsets = new Set(seen.map((o) => o.offset));
  if (seen.length > 1) {
    box.append(el("ol", { class: "occurrences" }, ...seen.map((o) => el("li", {},
      el("span", { class: "muted", text: `${clock(o.at)} · #${o.offset} ` }),
      el("span", { text: lang === "tr" ? o.message_tr : o.message_en })))));
    if ((anomaly.count || 1) > seen.length) box.append(el("p", { class: "muted", text: t().olderInLog(anomaly.count - seen.length) }));
  }
  if (shown.error) { box.append(el("p", { class: "error", text: shown.error })); return box; }
  if (!shown.events) { box.append(el("p", { class: "muted", text: "…" })); return box; }
  if (!shown.events.length) { box.append(el("p", { class: "muted", text: t().noEvents })); return box; }
  const c = t().cols;
  box.append(el("table", { class: "grid" },
    el("thead", {}, el("tr", {}, ...[c.offset, c.time, c.kind, c.source, c.body].map((h) => el("th", { text: h })))),
    el("tbody", {}, ...shown.events.map((e) => el("tr", { class: offsets.has(e.offset) ? "shows" : "" },
      el("td", { text: String(e.offset) }),
      el("td", { text: clock(e.at) }),
      el("td", { text: e.kind }),
      el("td", { text: e.device_id ? `${e.device_id} #${e.seq ?? "—"}` : e.actor || "" }),
      el("td", { class: "body", text: JSON.stringify(e.body) })))),
  ));
  return box;
}

async function toggleEvidence(match, anomaly) {
  const key = `${match.id}/${anomaly.id}`;
  const known = evidence.get(key);
  if (known && known.open) { evidence.set(key, { ...known, open: false }); drawQueue(); return; }
  evidence.set(key, { open: true, events: known ? known.events : null, error: null });
  drawQueue();
  if (known && known.events) return;
  const last = anomaly.last_offset || anomaly.offset;  // the log before the latest occurrence
  const from = Math.max(1, last - 4);
  try {
    const answer = await fetch(`/api/referee/matches/${encodeURIComponent(match.id)}/events?from=${from}&to=${last}`,
      { headers: { Authorization: `Bearer ${token}` } });
    const body = await answer.json();
    evidence.set(key, { open: true, events: answer.ok ? body.events : null, error: answer.ok ? null : body.error });
  } catch (error) {
    evidence.set(key, { open: true, events: null, error: String(error) });
  }
  drawQueue();
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
    (m) => JSON.stringify([lang, m.status, m.version, scoreOf(m), waitingCount(m), me && me.role, m.offers]),
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
          waiting ? el("span", { class: "m-warn", title: t().waiting(waiting), text: `⚠ ${waiting}` }) : null),
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
    (m) => JSON.stringify([lang, m.status, m.locked, scoreOf(m), m.contacts, m.appeal_until, m.appeal_closes]),
    (m) => {
      const names = sides(m);
      const contacts = (m.contacts || []).map((c) => [c.name, c.phone, c.email].filter(Boolean).join(" · "));
      return el("tr", { "data-match": m.id, "data-status": m.status },
        el("td", { text: m.table }),
        el("td", { text: String(m.round) }),
        el("td", {}, el("div", {}, m.sport === "chess"  // the game's page, with its referee view in this tab
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
  if (action.kind === "referee.input" && b.input && b.input.how) {  // a chess result the board cannot see
    parts.push(`${b.input.result} · ${t().hows[b.input.how] || b.input.how}`);
    if (b.input.reason) parts.push(b.input.reason);
  } else if (action.kind === "referee.input" && b.input) parts.push(JSON.stringify(b.input));
  if (b.penalty) parts.push(`${t().penalties[b.penalty] || b.penalty} → ${names[b.side] ?? b.side}`);
  if (b.loser != null) parts.push(`${t().loser}: ${names[b.loser] ?? b.loser}`);
  if (b.decision) parts.push(t().decisions[b.decision] || b.decision);
  if (b.score) parts.push(`${num(b.score[0])}–${num(b.score[1])}`);
  if (b.appellant) parts.push(`${t().appellant}: ${b.appellant}`);
  if (action.kind === "match.lock") parts.push(t().lockedBecause(b.because));
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

/** Whether an appeal may still be made: the hub's deadline (15 minutes after the end, or the next round's
 * start if that came first) has not passed. */
function appealOpen(match, now = Date.now() / 1000) {
  return match.appeal_until != null && now <= match.appeal_until;
}

/** The time left to appeal, counting down, or why appeals are closed; "" while the match has no result. */
function appealText(match, now = Date.now() / 1000) {
  if (match.appeal_until == null) return "";
  if (!appealOpen(match, now)) return t().appealClosed[match.appeal_closes] || t().appealClosed.window;
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

function drawDialog() {
  const { match, anomaly, bulk, action, options } = dialogState;
  $("action-title").textContent = anomaly ? `${t().actions[action]}: ${anomaly.code}`
    : bulk ? `${t().actions[action]}: ${t().items(bulk.count)}${bulk.code ? ` (${bulk.code})` : ""}` : t().act.replace("…", "");
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
      ...HOWS.map((h) => el("option", { value: h, text: t().hows[h] })))));
  }
  if (action === "orientation") {
    fields.push(field(t().actions.orientation, el("select", { name: "orientation" },
      ...ORIENTATIONS.map((o) => el("option", { value: o, text: t().orientations[o] })))));
  }
  if (action === "resign") {
    fields.push(field(t().side, sideSelect("side", match)));
    fields.push(field(t().resignValue, el("select", { name: "value" },
      ...RESIGN_VALUES.map((v) => el("option", { value: String(v), text: t().resignValues[v] })))));
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
$("lang").addEventListener("click", () => {
  lang = lang === "tr" ? "en" : "tr";
  localStorage.setItem("boardcast.lang", lang);
  renderStatic();
});
$("show-handled").addEventListener("change", () => drawQueue());
$("action-form").addEventListener("submit", submitDialog);
$("action-cancel").addEventListener("click", () => $("action-dialog").close());
renderStatic();
const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved) signIn(saved, true);
setInterval(() => {
  for (const node of document.querySelectorAll(".a-age[data-at]")) node.textContent = ago(Number(node.dataset.at));
}, 5000);
setInterval(tickAppeals, 1000);
