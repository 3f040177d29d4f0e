"""The claim registry (scorer/rules/claims.py) is the one list of claim kinds; the lists
that must stay literal (the JSON schema's enum) are checked against it here. And a fact
of a hand is a positive list per variant: a fact another variant has is refused, citing
the rule that has it (B-7 trump, R-9 purchase, H-17 widow, H-18 Peep Nap)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from scorer.rules import HERE, RULES, Claim, HandFacts, IllegalAuction, IllegalFacts, RulesError, Text, get_variant
from scorer.rules.claims import CLAIM_KINDS, NEEDS, ClaimKind, claim_rules
from scorer.rules.variants import VARIANTS
from scorer.rules.variants.base import COMMON_FACTS, VARIANT_FACTS
from scorer.storage import disputes, models
from tests.helpers import rule_on, setup

ROOT = Path(__file__).resolve().parent.parent


def test_the_schema_enum_of_claim_kinds_is_the_registry() -> None:
    schema = json.loads((ROOT / "scorer/schema/evening.schema.json").read_text("utf-8"))
    claim = schema["properties"]["hands"]["items"]["properties"]["claims"]["items"]
    assert claim["properties"]["kind"]["enum"] == list(CLAIM_KINDS)


def test_disputes_and_models_read_the_registry() -> None:
    assert models.DISPUTE_KINDS == (*CLAIM_KINDS, "misdeal", "score")
    assert disputes.ACCUSING == tuple(k for k, kind in CLAIM_KINDS.items() if kind.accuses)
    # the column holds a kind: every kind fits
    assert all(len(k) <= models.Dispute.__table__.c.kind.type.length for k in models.DISPUTE_KINDS)


def test_every_kind_names_known_rules_and_form_parts() -> None:
    for kind in CLAIM_KINDS.values():
        assert set(kind.needs) <= set(NEEDS), kind.id
        assert set(kind.rules) <= set(VARIANTS), kind.id
        assert all(rule in RULES for rule in kind.rules.values()), kind.id
        assert all(isinstance(t, Text) for t in (kind.name, kind.label, kind.word, kind.dispute)), kind.id
    for variant in VARIANTS.values():
        assert variant.claim_rules == claim_rules(variant.id)
    assert list(get_variant("hoyle").claim_rules)[:3] == ["revoke", "wrong_cards", "out_of_turn"]
    assert get_variant("pagat").claim_rules["revoke"] == "P-16"


def test_every_form_part_has_its_place_in_the_template_and_its_css_rule() -> None:
    css = (ROOT / "static/app.css").read_text("utf-8")
    template = (ROOT / "templates/hand_form.html").read_text("utf-8")
    for need in NEEDS:
        assert f"[data-needs~={need}]" in css and f"[data-part={need}]" in css, need
        assert re.search(rf'data-part="{need}"', template), need
    assert "value=wrong_cards" not in css and "value=revoke" not in css  # no per-kind rules


def test_a_new_kind_needs_only_the_registry_in_the_engine(monkeypatch: Any) -> None:
    """A kind added to the registry is ruled on by the variants it names, with its hook."""

    def fine(variant: Any, facts: Any, setup_: Any, tally: Any, declarer: int, contract: Any, claim: Claim) -> None:
        tally.pay(claim.accused, declarer, 1)
        tally.note("P-16", "Upheld: {who} talked during play and pays 1.", who=tally.name(claim.accused))

    talk = ClaimKind("talking", Text("talking"), Text("Talking"), Text("talking"), Text("Talking during play"),
                     needs=("trick",), accuses=True, rules={"pagat": "P-16"},
                     describe=lambda who, claim: Text("{who} talked", who=who), settle=fine)
    monkeypatch.setitem(CLAIM_KINDS, "talking", talk)
    s = setup("pagat")
    ruling = get_variant("pagat").settle(HandFacts(0, ("three", "pass", "pass", "pass"), 3,
                                                   claims=(Claim("talking", accused=2, upheld=True),)), s)
    assert ruling.units == (-3, 10, -4, -3) and "P-16" in ruling.rule_ids
    with pytest.raises(IllegalFacts, match="no rule for a “talking” claim"):
        rule_on(setup("hoyle"), 0, ["three", "pass", "pass", "pass"], 3, claims=(Claim("talking", 2, True),))


#: A real fact of each variant that the others do not have.
FOREIGN = {
    "trump": dict(trump="H"),  # napoleao B-7
    "purchase": dict(purchase=True),  # russian36 R-9
    "widow": dict(widow=True),  # hoyle H-17
    "peeks": dict(peeks=(1,)),  # hoyle H-18
}


def test_the_facts_are_every_field_of_a_hand() -> None:
    assert COMMON_FACTS | set(VARIANT_FACTS) == {f.name for f in dataclasses.fields(HandFacts)}
    assert all(v.facts <= set(VARIANT_FACTS) for v in VARIANTS.values())


@pytest.mark.parametrize("variant_id", sorted(VARIANTS))
def test_each_variant_refuses_the_facts_it_does_not_declare(variant_id: str) -> None:
    variant = get_variant(variant_id)
    s = setup(variant_id)
    auction = ("pass", "three", "pass", "pass") if variant.sequence_auction else ("three", "pass", "pass", "pass")
    refused = [name for name in VARIANT_FACTS if name not in variant.facts]
    assert refused, variant_id
    for name in refused:
        with pytest.raises(IllegalFacts) as error:
            variant.settle(HandFacts(0, auction, 3, **FOREIGN[name]), s)
        assert error.value.rule == VARIANT_FACTS[name].rule, (variant_id, name)
        assert error.value.message == VARIANT_FACTS[name].message


def test_here_is_a_call_of_russian36_only() -> None:
    for variant_id in ("pagat", "hoyle", "napoleao"):
        with pytest.raises(IllegalAuction) as error:
            rule_on(setup(variant_id), 0, ["three", "pass", "pass", HERE], 3)
        assert isinstance(error.value, RulesError) and error.value.rule and "'here'" in str(error.value)
