"""A stake as the evening file and the forms write it: a decimal string of the currency's
main unit (``"0.10"``, ``"5"`` yen), held as an integer of the currency's own smallest unit
(10 pence, 5 yen, 125 fils: :mod:`scorer.rules.currency`). Pure Python."""

from __future__ import annotations

import re
from decimal import Decimal

from ..rules import Text, ntext
from ..rules.currency import currency_code, format_amount, max_stake, minor_digits


def parse_stake(amount: str, currency: str = "") -> int:
    """A stake as the file writes it — a decimal with a dot — in the currency's minor units
    (:func:`stake_minor`): ``"0.10"`` → 10 (pence), ``("5", "JPY")`` → 5 (yen),
    ``("5.00", "JPY")`` → 5, ``("0.125", "KWD")`` → 125 (fils). Raises ``ValueError``
    with a :class:`~scorer.rules.Text` for anything but such a number."""
    text = amount.strip() if isinstance(amount, str) else ""
    if not re.fullmatch(r"[0-9]{1,20}(\.[0-9]{1,20})?", text):
        raise ValueError(Text("The stake must be a number such as 0.10."))
    return stake_minor(Decimal(text), currency)


def stake_minor(value: Decimal, currency: str = "") -> int:
    """A stake of ``value`` main units of ``currency`` (a label: ``"£"``, ``"JPY"``) in
    that currency's minor units (:func:`scorer.rules.currency.minor_digits`: 0.50 £ → 50,
    5 JPY → 5, 0.125 KWD → 125). Raises ``ValueError`` with a :class:`~scorer.rules.Text`
    when it is not more than zero, more than :func:`~scorer.rules.currency.max_stake`, or
    finer than the currency's smallest unit (half a yen; 0.001 £), saying so in words
    (issue 25 item 13)."""
    digits = minor_digits(currency)
    if not value.is_finite() or value <= 0:
        raise ValueError(Text("The stake must be more than zero."))
    limit = max_stake(digits)
    if value > limit:
        raise ValueError(Text("The stake can be at most {limit}.", limit=limit))
    minor = value.scaleb(digits)
    if minor != minor.to_integral_value():
        raise ValueError(too_fine(currency))
    return int(minor)


def too_fine(currency: str) -> Text:
    """Why a stake finer than its currency's smallest unit is refused, naming the currency:
    "The stake must be a whole number: JPY has no smaller unit than 1.", "The stake can
    have at most 2 decimal places for GBP." (without a currency label: "two")."""
    digits, code = minor_digits(currency), currency_code(currency)
    if digits == 0:
        return Text("The stake must be a whole number: {currency} has no smaller unit than 1.", currency=code)
    if not code:
        return Text("The stake can have at most two decimal places.")
    return ntext("The stake can have at most {n} decimal place for {currency}.",
                 "The stake can have at most {n} decimal places for {currency}.", digits, currency=code)


def format_stake(minor: int, currency: str = "") -> str:
    """A stake in minor units as the file writes it, with the currency's decimals: 10 →
    ``"0.10"``, ``(5, "JPY")`` → ``"5"``, ``(125, "KWD")`` → ``"0.125"``."""
    return format_amount(minor, minor_digits(currency))
