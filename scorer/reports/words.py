"""The words of the pages and the PDF, in the reader's language (Flask-Babel's catalog):
request-independent, so the PDF (:mod:`scorer.reports.pdf`) and the pages
(:mod:`scorer.web`) say the same thing the same way.

The rules engine never translates: its rulings and errors carry English templates
and params (:class:`scorer.rules.Text`, :class:`scorer.rules.Reason`). The helpers
here translate them at display time: the template is looked up in the catalog and
filled with the params, each param that is ``Text`` translated in turn (a bid's
name, a suit, a nested phrase), numbers formatted for the language, and player
names left as they are. Money, points, dates and times are formatted here too.

Which language a request reads (its cookie, ``Accept-Language``) is chosen by
:mod:`scorer.web.i18n`; outside a request (the CLI, tests of the services) it is English.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from babel.dates import format_date, get_timezone_location
from babel.dates import format_datetime as babel_format_datetime
from babel.numbers import format_currency, format_decimal, get_currency_name
from flask.globals import _cv_app
from flask_babel import LazyString, get_locale, get_translations
from flask_babel import format_date as _format_date
from markupsafe import Markup

from ..evening.file import EveningFileError
from ..evening.zones import in_zone, offset_label, repeated, valid_zone, zone_info
from ..rules import Reason, RulesError, Stake, Text, isolate
from ..rules.core import Amount
from ..rules.currency import currency_code

MINUS = "\u2212"


def locale_code() -> str:
    """The current language's code (``"en"``, ``"ru"``, ``"nb"``, ``"pt_BR"``); ``"en"`` outside a request."""
    try:
        return str(get_locale() or "en")
    except RuntimeError:  # no app or request context (the CLI)
        return "en"


def translations() -> Any:
    """``flask_babel.get_translations()``, kept in this application context's Babel namespace
    with the locale and domain it is for: each page asks it hundreds of times (every ``_()``
    of its templates, every engine text), and Flask-Babel looks the context, domain and
    locale up again each time (issue 23 item 2). A changed locale (``force_locale``,
    ``refresh``) or domain is another object, so it is looked up again."""
    ctx = _cv_app.get(None)
    spaces = None if ctx is None else ctx.g.__dict__.get("_flask_babel")
    if spaces is not None:
        kept = spaces.__dict__.get("nap_translations")
        if (kept is not None and kept[0] is spaces.__dict__.get("babel_locale")
                and kept[1] is spaces.__dict__.get("babel_domain")):
            return kept[2]
    found = get_translations()
    spaces = None if ctx is None else ctx.g.__dict__.get("_flask_babel")
    if spaces is not None and spaces.__dict__.get("babel_locale") is not None:
        spaces.nap_translations = (spaces.babel_locale, spaces.__dict__.get("babel_domain"), found)
    return found


def gettext(string: str, **variables: Any) -> str:
    """``flask_babel.gettext`` (``%``-formatted with ``variables``) from :func:`translations`."""
    found: str = translations().ugettext(string)
    return found if not variables else found % variables


def lazy_gettext(string: str, **variables: Any) -> LazyString:
    """``flask_babel.lazy_gettext`` made with :func:`gettext`: a form's labels, translated when printed."""
    return LazyString(gettext, string, **variables)


# ----------------------------------------------------------------- the engine's text
def _gettext(message: str) -> str:
    """The catalog's translation of ``message`` (no %-formatting: engine templates use ``{}``)."""
    if not message:
        return message
    try:
        return translations().ugettext(message)  # type: ignore[no-any-return]
    except RuntimeError:
        return message


def _ngettext(singular: str, plural: str, n: int) -> str:
    try:
        return translations().ungettext(singular, plural, n)  # type: ignore[no-any-return]
    except RuntimeError:
        return singular if n == 1 else plural


def render(message: str, params: Mapping[str, Any]) -> str:
    """``message`` translated and filled with ``params``, each translated (see :func:`tr`)."""
    return _gettext(message).format(**{k: tr(v) for k, v in params.items()})


def tr(value: Any) -> Any:
    """Translate what the engine says: a :class:`Text` (recursively), an int (a number for
    the language); a plain string (a player's name, a card) is returned as it is, isolated
    when it holds right-to-left characters (:func:`scorer.rules.isolate`: ``"\u2068محمد\u2069"``);
    anything else as it is."""
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
    if isinstance(value, str) and not isinstance(value, Markup):
        return isolate(value)
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
def number(n: int | Decimal, code: str | None = None) -> str:
    """A whole number for the language (``1 234`` in Russian); English as before (``1234``).
    ``code``: the language's code when the caller has it (see :func:`in_language`)."""
    code = code or locale_code()
    if code == "en":
        return str(n)
    return format_decimal(n, locale=code).replace("-", MINUS)


def signed(n: int, code: str | None = None) -> str:
    """``+4``, ``−12`` (a real minus sign), ``0``; the digits formatted for the language
    (``code`` when the caller has it)."""
    if n > 0:
        return f"+{number(n, code)}"
    if n < 0:
        return f"{MINUS}{number(-n, code)}"
    return "0"


def in_language(code: str) -> dict[str, Any]:
    """:func:`signed` and :func:`day` with the language ``code`` fixed, for a template that
    prints thousands of them (a season's rows, issue 23 item 4): the same texts, without
    asking for the phone's language at each one. Dates only (no time zone to apply)."""

    def signed_in(n: int) -> str:
        return signed(n, code)

    def day_in(value: date) -> str:
        if isinstance(value, datetime):
            raise TypeError("in_language's day takes a date")
        return value.isoformat() if code == "en" else format_date(value, "medium", locale=code)

    return {"signed": signed_in, "day": day_in}


def iso_currency(label: str) -> str | None:
    """The ISO 4217 code a stake's currency label stands for (``"NOK"``, ``"£"`` → ``"GBP"``), or ``None``."""
    code = currency_code(label)
    if len(code) == 3 and code.isalpha() and code.isascii() and get_currency_name(code, locale="en") != code:
        return code  # a code Babel knows has a name of its own
    return None


def money(stake: Stake, minor_units: int) -> str:
    """An amount of the stake's currency for the language (``−1 234,50 ₽``, ``5 JPY``);
    English as :meth:`Stake.format` (``−£1.20``); a currency label that is no ISO code is
    kept as typed. ``minor_units`` are the currency's own (yen for JPY, fils for KWD:
    :attr:`Stake.digits`), so that every amount shown is exact and a settle-up adds up."""
    code = locale_code()
    if code == "en":
        return stake.format(minor_units)
    digits = stake.digits
    amount = Decimal(minor_units).scaleb(-digits)
    iso = iso_currency(stake.currency)
    if iso is not None:  # Babel's decimals for the currency are ours (a test checks every currency)
        text = format_currency(amount, iso, locale=code)
    else:
        text = format_decimal(amount, format="#,##0" + ("." + "0" * digits if digits else ""), locale=code)
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
    time elsewhere (``30.11.2026, 22:30``). The page says which zone (:func:`zone_label`).
    A time in the hour that happens twice when summer time ends carries its offset
    (``2026-10-25 02:59 UTC+2``, then ``2026-10-25 02:00 UTC+1``), so that the history reads in order."""
    local = in_zone(value, zone)
    code = locale_code()
    if code == "en":
        text = local.strftime("%Y-%m-%d %H:%M")
    else:
        text = babel_format_datetime(local, "short", tzinfo=local.tzinfo, locale=code)
    return f"{text}\u00a0{offset_label(local)}" if repeated(local) else text


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
