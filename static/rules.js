// The table's rules the browser needs when it cannot ask the server (offline, or card by
// card while the record of play is tapped in). Pure functions: no DOM, no storage, so
// `node --test tests/js/` runs them. Each mirrors the Python engine and is checked
// against golden vectors that tests/js/make_golden.py writes from the engine itself
// (scorer.rules, scorer.ledger, scorer.forms, scorer.views.hands) before every run:
// when the engine changes, the test that compares says so.
//
// What the server can say in the page is not copied here: the bids a Wellington or a
// Blücher must follow (P-7, H-7) come as data-needs on quick entry's contract pills.

/** Seats in the order they speak for `dealer` of `n` seats: eldest hand (left of the
 * dealer) first, the dealer last (Variant.speaking_order, HandFormBase.calls_in_speaking_order). */
export function speakingOrder(dealer, n) {
  const order = [];
  for (let i = 0; i < n; i++) order.push((dealer + 1 + i) % n);
  return order;
}

/** The seat `steps` places to the left of `seat` among `order` (the seats at the table
 * now, clockwise); `seat` itself when it is not seated. */
export function leftOf(order, seat, steps = 1) {
  const at = order.indexOf(seat);
  if (at < 0) return seat;
  const len = order.length;
  return order[(((at + steps) % len) + len) % len];
}

/** Who deals each of `hands` ({misdeal: bool}) played in a row from a table whose next
 * dealer is `dealer`, and who deals after them: the deal passes to the left among the
 * seated (`order`), but stays with the dealer after a misdeal (Fold.add, next_dealer). */
export function dealersAfter(order, dealer, hands) {
  const dealers = [];
  let now = dealer;
  for (const hand of hands) {
    dealers.push(now);
    if (!hand.misdeal) now = leftOf(order, now, 1);
  }
  return { dealers, next: now };
}

// --- cards and tricks (scorer/rules/cards.py, scorer/rules/play.py) ---------------------
export const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
export const SUITS = ["S", "H", "D", "C"];

function suitOf(card) { return card.slice(-1).toUpperCase(); }
function strength(card) { return RANKS.indexOf(card.slice(0, -1).toUpperCase()); }

/** Index in `trick` (lead first) of the card that wins it: the highest trump, else the
 * highest card of the suit led (cards.trick_winner, P-11, H-9). */
export function trickWinner(trick, trump) {
  const led = suitOf(trick[0]);
  let best = 0;
  let top = [-1, -1];
  trick.forEach((card, i) => {
    const power = suitOf(card) === trump ? [2, strength(card)] : suitOf(card) === led ? [1, strength(card)] : [0, 0];
    if (power[0] > top[0] || (power[0] === top[0] && power[1] > top[1])) { top = power; best = i; }
  });
  return best;
}

/** A record of play being tapped in (`tricks`: each the card texts from its leader) of a
 * hand of `n` players that `declarer` leads: trump (`named`, or the suit of the first
 * lead: P-9, H-9, R-10), who played each card, who won each complete trick (and so leads
 * the next) and who plays next (null once five tricks are complete). */
export function walkTricks(tricks, n, declarer, named) {
  const trump = named || (tricks.length ? suitOf(tricks[0][0]) : "");
  let leader = declarer;
  const seats = [];
  const winners = [];
  tricks.forEach((trick) => {
    const order = trick.map((_, i) => (leader + i) % n);
    seats.push(order);
    if (trick.length === n) {
      leader = order[trickWinner(trick, trump)];
      winners.push(leader);
    }
  });
  const last = tricks[tricks.length - 1];
  const next = last && last.length < n ? (seats[seats.length - 1][0] + last.length) % n
    : tricks.length >= 5 ? null : leader;
  return { trump, seats, winners, next };
}

/** A typed card as the engine writes it ("10h" → "10H", "T♠" → "10S"); a text that is
 * not a card is kept as typed, for the server to refuse with a message (parse_card). */
export function cardText(text) {
  const typed = cleanText(text);
  const t = typed.toUpperCase().slice(0, 4).replace(/♠/g, "S").replace(/♥/g, "H").replace(/♦/g, "D").replace(/♣/g, "C");
  let rank = t.slice(0, -1);
  const suit = t.slice(-1);
  if (rank === "T") rank = "10";
  return RANKS.includes(rank) && SUITS.includes(suit) ? rank + suit : typed;
}

// what the form's text filter does to a typed value: no control characters but tab and
// line feed, which become one space with the other runs of spaces (rules.clean_text)
function cleanText(value) {
  // eslint-disable-next-line no-control-regex
  return String(value).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "").replace(/\s+/g, " ").trim();
}

// --- the hand form → a hand's facts, players by name (docs/api.md) ----------------------
const TRICK_NUMBERS = ["1", "2", "3", "4", "5"];

function ticked(fields, name) {
  return Object.prototype.hasOwnProperty.call(fields, name) && !["false", ""].includes(String(fields[name]));
}

function claimOf(fields, names) {
  const kind = fields.claim_kind;
  if (!kind) return null;
  const seat = (value) => (value !== undefined && /^\d+$/.test(value) && Number(value) < names.length
    ? names[Number(value)] : null);
  const claim = { kind, accused: names[Number(fields.claim_accused)], upheld: fields.claim_upheld !== "no" };
  const by = seat(fields.claim_by);
  if (by !== null) claim.by = by;
  if (TRICK_NUMBERS.includes(fields.claim_trick)) claim.trick = Number(fields.claim_trick);
  if (SUITS.includes(fields.claim_suit)) claim.suit_led = fields.claim_suit;
  const card = picked(fields, "claim_card");
  if (card) claim.card = card;
  const evidence = picked(fields, "claim_evidence");
  if (evidence) claim.evidence = evidence;
  if (TRICK_NUMBERS.includes(fields.claim_evidence_trick)) claim.evidence_trick = Number(fields.claim_evidence_trick);
  const held = String(fields.claim_cards_held || "").trim();
  if (/^\d+$/.test(held)) claim.cards_held = Number(held);
  if (ticked(fields, "claim_before")) claim.before_speaking = true;
  return claim;
}

// a claim's card: typed (older pages, the API's callers) or picked, suit then rank
function picked(fields, name) {
  const typed = cleanText(fields[name] || "");
  if (typed) return cardText(typed);
  const suit = fields[name + "_suit"];
  const rank = fields[name + "_rank"];
  return SUITS.includes(suit) && RANKS.includes(rank) ? rank + suit : null;
}

/** The facts of the hand form's `fields` (name → value, as the form would post them:
 * the checked radios and boxes, the hidden fields, and the button pressed) for a table
 * of `names`; `sequence`: the calls come one by one in the hidden "calls" (russian36).
 * null when no dealer is chosen (the server explains). HandFormBase.hand_data read as
 * the hands view reads it. */
export function factsOf(fields, names, sequence) {
  const dealer = /^\d+$/.test(fields.dealer || "") ? Number(fields.dealer) : -1;
  if (!(dealer >= 0 && dealer < names.length)) return null;
  const note = cleanText(String(fields.note || "")).slice(0, 2000);  // the server refuses more than 280
  if (ticked(fields, "misdeal")) return note ? { dealer: names[dealer], misdeal: true, note } : { dealer: names[dealer], misdeal: true };
  const auction = sequence
    ? String(fields.calls || "").slice(0, 1200).trim().split(",").filter(Boolean).map((c) => c.slice(0, 20)).slice(0, 60)
    : speakingOrder(dealer, names.length).map((seat) => fields["call_" + seat] || "pass");
  const facts = { dealer: names[dealer], auction };
  if (fields.tricks !== undefined && fields.tricks !== "") facts.tricks = Number(fields.tricks);
  if (fields.trump) facts.trump = fields.trump;
  if (ticked(fields, "purchase")) facts.purchase = true;
  if (ticked(fields, "widow")) facts.widow = true;
  const peeks = names.filter((_, seat) => ticked(fields, "peek_" + seat));
  if (peeks.length) facts.peeks = peeks;
  const claim = claimOf(fields, names);
  if (claim) facts.claims = [claim];
  if (note) facts.note = note;
  return facts;
}

/** A correction keeps what the form does not show, as the form post does
 * (views/hands._facts_from): further claims, the record of play and an override. */
export function withKept(facts, kept) {
  const out = { ...facts };
  if (kept.override) out.override = kept.override;
  if (out.misdeal) return out;
  const claims = (out.claims || []).concat((kept.claims || []).slice(1));
  if (claims.length) out.claims = claims;
  if (kept.record) out.record = kept.record;
  return out;
}
