// The send loop: each command kept in the outbox (outbox-store.js) is sent as its JSON
// command (docs/api.md), oldest first, one at a time, and forgotten only once the server
// has answered: saved (200/201) it goes; refused (409, 422, …) it stays with the server's
// message ("not saved: …") until dismissed, so nothing typed is dropped; with no network
// (or a 5xx) it waits and is sent again by itself (the online event, a retry timer with
// backoff, the next page). The same token on a resend saves nothing twice. When the
// phone cannot keep a command (IndexedDB refuses: outbox-store.NotKept), it is sent once
// directly instead, and if that fails too the page is told so (queue), never that it waits.
//   a new hand    POST /api/e/<key>/hands                      {"number", "facts", "token", "played_at"}
//   a correction  POST /api/e/<key>/hands/<hand_id>/versions   {"version", "facts", "token"}
//   undo          POST /api/e/<key>/undo                       {"hand_id", "version"}
// What it does is told with events: "nap:outbox" (the entries, what is being sent, what
// was saved meanwhile: netstate.js and outbox-view.js show it), "nap:net" (the network
// answered or not), "nap:changed" (something was saved: live.js fetches the fresh page).
import { NotKept, add, all, get, known, put, remember, remove } from "./outbox-store.js";
import { dealersAfter } from "./rules.js";

let sendingId = null;
let failures = 0;
let timer = null;
let chain = Promise.resolve();
let waitingBy = {};  // table → commands waiting to send (as last read)
const sent = [];  // saved while this page is open: still shown until the fresh page is in

function kindOf(entry) { return entry.kind || "hand"; }

function notify(entries) {
  waitingBy = {};
  entries.forEach((e) => { if (e.state === "waiting") waitingBy[e.table] = (waitingBy[e.table] || 0) + 1; });
  const waiting = entries.filter((e) => e.state === "waiting").length;
  window.dispatchEvent(new CustomEvent("nap:outbox", {
    detail: { waiting, sending: sendingId !== null, refused: entries.length - waiting, entries, sendingId, sent },
  }));
}

/** Read the outbox again and tell the page. */
export function refresh() { return all().then(notify); }
function net(up) { window.dispatchEvent(new CustomEvent("nap:net", { detail: { up } })); }

/** The commands of `table` waiting to send, as last read. */
export function waiting(table) { return waitingBy[table] || 0; }

function retryLater() {
  failures += 1;
  clearTimeout(timer);
  timer = setTimeout(drain, Math.min(30000, 1000 * Math.pow(2, failures - 1)));
}

// the JSON body: a new hand is sent under the number it was given; other commands as kept
function bodyOf(entry) {
  if (kindOf(entry) !== "hand") return entry.body;
  const body = entry.body || { facts: entry.facts, token: entry.token };
  const sent = { number: entry.number, facts: body.facts, token: body.token };
  // when it was played here: the server shows it beside when it arrived, if it waited
  if (entry.at) sent.played_at = new Date(entry.at).toISOString();
  return sent;
}

function send(entry) {
  return fetch(entry.api, {
    method: "POST", credentials: "same-origin", cache: "no-store",
    headers: { "Content-Type": "application/json", "Accept": "application/json" },
    body: JSON.stringify(bodyOf(entry)),
  });
}

// the hand a correction or undo names, as the server has it now (null: no longer in play)
function serverHand(entry, state) {
  const id = entry.body && entry.body.hand_id !== undefined ? entry.body.hand_id : entry.hand_id;
  return (state.hands || []).filter((h) => h.id === id)[0] || null;
}

// saved: forget it, but keep it on the sheet until the page shows that revision; a
// correction or undo queued after this one of the same hand is now based on the new version
function saved(entry, data) {
  sent.push({ entry, revision: Number(data.revision) || 0, hand: data.hand || null });
  let follow = Promise.resolve();
  if (entry.kind === "correct" && data.hand) {
    follow = all().then((entries) => Promise.all(entries
      .filter((e) => e.follows === entry.id && e.state === "waiting")
      .map((e) => { e.body.version = data.hand.version; return put(e); })));
  }
  return follow.then(() => remove(entry.id)).then(() => "saved");
}

// what the server's refusal says of `entry`, set on it (state "refused", status, message;
// the hand another phone saved: taken, server); "done" for an undo of a hand already out
// of play (its answer was lost, or another phone undid it)
function readRefusal(entry, r, data) {
  if (data.state) {
    remember(entry.table, data.state.revision, data.state.hands.length + 1);
    if (kindOf(entry) === "hand") {  // another phone saved this number first: show its hand
      const same = data.state.hands.filter((h) => h.number === entry.number)[0];
      entry.taken = !!same;
      entry.server = same ? { version: same.version, number: same.number, facts: same.facts } : null;
    } else {
      const now = serverHand(entry, data.state);
      if (entry.kind === "undo" && r.status === 409 && !now) return "done";
      entry.server = now ? { version: now.version, number: now.number, facts: now.facts } : null;
    }
  }
  entry.state = "refused";
  entry.status = r.status;
  entry.message = (data.error && data.error.message) || ("HTTP " + r.status);
  return "refused";
}

function refused(entry, r, data) {
  if (readRefusal(entry, r, data) === "done") return saved(entry, data.state);
  return put(entry).then(() => "refused");
}

// One entry: "saved", "refused" (kept with the server's message) or "wait" (no network).
function deliver(entry) {
  sendingId = entry.id;
  return refresh().then(() => send(entry)).then((r) => r.json().catch(() => ({})).then((data) => {
    if (r.status === 200 || r.status === 201) {
      if (data.hand && kindOf(entry) === "hand") remember(entry.table, data.revision, data.hand.number + 1);
      return saved(entry, data);
    }
    if (r.status >= 500 || r.status === 408 || r.status === 429) return "wait";
    return refused(entry, r, data);
  }), () => "wait");
}

function drainNow() {
  return all().then((entries) => {
    const queue = entries.filter((e) => e.state === "waiting");
    function next(i) {
      if (i >= queue.length) { failures = 0; return "done"; }
      // read again: the one before may have rebased it (a correction's version), or it was taken back
      return get(queue[i].id).then((entry) => (entry && entry.state === "waiting" ? deliver(entry) : "gone"))
        .then((outcome) => {
          if (outcome === "wait") { net(false); retryLater(); return "wait"; }
          net(true);
          return next(i + 1);
        });
    }
    return next(0);
  }).catch(() => { retryLater(); return "wait"; }).then((outcome) => {
    sendingId = null;
    // what was sent is on the next page the live part fetches: fetch it now, once per drain
    if (sent.length) window.dispatchEvent(new CustomEvent("nap:changed"));
    return refresh().catch(() => undefined).then(() => outcome);  // unreadable (NotKept): nothing to show
  });
}

/** Send what waits; one drain at a time, in order (a drain asked for while one runs follows it). */
export function drain() {
  clearTimeout(timer);
  chain = chain.then(drainNow, drainNow);
  return chain;
}

/** Keep `entry` (state "waiting"), send what waits, and answer the entry as it is now:
 * undefined when sent and saved (then `entry.hand` is the hand the server answered:
 * {id, number, version}), else the entry with its state ("waiting", "refused").
 * When this phone cannot keep it (outbox-store.NotKept) it is sent once, directly
 * (sendUnkept): the answer is the same, but a refused entry is not kept (no `id`); with
 * no network or no answer the promise rejects with that NotKept, and nothing waits: the
 * page must keep what was typed and say so (issue 21, item 8). */
export function queue(entry) {
  entry.state = "waiting";
  entry.at = Date.now();
  return add(entry).then((id) => {
    entry.id = id;
    return drain().then(all).then((entries) => {
      const now = entries.filter((e) => e.id === id)[0];
      const done = sent.filter((s) => s.entry.id === id)[0];
      if (!now && done) entry.hand = done.hand;
      return now;
    });
  }, (why) => {
    if (!(why instanceof NotKept)) throw why;
    return sendUnkept(entry, why);
  });
}

/** Send `entry`, which this phone could not keep (`why`: the NotKept), once: undefined
 * when saved (`entry.hand` as the server answered it), the entry when refused (state
 * "refused", status, message, as the send loop reads a refusal; nothing is stored);
 * rejects with `why` when the network or the server did not answer (no response, 5xx,
 * 408, 429): then nothing was saved anywhere. */
export function sendUnkept(entry, why) {
  return send(entry).then((r) => r.json().catch(() => ({})).then((data) => {
    if (r.status >= 500 || r.status === 408 || r.status === 429) { net(r.status < 500); throw why; }
    net(true);
    if (r.status === 200 || r.status === 201) {
      if (data.hand && kindOf(entry) === "hand") remember(entry.table, data.revision, data.hand.number + 1);
      entry.hand = data.hand || null;
      window.dispatchEvent(new CustomEvent("nap:changed"));
      return undefined;
    }
    if (readRefusal(entry, r, data) === "done") return undefined;
    return entry;
  }), (e) => {
    if (e === why) throw e;
    net(false);
    throw why;
  });
}

/** Forget `entry` refused by the rules (to be fixed on the form): from the outbox when it
 * was kept there; nothing to do when it was sent unkept (no `id`). */
export function forget(entry) {
  return entry.id === undefined ? Promise.resolve() : remove(entry.id);
}

/** Every entry of the outbox, oldest first; none when this phone cannot keep any
 * (outbox-store.NotKept: the numbers then come from the page). */
export function entriesOrNone() {
  return all().catch((why) => {
    if (why instanceof NotKept) return [];
    throw why;
  });
}

/** The number of the hand being entered on `form` (data-number, data-revision of the
 * page): the newest the server said, after the hands that wait on this phone. */
export function numberFor(form, entries) {
  const table = form.getAttribute("data-outbox") || form.getAttribute("data-full-form");
  const mine = { revision: Number(form.getAttribute("data-revision")), next: Number(form.getAttribute("data-number")) };
  const k = known(table);
  let next = k && k.revision > mine.revision ? k.next : mine.next;
  entries.forEach((e) => {
    if (e.table !== table || e.state !== "waiting") return;
    if (kindOf(e) === "hand" && e.number >= next) next = e.number + 1;
    if (e.kind === "undo" && e.number < next) next = e.number;  // its place is free again
  });
  return next;
}

/** Start: send what waits now, and again whenever the network is back. */
export function start() {
  window.addEventListener("online", () => { failures = 0; drain(); });
  return drain();
}

/** The seats at the table now, clockwise (data-seated of `el`; players who left are not
 * in it: the deal passes left among them), or all `n` seats. */
export function seatedOrder(el, n) {
  const order = JSON.parse((el && el.getAttribute("data-seated")) || "null");
  return order && order.length ? order : Array.from({ length: n }, (_, i) => i);
}

/** Who deals hand `number`, from a page made for hand `shown` dealt by `dealer`, after the
 * hands between (those waiting here as they are, a misdeal keeping the deal; any other
 * one the server has already passes it on): rules.dealersAfter. null when an undo waits
 * (who deals is then the server's to say). */
export function dealerFor(table, shown, dealer, order, entries, number) {
  const mine = entries.filter((e) => e.table === table && e.state === "waiting");
  if (mine.some((e) => e.kind === "undo")) return null;
  const between = [];
  for (let n = shown; n < number; n++) {
    const e = mine.filter((w) => kindOf(w) === "hand" && w.number === n)[0];
    between.push({ misdeal: !!(e && ((e.body && e.body.facts) || e.facts || {}).misdeal) });
  }
  return dealersAfter(order, dealer, between).next;
}
