"""A stake as the evening file and the forms write it: a decimal string of the currency's
main unit (``"0.10"``), held as an integer of its smallest unit (10). Pure Python."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from ..rules import Text

MAX_STAKE_MINOR = 100_000_000  # 1,000,000.00 in the currency's main unit


def parse_stake(amount: str) -> int:
    """``"0.10"`` → 10 (minor units). Raises ``ValueError`` for anything but a positive
    decimal with at most two places and at most 1,000,000."""
    text = amount.strip() if isinstance(amount, str) else ""
    if not re.fullmatch(r"[0-9]{1,7}(\.[0-9]+)?", text):
        raise ValueError(Text("The stake must be a number such as 0.10."))
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ValueError(Text("The stake must be a number such as 0.10.")) from None
    if not value.is_finite() or value <= 0:
        raise ValueError(Text("The stake must be more than zero."))
    minor = value * 100
    if minor != minor.to_integral_value():
        raise ValueError(Text("The stake can have at most two decimal places."))
    if minor > MAX_STAKE_MINOR:
        raise ValueError(Text("The stake can be at most 1000000."))
    return int(minor)


def format_stake(minor: int) -> str:
    """10 → ``"0.10"``."""
    return f"{minor // 100}.{minor % 100:02d}"
