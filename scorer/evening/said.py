"""The engine's words in the phone's language, with the standard library only (issue 24 item 3).

The server translates what the engine says with Flask-Babel (:func:`scorer.reports.words.tr`);
the phone's engine (Pyodide, ``static/engine/worker.js``) has neither Flask nor Babel, so a hand
it refuses at the tap is put in words here, the same way: the template looked up in the very
catalog the server compiled (``scorer/translations/<language>/LC_MESSAGES/messages.mo``; the
engine bundle carries its engine messages, :mod:`scorer.web.engine_bundle`), filled with the
params, each :class:`~scorer.rules.Text` param translated in turn, a whole number written for
the language as Babel writes it, a name isolated (:func:`~scorer.rules.isolate`). The refusal
reads ``message (rule)`` as the server's answer does (:func:`scorer.web.answers.outcome_text`).

``tests/test_said.py`` checks it against the server's words for every refusal it tries.
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path
from typing import Any

from ..rules import RULES, Text, isolate

CATALOGS = Path(__file__).resolve().parent.parent / "translations"
#: the languages the server speaks (scorer.web.i18n), English the source
LANGUAGES = ("en", "nb", "ru", "pt_BR")
MINUS = "\u2212"
#: the thousands separator of each language, as Babel's CLDR data writes a whole number
#: (English is written bare, as scorer.reports.words.number does)
GROUP = {"nb": "\u00a0", "ru": "\u00a0", "pt_BR": "."}


def language_of(tag: str | None) -> str:
    """One of :data:`LANGUAGES` for a page's ``lang`` (``"pt-BR"``, ``"nb"``, …); English otherwise."""
    code = (tag or "").replace("-", "_")
    if code in LANGUAGES:
        return code
    base = code.split("_")[0].lower()
    return next((lang for lang in LANGUAGES if lang.split("_")[0] == base), "en")


@cache
def catalog(language: str) -> gettext.NullTranslations:
    """The compiled catalog of ``language`` (nothing for English or a missing file)."""
    if language == "en":
        return gettext.NullTranslations()
    try:
        with (CATALOGS / language / "LC_MESSAGES" / "messages.mo").open("rb") as file:
            return gettext.GNUTranslations(file)
    except OSError:
        return gettext.NullTranslations()


def number(n: int, language: str) -> str:
    """A whole number for ``language`` (``1 234`` in Russian, ``−5`` with a real minus sign)."""
    if language not in GROUP:
        return str(n)
    digits = str(abs(n))
    groups = []
    while len(digits) > 3:
        digits, tail = digits[:-3], digits[-3:]
        groups.insert(0, tail)
    text = GROUP[language].join([digits, *groups])
    return MINUS + text if n < 0 else text


def tr(value: Any, language: str) -> Any:
    """What :func:`scorer.reports.words.tr` answers for ``value`` in ``language``."""
    if isinstance(value, Text):
        words = catalog(language)
        if value.plural is not None and value.n is not None:
            template = words.ngettext(value.message, value.plural, value.n)
        else:
            template = words.gettext(value.message) if value.message else value.message
        if not value.params:
            return template
        return template.format(**{k: tr(v, language) for k, v in value.params.items()})
    if isinstance(value, int) and not isinstance(value, bool):
        return number(value, language)
    if isinstance(value, str):
        return isolate(value)
    return value


def refusal_text(message: Any, rule: str | None, language: str) -> str:
    """A refusal as the server's JSON answer words it: ``message (rule)`` in ``language``."""
    text = str(tr(message, language))
    return f"{text} ({rule})" if rule in RULES else text
