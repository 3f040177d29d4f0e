"""The forms of an evening as a whole: start one (players, scoring, the variant's options),
import one from its file, change its settings."""

from __future__ import annotations

import re
from typing import Any

from flask import has_request_context, request
from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    FieldList,
    HiddenField,
    RadioField,
    StringField,
    SubmitField,
)
from wtforms.validators import Length, NumberRange, Optional, ValidationError

from ..evening.file import stake_minor
from ..evening.zones import valid_zone
from ..reports.words import error_text, tr
from ..rules import RulesError, Variant
from ..rules.cards import parse_card
from ..rules.currency import minor_digits
from .form_fields import MAX_PLAYERS, NAME_LENGTH, WholeNumberField, choices, one_time_token, strip_text
from .i18n import default_currency, example_number, parse_number_text


class OptionFields:
    """For forms with a variant's options as ``opt_<key>`` fields (see
    :func:`_add_option_fields`); ``variant`` is set on the form class."""

    variant: Variant

    def options(self) -> dict[str, Any]:
        """The variant options entered, as the engine stores them."""
        out: dict[str, Any] = {}
        for spec in self.variant.option_specs:
            value = getattr(self, f"opt_{spec.key}").data
            if value is None:
                value = spec.default  # left empty: the variant's default
            elif spec.kind == "choice":
                value = next(c for c, _ in spec.choices if str(c) == value)
            out[spec.key] = value
        return out


class EveningFormBase(OptionFields, FlaskForm):
    """Start an evening: name, scoring, players in seat order and the first dealer.

    Variant options are added as fields named ``opt_<key>`` by :func:`evening_form_for`.
    """

    name = StringField(
        _l("Name of the evening"), [Optional(), Length(max=80, message=_l("At most 80 characters."))],
        filters=[strip_text]
    )
    scoring = RadioField(_l("Scoring"), choices=choices([("points", _l("Points only")), ("money", _l("Money"))]),
                         default="points")
    stake = StringField(_l("Value of one unit"), [Length(max=12, message=_l("At most 12 characters."))],
                        filters=[strip_text])
    currency = StringField(
        _l("Currency"), [Optional(), Length(max=8, message=_l("At most 8 characters."))], default=default_currency,
        filters=[strip_text]
    )
    players = FieldList(
        StringField(
            _l("Player"),
            [Optional(), Length(max=NAME_LENGTH, message=_l("A name has at most %(n)s characters.", n=NAME_LENGTH))],
            filters=[strip_text],
        ),
        min_entries=MAX_PLAYERS,
        max_entries=MAX_PLAYERS,
    )
    draws = FieldList(
        StringField(_l("Card drawn"), [Optional(), Length(max=4, message=_l("A card such as 7H or 10S."))],
                    filters=[strip_text]),
        min_entries=MAX_PLAYERS,
        max_entries=MAX_PLAYERS,
    )
    first_dealer = RadioField(
        _l("Deals first"),
        choices=choices((i, _l("Player %(n)s", n=i + 1)) for i in range(MAX_PLAYERS)),
        default="0",
    )
    submit = SubmitField(_l("Start the evening"))

    variant: Variant
    def extra_players(self) -> int:
        """Names posted in rows beyond the form's six (a crafted post or an old page): the
        field list drops them, but they still count towards the players refused (P-1, …)."""
        if not has_request_context():
            return 0
        rows = re.compile(r"players-(\d+)")
        return sum(1 for key, value in request.form.items(multi=True)
                   if (m := rows.fullmatch(key)) and int(m.group(1)) >= MAX_PLAYERS and value.strip())

    #: the browser's time zone (``Intl``), filled in by static/zone.js; "" without JavaScript
    time_zone = HiddenField()
    #: one-time token: the same form posted twice starts one evening, not two
    token = HiddenField(validators=[one_time_token])

    def validate_stake(self, field: StringField) -> None:
        if self.scoring.data != "money":
            if field.data and self.scoring.data == "points":  # typed, but "Points only" still chosen: ask
                raise ValidationError(gettext(
                    "You typed a stake but “Points only” is chosen: choose Money to play for %(stake)s a unit, "
                    "or clear the stake.", stake=field.data[:12]))
            return
        if not field.data:
            raise ValidationError(gettext("Enter the money value of one unit, such as %(example)s.",
                                          example=example_number("0.10")))
        self.stake_minor()

    def stake_minor(self) -> int:
        """The stake typed, in the currency's minor units (``"0,50"`` in Norwegian with NOK
        → 50 øre, ``"5"`` with JPY → 5 yen, ``"0,125"`` with KWD → 125 fils), read the way
        the phone's language writes numbers. Raises ``ValidationError`` in the phone's
        language, naming the currency when the stake is finer than its smallest unit
        (``0.50`` JPY, ``0.001`` £: issue 25 item 13)."""
        currency = self.currency.data or ""
        try:
            value = parse_number_text(self.stake.data or "")
        except ValueError:
            raise ValidationError(gettext("The stake must be a number such as %(example)s.",
                                          example=example_number("10" if minor_digits(currency) == 0 else "0.10"))
                                  ) from None
        try:
            return stake_minor(value, currency)
        except ValueError as error:
            raise ValidationError(tr(error.args[0])) from None

    def zone(self) -> str:
        """The table's time zone as the browser gave it, if it is one (else ``""``: UTC)."""
        return valid_zone((self.time_zone.data or "").strip())

    def validate_players(self, field: FieldList) -> None:
        names = [n for n in field.data if n]
        v = self.variant
        entered = len(names) + self.extra_players()
        if not v.min_players <= entered <= v.max_players:
            raise ValidationError(gettext(
                "%(name)s needs %(low)s to %(high)s players (%(rule)s); you entered %(n)s.", name=tr(v.name),
                low=v.min_players, high=v.max_players, rule=v.rule_players, n=entered
            ))
        folded = [n.casefold() for n in names]
        if len(set(folded)) != len(folded):
            raise ValidationError(gettext("Two players have the same name; give each a different one."))

    def validate_first_dealer(self, field: RadioField) -> None:
        rows = self.players.data
        try:
            row = int(field.data)
        except (TypeError, ValueError):
            raise ValidationError(gettext("Choose who deals first.")) from None
        if not 0 <= row < len(rows) or not rows[row]:
            raise ValidationError(gettext("The first dealer must be one of the players named above."))

    def validate_draws(self, field: FieldList) -> None:
        """H-3 / B-2: if any card is entered, every player needs one; the draw then
        decides the first dealer."""
        rows = [(n, d) for n, d in zip(self.players.data, field.data) if n]
        drawn = [d for _, d in rows if d]
        if not drawn:
            return
        if len(drawn) != len(rows):
            raise ValidationError(gettext("Enter the card every player drew, or none."))
        try:
            self.variant.dealer_by_draw(drawn)
        except RulesError as error:
            raise ValidationError(error_text(error)) from None

    def draw(self) -> list[str]:
        """The cards drawn, one per seated player (empty when the table chose)."""
        drawn = [d for n, d in zip(self.players.data, self.draws.data) if n and d]
        return [str(parse_card(d)) for d in drawn] if drawn else []

    def seated(self) -> tuple[list[str], int]:
        """The players without empty rows, and the first dealer's seat among them
        (from the draw when cards were entered)."""
        rows = self.players.data
        names = [n for n in rows if n]
        if self.draw():
            return names, self.variant.dealer_by_draw(self.draw())[0]
        row = int(self.first_dealer.data)
        return names, sum(1 for n in rows[:row] if n)


def evening_form_for(variant: Variant, **kwargs: Any) -> EveningFormBase:
    """An evening form with ``variant``'s options (and no others) as fields."""

    class EveningForm(EveningFormBase):
        pass

    EveningForm.variant = variant
    _add_option_fields(EveningForm, variant)
    return EveningForm(**kwargs)


def _add_option_fields(form_class: Any, variant: Variant) -> None:
    """Add ``variant``'s options to ``form_class`` as fields named ``opt_<key>``."""
    for spec in variant.option_specs:
        if spec.kind == "bool":
            field = BooleanField(tr(spec.label), default=spec.default, description=tr(spec.help))
        elif spec.kind == "int":
            field = WholeNumberField(
                tr(spec.label),
                [
                    Optional(),
                    NumberRange(spec.minimum, spec.maximum,
                                message=gettext("From %(low)s to %(high)s.", low=spec.minimum, high=spec.maximum)),
                ],
                default=spec.default,
                description=tr(spec.help),
            )
        else:
            field = RadioField(
                tr(spec.label),
                choices=choices((value, tr(label)) for value, label in spec.choices),
                default=str(spec.default),
                description=tr(spec.help),
            )
        setattr(form_class, f"opt_{spec.key}", field)


#: parse_stake's first message (scorer/evening/file.py), marked here as the catalog always had it
STAKE_ERRORS = (_l("The stake must be a number such as 0.10."),)


class ImportForm(FlaskForm):
    """Upload an evening file (JSON)."""

    file = FileField(_l("Evening file (.json)"), validators=[FileRequired(_l("Choose a file to import."))])
    submit = SubmitField(_l("Import"))
    #: the browser's time zone (``Intl``, static/zone.js): the table's, when the file names none
    time_zone = HiddenField()
    #: one-time token: the same file posted twice imports one evening, not two
    token = HiddenField(validators=[one_time_token])

    def zone(self) -> str:
        """The browser's time zone, if it is one (else ``""``: UTC)."""
        return valid_zone((self.time_zone.data or "").strip())


class SettingsFormBase(OptionFields, FlaskForm):
    """Change a table's name, place and options during the evening (the players, the
    variant and the stake stay as agreed). Options are ``opt_<key>`` fields added by
    :func:`settings_form_for`; ``revision`` is the table's revision the page showed."""

    name = StringField(_l("Name of the evening"), [Optional(), Length(max=80, message=_l("At most 80 characters."))],
                       filters=[strip_text])
    place = StringField(_l("Place"), [Optional(), Length(max=80, message=_l("At most 80 characters."))],
                        filters=[strip_text])
    revision = HiddenField()


def settings_form_for(variant: Variant, **kwargs: Any) -> SettingsFormBase:
    """A settings form with ``variant``'s options as fields."""

    class SettingsForm(SettingsFormBase):
        pass

    SettingsForm.variant = variant
    _add_option_fields(SettingsForm, variant)
    return SettingsForm(**kwargs)
