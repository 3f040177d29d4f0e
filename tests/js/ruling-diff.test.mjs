// The provisional ruling against the server's (static/ruling-diff.js). The evening of
// tests/test_phone_engine_browser.py: Bob makes Three (P-12: +9, the others −3), Cat fails
// Four (pays 4 to each): Ann +1, Bob +13, Cat −15, Dan +1, both hands waiting on the phone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { differences, differsBody, provisionalOf } from "../../static/ruling-diff.js";

const report = {
  players: ["Ann", "Bob", "Cat", "Dan"],
  totals: { Ann: 1, Bob: 13, Cat: -15, Dan: 1 },
  hands: [
    { entries: { Ann: -3, Bob: 9, Cat: -3, Dan: -3 }, rules: ["P-12"] },
    { entries: { Ann: 4, Bob: 4, Cat: -12, Dan: 4 }, rules: ["P-12"] },
  ],
};
const hand = (number) => ({ id: 10 + number, number, version: 1, facts: {} });

test("the waiting hands are the report's last ones, with their entries and rule ids", () => {
  const p = provisionalOf(report, [2]);  // hand 1 was on the server already
  assert.deepEqual(p, { count: 2, totals: { Ann: 1, Bob: 13, Cat: -15, Dan: 1 },
    hands: [{ number: 2, entries: { Ann: 4, Bob: 4, Cat: -12, Dan: 4 }, rules: ["P-12"] }] });
});

test("the same totals on the server: no difference", () => {
  const p = provisionalOf(report, [1, 2]);
  assert.deepEqual(differences(p, { hands: [hand(1), hand(2)], totals: { Ann: 1, Bob: 13, Cat: -15, Dan: 1 } }), []);
});

test("the server ruled Cat's Four made (+12, the others −4): every player differs, the server's figures beside", () => {
  const p = provisionalOf(report, [1, 2]);
  const state = { hands: [hand(1), hand(2)], totals: { Ann: -7, Bob: 5, Cat: 9, Dan: -7 } };
  assert.deepEqual(differences(p, state), [
    { player: "Ann", provisional: 1, server: -7 }, { player: "Bob", provisional: 13, server: 5 },
    { player: "Cat", provisional: -15, server: 9 }, { player: "Dan", provisional: 1, server: -7 }]);
  assert.deepEqual(differsBody(p, state).server, { count: 2, numbers: [1, 2], totals: state.totals });
  assert.equal(differsBody(p, state).provisional, p);
});

test("one player differs: only that one", () => {
  const p = provisionalOf(report, [1, 2]);
  assert.deepEqual(differences(p, { hands: [hand(1), hand(2)], totals: { Ann: 1, Bob: 13, Cat: -14, Dan: 1 } }),
    [{ player: "Cat", provisional: -15, server: -14 }]);
});

test("another number of hands on the server (another phone's, or one refused): not compared", () => {
  const p = provisionalOf(report, [1, 2]);
  assert.equal(differences(p, { hands: [hand(1)], totals: { Ann: -3, Bob: 9, Cat: -3, Dan: -3 } }), null);
  assert.equal(differences(p, { hands: [hand(1), hand(2), hand(3)], totals: {} }), null);
  assert.equal(differences(null, { hands: [], totals: {} }), null);
});
