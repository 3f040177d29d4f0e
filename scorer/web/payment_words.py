"""Payments after the night in words (issue 22 item 7): each settle-up payment and the
hands it settles in the phone's language ("Di pays Ann £1.00: hands 3 and 4"), and the
result card's text. Used by the payments page, the scoresheet's settle-up and the group page."""

from __future__ import annotations

from dataclasses import dataclass

from babel.lists import format_list
from flask_babel import gettext, ngettext

from ..evening.ledger import Ledger
from ..reports.words import day, locale_code, money, money_change, tr
from ..rules import Stake
from ..storage import payments
from ..storage.models import Evening


@dataclass(frozen=True)
class Line:
    """A payment as the pages say it: names, the amount, the hands in words, each hand's part."""

    transfer: payments.Transfer
    payer: str
    payee: str
    amount: str
    hands: str
    parts: tuple[str, ...]
    text: str


def party(ledger: Ledger, who: int | str) -> str:
    if isinstance(who, int):
        return ledger.setup.players[who]
    return str(tr(ledger.variant.pool_name(ledger.setup.options) or "pool"))


def hands_text(hands: tuple[int, ...]) -> str:
    """"hands 3, 7 and 12" in the phone's language ("hand 3" for one)."""
    listed = format_list([str(tr(h)) for h in hands], locale=locale_code())
    return ngettext("hand %(hands)s", "hands %(hands)s", len(hands), hands=listed)


def lines_of(ledger: Ledger, money_: payments.Money) -> list[Line]:
    """Every payment of the settle-up in words (see :class:`Line`)."""
    stake = ledger.setup.stake
    assert stake is not None
    out = []
    for t in money_.transfers:
        payer, payee, amount = party(ledger, t.payer), party(ledger, t.payee), money(stake, t.amount)
        hands = hands_text(t.explained.hands)
        parts = tuple(
            gettext("hand %(hand)s: %(amount)s", hand=p.hand, amount=money(stake, p.amount)) if p.amount == p.lost
            else gettext("hand %(hand)s: %(amount)s of the %(lost)s %(payer)s lost", hand=p.hand,
                         amount=money(stake, p.amount), lost=money(stake, p.lost), payer=payer)
            for p in t.explained.parts)
        text = gettext("%(payer)s pays %(payee)s %(amount)s: %(hands)s", payer=payer, payee=payee, amount=amount,
                       hands=hands)
        out.append(Line(t, payer, payee, amount, hands, parts, text))
    return out


def standings(ledger: Ledger, stake: Stake, money_: payments.Money) -> list[tuple[str, int]]:
    """(name, balance in minor units) by balance, highest first (the pool's share included)."""
    order = sorted(range(ledger.setup.n), key=lambda s: (-money_.settle.balances[s], s))
    return [(ledger.setup.players[s], money_.settle.balances[s]) for s in order]


def card_text(evening: Evening, ledger: Ledger, money_: payments.Money) -> str:
    """The result card as text, for the clipboard (the share sheet needs HTTPS)."""
    stake = ledger.setup.stake
    assert stake is not None
    out = [f"{evening.name} · {day(evening.played_on)}", "", gettext("Standings")]
    out += [f"{name}: {money_change(stake, balance)}" for name, balance in standings(ledger, stake, money_)]
    out += ["", gettext("Settle-up")]
    for line in lines_of(ledger, money_):
        out.append(("✓ " if line.transfer.mark else "") + line.text)
    if not money_.transfers:
        out.append(gettext("Nobody owes anything."))
    return "\n".join(out)


