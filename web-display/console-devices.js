// The referee console's device panel: each table's device (and its clock or wristbands), the link as the hub
// reads it (`status` on the `devices` topic: connected, silent, disconnected and retrying, never seen), when it
// last reported, and its battery where it reports one. A table whose live match has lost its device is marked;
// the queue has the item for it (`device.offline`). Tables the venue gives no device are listed as such.
import { sync } from "./console-dom.js";
import { el } from "./page.js";

const devices = new Map();  // "table/slot" -> the table's DeviceHealth, as the devices topic sends it

/** Take a `devices` topic message: the whole board, or one table's device that changed. */
export function onDevices(message) {
  const entries = message.snapshot ? message.data.tables : [message.data];
  if (message.snapshot) devices.clear();
  for (const h of entries) if (h && h.table) devices.set(`${h.table}/${h.slot || ""}`, h);
}

export function resetDevices() { devices.clear(); }

function byTable(a, b) { return a.localeCompare(b, undefined, { numeric: true }); }

/** One row per device, and one per table of the venue's matches that has none. */
function rows(refs) {
  const list = [...devices.values()];
  const withDevice = new Set(list.map((h) => h.table));
  const tables = new Set([...refs.values()].map((m) => m.table));
  for (const table of tables) if (!withDevice.has(table)) list.push({ table, slot: "", status: "none" });
  const live = new Set([...refs.values()].filter((m) => m.status === "live").map((m) => m.table));
  return list
    .map((h) => ({ ...h, live: live.has(h.table) }))
    .sort((a, b) => byTable(a.table, b.table) || (a.slot || "").localeCompare(b.slot || ""));
}

/** The panel, drawn again whenever something changed and every few seconds for the "… ago" times. `scoreFrom`
 * switches a table's scoring to its umpire's pad or back to its device. */
export function drawDevices({ $, t, ago, refs, lang, scoreFrom }) {
  const items = rows(refs);
  const texts = t().devices;
  $("devices-empty").hidden = items.length > 0;
  const away = items.filter((h) => h.live && (h.status === "silent" || h.status === "disconnected")).length;
  $("devices-count").textContent = away ? String(away) : "";
  sync($("devices-body"), items, (h) => `${h.table}/${h.slot || ""}`,
    (h) => JSON.stringify([lang, h.status, h.live, h.device_id, h.model, h.battery, h.link_detail, h.set_aside,
      h.last_seen ? ago(h.last_seen) : ""]),
    (h) => {
      const down = h.status === "silent" || h.status === "disconnected";
      const name = [h.device_id, h.model].filter(Boolean).join(" · ") || h.url || "";
      const battery = h.battery == null ? "" : `${h.battery}%`;
      return el("tr", { class: `dev dev-${h.status}${down && h.live ? " dev-alert" : ""}`,
        "data-table": h.table, "data-slot": h.slot || "", "data-status": h.status },
        el("td", { class: "d-table", text: h.table }),
        el("td", { class: "d-name", title: h.url || null },
          el("div", { text: h.status === "none" ? texts.none : name }),
          h.slot ? el("div", { class: "muted d-slot", text: texts.slots[h.slot.split("-")[0]] || h.slot }) : null),
        el("td", { class: "d-link" },
          el("span", { class: `d-status ${h.status}`, text: statusText(h, texts) }),
          down && h.live ? el("span", { class: "d-live", text: texts.liveMatch }) : null,
          down && h.link_detail ? el("div", { class: "muted d-detail", text: detail(h.link_detail, lang) }) : null,
          h.set_aside ? el("div", { class: "d-aside", text: texts.setAside }) : null,
          switchButton(h, texts, scoreFrom)),
        el("td", { class: "d-seen", text: h.last_seen ? ago(h.last_seen) : "—" }),
        el("td", { class: "d-battery", text: battery || "—", title: battery ? null : texts.noBattery,
          "data-label": texts.cols[4] }));  // the label shows on a phone, where the table has no header
    });
}

/** The link as a referee reads it; a pad that went quiet is closed or out of reach, nothing reconnects it. */
function statusText(h, texts) {
  if (h.slot === "pad" && h.status === "silent") return texts.padSilent;
  return texts.status[h.status] || h.status;
}

/** A table's own device (not a pad, a clock or a wristband) can hand its table to the umpire's pad, and take it back. */
function switchButton(h, texts, scoreFrom) {
  if (h.slot || h.status === "none" || !scoreFrom) return null;
  const by = h.set_aside ? "device" : "umpire";
  return el("button", { type: "button", class: "d-switch", "data-by": by, onclick: () => scoreFrom(h.table, by),
    text: h.set_aside ? texts.backToDevice : texts.toUmpire });
}

/** A link detail in the console's language: the sessions write "english / türkçe". */
function detail(text, lang) {
  const [english, turkish] = text.split(" / ");
  return lang === "tr" ? turkish || english : english;
}
