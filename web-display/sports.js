// The sports the pages know, by the sport's id in the hub's data: the one place the pages list them. A sport with
// a screen of its own (a board game) draws it, and its wall tile, in its own module (web-display/<sport>.js, its
// `PAGES`); a sport without one is drawn by the pages' own score board (the match screen's board, the wall's
// score tile). The wall shows its groups in this order.
import { PAGES as backgammon } from "./backgammon.js";
import { PAGES as chess } from "./chess.js";
import { CONSOLE_TEXTS } from "./i18n.js";
import { PAD as tabletennisPad } from "./tabletennis-pad.js";

export const SPORTS = {
  tabletennis: {
    names: { tr: "Masa tenisi", en: "Table tennis" },
    /** The live score as the console lists it: games won. */
    consoleScore: (s) => (Array.isArray(s.games) ? `${s.games[0]}–${s.games[1]}` : ""),
    pad: tabletennisPad,  // the umpire pad's buttons (web-display/pad.js)
  },
  backgammon,
  chess,
};

export const SPORT_ORDER = Object.keys(SPORTS);

/** What the pages know of a sport (an empty description for one they do not know). */
export function sport(id) { return SPORTS[id] || {}; }

/** A sport's name in `lang` ("tr" or "en"), or its id when the pages do not know it. */
export function sportName(id, lang) { return (sport(id).names || {})[lang] || id; }

// Each sport's words for its own inputs on the referee console (`consoleTexts`) join the console's, its action
// names beside the shared ones.
for (const { consoleTexts } of Object.values(SPORTS)) {
  for (const [lang, words] of Object.entries(consoleTexts || {})) {
    const into = CONSOLE_TEXTS[lang];
    for (const [key, value] of Object.entries(words)) into[key] = key === "actions" ? { ...into.actions, ...value } : value;
  }
}
