// When the server's ruling is not the provisional one a scorer's phone showed (static/phone.js):
// the server's stands; the phone says so and tells the server (POST /api/e/<key>/differs).
// Pure: no page, so that tests/js/ruling-diff.test.mjs runs it in Node.

/** What the phone showed provisionally, kept to compare: `report` is the worker's report
 * (`nap settle --json`'s: players, totals by name, hands with their entries and rule ids) and
 * `numbers` the waiting hands' numbers, the last `numbers.length` hands of the report.
 * Answers {count, totals, hands: [{number, entries, rules}]}. */
export function provisionalOf(report, numbers) {
  const first = report.hands.length - numbers.length;
  return {
    count: report.hands.length,
    totals: { ...report.totals },
    hands: numbers.map((number, i) => ({
      number, entries: { ...report.hands[first + i].entries }, rules: [...report.hands[first + i].rules],
    })),
  };
}

/** The players whose totals differ between `provisional` (provisionalOf) and `state` (the
 * server's GET /api/e/<key>: hands in play, totals by name): [{player, provisional, server}]
 * in the provisional report's order ([] when the same); null when they cannot be compared
 * (the server has another number of hands: another phone's, or one it refused). */
export function differences(provisional, state) {
  if (!provisional || !state || !Array.isArray(state.hands) || state.hands.length !== provisional.count) return null;
  const server = state.totals || {};
  const names = Object.keys(provisional.totals);
  Object.keys(server).forEach((name) => { if (!names.includes(name)) names.push(name); });
  return names
    .filter((name) => provisional.totals[name] !== server[name])
    .map((name) => ({ player: name, provisional: provisional.totals[name] ?? null, server: server[name] ?? null }));
}

/** The body of POST /api/e/<key>/differs: both rulings, the server's as its hands' numbers
 * and totals. */
export function differsBody(provisional, state) {
  return {
    provisional,
    server: { count: state.hands.length, numbers: state.hands.map((h) => h.number), totals: { ...state.totals } },
  };
}
