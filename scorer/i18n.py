"""Languages (Flask-Babel): English, Russian, Norwegian Bokmål, Brazilian Portuguese.

The language is chosen per phone: the ``lang`` cookie set from the language menu,
else the browser's ``Accept-Language``, else English. Catalogs live in
``scorer/translations/<locale>/LC_MESSAGES/messages.po`` (compiled ``.mo`` beside).
"""

from __future__ import annotations

from flask import Flask, request
from flask_babel import Babel

#: Locale code → the language's own name (shown in the language menu).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "ru": "Русский",
    "nb": "Norsk bokmål",
    "pt_BR": "Português (Brasil)",
}

COOKIE = "lang"

babel = Babel()


def select_locale() -> str:
    """The phone's language: its ``lang`` cookie, else the best match for the browser."""
    chosen = request.cookies.get(COOKIE, "")
    if chosen in LANGUAGES:
        return chosen
    # "no" and "nn" readers read Bokmål; "pt" (any region) gets Brazilian Portuguese
    offered = [*LANGUAGES, "no", "nn", "pt", "pt_PT"]
    best = request.accept_languages.best_match([code.replace("_", "-") for code in offered], default="en")
    best = best.replace("-", "_")
    return {"no": "nb", "nn": "nb", "pt": "pt_BR", "pt_PT": "pt_BR"}.get(best, best)


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", "translations")
    app.config.setdefault("BABEL_DEFAULT_LOCALE", "en")
    babel.init_app(app, locale_selector=select_locale)
