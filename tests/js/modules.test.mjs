// The browser's modules load as ES modules (no syntax error, every import found) outside
// a page: without a DOM or IndexedDB each one does nothing (the pages work through their
// forms), and their exports are there.
import assert from "node:assert/strict";
import { test } from "node:test";

const exported = {
  "rules.js": ["dealersAfter", "factsOf", "leftOf", "speakingOrder", "trickWinner", "walkTricks", "withKept"],
  "words.js": ["fieldsOf", "fill", "labelOf", "leaveNote", "say", "showError"],
  "outbox-store.js": ["NotKept", "add", "all", "get", "known", "put", "remember", "remove", "token", "usable"],
  "outbox-send.js": ["dealerFor", "drain", "entriesOrNone", "forget", "numberFor", "queue", "refresh", "seatedOrder",
                     "sendUnkept", "start", "waiting"],
  "outbox-view.js": ["start"],
  "outbox.js": [],
  "quick-entry.js": [],
  "fullform.js": [],
  "undo.js": [],
};

for (const [file, names] of Object.entries(exported)) {
  test(`static/${file} loads and exports ${names.join(", ") || "nothing"}`, async () => {
    const module = await import(`../../static/${file}`);
    assert.deepEqual(Object.keys(module).filter((k) => names.includes(k)).sort(), [...names].sort());
  });
}

test("outbox-store.js: no IndexedDB here, so the forms post as they always did", async () => {
  const { usable } = await import("../../static/outbox-store.js");
  assert.equal(usable, false);
});
