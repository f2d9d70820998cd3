// Chess on the umpire pad: the game's result entered at the board (1-0, ½-½, 0-1) and how it came about
// (resignation, agreement, a flag the clock did not report, the arbiter's decision). The hub reads it as it
// reads an arbiter's result; the players then sign it on the pad.
import { el } from "./page.js";

const RESULTS = ["1-0", "1/2-1/2", "0-1"];
const HOWS = ["resignation", "agreement", "flag", "arbiter"];

export const PAD_TEXTS = {
  tr: {
    white: "Beyaz", black: "Siyah", result: "Sonuç", how: "Nasıl bitti", record: "Sonucu kaydet",
    results: { "1-0": "1-0 Beyaz kazandı", "1/2-1/2": "½-½ Berabere", "0-1": "0-1 Siyah kazandı" },
    hows: { resignation: "Terk", agreement: "Anlaşma (beraberlik)", flag: "Süre (bayrak)", arbiter: "Hakem kararı" },
    pick: "Önce sonucu ve nasıl bittiğini seçin", ended: (r) => `Sonuç: ${r}`,
  },
  en: {
    white: "White", black: "Black", result: "Result", how: "How it ended", record: "Record the result",
    results: { "1-0": "1-0 White won", "1/2-1/2": "½-½ Draw", "0-1": "0-1 Black won" },
    hows: { resignation: "Resignation", agreement: "Agreement (draw)", flag: "Flag (time)", arbiter: "Arbiter's decision" },
    pick: "Choose the result and how it ended", ended: (r) => `Result: ${r}`,
  },
};

let entry = { result: null, how: null };

function name(match, side) { return (match.players || [])[side] || ["White", "Black"][side]; }

/** Draw the result entry into `root` for the hub's view of the game. */
function render(root, match, ctx) {
  const words = PAD_TEXTS[ctx.lang];
  const s = match.state || {};
  const redraw = () => render(root, match, ctx);
  const set = (change) => { entry = { ...entry, ...change }; if (entry.how === "agreement" && entry.result !== "1/2-1/2") entry.how = null; redraw(); };
  const off = ctx.enabled ? null : true;
  const ready = entry.result && entry.how;
  root.replaceChildren(...[
    el("p", { class: "pad-score" }, el("span", null, `${words.white}: ${name(match, 0)}`),
      el("span", null, `${words.black}: ${name(match, 1)}`)),
    s.result && s.result !== "*" ? el("p", "game", words.ended(s.result.replace("1/2", "½"))) : null,
    el("h2", "pad-label", words.result),
    el("div", { class: "choices results", role: "group" }, ...RESULTS.map((r) => el("button", {
      type: "button", class: `choice${entry.result === r ? " selected" : ""}`, "aria-pressed": entry.result === r ? "true" : "false",
      "data-result": r, disabled: off, onclick: () => set({ result: r }), text: words.results[r] }))),
    el("h2", "pad-label", words.how),
    el("div", { class: "choices", role: "group" }, ...HOWS.map((h) => el("button", {
      type: "button", class: `choice${entry.how === h ? " selected" : ""}`, "aria-pressed": entry.how === h ? "true" : "false",
      "data-how": h, disabled: off || (h === "agreement" && entry.result !== "1/2-1/2") ? true : null,
      onclick: () => set({ how: h }), text: words.hows[h] }))),
    el("button", { type: "button", class: "record", disabled: off || !ready ? true : null,
      onclick: () => { ctx.tap("result", { result: entry.result, how: entry.how }); entry = { result: null, how: null }; },
      text: ready ? `${words.record}: ${words.results[entry.result]}` : words.pick }),
  ].filter(Boolean));
}

export const PAD = { render, sideName: name };
