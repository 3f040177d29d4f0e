"""Helpers that turn ledger rows into what pages and the PDF show, in the phone's language."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import gettext as _

from .. import i18n
from ..ledger import Ledger, LedgerRow
from ..rules import BIDS, HERE, PASS, RULES, Result


@dataclass(frozen=True)
class Call:
    player: str
    call: str

    @property
    def label(self) -> str:
        if self.call == PASS:
            return _("pass")
        if self.call == HERE:
            return "«Здесь»"  # the dealer's word, the same in every language
        return i18n.tr(BIDS[self.call].name) if self.call in BIDS else self.call


def auction_of(ledger: Ledger, row: LedgerRow) -> list[Call]:
    """The calls of a hand with the player who made each, eldest hand first."""
    setup = ledger.setup
    seats = ledger.variant.speakers(setup, row.facts)
    return [Call(setup.players[seat], call) for seat, call in zip(seats, row.facts.auction)]


def result_label(row: LedgerRow) -> str:
    r = row.ruling
    return {Result.MADE: _("made"), Result.DEFEATED: _("defeated"), Result.ALL_PASSED: _("all passed"),
            Result.MISDEAL: _("misdeal")}[r.result]


def citation(rule_id: str) -> str:
    """``P-12 · 002_….txt · «Poeng og avslutning»``, or the id alone if unknown. The
    section heading is the source's own; "(source silent)" is said in the phone's language."""
    rule = RULES.get(rule_id)
    if rule is None:
        return rule_id
    if rule.section == "(source silent)":
        silent = _("(source silent)")
        return f"{rule.id} · {rule.source} · «{silent}»"
    return rule.citation


def signed(n: int) -> str:
    """``+4``, ``−12`` (a real minus sign), ``0``; digits grouped for the language."""
    return i18n.signed(n)
