"""The hand form (WTForms through Flask-WTF): record or correct one hand — dealer, one call
per player (or the russian36 auction call by call), tricks, a claim of the referee.

The form checks shape; the rules engine checks legality, and its errors are put back on
the form by the views. The other forms: :mod:`scorer.web.evening_forms` (start, import,
settings) and :mod:`scorer.web.table_forms` (quick entry, override, play, PIN, disputes…).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from flask_wtf import FlaskForm
from wtforms import SubmitField
from wtforms.validators import Length, NumberRange, Optional, ValidationError

from ..evening.codec import encode_hand
from ..evening.limits import NOTE_LIMIT
from ..reports.words import gettext, tr
from ..reports.words import lazy_gettext as _l
from ..rules import BIDS, PASS, Claim, EveningSetup, HandFacts, RulesError, clean_text
from ..rules.cards import RANKS_36, RANKS_52, SUITS, parse_card
from ..rules.claims import CLAIM_KINDS
from ..rules.core import TRICKS_PER_HAND
from .fast_widgets import BooleanField, HiddenField, RadioField, StringField, TableForm, fields_state
from .form_fields import SUIT_PILLS, WholeNumberField, choices, known_suit, one_time_token, strip_text


def _known_call(form: FlaskForm, field: RadioField) -> None:
    if field.data != PASS and field.data not in BIDS:
        raise ValidationError(gettext("“%(call)s” is not a bid. Choose Pass or a bid.", call=str(field.data)[:20]))


def _tricks(form: FlaskForm, field: RadioField) -> None:
    if field.data in (None, ""):
        return
    if field.data not in [str(i) for i in range(TRICKS_PER_HAND + 1)]:
        raise ValidationError(gettext("The declarer wins 0 to %(n)s tricks.", n=TRICKS_PER_HAND))


class HandFormBase(TableForm):
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
    trump = RadioField(_l("Trump named by the declarer"), validate_choice=False, validators=[known_suit],
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
                             filters=[strip_text])
    claim_evidence = StringField(_l("Shown later"), [Optional(), Length(max=4, message=_l("A card such as 5H."))],
                                 filters=[strip_text])
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
    #: the table's line of free text about the hand (issue 25 item 7); cleaned by the codec's reader
    note = StringField(_l("Note (optional)"), [Optional(), Length(max=NOTE_LIMIT, message=_l(
        "A note is at most %(max)d characters."))], filters=[strip_text])

    setup: EveningSetup
    #: set by :func:`hand_form_for`: each kind of claim's ``data-needs``, and the parts they need
    claim_needs: dict[str, str]
    claim_parts: set[str]

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

    def claim_state(self) -> Hashable | None:
        """What the form's claim part prints from (templates/hand_form.html, printed once per
        state by :func:`scorer.web.kept_parts.kept_part`): its ``claim_*`` fields, and the
        kinds' needs and the parts they need (:func:`hand_form_for`); ``None`` when a phone
        posted any of those fields (the part shows what it sent: printed, never kept)."""
        claim_fields = [f for f in self if f.short_name.startswith("claim_")]
        if any(f.raw_data for f in claim_fields):
            return None
        return fields_state(claim_fields), tuple(sorted(self.claim_needs.items())), tuple(sorted(self.claim_parts))

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
        note = clean_text(self.note.data or "")
        if self.misdeal.data:
            return {"dealer": dealer, "misdeal": True, **({"note": note} if note else {})}
        claim = self.claim_value()
        auction = self.call_sequence() if sequence_auction else self.calls_in_speaking_order(dealer)
        facts = HandFacts(dealer, auction, self.tricks_value(), trump=self.trump.data or None,
                          purchase=bool(self.purchase.data), widow=bool(self.widow.data), peeks=self.peeks_value(),
                          claims=(claim,) if claim else (), note=note)
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
            "widow": bool(data.get("widow")), "note": data.get("note") or "",
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




#: the hand form classes made (:func:`_hand_form_class`), by players, calls (as printed) and peeks
_CLASSES: dict[tuple[Any, ...], type[HandFormBase]] = {}


def _hand_form_class(players: tuple[str, ...], calls: list[Any], peeks: bool) -> type[HandFormBase]:
    """The form class with a call field (and, with ``peeks``, a peek box) per player: made once
    for each table's players and calls in a language, not for each form (making a form class
    and finding its fields is a tenth of a hand form's CPU). Never changed once made."""
    key = (players, tuple((c.value, str(c.label)) for c in calls), peeks)
    found = _CLASSES.get(key)
    if found is not None:
        return found

    class HandForm(HandFormBase):
        pass

    for seat, name in enumerate(players):
        setattr(HandForm, f"call_{seat}",
                RadioField(name, choices=calls, default=PASS, validate_choice=False, validators=[_known_call]))
        if peeks:
            setattr(HandForm, f"peek_{seat}", BooleanField(name))
    if len(_CLASSES) >= 512:
        _CLASSES.clear()
    _CLASSES[key] = HandForm
    return HandForm


def hand_form_for(setup: EveningSetup, ladder: tuple[Any, ...], claim_kinds: Any = (), pack_size: int = 52,
                  **kwargs: Any) -> HandFormBase:
    """A hand form for this evening's players and bids; the claim's card picker offers
    the ranks of a ``pack_size`` pack (36: six to ace, R-1). The kinds of claim come from
    the registry (:data:`~scorer.rules.claims.CLAIM_KINDS`): ``form.claim_words`` names
    them for the summary, ``form.claim_needs`` gives each kind's ``data-needs`` and
    ``form.claim_parts`` the parts of the claim form any of them needs."""

    calls = choices([(PASS, gettext("Pass"))] + [(b.id, SHORT_NAMES.get(b.id, tr(b.name))) for b in ladder])
    form = _hand_form_class(tuple(setup.players), calls, setup.options.get("widow") == "peep")(**kwargs)
    form.setup = setup
    form.dealer.choices = choices(enumerate(setup.players))
    seats = choices(enumerate(setup.players))
    form.claim_accused.choices = seats
    form.claim_by.choices = seats
    kinds = [CLAIM_KINDS[k] for k in claim_kinds]
    form.claim_kind.choices = choices([("", gettext("None"))] + [(k.id, tr(k.label)) for k in kinds])
    form.claim_words = [tr(k.word) for k in kinds]
    form.claim_needs = {k.id: " ".join(k.needs) for k in kinds}
    form.claim_parts = {need for k in kinds for need in k.needs}
    ranks = choices((r, r) for r in (RANKS_36 if pack_size == 36 else RANKS_52))
    form.claim_card_rank.choices = ranks
    form.claim_evidence_rank.choices = ranks
    return form
