"""The parts of a variant (scorer/rules/variants/: bidding, payments, pool, ending) are
objects a rule set declares, and a new rule set reuses them without subclassing the
variant they came from: hoyle's pool (H-16) and russian36's treasure (R-2, R-14 to R-17)
in a variant that is neither."""

from __future__ import annotations

from pathlib import Path

from scorer.rules import BIDS, EveningSetup, HandFacts, Result, Text
from scorer.rules.variants import VARIANTS
from scorer.rules.variants.base import Variant
from scorer.rules.variants.bidding import OneRoundAuction, SequenceAuction
from scorer.rules.variants.ending import DealsEach, OpenEnd, TargetOrHands
from scorer.rules.variants.hoyle import Hoyle
from scorer.rules.variants.payments import Points, Schedule, StakePerTrick
from scorer.rules.variants.pool import Pool, Treasure
from scorer.rules.variants.russian36 import Russian36

RULES_DIR = Path(__file__).resolve().parent.parent / "scorer" / "rules"


def test_each_variant_declares_its_parts() -> None:
    parts = {vid: (type(v.auction), type(v.scoring), type(v.pool), type(v.end))
             for vid, v in VARIANTS.items()}
    assert parts["pagat"] == (OneRoundAuction, Schedule, type(None), DealsEach)
    assert parts["hoyle"][0] is OneRoundAuction and isinstance(VARIANTS["hoyle"].scoring, Schedule)
    assert parts["hoyle"][2:] == (Pool, OpenEnd)
    assert parts["russian36"] == (SequenceAuction, StakePerTrick, Treasure, OpenEnd)
    assert parts["napoleao"] == (OneRoundAuction, Points, type(None), TargetOrHands)


class PoolNap(Variant):
    """A made-up rule set: pagat's bids and payments, hoyle's pool — not a Hoyle."""

    id = "pool-nap-test"
    name = Text("Pool Nap (test)")
    source = "test"
    min_players, max_players = 3, 6
    auction = OneRoundAuction("P-5", "P-6", "P-7")
    scoring = Schedule({"three": (3, 3), "four": (4, 4), "nap": (10, 5)}, "P-12", "P-6", "P-12")
    pool = Pool()
    end = DealsEach()
    option_specs = (*pool.option_specs, *end.option_specs)
    rule_players, rule_all_pass, rule_misdeal, rule_deal_passes = "P-1", "P-8", "P-16", "P-4"


class TreasureNap(PoolNap):
    """The same with russian36's treasure and stake per trick, and its one-round auction."""

    id = "treasure-nap-test"
    scoring = StakePerTrick()
    pool = Treasure()
    option_specs = (*scoring.option_specs, *pool.option_specs)

    def ladder(self, options):  # type: ignore[no-untyped-def]
        return (BIDS["three"], BIDS["four"], BIDS["napoleon"])


def test_the_pool_part_works_in_a_variant_that_is_not_hoyle() -> None:
    assert not issubclass(PoolNap, Hoyle)
    v = PoolNap()
    s = v.check_setup(EveningSetup(v.id, ("A", "B", "C"), 0, {"pool": True}, None))
    # A deals; opening stake 5 each and A's top-up 1 (pool 16); B fails Nap: pays 5 to
    # each opponent (P-12) and doubles the pool (H-16)
    first = v.settle(HandFacts(0, v.lone_bid_auction(s, 0, 1, "nap"), 4), s)
    assert first.result is Result.DEFEATED
    assert first.units == (-5 - 1 + 5, -5 - 10 - 16, -5 + 5) and first.pool == 16 + 16
    assert [r.rule for r in first.reasons].count("H-16") == 3
    # B deals and tops up (33); C makes Nap: 10 from each, and takes the whole pool
    second = v.settle(HandFacts(1, v.lone_bid_auction(s, 1, 2, "nap"), 5), s, first.state_after)
    assert second.units == (-10, -1 - 10, 20 + 33) and second.pool == 1 - 33
    assert second.state_after.pool == 0 and not second.state_after.pool_open
    assert v.pool_name(s.options) == "Pool" and v.rule_pool_end == "H-16" and v.deals_each(s) == 2
    assert v.pool_name(v.check_setup(EveningSetup(v.id, ("A", "B", "C"), 0, {}, None)).options) is None


def test_the_treasure_part_works_in_a_variant_that_is_not_russian36() -> None:
    assert not issubclass(TreasureNap, Russian36)
    v = TreasureNap()
    s = v.check_setup(EveningSetup(v.id, ("A", "B", "C"), 0, {}, None))
    assert v.stake_is_per_chip and v.pool_name(s.options) == "Treasure" and not v.sequence_auction
    # ante 5 each; B fails Three: pays 10 × 3 to each and 30 into the treasure
    lost = v.settle(HandFacts(0, v.lone_bid_auction(s, 0, 1, "three"), 2), s)
    assert lost.units == (-5 + 30, -5 - 60 - 30, -5 + 30) and lost.pool == 15 + 30
    # ante again (60); C makes Napoleon: 50 from each and the whole treasure
    won = v.settle(HandFacts(0, v.lone_bid_auction(s, 0, 2, "napoleon"), 5), s, lost.state_after)
    assert won.units == (-55, -55, -5 + 100 + 60) and won.pool == 15 - 60
    assert "R-15" in [r.rule for r in won.reasons] and won.state_after.pool == 0


def test_every_engine_module_is_at_most_500_lines() -> None:
    long = {p.name: n for p in RULES_DIR.rglob("*.py") if (n := len(p.read_text().splitlines())) > 500}
    assert long == {}


class AlwaysPoolNap(PoolNap):
    """A pool every table plays: no ``pool`` option to turn it off."""

    id = "always-pool-nap-test"
    pool = Pool(optional=False)
    option_specs = (*pool.option_specs, *PoolNap.end.option_specs)


def test_a_pool_that_is_not_optional_has_no_switch_and_is_always_played() -> None:
    v = AlwaysPoolNap()
    assert "pool" not in {spec.key for spec in v.option_specs}
    s = v.check_setup(EveningSetup(v.id, ("A", "B", "C"), 0, {}, None))
    assert [spec.key for spec, _ in v.describe_options(s.options)][:3] == ["pool_opening", "pool_top_up", "pool_at_end"]
    ruling = v.settle(HandFacts(0, v.lone_bid_auction(s, 0, None, None)), s)
    assert ruling.pool == 16 and v.pool_name(s.options) == "Pool" and v.pool_at_end(s.options) == "share"
