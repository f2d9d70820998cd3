// A match's analysis report (/match/ID/analysis), drawn by its sport (sports.js `analysis`). For spectators
// once the match is over; a referee signed in on this browser's console sees it live. A hall screen
// (`?hall=1`) shows none of it.
import { pickLanguage } from "./i18n.js";
import { $, hallScreen, keepHallLinks, pathId, showLanguage } from "./page.js";
import { sport } from "./sports.js";

const TEXTS = {
  tr: {
    title: "Maç çözümlemesi", backToMatch: "Maça dön", download: "JSON indir",
    notYet: "Çözümleme maç bitince gösterilir.", none: "Bu maçın çözümlemesi yok.",
    hall: "Oyun salonundaki ekranlarda çözümleme gösterilmez.", noMatch: "Maç bulunamadı", table: (t) => `Masa ${t}`,
  },
  en: {
    title: "Match analysis", backToMatch: "Back to the match", download: "Download JSON",
    notYet: "The analysis is shown once the match is over.", none: "This match has no analysis.",
    hall: "Screens in the playing hall show no analysis.", noMatch: "Match not found", table: (t) => `Table ${t}`,
  },
};

const MATCH = pathId("match");
let lang = pickLanguage(localStorage.getItem("boardcast.lang"), navigator.languages);
let loaded = null;  // { match, body } once the report is in
let problem = null;  // the message's key when there is nothing to show

function t() { return TEXTS[lang]; }

function draw() {
  showLanguage(lang, t());
  const message = $("message");
  const root = $("analysis");
  let drawn = false;
  if (!problem && loaded) {
    const render = sport(loaded.match.sport).analysis;
    drawn = Boolean(render && render(root, loaded.body, loaded.match, lang));
    if (!drawn) problem = "none";
    $("table").textContent = t().table(loaded.match.table);
  }
  message.hidden = drawn || !problem;
  message.textContent = problem ? t()[problem] : "";
  root.hidden = !drawn;
}

async function load() {
  $("back").setAttribute("href", `/match/${encodeURIComponent(MATCH)}`);
  keepHallLinks();
  if (hallScreen()) { problem = "hall"; draw(); return; }
  const matchAnswer = await fetch(`/api/matches/${encodeURIComponent(MATCH)}`);
  if (!matchAnswer.ok) { problem = "noMatch"; draw(); return; }
  const match = await matchAnswer.json();
  const token = sessionStorage.getItem("boardcast.referee");  // a referee signed in on the console sees it live
  const answer = await fetch(`/api/matches/${encodeURIComponent(MATCH)}/analysis`,
    { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (answer.status === 403 || answer.status === 401) problem = "notYet";
  else if (!answer.ok) problem = "none";
  else {
    const body = await answer.json();
    loaded = { match, body };
    const download = $("download");
    download.href = `/api/matches/${encodeURIComponent(MATCH)}/analysis?download=1`;
    download.hidden = !body.complete;  // a link carries no token: it works once the match is over
  }
  draw();
}

$("lang").addEventListener("click", () => {
  lang = lang === "tr" ? "en" : "tr";
  localStorage.setItem("boardcast.lang", lang);
  draw();
});
showLanguage(lang, t());
load();
