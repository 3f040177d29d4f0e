"""Every evening in examples/ settles to the totals worked out by hand beside it
(examples/README.md shows the working)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer.evening.file import loads
from scorer.evening.ledger import settle_evening
from scorer.evening.settle import settle_up

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FILES = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))


def test_there_are_examples() -> None:
    assert {p.name for p in FILES} >= {"pagat-thursday.json", "hoyle-five.json", "russian36-treasure.json",
                                       "napoleao-sexta.json", "hoyle-peep-pool.json", "hoyle-garnet.json"}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_example_settles_to_hand_worked_totals(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text("utf-8"))
    evening = loads(path.read_bytes())
    ledger = settle_evening(evening.setup, evening.hands)
    names = evening.setup.players
    assert dict(zip(names, ledger.totals)) == expected["totals"]
    assert ledger.pool == expected["pool"]
    assert ledger.hands_remaining == expected["hands_remaining"]
    assert names[ledger.next_dealer] == expected["next_dealer"]
    if "money_totals" in expected:
        assert ledger.money_totals is not None
        assert dict(zip(names, ledger.money_totals)) == expected["money_totals"]
    if "settle_up" in expected:
        result = settle_up(ledger)
        assert dict(zip(names, result.balances)) == expected["settle_up"]["balances"]
        assert result.pool_left == expected["settle_up"]["pool_left"]
    if "end_reached" in expected:
        assert ledger.end_reached == expected["end_reached"]
        assert [names[s] for s in ledger.winners] == expected["winners"]


def test_pagat_example_has_the_required_hands() -> None:
    evening = loads((EXAMPLES / "pagat-thursday.json").read_bytes())
    ledger = settle_evening(evening.setup, evening.hands)
    results = [(r.ruling.result.value, r.ruling.contract.id if r.ruling.contract else None) for r in ledger.rows]
    assert len(ledger.rows) >= 12 and evening.setup.n == 4
    assert ("made", "wellington") in results
    assert ("defeated", "nap") in results
    assert ("all passed", None) in results


def test_hoyle_example_has_a_blucher() -> None:
    evening = loads((EXAMPLES / "hoyle-five.json").read_bytes())
    ledger = settle_evening(evening.setup, evening.hands)
    assert evening.setup.n == 5
    assert any(r.ruling.contract and r.ruling.contract.id == "blucher" for r in ledger.rows)


def test_referee_example_has_every_claim_kind_and_an_override() -> None:
    evening = loads((EXAMPLES / "hoyle-referee.json").read_bytes())
    kinds = {(c.kind, c.upheld) for h in evening.hands for c in h.claims}
    assert {"revoke", "wrong_cards", "out_of_turn"} <= {k for k, _ in kinds} and ("revoke", False) in kinds
    assert any(h.override for h in evening.hands)
