// static/rules.js against the Python engine: the golden vectors tests/js/make_golden.py
// writes from scorer.rules, scorer.evening.ledger, scorer.web.forms and scorer.web.views.hands before
// each run (scripts/test). A rule changed on one side only fails here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { dealersAfter, factsOf, speakingOrder, walkTricks, withKept } from "../../static/rules.js";

function golden(name) {
  const url = new URL(`./golden/${name}.json`, import.meta.url);
  try {
    return JSON.parse(readFileSync(url, "utf-8"));
  } catch (error) {
    throw new Error(`${url.pathname} is missing: run .venv/bin/python tests/js/make_golden.py first (${error})`);
  }
}

test("speaking order: eldest hand first, the dealer last, as the variants and the form say", () => {
  const vectors = golden("speaking");
  assert.ok(vectors.length >= 40);
  for (const v of vectors) {
    const what = `${v.variant}, ${v.n} players, dealer ${v.dealer}`;
    assert.deepEqual(speakingOrder(v.dealer, v.n), v.order, what);
    assert.deepEqual(speakingOrder(v.dealer, v.n), v.form_order, what + " (the form)");
  }
});

test("who deals: to the left among the seated, the same dealer again after a misdeal", () => {
  const vectors = golden("dealers");
  assert.ok(vectors.some((v) => v.hands.some((h) => h.misdeal)), "the vectors hold misdeals");
  assert.ok(vectors.some((v) => v.seated.length < 6 && v.variant !== "napoleao"), "and seat changes");
  for (const v of vectors) {
    const got = dealersAfter(v.seated, v.dealer, v.hands);
    assert.deepEqual(got, { dealers: v.dealers, next: v.next }, `${v.variant} evening ${v.evening}: ${JSON.stringify(v)}`);
  }
});

test("tricks: trump, the winner of each trick and who plays next, for every variant", () => {
  const vectors = golden("tricks");
  assert.ok(vectors.some((v) => v.named) && vectors.some((v) => !v.named), "named trump and the first lead's");
  for (const v of vectors) {
    const got = walkTricks(v.tricks, v.n, v.declarer, v.named || "");
    assert.deepEqual({ trump: got.trump, winners: got.winners, next: got.next },
                     { trump: v.trump, winners: v.winners, next: v.next }, JSON.stringify(v));
  }
});

test("the hand form's fields give the facts the form post saves, new and corrected", () => {
  const vectors = golden("forms");
  const kinds = new Set(vectors.flatMap((v) => (v.facts.claims || []).map((c) => `${v.variant}:${c.kind}`)));
  for (const want of ["pagat:revoke", "hoyle:revoke", "hoyle:wrong_cards", "hoyle:out_of_turn", "russian36:revoke",
                      "napoleao:revoke"]) {
    assert.ok(kinds.has(want), `a ${want} claim is among the vectors`);
  }
  for (const v of vectors) {
    const facts = factsOf(v.fields, v.names, v.sequence);
    assert.deepEqual(facts, v.facts, `${v.variant}: ${JSON.stringify(v.fields)}`);
    assert.deepEqual(withKept(facts, v.kept), v.corrected, `${v.variant} corrected: ${JSON.stringify(v.fields)}`);
  }
});

test("no dealer chosen: no facts (the server explains)", () => {
  assert.equal(factsOf({ save: "y" }, ["Ann", "Bob", "Cat"], false), null);
  assert.equal(factsOf({ dealer: "3", save: "y" }, ["Ann", "Bob", "Cat"], false), null);
});
