"""Properties that hold for every evening of every variant and option set (Hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.evening.file import EveningFile, dump, load
from scorer.evening.ledger import settle_evening
from scorer.rules import PASS, VARIANTS, Claim, EveningSetup, HandFacts, Stake, TableState, get_variant
from scorer.rules.cards import SUITS
from scorer.rules.endpoint import deals_owed
from scorer.rules.options import OptionSpec

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")


def option_value(spec: OptionSpec) -> st.SearchStrategy[object]:
    if spec.kind == "bool":
        return st.booleans()
    if spec.kind == "int":
        return st.integers(spec.minimum or 0, min(spec.maximum or 50, 50))
    return st.sampled_from([c for c, _ in spec.choices])


@st.composite
def setups(draw: st.DrawFn, variant_ids: tuple[str, ...] = tuple(VARIANTS)) -> EveningSetup:
    variant_id = draw(st.sampled_from(variant_ids))
    variant = get_variant(variant_id)
    n = draw(st.integers(variant.min_players, variant.max_players))
    options = {spec.key: draw(option_value(spec)) for spec in variant.option_specs}
    if options.get("widow") == "peep":
        options["pool"] = True  # H-18: Peep Nap is played with the pool
    stake = None
    if not variant.points_only:
        currencies = st.sampled_from(["£", "RUB", "", "JPY", "KWD"])  # hundredths, yen, fils
        stake = draw(st.none() | st.builds(Stake, st.integers(1, 10_000), currencies))
    return variant.check_setup(EveningSetup(variant_id, NAMES[:n], draw(st.integers(0, n - 1)), options, stake))


@st.composite
def legal_hand(draw: st.DrawFn, setup: EveningSetup, dealer: int) -> HandFacts:
    """A hand the rules accept, built call by call from the legal choices."""
    variant = get_variant(setup.variant)
    if draw(st.integers(0, 19)) == 0:
        return HandFacts(dealer, misdeal=True)
    options = setup.options
    calls: list[str] = []
    if setup.variant == "russian36":
        while True:
            speaker, legal = variant.next_speaker(setup, dealer, tuple(calls))  # type: ignore[attr-defined]
            if speaker is None:
                break
            calls.append(draw(st.sampled_from(legal)) if draw(st.booleans()) else PASS)
    else:
        ladder = variant.ladder(options)
        earlier: list[str] = []
        for i in range(setup.n):
            top = max((b.rank for b in ladder if b.id in earlier), default=0)
            choices = [b.id for b in ladder if b.rank > top and (b.id != "wellington" or "nap" in earlier)
                       and (b.id != "blucher" or "wellington" in earlier)]
            forced = i == setup.n - 1 and not earlier and (
                setup.variant == "napoleao" or options.get("all_pass") == "dealer_bids")
            if choices and (forced or draw(st.booleans())):
                calls.append(draw(st.sampled_from(choices)))
                earlier.append(calls[-1])
            else:
                calls.append(PASS)
    played = any(c != PASS for c in calls) or options.get("all_pass") == "eldest_plays_one"
    tricks = draw(st.integers(0, 5)) if played else None
    widow = options.get("widow", "none")
    claims: tuple[Claim, ...] = ()
    if played and draw(st.integers(0, 3)) == 0:
        kind = draw(st.sampled_from(sorted(variant.claim_rules)))
        claims = (Claim(kind, accused=draw(st.integers(0, setup.n - 1)), upheld=draw(st.booleans()),
                        by=draw(st.none() | st.integers(0, setup.n - 1)), trick=draw(st.none() | st.integers(1, 5)),
                        before_speaking=kind == "wrong_cards" and draw(st.booleans())),)
    bids = [c for c in calls if c not in (PASS, "here")]
    if widow == "garnet":
        took_widow = bool(bids) and bids[-1] == "garnet"  # H-19: the Sir Garnet bid is taking the widow
    else:
        took_widow = widow == "peep" and bool(bids) and draw(st.booleans())
    facts = HandFacts(
        dealer,
        tuple(calls),
        tricks,
        trump=draw(st.sampled_from(SUITS)) if setup.variant == "napoleao" else None,
        purchase=setup.variant == "russian36" and bool(bids) and draw(st.booleans()),
        widow=took_widow,
        peeks=tuple(draw(st.sets(st.integers(0, setup.n - 1)))) if widow == "peep" else (),
        claims=claims,
    )
    return facts


@st.composite
def evenings(draw: st.DrawFn, variant_ids: tuple[str, ...] = tuple(VARIANTS)) -> tuple[EveningSetup, list[HandFacts]]:
    setup = draw(setups(variant_ids))
    variant = get_variant(setup.variant)
    hands: list[HandFacts] = []
    dealer = setup.first_dealer
    target = variant.hands_to_play(setup)
    each = variant.deals_each(setup)
    dealt: list[tuple[int, bool]] = []
    target_score = variant.target_score(setup.options)
    totals = [0] * setup.n
    counted = 0
    state = TableState()
    for _ in range(draw(st.integers(0, 25))):
        over = each is not None and not any(deals_owed(dealt, range(setup.n), each).values())
        if over or (target is not None and counted >= target) or (
                target_score is not None and max(totals) >= target_score):
            break  # P-14, B-14: no hand after the agreed end
        facts = draw(legal_hand(setup, dealer))
        hands.append(facts)
        ruling = variant.settle(facts, setup, state)
        dealt.append((ruling.dealer, ruling.counts))
        dealer, counted, state = ruling.next_dealer, counted + ruling.counts, ruling.state_after
        totals = [t + u for t, u in zip(totals, ruling.units)]
    return setup, hands


MONEY = tuple(v for v in VARIANTS if not VARIANTS[v].points_only)


@settings(max_examples=200, deadline=None)
@given(evenings(MONEY))
def test_every_money_hand_sums_to_zero_across_players_and_pool(evening: tuple[EveningSetup, list[HandFacts]]) -> None:
    setup, hands = evening
    ledger = settle_evening(setup, hands)
    running = [0] * setup.n
    pool = 0
    for row in ledger.rows:
        assert sum(row.ruling.units) + row.ruling.pool == 0
        running = [t + u for t, u in zip(running, row.ruling.units)]
        pool += row.ruling.pool
        assert tuple(running) == row.totals and row.pool == pool >= 0
    assert sum(ledger.totals) + ledger.pool == 0


@settings(max_examples=60, deadline=None)
@given(evenings(("napoleao",)))
def test_points_are_never_negative_and_only_awarded(evening: tuple[EveningSetup, list[HandFacts]]) -> None:
    setup, hands = evening
    ledger = settle_evening(setup, hands)
    for row in ledger.rows:
        assert all(u >= 0 for u in row.ruling.units) and row.ruling.pool == 0


@settings(max_examples=120, deadline=None)
@given(evenings())
def test_json_round_trip_gives_the_same_ledger(evening: tuple[EveningSetup, list[HandFacts]]) -> None:
    setup, hands = evening
    original = EveningFile(setup=setup, hands=hands, name="Round trip")
    again = load(dump(original))
    first, second = settle_evening(setup, hands), settle_evening(again.setup, again.hands)
    assert [r.ruling for r in first.rows] == [r.ruling for r in second.rows]
    assert first.totals == second.totals and again.setup == setup


@settings(max_examples=200, deadline=None)
@given(evenings(MONEY))
def test_settle_up_clears_every_balance_with_few_payments(evening: tuple[EveningSetup, list[HandFacts]]) -> None:
    from scorer.evening.settle import settle_up
    from scorer.rules import POOL

    setup, hands = evening
    ledger = settle_evening(setup, hands)
    result = settle_up(ledger)
    owed = {**dict(enumerate(result.balances)), POOL: result.pool_left}
    for p in result.payments:
        assert p.amount > 0 and p.payer != p.payee
        owed[p.payer] += p.amount
        owed[p.payee] -= p.amount
    assert all(v == 0 for v in owed.values())
    parties = setup.n + (1 if result.pool_left else 0)
    assert len(result.payments) <= parties - 1
    if not result.pool_left:
        assert len(result.payments) <= setup.n - 1
