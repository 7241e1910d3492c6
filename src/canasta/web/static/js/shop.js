// The shop: the daily check-in and the cosmetics coins buy (card backs, table themes), each
// drawn in CSS (css/account.css); equipping one changes <body data-back / data-theme>. The coin
// history (the ledger: every change of the balance) is a view of its own.
import { t, language } from "./i18n.js";
import { api } from "./net.js";
import { dialog, button } from "./overlays.js";
import { errorMessage, applyCosmetics, refreshAccount, sessionEnded } from "./account.js";
import { h } from "./dom.js";

let data = null;
let note = null;

export async function openShop() {
  document.body.dataset.overlay = "shop";
  note = null;
  data = null;
  draw();
  await load();
}

async function load(again = true) {
  try { data = await api("GET", "/api/shop"); } catch (e) {
    // the session ended elsewhere: the shop of the guest the page becomes (account.js)
    if (e.code === "no_session" && again) { await sessionEnded(); return load(false); }
    note = { text: errorMessage(e), bad: true };
  }
  draw();
}

async function act(fn, okText) {
  try { const res = await fn(); note = okText ? { text: okText(res), bad: false } : null; }
  catch (e) {
    // an ended session is answered by account.js (a new guest, said in a toast), not here
    note = e.code === "no_session" ? null : { text: errorMessage(e), bad: true };
  }
  await load();
  await refreshAccount();
}

function preview(item) {
  if (item.kind === "back") return h("span", { class: "card back swatch", "data-back": item.name, "aria-hidden": "true" });
  return h("span", { class: "theme-swatch", "data-theme": item.name, "aria-hidden": "true" });
}

function draw() {
  if (document.body.dataset.overlay !== "shop") return;
  const body = dialog("shop", t("shop.title"));
  body.classList.add("shop-panel");
  if (note) body.append(h("p", { class: note.bad ? "warn" : "good", role: "status", id: "shop-note", text: note.text }));
  // no wallet to show: the reason it could not be read, else that it is on its way
  if (!data) { if (!note) body.append(h("p", { class: "muted", text: t("common.loading") })); return; }
  const w = data.wallet;
  body.append(h("p", { class: "muted", text: t("shop.rules") }));
  const coins = h("p", { class: "shop-coins" }, h("span", { "aria-hidden": "true", text: "◉ " }),
    h("strong", { id: "shop-coins", text: String(w.coins) }), ` ${t("shop.coins")}`);
  const check = button(w.checked_in ? t("shop.checked_in") : t("shop.checkin", { n: w.next_award }), () =>
    act(() => api("POST", "/api/shop/checkin", {}), (r) => t("shop.checkin_done", { n: r.award, streak: r.streak })), "primary");
  check.id = "btn-checkin";
  check.disabled = w.checked_in;
  body.append(h("div", { class: "shop-top" }, coins, check));
  if (w.streak) body.append(h("p", { class: "muted", text: t("shop.streak", { n: w.streak }) }));
  const history = button(t("shop.ledger"), () => openLedger(), "ghost small");
  history.id = "btn-ledger";
  body.append(h("div", { class: "dialog-buttons" }, history));
  for (const kind of ["back", "theme"]) {
    body.append(h("h3", { text: t(`shop.${kind}s`) }));
    const grid = h("ul", { class: "shop-items" });
    for (const item of data.items.filter((i) => i.kind === kind)) {
      const owned = w.owned.includes(item.id);
      const equipped = w.equipped[kind] === item.name;
      const label = t(`shop.items.${item.name}`);
      let control;
      if (equipped) control = h("span", { class: "equipped", text: t("shop.equipped") });
      else if (owned) control = button(t("shop.equip"), () => act(async () => {
        const r = await api("POST", "/api/shop/equip", { item: item.id });
        applyCosmetics(r.equipped);
        return r;
      }), "small");
      else {
        control = button(t("shop.buy", { n: item.price }), () => act(() => api("POST", "/api/shop/buy", { item: item.id }), () => t("shop.bought", { item: label })), "small primary");
        control.disabled = w.coins < item.price;
      }
      if (control.tagName === "BUTTON") control.setAttribute("aria-label", `${control.textContent}: ${label}`);
      grid.append(h("li", { class: "shop-item" + (equipped ? " is-equipped" : ""), "data-item": item.id },
        preview(item), h("span", { class: "shop-name", text: label }), control));
    }
    body.append(grid);
  }
}

// ---- the coin history ----------------------------------------------------------------------

/** A ledger row's reason in words: "checkin:3" (a check-in, day 3 of a streak), "buy:back:navy". */
export function reasonText(reason) {
  const [what, ...rest] = String(reason).split(":");
  if (what === "checkin") return t("shop.reason_checkin", { n: Number(rest[0]) || 1 });
  if (what === "buy" && rest.length === 2) {
    const label = t(`shop.items.${rest[1]}`);
    return t(rest[0] === "back" ? "shop.reason_buy_back" : "shop.reason_buy_theme", { item: label.startsWith("shop.") ? rest[1] : label });
  }
  return reason;
}

export async function openLedger() {
  document.body.dataset.overlay = "ledger";
  let body = dialog("ledger", t("shop.ledger"));
  body.append(h("p", { class: "muted", text: t("common.loading") }));
  let rows;
  try { rows = (await api("GET", "/api/shop/ledger")).ledger; }
  catch (e) { body.append(h("p", { class: "warn", text: errorMessage(e) })); return; }
  if (document.body.dataset.overlay !== "ledger") return;
  body = dialog("ledger", t("shop.ledger"));
  if (!rows.length) body.append(h("p", { class: "muted", id: "ledger-empty", text: t("shop.ledger_empty") }));
  else {
    const table = h("table", { class: "leaderboard ledger", id: "ledger" },
      h("caption", { class: "muted", text: t("shop.ledger_caption") }),
      h("thead", {}, h("tr", {}, ...["ledger_date", "ledger_change", "ledger_reason", "ledger_balance"].map(
        (k) => h("th", { scope: "col", text: t(`shop.${k}`) })))));
    const tb = h("tbody");
    const fmt = new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" });
    for (const r of rows) {
      const change = r.delta > 0 ? `+${r.delta}` : String(r.delta);
      tb.append(h("tr", { "data-reason": r.reason },
        h("td", {}, h("time", { datetime: r.at, text: fmt.format(new Date(r.at)) })),
        h("td", { class: r.delta > 0 ? "good ledger-change" : "ledger-change", text: change }),
        h("td", { text: reasonText(r.reason) }),
        h("td", { class: "ledger-balance", text: String(r.balance) })));
    }
    table.append(tb);
    body.append(table);
  }
  const back = button(t("common.back"), () => openShop(), "ghost small");
  back.id = "btn-ledger-back";
  body.append(h("div", { class: "dialog-buttons" }, back));
}
