// Table tennis on the umpire pad, point by point: a large button per side for the side that won the rally, the
// server and receiver as the hub's rules have them (the doubles order, the change of ends and of receiver in
// the deciding game), undo of the last point, a time-out and cards per side, and the expedite system started
// the moment it is tapped. Each button sends a device event; the score shown is the hub's.
import { el } from "./page.js";

const CARDS = ["yellow", "yellow_red", "red"];
const PLAYERS = ["A1", "A2", "B1", "B2"];

export const PAD_TEXTS = {
  tr: {
    toss: "Kura", tossServer: "Kura: ilk servisi kim atıyor?", tossReceiver: "İlk servisi kim karşılıyor?",
    undo: "Son sayıyı geri al", timeout: "Mola", timeoutUsed: "Mola ✓", final: "Maç bitti",
    waiting: (n) => `+${n} gönderilecek`,
    gameWon: (n, name, score) => `${n}. seti ${name} kazandı (${score}). Sıradaki sayı ${n + 1}. seti başlatır; taraflar yer değiştirdi.`, expedite: "Hızlandırma başlat", expediteOn: "Hızlandırma uygulanıyor",
    card: "Kart", serving: "servis", receiving: "karşılar", pointTo: (name) => `${name} sayıyı aldı`,
cardFor: (name) => `${name} için kart`, close: "Kapat",
  },
  en: {
    toss: "Toss", tossServer: "Toss: who serves first?", tossReceiver: "Who receives first?",
    undo: "Undo last point", timeout: "Time-out", timeoutUsed: "Time-out ✓", final: "Final",
    waiting: (n) => `+${n} to send`,
    gameWon: (n, name, score) => `Game ${n} to ${name} (${score}). The next point starts game ${n + 1}; the players have changed ends.`, expedite: "Start expedite", expediteOn: "Expedite in force",
    card: "Card", serving: "serves", receiving: "receives", pointTo: (name) => `Point to ${name}`,
cardFor: (name) => `Card for ${name}`, close: "Close",
  },
};

let cardSide = null;  // the side whose card choice is open
let tossServer = null;  // doubles: the first server chosen, waiting for the first receiver

/** The names of side `side` (a pair in doubles). */
function sideNames(match, side) {
  const p = match.players || [];
  return (match.state || {}).doubles ? `${p[side * 2] || PLAYERS[side * 2]} / ${p[side * 2 + 1] || PLAYERS[side * 2 + 1]}` : p[side] || "AB"[side];
}

function playerName(match, mark) {
  const i = PLAYERS.indexOf(mark);
  return (match.players || [])[i] || mark;
}

/** What the buttons show: the game in play, or, once a game is won, the game its next point opens (the rules'
 * `next_game`: its ends, server and receiver, 0-0), so the umpire taps the side as it now stands. */
function shown(s) {
  const next = s.next_game;
  if (!next) return s;
  return { ...s, points: [0, 0], games: next.games, game: next.game, ends: next.ends, server: next.server,
    receiver: next.receiver, server_player: next.server_player, receiver_player: next.receiver_player };
}

function sideButton(match, s, side, ctx, words) {
  const role = s.server === side ? words.serving : s.receiver === side ? words.receiving : "";
  const who = s.doubles && s.server_player && s.receiver_player
    ? playerName(match, s.server === side ? s.server_player : s.receiver_player) : "";
  const waiting = ctx.pending.filter((t) => t.kind === "point" && t.data.side === side).length;
  return el("button", {
    type: "button", class: `rally side-${side}${s.server === side ? " serving" : ""}`, "data-side": String(side),
    disabled: ctx.enabled ? null : true,
    "aria-label": words.pointTo(sideNames(match, side)), onclick: () => ctx.tap("point", { side }),
  },
  el("span", "names", sideNames(match, side)),
  el("span", "points", String((s.points || [0, 0])[side])),
  waiting ? el("span", "waiting", words.waiting(waiting)) : null,
  el("span", "games", `${ctx.texts.games} ${(s.games || [0, 0])[side]}`),
  el("span", "role", [role, who].filter(Boolean).join(" · ")));
}

function sideTools(match, s, side, ctx, words) {
  const used = (s.timeouts || [])[side];
  const cards = ((s.cards || [])[side] || []).map((c) => ctx.texts.cards[c] || c);
  const penalty = (s.penalty_points || [])[side];
  if (penalty) cards.push(ctx.texts.penalty(penalty));  // as the match page shows it beside the side
  return el("div", { class: "tools", "data-side": String(side) },
    el("span", "who", sideNames(match, side)),
    el("button", { type: "button", class: "timeout", disabled: !ctx.enabled || used ? true : null,
      onclick: () => ctx.tap("timeout", { side }), text: used ? words.timeoutUsed : words.timeout }),
    el("button", { type: "button", class: "card-open", disabled: !ctx.enabled ? true : null,
      onclick: () => {
        cardSide = cardSide === side ? null : side;
        ctx.rerender();
        const box = document.querySelector(".card-choice");
        if (box) box.scrollIntoView({ block: "nearest" });  // below the fold on a phone held sideways
      }, text: words.card }),
    cards.length ? el("span", "given", cards.join(", ")) : null);
}

function cardChoice(match, ctx, words) {
  if (cardSide === null) return null;
  const side = cardSide;
  const give = (card) => { cardSide = null; ctx.tap("card", { side, card }); };
  return el("div", { class: "card-choice", role: "group", "aria-label": words.cardFor(sideNames(match, side)) },
    el("span", "label", words.cardFor(sideNames(match, side))),
    ...CARDS.map((card) => el("button", { type: "button", class: `card ${card}`, onclick: () => give(card), text: ctx.texts.cards[card] })),
    el("button", { type: "button", class: "close", onclick: () => { cardSide = null; ctx.rerender(); }, text: words.close }));
}

/** The line above the buttons: the game in play and the games before it; a game just won, and what its next
 * point does; the final games once the match is over. */
function gameLine(match, s, ctx, words) {
  const done = (s.game_scores || []).map((g) => g.join("-")).join("  ");
  if (s.winner != null) return el("p", "game", [words.final, done].filter(Boolean).join(" · "));
  const next = s.next_game;
  if (next) {
    const winner = next.won[0] > next.won[1] ? 0 : 1;
    return el("p", { class: "game game-over", role: "status" },
      words.gameWon(next.game - 1, sideNames(match, winner), next.won.join("–")));
  }
  return el("p", "game", [ctx.texts.gameNo(s.game || 1), done].filter(Boolean).join(" · "));
}

/** Before the first rally: the toss's outcome, who serves first (and in doubles who receives first). The
 * hub's serving order follows it; after the first rally it is a referee's correction. */
function tossBox(match, s, ctx, words) {
  if ((s.rallies || 0) > 0 || (s.games || [0, 0]).some(Boolean) || !["scheduled", "live"].includes(match.status)) return null;
  const off = ctx.enabled ? null : true;
  const pick = (label, selected, onclick, mark, role = "toss") => el("button", { type: "button",
    class: `choice${selected ? " selected" : ""}`, "aria-pressed": selected ? "true" : "false", [`data-${role}`]: mark,
    disabled: off, onclick, text: label });
  if (!s.doubles) {
    return el("section", { class: "toss", "aria-label": words.toss },
      el("h2", "pad-label", words.tossServer),
      el("div", { class: "choices" }, ...[0, 1].map((side) => pick(sideNames(match, side), s.server === side,
        () => ctx.tap("toss", { server: "AB"[side] }), "AB"[side]))));
  }
  const receivers = tossServer ? PLAYERS.filter((p) => p[0] !== tossServer[0]) : [];
  return el("section", { class: "toss", "aria-label": words.toss },
    el("h2", "pad-label", words.tossServer),
    el("div", { class: "choices" }, ...PLAYERS.map((p) => pick(playerName(match, p), (tossServer || s.server_player) === p,
      () => { tossServer = p; ctx.rerender(); }, p))),
    tossServer ? el("h2", "pad-label", words.tossReceiver) : null,
    tossServer ? el("div", { class: "choices" }, ...receivers.map((p) => pick(playerName(match, p), false,
      () => { const server = tossServer; tossServer = null; ctx.tap("toss", { server, receiver: p }); }, p, "receive"))) : null);
}

/** Draw the scoring buttons into `root` for the hub's view of the match. */
function render(root, match, ctx) {
  const words = PAD_TEXTS[ctx.lang];
  const s = match.state || {};
  const now = shown(s);
  const order = now.ends === "swapped" ? [1, 0] : [0, 1];  // as the umpire sees the table: side 0 on the left at the start
  ctx = { ...ctx, pending: ctx.pending || [], rerender: () => render(root, match, ctx) };
  root.replaceChildren(...[
    gameLine(match, s, ctx, words),
    tossBox(match, s, ctx, words),
    el("div", { class: "rallies" }, ...order.map((side) => sideButton(match, now, side, ctx, words))),
    el("button", { type: "button", class: "undo", disabled: !ctx.enabled ? true : null, onclick: () => ctx.tap("undo", {}), text: words.undo }),
    el("div", { class: "side-tools" }, ...order.map((side) => sideTools(match, s, side, ctx, words))),
    cardChoice(match, ctx, words),
    el("button", { type: "button", class: `expedite${s.expedite ? " on" : ""}`, disabled: !ctx.enabled || s.expedite ? true : null, onclick: () => ctx.tap("expedite", {}), text: s.expedite ? words.expediteOn : words.expedite }),
  ].filter(Boolean));
}

export const PAD = { render, sideName: sideNames };
