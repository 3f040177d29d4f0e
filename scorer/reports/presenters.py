"""What the pages and the PDF show of an evening, in the reader's language: the
auction of a hand with who made each call, a call's and a result's label, a rule's
citation, a change of seats, a season's book title. Request-independent (the language
is :mod:`scorer.reports.words`'s), so the PDF and the pages say the same."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext
from flask_babel import gettext as _

from ..evening.file import dump_seat_change
from ..evening.ledger import Ledger, LedgerRow, table_ledger, to_table
from ..evening.season import Book
from ..rules import BIDS, HERE, PASS, RULES, VARIANTS, Result, isolate
from .words import money, tr


def seat_change_text(item: Mapping[str, Any]) -> str:
    """A change of seats in the evening file's form (``{"before_hand": 9, "join": "Eve",
    "left_of": "Bob"}``, ``leave``, ``rename``/``from``) as one line in the phone's
    language: "Eve joined before hand 9, on Bob's left" (issue 12); a right-to-left name is
    isolated (:func:`scorer.rules.isolate`), so the hand's number stays after it."""
    number = item.get("before_hand", 0)
    if "join" in item:
        return gettext("%(name)s joined before hand %(n)s, sitting on the left of %(left)s", name=isolate(item["join"]),
                       n=number, left=isolate(item.get("left_of", "")))
    if "leave" in item:
        return gettext("%(name)s left before hand %(n)s", name=isolate(item["leave"]), n=number)
    return gettext("%(old)s is now called %(name)s (before hand %(n)s)", old=isolate(item.get("from", "")),
                   name=isolate(item.get("rename", "")), n=number)


def seat_lines(ledger: Ledger) -> dict[int, list[str]]:
    """The ledger's changes of seats as lines of text by the hand they come before."""
    lines: dict[int, list[str]] = {}
    for change in ledger.changes:
        lines.setdefault(change.before_hand, []).append(
            seat_change_text(dump_seat_change(change, ledger.setup.players)))
    return lines


def call_label(call: str) -> str:
    """A call as shown on a button: «Здесь» (R-6: the same word in every language), Pass, the bid's name."""
    if call == HERE:
        return "«Здесь»"
    if call == PASS:
        return gettext("Pass")
    return tr(BIDS[call].name) if call in BIDS else call


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
        return tr(BIDS[self.call].name) if self.call in BIDS else self.call


def auction_of(ledger: Ledger, row: LedgerRow) -> list[Call]:
    """The calls of a hand with the player who made each, eldest hand first."""
    setup = ledger.setup
    if row.seated and row.seated != tuple(range(setup.n)):  # the table of that hand (issue 12)
        local = table_ledger(ledger, row.seated)
        facts = to_table(row.facts, row.seated, setup.players)
        return [Call(local.setup.players[seat], call)
                for seat, call in zip(ledger.variant.speakers(local.setup, facts), facts.auction)]
    seats = ledger.variant.speakers(setup, row.facts)
    return [Call(setup.players[seat], call) for seat, call in zip(seats, row.facts.auction)]


def result_label(row: LedgerRow) -> str:
    r = row.ruling
    return {Result.MADE: _("made"), Result.DEFEATED: _("defeated"), Result.ALL_PASSED: _("all passed"),
            Result.MISDEAL: _("misdeal")}[r.result]


def citation(rule_id: str) -> str:
    """``P-12 · 002_….txt · «Poeng og avslutning»``, or the id alone if unknown. The
    section heading is the source's own; "(source silent)" is said in the phone's language."""
    where = rule_source(rule_id)
    return f"{rule_id} · {where}" if where else rule_id


def rule_source(rule_id: str) -> str:
    """Where a rule comes from, without its id (for a line that shows the id already):
    ``002_….txt · «Poeng og avslutning»``; ``""`` if the id is unknown."""
    rule = RULES.get(rule_id)
    if rule is None:
        return ""
    section = _("(source silent)") if rule.section == "(source silent)" else rule.section
    return f"{rule.source} · «{section}»"


def book_title(book: Book) -> str:
    """``British Nap, basic (Pagat) · points`` or ``… · £0.10 a unit``."""
    variant = VARIANTS.get(book.key.variant)
    name = tr(variant.name) if variant else book.key.variant
    if book.stake is None:
        return _("%(variant)s · points", variant=name)
    return _("%(variant)s · %(stake)s a unit", variant=name, stake=money(book.stake, book.stake.minor))
