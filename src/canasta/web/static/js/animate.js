// Brief animations of other seats' moves: a card flies between the stock, the pile and a seat,
// and new or grown melds flash. Purely visual; the table is already redrawn.
import { cardEl, backEl } from "./cards.js";

function rectOf(el) { return el ? el.getBoundingClientRect() : null; }

function fly(node, from, to, duration, delay = 0) {
  if (!from || !to) return;
  node.classList.add("flying");
  node.style.left = `${from.left + from.width / 2}px`;
  node.style.top = `${from.top + from.height / 2}px`;
  document.body.append(node);
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  const anim = node.animate(
    [{ transform: "translate(-50%, -50%) scale(1)", opacity: 1 },
      { transform: `translate(calc(-50% + ${dx}px), calc(-50% + ${dy}px)) scale(0.8)`, opacity: 0.9 }],
    { duration, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "forwards" });
  anim.onfinish = () => node.remove();
  setTimeout(() => node.remove(), duration + delay + 300);
}

export function animateEvent(entry, before, after, duration) {
  if (!duration || window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const seatEl = document.querySelector(`.seat[data-seat="${entry.seat}"]`) || document.querySelector("#hand");
  const stock = document.querySelector("#stock");
  const pile = document.querySelector("#pile");
  const type = entry.action.type;
  if (type === "draw") {
    const n = Math.max(1, entry.drawn || 1);
    for (let i = 0; i < Math.min(n, 3); i++) fly(backEl(), rectOf(stock), rectOf(seatEl), duration, i * 80);
  } else if (type === "take") {
    const top = before && before.pile && before.pile.top;
    fly(top ? cardEl(top) : backEl(), rectOf(pile), rectOf(seatEl), duration);
  } else if (type === "discard" || (type === "meld" && entry.action.discard)) {
    const card = entry.action.card || entry.action.discard;
    if (card) fly(cardEl(card), rectOf(seatEl), rectOf(pile), duration);
  }
  if (type === "meld" || type === "take") {
    const side = after.sides[entry.seat];
    const ranks = new Set((entry.action.groups || []).map((g) => g.rank));
    for (const el of document.querySelectorAll(`.melds[data-side="${side}"] .meld`)) {
      if (ranks.has(el.dataset.rank)) {
        el.animate([{ transform: "scale(1.25)", boxShadow: "0 0 0 4px #ffe27a" }, { transform: "scale(1)", boxShadow: "0 0 0 0 transparent" }],
          { duration: duration * 1.6, easing: "ease-out" });
      }
    }
  }
}
