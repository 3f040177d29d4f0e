"""The contract's result and the pool (treasure) movements are shown apart, so that a
player can check the contract's figure against the rule (H-11, R-13) at a glance."""

from __future__ import annotations

import io
from typing import Any

from pypdf import PdfReader

from scorer.rules import HandFacts, get_variant
from tests.helpers import rule_on, setup
from tests.webhelpers import post_hand, start_evening

NAMES = ("Ada", "Bea", "Cy", "Dov")


def test_hoyle_made_three_with_the_pool() -> None:
    """H-16: a new pool, 5 from each, and Ada (dealing) adds 1; H-11: Bea (eldest) makes
    Three, 3 from each of 3 opponents. Contract: Bea +9, the others −3; pool: Ada −6, the
    others −5; together Bea +4, Ada −9, Cy −8, Dov −8, and the pool gains 21."""
    r = rule_on(setup("hoyle", NAMES, pool=True), 0, ["three", "pass", "pass", "pass"], 3)
    assert r.contract_units == (-3, 9, -3, -3)
    assert r.pool_units == (-6, -5, -5, -5)
    assert r.units == (-9, 4, -8, -8) and r.pool == 21


def test_russian36_made_two_with_the_ante() -> None:
    """R-2: everyone antes 5 into the treasure; R-13: Ada (dealer, speaking first) bids Two
    and takes 2, 10 a trick from each of 3: +60. Together +55, the others −20 − 5 = −25."""
    s = setup("russian36", NAMES)
    r = get_variant("russian36").settle(HandFacts(0, ("two", "pass", "pass", "pass"), 2), s)
    assert r.contract_units == (60, -20, -20, -20) and r.pool_units == (-5, -5, -5, -5)
    assert r.units == (55, -25, -25, -25) and r.pool == 20


def test_no_pool_no_split() -> None:
    r = rule_on(setup("hoyle", NAMES), 0, ["three", "pass", "pass", "pass"], 3)
    assert r.pool_units == () and r.contract_units == r.units == (-3, 9, -3, -3)


def test_overruled_figures_are_not_split() -> None:
    from scorer.rules import Override

    s = setup("hoyle", NAMES, pool=True)
    facts = HandFacts(0, ("three", "pass", "pass", "pass"), 3,
                      override=Override((-10, 10, -5, -5), "agreed at the table", 10))
    r = get_variant("hoyle").settle(facts, s)
    assert r.pool_units == () and r.contract_units == (-10, 10, -5, -5)


def test_scoresheet_and_pdf_show_the_pool_on_a_line_of_its_own(client: Any) -> None:
    key = start_evening(client, "hoyle", NAMES, opt_pool="y", opt_pool_opening="5", opt_pool_top_up="1")
    assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    # bold: the contract's +9 as in H-11; below it Bea's stake into the pool; then her total
    assert '<span class="chg">+9</span><span class="pmv">pool −5</span><span class="run">+4</span>' in page
    assert '<span class="chg">−3</span><span class="pmv">pool −6</span><span class="run">−9</span>' in page
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(client.get(f"/e/{key}/evening.pdf").data)).pages)
    assert "In or out of the pool (H-16) −6 −5 −5 −5" in text
