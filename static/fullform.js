// The full form and a correction (its claim included), sent as ONE JSON command, online
// or not, kept in the outbox until the answer (outbox-send.js):
//   a new hand    POST /api/e/<key>/hands                      {"number", "facts", "token"}
//   a correction  POST /api/e/<key>/hands/<hand_id>/versions   {"version", "facts", "token"}
// The facts are the form's fields read as the server reads them (rules.factsOf, players
// by name); a correction keeps what the form does not show (further claims, the record
// of play, an override: rules.withKept, from the page's data-kept). Saved, the page goes
// on as the form's post does (the scoresheet, or the corrected hand's page, with the same
// message); refused by the rules, the message is shown here; with no network it waits on
// the scoresheet. russian36's auction steps and a ruling on a dispute ("Rule on it") post
// the form: the server builds the auction, and closes the dispute it rules on.
// When the phone cannot keep the hand (IndexedDB refuses) and it cannot be sent either,
// the form stays as typed and says so (issue 21, item 8).
// Without JavaScript (or IndexedDB) the form posts as it always did.
// Offline, with the phone's engine running on the scoresheet (phone.js), the hand's page and its
// correction form are shown in the scoresheet's own page (fullForm(form, {back})): a correction
// (or a new hand) the engine refuses, settled after what waits, is refused at the tap
// (window.napEngine.check: the rule and the server's words, in the page's language) and is not
// kept; one that waits goes back to the scoresheet in place (back()), whose engine settles it.
import { dealerFor, entriesOrNone, forget, numberFor, queue, seatedOrder, waiting } from "./outbox-send.js";
import { NotKept, token, usable } from "./outbox-store.js";
import { factsOf, speakingOrder, withKept } from "./rules.js";
import { fieldsOf, fill, labelOf, leaveNote, say, showError } from "./words.js";

function offline(table) { return navigator.onLine === false || waiting(table) > 0; }

function checked(form, name) {
  const input = form.querySelector("input[name='" + name + "']:checked");
  return input ? input.value : null;
}

// the form posted as always, once the outbox could not keep the command
function post(form, button) {
  const keep = document.createElement("input");
  keep.type = "hidden";
  keep.name = button.name;
  keep.value = button.value;
  form.appendChild(keep);
  HTMLFormElement.prototype.submit.call(form);
}

// "Bob · Three · 3 · ⚑ Revoke": what was typed, for the outbox's list
function describe(form, facts, names) {
  if (facts.misdeal) return say("misdeal");
  const parts = [];
  if (form.hasAttribute("data-sequence")) {
    const said = form.querySelector("fieldset p.next strong");
    if (said) parts.push(said.textContent.trim());
  } else {
    let top = null;
    speakingOrder(names.indexOf(facts.dealer), names.length).forEach((seat) => {
      const input = form.querySelector("input[name='call_" + seat + "']:checked");
      const pill = input && input.closest("label");
      if (input && input.value !== "pass") top = names[seat] + " · " + (pill.getAttribute("data-name") || labelOf(input));
    });
    parts.push(top || say("all-passed"));
  }
  if (facts.tricks !== undefined) parts.push(String(facts.tricks));
  const kind = form.querySelector("input[name=claim_kind]:checked");
  if (facts.claims && kind) parts.push("⚑ " + labelOf(kind));
  return parts.join(" · ");
}

// a new hand: its number and dealer come after the hands waiting on this phone
function placeNewHand(form, names) {
  const table = form.getAttribute("data-full-form");
  entriesOrNone().then((entries) => {
    const number = numberFor(form, entries);
    const shown = Number(form.getAttribute("data-number"));
    if (number === shown) return;
    const seat = dealerFor(table, shown, Number(checked(form, "dealer")), seatedOrder(form, names.length), entries,
                           number);
    const title = form.parentNode.querySelector("h1");
    if (title) title.textContent = fill(say("hand"), "n", String(number));
    form.querySelectorAll("button[name=save]").forEach((b) => {  // "Save hand N"
      b.textContent = b.textContent.replace(String(shown), String(number));
    });
    const line = form.parentNode.querySelector("p.next");
    if (line) line.hidden = true;  // the speaking-order marks are the kept page's
    if (seat === null) return;
    const radio = form.querySelector("input[name=dealer][value='" + seat + "']");
    if (radio) radio.checked = true;
  }).catch(() => undefined);
}

function after(form, entry, now, options) {
  const sheet = form.getAttribute("data-sheet");
  const page = sheet + "/hand/" + entry.number;
  if (!now) {  // sent and saved: as the form's post answers
    if (entry.kind === "correct") {
      leaveNote(fill(say("corrected"), "n", String(entry.number)));
      location.assign(page);
    } else {
      leaveNote(fill(say("saved"), "n", String(entry.number)), entry.hand);
      location.assign(sheet);
    }
  } else if (now.state === "refused" && now.status === 422) {  // the rules refuse it: fix it here
    return forget(now).then(() => {
      showError(form, fill(say("refused"), "message", now.message));
      return "again";
    });
  } else if (now.state === "refused") {  // another phone changed it first: the server's version, and ours beside it
    leaveNote(fill(say("refused"), "message", now.message) + " (" + now.label + ")");
    location.assign(now.taken || entry.kind === "correct" ? sheet + "/hand/" + now.number : sheet);
  } else if (options.back) {  // no network, the form in the scoresheet's page: back to it
    options.back();
  } else {  // no network: it waits, and goes by itself
    location.assign(sheet);
  }
  return undefined;
}

// what the phone's engine says of the tapped hand or correction at the tap (offline only: online,
// the server answers at once): the refusal, or null (no engine on this page, a slow one, or none)
function refusalAtTap(entry) {
  if (navigator.onLine !== false || !window.napEngine) return Promise.resolve(null);
  return window.napEngine.check(entry.body.facts, entry.kind === "correct" ? entry.number : undefined)
    .catch(() => null);
}

// the command for this save: {kind, api, number, body, label, …}; null: the form posts
function commandOf(form, button, names, kept) {
  const table = form.getAttribute("data-full-form");
  const fields = fieldsOf(form, button);
  let facts = factsOf(fields, names, form.hasAttribute("data-sequence"));
  if (!facts) return null;  // the server explains
  const entry = { table, kind: "hand", api: form.getAttribute("data-api") + "/hands",
                  number: Number(fields.number) || Number(form.getAttribute("data-number")) };
  if (!kept) {
    entry.body = { facts, token: token() };
    entry.label = describe(form, facts, names);
    return entry;
  }
  const handId = Number(fields.hand_id);
  const version = Number(fields.version);
  if (!(handId > 0 && version > 0) || fields.dispute) return null;  // the server explains; or closes the dispute
  facts = withKept(facts, kept);
  entry.kind = "correct";
  entry.api = form.getAttribute("data-api") + "/hands/" + handId + "/versions";
  entry.hand_id = handId;
  entry.body = { version, facts, token: token() };
  entry.label = fill(say("correct"), "n", String(entry.number)) + " · " + describe(form, facts, names);
  return entry;
}

/** The full form on `form`; options.back: how to go back to the scoresheet when the hand waits
 * (the form shown in the scoresheet's page, phone.js), instead of loading it. */
export function fullForm(form, options = {}) {
  if (!usable) return;
  const table = form.getAttribute("data-full-form");
  const names = JSON.parse(form.getAttribute("data-players") || "[]");
  const editing = form.hasAttribute("data-editing");
  const kept = editing ? JSON.parse(form.getAttribute("data-kept") || "{}") : null;
  let busy = false;
  if (!editing) placeNewHand(form, names);

  form.addEventListener("submit", (ev) => {
    const button = ev.submitter;
    if (!button) return;
    if (button.name === "call" || button.name === "undo_call") {  // a step of the auction: the server's
      if (navigator.onLine !== false) return;
      ev.preventDefault();
      showError(form, say("needs-network"));
      return;
    }
    if (button.name !== "save" && button.name !== "misdeal") return;
    if (busy) { ev.preventDefault(); return; }  // a double tap saves once
    const entry = commandOf(form, button, names, kept);
    if (!entry) return;
    ev.preventDefault();
    busy = true;
    refusalAtTap(entry).then((refused) => {
      if (refused) {  // the rules refuse it: said here, as the server would, and nothing is kept
        showError(form, fill(say("refused"), "message", refused.text || refused.message));
        return "again";
      }
      return entriesOrNone().then((entries) => {
        const queued = offline(table);
        if (editing) {  // a correction of a correction that waits: based on what that one saves
          const before = entries.filter((e) => e.table === table && e.state === "waiting" && e.hand_id === entry.hand_id);
          if (before.length) entry.follows = before[before.length - 1].id;
        } else if (queued) {
          entry.number = numberFor(form, entries);
        }
        return queue(entry);
      }).then((now) => after(form, entry, now, options));
    }).then((outcome) => {
      if (outcome === "again") busy = false;
    }).catch((why) => {
      if (!(why instanceof NotKept)) { post(form, button); return; }
      showError(form, say("not-kept"));  // kept nowhere: the form stays as typed, tap again
      busy = false;
    });
  });
}

const full = usable ? document.querySelector("form[data-full-form]") : null;
if (full && !full.hasAttribute("data-in-place")) fullForm(full);
