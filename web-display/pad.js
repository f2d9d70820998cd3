// The umpire pad: a phone or tablet scoring one table (/pad/TABLE). Nothing is scored here: each tap is queued
// in the browser's storage with its number, sent in order, and kept until the hub says it has it; the screen
// shows what the hub made of it. A lost connection only delays the taps; a reload, or the page opened on
// another phone, goes on from the hub's state. The sport's own buttons come from its module (`PAGES.pad`).
import { TEXTS as SHARED, pickLanguage } from "./i18n.js";
import { sport } from "./sports.js";
import { $, el, pathId, showLanguage } from "./page.js";

const TABLE = pathId("pad");
const STORE = `boardcast.pad.${TABLE}`;
const TOKEN_KEY = "boardcast.pad.token";
const BATCH = 50;  // taps per message: well inside the hub's body limit
const POLL_MS = 4000;  // the state asked this often: also what keeps this pad holding the table
const RETRY_MS = [1000, 2000, 4000, 5000];

export const TEXTS = {
  tr: {
    tokenLabel: "Hakem ya da yardımcı hakem anahtarı", signIn: "Giriş", signOut: "Çıkış",
    notice: "Tablet yalnız dokunulanı gönderir; skoru merkez hesaplar, sonucu hakem onaylar.",
    allSent: "Bağlı — her dokunuş kaydedildi", waiting: (n) => `${n} dokunuş gönderilmeyi bekliyor`,
    offline: (n) => `Bağlantı yok — ${n} dokunuş bu cihazda saklanıyor, bağlantı gelince gönderilecek`,
    sending: "Gönderiliyor…", readOnly: "Yalnız izleme", discard: (n) => `Gönderilmeyen ${n} dokunuşu sil`,
    badToken: "Anahtar geçersiz", noMatch: "Bu masada maç yok",
    finished: "Maç bitti; sonuç hakem onayını bekliyor.", official: "Sonuç resmî.",
    next: (names) => `Sıradaki maç: ${names}`, nextStarts: "İlk sayı bu maçı başlatır.",
    roles: { referee: "hakem", chief: "başhakem", umpire: "yardımcı hakem" },
    refused: "Gönderilemedi",
    signoffTitle: "Oyuncuların onayı", agree: (name, score) => `${name}: ${score} skorunu onaylıyorum`, dispute: "İtiraz",
    signed: (name) => `✓ ${name} skoru onayladı`, disputed: (name) => `⚠ ${name} skora itiraz etti; hakem çağrıldı`,
    bothSigned: "İki oyuncu da onayladı; sonucu hakem resmîleştirir.",
    watching: (who, s, lease) => `Bu masayı ${who} başka bir tabletten puanlıyor; bu tablet yalnız skoru gösterir (öteki ${lease} sn sessiz kalırsa en erken ${s} sn sonra puanlayabilir)`,
  },
  en: {
    tokenLabel: "Referee or umpire token", signIn: "Sign in", signOut: "Sign out",
    notice: "The pad only sends what is tapped; the hub keeps the score and a referee confirms the result.",
    allSent: "Connected — every tap stored", waiting: (n) => `${n} tap${n === 1 ? "" : "s"} waiting to be sent`,
    offline: (n) => `No connection — ${n} tap${n === 1 ? "" : "s"} kept on this device, sent when it is back`,
    sending: "Sending…", readOnly: "View only", discard: (n) => `Discard ${n} unsent tap${n === 1 ? "" : "s"}`,
    badToken: "Token not accepted", noMatch: "No match on this table",
    finished: "Match over; the result waits for a referee's confirmation.", official: "The result is official.",
    next: (names) => `Next match: ${names}`, nextStarts: "The first point starts it.",
    roles: { referee: "referee", chief: "chief referee", umpire: "umpire" },
    refused: "Not sent",
    signoffTitle: "Players' sign-off", agree: (name, score) => `${name}: I confirm ${score}`, dispute: "Dispute",
    signed: (name) => `✓ ${name} confirmed the score`, disputed: (name) => `⚠ ${name} disputes the score; a referee is called`,
    bothSigned: "Signed by both players; a referee makes the result official.",
    watching: (who, s, lease) => `${who} is scoring this table on another pad; this one shows the score only (it may score in ${s} s at the earliest, if that pad stays silent ${lease} s)`,
  },
};

let lang = pickLanguage(localStorage.getItem("boardcast.lang"), navigator.languages);
let token = localStorage.getItem(TOKEN_KEY);
let answer = null;  // the hub's last answer
let online = true;
let sending = false;
let failures = 0;
let timer = null;
let problem = "";  // why the last message was not taken (another pad holds the table, a refused body)

const t = () => ({ ...SHARED[lang], ...TEXTS[lang] });

/** This pad's identity and queue, kept in the browser's storage across reloads. */
function loadStore() {
  const saved = JSON.parse(localStorage.getItem(STORE) || "null");
  if (saved && saved.pad && saved.epoch && Array.isArray(saved.queue)) return saved;
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  const pad = `${TABLE}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`.replace(/[^A-Za-z0-9_-]/g, "_");
  return { pad: pad.slice(-64), epoch: Date.now(), next: 1, queue: [] };
}

const store = loadStore();
function save() { localStorage.setItem(STORE, JSON.stringify(store)); }
save();

/** Queue one tap and send it: what the sport's buttons call. */
export function tap(kind, data = {}) {
  store.queue.push({ seq: store.next++, kind, data, tapped_at: Date.now() / 1000 });
  save();
  show();
  send();
}

async function post(reports) {
  const response = await fetch(`/api/pad/${encodeURIComponent(TABLE)}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ pad: store.pad, epoch: store.epoch, reports }),
  });
  return { status: response.status, body: await response.json().catch(() => ({})) };
}

/** Send the queue in order, a batch at a time, until it is empty or the hub cannot be reached. */
async function send() {
  if (sending || !token) return;
  sending = true;
  clearTimeout(timer);
  try {
    do {
      const batch = store.queue.slice(0, BATCH);
      let reply;
      try {
        reply = await post(batch);
      } catch {
        online = false;
        failures++;
        break;
      }
      online = true;
      failures = 0;
      if (reply.status === 401) { signOut(t().badToken); return; }
      if (reply.status === 403) { signOut(said(reply.body.error) || t().badToken); return; }
      if (reply.status !== 200) { problem = `${t().refused}: ${said(reply.body.error) || reply.status}`; break; }
      answer = reply.body;
      problem = answer.taken ? "" : answer.refusal || "";  // {en, tr}: shown in the page's language
      if (!answer.taken) break;
      const acked = answer.device.acked;
      store.queue = store.queue.filter((x) => x.seq > acked);
      save();
      if (batch.length && batch.every((x) => x.seq > acked)) break;  // nothing of it taken: do not spin
    } while (store.queue.length);
  } finally {
    sending = false;
    show();
    const wait = online ? POLL_MS : RETRY_MS[Math.min(failures - 1, RETRY_MS.length - 1)];
    timer = setTimeout(send, store.queue.length && online ? 200 : wait);
  }
}

/** A hub message ("english / türkçe") in the page's language. */
function said(message) {
  const [english, turkish] = String(message || "").split(" / ");
  return lang === "tr" ? turkish || english : english;
}

function signOut(message) {
  token = null;
  localStorage.removeItem(TOKEN_KEY);
  answer = null;
  $("sign-in-error").textContent = message || "";
  show();
}

/** Whether another pad holds the table now: this one only shows the score. */
function elsewhere() {
  const holder = answer && answer.device && answer.device.holder;
  return Boolean(holder && holder.pad !== store.pad);
}

function linkText() {
  const n = store.queue.length;
  if (!online) return [t().offline(n), "offline"];
  if (problem) return [typeof problem === "string" ? problem : problem[lang], "refused"];
  if (elsewhere()) return [t().watching(answer.device.holder.user, Math.ceil(answer.device.free_in_s), answer.device.lease_s), "watching"];
  if (n) return [t().waiting(n), "waiting"];
  return [t().allSent, "ok"];
}

function show() {
  showLanguage(lang, t());
  $("table").textContent = `${t().table} ${TABLE}`;
  $("sign-in").hidden = Boolean(token);
  $("sign-out").hidden = !token;
  $("pad").hidden = !token || !answer;
  const [text, kind] = token ? linkText() : ["", "none"];
  const link = $("link");
  link.className = `link link-${kind}`;
  link.replaceChildren(text);
  if (kind === "refused" && store.queue.length && answer && !answer.taken) {
    link.append(" ", el("button", { type: "button", class: "link-button", onclick: discard, text: t().discard(store.queue.length) }));
  }
  if (!answer) return;
  $("user").textContent = `${answer.user.name} · ${t().roles[answer.user.role] || answer.user.role}`;
  const match = answer.match;
  const words = t();
  $("round").textContent = match ? `${words.round} ${match.round}` : "";
  $("status").textContent = match ? words.status[match.status] || match.status : words.noMatch;
  $("status").className = `status ${match ? match.status : ""}`;
  const done = match && !["scheduled", "live"].includes(match.status);
  // a match over: the buttons are the next match's, whose first point (or move) starts it
  const scored = (done && nextMatch(match, answer.next)) || match;
  const pad = scored ? sport(scored.sport).pad : null;
  // a match over with none after it: its final score, nothing to tap
  const enabled = !elsewhere() && !(done && scored === match);
  document.body.classList.toggle("read-only", !enabled);
  if (pad) pad.render($("scoring"), scored, { lang, texts: words, tap, enabled, pending: store.queue });
  else $("scoring").replaceChildren();
  // a sport with buttons of its own names the sides on them; one without is shown by its players only
  $("players").textContent = match && !pad ? (match.players || []).join(" – ") : "";
  showFinished(match, answer.next, words);
  showAnomalies(match);
}

/** The next match on the table as a match not yet begun, or null when there is none. */
function nextMatch(match, next) {
  return next ? { ...next, sport: match.sport, status: "scheduled", state: { ...next.state } } : null;
}

function showFinished(match, next, words) {
  const done = match && !["scheduled", "live"].includes(match.status);
  const box = $("finished");
  box.hidden = !done;
  if (!done) return;
  box.replaceChildren(el("p", "done", match.official ? words.official : words.finished));
  if (match.status === "finished" && match.signoffs) box.append(signoffBox(match, words));
  if (next) box.append(el("p", "next", `${words.next(next.players.join(" – "))} ${words.nextStarts}`));
}

/** Each player confirms the final score with a tap on their own name, or disputes it (a referee item). */
function signoffBox(match, words) {
  const { score, sides, both } = match.signoffs;
  const pad = sport(match.sport).pad;
  const name = (side) => (pad && pad.sideName ? pad.sideName(match, side) : (match.players || [])[side] || "AB"[side]);
  const shown = score.map((v) => (v === 0.5 ? "½" : String(v).replace(".5", "½"))).join("–");
  const rows = [0, 1].map((side) => {
    const said = sides[side];
    if (said) return el("p", `signed ${said.agree ? "agreed" : "disputed"}`, said.agree ? words.signed(name(side)) : words.disputed(name(side)));
    return el("div", { class: "signoff-row" },
      el("button", { type: "button", class: "agree", onclick: () => signoff(side, true), text: words.agree(name(side), shown) }),
      el("button", { type: "button", class: "dispute", onclick: () => signoff(side, false), text: words.dispute }));
  });
  return el("section", { class: "signoff", "aria-label": words.signoffTitle },
    el("h2", null, `${words.signoffTitle} — ${shown}`), ...rows, both ? el("p", "both", words.bothSigned) : null);
}

async function signoff(side, agree) {
  try {
    const response = await fetch(`/api/pad/${encodeURIComponent(TABLE)}/signoff`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ side, agree }),
    });
    const body = await response.json().catch(() => ({}));
    if (response.ok) { answer = { ...answer, match: body.match, next: body.next }; problem = ""; }
    else problem = `${t().refused}: ${said(body.error) || response.status}`;
  } catch {
    online = false;
  }
  show();
}

function showAnomalies(match) {
  const list = $("anomalies");
  const open = ((match && match.anomalies) || []).filter((a) => ["open", "acknowledged"].includes(a.state));
  list.replaceChildren(...open.slice(-5).map((a) => el("li", `anomaly ${a.severity || ""}`, lang === "tr" ? a.message_tr : a.message_en)));
}

function discard() {
  store.queue = [];
  problem = "";
  save();
  show();
}

$("sign-in").addEventListener("submit", (event) => {
  event.preventDefault();
  token = $("token").value.trim();
  $("token").value = "";
  localStorage.setItem(TOKEN_KEY, token);
  $("sign-in-error").textContent = "";
  send();
});
$("sign-out").addEventListener("click", () => signOut(""));
$("lang").addEventListener("click", () => {
  lang = lang === "tr" ? "en" : "tr";
  localStorage.setItem("boardcast.lang", lang);
  show();
});
window.addEventListener("online", () => send());
window.addEventListener("storage", (event) => {  // another tab of this browser changed the queue: follow it
  if (event.key === STORE && event.newValue) Object.assign(store, JSON.parse(event.newValue));
});

show();
send();
