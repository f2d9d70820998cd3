// A chess game's referee view: on the game's page, a referee signed in on the console in this tab (the token the
// console keeps for the session) gets a button for a result the board cannot see (resignation, agreement,
// forfeit, an arbiter's decision). It sends `POST /api/matches/{id}/actions`, which the hub checks again and
// refuses with its reason; spectators, who hold no token, never see the button.
import { CHESS_CONSOLE_TEXTS } from "./chess-texts.js";
import { CONSOLE_TEXTS } from "./i18n.js";
import { el } from "./page.js";

const TOKEN_KEY = "boardcast.referee";  // the console's key
const RESULTS = ["1-0", "0-1", "1/2-1/2"];
const HOWS = ["resignation", "agreement", "forfeit", "arbiter"];
const OPEN = ["scheduled", "live", "finished"];

let shown = null;  // { match, lang }

/** Show or hide the referee's result button for `match` (a public_view) in `bar`. */
export function renderRefereeResult(bar, match, lang) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  let button = document.getElementById("game-result-button");
  const wanted = Boolean(token) && match && match.sport === "chess" && OPEN.includes(match.status);
  if (!wanted) { if (button) button.hidden = true; return; }
  shown = { match, lang };
  if (!button) {
    button = el("button", { id: "game-result-button", type: "button", class: "game-result-button" });
    button.addEventListener("click", () => openDialog());
    bar.prepend(button);
  }
  button.textContent = CHESS_CONSOLE_TEXTS[lang].actions.result;
  button.hidden = false;
}

function openDialog() {
  const { match, lang } = shown;
  const t = { ...CONSOLE_TEXTS[lang], ...CHESS_CONSOLE_TEXTS[lang] };
  const names = match.players || ["", ""];
  const label = { "1-0": `1–0 (${names[0]})`, "0-1": `0–1 (${names[1]})`, "1/2-1/2": "½–½" };
  const error = el("p", { class: "game-result-error", role: "alert", hidden: true });
  const form = el("form", { method: "dialog" },
    el("h2", { text: `${t.actions.result}: ${match.id}` }),
    el("label", {}, el("span", { text: t.result }),
      el("select", { name: "result" }, ...RESULTS.map((r) => el("option", { value: r, text: label[r] })))),
    el("label", {}, el("span", { text: t.how }),
      el("select", { name: "how" }, ...HOWS.map((h) => el("option", { value: h, text: t.hows[h] })))),
    el("label", {}, el("span", { text: t.reason }), el("textarea", { name: "reason" })),
    error,
    el("div", { class: "game-result-buttons" },
      el("button", { type: "button", value: "cancel", "data-action": "cancel", text: t.cancel }),
      el("button", { type: "submit", "data-action": "submit", text: t.submit })));
  const dialog = el("dialog", { id: "game-result-dialog", class: "game-result-dialog" }, form);
  form.querySelector("[data-action=cancel]").addEventListener("click", () => dialog.close());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const request = { action: "result", result: String(data.get("result")), how: String(data.get("how")) };
    const reason = String(data.get("reason") || "").trim();
    if (reason) request.reason = reason;
    const problem = await send(match.id, request);
    if (problem) { error.textContent = problem; error.hidden = false; return; }
    dialog.close();
  });
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

async function send(matchId, request) {
  try {
    const answer = await fetch(`/api/matches/${encodeURIComponent(matchId)}/actions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY)}`, "Content-Type": "application/json" },
      body: JSON.stringify(request),
    });
    if (answer.ok) return null;
    const body = await answer.json().catch(() => ({}));
    return body.error || String(answer.status);
  } catch (error) {
    return String(error);
  }
}
