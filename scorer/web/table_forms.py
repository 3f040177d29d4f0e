"""The small forms of the table: quick entry, the override of a ruling, the record of play,
a bare action (finish, undo…), the PIN, the phone's name and a dispute."""

from __future__ import annotations

from typing import Any

from flask import request
from wtforms import SubmitField
from wtforms.validators import Length, Optional, ValidationError

from ..reports.words import gettext, lazy_gettext, tr
from ..reports.words import lazy_gettext as _l
from ..rules.claims import CLAIM_KINDS
from ..rules.variants.base import TRICKS_PER_HAND
from .fast_widgets import HiddenField, RadioField, StringField, TableForm
from .form_fields import WholeNumberField, choices, is_number, known_suit, one_time_token, strip_text


class OverrideFormBase(TableForm):
    """Overrule a ruling: each player's change (``units_<seat>``), the pool's, and why."""

    version = HiddenField()
    hand_id = HiddenField()
    token = HiddenField(validators=[one_time_token])  # one-time: a double tap saves once
    pool = WholeNumberField(_l("Pool"), [Optional()], default=0)
    reason = StringField(_l("Why the table overrules the ruling"),
                         [Optional(), Length(max=500, message=_l("At most 500 characters."))], filters=[strip_text])
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


class PlayForm(TableForm):
    """The record of play being built one card at a time: ``record`` holds the tricks
    so far ("AS 2S 3S 4S|KS …"); ``version`` the hand version the page showed."""

    record = HiddenField()
    version = HiddenField()
    hand_id = HiddenField()
    token = HiddenField(validators=[one_time_token])  # one-time: a double tap on Save saves once

    def tricks(self) -> list[list[str]]:
        data = (self.record.data or "")[:400]
        return [t.split()[:6] for t in data.split("|") if t.strip()][:6]


class ActionForm(TableForm):
    """A form with only a CSRF token, for buttons such as Finish and Reopen."""


class QuickFormBase(TableForm):
    """The common hand in a few taps: who declared what, then the declarer's tricks
    (one button per count, which also saves); everyone else passed. Anything else
    (claims, widow, purchase, a different dealer) goes through the full hand form.
    ``declarer`` and ``contract`` choices are set by :func:`quick_form_for`."""

    number = HiddenField()
    token = HiddenField(validators=[one_time_token])
    declarer = RadioField(lazy_gettext("Declarer"), validate_choice=False)
    contract = RadioField(lazy_gettext("Contract"), validate_choice=False)
    trump = RadioField(lazy_gettext("Trump suit"), validate_choice=False, validators=[known_suit],
                       choices=choices([("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣")]))
    # A Wellington or Blücher overcalls (P-7, H-7): who bid Nap, and who bid Wellington.
    nap_by = RadioField(lazy_gettext("Who bid Nap before?"), validate_choice=False)
    wellington_by = RadioField(lazy_gettext("Who bid Wellington before?"), validate_choice=False)

    def posted_tricks(self) -> int | None:
        """The trick button pressed (0…5), or ``None``."""

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


class PinForm(TableForm):
    """The table's edit PIN, typed by a viewer who wants to score."""

    pin = StringField(lazy_gettext("Table PIN"), validators=[Length(max=12)], filters=[strip_text])


class DeviceForm(TableForm):
    """This phone's name in the history; ``next`` is the page to go back to."""

    device = StringField(lazy_gettext("This phone's name"), validators=[Length(max=40)], filters=[strip_text])
    next = HiddenField()


#: Each kind of dispute in words: the claims' from the registry, then a misdeal and the score.
DISPUTE_NAMES = {**{k.id: lazy_gettext(k.dispute) for k in CLAIM_KINDS.values()},
                 "misdeal": _l("Misdeal"), "score": _l("The score is wrong")}


class DisputeFormBase(TableForm):
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
                       [Optional(), Length(max=200, message=_l("At most 200 characters."))], filters=[strip_text])


def dispute_form_for(players: tuple[str, ...], kinds: tuple[str, ...], **kwargs: Any) -> DisputeFormBase:
    """A :class:`DisputeFormBase` for these players and the dispute ``kinds`` the variant knows."""

    class DisputeForm(DisputeFormBase):
        pass

    form = DisputeForm(**kwargs)
    form.kind.choices = choices((k, DISPUTE_NAMES[k]) for k in kinds)
    form.accused.choices = choices(enumerate(players))
    form.raised_by.choices = choices([("", gettext("Someone watching"))] + list(enumerate(players)))
    form.accusing_words = [tr(k.word) for k in CLAIM_KINDS.values() if k.accuses]
    return form
