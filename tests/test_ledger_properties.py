"""Properties that hold for every evening (Hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.evening_file import EveningFile, dump, load
from scorer.ledger import settle_evening
from scorer.rules import PASS, EveningSetup, HandFacts, Stake, get_variant

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")


@st.composite
def setups(draw: st.DrawFn) -> EveningSetup:
    variant_id = draw(st.sampled_from(["pagat", "hoyle"]))
    variant = get_variant(variant_id)
    n = draw(st.integers(variant.min_players, variant.max_players))
    if variant_id == "pagat":
        options = {"hands_per_dealer": draw(st.integers(1, 50)), "all_pass_counts": draw(st.booleans())}
    else:
        options = {
            "lowest_bid": draw(st.sampled_from([1, 2])),
            "wellington_blucher": draw(st.booleans()),
            "all_pass": draw(st.sampled_from(["redeal", "dealer_bids"])),
        }
    stake = draw(st.none() | st.builds(Stake, st.integers(1, 10_000), st.sampled_from(["£", "RUB", ""])))
    return variant.check_setup(EveningSetup(variant_id, NAMES[:n], draw(st.integers(0, n - 1)), options, stake))


@st.composite
def legal_hand(draw: st.DrawFn, setup: EveningSetup, dealer: int) -> HandFacts:
    """A hand the rules accept, built call by call from the legal choices."""
    variant = get_variant(setup.variant)
    if draw(st.integers(0, 19)) == 0:
        return HandFacts(dealer, misdeal=True)
    ladder = variant.ladder(setup.options)
    calls: list[str] = []
    earlier: list[str] = []
    for i in range(setup.n):
        top = max((b.rank for b in ladder if b.id in earlier), default=0)
        choices = [
            b.id
            for b in ladder
            if b.rank > top
            and (b.id != "wellington" or "nap" in earlier)
            and (b.id != "blucher" or "wellington" in earlier)
        ]
        last = i == setup.n - 1
        forced = last and not earlier and setup.options.get("all_pass") == "dealer_bids"
        if choices and (forced or draw(st.booleans())):
            bid = draw(st.sampled_from(choices))
            calls.append(bid)
            earlier.append(bid)
        else:
            calls.append(PASS)
    tricks = draw(st.integers(0, 5)) if earlier else None
    return HandFacts(dealer, tuple(calls), tricks)


@st.composite
def evenings(draw: st.DrawFn) -> tuple[EveningSetup, list[HandFacts]]:
    setup = draw(setups())
    variant = get_variant(setup.variant)
    hands: list[HandFacts] = []
    dealer = setup.first_dealer
    target = variant.hands_to_play(setup)
    counted = 0
    for _ in range(draw(st.integers(0, 25))):
        if target is not None and counted >= target:
            break  # P-14: no hand after the agreed end
        facts = draw(legal_hand(setup, dealer))
        hands.append(facts)
        ruling = variant.settle(facts, setup)
        dealer, counted = ruling.next_dealer, counted + ruling.counts
    return setup, hands


@settings(max_examples=150, deadline=None)
@given(evenings())
def test_every_hand_sums_to_zero_and_totals_are_the_fold(evening: tuple[EveningSetup, list[HandFacts]]) -> None:
    setup, hands = evening
    ledger = settle_evening(setup, hands)
    running = [0] * setup.n
    for row in ledger.rows:
        assert sum(row.ruling.units) + row.ruling.pool == 0
        running = [t + u for t, u in zip(running, row.ruling.units)]
        assert tuple(running) == row.totals
    assert sum(ledger.totals) + ledger.pool == 0
    if ledger.money_totals is not None:
        assert sum(ledger.money_totals) == 0


@settings(max_examples=100, deadline=None)
@given(evenings())
def test_json_round_trip_gives_the_same_ledger(evening: tuple[EveningSetup, list[HandFacts]]) -> None:
    setup, hands = evening
    original = EveningFile(setup=setup, hands=hands, name="Round trip")
    again = load(dump(original))
    first, second = settle_evening(setup, hands), settle_evening(again.setup, again.hands)
    assert [r.ruling for r in first.rows] == [r.ruling for r in second.rows]
    assert first.totals == second.totals and again.setup == setup
