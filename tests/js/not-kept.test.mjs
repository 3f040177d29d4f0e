// A phone that cannot keep the outbox (issue 21, item 8): every IndexedDB failure —
// refused to open, a transaction aborted (the quota exceeded), a transaction that cannot
// even begin — is outbox-store.NotKept; the outbox's queue() then sends the command once
// directly, and rejects with that NotKept when nothing answers, so the page keeps the form
// and says so. A fake IndexedDB that refuses as told (`refuse`), a fake fetch.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

let refuse = "open";  // "open" | "abort" | "throw" | "" (works)
let opens = 0;
const stored = [];

function later(fn) { setTimeout(fn, 0); }

function quota() { return new DOMException("The quota has been exceeded.", "QuotaExceededError"); }

const database = {
  transaction() {
    if (refuse === "throw") throw new DOMException("The database connection is closing.", "InvalidStateError");
    const tx = { error: null, oncomplete: null, onerror: null, onabort: null };
    const request = { result: undefined };
    tx.objectStore = () => ({
      add(entry) {
        later(() => {
          if (refuse === "abort") { tx.error = quota(); tx.onabort && tx.onabort(); return; }
          stored.push(entry);
          request.result = stored.length;
          tx.oncomplete && tx.oncomplete();
        });
        return request;
      },
      getAll() { later(() => { request.result = stored.slice(); tx.oncomplete && tx.oncomplete(); }); return request; },
    });
    return tx;
  },
};

globalThis.indexedDB = {
  open() {
    opens += 1;
    const req = { result: undefined, error: null, onsuccess: null, onerror: null, onupgradeneeded: null };
    later(() => {
      if (refuse === "open") { req.error = quota(); req.onerror && req.onerror(); return; }
      req.result = database;
      req.onsuccess && req.onsuccess();
    });
    return req;
  },
};

const calls = [];
let answer = null;  // a function: the fetch's answer (a Response, or a throw)
globalThis.fetch = async (url, init) => { calls.push({ url, init }); return answer(); };
globalThis.window = new EventTarget();
const events = [];
["nap:net", "nap:changed", "nap:outbox"].forEach((name) => window.addEventListener(name, (e) => events.push([name, e.detail])));

const store = await import("../../static/outbox-store.js");
const send = await import("../../static/outbox-send.js");
const { NotKept } = store;

function json(status, body) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function hand() {
  return { table: "k", api: "/api/e/k/hands", number: 3, facts: { misdeal: true }, label: "Misdeal", token: "t-1" };
}

beforeEach(() => { calls.length = 0; events.length = 0; stored.length = 0; answer = null; });

test("IndexedDB refusing to open is NotKept, with the browser's error, and is asked again next time", async () => {
  refuse = "open";
  const before = opens;
  const err = await store.add({ a: 1 }).then(() => null, (e) => e);
  assert.ok(err instanceof NotKept, String(err));
  assert.equal(err.name, "NotKept");
  assert.equal(err.cause.name, "QuotaExceededError");
  await assert.rejects(store.all(), NotKept);
  assert.equal(opens, before + 2);  // not the first refusal kept for ever
  assert.deepEqual(await send.entriesOrNone(), []);
});

// "open" first: once a connection is open it is kept (outbox-store.db)
for (const how of ["open"]) {
  test(`not kept (${how}), no network: queue() sends once, then rejects with NotKept; nothing waits`, async () => {
    refuse = how;
    answer = () => { throw new TypeError("Failed to fetch"); };
    const entry = hand();
    const err = await send.queue(entry).then(() => null, (e) => e);
    assert.ok(err instanceof NotKept, String(err));
    assert.equal(calls.length, 1);
    assert.equal(calls[0].url, "/api/e/k/hands");
    // played_at: when queue() took it (entry.at), which the server shows if it arrives later
    assert.equal(typeof entry.at, "number");
    assert.deepEqual(JSON.parse(calls[0].init.body),
      { number: 3, facts: { misdeal: true }, token: "t-1", played_at: new Date(entry.at).toISOString() });
    assert.deepEqual(stored, []);
    assert.deepEqual(events.filter((e) => e[0] === "nap:net"), [["nap:net", { up: false }]]);
  });
}

test("not kept, the service worker answers offline with 503 {kept: false}: rejects with NotKept", async () => {
  refuse = "open";
  answer = () => json(503, { kept: false, error: { message: "Not saved: offline" } });
  await assert.rejects(send.queue(hand()), NotKept);
  assert.equal(calls.length, 1);
});

test("not kept, online: sent once directly and saved, as a kept command is answered", async () => {
  refuse = "open";
  answer = () => json(201, { revision: 7, hand: { id: 42, number: 3, version: 1 } });
  const entry = hand();
  assert.equal(await send.queue(entry), undefined);
  assert.deepEqual(entry.hand, { id: 42, number: 3, version: 1 });
  assert.equal(calls.length, 1);
  assert.ok(events.some((e) => e[0] === "nap:changed"));
});

test("not kept, online, refused by the rules: the entry is answered refused, kept nowhere", async () => {
  refuse = "open";
  answer = () => json(422, { error: { message: "Tap the contract." } });
  const now = await send.queue(hand());
  assert.equal(now.state, "refused");
  assert.equal(now.status, 422);
  assert.equal(now.message, "Tap the contract.");
  assert.equal(now.id, undefined);
  await send.forget(now);  // nothing to take out of the outbox
  assert.equal(calls.length, 1);
});

for (const how of ["abort", "throw"]) {
  test(`not kept (${how}), no network: queue() sends once, then rejects with NotKept; nothing waits`, async () => {
    refuse = how;
    answer = () => { throw new TypeError("Failed to fetch"); };
    const entry = hand();
    const err = await send.queue(entry).then(() => null, (e) => e);
    assert.ok(err instanceof NotKept, String(err));
    assert.equal(calls.length, 1);
    assert.equal(calls[0].url, "/api/e/k/hands");
    // played_at: when queue() took it (entry.at), which the server shows if it arrives later
    assert.equal(typeof entry.at, "number");
    assert.deepEqual(JSON.parse(calls[0].init.body),
      { number: 3, facts: { misdeal: true }, token: "t-1", played_at: new Date(entry.at).toISOString() });
    assert.deepEqual(stored, []);
    assert.deepEqual(events.filter((e) => e[0] === "nap:net"), [["nap:net", { up: false }]]);
  });
}


test("a transaction aborted (the quota exceeded) or that cannot begin is NotKept; nothing is stored", async () => {
  refuse = "abort";
  const err = await store.add({ a: 1 }).then(() => null, (e) => e);
  assert.ok(err instanceof NotKept);
  assert.equal(err.cause.name, "QuotaExceededError");
  refuse = "throw";
  const thrown = await store.add({ a: 2 }).then(() => null, (e) => e);
  assert.ok(thrown instanceof NotKept);
  assert.equal(thrown.cause.name, "InvalidStateError");
  assert.deepEqual(stored, []);
  refuse = "";  // the same connection works again once the phone has room
  assert.equal(await store.add({ a: 3 }), 1);
  assert.deepEqual(stored, [{ a: 3 }]);
});

