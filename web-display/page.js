// The helpers every page shares: finding and building elements, the id a page's path names, and the texts of
// the page's own language (the header's language button and each `data-i18n` element). Each page's module
// imports them from here; the pages load as plain ES modules, without a build step.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/**
 * A new element. Two forms:
 * - `el(tag, cls, text)`: a class name (none when empty) and a text (none when null);
 * - `el(tag, {attr: value, …}, ...children)`: attributes (`class`, `text`, `on…` handlers, `data-…`, `true`
 *   for a bare attribute; `null` and `false` leave one out) and children (`null` ones left out).
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  if (attrs == null || typeof attrs !== "object") {
    if (attrs) node.className = attrs;
    if (children[0] != null) node.textContent = children[0];
    return node;
  }
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key.startsWith("data-")) node.dataset[key.slice(5).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c != null));
  return node;
}

/** Whether this page is a hall screen (`?hall=1`, which the hub adds for a screen the venue lists in the playing
 * area): it shows no analysis, neither an engine's evaluation, winning chances nor performance ratings
 * (players may not use analysis during play). */
export function hallScreen(search = location.search) {
  return new URLSearchParams(search).get("hall") === "1";
}

/** A link to another of the hall's pages: on a hall screen it keeps the page one (`hall=1`, and its `screen=`). */
export function hallHref(path, search = location.search) {
  if (!hallScreen(search)) return path;
  const keep = new URLSearchParams({ hall: "1" });
  const screen = new URLSearchParams(search).get("screen");
  if (screen) keep.set("screen", screen);
  return `${path}${path.includes("?") ? "&" : "?"}${keep}`;
}

/** The page's own links back (the header's "All tables"), kept on a hall screen (`hallHref`). */
export function keepHallLinks(root = document) {
  for (const a of root.querySelectorAll("a.back")) a.href = hallHref(a.getAttribute("href"));
}

const ANALYSIS = ["evaluation", "chances", "performance"];  // what a match view may carry of analysis

/** A match view without the analysis a hall screen must not show. */
export function withoutAnalysis(match) {
  if (!match || ANALYSIS.every((key) => match[key] === undefined)) return match;
  const rest = { ...match };
  for (const key of ANALYSIS) delete rest[key];
  return rest;
}

/** The id in a path such as `/match/{id}` for `kind` "match", or null when the path is not one. */
export function pathId(kind, pathname = location.pathname) {
  const parts = pathname.split("/").filter(Boolean);
  return parts[0] === kind && parts[1] ? decodeURIComponent(parts[1]) : null;
}

/** Show the page in `lang`: the document's language, the button offering the other one, each `data-i18n` text. */
export function showLanguage(lang, texts) {
  document.documentElement.lang = lang;
  $("lang").textContent = lang === "tr" ? "EN" : "TR";
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = texts[node.dataset.i18n];
}
