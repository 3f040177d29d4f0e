"""WTForms (through Flask-WTF, so every form carries a CSRF token).

The forms check shape — present, in range, short enough — and the rules engine
checks legality; its errors are put back on the form by the views.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from flask import has_request_context, request
from flask_babel import gettext, lazy_gettext
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    FieldList,
    HiddenField,
    IntegerField,
    RadioField,
    SelectChoice,
    StringField,
    SubmitField,
)
from wtforms.validators import Length, NumberRange, Optional, ValidationError

from ..evening.codec import encode_hand
from ..evening.file import MAX_STAKE_MINOR, parse_stake
from ..rules import BIDS, PASS, Claim, EveningSetup, HandFacts, RulesError, Variant, clean_text
from ..rules.cards import RANKS_36, RANKS_52, SUITS, parse_card
from ..rules.variants.base import TRICKS_PER_HAND
from ..storage.tokens import TOKEN
from .i18n import default_currency, error_text, example_number, number, parse_number_text, tr, valid_zone

MAX_PLAYERS = 6


def choices(pairs: Any) -> list[SelectChoice]:
    """``[(value, label), …]`` as WTForms choices."""
    return [SelectChoice(str(value), label) for value, label in pairs]


#: The four suits as picker pills (P-2, H-2: spades, hearts, diamonds, clubs).
SUIT_PILLS = choices([("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣")])
NAME_LENGTH = 40


def _strip(value: Any) -> Any:
    return clean_text(value) if isinstance(value, str) else value


def one_time_token(form: FlaskForm, field: HiddenField) -> None:
    """A form's one-time token is what the page was given (:data:`scorer.storage.tokens.TOKEN`),
    or empty; anything else (a NUL, a space, 65 characters) is refused, nothing saved."""
    if field.data and not TOKEN.fullmatch(field.data):
        raise ValidationError(gettext("This form is damaged; reload the page and try again."))


class WholeNumberField(IntegerField):
    """An integer field whose error for "abc" says what to type (and only that)."""

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
        filters=[_strip]
    )
    scoring = RadioField(_l("Scoring"), choices=choices([("points", _l("Points only")), ("money", _l("Money"))]),
                         default="points")
    stake = StringField(_l("Value of one unit"), [Length(max=12, message=_l("At most 12 characters."))],
                        filters=[_strip])
    currency = StringField(
        _l("Currency"), [Optional(), Length(max=8, message=_l("At most 8 characters."))], default=default_currency,
        filters=[_strip]
    )
    players = FieldList(
        StringField(
            _l("Player"),
            [Optional(), Length(max=NAME_LENGTH, message=_l("A name has at most %(n)s characters.", n=NAME_LENGTH))],
            filters=[_strip],
        ),
        min_entries=MAX_PLAYERS,
        max_entries=MAX_PLAYERS,
    )
    draws = FieldList(
        StringField(_l("Card drawn"), [Optional(), Length(max=4, message=_l("A card such as 7H or 10S."))],
                    filters=[_strip]),
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
        """The stake typed, in minor units (``"0,50"`` in Norwegian → 50), read the way the
        phone's language writes numbers. Raises ``ValidationError`` (in the phone's language)."""
        try:
            value = parse_number_text(self.stake.data or "")
        except ValueError:
            raise ValidationError(gettext("The stake must be a number such as %(example)s.",
                                          example=example_number("0.10"))) from None
        if value <= 0:
            raise ValidationError(gettext("The stake must be more than zero."))
        if value * 100 > MAX_STAKE_MINOR:
            raise ValidationError(gettext("The stake can be at most %(n)s.", n=number(MAX_STAKE_MINOR // 100)))
        try:
            return parse_stake(format(value, "f"))
        except ValueError as error:
            raise ValidationError(gettext(str(error))) from None  # one of STAKE_ERRORS

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


def _known_call(form: FlaskForm, field: RadioField) -> None:
    if field.data != PASS and field.data not in BIDS:
        raise ValidationError(gettext("“%(call)s” is not a bid. Choose Pass or a bid.", call=str(field.data)[:20]))


def _trump(form: FlaskForm, field: RadioField) -> None:
    if field.data not in (None, "", "S", "H", "D", "C"):
        raise ValidationError(gettext("Choose a suit."))


def _tricks(form: FlaskForm, field: RadioField) -> None:
    if field.data in (None, ""):
        return
    if field.data not in [str(i) for i in range(TRICKS_PER_HAND + 1)]:
        raise ValidationError(gettext("The declarer wins 0 to %(n)s tricks.", n=TRICKS_PER_HAND))


class HandFormBase(FlaskForm):
    """Record or correct one hand: dealer, one call per player, tricks.

    The calls are fields ``call_<seat>`` added by :func:`hand_form_for`. ``number``
    is the hand the page was made for and ``version`` the version it showed, so a
    double tap or a stale page is caught.
    """

    number = HiddenField()
    version = HiddenField()
    hand_id = HiddenField()  # the hand's own row: a stale page never corrects a newer hand of that number
    #: one-time token: a double tap or a retry of this very form saves nothing twice
    token = HiddenField(validators=[one_time_token])
    dealer = RadioField(_l("Dealer"), validate_choice=False)
    tricks = RadioField(
        _l("Tricks won by the declarer"),
        choices=choices([(i, str(i)) for i in range(TRICKS_PER_HAND + 1)] + [("", _l("none: nobody bid"))]),
        validate_choice=False,
        validators=[_tricks],
    )
    save = SubmitField(_l("Save hand"))
    misdeal = SubmitField(_l("Misdeal"))
    #: russian36: the calls so far, in speaking order (the auction is built one call at a time)
    calls = HiddenField()
    calls_dealer = HiddenField()  # the dealer the calls so far were made under
    dispute = HiddenField()  # the dispute a correction rules on ("Rule on it"), if any
    trump = RadioField(_l("Trump named by the declarer"), validate_choice=False, validators=[_trump],
                       choices=choices([("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣"), ("", "–")]))
    purchase = BooleanField(_l("The declarer bought a card (R-9)"))
    widow = BooleanField(_l("The declarer took the widow"))
    #: one claimed irregularity (the referee); kinds offered are the variant's
    claim_kind = RadioField(_l("Claim"), validate_choice=False, default="")
    claim_accused = RadioField(_l("Accused"), validate_choice=False)
    claim_by = RadioField(_l("Claimed by"), validate_choice=False)
    claim_upheld = RadioField(_l("The table's decision"), validate_choice=False, default="yes",
                              choices=choices([("yes", _l("Upheld")), ("no", _l("Rejected"))]))
    claim_trick = RadioField(_l("In trick"), validate_choice=False,
                             choices=choices([(i, str(i)) for i in range(1, TRICKS_PER_HAND + 1)] + [("", "?")]))
    claim_suit = RadioField(_l("Suit led"), validate_choice=False,
                            choices=choices([("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣"), ("", "?")]))
    #: typed cards ("2C"), still accepted from the API's callers and older pages
    claim_card = StringField(_l("Card played"), [Optional(), Length(max=4, message=_l("A card such as 2C."))],
                             filters=[_strip])
    claim_evidence = StringField(_l("Shown later"), [Optional(), Length(max=4, message=_l("A card such as 5H."))],
                                 filters=[_strip])
    #: the card picker: suit then rank (radio pills, no JavaScript needed); ranks set by hand_form_for
    claim_card_suit = RadioField(_l("Card played"), validate_choice=False, choices=SUIT_PILLS + choices([("", "?")]))
    claim_card_rank = RadioField(_l("Rank"), validate_choice=False)
    claim_evidence_suit = RadioField(_l("Shown later"), validate_choice=False,
                                     choices=SUIT_PILLS + choices([("", "?")]))
    claim_evidence_rank = RadioField(_l("Rank"), validate_choice=False)
    claim_evidence_trick = RadioField(_l("Shown in trick"), validate_choice=False,
                                      choices=choices([(i, str(i)) for i in range(1, TRICKS_PER_HAND + 1)]
                                                      + [("", "?")]))
    claim_cards_held = WholeNumberField(_l("Cards held"),
                                        [Optional(), NumberRange(0, 10, message=_l("From 0 to 10."))])
    claim_before = BooleanField(_l("Said before bidding or passing"))

    setup: EveningSetup

    def calls_in_speaking_order(self, dealer: int) -> tuple[str, ...]:
        """The calls as the engine wants them: eldest hand (left of ``dealer``) first."""
        n = self.setup.n
        return tuple(getattr(self, f"call_{(dealer + 1 + i) % n}").data or PASS for i in range(n))

    def call_sequence(self) -> tuple[str, ...]:
        """russian36: the calls so far from the hidden field (empty when none)."""
        data = (self.calls.data or "")[:1200].strip()
        return tuple(c[:20] for c in data.split(",") if c)[:60]

    def validate_dealer(self, field: RadioField) -> None:
        if field.data not in [str(i) for i in range(self.setup.n)]:
            raise ValidationError(gettext("Choose the dealer."))
        if self.call_sequence() and self.calls_dealer.data and self.calls_dealer.data != field.data:
            raise ValidationError(gettext("The dealer was changed after the auction began: undo the calls first."))

    def peeks_value(self) -> tuple[int, ...]:
        """H-18: the seats whose "peeked" box is ticked."""
        return tuple(s for s in range(self.setup.n) if getattr(getattr(self, f"peek_{s}", None), "data", False))

    def validate_claim_kind(self, field: RadioField) -> None:
        kinds = [c.value for c in (self.claim_kind.choices or [])]
        if field.data not in kinds:
            raise ValidationError(gettext("Choose a kind of claim."))
        if not field.data:
            return
        seats = [str(i) for i in range(self.setup.n)]
        if self.claim_accused.data not in seats:
            raise ValidationError(gettext("Choose who is accused."))
        if self.claim_by.data not in seats + ["", None]:
            raise ValidationError(gettext("Choose who made the claim."))
        if self.claim_trick.data not in [str(i) for i in range(1, TRICKS_PER_HAND + 1)] + ["", None]:
            raise ValidationError(gettext("Tricks are numbered 1 to 5."))
        if self.claim_suit.data not in ("S", "H", "D", "C", "", None):
            raise ValidationError(gettext("Choose the suit led."))
        if self.claim_upheld.data not in ("yes", "no"):
            raise ValidationError(gettext("Choose whether the table upholds or rejects the claim."))
        if self.claim_evidence_trick.data not in [str(i) for i in range(1, TRICKS_PER_HAND + 1)] + ["", None]:
            raise ValidationError(gettext("Tricks are numbered 1 to 5."))
        for suit, rank in ((self.claim_card_suit, self.claim_card_rank),
                           (self.claim_evidence_suit, self.claim_evidence_rank)):
            if suit.data not in (*SUITS, "", None) or rank.data not in (*RANKS_52, "", None):
                raise ValidationError(gettext("Choose a card: its suit, then its rank."))
            if suit.data and not rank.data:
                raise ValidationError(gettext("Choose a card: its suit, then its rank."))

    def picked_card(self, typed: StringField, suit: RadioField, rank: RadioField) -> str | None:
        """A claim's card: typed ("2c", for the API and older pages) or picked (suit
        then rank); ``None`` when neither is given."""
        if typed.data:
            return str(typed.data)
        if suit.data in SUITS and rank.data in RANKS_52:
            return f"{rank.data}{suit.data}"
        return None

    def claim_value(self) -> Claim | None:
        """The claim entered, or ``None``; the engine checks the rest (cards, seats)."""
        if not self.claim_kind.data:
            return None

        def seat(field: RadioField) -> int | None:
            return int(field.data) if field.data in [str(i) for i in range(self.setup.n)] else None

        def card(text: str | None) -> str | None:
            if not text:
                return None
            try:
                return str(parse_card(text))
            except RulesError:
                return text  # the engine refuses it with a message

        trick, later = self.claim_trick.data, self.claim_evidence_trick.data
        return Claim(
            kind=self.claim_kind.data,
            accused=int(self.claim_accused.data),
            upheld=self.claim_upheld.data != "no",
            by=seat(self.claim_by),
            trick=int(trick) if trick in [str(i) for i in range(1, TRICKS_PER_HAND + 1)] else None,
            suit_led=self.claim_suit.data if self.claim_suit.data in ("S", "H", "D", "C") else None,
            card=card(self.picked_card(self.claim_card, self.claim_card_suit, self.claim_card_rank)),
            evidence=card(self.picked_card(self.claim_evidence, self.claim_evidence_suit, self.claim_evidence_rank)),
            cards_held=self.claim_cards_held.data,
            before_speaking=bool(self.claim_before.data),
            evidence_trick=int(later) if later in [str(i) for i in range(1, TRICKS_PER_HAND + 1)] else None,
        )

    def tricks_value(self) -> int | None:
        return None if self.tricks.data in (None, "") else int(self.tricks.data)

    def hand_data(self, sequence_auction: bool) -> dict[str, Any]:
        """What the form holds, in the codec's shape with seats as indices
        (:func:`scorer.evening.codec.encode_hand`); the view reads it with
        :func:`scorer.evening.codec.decode_hand`. ``sequence_auction``: the calls come one by
        one from the dealer (russian36), else one per player from eldest hand."""
        dealer = int(self.dealer.data)
        if self.misdeal.data:
            return {"dealer": dealer, "misdeal": True}
        claim = self.claim_value()
        auction = self.call_sequence() if sequence_auction else self.calls_in_speaking_order(dealer)
        facts = HandFacts(dealer, auction, self.tricks_value(), trump=self.trump.data or None,
                          purchase=bool(self.purchase.data), widow=bool(self.widow.data), peeks=self.peeks_value(),
                          claims=(claim,) if claim else ())
        return encode_hand(facts)

    @staticmethod
    def initial(data: Mapping[str, Any], speaking_order: Sequence[int]) -> dict[str, Any]:
        """The form's field values for a hand in the codec's shape (seats as indices):
        the inverse of :meth:`hand_data`, for the form that corrects a hand. The form
        edits the first claim; ``speaking_order`` places the calls of a one-round auction."""
        auction = list(data.get("auction", ()))
        values: dict[str, Any] = {
            "dealer": str(data["dealer"]), "calls": ",".join(auction),
            "calls_dealer": str(data["dealer"]) if auction else "",
            "tricks": None if data.get("tricks") is None else str(data["tricks"]),
            "trump": data.get("trump") or "", "purchase": bool(data.get("purchase")),
            "widow": bool(data.get("widow")),
        }
        values.update({f"call_{seat}": call for seat, call in zip(speaking_order, auction)})
        values.update({f"peek_{seat}": True for seat in data.get("peeks", ())})
        claims = data.get("claims") or ()
        if claims:
            first = claims[0]
            values.update(
                claim_kind=first["kind"], claim_accused=str(first["accused"]),
                claim_by=str(first["by"]) if first.get("by") is not None else "",
                claim_upheld="yes" if first["upheld"] else "no",
                claim_trick=str(first["trick"]) if first.get("trick") is not None else "",
                claim_suit=first.get("suit_led") or "", claim_cards_held=first.get("cards_held"),
                claim_before=bool(first.get("before_speaking")),
                claim_evidence_trick=str(first["evidence_trick"]) if first.get("evidence_trick") else "")
            for name in ("card", "evidence"):
                values.update(_picker_values(f"claim_{name}", first.get(name)))
        return values

    def int_or_none(self, field: HiddenField) -> int | None:
        try:
            return int(field.data)
        except (TypeError, ValueError):
            return None


def _picker_values(field: str, text: str | None) -> dict[str, str]:
    """The card picker's values (``<field>_suit``, ``<field>_rank``) for a stored card;
    a text that is not a card goes back into the typed field ``<field>`` as it was."""
    if not text:
        return {}
    try:
        card = parse_card(text)
    except RulesError:
        return {field: text}
    return {f"{field}_suit": card.suit, f"{field}_rank": card.rank}


#: Labels that fit a phone's row of buttons: tricks for the numbered bids.
SHORT_NAMES = {"one": "1", "two": "2", "three": "3", "four": "4", "wellington": _l("Well."), "blucher": _l("Blü.")}


CLAIM_NAMES = {"revoke": _l("Revoke"), "wrong_cards": _l("Wrong number of cards"), "out_of_turn": _l("Out of turn")}
#: parse_stake's messages (scorer/evening_file.py), marked here so that the catalog has them
STAKE_ERRORS = (
    _l("The stake must be a number such as 0.10."), _l("The stake must be more than zero."),
    _l("The stake can have at most two decimal places."), _l("The stake can be at most 1000000."),
)


def hand_form_for(setup: EveningSetup, ladder: tuple[Any, ...], claim_kinds: Any = (), pack_size: int = 52,
                  **kwargs: Any) -> HandFormBase:
    """A hand form for this evening's players and bids; the claim's card picker offers
    the ranks of a ``pack_size`` pack (36: six to ace, R-1)."""

    class HandForm(HandFormBase):
        pass

    HandForm.setup = setup
    calls = choices([(PASS, gettext("Pass"))] + [(b.id, SHORT_NAMES.get(b.id, tr(b.name))) for b in ladder])
    for seat, name in enumerate(setup.players):
        setattr(
            HandForm,
            f"call_{seat}",
            RadioField(name, choices=calls, default=PASS, validate_choice=False, validators=[_known_call]),
        )
        if setup.options.get("widow") == "peep":
            setattr(HandForm, f"peek_{seat}", BooleanField(name))
    form = HandForm(**kwargs)
    form.dealer.choices = choices(enumerate(setup.players))
    seats = choices(enumerate(setup.players))
    form.claim_accused.choices = seats
    form.claim_by.choices = seats
    form.claim_kind.choices = choices([("", gettext("None"))] + [(k, CLAIM_NAMES[k]) for k in claim_kinds])
    ranks = choices((r, r) for r in (RANKS_36 if pack_size == 36 else RANKS_52))
    form.claim_card_rank.choices = ranks
    form.claim_evidence_rank.choices = ranks
    return form


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


class OverrideFormBase(FlaskForm):
    """Overrule a ruling: each player's change (``units_<seat>``), the pool's, and why."""

    version = HiddenField()
    hand_id = HiddenField()
    token = HiddenField(validators=[one_time_token])  # one-time: a double tap saves once
    pool = WholeNumberField(_l("Pool"), [Optional()], default=0)
    reason = StringField(_l("Why the table overrules the ruling"),
                         [Optional(), Length(max=500, message=_l("At most 500 characters."))], filters=[_strip])
    remove = SubmitField(_l("Remove the override"))
    apply = SubmitField(_l("Overrule"))

    def units(self, n: int) -> tuple[int, ...]:
        return tuple(getattr(self, f"units_{s}").data or 0 for s in range(n))


def override_form_for(players: tuple[str, ...], **kwargs: Any) -> OverrideFormBase:
    """An override form with one whole-number field per player."""

    class OverrideForm(OverrideFormBase):
        pass

    for seat, name in enumerate(players):
        setattr(OverrideForm, f"units_{seat}", WholeNumberField(name, [Optional()], default=0))
    return OverrideForm(**kwargs)


class PlayForm(FlaskForm):
    """The record of play being built one card at a time: ``record`` holds the tricks
    so far ("AS 2S 3S 4S|KS …"); ``version`` the hand version the page showed."""

    record = HiddenField()
    version = HiddenField()
    hand_id = HiddenField()
    token = HiddenField(validators=[one_time_token])  # one-time: a double tap on Save saves once

    def tricks(self) -> list[list[str]]:
        data = (self.record.data or "")[:400]
        return [t.split()[:6] for t in data.split("|") if t.strip()][:6]


class ActionForm(FlaskForm):
    """A form with only a CSRF token, for buttons such as Finish and Reopen."""


def is_number(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` also accepts "²" and "٢", which ``int`` refuses or misreads)."""
    return bool(re.fullmatch(r"[0-9]{1,9}", text))


class QuickFormBase(FlaskForm):
    """The common hand in a few taps: who declared what, then the declarer's tricks
    (one button per count, which also saves); everyone else passed. Anything else
    (claims, widow, purchase, a different dealer) goes through the full hand form.
    ``declarer`` and ``contract`` choices are set by :func:`quick_form_for`."""

    number = HiddenField()
    token = HiddenField(validators=[one_time_token])
    declarer = RadioField(lazy_gettext("Declarer"), validate_choice=False)
    contract = RadioField(lazy_gettext("Contract"), validate_choice=False)
    trump = RadioField(lazy_gettext("Trump suit"), validate_choice=False, validators=[_trump],
                       choices=choices([("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣")]))
    # A Wellington or Blücher overcalls (P-7, H-7): who bid Nap, and who bid Wellington.
    nap_by = RadioField(lazy_gettext("Who bid Nap before?"), validate_choice=False)
    wellington_by = RadioField(lazy_gettext("Who bid Wellington before?"), validate_choice=False)

    def posted_tricks(self) -> int | None:
        """The trick button pressed (0…5), or ``None``."""
        from flask import request

        raw = str(request.form.get("tricks", ""))[:2]
        return int(raw) if is_number(raw) and int(raw) <= TRICKS_PER_HAND else None


def quick_form_for(players: tuple[str, ...], ladder: tuple[Any, ...], **kwargs: Any) -> QuickFormBase:
    """A :class:`QuickFormBase` for these players (seat numbers) and this bid ladder."""

    class QuickForm(QuickFormBase):
        pass

    form = QuickForm(**kwargs)
    form.declarer.choices = choices(enumerate(players))
    form.nap_by.choices = choices(enumerate(players))
    form.wellington_by.choices = choices(enumerate(players))
    form.contract.choices = choices((bid.id, tr(bid.name)) for bid in ladder)
    return form


class PinForm(FlaskForm):
    """The table's edit PIN, typed by a viewer who wants to score."""

    pin = StringField(lazy_gettext("Table PIN"), validators=[Length(max=12)], filters=[_strip])


class DeviceForm(FlaskForm):
    """This phone's name in the history; ``next`` is the page to go back to."""

    device = StringField(lazy_gettext("This phone's name"), validators=[Length(max=40)], filters=[_strip])
    next = HiddenField()


class SettingsFormBase(OptionFields, FlaskForm):
    """Change a table's name, place and options during the evening (the players, the
    variant and the stake stay as agreed). Options are ``opt_<key>`` fields added by
    :func:`settings_form_for`; ``revision`` is the table's revision the page showed."""

    name = StringField(_l("Name of the evening"), [Optional(), Length(max=80, message=_l("At most 80 characters."))],
                       filters=[_strip])
    place = StringField(_l("Place"), [Optional(), Length(max=80, message=_l("At most 80 characters."))],
                        filters=[_strip])
    revision = HiddenField()


def settings_form_for(variant: Variant, **kwargs: Any) -> SettingsFormBase:
    """A settings form with ``variant``'s options as fields."""

    class SettingsForm(SettingsFormBase):
        pass

    SettingsForm.variant = variant
    _add_option_fields(SettingsForm, variant)
    return SettingsForm(**kwargs)


DISPUTE_NAMES = {"revoke": _l("Revoke (did not follow suit)"), "wrong_cards": _l("Wrong number of cards"),
                 "out_of_turn": _l("Played out of turn"), "misdeal": _l("Misdeal"),
                 "score": _l("The score is wrong")}


class DisputeFormBase(FlaskForm):
    """Dispute a hand from any phone (see :mod:`scorer.storage.disputes`): what is wrong, who is
    accused (for a claim), who raises it, the trick, a note. Seat choices are set by
    :func:`dispute_form_for`."""

    hand_id = HiddenField()
    kind = RadioField(_l("What is wrong?"), validate_choice=False)
    accused = RadioField(_l("Accused"), validate_choice=False)
    raised_by = RadioField(_l("Raised by"), validate_choice=False, default="")
    trick = RadioField(_l("In trick"), validate_choice=False, default="",
                       choices=choices([("", "—")] + [(str(t), str(t)) for t in range(1, TRICKS_PER_HAND + 1)]))

    def validate_kind(self, field: RadioField) -> None:
        if field.data not in [c.value for c in field.choices or []]:
            raise ValidationError(gettext("Choose what is wrong with the hand."))

    def validate_accused(self, field: RadioField) -> None:
        if field.data not in [c.value for c in field.choices or []] + ["", None]:
            raise ValidationError(gettext("Choose who is accused."))

    def validate_raised_by(self, field: RadioField) -> None:
        if field.data not in [c.value for c in field.choices or []] + [None]:
            raise ValidationError(gettext("Choose who raises the dispute."))

    def validate_trick(self, field: RadioField) -> None:
        if field.data not in [c.value for c in field.choices or []] + [None]:
            raise ValidationError(gettext("Tricks are numbered 1 to 5."))
    note = StringField(_l("What happened (optional)"),
                       [Optional(), Length(max=200, message=_l("At most 200 characters."))], filters=[_strip])


def dispute_form_for(players: tuple[str, ...], kinds: tuple[str, ...], **kwargs: Any) -> DisputeFormBase:
    """A :class:`DisputeFormBase` for these players and the dispute ``kinds`` the variant knows."""

    class DisputeForm(DisputeFormBase):
        pass

    form = DisputeForm(**kwargs)
    form.kind.choices = choices((k, DISPUTE_NAMES[k]) for k in kinds)
    form.accused.choices = choices(enumerate(players))
    form.raised_by.choices = choices([("", gettext("Someone watching"))] + list(enumerate(players)))
    return form
