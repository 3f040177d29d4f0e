// Undo the last hand (the confirmation page), sent as ONE JSON command, online or not:
// POST /api/e/<key>/undo {"hand_id", "version"}, kept in the outbox until the answer
// (outbox-send.js); then the scoresheet, with the form's message. With the last hand one
// that still waits on this phone, undo takes it out of the outbox (it was never sent).
// The one-tap Undo under "Hand N saved" (note.js, data-undo-now) is sent the same way.
// When the phone cannot keep the undo and it cannot be sent either, the page stays and
// says so (issue 21, item 8). Without JavaScript (or IndexedDB) the form posts as it always did.
import { entriesOrNone, queue } from "./outbox-send.js";
import { NotKept, all, remove, usable } from "./outbox-store.js";
import { fill, leaveNote, say, showError } from "./words.js";

function text(form, name) {
  const input = form.querySelector("input[name='" + name + "']");
  return input ? input.value.trim() : "";
}

function undoForm(form) {
  const table = form.getAttribute("data-undo-form");
  const sheet = form.getAttribute("data-sheet");
  const button = form.querySelector("button[type=submit]");
  let takeBack = null;
  let busy = false;
  (form.hasAttribute("data-undo-now") ? Promise.resolve([]) : all()).then((entries) => {
    const hands = entries.filter((e) => e.table === table && e.state === "waiting" && (e.kind || "hand") === "hand");
    if (!hands.length) return;
    takeBack = hands[hands.length - 1];  // the last hand is one that waits here: it is taken back
    const title = document.querySelector("[data-undo-title]");
    if (title) title.textContent = fill(title.getAttribute("data-undo-title"), "n", String(takeBack.number));
    const what = document.querySelector("[data-undo-what]");
    if (what) what.textContent = takeBack.label;
    const units = document.querySelector("[data-undo-units]");
    if (units) units.hidden = true;
    if (button) button.textContent = fill(say("undo"), "n", String(takeBack.number));
  }).catch(() => undefined);

  form.addEventListener("submit", (ev) => {
    if (busy) { ev.preventDefault(); return; }
    if (takeBack) {
      ev.preventDefault();
      const gone = takeBack;
      takeBack = null;
      remove(gone.id).then(() => {
        leaveNote(fill(say("taken-back"), "n", String(gone.number)));
        location.assign(sheet);
      }).catch(() => undefined);
      return;
    }
    const number = Number(text(form, "number"));
    const handId = Number(text(form, "hand_id"));
    const version = Number(text(form, "version"));
    if (!(number > 0 && handId > 0 && version > 0)) return;  // the server explains
    ev.preventDefault();
    busy = true;
    if (button) button.disabled = true;
    const entry = { table, kind: "undo", api: form.getAttribute("data-api"), number, hand_id: handId,
                    body: { hand_id: handId, version }, label: fill(say("undo"), "n", String(number)) };
    entriesOrNone().then((entries) => {
      const before = entries.filter((e) => e.table === table && e.state === "waiting" && e.hand_id === handId);
      if (before.length) entry.follows = before[before.length - 1].id;  // undo what its correction saved
      return queue(entry);
    }).then((now) => {
      if (!now) leaveNote(fill(say("undone"), "n", String(number)));
      else if (now.state === "refused") leaveNote(fill(say("refused"), "message", now.message) + " (" + now.label + ")");
      location.assign(sheet);
    }).catch((why) => {
      if (!(why instanceof NotKept)) { HTMLFormElement.prototype.submit.call(form); return; }
      showError(form, say("undo-not-kept"));  // kept nowhere: tap again once the network is back
      busy = false;
      if (button) button.disabled = false;
    });
  });
}

const form = usable ? document.querySelector("form[data-undo-form]") : null;  // the undo page, or the one-tap Undo
if (form) undoForm(form);
