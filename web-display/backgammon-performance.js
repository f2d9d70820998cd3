// Backgammon performance ratings (GNU Backgammon's analysis, as the hub shows it behind the broadcast delay):
// each player's PR and band on the board screen, a one-line PR on the wall tile, and the link to a finished
// match's analysis report. A hall screen never gets them (page.js `withoutAnalysis`).
import { el } from "./page.js";

export const PERF_TEXTS = {
  tr: {
    title: "Performans (PR)", pr: "PR", checker: "Pul", cube: "Küp", errors: "Hata", blunders: "Büyük hata",
    luck: "Şans", asOf: (t) => `${t} itibarıyla`, report: "Maç çözümlemesi",
    by: (ply) => `GNU Backgammon ${ply}-ply çözümlemesi, yayın gecikmesiyle; PR: karar başına ortalama hata × 500 (düşük iyidir)`,
    bands: { "Grand Master": "Büyük Usta", Master: "Usta", Advanced: "İleri", Intermediate: "Orta", Beginner: "Başlangıç" },
  },
  en: {
    title: "Performance (PR)", pr: "PR", checker: "Checker", cube: "Cube", errors: "Errors", blunders: "Blunders",
    luck: "Luck", asOf: (t) => `as of ${t}`, report: "Match analysis",
    by: (ply) => `GNU Backgammon's ${ply}-ply analysis, behind the broadcast delay; PR: mean error per decision × 500 (lower is better)`,
    bands: {},
  },
};

const texts = (lang) => PERF_TEXTS[lang] || PERF_TEXTS.en;
export const bandName = (player, lang) => (player.band ? texts(lang).bands[player.band] || player.band : "—");
export const fixed = (x, digits = 1) => (x == null ? "—" : Number(x).toFixed(digits));

/** Each player's PR, band, checker and cube PR, errors, blunders and luck; null when the hub has none. */
export function performanceBox(performance, names, lang, matchId = null) {
  if (!performance || !performance.players) return null;
  const pt = texts(lang);
  const box = el("section", "bg-performance");
  box.title = pt.by(performance.ply ?? 0);
  const head = el("div", "bg-perf-head", pt.title);
  if (performance.at) {
    const at = new Date(performance.at * 1000).toLocaleTimeString(lang === "tr" ? "tr-TR" : "en-GB");
    head.append(el("span", "bg-perf-at", ` · ${pt.asOf(at)}`));
  }
  box.append(head);
  for (const side of [1, 0]) {  // B above A, as the players' boxes
    const p = performance.players[side];
    const row = el("div", "bg-perf-row");
    row.dataset.side = p.side;
    const name = el("span", "bg-perf-name", names[side]);
    const pr = el("span", "bg-perf-pr", fixed(p.pr));
    pr.title = pt.pr;
    const band = el("span", "bg-perf-band", bandName(p, lang));
    const detail = el("span", "bg-perf-detail",
      `${pt.checker} ${fixed(p.checker_pr)} · ${pt.cube} ${fixed(p.cube_pr)} · ${pt.errors} ${p.errors} · `
      + `${pt.blunders} ${p.blunders} · ${pt.luck} ${p.luck >= 0 ? "+" : ""}${fixed(p.luck, 2)}`);
    row.append(name, pr, band, detail);
    box.append(row);
  }
  if (matchId) {
    const link = el("a", "bg-perf-report", pt.report);
    link.href = `/match/${encodeURIComponent(matchId)}/analysis`;
    box.append(link);
  }
  return box;
}

/** The wall tile's line: "PR 6.1 · 8.3" (A, then B); null when the hub has none. */
export function performanceLine(performance, lang) {
  if (!performance || !performance.players) return null;
  const [a, b] = performance.players;
  const line = el("div", "bg-perf-line", `${texts(lang).pr} ${fixed(a.pr)} · ${fixed(b.pr)}`);
  line.title = texts(lang).by(performance.ply ?? 0);
  return line;
}
