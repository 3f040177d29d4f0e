"""Disputes and confirmation (issue 12, :mod:`scorer.storage.disputes`): any phone, a viewer's
included, disputes a hand or accepts one another phone entered; a scorer dismisses a
dispute (ruling on one goes through the hand's correction form, see ``hands.edit_hand``)
and turns confirmation on or off."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext

from ...storage import disputes, errors
from ...storage.models import DISPUTE_KINDS
from .. import access
from ..access import permission
from ..form_fields import is_number
from ..i18n import error_text
from ..table_forms import ActionForm, dispute_form_for
from .common import load_evening, posted_int, row_of

bp = Blueprint("disputes", __name__)


def _seat(raw: str | None) -> int | None:
    return int(raw) if raw and is_number(raw) else None


def dispute_kinds(variant: Any) -> tuple[str, ...]:
    """The disputes a phone may raise at this table: the variant's claims (its
    ``claim_rules``), a misdeal, and "the score is wrong"."""
    return tuple(k for k in DISPUTE_KINDS if k in variant.claim_rules or k in ("misdeal", "score"))


@bp.route("/e/<key>/hand/<int:number>/dispute", methods=["GET", "POST"])
@permission("view")
def dispute(key: str, number: int) -> Any:
    """Dispute hand ``number``: a viewer may, like a scorer."""
    evening, ledger = load_evening(key)
    row = row_of(ledger, number)
    record = evening.hands[number - 1]
    form = dispute_form_for(ledger.setup.players, dispute_kinds(ledger.variant), hand_id=str(record.id))
    status = 200
    if form.validate_on_submit():
        try:
            disputes.raise_dispute(
                evening, number, hand_id=posted_int("hand_id"), kind=form.kind.data or "",
                accused=_seat(form.accused.data), raised_by=_seat(form.raised_by.data),
                trick=_seat(form.trick.data), note=form.note.data or "", device=access.device_name(),
                device_id=access.device_id())
        except errors.HandConflict as error:
            flash(error_text(error))
            return redirect(url_for("sheet.scoresheet", key=key))
        except disputes.DisputeRefused as error:
            form.form_errors.append(error_text(error))
            status = 422
        else:
            flash(gettext("Hand %(n)s is disputed: every phone shows it until a scorer rules on it.", n=number))
            return redirect(url_for("hands.hand", key=key, number=number))
    elif form.is_submitted():
        status = 422
    return render_template("dispute.html", evening=evening, ledger=ledger, row=row, form=form, number=number,
                           accusing=disputes.ACCUSING), status


@bp.post("/e/<key>/dispute/<int:dispute_id>/dismiss")
@permission("score")
def dismiss(key: str, dispute_id: int) -> Any:
    """A scorer finds nothing to change: the dispute is closed (kept in the history)."""
    evening, _ledger = load_evening(key)
    if ActionForm().validate_on_submit():
        try:
            done = disputes.settle_dispute(evening, dispute_id, "dismissed", device=access.device_name())
        except disputes.DisputeRefused as error:
            flash(error_text(error))
        else:
            flash(gettext("The dispute is dismissed; the hand stands."))
            hand = next((h for h in evening.hands if h.id == done.hand_id), None)
            if hand is not None:
                return redirect(url_for("hands.hand", key=key, number=hand.number))
    return redirect(url_for("sheet.scoresheet", key=key))


@bp.post("/e/<key>/hand/<int:number>/confirm")
@permission("view")
def confirm(key: str, number: int) -> Any:
    """Accept hand ``number`` (confirmation): any phone but the one that entered it."""
    evening, _ledger = load_evening(key)
    if ActionForm().validate_on_submit():
        try:
            disputes.confirm_hand(evening, number, hand_id=posted_int("hand_id"), device=access.device_name(),
                                  device_id=access.device_id())
        except (errors.HandConflict, disputes.DisputeRefused) as error:
            flash(error_text(error))
        else:
            flash(gettext("Hand %(n)s confirmed.", n=number))
    return redirect(url_for("sheet.scoresheet", key=key))


@bp.post("/e/<key>/confirmation")
@permission("manage")
def confirmation(key: str) -> Any:
    """Turn confirmation on or off (Settings)."""
    evening, _ledger = load_evening(key)
    form = ActionForm()
    if form.validate_on_submit():
        on = str(request.form.get("on", "")) == "1"
        disputes.set_confirmation(evening, on, device=access.device_name())
        flash(gettext("Each new hand now waits for another phone to confirm it.") if on
              else gettext("New hands no longer wait for confirmation."))
    return redirect(url_for("table.settings", key=key))
