"""JSON commands of the table's access (``docs/api.md``), over the same functions of
:mod:`scorer.web.access` as the forms of :mod:`scorer.web.views.table`, with the same
permissions: a manager revokes a scorer or renews the PIN and scorers' link; any phone
joins with the PIN or names itself."""

from __future__ import annotations

from typing import Any

from flask import jsonify
from flask_babel import gettext

from ...storage.models import TableAccess, db
from .. import access
from ..access import permission
from ..api_support import Refused, body, evening_of, json_blueprint, run, text, token
from .common import external_url

bp = json_blueprint("api_table", __name__)


@bp.post("/e/<key>/scorers/<int:access_id>/revoke")
@permission("manage")
def revoke(key: str, access_id: int) -> Any:
    """Take the scorer's role from another phone (row ``access_id`` of the scorers' list); it can still watch."""
    once = token(body())
    evening = evening_of(key)

    def do() -> None:
        if access.revoke(evening, access_id) is None:
            raise Refused(gettext("Nothing was changed: that phone is not a scorer here (or it is this phone)."))

    _done, fresh = run("revoke", once, do, evening_id=evening.id)
    row = db.session.get(TableAccess, access_id)
    assert row is not None  # revoked just now, or by the first of these commands
    return jsonify(revoked={"id": row.id, "phone": access.phone_name(row.device)}), 200


@bp.post("/e/<key>/credentials")
@permission("manage")
def renew(key: str) -> Any:
    """A new PIN and scorers' link; phones that scored with the old ones can only watch."""
    once = token(body())
    evening = evening_of(key)
    _done, fresh = run("credentials", once, lambda: access.renew_credentials(evening), evening_id=evening.id)
    evening = evening_of(key)
    db.session.refresh(evening)
    return jsonify(pin=evening.pin,
                   scorer_link=external_url("table.scorer_link", key=key, edit_key=evening.edit_key)), (
        201 if fresh else 200)


@bp.post("/e/<key>/join")
@permission("view")
def join(key: str) -> Any:
    """Become a scorer with the table's PIN. Joining again (a retry) answers the same:
    the phone is a scorer already, and no PIN is tried."""
    data = body()
    token(data)  # a join is idempotent by nature: a scorer's retry tries no PIN (nothing is kept)
    pin = text(data, "pin", "", 12)
    evening = evening_of(key)
    access.remember(key)
    if not access.is_scorer(key):
        try:
            joined = access.try_pin(evening, pin)
        except access.PinRefused as error:
            raise Refused(str(error), "pin_paused") from None
        if not joined:
            raise Refused(gettext("That is not this table's PIN."), "pin")
    return jsonify(scorer=True), 200


@bp.post("/device")
@permission("public")
def device() -> Any:
    """Name this phone (shown in the history; blank: the name guessed from its browser)."""
    data = body()
    once, name = token(data), text(data, "name", "", 40)
    access.current_device(create=True)  # a phone seen for the first time is saved first, on its own
    run("device", once, lambda: access.set_device_name(name))
    return jsonify(name=access.device_name()), 200
