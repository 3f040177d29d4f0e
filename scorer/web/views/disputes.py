"""Disputes and confirmation (issue 12, :mod:`scorer.storage.disputes`): any phone, a viewer's
included, disputes a hand or accepts one another phone entered; a scorer dismisses a
dispute (ruling on one goes through the hand's correction form, see ``hands.edit_hand``)
and turns confirmation on or off. Each write is a command of :mod:`scorer.storage.disputes`
answered by :func:`~scorer.web.answers.form_answer`."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext

from ...storage import disputes
from ...storage.commands import Saved, execute
from ...storage.disputes import ConfirmHand, DismissDispute, RaiseDispute, SetConfirmation
from ...storage.models import DISPUTE_KINDS
from ..answers import form_answer, sender
from ..form_fields import is_number
from ..permissions import permission
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
        command = RaiseDispute(key, posted_int("hand_id"), form.kind.data or "", number,
                               accused=_seat(form.accused.data), raised_by=_seat(form.raised_by.data),
                               trick=_seat(form.trick.data), note=form.note.data or "")
        answer = form_answer(execute(command, device=sender()), to=url_for("hands.hand", key=key, number=number),
                             back=url_for("sheet.scoresheet", key=key), form=form,
                             saved=gettext("Hand %(n)s is disputed: every phone shows it until a scorer rules on it.",
                                           n=number))
        if answer is not None:
            return answer
        status = 422
    elif form.is_submitted():
        status = 422
    return render_template("dispute.html", evening=evening, ledger=ledger, row=row, form=form, number=number,
                           accusing=disputes.ACCUSING), status


@bp.post("/e/<key>/dispute/<int:dispute_id>/dismiss")
@permission("score")
def dismiss(key: str, dispute_id: int) -> Any:
    """A scorer finds nothing to change: the dispute is closed (kept in the history)."""
    sheet = url_for("sheet.scoresheet", key=key)
    if not ActionForm().validate_on_submit():
        return redirect(sheet)
    outcome = execute(DismissDispute(key, dispute_id), device=sender())
    to = (url_for("hands.hand", key=key, number=outcome.number)
          if isinstance(outcome, Saved) and outcome.number and outcome.number > 0 else sheet)
    return form_answer(outcome, saved=gettext("The dispute is dismissed; the hand stands."), to=to, back=sheet)


@bp.post("/e/<key>/hand/<int:number>/confirm")
@permission("view")
def confirm(key: str, number: int) -> Any:
    """Accept hand ``number`` (confirmation): any phone but the one that entered it."""
    sheet = url_for("sheet.scoresheet", key=key)
    if not ActionForm().validate_on_submit():
        return redirect(sheet)
    outcome = execute(ConfirmHand(key, posted_int("hand_id"), number), device=sender())
    return form_answer(outcome, saved=gettext("Hand %(n)s confirmed.", n=number), to=sheet)


@bp.post("/e/<key>/confirmation")
@permission("manage")
def confirmation(key: str) -> Any:
    """Turn confirmation on or off (Settings)."""
    settings = url_for("table.settings", key=key)
    if not ActionForm().validate_on_submit():
        return redirect(settings)
    on = str(request.form.get("on", "")) == "1"
    return form_answer(execute(SetConfirmation(key, on), device=sender()), to=settings,
                       saved=gettext("Each new hand now waits for another phone to confirm it.") if on
                       else gettext("New hands no longer wait for confirmation."))
