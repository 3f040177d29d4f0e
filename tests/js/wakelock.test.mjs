// static/wakelock.js (Big totals keeps the screen awake; issue 25, item 16) against a fake
// navigator.wakeLock and document: a lock the system releases while the page is in view
// is asked for again; a release while hidden waits for the page to be shown; a refusal
// is not asked again until the page is next shown; a system that grants and drops at
// once is asked a bounded number of times.
import assert from "node:assert/strict";
import { test } from "node:test";

class Sentinel extends EventTarget {
  release() { this.dispatchEvent(new Event("release")); }
}

function fakePage() {
  const page = {
    answers: [],      // what the next requests do: "grant" | "refuse" (grant when empty)
    requests: 0,
    sentinels: [],
    attributes: {},
    document: null,
  };
  const doc = new EventTarget();
  doc.visibilityState = "visible";
  doc.documentElement = {
    setAttribute(name, value) { page.attributes[name] = value; },
    removeAttribute(name) { delete page.attributes[name]; },
  };
  page.document = doc;
  const wakeLock = {
    request(kind) {
      assert.equal(kind, "screen");
      page.requests += 1;
      if ((page.answers.shift() || "grant") === "refuse") {
        return Promise.reject(new DOMException("Battery saver is on.", "NotAllowedError"));
      }
      const sentinel = new Sentinel();
      page.sentinels.push(sentinel);
      return Promise.resolve(sentinel);
    },
  };
  Object.defineProperty(globalThis, "navigator", { value: { wakeLock }, configurable: true, writable: true });
  Object.defineProperty(globalThis, "document", { value: doc, configurable: true, writable: true });
  page.show = (state) => { doc.visibilityState = state; doc.dispatchEvent(new Event("visibilitychange")); };
  return page;
}

let loads = 0;
async function load() {
  loads += 1;
  await import(`../../static/wakelock.js?load=${loads}`);
  await settle();
}

function settle() { return new Promise((resolve) => setTimeout(resolve, 0)); }

test("the system releases the lock while the page is in view: it is asked for again", async () => {
  const page = fakePage();
  await load();
  assert.equal(page.requests, 1);
  assert.equal(page.attributes["data-awake"], "1");
  page.sentinels[0].release();
  await settle();
  assert.equal(page.requests, 2);
  assert.equal(page.attributes["data-awake"], "1");
});

test("released because the page was hidden: asked again only when it is shown", async () => {
  const page = fakePage();
  await load();
  page.document.visibilityState = "hidden";
  page.sentinels[0].release();
  page.show("hidden");
  await settle();
  assert.equal(page.requests, 1);
  assert.equal(page.attributes["data-awake"], undefined);
  page.show("visible");
  await settle();
  assert.equal(page.requests, 2);
  assert.equal(page.attributes["data-awake"], "1");
});

test("a refusal after a release waits for the page to be shown again", async () => {
  const page = fakePage();
  await load();
  page.answers.push("refuse");
  page.sentinels[0].release();
  await settle();
  assert.equal(page.requests, 2);
  assert.equal(page.attributes["data-awake"], undefined);
  page.document.dispatchEvent(new Event("visibilitychange"));  // shown again (e.g. back from another app)
  await settle();
  await settle();
  assert.equal(page.requests, 3, "a visibilitychange to visible asks once more");
  page.answers.push("refuse");
  page.sentinels[1].release();
  await settle();
  assert.equal(page.requests, 4);
  await settle();
  assert.equal(page.requests, 4, "refused: no request until the page is shown again");
  page.show("hidden");
  page.show("visible");
  await settle();
  assert.equal(page.requests, 5);
  assert.equal(page.attributes["data-awake"], "1");
});

test("a system that grants and drops at once is asked at most 5 more times per showing", async () => {
  const page = fakePage();
  await load();
  for (let i = 0; i < 20; i += 1) {
    page.sentinels[page.sentinels.length - 1].release();
    await settle();
  }
  assert.equal(page.requests, 6);
  page.show("hidden");
  page.show("visible");
  await settle();
  assert.equal(page.requests, 7);
});

test("two visibilitychange events in a row make one request, not two", async () => {
  const page = fakePage();
  page.document.visibilityState = "hidden";
  await load();
  assert.equal(page.requests, 0);
  page.show("visible");
  page.show("visible");
  await settle();
  assert.equal(page.requests, 1);
});
