// Backgammon on the umpire pad, game by game: who won the game, how (a single game, a gammon, a backgammon), the
// cube's value, and whether a resignation ended it. The match score, the Crawford game and the match's end are
// the hub's: the pad shows them as the rules made them. Each recorded game is one device event.
import { el } from "./page.js";

const CUBES = [1, 2, 4, 8, 16, 32, 64];
const HOW = [1, 2, 3];

export const PAD_TEXTS = {
  tr: {
    won: "Oyunu kazanan", how: "Nasıl", kinds: { 1: "Tek oyun", 2: "Mars", 3: "Katmerli mars" }, cube: "Küp",
    resigned: "Pes edilerek (teklif kabul edildi)", record: "Oyunu kaydet", matchTo: (n) => `${n} sayılık maç`,
    crawford: "Sıradaki oyun Crawford oyunu: küp kullanılmaz", game: (n) => `${n}. oyun`,
    points: (n) => `+${n}`, resignedShort: "pes", crawfordShort: "Crawford", pick: "Önce kazananı seçin",
    fix: "Yanlış girilen oyunu hakem düzeltir.",
  },
  en: {
    won: "Game won by", how: "How", kinds: { 1: "Single game", 2: "Gammon", 3: "Backgammon" }, cube: "Cube",
    resigned: "By resignation (offer accepted)", record: "Record the game", matchTo: (n) => `${n}-point match`,
    crawford: "The next game is the Crawford game: no cube", game: (n) => `Game ${n}`,
    points: (n) => `+${n}`, resignedShort: "resigned", crawfordShort: "Crawford", pick: "Choose the winner first",
    fix: "A game entered wrongly is corrected by a referee.",
  },
};

let entry = { winner: null, value: 1, cube: 1, resigned: false };  // the game being entered

function name(match, side) { return (match.players || [])[side] || "AB"[side]; }

function choice(label, selected, onclick, extra = {}) {
  return el("button", { type: "button", class: `choice${selected ? " selected" : ""}`, "aria-pressed": selected ? "true" : "false", onclick, text: label, ...extra });
}

/** Draw the game entry into `root` for the hub's view of the match. */
function render(root, match, ctx) {
  const words = PAD_TEXTS[ctx.lang];
  const s = match.state || {};
  const score = s.score ? [s.score.A ?? s.score[0] ?? 0, s.score.B ?? s.score[1] ?? 0] : [0, 0];
  const crawford = Boolean(s.crawford_next);
  if (crawford) entry.cube = 1;
  const redraw = () => render(root, match, ctx);
  const set = (change) => { entry = { ...entry, ...change }; redraw(); };
  const record = () => {
    ctx.tap("game", { winner: entry.winner, value: entry.value, cube: entry.cube, resigned: entry.resigned });
    entry = { winner: null, value: 1, cube: 1, resigned: false };
  };
  const off = ctx.enabled ? null : true;
  root.replaceChildren(...[
    el("p", { class: "pad-score" }, el("span", null, `${name(match, 0)} ${score[0]}`), el("span", null, "–"),
      el("span", null, `${score[1]} ${name(match, 1)}`)),
    el("p", "game", [s.length ? words.matchTo(s.length) : "", ctx.texts && s.winner == null ? words.game((s.games || []).length + 1) : ""].filter(Boolean).join(" · ")),
    crawford ? el("p", "hint crawford", words.crawford) : null,
    el("h2", "pad-label", words.won),
    el("div", { class: "rallies bg-winners" }, ...[0, 1].map((side) => el("button", {
      type: "button", class: `rally side-${side}${entry.winner === side ? " selected" : ""}`, "data-side": String(side),
      "aria-pressed": entry.winner === side ? "true" : "false", disabled: off, onclick: () => set({ winner: side }),
    }, el("span", "names", name(match, side)), el("span", "points", String(score[side]))))),
    el("h2", "pad-label", words.how),
    el("div", { class: "choices", role: "group" }, ...HOW.map((v) => choice(words.kinds[v], entry.value === v, () => set({ value: v }), { disabled: off, "data-value": String(v) }))),
    el("h2", "pad-label", words.cube),
    el("div", { class: "choices cubes", role: "group" }, ...CUBES.map((c) => choice(String(c), entry.cube === c, () => set({ cube: c }), { disabled: off || (crawford && c !== 1) ? true : null, "data-cube": String(c) }))),
    choice(words.resigned, entry.resigned, () => set({ resigned: !entry.resigned }), { disabled: off, class: `choice resign${entry.resigned ? " selected" : ""}` }),
    el("button", { type: "button", class: "record", disabled: off || entry.winner === null ? true : null, onclick: record,
      text: entry.winner === null ? words.pick : `${words.record}: ${name(match, entry.winner)} ${words.points(entry.value * entry.cube)}` }),
    gamesList(match, words),
    el("p", "muted", words.fix),
  ].filter(Boolean));
}

function gamesList(match, words) {
  const games = (match.state && match.state.games) || [];
  if (!games.length) return null;
  return el("ul", { class: "pad-games" }, ...games.map((g) => el("li", null,
    [words.game(g.number), name(match, g.winner === "A" || g.winner === 0 ? 0 : 1), words.points(g.points),
      g.resigned ? words.resignedShort : "", g.crawford ? words.crawfordShort : ""].filter(Boolean).join(" · "))));
}

export const PAD = { render, sideName: name };
