// The shop: the daily check-in and the cosmetics coins buy (card backs, table themes), each
// drawn in CSS (css/account.css); equipping one changes <body data-back / data-theme>.
import { t } from "./i18n.js";
import { api } from "./net.js";
import { dialog, button } from "./overlays.js";
import { errorMessage, applyCosmetics, refreshAccount } from "./account.js";
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

async function load() {
  try { data = await api("GET", "/api/shop"); } catch (e) { note = { text: errorMessage(e), bad: true }; }
  draw();
}

async function act(fn, okText) {
  try { const res = await fn(); note = okText ? { text: okText(res), bad: false } : null; }
  catch (e) { note = { text: errorMessage(e), bad: true }; }
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
  if (!data) { body.append(h("p", { class: "muted", text: t("common.loading") })); return; }
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
