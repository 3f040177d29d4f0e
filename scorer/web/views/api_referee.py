"""JSON commands of the referee (issue 22 item 5, ``docs/api.md``), the same commands as the
pages of :mod:`scorer.web.views.referee` with the same permissions: any phone at a table
of the event calls the referee; the event's owner names and revokes referees; a phone
becomes a referee by the referee's PIN or link; a referee lists the calls, takes,
closes, rules on the table's dispute or dismisses it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import abort, jsonify, request
from flask_babel import gettext

from ...evening.file import check_hand, read_hand
from ...storage import evenings, referees
from ...storage.commands import AlreadySaved, Conflict, Outcome, Saved, execute
from ...storage.models import Dispute, Evening, Event, db
from ...storage.pin_budget import network_of
from ...storage.referee_models import Referee, RefereeCall
from ...storage.referees import (
    CallReferee,
    CloseCall,
    NameReferee,
    RefereeDismiss,
    RefereeRule,
    RevokeReferee,
    TakeCall,
)
from .. import access
from ..answers import dispute_of, fresh_evening, json_answer, outcome_text, refused_json, sender
from ..json_body import BadBody, body, flag, integer, json_blueprint, text, token
from ..lan import external_url
from ..permissions import permission
from ..referee_pages import event_or_404, ruling_facts
from .common import evening_or_404

bp = json_blueprint("api_referee", __name__)


def call_of(found: RefereeCall, names: dict[int, str] | None = None) -> dict[str, Any]:
    """A call as the commands answer it (referees by name)."""
    if names is None:
        names = {r.id: r.name for r in referees.referees(found.event_id)}
    return {"id": found.id, "table": found.table_number, "round": found.round_number, "hand": found.hand_number,
            "note": found.note, "state": found.state, "raised_at": evenings.as_utc(found.raised_at).isoformat(),
            "taken_by": names.get(found.taken_by) if found.taken_by else None,
            "closed_by": names.get(found.closed_by) if found.closed_by else None,
            "outcome": found.outcome or None, "dispute": found.dispute_id,
            "table_key": db.session.scalar(db.select(Evening.key).where(Evening.id == found.evening_id))}


def _payload(call_id: int) -> dict[str, Any]:
    """The call ``call_id`` as committed now, and its event's revision."""
    found = db.session.get(RefereeCall, call_id, populate_existing=True)
    if found is None:
        abort(404)
    revision = db.session.scalar(db.select(Event.revision).where(Event.id == found.event_id))
    return {"revision": revision, "call": call_of(found)}


def event_answer(outcome: Outcome, saved: Callable[[Saved, int], Any], status: int = 200) -> Any:
    """:func:`~scorer.web.answers.json_answer` for a command of an event (no table state to
    send with a conflict): 409 for a conflict (another referee was first), 403 for what
    only a referee or the owner may do, 422 for a refusal."""
    if isinstance(outcome, Saved):
        return saved(outcome, status if outcome.changed else 200)
    if isinstance(outcome, AlreadySaved):
        return saved(Saved(outcome.key or "", changed=False), 200)
    message = outcome_text(outcome)
    if isinstance(outcome, Conflict):
        return jsonify(error={"code": "conflict", "message": message}), 409
    if outcome.forbidden:
        return jsonify(error={"code": "forbidden", "rule": outcome.rule, "message": message}), 403
    return refused_json(message, outcome.rule)


# --------------------------------------------------------------------------- a table calls
@bp.post("/e/<key>/referee")
@permission("view")
def call(key: str) -> Any:
    """Call the referee from a table: ``hand`` (optional), ``note`` (optional), ``event``
    (optional: the event the phone means; refused when the table is not one of its)."""
    data = body()
    once = token(data)
    evening_or_404(key)
    number = None if data.get("hand") is None else integer(data, "hand", 1)
    event = None if data.get("event") is None else text(data, "event", "", 32)
    command = CallReferee(key, number, text(data, "note", "", 200), event, once)

    def saved(done: Saved, status: int) -> Any:
        call_id = done.detail or db.session.scalar(  # a retry: the call the first one made
            db.select(RefereeCall.id).join(Evening, Evening.id == RefereeCall.evening_id)
            .where(Evening.key == key).order_by(RefereeCall.id.desc()).limit(1))
        if call_id is None:
            abort(404)
        return jsonify({**_payload(call_id), "table_revision": fresh_evening(key).revision}), status

    return json_answer(key, execute(command, device=sender()), saved, 201)


# --------------------------------------------------------------------------- the owner
@bp.post("/ev/<key>/referees")
@permission("manage", of="event")
def name_referee(key: str) -> Any:
    """Name a referee (``name``): answers the referee's own ``pin`` and ``link``."""
    data = body()
    outcome = execute(NameReferee(key, text(data, "name", "", 40), token(data)), device=sender())

    def saved(done: Saved, status: int) -> Any:
        row = db.session.get(Referee, done.detail) if done.detail else None
        if row is None:
            abort(404)
        return jsonify(referee=_referee_json(row, key)), status

    return event_answer(outcome, saved, 201)


def _referee_json(row: Referee, key: str) -> dict[str, Any]:
    return {"id": row.id, "name": row.name, "pin": row.pin, "revoked": row.revoked_at is not None,
            "link": external_url("referee.join_link", key=key, link_key=row.link_key),
            "phones": len(row.phones)}


@bp.get("/ev/<key>/referees")
@permission("manage", of="event")
def list_referees(key: str) -> Any:
    """The event's referees with their PINs and links: the owner's only (not an organiser's)."""
    event = event_or_404(key)
    device = access.current_device()
    if not referees.is_owner(device.id if device else None, event.id):
        return jsonify(error={"code": "forbidden", "rule": "owner", "message": gettext(
            "Only the event's owner can name or revoke referees.")}), 403
    return jsonify(referees=[_referee_json(r, key) for r in referees.referees(event.id)]), 200, \
        {"Cache-Control": "no-store"}


@bp.post("/ev/<key>/referees/<int:referee_id>/revoke")
@permission("manage", of="event")
def revoke(key: str, referee_id: int) -> Any:
    body()
    outcome = execute(RevokeReferee(key, referee_id), device=sender())

    def saved(done: Saved, status: int) -> Any:
        row = db.session.get(Referee, referee_id, populate_existing=True)
        assert row is not None
        return jsonify(referee=_referee_json(row, key)), status

    return event_answer(outcome, saved, 200)


# --------------------------------------------------------------------------- becoming a referee
@bp.post("/ev/<key>/referee/join")
@permission("view", of="event")
def join(key: str) -> Any:
    """Become a referee with a referee's ``pin`` or ``link_key``."""
    data = body()
    event = event_or_404(key)
    device = access.current_device(create=True)
    assert device is not None
    if "link_key" in data:
        referee = referees.join_by_link(device.id, event, text(data, "link_key", "", 64))
        if referee is None:
            return jsonify(error={"code": "refused", "message": gettext("That link names no referee of this event.")
                                  }), 422
    else:
        found = referees.join_by_pin(device.id, event, network_of(request.remote_addr), text(data, "pin", "", 12))
        if found.refused:
            return jsonify(error={"code": "pin_paused", "message": gettext(
                "Too many wrong PINs: ask the event's owner for your referee's link.")}), 429
        if found.referee is None:
            return jsonify(error={"code": "pin", "message": gettext("That is not the PIN of a referee of this event.")
                                  }), 422
        referee = found.referee
    access.rotate()
    return jsonify(referee={"id": referee.id, "name": referee.name}), 200


# --------------------------------------------------------------------------- the referee
@bp.get("/ev/<key>/calls")
@permission("referee", of="event")
def calls(key: str) -> Any:
    """Every call of the event (open and taken ones first), and who this referee is."""
    event = event_or_404(key)
    device = access.current_device()
    me = referees.referee_of(device.id if device else None, event.id)
    assert me is not None
    names = {r.id: r.name for r in referees.referees(event.id)}
    return jsonify(revision=event.revision, referee=me.name,
                   calls=[call_of(c, names) for c in referees.calls(event.id)]), 200, {"Cache-Control": "no-store"}


@bp.post("/ev/<key>/calls/<int:call_id>/take")
@permission("referee", of="event")
def take(key: str, call_id: int) -> Any:
    body()
    return event_answer(execute(TakeCall(key, call_id), device=sender()), _fixed(call_id), 200)


@bp.post("/ev/<key>/calls/<int:call_id>/close")
@permission("referee", of="event")
def close(key: str, call_id: int) -> Any:
    body()
    return event_answer(execute(CloseCall(key, call_id), device=sender()), _fixed(call_id), 200)


def _fixed(call_id: int) -> Any:
    def answer(done: Saved, status: int) -> Any:
        return jsonify(_payload(call_id)), status

    return answer


def _call_or_404(key: str, call_id: int) -> tuple[RefereeCall, Evening]:
    event = event_or_404(key)
    found = referees.call_of(event.id, call_id)
    if found is None:
        abort(404)
    evening = db.session.get(Evening, found.evening_id)
    assert evening is not None
    return found, evening


@bp.post("/ev/<key>/calls/<int:call_id>/rule")
@permission("referee", of="event")
def rule(key: str, call_id: int) -> Any:
    """Rule on dispute ``dispute`` of the call's table: ``upheld`` (true or false) puts its
    claim into the hand's facts, or ``facts`` replaces them; ``version`` is the hand's
    version the referee saw. Closes the dispute and the call; the ruling names the referee."""
    data = body()
    dispute_id, base, once = integer(data, "dispute", 1), integer(data, "version", 1), token(data)
    found, evening = _call_or_404(key, call_id)
    dispute = db.session.get(Dispute, dispute_id) if dispute_id < 2**31 else None
    if dispute is None or dispute.evening_id != evening.id:
        abort(404)
    if ("upheld" in data) == ("facts" in data):
        raise BadBody(gettext("Send upheld (true or false) or facts (the corrected hand), not both."))
    if "facts" in data:
        hand = next((h for h in evening.hands if h.id == dispute.hand_id), None)
        if hand is None:
            facts = None
        else:
            check_hand(data["facts"], "facts")
            current = evenings.facts_of(hand.current, len(evening.players))
            facts = read_hand(data["facts"], [p.name for p in evening.players], dealer=current.dealer, where="facts")
    else:
        facts = ruling_facts(evening, dispute_id, dispute.hand_id, base, flag(data, "upheld"))
        if facts is None and any(h.id == dispute.hand_id for h in evening.hands):
            raise BadBody(gettext("This dispute names no claim: send the corrected hand as facts."))
    command = RefereeRule(evening.key, dispute.hand_id, base, once, None, facts=facts, dispute_id=dispute_id,
                          call_id=call_id)
    outcome = execute(command, device=sender())

    def saved(done: Saved, status: int) -> Any:
        fresh = fresh_evening(evening.key)
        closed = db.session.get(Dispute, dispute_id, populate_existing=True)
        assert closed is not None
        return jsonify({**_payload(call_id), "dispute": dispute_of(closed, fresh),
                        "table_revision": fresh.revision}), status

    return json_answer(evening.key, outcome, saved, 201)


@bp.post("/ev/<key>/calls/<int:call_id>/dismiss")
@permission("referee", of="event")
def dismiss(key: str, call_id: int) -> Any:
    """Dismiss dispute ``dispute`` of the call's table (the hand stands) and close the call."""
    data = body()
    dispute_id, once = integer(data, "dispute", 1), token(data)
    found, evening = _call_or_404(key, call_id)
    outcome = execute(RefereeDismiss(evening.key, dispute_id, call_id, once), device=sender())

    def saved(done: Saved, status: int) -> Any:
        fresh = fresh_evening(evening.key)
        closed = db.session.get(Dispute, dispute_id, populate_existing=True)
        if closed is None:
            abort(404)
        return jsonify({**_payload(call_id), "dispute": dispute_of(closed, fresh),
                        "table_revision": fresh.revision}), status

    return json_answer(evening.key, outcome, saved, 200)
