// Report a problem: a category and a description; from a table, the server attaches that
// table's match record (the page only names the table).
import { S } from "./store.js";
import { t, language } from "./i18n.js";
import { api } from "./net.js";
import { dialog, button } from "./overlays.js";
import { field, errorMessage } from "./account.js";
import { h } from "./dom.js";

const CATEGORIES = ["bug", "rules", "player", "connection", "other"];

/** Open the report form; ``fromTable`` (default: whether a table is on screen) attaches it. */
export function openReport({ fromTable } = {}) {
  const atTable = (fromTable ?? true) && S.screen === "table";
  const tableId = atTable && S.tableId ? S.tableId : null;
  document.body.dataset.overlay = "report";
  draw(tableId, null);
}

function draw(tableId, done) {
  const body = dialog("report", t("report.title"));
  if (done) {
    body.append(h("p", { class: "good", role: "status", id: "report-done", text: done }));
    body.append(h("div", { class: "dialog-buttons" }, button(t("common.close"), () => document.querySelector("#overlay .close").click(), "primary")));
    return;
  }
  const select = h("select", { id: "report-category", name: "category" });
  for (const c of CATEGORIES) select.append(h("option", { value: c, text: t(`report.categories.${c}`) }));
  const cat = h("label", { class: "field", for: "report-category" }, h("span", { class: "field-label", text: t("report.category") }), select);
  const text = h("textarea", { id: "report-text", name: "description", rows: 5, maxlength: 2000, required: true });
  const desc = h("label", { class: "field", for: "report-text" }, h("span", { class: "field-label", text: t("report.description") }), text);
  const f = h("form", { id: "form-report", class: "acc-form", novalidate: true }, cat, desc);
  let attach = null;
  if (tableId) {
    attach = field("report-attach", t("report.attach"), "checkbox", { checked: true });
    attach.wrap.classList.add("check");
    f.append(attach.wrap);
  }
  const error = h("p", { class: "warn", role: "status", id: "report-error" });
  const submit = h("button", { type: "submit", class: "btn primary", text: t("report.send") });
  f.append(error, h("div", { class: "dialog-buttons" }, submit));
  f.addEventListener("submit", async (e) => {
    e.preventDefault();
    const payload = { category: select.value, description: text.value, client: { lang: language(), screen: S.screen } };
    if (tableId && attach && attach.input.checked) payload.table = tableId;
    submit.disabled = true;
    try {
      const res = await api("POST", "/api/reports", payload);
      draw(tableId, t(res.attached ? "report.sent_with_record" : "report.sent", { id: res.report }));
    } catch (err) {
      error.textContent = errorMessage(err);
      submit.disabled = false;
    }
  });
  body.append(f);
}
