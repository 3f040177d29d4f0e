// Quick entry's save (declarer, contract, tricks; or everyone passed; or misdeal), sent
// as ONE JSON command, online or not: POST /api/e/<key>/hands {"number", "facts",
// "token"} (docs/api.md; the common hand as "lone_bid", its auction made by the server),
// kept in the outbox until the answer (outbox-send.js). Saved, the page goes on as the
// form's post does: to the scoresheet, "Hand N saved · Undo". Refused by the rules, the
// message is shown here; another phone's hand of that number is shown on its page. With
// no network it waits on the scoresheet and goes by itself. The page comes with the hand
// number and dealer the server knew; after hands that wait here, both move on.
// When the phone cannot keep the hand (IndexedDB refuses) and it cannot be sent either,
// the form stays as typed and says so (issue 21, item 8): nothing waits that could be lost.
// Without JavaScript (or IndexedDB) the form posts as it always did.
// Offline, with the phone's engine running on the scoresheet (phone.js), quick entry is shown in
// the scoresheet's own page (quickEntry(form, {back})): a hand the engine refuses is refused at
// the tap (window.napEngine.check: the rule and the server's words, in the page's language) and
// is not kept; a hand that waits goes back to the scoresheet in place (back()), whose engine
// settles it at once.
import { dealerFor, entriesOrNone, forget, numberFor, queue, seatedOrder, waiting } from "./outbox-send.js";
import { NotKept, remember, token, usable } from "./outbox-store.js";
import { leftOf } from "./rules.js";
import { fill, labelOf, leaveNote, say, showError } from "./words.js";

// What the tapped save says: {facts, label}, {error} when something is missing, null
// when the button is not a save.
function read(form, button) {
  if (!button) return null;
  if (button.name === "misdeal") return { facts: { misdeal: true }, label: button.textContent.trim() };
  if (button.name === "all_pass") {
    return { facts: { lone_bid: { declarer: null, contract: null } }, label: button.textContent.trim() };
  }
  if (button.name !== "tricks") return null;
  const declarer = form.querySelector("input[name=declarer]:checked");
  const contract = form.querySelector("input[name=contract]:checked");
  const trumps = form.querySelector("input[name=trump]");
  const trump = form.querySelector("input[name=trump]:checked");
  if (!declarer) return { error: say("tap-declarer") };
  if (!contract) return { error: say("tap-contract") };
  if (trumps && !trump) return { error: say("tap-trump") };
  const lone = { declarer: labelOf(declarer), contract: contract.value };
  // a Wellington or Blücher names who bid the bids it overcalls (P-7, H-7): the server
  // lists them with the contract (data-needs, Variant.overcalled)
  (contract.getAttribute("data-needs") || "").split(" ").filter(Boolean).forEach((bid) => {
    const seat = form.querySelector("input[name=" + bid + "_by]:checked");
    if (seat) lone[bid] = labelOf(seat);
  });
  const facts = { lone_bid: lone, tricks: Number(button.value) };
  const label = [labelOf(declarer), labelOf(contract)];
  if (trump) { facts.trump = trump.value; label.push(labelOf(trump)); }
  label.push(button.value);
  return { facts, label: label.join(" · ") };
}

// the hand number and dealer after the hands that wait on this phone
function place(form, table) {
  entriesOrNone().then((entries) => {
    const number = numberFor(form, entries);
    if (number === Number(form.getAttribute("data-number"))) return;
    const title = document.querySelector("[data-hand-title]");
    if (title) title.textContent = fill(title.getAttribute("data-hand-title"), "n", String(number));
    const line = document.querySelector("[data-dealer-line]");
    if (!line) return;
    const players = JSON.parse(line.getAttribute("data-players") || "[]");
    const order = seatedOrder(line, players.length);
    const seat = dealerFor(table, Number(form.getAttribute("data-number")), Number(line.getAttribute("data-dealer")),
                           order, entries, number);
    if (seat === null) { line.hidden = true; return; }  // the server says who deals when it arrives
    const esc = (t) => String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    const bdi = (name) => "<bdi>" + esc(name) + "</bdi>";  // a name isolated, as the server's page has it
    line.innerHTML = fill(fill(esc(line.getAttribute("data-dealer-template")), "dealer", bdi(players[seat])),
                          "eldest", bdi(players[leftOf(order, seat, 1)]));
  }).catch(() => { /* shown as the server sent it */ });
}

// where the page goes once the command has an answer (or waits)
function after(form, entry, now, options) {
  if (!now) {  // sent and saved: as the form's post answers
    leaveNote(fill(say("saved"), "n", String(entry.number)), entry.hand);
    location.assign(form.getAttribute("data-sheet"));
  } else if (now.state === "refused" && now.taken) {  // another phone saved this hand first: its version
    leaveNote(fill(say("refused"), "message", now.message) + " (" + now.label + ")");
    location.assign(form.getAttribute("data-hand") + "/" + now.number);
  } else if (now.state === "refused" && now.status === 409) {  // the evening is finished, or was undone
    leaveNote(fill(say("refused"), "message", now.message) + " (" + now.label + ")");
    location.assign(form.getAttribute("data-sheet"));
  } else if (now.state === "refused") {  // the rules refuse it: fix it here
    return forget(now).then(() => {
      showError(form, fill(say("refused"), "message", now.message));
      return "again";
    });
  } else if (options.back) {  // no network, quick entry in the scoresheet's page: back to it
    options.back();
  } else {  // no network: it waits, and goes by itself
    location.assign(form.getAttribute("data-sheet"));
  }
  return undefined;
}

// the form posted as it always did (the outbox could not keep the command)
function post(form, button) {
  const keep = document.createElement("input");
  keep.type = "hidden";
  keep.name = button.name;
  keep.value = button.value;
  form.appendChild(keep);
  HTMLFormElement.prototype.submit.call(form);
}

// what the phone's engine says of the tapped hand at the tap (offline only: online, the server
// answers at once): the refusal, or null (no engine on this page, a slow one, or no refusal)
function refusalAtTap(facts) {
  if (navigator.onLine !== false || !window.napEngine) return Promise.resolve(null);
  return window.napEngine.check(facts).catch(() => null);
}

/** Quick entry on `form`; options.back: how to go back to the scoresheet when the hand waits
 * (quick entry shown in the scoresheet's page, phone.js), instead of loading it. */
export function quickEntry(form, options = {}) {
  if (!usable) return;
  const table = form.getAttribute("data-outbox");
  let busy = false;
  remember(table, Number(form.getAttribute("data-revision")), Number(form.getAttribute("data-number")));
  place(form, table);

  form.addEventListener("submit", (ev) => {
    if (busy) { ev.preventDefault(); return; }  // a double tap saves once
    const got = read(form, ev.submitter);
    if (!got) return;  // not a save: the form posts as always
    if (got.error) {
      if (navigator.onLine !== false && !waiting(table)) return;  // the server explains, as always (nothing is saved)
      ev.preventDefault();
      showError(form, got.error);
      return;
    }
    ev.preventDefault();
    busy = true;
    form.classList.add("busy");
    const entry = { table, api: form.getAttribute("data-api"), facts: got.facts, label: got.label, token: token() };
    const button = ev.submitter;
    refusalAtTap(got.facts).then((refused) => {
      if (refused) {  // the rules refuse it: said here, as the server would, and nothing is kept
        showError(form, fill(say("refused"), "message", refused.text || refused.message));
        return "again";
      }
      return entriesOrNone().then((entries) => {
        entry.number = numberFor(form, entries);
        return queue(entry);
      }).then((now) => after(form, entry, now, options));
    }).then((outcome) => {
      if (outcome === "again") { busy = false; form.classList.remove("busy"); }
    }).catch((why) => {
      if (!(why instanceof NotKept)) { post(form, button); return; }
      showError(form, say("not-kept"));  // kept nowhere: the form stays as typed, tap again
      busy = false;
      form.classList.remove("busy");
    });
  });
}

const form = usable ? document.querySelector("form[data-outbox]") : null;
if (form && !form.hasAttribute("data-in-place")) quickEntry(form);
