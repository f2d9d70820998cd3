// Table tennis on the umpire pad, point by point: a large button per side for the side that won the rally, the
// server and receiver as the hub's rules have them (the doubles order, the change of ends and of receiver in
// the deciding game), undo of the last point, a time-out and cards per side, and the expedite system started
// the moment it is tapped. Each button sends a device event; the score shown is the hub's.
import { el } from "./page.js";

const CARDS = ["yellow", "yellow_red", "red"];
const PLAYERS = ["A1", "A2", "B1", "B2"];

export const PAD_TEXTS = {
  tr: {
    undo: "Son sayıyı geri al", timeout: "Mola", expedite: "Hızlandırma başlat", expediteOn: "Hızlandırma uygulanıyor",
    card: "Kart", serving: "servis", receiving: "karşılar", pointTo: (name) => `${name} sayıyı aldı`,
cardFor: (name) => `${name} için kart`, close: "Kapat",
  },
  en: {
    undo: "Undo last point", timeout: "Time-out", expedite: "Start expedite", expediteOn: "Expedite in force",
    card: "Card", serving: "serves", receiving: "receives", pointTo: (name) => `Point to ${name}`,
cardFor: (name) => `Card for ${name}`, close: "Close",
  },
};

let cardSide = null;  // the side whose card choice is open

/** The names of side `side` (a pair in doubles). */
function sideNames(match, side) {
  const p = match.players || [];
  return (match.state || {}).doubles ? `${p[side * 2] || PLAYERS[side * 2]} / ${p[side * 2 + 1] || PLAYERS[side * 2 + 1]}` : p[side] || "AB"[side];
}

function playerName(match, mark) {
  const i = PLAYERS.indexOf(mark);
  return (match.players || [])[i] || mark;
}

function sideButton(match, side, ctx, words) {
  const s = match.state || {};
  const role = s.server === side ? words.serving : s.receiver === side ? words.receiving : "";
  const who = s.doubles && s.server_player && s.receiver_player
    ? playerName(match, s.server === side ? s.server_player : s.receiver_player) : "";
  return el("button", {
    type: "button", class: `rally side-${side}${s.server === side ? " serving" : ""}`, "data-side": String(side),
    disabled: ctx.enabled ? null : true,
    "aria-label": words.pointTo(sideNames(match, side)), onclick: () => ctx.tap("point", { side }),
  },
  el("span", "names", sideNames(match, side)),
  el("span", "points", String((s.points || [0, 0])[side])),
  el("span", "games", `${ctx.texts.games} ${(s.games || [0, 0])[side]}`),
  el("span", "role", [role, who].filter(Boolean).join(" · ")));
}

function sideTools(match, side, ctx, words) {
  const s = match.state || {};
  const used = (s.timeouts || [])[side];
  const cards = ((s.cards || [])[side] || []).map((c) => ctx.texts.cards[c] || c);
  const penalty = (s.penalty_points || [])[side];
  if (penalty) cards.push(ctx.texts.penalty(penalty));  // as the match page shows it beside the side
  return el("div", { class: "tools", "data-side": String(side) },
    el("span", "who", sideNames(match, side)),
    el("button", { type: "button", disabled: !ctx.enabled || used ? true : null, onclick: () => ctx.tap("timeout", { side }), text: used ? ctx.texts.timeoutUsed : words.timeout }),
    el("button", { type: "button", disabled: !ctx.enabled ? true : null, onclick: () => { cardSide = cardSide === side ? null : side; ctx.rerender(); }, text: words.card }),
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

/** Draw the scoring buttons into `root` for the hub's view of the match. */
function render(root, match, ctx) {
  const words = PAD_TEXTS[ctx.lang];
  const s = match.state || {};
  const swapped = s.ends === "swapped";
  const order = swapped ? [1, 0] : [0, 1];  // as the umpire sees the table: side 0 on the left at the start
  ctx = { ...ctx, rerender: () => render(root, match, ctx) };
  root.replaceChildren(...[
    el("p", "game", [ctx.texts.gameNo(s.game || 1), s.game_scores && s.game_scores.length ? s.game_scores.map((g) => g.join("-")).join("  ") : ""].filter(Boolean).join(" · ")),
    el("div", { class: "rallies" }, ...order.map((side) => sideButton(match, side, ctx, words))),
    el("button", { type: "button", class: "undo", disabled: !ctx.enabled ? true : null, onclick: () => ctx.tap("undo", {}), text: words.undo }),
    el("div", { class: "side-tools" }, ...order.map((side) => sideTools(match, side, ctx, words))),
    cardChoice(match, ctx, words),
    el("button", { type: "button", class: `expedite${s.expedite ? " on" : ""}`, disabled: !ctx.enabled || s.expedite ? true : null, onclick: () => ctx.tap("expedite", {}), text: s.expedite ? words.expediteOn : words.expedite }),
  ].filter(Boolean));
}

export const PAD = { render, sideName: sideNames };
