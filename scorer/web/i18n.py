"""Languages (Flask-Babel): English, Russian, Norwegian Bokmål, Brazilian Portuguese.

The language is chosen per phone: the ``lang`` cookie set from the language menu
(``GET /lang/<code>?next=<path>``, :mod:`scorer.web.views.language`), else the
browser's ``Accept-Language``, else English. Catalogs live in
``scorer/translations/<locale>/LC_MESSAGES/messages.po`` (compiled ``.mo`` beside,
committed; ``scripts/translations`` refreshes both).

What the pages say in that language — the engine's text, numbers, money, dates — is
:mod:`scorer.reports.words`, shared with the PDF; here is what belongs to a request:
choosing the language, the numbers a user types, the menu's links, and the wiring of
Babel and Jinja.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from babel import Locale
from babel.numbers import NumberFormatError, format_decimal, get_decimal_symbol, get_group_symbol, parse_decimal
from flask import Flask, Response, current_app, has_request_context, request
from markupsafe import Markup

from ..reports.words import (
    MINUS,
    day,
    error_text,
    finalize,
    locale_code,
    moment,
    money,
    money_change,
    number,
    reason_text,
    tr,
    translations,
    zone_label,
)
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


#: The currency a new evening's form suggests in each language (English: £, as before).
CURRENCIES = {"ru": "RUB", "nb": "NOK", "pt_BR": "BRL"}


def default_currency() -> str:
    """The currency the set-up form suggests for the phone's language."""
    return CURRENCIES.get(locale_code(), "£")


# ------------------------------------------------------------ numbers users type
#: What may be in a number a user types: digits, a sign, separators (checked again by Babel).
NUMBER_TEXT = re.compile(r"[-+]?[0-9][0-9.,\u00a0\u202f ']*")


def parse_number_text(text: str, locale: str | None = None) -> Decimal:
    """A number typed by a user, read the way the phone's language writes it (Babel's
    ``parse_decimal``, strict about grouping): ``"0,50"`` in Russian, Norwegian or
    Portuguese is 0.50, ``"1 000,5"`` is 1000.5, ``"1.000"`` in Portuguese is 1000,
    ``"1,000"`` in English is 1000. The other separator (a comma in English, a dot
    elsewhere) is read as the decimal point too where it is the only separator and cannot
    be a thousands group: it is not the language's group sign, or it is not followed by
    exactly three digits, or only a 0 stands before it — ``"0,50"``, ``"12,5"`` and
    ``"0,125"`` on an English phone in a comma region, ``"0.50"`` in Portuguese (issue 25
    item 14). A typed minus sign (U+2212) counts as ``-``. Raises ``ValueError`` for
    anything else ("abc", "1,2,3")."""
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
    other = "," if get_decimal_symbol(code) == "." else "."
    lone = re.fullmatch(r"([-+]?)([0-9]+)" + re.escape(other) + r"([0-9]+)", raw)
    if lone and (other != group or len(lone.group(3)) != 3 or lone.group(2) == "0"):
        return Decimal(f"{lone.group(1)}{lone.group(2)}.{lone.group(3)}")  # cannot be grouping
    raise ValueError(text)


def example_number(value: str) -> str:
    """``value`` (``"0.10"``, ``"10"``, ``"0.125"``: a decimal with a dot) as the language
    writes it (``0,10``, ``10``, ``0,125``), with as many decimals as it is written with
    and no grouping — for hints, placeholders and a form filled in from stored figures,
    which :func:`parse_number_text` reads back as the same number."""
    decimals = len(value.partition(".")[2])
    return format_decimal(Decimal(value), format="0" + ("." + "0" * decimals if decimals else ""),
                          locale=locale_code())


# --------------------------------------------------------------------- the menu
def safe_next(target: str | None) -> str:
    """``target`` if it is a path on this site, else ``/``: the menu never redirects off-site."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or any(ord(c) < 32 for c in target):
        return "/"
    return target


#: The only query a page keeps when its language is switched: the group a new evening
#: starts in (``/new?group=…``). Anything else a visitor typed stays out of the links,
#: so a cached page never carries the first visitor's query to everyone.
KEPT_QUERY = ("group",)


def current_path() -> str:
    """This page's path (and its ``group``, if any), for the menu's ``next``."""
    kept = {k: request.args[k] for k in KEPT_QUERY if k in request.args}
    return request.path + ("?" + urlencode(kept) if kept else "")


#: counts that between them fall in every CLDR plural category of the four languages
PLURAL_SAMPLES = (0, 1, 2, 3, 5, 11, 21, 22, 100, 1000000)


def plural_samples() -> list[tuple[str, int]]:
    """One count for each CLDR plural category of the phone's language: ``[(category, count)]``
    (``[("one", 1), ("other", 0)]`` in English). A template builds from them, with ``ngettext``,
    the texts a browser module picks with ``Intl.PluralRules`` (which follows the same CLDR
    categories), e.g. the outbox's "%(num)s hands waiting" (static/outbox-view.js)."""
    locale = Locale.parse(locale_code())
    found: dict[str, int] = {}
    for n in PLURAL_SAMPLES:
        found.setdefault(locale.plural_form(n), n)
    return sorted(found.items())


def netstate() -> Markup:
    """templates/_netstate.html (the frame's words for the network state, two dozen of them)
    in the phone's language: the same on every page of a language, so printed once per
    language, not on every page (issue 23 item 2); printed each time while templates are
    reloaded as they change (``TEMPLATES_AUTO_RELOAD``, debugging)."""
    env = current_app.jinja_env
    printed: dict[str, Markup] = current_app.extensions.setdefault("nap_netstate", {})
    code = locale_code()
    found = printed.get(code)
    if found is None or env.auto_reload:
        found = printed[code] = Markup(env.get_template("_netstate.html").render())
    return found


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", "en")
    babel.init_app(app, locale_selector=select_locale)
    # Flask-Babel's own callables for the templates' _() and the like, with the request's
    # catalog looked up once (:func:`scorer.reports.words.translations`), not per call
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda s: translations().ugettext(s),
        ngettext=lambda s, p, n: translations().ungettext(s, p, n),
        newstyle=True,
        pgettext=lambda c, s: translations().upgettext(c, s),
        npgettext=lambda c, s, p, n: translations().unpgettext(c, s, p, n),
    )

    @app.context_processor
    def i18n_helpers() -> dict[str, Any]:
        code = locale_code()
        return {
            "LANGUAGES": LANGUAGES, "locale_code": code, "html_lang": code.replace("_", "-"),
            "current_path": current_path, "tr": tr, "reason_text": reason_text, "error_text": error_text,
            "number": number, "money": money, "money_change": money_change, "day": day,
            "moment": moment, "zone_label": zone_label, "example_number": example_number,
            "decimal_symbol": get_decimal_symbol(code), "plural_samples": plural_samples,
        }

    app.jinja_env.filters["tr"] = tr
    app.jinja_env.globals["netstate"] = netstate
    # Whatever engine text a template prints — a variant's or option's name, a bid, a
    # ruling's reason (``reason.text``), an amount (``stake.format(…)``) — comes out in
    # the phone's language, in every template (the PDF and the season pages too).
    # English is printed exactly as before.
    app.jinja_env.finalize = finalize

    @app.after_request
    def vary_by_language(response: Response) -> Response:
        # the same URL answers in the phone's language: caches must keep one copy per language
        response.vary.update(("Accept-Language", "Cookie"))  # (the header read and written once)
        return response
