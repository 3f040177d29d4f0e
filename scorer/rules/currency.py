"""Currencies' minor units (pure Python: the engine cannot import Babel).

A money stake is kept as a whole number of the currency's own smallest unit: pence for
``£``/``GBP`` (two decimals), yen for ``JPY`` (none: there is no half yen), fils for
``KWD`` (three decimals). The number of decimals of a currency is ISO 4217's "minor
unit" as the Unicode CLDR gives it — the figure Babel formats amounts with
(``babel.numbers.get_currency_precision``); :data:`MINOR_DIGITS` is a copy of every
currency whose figure is not 2, and a test checks it against Babel's data for every
currency Babel knows (issue 25 item 13).

A stake's currency is a label typed by the table: an ISO code in any case (``"jpy"``),
one of the symbols of :data:`SYMBOLS`, or anything else (``"kr"``, ``"chips"``, ``""``),
which is counted in hundredths as before.
"""

from __future__ import annotations

#: Currency symbols people type, and the ISO 4217 code they stand for. (``¥`` is left
#: out: it is the yen's sign and the yuan's, which have different minor units.)
SYMBOLS = {"£": "GBP", "€": "EUR", "₽": "RUB", "R$": "BRL", "$": "USD", "円": "JPY", "₩": "KRW"}
#: Currency names typed as labels, compared in lower case ("Yen" → JPY). "¥" is not here:
#: the yen and the Chinese yuan (2 decimals) share it, so it keeps the default 2 decimals.
NAMES = {"yen": "JPY", "won": "KRW"}

#: Decimals of every currency whose minor unit is not 2 (ISO 4217 as in CLDR 46, Babel
#: 2.19: ``get_currency_precision``); every other currency, and any label that is no
#: currency code, has 2.
MINOR_DIGITS: dict[str, int] = {
    # no minor unit in use
    "ADP": 0, "AFN": 0, "ALL": 0, "BIF": 0, "BYR": 0, "CLP": 0, "COP": 0, "DJF": 0, "ESP": 0, "GNF": 0,
    "HUF": 0, "IDR": 0, "IQD": 0, "IRR": 0, "ISK": 0, "ITL": 0, "JPY": 0, "KMF": 0, "KPW": 0, "KRW": 0,
    "LAK": 0, "LBP": 0, "LUF": 0, "MGA": 0, "MGF": 0, "MMK": 0, "MRO": 0, "PYG": 0, "RWF": 0, "SLL": 0,
    "SOS": 0, "STD": 0, "SYP": 0, "TMM": 0, "TRL": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0,
    "XOF": 0, "XPF": 0, "YER": 0, "ZMK": 0, "ZWD": 0,
    # thousandths (fils, baisa, millimes, dirhams)
    "BHD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
    # ten-thousandths (units of account)
    "CLF": 4, "UYW": 4,
}

#: The default: hundredths (pence, cents, kopecks, øre, centavos).
DEFAULT_DIGITS = 2

#: The largest stake, in the currency's main unit (1,000,000 yen, pounds, dinars) ...
MAX_STAKE = 1_000_000
#: ... and in minor units whatever the currency (a stake is stored in a 32-bit column):
#: 1,000,000.0000 CLF would not fit, so a currency with four decimals goes to 100,000.
MAX_STAKE_MINOR = 1_000_000_000


def currency_code(label: str) -> str:
    """The ISO 4217 code a currency label stands for if it is one (``"£"`` → ``"GBP"``,
    ``" jpy "``, ``"円"``, ``"Yen"`` → ``"JPY"``); otherwise the label as typed, stripped (``"kr"``)."""
    label = (label or "").strip()
    if label in SYMBOLS:
        return SYMBOLS[label]
    if label.lower() in NAMES:
        return NAMES[label.lower()]
    code = label.upper()
    return code if len(code) == 3 and code.isascii() and code.isalpha() else label


def minor_digits(label: str) -> int:
    """How many decimals the currency a label stands for has: ``"JPY"`` 0, ``"£"`` 2,
    ``"kwd"`` 3; 2 for a label that is no currency code (``"kr"``, ``""``)."""
    return MINOR_DIGITS.get(currency_code(label), DEFAULT_DIGITS)


def max_stake(digits: int) -> int:
    """The largest stake in the currency's main unit: :data:`MAX_STAKE`, less for a
    currency with so many decimals that it would not fit :data:`MAX_STAKE_MINOR`."""
    return min(MAX_STAKE, MAX_STAKE_MINOR // 10**digits)


def format_amount(minor: int, digits: int) -> str:
    """An amount in minor units as a plain decimal with the currency's decimals, no sign
    and no grouping: ``(10, 2)`` → ``"0.10"``, ``(5, 0)`` → ``"5"``, ``(125, 3)`` → ``"0.125"``."""
    whole, part = divmod(abs(minor), 10**digits)
    return f"{whole}.{part:0{digits}d}" if digits else str(whole)
