"""The referee of a club night (issue 22 item 5), as pages: a table calls the referee; the
event's owner names and revokes referees; a phone becomes a referee by the referee's link
or PIN; the referee's desk shows every call at once (it follows the event's revision like
the scoresheet follows the table's) and rules on the table's dispute, takes and closes
calls. Each write is a command of :mod:`scorer.storage.referees` answered by
:func:`~scorer.web.answers.form_answer`; the JSON commands are :mod:`.api_referee`."""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

from flask import Blueprint, Response, abort, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_wtf import FlaskForm
from wtforms import SelectField, StringField
from wtforms.validators import Length

from ...rules import isolate
from ...storage import disputes, referees
from ...storage.commands import Saved, execute
from ...storage.models import Dispute, Evening, db
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
from ..answers import form_answer, sender
from ..form_fields import choices, strip_text
from ..lan import external_url
from ..permissions import permission
from ..referee_pages import event_or_404, referee_names, ruling_facts
from ..table_forms import DISPUTE_NAMES, ActionForm, PinForm
from .common import desk_url, evening_or_404, posted_int

bp = Blueprint("referee", __name__)


class CallForm(FlaskForm):
    """Call the referee: about which hand ("" the table) and what (optional)."""

    hand = SelectField(validate_choice=False)
    note = StringField(validators=[Length(max=200)], filters=[strip_text])


class NameForm(FlaskForm):
    """The event's owner names a referee."""

    name = StringField(validators=[Length(max=40)], filters=[strip_text])


@bp.app_context_processor
def desk_link() -> dict[str, Any]:
    """``referee_desk()`` for every page: on a page of an event's table (``/e/<key>…``), the
    link back to the referee's desk when this phone is a referee of that event; else ``None``
    (a referee who ruled lands on the table's hand page and must find the way back). The
    scoresheet's page is shared by every phone of a language and role (its caches): there
    the link is in the event line (``in_event_line``), made for each phone."""
    return {"referee_desk": desk_url}


def _no_store(page: str, status: int = 200) -> Response:
    """A page that shows calls, PINs or links: never kept by a cache."""
    return Response(page, status=status, mimetype="text/html", headers={"Cache-Control": "no-store"})


# --------------------------------------------------------------------------- a table calls
@bp.route("/e/<key>/referee", methods=["GET", "POST"])
@permission("view")
def call(key: str) -> Any:
    """Call the referee from any phone at a table of a club night (a viewer's too)."""
    evening = evening_or_404(key)
    place = referees.table_of(evening.id)
    if place is None:
        abort(404)
    table, round_ = place
    form = CallForm()
    form.hand.choices = choices([("", gettext("the whole table"))] + [(h.number, gettext("hand %(n)s", n=h.number))
                                                                      for h in reversed(evening.hands)])
    if request.method == "GET" and request.args.get("hand", "").isdigit():
        form.hand.data = request.args["hand"]
    status = 200
    if form.validate_on_submit():
        raw = form.hand.data or ""
        number = int(raw) if raw.isdigit() and len(raw) < 7 else None
        if raw and number is None:
            form.hand.errors = [gettext("Choose a hand of this table, or the whole table.")]
            status = 422
        else:
            outcome = execute(CallReferee(key, number, form.note.data or ""), device=sender())
            answer = form_answer(outcome, to=url_for(".call", key=key), form=form,
                                 saved=gettext("The referee is called: every referee's phone and the room screen "
                                               "show it."))
            if answer is not None:
                return answer
            status = 422
    elif form.is_submitted():
        status = 422
    return _no_store(render_template("referee_call.html", evening=evening, table=table, round=round_, form=form,
                                     calls=referees.table_calls(evening.id),
                                     names=referee_names(table.event_id)), status)


# --------------------------------------------------------------------------- becoming a referee
@bp.route("/ev/<key>/referee/join", methods=["GET", "POST"])
@permission("view", of="event")
def join_pin(key: str) -> Any:
    """Become one of the event's referees with that referee's PIN."""
    event = event_or_404(key)
    device = access.current_device()
    if device is not None and referees.referee_of(device.id, event.id) is not None:
        return redirect(url_for(".desk", key=key))
    form = PinForm()
    status = 200
    if form.validate_on_submit():
        device = access.current_device(create=True)
        assert device is not None
        from ...storage.pin_budget import network_of

        found = referees.join_by_pin(device.id, event, network_of(request.remote_addr), form.pin.data or "")
        if found.referee is not None:
            access.rotate()  # a new role, a new device id (as a scorer's)
            flash(gettext("This phone is now the referee %(name)s of this event.", name=isolate(found.referee.name)))
            return redirect(url_for(".desk", key=key))
        form.pin.errors = [gettext("Too many wrong PINs from this phone. Try again in %(minutes)s min, or ask the "
                                   "event's owner for your referee's link.", minutes=found.waits)
                           if found.refused == "phone" else
                           gettext("Too many wrong PINs at this event today: ask the event's owner for your "
                                   "referee's link.") if found.refused else
                           gettext("That is not the PIN of a referee of this event.")]
        status = 422
    elif form.is_submitted():
        status = 422
    return render_template("referee_join.html", event=event, form=form), status


@bp.get("/ev/<key>/referee/<link_key>")
@permission("view", of="event")
def join_link(key: str, link_key: str) -> Any:
    """A referee's own link: this phone becomes that referee."""
    event = event_or_404(key)
    device = access.current_device(create=True)
    assert device is not None
    referee = referees.join_by_link(device.id, event, link_key)
    if referee is None:
        abort(404)  # no such referee, or revoked: the link names nobody now
    access.rotate()
    flash(gettext("This phone is now the referee %(name)s of this event.", name=isolate(referee.name)))
    return redirect(url_for(".desk", key=key))


# --------------------------------------------------------------------------- the owner
@bp.route("/ev/<key>/referees", methods=["GET", "POST"])
@permission("manage", of="event")
def manage(key: str) -> Any:
    """The event's owner names referees (each gets a link and a PIN of their own) and revokes them."""
    event = event_or_404(key)
    device = access.current_device()
    if not referees.is_owner(device.id if device else None, event.id):  # an organiser: no referee's PIN shown
        flash(gettext("Only the event's owner can name or revoke referees."))
        return redirect(url_for("events.event_page", key=key))
    form = NameForm()
    status = 200
    if form.validate_on_submit():
        outcome = execute(NameReferee(key, form.name.data or "", str(request.form.get("token", ""))[:64] or None),
                          device=sender())
        answer = form_answer(outcome, to=url_for(".manage", key=key), form=form,
                             saved=gettext("%(name)s is a referee of this event: give them their link or PIN.",
                                           name=isolate(" ".join((form.name.data or "").split()))))
        if answer is not None:
            return answer
        status = 422
    elif form.is_submitted():
        status = 422
    rows = referees.referees(event.id)
    links = {r.id: external_url("referee.join_link", key=key, link_key=r.link_key) for r in rows}
    return _no_store(render_template("referee_manage.html", event=event, form=form, referees=rows, links=links,
                                     action=ActionForm(), token=secrets.token_urlsafe(16)), status)


@bp.post("/ev/<key>/referees/<int:referee_id>/revoke")
@permission("manage", of="event")
def revoke(key: str, referee_id: int) -> Any:
    back = url_for(".manage", key=key)
    if not ActionForm().validate_on_submit():
        return redirect(back)
    outcome = execute(RevokeReferee(key, referee_id), device=sender())
    row = db.session.get(Referee, referee_id) if isinstance(outcome, Saved) else None
    return form_answer(outcome, to=back, saved=gettext("%(name)s is no longer a referee of this event.",
                                                       name=isolate(row.name if row else "")))


# --------------------------------------------------------------------------- the referee's desk
@bp.get("/ev/<key>/calls")
@permission("referee", of="event")
def desk(key: str) -> Any:
    """Every call of the event: the open ones with the table's disputes to rule on, then the
    closed ones (the event's history of calls). Follows the event's revision."""
    event = event_or_404(key)
    device = access.current_device()
    me = referees.referee_of(device.id if device else None, event.id)
    assert me is not None  # the door let only referees in
    every = referees.calls(event.id)
    open_calls = [c for c in every if c.closed_at is None]
    return _no_store(render_template(
        "referee_desk.html", event=event, me=me, open_calls=open_calls,
        closed_calls=[c for c in every if c.closed_at is not None][:50],
        tables={c.evening_id: _table_view(c) for c in open_calls}, names=referee_names(event.id),
        dispute_names=DISPUTE_NAMES, accusing=disputes.ACCUSING, action=ActionForm(),
        new_token=lambda: secrets.token_urlsafe(16)))


@dataclasses.dataclass
class TableView:
    evening: Evening
    players: list[str]
    disputes: list[tuple[int, Dispute]]  # (hand number, dispute), the hands the call is about first
    versions: dict[int, int]  # hand number → current version
    hand_ids: dict[int, int]


def _table_view(call: RefereeCall) -> TableView:
    evening = db.session.get(Evening, call.evening_id)
    assert evening is not None
    found = disputes.open_disputes(evening)
    listed = sorted(((n, d) for n, ds in found.items() for d in ds),
                    key=lambda nd: (nd[0] != call.hand_number, nd[0], nd[1].id))
    return TableView(evening, [p.name for p in evening.players], listed,
                     {h.number: h.current.version for h in evening.hands}, {h.number: h.id for h in evening.hands})


@bp.get("/ev/<key>/calls/revision")
@permission("view", of="event")
def revision(key: str) -> Any:
    """The event's revision, for the desk's live poll (no call is told)."""
    found = referees.event_revision(key)
    if found is None:
        abort(404)
    return jsonify(revision=found), 200, {"Cache-Control": "no-store"}


def _call_or_404(event: Any, call_id: int) -> RefereeCall:
    found = referees.call_of(event.id, call_id)
    if found is None:
        abort(404)
    return found


@bp.post("/ev/<key>/calls/<int:call_id>/take")
@permission("referee", of="event")
def take(key: str, call_id: int) -> Any:
    desk_url = url_for(".desk", key=key)
    if not ActionForm().validate_on_submit():
        return redirect(desk_url)
    return form_answer(execute(TakeCall(key, call_id), device=sender()), to=f"{desk_url}#call-{call_id}",
                       saved=gettext("You have taken this call: the other referees see it."))


@bp.post("/ev/<key>/calls/<int:call_id>/close")
@permission("referee", of="event")
def close(key: str, call_id: int) -> Any:
    desk_url = url_for(".desk", key=key)
    if not ActionForm().validate_on_submit():
        return redirect(desk_url)
    return form_answer(execute(CloseCall(key, call_id), device=sender()), to=desk_url,
                       saved=gettext("The call is closed: nothing to rule."))


@bp.post("/ev/<key>/calls/<int:call_id>/rule/<int:dispute_id>")
@permission("referee", of="event")
def rule(key: str, call_id: int, dispute_id: int) -> Any:
    """Rule on the table's dispute as a scorer does with "Rule on it": the claim upheld or
    rejected goes into the hand's facts (the version the desk showed) and the referee rules."""
    event = event_or_404(key)
    found = _call_or_404(event, call_id)
    desk_url = url_for(".desk", key=key)
    upheld = request.form.get("upheld")
    base, hand_id = posted_int("version"), posted_int("hand_id")
    if not ActionForm().validate_on_submit() or upheld not in ("0", "1") or base is None or hand_id is None:
        flash(gettext("This form is damaged; reload the page and try again."))
        return redirect(desk_url)
    evening = db.session.get(Evening, found.evening_id)
    assert evening is not None
    facts = ruling_facts(evening, dispute_id, hand_id, base, upheld == "1")
    if facts is None:
        flash(gettext("Nothing was saved: %(errors)s", errors=gettext(
            "this dispute names no claim to uphold or reject; dismiss it, or a scorer corrects the hand.")))
        return redirect(desk_url)
    command = RefereeRule(evening.key, hand_id, base, str(request.form.get("token", ""))[:64] or None, None,
                          facts=facts, dispute_id=dispute_id, call_id=call_id)
    outcome = execute(command, device=sender())
    to = (url_for("hands.hand", key=evening.key, number=outcome.number)
          if isinstance(outcome, Saved) and outcome.number else desk_url)
    return form_answer(outcome, to=to, back=desk_url,
                       saved=gettext("Ruled: the claim is in the hand and the ruling names you. The call is closed."))


@bp.post("/ev/<key>/calls/<int:call_id>/dismiss/<int:dispute_id>")
@permission("referee", of="event")
def dismiss(key: str, call_id: int, dispute_id: int) -> Any:
    event = event_or_404(key)
    found = _call_or_404(event, call_id)
    desk_url = url_for(".desk", key=key)
    if not ActionForm().validate_on_submit():
        return redirect(desk_url)
    evening = db.session.get(Evening, found.evening_id)
    assert evening is not None
    outcome = execute(RefereeDismiss(evening.key, dispute_id, call_id), device=sender())
    return form_answer(outcome, to=desk_url, saved=gettext("The dispute is dismissed; the hand stands. The call is "
                                                           "closed."))
