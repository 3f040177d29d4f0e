// The outbox on the scoresheet: what waits to send, what is being sent, what was refused
// (with the server's message, the hand another phone saved beside it, and Dismiss); the
// "Record hand N" button and the next-dealer line follow the hands that wait. It draws
// what the send loop (outbox-send.js) reports with the "nap:outbox" event.
import { dealersAfter, leftOf } from "./rules.js";
import { refresh, seatedOrder } from "./outbox-send.js";
import { remove } from "./outbox-store.js";
import { fill, say } from "./words.js";

let last = { entries: [], sendingId: null, sent: [] };

function kindOf(entry) { return entry.kind || "hand"; }

function shownRevision() {
  const live = document.querySelector("[data-live][data-revision]");
  return live ? Number(live.getAttribute("data-revision")) : Infinity;
}

// "Hand 2 · محمد · Four · 4": the label isolated, left to right (<bdi dir=ltr>), so that the
// hand's number is not drawn after a right-to-left name ("Hand محمد · 2 · Four · 4")
function describe(what, e) {
  if (kindOf(e) !== "hand") { what.textContent = e.label; return; }
  const label = document.createElement("bdi");
  label.dir = "ltr";
  label.textContent = e.label;
  what.append(fill(say("hand"), "n", String(e.number)) + " · ", label);
}

// the hand another phone saved, as the server answered it: nothing typed here is lost beside it
function serverLine(e, sheetUrl) {
  if (!e.server) return null;
  const p = document.createElement("span");
  p.className = "outbox-server";
  const f = e.server.facts || {};
  const what = f.misdeal ? say("misdeal") : (f.auction || []).join(", ") + (f.tricks !== undefined ? " · " + f.tricks : "");
  p.appendChild(document.createTextNode(fill(say("server"), "version", String(e.server.version)) + " "));
  const a = document.createElement("a");
  a.href = sheetUrl + "/hand/" + e.server.number;
  a.textContent = fill(say("hand"), "n", String(e.server.number)) + ": " + (f.dealer || "") + " · " + what;
  p.appendChild(a);
  return p;
}

function row(e, state, sheetUrl) {
  const li = document.createElement("li");
  li.className = "outbox-entry " + state;
  li.setAttribute("data-number", String(e.number));
  li.setAttribute("data-kind", kindOf(e));
  const what = document.createElement("span");
  describe(what, e);
  const words = document.createElement("span");
  words.className = "outbox-state";
  words.textContent = state === "refused" ? fill(say("refused"), "message", e.message)
    : state === "sending" ? say("sending") : say("waiting-one");
  li.append(what, document.createTextNode(" — "), words);
  if (state !== "refused") return li;
  const server = serverLine(e, sheetUrl);
  if (server) li.appendChild(server);
  const dismiss = document.createElement("button");
  dismiss.type = "button";
  dismiss.className = "button";
  dismiss.textContent = say("dismiss");
  dismiss.addEventListener("click", () => { remove(e.id).then(refresh); });
  li.appendChild(dismiss);
  return li;
}

// "Hand N: X deals, Y is eldest hand" after the hands that wait (rules.dealersAfter);
// after an undo that waits, who deals is the server's to say
function dealerLine(waiting) {
  const line = document.querySelector("[data-dealer-template]");
  if (!line || !waiting.length) return;
  if (waiting.some((e) => e.kind === "undo")) { line.hidden = true; return; }
  const hands = waiting.filter((e) => kindOf(e) === "hand");
  if (!hands.length) return;
  const players = JSON.parse(line.getAttribute("data-players") || "[]");
  const order = seatedOrder(line, players.length);
  const misdeals = hands.map((e) => ({ misdeal: !!((e.body && e.body.facts) || e.facts || {}).misdeal }));
  const dealer = dealersAfter(order, Number(line.getAttribute("data-dealer")), misdeals).next;
  const next = hands[hands.length - 1].number + 1;
  const esc = (t) => String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const bdi = (name) => "<bdi>" + esc(name) + "</bdi>";  // a name isolated, as the server's page has it
  line.innerHTML = line.getAttribute("data-dealer-template").split("%(n)s").join(String(next))
    .split("%(dealer)s").join(bdi(players[dealer])).split("%(eldest)s").join(bdi(players[leftOf(order, dealer, 1)]));
}

// The outbox is the same element for the page's life: kept here, since a fresh page (live.js)
// replaces the part it is placed in
let boxEl = null;

// below the totals (the first screen is the score): after the totals' live part
function place(box) {
  const totals = document.querySelector('[data-live-part="totals"]');
  if (totals && totals.nextElementSibling !== box) totals.after(box);
}

// "%(num)s hands waiting" in the page's language: the form of the count's CLDR plural category
function plural(box, name, n) {
  const lang = document.documentElement.lang || undefined;
  let forms = {};
  try { forms = JSON.parse(box.getAttribute(name) || "{}"); } catch (e) { /* none: the count alone */ }
  let category = "other";
  try { category = new Intl.PluralRules(lang).select(n); } catch (e) { /* "other" */ }
  return fill(forms[category] || forms.other || "%(num)s", "num", new Intl.NumberFormat(lang).format(n));
}

// the folded line: "3 hands waiting to send", or "… · provisional" while phone.js shows
// provisional rulings (class "provisional" on the box); opened by itself when one is refused
function summarize(box, count, anyRefused) {
  box.querySelectorAll(".outbox-unruled").forEach((el) => { el.textContent = plural(box, "data-unruled", count); });
  box.querySelectorAll(".outbox-ruled").forEach((el) => { el.textContent = plural(box, "data-ruled", count); });
  const details = box.querySelector("details");
  if (details && anyRefused) details.open = true;
}

function show() {
  boxEl = boxEl || document.querySelector("[data-outbox-list]");
  const box = boxEl;
  if (!box) return;
  place(box);
  const table = box.getAttribute("data-outbox-list");
  const sheetUrl = box.getAttribute("data-sheet") || "";
  const mine = last.entries.filter((e) => e.table === table);
  const revision = shownRevision();
  // saved, but the page does not show it yet: still there, greyed, until the fresh page is in
  const pending = last.sent.filter((s) => s.revision > revision && s.entry.table === table);
  const list = box.querySelector("ol");
  list.textContent = "";
  pending.forEach((s) => list.appendChild(row(s.entry, "sending", sheetUrl)));
  mine.forEach((e) => list.appendChild(row(e, e.id === last.sendingId ? "sending" : e.state, sheetUrl)));
  box.hidden = list.children.length === 0;
  summarize(box, list.children.length, mine.some((e) => e.state === "refused"));
  const waiting = mine.filter((e) => e.state === "waiting");
  const hands = waiting.filter((e) => kindOf(e) === "hand");
  const record = document.getElementById("record-hand");
  if (record && record.getAttribute("data-label") && hands.length) {
    record.textContent = fill(record.getAttribute("data-label"), "n", String(hands[hands.length - 1].number + 1));
  }
  dealerLine(waiting);
}

/** Draw the outbox whenever the send loop reports, and again over a fresh page (live.js). */
export function start() {
  window.addEventListener("nap:outbox", (ev) => { last = ev.detail || last; show(); });
  window.addEventListener("nap:live", show);
}
