// Report a problem: a category and a description; from a table, the server attaches that
// table's match record (the page only names the table). A report about a player names them:
// at an online table by their seat (the server reads whose account sits there: the table's
// accounts never reach the page), from a profile by that profile's account.
import { S } from "./store.js";
import { t, language, personName } from "./i18n.js";
import { api } from "./net.js";
import { dialog, button } from "./overlays.js";
import { field, errorMessage } from "./account.js";
import { h } from "./dom.js";

const CATEGORIES = ["bug", "rules", "player", "connection", "other"];

/** Open the report form; ``fromTable`` (default: whether a table is on screen) attaches it.
 * ``player`` ({id, name}: a profile's account) opens a report about that player. */
export function openReport({ fromTable, player = null } = {}) {
  const atTable = !player && (fromTable ?? true) && S.screen === "table";
  const tableId = atTable && S.tableId ? S.tableId : null;
  document.body.dataset.overlay = "report";
  draw({ tableId, player, others: tableId ? otherPlayers() : null }, null);
}

/** The people at this online table other than me, by seat: ``[{seat, name}]``; null at a
 * table that is not online. A seat whose player left is listed (they can be reported). */
function otherPlayers() {
  const tb = S.table;
  if (!tb || tb.mode !== "online" || !tb.online || !Array.isArray(tb.seats)) return null;
  const out = [];
  tb.seats.forEach((seat, i) => {
    if (i !== tb.seat && seat && seat.kind === "human") out.push({ seat: i, name: personName(seat.name) });
  });
  return out;
}

function draw(ctx, done) {
  const { tableId, player, others } = ctx;
  const body = dialog("report", t("report.title"));
  if (done) {
    body.append(h("p", { class: "good", role: "status", id: "report-done", text: done }));
    body.append(h("div", { class: "dialog-buttons" }, button(t("common.close"), () => document.querySelector("#overlay .close").click(), "primary")));
    return;
  }
  const select = h("select", { id: "report-category", name: "category" });
  for (const c of CATEGORIES) select.append(h("option", { value: c, text: t(`report.categories.${c}`) }));
  if (player) select.value = "player";
  const cat = h("label", { class: "field", for: "report-category" }, h("span", { class: "field-label", text: t("report.category") }), select);
  // who a report about a player is about: fixed (a profile), chosen (an online table), or
  // a hint where the page cannot name anyone
  let who = null;
  let seatSelect = null;
  if (player) {
    who = h("p", { class: "field report-about", id: "report-about" },
      h("span", { class: "field-label", text: t("report.player_fixed") }),
      h("strong", { id: "report-player-fixed", text: player.name }));
  } else if (others && others.length) {
    seatSelect = h("select", { id: "report-player", name: "player", required: true, "aria-describedby": "report-record-note" });
    seatSelect.append(h("option", { value: "", text: t("report.player_choose") }));
    for (const o of others) seatSelect.append(h("option", { value: String(o.seat), text: o.name }));
    who = h("div", { class: "report-who" },
      h("label", { class: "field", for: "report-player" }, h("span", { class: "field-label", text: t("report.player") }), seatSelect),
      h("p", { class: "muted report-note", id: "report-record-note", text: t("report.record_goes") }));
  } else {
    who = h("p", { class: "muted report-note", id: "report-no-player", text: t(others ? "report.no_other_player" : "report.player_hint") });
  }
  const text = h("textarea", { id: "report-text", name: "description", rows: 5, maxlength: 2000, required: true });
  const desc = h("label", { class: "field", for: "report-text" }, h("span", { class: "field-label", text: t("report.description") }), text);
  const f = h("form", { id: "form-report", class: "acc-form", novalidate: true }, cat, who, desc);
  let attach = null;
  if (tableId) {
    attach = field("report-attach", t("report.attach"), "checkbox", { checked: true });
    attach.wrap.classList.add("check");
    f.append(attach.wrap);
  }
  const aboutPlayer = () => select.value === "player";
  // a seat is named at its table: the record goes with the report, so no choice to leave it
  const show = () => {
    who.hidden = !aboutPlayer();
    if (attach) attach.wrap.hidden = aboutPlayer() && !!seatSelect;
  };
  select.addEventListener("change", show);
  show();
  const error = h("p", { class: "warn", role: "status", id: "report-error" });
  const submit = h("button", { type: "submit", class: "btn primary", text: t("report.send") });
  f.append(error, h("div", { class: "dialog-buttons" }, submit));
  if (seatSelect) seatSelect.addEventListener("change", () => {
    if (seatSelect.value === "" || !seatSelect.hasAttribute("aria-invalid")) return;
    seatSelect.removeAttribute("aria-invalid");
    error.textContent = "";
  });
  f.addEventListener("submit", async (e) => {
    e.preventDefault();
    const payload = { category: select.value, description: text.value, client: { lang: language(), screen: S.screen } };
    if (tableId && attach && attach.input.checked) payload.table = tableId;
    if (aboutPlayer() && player) payload.player = player.id;
    if (aboutPlayer() && seatSelect) {
      if (seatSelect.value === "") {
        error.textContent = t("report.player_required");
        seatSelect.setAttribute("aria-invalid", "true");
        seatSelect.focus();
        return;
      }
      payload.table = tableId;
      payload.seat = Number(seatSelect.value);
    }
    submit.disabled = true;
    try {
      const res = await api("POST", "/api/reports", payload);
      draw(ctx, t(res.attached ? "report.sent_with_record" : "report.sent", { id: res.report }));
    } catch (err) {
      error.textContent = errorMessage(err);
      submit.disabled = false;
    }
  });
  body.append(f);
}
