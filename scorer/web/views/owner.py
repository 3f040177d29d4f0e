"""Handing the table over (issue "Safe to host", item 2): the owner, and only the owner,
makes another scorer the table's owner, after a page that asks first: the phone that
gives the table away cannot take it back. The same command as the JSON route
(:class:`~scorer.storage.table_access.HandOverOwnership`, ``POST /api/e/<key>/owner``)."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from ...storage import units
from ...storage.commands import Saved, execute
from ...storage.models import TableAccess, db
from ...storage.table_access import HandOverOwnership
from .. import access
from ..answers import form_answer, sender
from ..permissions import permission
from ..table_forms import ActionForm
from .common import posted_int

bp = Blueprint("owner", __name__)


@bp.get("/e/<key>/owner/<int:access_id>")
@permission("manage")
def confirm_hand_over(key: str, access_id: int) -> Any:
    """Ask the owner before making the phone of row ``access_id`` the table's owner."""
    evening = units.get_evening(key)
    if evening is None:
        abort(404)
    back = url_for("table.share", key=key) + "#scorers"
    owner = access.owner_of(evening)
    if owner is None or owner.device_id != access.device_id():
        flash(_("Only the table's owner can hand the table over."))
        return redirect(back)
    theirs = next((row for row, active in access.scorers_of(evening) if row.id == access_id and active), None)
    if theirs is None or theirs.id == owner.id:
        flash(_("Nothing was changed: that phone is not a scorer here (or it is this phone)."))
        return redirect(back)
    return render_template("confirm_owner.html", evening=evening, row=theirs, phone=access.phone_name(theirs.device),
                           action=ActionForm(), token=secrets.token_urlsafe(16))


@bp.post("/e/<key>/owner")
@permission("manage")
def hand_over(key: str) -> Any:
    """Make another scorer the table's owner; this phone stays a scorer."""
    back = url_for("table.share", key=key) + "#scorers"
    if not ActionForm().validate_on_submit():
        flash(_("Nothing was saved: reload the page and try again."))
        return redirect(back)
    once = str(request.form.get("token", ""))[:64] or None  # a double tap hands over once
    outcome = execute(HandOverOwnership(key, posted_int("access_id") or -1, once), device=sender())
    access.forget_roles()
    row = db.session.get(TableAccess, outcome.detail) if isinstance(outcome, Saved) else None
    phone = access.phone_name(row.device) if row is not None else ""
    return form_answer(outcome, to=back, saved=_("“%(name)s” owns the table now. This phone can still score.",
                                                 name=phone))
