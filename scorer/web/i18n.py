"""Languages (Flask-Babel): English, Russian, Norwegian Bokmål, Brazilian Portuguese.

The language is chosen per phone: the ``lang`` cookie set from the language menu
(``GET /lang/<code>?next=<path>``), else the browser's ``Accept-Language``, else
English. Catalogs live in ``scorer/translations/<locale>/LC_MESSAGES/messages.po``
(compiled ``.mo`` beside, committed; ``scripts/translations`` refreshes both).

The rules engine never translates: its rulings and errors carry English templates
and params (:class:`scorer.rules.Text`, :class:`scorer.rules.Reason`). The helpers
here translate them at display time: the template is looked up in the catalog and
filled with the params, each param that is ``Text`` translated in turn (a bid's
name, a suit, a nested phrase), numbers formatted for the language, and player
names left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from babel.dates import format_datetime as babel_format_datetime
from babel.dates import get_timezone_location
from babel.numbers import (
    NumberFormatError,
    format_currency,
    format_decimal,
    get_currency_name,
    get_decimal_symbol,
    get_group_symbol,
    parse_decimal,
)
from flask import Blueprint, Flask, Response, has_request_context, redirect, request
from flask_babel import format_date as _format_date
from flask_babel import get_locale, get_translations

from ..evening.file import EveningFileError
from ..evening.zones import in_zone, valid_zone, zone_info
from ..rules import Reason, RulesError, Stake, Text
from ..rules.core import Amount
from .access import permission
from .extensions import babel

#: The compiled catalogs (``scorer/translations/<locale>/LC_MESSAGES/messages.mo``).
TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"

#: Locale code → the language's own name (shown in the language menu).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "ru": "Русский",
    "nb": "Norsk bokmål",
    "pt_BR": "Português (Brasil)",
}

COOKIE = "lang"
#: The language cookie lasts a year: a phone keeps its language from evening to evening.
COOKIE_AGE = 365 * 24 * 3600
MINUS = "\u2212"

bp = Blueprint("i18n", __name__)


def select_locale() -> str:
    """The phone's language: its ``lang`` cookie, else the best match for the browser;
    English outside a request (the CLI, the demo loader, tests of the services)."""
    if not has_request_context():
        return "en"
    chosen = request.cookies.get(COOKIE, "")
    if chosen in LANGUAGES:
        return chosen
    # "no" and "nn" readers read Bokmål; "pt" (any region) gets Brazilian Portuguese
    offered = [*LANGUAGES, "no", "nn", "pt", "pt_PT"]
    best = request.accept_languages.best_match([code.replace("_", "-") for code in offered], default="en")
    best = best.replace("-", "_")
    return {"no": "nb", "nn": "nb", "pt": "pt_BR", "pt_PT": "pt_BR"}.get(best, best)


def locale_code() -> str:
    """The current language's code (``"en"``, ``"ru"``, ``"nb"``, ``"pt_BR"``); ``"en"`` outside a request."""
    try:
        return str(get_locale() or "en")
    except RuntimeError:  # no app or request context (the CLI)
        return "en"


# ----------------------------------------------------------------- the engine's text
def _gettext(message: str) -> str:
    """The catalog's translation of ``message`` (no %-formatting: engine templates use ``{}``)."""
    if not message:
        return message
    try:
        return get_translations().ugettext(message)
    except RuntimeError:
        return message


def _ngettext(singular: str, plural: str, n: int) -> str:
    try:
        return get_translations().ungettext(singular, plural, n)
    except RuntimeError:
        return singular if n == 1 else plural


def render(message: str, params: Mapping[str, Any]) -> str:
    """``message`` translated and filled with ``params``, each translated (see :func:`tr`)."""
    return _gettext(message).format(**{k: tr(v) for k, v in params.items()})


def tr(value: Any) -> Any:
    """Translate what the engine says: a :class:`Text` (recursively), an int (a number for
    the language); anything else (a player's name, a card) is returned as it is."""
    if isinstance(value, Text):
        if value.plural is not None and value.n is not None:
            template = _ngettext(value.message, value.plural, value.n)
        else:
            template = _gettext(value.message)
        if not value.params:
            return template
        return template.format(**{k: tr(v) for k, v in value.params.items()})
    if isinstance(value, int) and not isinstance(value, bool):
        return number(value)
    return value


def finalize(value: Any) -> Any:
    """Jinja's ``finalize``: engine text and amounts printed by ``{{ … }}`` are translated
    and formatted for the language; anything else is printed as it is."""
    if isinstance(value, Amount):
        return money(value.stake, value.minor)
    if isinstance(value, Text):
        return tr(value)
    return value


def reason_text(reason: Reason) -> str:
    """One step of a ruling in the phone's language."""
    return render(reason.message, reason.params)


def error_text(error: BaseException) -> str:
    """An engine error for users, in the phone's language: ``message (rule)``, as ``str(error)`` in English."""
    if isinstance(error, RulesError):
        inner = getattr(error, "error", None)
        number_ = getattr(error, "number", None)
        if isinstance(inner, RulesError) and isinstance(number_, int):  # a HandError: "Hand 3: …"
            message = _gettext("Hand {number}: {message}").format(number=tr(number_), message=tr(inner.message))
        else:
            message = tr(error.message)
        return f"{message} ({error.rule})" if error.rule else str(message)
    if isinstance(error, EveningFileError):  # "hands[2]: Hand 3: … (P-7)"
        message = tr(error.message)
        text = f"{error.where}: {message}" if error.where else str(message)
        return f"{text} ({error.rule})" if error.rule else text
    if isinstance(getattr(error, "message", None), Text):  # a service's refusal (ScorerError, GroupError)
        return str(tr(error.message))  # type: ignore[attr-defined]
    return str(error)


# ------------------------------------------------------------- numbers, money, dates
def number(n: int | Decimal) -> str:
    """A whole number for the language (``1 234`` in Russian); English as before (``1234``)."""
    code = locale_code()
    if code == "en":
        return str(n)
    return format_decimal(n, locale=code).replace("-", MINUS)


def signed(n: int) -> str:
    """``+4``, ``−12`` (a real minus sign), ``0``; the digits formatted for the language."""
    if n > 0:
        return f"+{number(n)}"
    if n < 0:
        return f"{MINUS}{number(-n)}"
    return "0"


#: Currency symbols people type, and the ISO code they stand for.
SYMBOLS = {"£": "GBP", "€": "EUR", "₽": "RUB", "R$": "BRL", "$": "USD"}


def iso_currency(label: str) -> str | None:
    """The ISO 4217 code a stake's currency label stands for (``"NOK"``, ``"£"`` → ``"GBP"``), or ``None``."""
    label = label.strip()
    if label in SYMBOLS:
        return SYMBOLS[label]
    code = label.upper()
    if len(code) == 3 and code.isalpha() and code.isascii() and get_currency_name(code, locale="en") != code:
        return code  # a code Babel knows has a name of its own
    return None


#: The currency a new evening's form suggests in each language (English: £, as before).
CURRENCIES = {"ru": "RUB", "nb": "NOK", "pt_BR": "BRL"}


def default_currency() -> str:
    """The currency the set-up form suggests for the phone's language."""
    return CURRENCIES.get(locale_code(), "£")


def money(stake: Stake, minor_units: int) -> str:
    """An amount of the stake's currency for the language (``−1 234,50 ₽``); English as
    :meth:`Stake.format` (``−£1.20``); a currency label that is no ISO code is kept as typed."""
    code = locale_code()
    if code == "en":
        return stake.format(minor_units)
    amount = Decimal(minor_units) / 100
    iso = iso_currency(stake.currency)
    if iso is not None:
        text = format_currency(amount, iso, locale=code)
    else:
        text = format_decimal(amount, format="#,##0.00", locale=code)
        if stake.currency:
            text = f"{text}\u00a0{stake.currency}"
    return text.replace("-", MINUS)


def money_change(stake: Stake, minor_units: int) -> str:
    """A gain or loss of money, signed as :func:`signed` signs units: ``+£1.20``,
    ``−£1.20``, ``£0.00``; ``+1,20 ₽`` in Russian. (A price or a payment, which is no
    change, is :func:`money`.)"""
    text = str(money(stake, minor_units))
    return f"+{text}" if minor_units > 0 else text


def day(value: date | datetime, zone: str = "") -> str:
    """A date for the language (``29 нояб. 2026 г.``); English as before (ISO, ``2026-11-29``).
    A ``datetime`` is first put in the table's time ``zone`` (an IANA name; UTC when empty)."""
    if isinstance(value, datetime):
        value = in_zone(value, zone).date()
    if locale_code() == "en":
        return value.isoformat()
    return _format_date(value, "medium")


# ------------------------------------------------------------------ time zones
def moment(value: datetime, zone: str) -> str:
    """A date and time in the table's ``zone``, for the language: ``2026-11-30 22:30`` in
    English (ISO order, 24 hours: never read as US month/day), Babel's short date and
    time elsewhere (``30.11.2026, 22:30``). The page says which zone (:func:`zone_label`)."""
    local = in_zone(value, zone)
    code = locale_code()
    if code == "en":
        return local.strftime("%Y-%m-%d %H:%M")
    return babel_format_datetime(local, "short", tzinfo=local.tzinfo, locale=code)


def zone_label(zone: str) -> str:
    """The table's time zone in words for the language, with its IANA name
    (``São Paulo time (America/Sao_Paulo)``); ``UTC`` for a table without one."""
    if not valid_zone(zone) or zone == "UTC":
        return "UTC"
    try:
        place = get_timezone_location(zone_info(zone), locale=locale_code(), return_city=True)
    except (LookupError, ValueError):  # pragma: no cover - Babel knows every IANA zone
        return zone
    return f"{place} ({zone})"


# ------------------------------------------------------------ numbers users type
#: What may be in a number a user types: digits, a sign, separators (checked again by Babel).
NUMBER_TEXT = re.compile(r"[-+]?[0-9][0-9.,\u00a0\u202f ']*")


def parse_number_text(text: str, locale: str | None = None) -> Decimal:
    """A number typed by a user, read the way the phone's language writes it (Babel's
    ``parse_decimal``, strict about grouping): ``"0,50"`` in Russian, Norwegian or
    Portuguese is 0.50, ``"1 000,5"`` is 1000.5, ``"1.000"`` in Portuguese is 1000. A dot
    is accepted where it cannot be a group separator (Russian, Norwegian; in Portuguese
    when it is not followed by exactly three digits: ``"0.50"``). A typed minus sign
    (U+2212) counts as ``-``. Raises ``ValueError`` for anything else ("abc", "1,2,3")."""
    code = locale or locale_code()
    raw = (text or "").strip().replace(MINUS, "-")
    if not NUMBER_TEXT.fullmatch(raw):
        raise ValueError(text)
    group = get_group_symbol(code)
    if group.isspace():  # "1 000": a typed space stands for the language's (narrow) no-break space
        raw = re.sub(r"[ \u00a0\u202f]", group, raw)
    try:
        return parse_decimal(raw, locale=code, strict=True)
    except NumberFormatError:
        pass
    if get_decimal_symbol(code) != "." and re.fullmatch(r"[-+]?[0-9]+\.([0-9]{1,2}|[0-9]{4,})", raw):
        return Decimal(raw)  # a dot that cannot be grouping ("0.50" in Portuguese)
    raise ValueError(text)


def example_number(value: str) -> str:
    """``value`` (``"0.10"``) as the language writes it (``0,10``), for hints and placeholders."""
    return format_decimal(Decimal(value), format="0.00", locale=locale_code())


# --------------------------------------------------------------------- the menu
def safe_next(target: str | None) -> str:
    """``target`` if it is a path on this site, else ``/``: the menu never redirects off-site."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or any(ord(c) < 32 for c in target):
        return "/"
    return target


@bp.get("/lang/<code>")
@permission("public")
def choose_language(code: str) -> Response:
    """Set this phone's language for a year and go back to the page it came from."""
    response = redirect(safe_next(request.args.get("next")), code=303)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=COOKIE_AGE, samesite="Lax", httponly=True,
                            secure=request.is_secure)
    return response


#: The only query a page keeps when its language is switched: the group a new evening
#: starts in (``/new?group=…``). Anything else a visitor typed stays out of the links,
#: so a cached page never carries the first visitor's query to everyone.
KEPT_QUERY = ("group",)


def current_path() -> str:
    """This page's path (and its ``group``, if any), for the menu's ``next``."""
    kept = {k: request.args[k] for k in KEPT_QUERY if k in request.args}
    return request.path + ("?" + urlencode(kept) if kept else "")


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", "en")
    babel.init_app(app, locale_selector=select_locale)
    app.register_blueprint(bp)

    @app.context_processor
    def i18n_helpers() -> dict[str, Any]:
        code = locale_code()
        return {
            "LANGUAGES": LANGUAGES, "locale_code": code, "html_lang": code.replace("_", "-"),
            "current_path": current_path, "tr": tr, "reason_text": reason_text, "error_text": error_text,
            "number": number, "money": money, "money_change": money_change, "day": day,
            "moment": moment, "zone_label": zone_label, "example_number": example_number,
            "decimal_symbol": get_decimal_symbol(code),
        }

    app.jinja_env.filters["tr"] = tr
    # Whatever engine text a template prints — a variant's or option's name, a bid, a
    # ruling's reason (``reason.text``), an amount (``stake.format(…)``) — comes out in
    # the phone's language, in every template (the PDF and the season pages too).
    # English is printed exactly as before.
    app.jinja_env.finalize = finalize

    @app.after_request
    def vary_by_language(response: Response) -> Response:
        # the same URL answers in the phone's language: caches must keep one copy per language
        response.vary.add("Accept-Language")
        response.vary.add("Cookie")
        return response
