// The outbox, on every page: no tap is ever lost. The forms' saves (quick-entry.js,
// fullform.js, undo.js) are kept as JSON commands in IndexedDB (outbox-store.js) and
// sent, in order, by the send loop (outbox-send.js), online at once and offline when the
// network is back; the scoresheet shows what waits (outbox-view.js). Without JavaScript
// (or IndexedDB) the forms post as they always did.
import { remember, usable } from "./outbox-store.js";
import { start as send } from "./outbox-send.js";
import { start as view } from "./outbox-view.js";

if (usable) {
  view();
  const sheet = document.querySelector("[data-outbox-list]");
  const totals = document.querySelector("[data-next-hand]");
  const live = document.querySelector("[data-live][data-revision]");
  if (sheet && totals && live) {  // what the server says now: the next hand's number
    remember(sheet.getAttribute("data-outbox-list"), Number(live.getAttribute("data-revision")),
             Number(totals.getAttribute("data-next-hand")));
  }
  send();
}
