"""The evening as spreadsheets read it (CSV): the ledger, one row per hand and player,
and the score sheet in the reader's language with the settle-up."""

from __future__ import annotations

import csv
import io

from babel.numbers import get_decimal_symbol
from flask_babel import gettext

from ..evening.ledger import Ledger
from ..evening.settle import settle_up
from ..rules import isolate
from ..rules.currency import format_amount
from .presenters import result_label, seat_lines
from .words import locale_code, tr


def ledger_csv(ledger: Ledger) -> str:
    """The ledger for spreadsheets: one row per hand and player (units, money in the
    currency's smallest unit, running total), with the hand's result and rule ids."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["hand", "dealer", "declarer", "contract", "tricks", "result", "player", "units", "money_minor",
                     "running_total", "pool_change", "disputed", "rules"])
    names = tuple(_csv_text(n) for n in ledger.setup.players)  # every column with a name
    stake = ledger.setup.stake
    for row in ledger.rows:
        r = row.ruling
        for seat, units in enumerate(r.units):
            writer.writerow([
                row.number, names[r.dealer], "" if r.declarer is None else names[r.declarer],
                r.contract.name if r.contract else "", "" if r.tricks is None else r.tricks, r.result.value,
                names[seat], units, "" if stake is None else units * stake.minor, row.totals[seat],
                r.pool if seat == 0 else "", "yes" if row.facts.claims or r.overruled else "",
                " ".join(r.rule_ids),
            ])
    return out.getvalue()


def score_sheet_csv(ledger: Ledger) -> str:
    """The score sheet as a spreadsheet opens it, in the phone's language: one row per
    hand (its number, dealer, contract, tricks and result), one column per player with
    the running total in units (points), the pool's holding if the table plays with one
    (blank for a player not at the table for that hand: before they joined, after they
    left); each change of seats a line of its own before the hand it comes before;
    in a money evening a last row gives the settle-up in currency units: each player's
    balance (total and share of the pool to the penny, :func:`~scorer.evening.settle.settle_up`),
    and what stays in the pool, so the row sums to zero. Numbers are written for the language (``1,20`` in Russian,
    Norwegian and Portuguese, whose spreadsheets then expect ``;`` between cells) with a
    plain ``-`` a spreadsheet reads as a number; UTF-8 with a byte-order mark, so that
    Excel on Windows reads Cyrillic or Chinese names right. A right-to-left name beside other
    words (the contract, "محمد: Four") is isolated (:func:`scorer.rules.isolate`); a cell that
    holds a name alone holds it as typed."""
    setup = ledger.setup
    point = get_decimal_symbol(locale_code())
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";" if point == "," else ",")
    pool_name = ledger.variant.pool_name(setup.options)
    names = [_csv_text(name) for name in setup.players]
    writer.writerow([gettext("Hand"), gettext("Dealer"), gettext("Contract"), gettext("Tricks"), gettext("Result"),
                     *names, *([_csv_text(tr(pool_name))] if pool_name else [])])
    changes = seat_lines(ledger)
    width = 5 + len(names) + (1 if pool_name else 0)

    def say_changes(number: int) -> None:  # a join, leave or rename: its own line, before its hand
        for line in changes.get(number, ()):
            writer.writerow([_csv_text(line)] + [""] * (width - 1))

    for row in ledger.rows:
        say_changes(row.number)
        r = row.ruling
        contract = ""
        if r.contract and r.declarer is not None:
            contract = f"{isolate(names[r.declarer])}: {tr(r.contract.name)}"
        # a player not at the table for this hand (not joined yet, or gone) has no total in it
        totals = [t if not row.seated or seat in row.seated else "" for seat, t in enumerate(row.totals)]
        writer.writerow([row.number, names[r.dealer], contract, "" if r.tricks is None else r.tricks,
                         result_label(row), *totals, *([row.pool] if pool_name else [])])
    say_changes(len(ledger.rows) + 1)
    stake = setup.stake
    if stake is not None and ledger.rows:
        settle = settle_up(ledger)
        label = gettext("Settle-up (%(currency)s)", currency=stake.currency) if stake.currency else gettext("Settle-up")
        scale = 1 if settle.money else stake.minor  # a money evening's settle-up is in pence already
        writer.writerow([_csv_text(label), "", "", "", "",
                         *(_decimal(balance * scale, point, stake.digits) for balance in settle.balances),
                         *([_decimal(settle.pool_left * scale, point, stake.digits)] if pool_name else [])])
    return "\ufeff" + out.getvalue()


def _decimal(minor: int, point: str, digits: int = 2) -> str:
    """Minor currency units (pence, yen) as currency units for a spreadsheet: ``-1,20``
    (the currency's ``digits`` decimals — none for yen: ``-5`` —, the language's decimal
    ``point``, an ASCII minus, no grouping)."""
    text = format_amount(minor, digits)
    return ("-" if minor < 0 else "") + text.replace(".", point)



def _csv_text(value: str) -> str:
    """Keep a spreadsheet from reading a name such as ``=HYPERLINK(…)`` as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value
