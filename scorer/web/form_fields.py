"""What every form of the app is built from (through Flask-WTF, so every form carries a CSRF
token): choices, the one-time token, whole numbers as the phone's language writes them,
and the errors of a form as lines for users. The forms check shape — present, in range,
short enough — and the rules engine checks legality."""

from __future__ import annotations

import re
from typing import Any

from flask_wtf import FlaskForm
from wtforms import (
    HiddenField,
    IntegerField,
    RadioField,
    SelectChoice,
)
from wtforms.validators import ValidationError

from ..reports.words import gettext
from ..rules import clean_text
from ..storage.tokens import TOKEN
from .fast_widgets import NumberInput
from .i18n import parse_number_text

MAX_PLAYERS = 6


def choices(pairs: Any) -> list[SelectChoice]:
    """``[(value, label), …]`` as WTForms choices."""
    return [SelectChoice(str(value), label) for value, label in pairs]


#: The four suits as picker pills (P-2, H-2: spades, hearts, diamonds, clubs).
SUIT_PILLS = choices([("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣")])


NAME_LENGTH = 40


def strip_text(value: Any) -> Any:
    return clean_text(value) if isinstance(value, str) else value


def one_time_token(form: FlaskForm, field: HiddenField) -> None:
    """A form's one-time token is what the page was given (:data:`scorer.storage.tokens.TOKEN`),
    or empty; anything else (a NUL, a space, 65 characters) is refused, nothing saved."""
    if field.data and not TOKEN.fullmatch(field.data):
        raise ValidationError(gettext("This form is damaged; reload the page and try again."))


class WholeNumberField(IntegerField):
    """An integer field whose error for "abc" says what to type (and only that), printed by
    :class:`scorer.web.fast_widgets.NumberInput` (WTForms' input, the same bytes)."""

    widget = NumberInput()

    def post_validate(self, form: Any, validation_stopped: bool) -> None:
        if self.process_errors:
            self.errors = list(self.process_errors)

    def process_formdata(self, valuelist: list[Any]) -> None:
        """Read the number as the phone's language writes it (``1 000`` in Russian,
        ``1.000`` in Portuguese, ``−5`` with a real minus sign; see
        :func:`scorer.web.i18n.parse_number_text`); ``"abc"`` or ``"2,5"`` is refused."""
        if not valuelist or not str(valuelist[0]).strip():
            self.data = None  # left empty: Optional() or InputRequired() decides
            return
        try:
            value = parse_number_text(str(valuelist[0])[:40])
            if value != value.to_integral_value():
                raise ValueError(value)
            self.data = int(value)
        except (ValueError, ArithmeticError):
            self.data = None
            raise ValueError(gettext("Enter a whole number.")) from None
        if self.data is not None and abs(self.data) > 10**9:
            self.data = None
            raise ValueError(gettext("That number is far too large."))


def known_suit(form: FlaskForm, field: RadioField) -> None:
    if field.data not in (None, "", "S", "H", "D", "C"):
        raise ValidationError(gettext("Choose a suit."))


def error_messages(form: FlaskForm) -> list[str]:
    """Every error of ``form`` as one line for users: form-level errors first, then
    each field's, prefixed with its label (and the row number inside a list)."""
    out = [str(e) for e in form.form_errors]
    for field in form:
        for error in field.errors:
            if not isinstance(error, (list, tuple)):  # a message (a translated lazy string is no str)
                out.append(f"{field.label.text}: {error}")
            else:  # a FieldList: a list of errors per row
                for row, sub in enumerate(error, start=1):
                    out.extend(f"{field.label.text} {row}: {m}" for m in (sub if isinstance(sub, list) else [sub]))
    return out


def is_number(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` also accepts "²" and "٢", which ``int`` refuses or misreads)."""
    return bool(re.fullmatch(r"[0-9]{1,9}", text))
