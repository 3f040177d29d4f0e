"""Golden vectors for the browser's copies of the engine's rules (static/rules.js),
written by the Python engine itself, before every run of the JavaScript tests
(scripts/test): ``.venv/bin/python tests/js/make_golden.py`` writes
``tests/js/golden/*.json`` (not kept in git), and ``node --test tests/js/`` compares.

Every expected value comes from calling the real code — :mod:`scorer.rules` (speaking
order, trick winner, the record of play), :class:`scorer.evening.ledger.Fold` (who deals after
hands and misdeals, with players leaving and joining), :mod:`scorer.web.forms` and
:func:`scorer.web.views.hands._facts_from` (the hand form's fields → the hand's facts) —
never by writing a rule again here. The inputs are drawn with a fixed seed, so the
files are the same from one run to the next unless the engine changes.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from werkzeug.datastructures import MultiDict

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scorer import create_app  # noqa: E402
from scorer.evening.codec import encode_hand  # noqa: E402
from scorer.evening.ledger import Fold  # noqa: E402
from scorer.rules import EveningSetup, HandFacts, RulesError, SeatChange, get_variant  # noqa: E402
from scorer.rules.cards import RANKS_36, RANKS_52, SUITS  # noqa: E402
from scorer.rules.play import PlayRules, PlayState  # noqa: E402
from scorer.web.views import hands  # noqa: E402

OUT = Path(__file__).resolve().parent / "golden"
VARIANTS = ("pagat", "hoyle", "russian36", "napoleao")
NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal")


def table(variant: str, n: int = 4, **options: Any) -> EveningSetup:
    v = get_variant(variant)
    return v.check_setup(EveningSetup(variant, NAMES[:n], 0, options))


def counts(variant: str) -> list[int]:
    v = get_variant(variant)
    return [n for n in range(2, 9) if v.min_players <= n <= v.max_players]


# --- speaking order: the variant's, and the form's reading of one call per seat --------
def speaking(app: Any) -> list[dict[str, Any]]:
    out = []
    for variant in VARIANTS:
        v = get_variant(variant)
        for n in counts(variant):
            setup = table(variant, n)
            ledger = Fold(setup).ledger()
            for dealer in range(n):
                # each seat "calls" its own number: the form reads them back in speaking order
                with app.test_request_context(method="POST", data={f"call_{s}": f"s{s}" for s in range(n)}):
                    form = hands._form(ledger)
                    read = [int(c[1:]) for c in form.calls_in_speaking_order(dealer)]
                out.append({"variant": variant, "n": n, "dealer": dealer,
                            "order": v.speaking_order(setup, dealer), "form_order": read})
    return out


# --- who deals: hands and misdeals in a row, with players leaving and joining ----------
def _played(fold: Fold, dealer: int, rng: random.Random) -> HandFacts:
    """A hand the rules accept, dealt by ``dealer`` among the seated: eldest hand bids the
    lowest bid, the others pass (with trump named where the variant names it)."""
    v = fold.variant
    lowest = v.ladder(fold.setup.options)[0].id
    calls = (lowest,) + ("pass",) * (len(fold.seated) - 1)
    return HandFacts(dealer, calls, rng.randint(0, 5), trump="S" if v.names_trump else None)


def _hand(fold: Fold, rng: random.Random) -> bool:
    """Add a misdeal or a played hand to ``fold`` (a misdeal when the played one is
    refused); returns whether it was a misdeal."""
    dealer = fold.next_dealer
    if rng.random() < 0.35:
        fold.add(HandFacts(dealer, (), None, misdeal=True))
        return True
    try:
        fold.add(_played(fold, dealer, rng))
        return False
    except RulesError:
        fold.add(HandFacts(dealer, (), None, misdeal=True))
        return True


def _change(fold: Fold, rng: random.Random) -> None:
    """A player leaves or (comes back to) join on the left of a seated player, when the
    variant allows the count."""
    v = fold.variant
    seated = list(fold.seated)
    away = [s for s in range(fold.setup.n) if s not in seated]
    number = len(fold.rows) + 1
    if away and (rng.random() < 0.5 or len(seated) <= v.min_players):
        if len(seated) < v.max_players:
            fold.change_seats(SeatChange(number, "join", rng.choice(away), left_of=rng.choice(seated)))
    elif len(seated) > v.min_players:
        fold.change_seats(SeatChange(number, "leave", rng.choice(seated)))


def dealers(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for variant in VARIANTS:
        v = get_variant(variant)
        n = min(6, v.max_players)
        for evening in range(12):
            setup = v.check_setup(EveningSetup(variant, NAMES[:n], rng.randrange(n), {}))
            fold = Fold(setup)
            for _stretch in range(4):
                seated, dealer = list(fold.seated), fold.next_dealer
                played: list[dict[str, bool]] = []
                dealt: list[int] = []
                for _ in range(rng.randint(1, 6)):
                    dealt.append(fold.next_dealer)
                    played.append({"misdeal": _hand(fold, rng)})
                assert [r.ruling.dealer for r in fold.rows[-len(played):]] == dealt
                out.append({"variant": variant, "evening": evening, "seated": seated, "dealer": dealer,
                            "hands": played, "dealers": dealt, "next": fold.next_dealer})
                _change(fold, rng)
    return out


# --- tricks: who wins, who leads, what is trump, who plays next -----------------------
def tricks(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for variant in VARIANTS:
        v = get_variant(variant)
        ranks = RANKS_36 if v.pack_size == 36 else RANKS_52
        pack = [r + s for r in ranks for s in SUITS]
        for n in counts(variant):
            if n * 5 > len(pack):
                continue
            for _ in range(20):
                deck = pack[:]
                rng.shuffle(deck)
                held = [deck[i * 5:(i + 1) * 5] for i in range(n)]
                declarer = rng.randrange(n)
                named = rng.choice(SUITS) if v.names_trump else None
                rules = PlayRules(n, declarer, 3, pack_size=v.pack_size, named_trump=named)
                state = PlayState(rules)
                for _card in range(rng.randint(1, 5 * n)):
                    seat = state.next_to_play
                    if seat is None:
                        break
                    card = rng.choice(held[seat])
                    held[seat].remove(card)
                    state = state.add(card if rng.random() < 0.8 else card.lower())
                reading = state.reading
                assert reading is not None
                out.append({"variant": variant, "n": n, "declarer": declarer, "named": named,
                            "tricks": [list(t) for t in state.tricks], "trump": reading.trump,
                            "winners": list(reading.winners), "next": state.next_to_play})
    return out


# --- the hand form: its fields → the hand's facts, for every variant and claim kind ----
def _claims(variant: str, n: int, pack: tuple[str, ...]) -> list[dict[str, str]]:
    """Claim fields as the correction form posts them: every kind the variant knows,
    with cards picked (suit, rank) or typed, evidence and its trick, rejected ones."""
    low, high = pack[0], pack[-1]
    out: list[dict[str, str]] = []
    for kind in get_variant(variant).claim_rules:
        out += [
            {"claim_kind": kind, "claim_accused": "1", "claim_upheld": "yes"},
            {"claim_kind": kind, "claim_accused": "2", "claim_upheld": "yes", "claim_by": "3", "claim_trick": "1",
             "claim_suit": "H", "claim_card_suit": "S", "claim_card_rank": low, "claim_evidence_suit": "H",
             "claim_evidence_rank": high, "claim_evidence_trick": "3"},
            {"claim_kind": kind, "claim_accused": str(n - 1), "claim_upheld": "no", "claim_by": "0",
             "claim_trick": "5", "claim_suit": "C", "claim_card_suit": "D", "claim_card_rank": "10",
             "claim_evidence_trick": "4"},
            {"claim_kind": kind, "claim_accused": "0", "claim_card": " 10h ", "claim_evidence": "qs",
             "claim_card_suit": "", "claim_evidence_suit": "", "claim_trick": "", "claim_by": ""},
            {"claim_kind": kind, "claim_accused": "1", "claim_card": "T♣", "claim_evidence": "zz"},
        ]
        if kind == "wrong_cards":
            out += [{"claim_kind": kind, "claim_accused": "3", "claim_cards_held": "6", "claim_before": "y"},
                    {"claim_kind": kind, "claim_accused": "2", "claim_cards_held": " 4 "}]
    out.append({"claim_kind": ""})
    return out


def _forms(variant: str, setup: EveningSetup) -> list[dict[str, str]]:
    """Field sets of the full form (new hand or correction) for this table."""
    v = get_variant(variant)
    n = setup.n
    ladder = [b.id for b in v.ladder(setup.options)]
    pack = RANKS_36 if v.pack_size == 36 else RANKS_52
    base: list[dict[str, str]] = [{"dealer": "2", "misdeal": "y"},
                                  {"dealer": "2", "misdeal": "y", "note": " a card\tface up "}]
    for dealer in range(n):
        if v.sequence_auction:
            calls = {"calls": ",".join([ladder[0]] + ["pass"] * (n - 1)), "calls_dealer": str(dealer)}
        else:
            calls = {f"call_{(dealer + 2) % n}": ladder[min(2, len(ladder) - 1)], f"call_{(dealer + 1) % n}": "pass"}
        base.append({"dealer": str(dealer), "save": "y", "tricks": str(dealer % 6), **calls})
    base.append({"dealer": "1", "save": "y", "tricks": ""})
    base.append({"dealer": "1", "save": "y", "tricks": "", "note": "Bob's cards\nwere   marked"})
    base.append({"dealer": "1", "save": "y", "tricks": "", "note": "   "})
    if v.names_trump:
        base.append({"dealer": "0", "save": "y", "tricks": "4", "trump": "D", f"call_{1}": ladder[0]})
    if v.takes_purchase:
        base.append({"dealer": "0", "save": "y", "tricks": "2", "purchase": "y",
                     **({"calls": f"{ladder[0]},pass,pass,pass"} if v.sequence_auction else {"call_1": ladder[0]})})
    if setup.options.get("widow") in ("widow", "garnet", "peep"):
        base.append({"dealer": "3", "save": "y", "tricks": "5", "widow": "y", "call_0": "nap"})
    if setup.options.get("widow") == "peep":
        base.append({"dealer": "3", "save": "y", "tricks": "1", "peek_0": "y", "peek_2": "y", "call_1": ladder[0]})
    first = {"dealer": "1", "save": "y", "tricks": "3",
             **({"calls": ",".join([ladder[0]] + ["pass"] * (n - 1))} if v.sequence_auction else {"call_2": ladder[0]})}
    return base + [{**first, **claim} for claim in _claims(variant, n, pack)]


def _kept(names: tuple[str, ...], variant: str) -> HandFacts:
    """A saved hand being corrected that holds more than the form shows: two claims,
    a record of play and an override."""
    from scorer.evening.codec import decode_hand as decode
    kind = next(iter(get_variant(variant).claim_rules))
    data = {"dealer": names[0], "auction": ["pass"] * len(names), "tricks": 2,
            "claims": [{"kind": kind, "accused": names[1], "upheld": True},
                       {"kind": kind, "accused": names[2], "upheld": False, "trick": 2}],
            "record": [["AS", "2S", "3S", "4S"][:len(names)]],
            "override": {"entries": {name: (i - 1) * 3 for i, name in enumerate(names)}, "pool": 0,
                         "reason": "house rule"}}
    return decode(data, len(names), lambda ref, where: names.index(ref))


def forms(app: Any) -> list[dict[str, Any]]:
    out = []
    setups = [(v, table(v)) for v in VARIANTS] + [("hoyle", table("hoyle", 4, widow="peep", pool=True)),
                                                   ("hoyle", table("hoyle", 5, widow="widow"))]
    for variant, setup in setups:
        ledger = Fold(setup).ledger()
        names = setup.players
        kept = _kept(names, variant)
        for fields in _forms(variant, setup):
            with app.test_request_context(method="POST", data=MultiDict({**fields, "token": "t" * 22})):
                form = hands._form(ledger)
                assert form.validate(), (variant, fields, form.errors)
                new = encode_hand(hands._facts_from(form, ledger), names)
                corrected = encode_hand(hands._facts_from(form, ledger, kept), names)
            out.append({"variant": variant, "names": list(names), "sequence": ledger.variant.sequence_auction,
                        "fields": fields, "facts": new, "kept": encode_hand(kept, names), "corrected": corrected})
    return out


def main() -> None:
    app = create_app({"TESTING": True, "SECRET_KEY": "golden", "SQLALCHEMY_DATABASE_URI": "sqlite://",
                      "WTF_CSRF_ENABLED": False})
    OUT.mkdir(exist_ok=True)
    rng = random.Random(20240601)
    files = {"speaking": speaking(app), "dealers": dealers(rng), "tricks": tricks(rng), "forms": forms(app)}
    for name, vectors in files.items():
        (OUT / f"{name}.json").write_text(json.dumps(vectors, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"golden: {len(vectors)} {name} vectors → tests/js/golden/{name}.json")


if __name__ == "__main__":
    main()
