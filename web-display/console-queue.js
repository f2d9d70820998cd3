// The referee console's anomaly queue: one group per match, the match with the worst item first, and one item
// per repeated problem (its count, first and last time, rule, each occurrence as evidence) with its actions.
// The console (console.js) hands it what it shares once, with `initQueue`.
import { sync } from "./console-dom.js";
import { el } from "./page.js";

export const SEVERITY_RANK = { error: 0, warning: 1, info: 2 };
export const WAITING = new Set(["open", "acknowledged"]);
const RULES_ACTOR = "rules";
const SYSTEM_ACTOR = "boardcast";  // the hub itself: it closes a device's outage item when the device is back

let ctx = null;  // refs, evidence, texts, the session and the console's actions (see console.js)

/** Give the queue what it shares with the console. */
export function initQueue(shared) { ctx = shared; }

/** Forget which items were seen: a new sign-in alerts for nothing that was already there. */
export function resetQueue() {
  known.clear();
  fresh.clear();
  primed = false;
}

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
  const showHandled = ctx.$("show-handled").checked;
  const groups = [];
  for (const match of ctx.refs.values()) {
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
  primed = primed || ctx.refs.size > 0;
}

export function drawQueue() {
  const groups = queueGroups();
  noteNewItems(groups);
  ctx.$("queue-empty").hidden = groups.length > 0;
  const open = groups.reduce((n, g) => n + g.waiting.length, 0);
  ctx.$("queue-count").textContent = open ? String(open) : "";
  document.title = `${open ? `(${open}) ` : ""}Boardcast — ${ctx.t().title}`;
  sync(
    ctx.$("queue"),
    groups,
    (g) => g.match.id,
    (g) => JSON.stringify([ctx.lang(), g.match.status, g.match.players, ctx.scoreOf(g.match), g.folded, ctx.me() && ctx.me().role,
      g.items.map((a) => [a.id, a.state, a.count, a.last_at, a.reason, ctx.evidence.get(`${g.match.id}/${a.id}`)])]),
    queueGroup,
  );
}

function queueGroup({ match, items, waiting, folded }) {
  const names = ctx.sides(match);
  const open = waiting.filter((a) => a.state === "open");
  return el("li", { class: "q-group", "data-match": match.id, "data-status": match.status },
    el("div", { class: "q-head" },
      el("span", { class: "q-where", text: `${ctx.tt().table} ${match.table} · ${ctx.tt().round} ${match.round}` }),
      el("span", { class: "q-players", text: `${names[0]} – ${names[1]}` }),
      el("span", { class: "m-score", text: ctx.scoreOf(match) }),
      el("span", { class: `status ${match.status}`, text: ctx.tt().status[match.status] || match.status }),
      el("span", { class: "q-bulk" },
        open.length > 1 ? el("button", { type: "button", "data-action": "acknowledge-all",
          text: ctx.t().acknowledgeAll(open.length), onclick: () => ctx.openBulk(match, null, "acknowledge") }) : null,
        waiting.length > 1 ? el("button", { type: "button", "data-action": "dismiss-all",
          text: ctx.t().closeAll, onclick: () => ctx.openBulk(match, null, "dismiss") }) : null)),
    el("ol", { class: "q-items" }, ...items.map((anomaly) => anomalyItem({ match, anomaly }))),
    folded ? el("p", { class: "q-folded muted", text: ctx.t().folded(folded) }) : null);
}

/** Who an item is about, in the names the venue file gives: the side's player (or pair) where it names one. */
function whoOf(match, anomaly) {
  const side = (anomaly.data || {}).side;
  const names = ctx.sides(match);
  if (side === "A" || side === 0) return names[0];
  if (side === "B" || side === 1) return names[1];
  return "";
}

// where a rule is written: the document, its article and title, "ITTF Handbook … 3.4.4 · Intervals: the
// time-out" (the hub's own rules name Boardcast and a title, no article)
function pick(words) { return words ? (ctx.lang() === "tr" ? words.tr : words.en) : ""; }

function ruleSource(rule) {
  const where = [pick(rule.document), rule.article].filter(Boolean).join(" ");
  return rule.title ? `${where} · ${pick(rule.title)}` : where;
}

function ruleLine(rule) {
  if (!rule) return null;
  return el("p", { class: "rule" },
    el("span", { class: "rule-source", text: `${ctx.t().rule}: ${ruleSource(rule)}` }),
    el("span", { class: "rule-text", text: ctx.lang() === "tr" ? rule.tr : rule.en }));
}

function anomalyItem({ match, anomaly }) {
  const key = `${match.id}/${anomaly.id}`;
  const waiting = WAITING.has(anomaly.state);
  const latest = (anomaly.occurrences || []).at(-1) || anomaly;
  const message = ctx.lang() === "tr" ? latest.message_tr : latest.message_en;
  const byRules = anomaly.handled_by === RULES_ACTOR;
  const stateText = byRules ? ctx.t().resolvedByRules : ctx.t().states[anomaly.state] || anomaly.state;
  const by = anomaly.handled_by === SYSTEM_ACTOR ? ctx.t().system : anomaly.handled_by;
  const handledBy = anomaly.handled_by && !byRules ? ` — ${by}, ${ctx.clock(anomaly.handled_at)}` : "";
  const count = anomaly.count || 1;
  const lastAt = anomaly.last_at || anomaly.at;
  const shown = ctx.evidence.get(key);
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
      el("span", { class: "sev", text: ctx.t().severity[anomaly.severity] || anomaly.severity }),
      whoOf(match, anomaly) ? el("span", { class: "a-who", text: whoOf(match, anomaly) }) : null,
      count > 1 ? el("span", { class: "a-count", title: ctx.t().occurrences, text: `×${count}` }) : null,
      // a repeated problem's first and last time, in its head: one line less for the queue's first screen
      count > 1 ? el("span", { class: "a-times muted", text: ctx.t().firstLast(ctx.clock(anomaly.at), ctx.clock(lastAt)) }) : null,
      el("span", { class: "a-age", "data-at": lastAt,
        title: count > 1 ? ctx.t().firstLast(ctx.clock(anomaly.at), ctx.clock(lastAt)) : ctx.clock(anomaly.at), text: ctx.ago(lastAt) })),
    el("p", { class: "msg", text: message, title: anomaly.code }),
    ruleLine(anomaly.rule),
    waiting && anomaly.state === "open" ? null : el("p", { class: "a-state" },
      el("span", { class: "state", text: stateText }),
      el("span", { text: handledBy }),
      anomaly.reason ? el("span", { class: "reason", text: ` · ${anomaly.reason}` }) : null),
    el("div", { class: "a-actions" },
      el("button", { type: "button", class: "evidence-toggle", "data-action": "evidence",
        text: shown && shown.open ? ctx.t().hideEvidence : ctx.t().evidence, onclick: () => toggleEvidence(match, anomaly) }),
      offers.includes("acknowledge") ? el("button", { type: "button", "data-action": "acknowledge",
        text: ctx.t().actions.acknowledge,
        onclick: () => ctx.act(match.id, { action: "acknowledge", anomaly: anomaly.id }) }) : null,
      offers.includes("resolve") ? el("button", { type: "button", "data-action": "resolve", text: ctx.t().actions.resolve,
        onclick: () => ctx.openDialog(match, "resolve", anomaly) }) : null,
      offers.includes("dismiss") ? el("button", { type: "button", "data-action": "dismiss", text: ctx.t().actions.dismiss,
        onclick: () => ctx.openDialog(match, "dismiss", anomaly) }) : null,
      sameCode > 1 && anomaly.state === "open" ? el("button", { type: "button", "data-action": "acknowledge-code",
        text: ctx.t().acknowledgeCode(sameCode), onclick: () => ctx.openBulk(match, anomaly.code, "acknowledge") }) : null),
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
      el("span", { class: "muted", text: `${ctx.clock(o.at)} · #${o.offset} ` }),
      el("span", { text: ctx.lang() === "tr" ? o.message_tr : o.message_en })))));
    if ((anomaly.count || 1) > seen.length) box.append(el("p", { class: "muted", text: ctx.t().olderInLog(anomaly.count - seen.length) }));
  }
  if (shown.error) { box.append(el("p", { class: "error", text: shown.error })); return box; }
  if (!shown.events) { box.append(el("p", { class: "muted", text: "…" })); return box; }
  if (!shown.events.length) { box.append(el("p", { class: "muted", text: ctx.t().noEvents })); return box; }
  const c = ctx.t().cols;
  box.append(el("table", { class: "grid" },
    el("thead", {}, el("tr", {}, ...[c.offset, c.time, c.kind, c.source, c.body].map((h) => el("th", { text: h })))),
    el("tbody", {}, ...shown.events.map((e) => el("tr", { class: offsets.has(e.offset) ? "shows" : "" },
      el("td", { text: String(e.offset) }),
      el("td", { text: ctx.clock(e.at) }),
      el("td", { text: e.kind }),
      el("td", { text: e.device_id ? `${e.device_id} #${e.seq ?? "—"}` : e.actor || "" }),
      el("td", { class: "body", text: JSON.stringify(e.body) })))),
  ));
  return box;
}

async function toggleEvidence(match, anomaly) {
  const key = `${match.id}/${anomaly.id}`;
  const known = ctx.evidence.get(key);
  if (known && known.open) { ctx.evidence.set(key, { ...known, open: false }); drawQueue(); return; }
  ctx.evidence.set(key, { open: true, events: known ? known.events : null, error: null });
  drawQueue();
  if (known && known.events) return;
  const last = anomaly.last_offset || anomaly.offset;  // the log before the latest occurrence
  const from = Math.max(1, last - 4);
  try {
    const answer = await fetch(`/api/referee/matches/${encodeURIComponent(match.id)}/events?from=${from}&to=${last}`,
      { headers: { Authorization: `Bearer ${ctx.token()}` } });
    const body = await answer.json();
    ctx.evidence.set(key, { open: true, events: answer.ok ? body.events : null, error: answer.ok ? null : body.error });
  } catch (error) {
    ctx.evidence.set(key, { open: true, events: null, error: String(error) });
  }
  drawQueue();
}

