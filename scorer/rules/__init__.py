"""The rules engine: pure Python, facts in, rulings out.

Nothing here imports Flask, SQLAlchemy or WTForms. Use :func:`get_variant` to find a
variant by id, then :meth:`Variant.settle` for one hand, or
:func:`scorer.evening.ledger.settle_evening` for a whole evening.
"""

from .claims import CLAIM_KINDS
from .core import (
    BIDS,
    HERE,
    N_,
    PASS,
    POOL,
    SEAT_CHANGE_KINDS,
    Bid,
    Claim,
    EveningSetup,
    HandFacts,
    IllegalAuction,
    IllegalFacts,
    IllegalSetup,
    Override,
    Reason,
    Result,
    RulesError,
    Ruling,
    SeatChange,
    Stake,
    TableState,
    Text,
    clean_text,
    isolate,
    listing,
    ntext,
    right_to_left,
)
from .sources import RULES, Rule, rule
from .variants import VARIANTS, Variant, get_variant

__all__ = [
    "BIDS", "CLAIM_KINDS", "Claim", "HERE", "PASS", "POOL", "TableState", "Bid", "EveningSetup", "HandFacts",
    "IllegalAuction", "IllegalFacts", "IllegalSetup", "Override", "Reason", "Result", "Ruling", "RulesError", "Stake",
    "SEAT_CHANGE_KINDS", "SeatChange",
    "Text", "N_", "ntext", "listing", "clean_text", "isolate", "right_to_left", "RULES", "Rule", "rule",
    "VARIANTS", "Variant", "get_variant",
]
