"""JSON commands of the table's access (``docs/api.md``), the same commands as the forms
of :mod:`scorer.web.views.table` and :mod:`scorer.web.views.owner`
(:mod:`scorer.storage.table_access`), with the same permissions: a scorer revokes another
(not the owner); the table's owner renews the PIN and scorers' link or hands the table
over; any phone joins with the PIN or names itself. Joining is not a command: wrong PINs
are counted even when it refuses (:func:`scorer.web.access.join`)."""

from __future__ import annotations

from typing import Any

from flask import jsonify

from ...storage.commands import Saved, execute
from ...storage.models import TableAccess, db
from ...storage.table_access import HandOverOwnership, NameDevice, RenewCredentials, RevokeScorer
from .. import access
from ..answers import fresh_evening, json_answer, sender
from ..json_body import body, integer, json_blueprint, text, token
from ..lan import external_url
from ..permissions import permission
from .common import evening_or_404

bp = json_blueprint("api_table", __name__)



@bp.post("/e/<key>/scorers/<int:access_id>/revoke")
@permission("manage")
def revoke(key: str, access_id: int) -> Any:
    """Take the scorer's role from another phone (row ``access_id`` of the scorers' list); it can still watch.
    ``"renew": true`` (the owner only) renews the PIN and scorers' link in the same command."""
    data = body()
    once = token(data)
    renew = data.get("renew") is True

    def saved(done: Saved, status: int) -> Any:
        row = db.session.get(TableAccess, access_id)
        assert row is not None  # revoked just now, or by the first of these commands
        return jsonify(revoked={"id": row.id, "phone": access.phone_name(row.device)}), status

    return json_answer(key, execute(RevokeScorer(key, access_id, once, renew=renew), device=sender()), saved, 200)


@bp.post("/e/<key>/credentials")
@permission("manage")
def renew(key: str) -> Any:
    """A new PIN and scorers' link; phones that scored with the old ones can only watch."""
    once = token(body())
    access.current_device(create=True)  # this phone stays a scorer: its row is kept with the new link
    outcome = execute(RenewCredentials(key, once), device=sender())
    access.forget_roles()

    def saved(done: Saved, status: int) -> Any:
        evening = fresh_evening(key)
        return jsonify(pin=evening.pin,
                       scorer_link=external_url("table.scorer_link", key=key, edit_key=evening.edit_key)), status

    return json_answer(key, outcome, saved, 201)


@bp.post("/e/<key>/owner")
@permission("manage")
def hand_over(key: str) -> Any:
    """The owner makes another scorer (row ``access_id`` of the scorers' list) the table's
    owner; this phone stays a scorer, and cannot take it back (403 for any other phone)."""
    data = body()
    once = token(data)
    access_id = integer(data, "access_id", 1)
    outcome = execute(HandOverOwnership(key, access_id, once), device=sender())
    access.forget_roles()

    def saved(done: Saved, status: int) -> Any:
        owner = access.owner_of(fresh_evening(key))
        return jsonify(owner={"id": owner.id, "phone": access.phone_name(owner.device)} if owner else None), status

    return json_answer(key, outcome, saved, 200)


@bp.post("/e/<key>/join")
@permission("view")
def join(key: str) -> Any:
    """Become a scorer with the table's PIN. Joining again (a retry) answers the same:
    the phone is a scorer already, and no PIN is tried."""
    data = body()
    token(data)  # a join is idempotent by nature: a scorer's retry tries no PIN (nothing is kept)
    pin = text(data, "pin", "", 12)
    evening = evening_or_404(key)
    access.remember(key)
    return json_answer(key, access.join(evening, pin), lambda done, status: (jsonify(scorer=True), status), 200)


@bp.post("/device")
@permission("public")
def device() -> Any:
    """Name this phone (shown in the history; blank: the name guessed from its browser)."""
    data = body()
    token(data)  # naming is idempotent by nature: nothing is kept
    name = text(data, "name", "", 40)
    access.current_device(create=True)  # a phone seen for the first time is saved first, on its own
    outcome = execute(NameDevice(name), device=sender())
    access.forget_device()
    return json_answer("", outcome, lambda done, status: (jsonify(name=access.device_name()), status), 200)
