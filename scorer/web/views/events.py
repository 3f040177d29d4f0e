"""Club nights (issue 22): an event's pages. Make one in a group, add its players, seat
the first round (a recorded draw, or typed), begin a round, place a late arrival or an
early leaver, end it; its page (seating, tables, standings, fingerprint), its room screen
for a TV or projector, and the one tap that takes a table's phone to its next table.

Who may do what is declared on each route: reading the event's page and room screen is
for whoever holds the event's link (``view``: the room screen shows no PIN, no link of a
table); running it is its owner's (the phone that made it) and its organisers' (by the
event's own link or PIN), ``manage`` of ``event``. A table's phones reach their next
table from their own scoresheet (``score`` of the evening): a viewer of one table is
never shown another table's link.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from flask import Blueprint, Response, abort, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

from ...reports.event_pdf import event_pdf_html
from ...reports.pdf import paper_of, pdf_job
from ...reports.words import error_text
from ...rules import VARIANTS, RulesError, Stake, Text
from ...storage import event_moves, events, referees, units
from ...storage.errors import ScorerError
from ...storage.models import Event, EventChange, db, utcnow
from .. import access
from ..caches import RevisionCache, link_root
from ..event_pages import event_line, event_state, next_tables, room_version, typed_tables
from ..lan import external_url
from ..permissions import permission
from ..table_forms import ActionForm
from .common import client_id, content_disposition

bp = Blueprint("events", __name__)

#: Wrong event PINs allowed per event in an hour (then only the organisers' link works).
PIN_TRIES = 10


# --------------------------------------------------------------------------- reading
def load_event(key: str) -> Event:
    event = events.get_event(key)
    if event is None:
        abort(404)
    return event


# --------------------------------------------------------------------------- making one
def _int(name: str, default: int | None = None) -> int | None:
    raw = (request.form.get(name) or "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        return -1  # refused by the engine's range checks with its own words


def _stake() -> Stake | None:
    minor = _int("stake_minor")
    currency = (request.form.get("currency") or "").strip()[:8]
    if minor is None:
        return None
    return Stake(minor, currency or "GBP")


@bp.route("/g/<key>/events/new", methods=["GET", "POST"])
@permission("manage", of="group")
def new_event(key: str) -> Any:
    """Make a club night in the group: its rules, stake, players, rounds and length."""
    from ...storage import groups

    group = groups.get_group(key)
    if group is None:
        abort(404)
    form = ActionForm()
    errors: list[str] = []
    if request.method == "POST" and form.validate_on_submit():
        players = [line for line in (request.form.get("players") or "").splitlines() if line.strip()]
        variant = request.form.get("variant") or "pagat"
        try:
            if variant not in VARIANTS:
                raise events.EventRefused(Text("{variant} is not a rule set this app knows.",
                                                      variant=repr(variant)))
            if (stake := _stake()) is not None and not 1 <= stake.minor <= 1_000_000:
                raise events.EventRefused(Text("A stake is a whole number of the currency's smallest unit."))
            event = events.create_event(
                group, name=request.form.get("name") or "", variant=variant, options={}, stake=stake,
                players=players, rounds=_int("rounds", 3) or 0, length=request.form.get("length") or "hands",
                amount=_int("amount"), style=request.form.get("style") or "together",
                time_zone=(request.form.get("time_zone") or "")[:64], device=access.current_device(create=True),
                device_name=access.device_name())
        except (RulesError, ScorerError) as error:
            errors.append(error_text(error))
        else:
            flash(_("The club night is ready. Seat the first round."))
            return redirect(url_for(".event_page", key=event.key))
    return render_template("event_new.html", group=group, form=form, errors=errors, variants=VARIANTS,
                           values=request.form), 422 if errors else 200


# --------------------------------------------------------------------------- its page
@bp.get("/ev/<key>")
@permission("view")
def event_page(key: str) -> Any:
    """The event: its set-up, the current round's seating and tables, the standings and
    the fingerprint; for its organisers, the forms that run it and each table's link."""
    event = load_event(key)
    device = access.current_device()
    organiser = events.is_organiser(event, device)
    device_id = device.id if device is not None else None
    # where the owner names referees, and where a referee's phone rules (issue 22 item 5)
    owner = referees.is_owner(device_id, event.id)
    referee = referees.referee_of(device_id, event.id)
    return render_template("event.html", organiser=organiser, action=ActionForm() if organiser else None,
                           owner=owner, referee=referee,
                           organise_link=external_url(".organise", key=key, edit_key=event.edit_key)
                           if organiser else None, **event_state(event))


@bp.get("/ev/<key>/room")
@permission("view")
def room(key: str) -> Any:
    """The room screen: a TV or projector in the pub. Standings, tables still playing with
    their hands, the next seating; no PIN, no link of a table; updates itself."""
    version = room_version(key)
    if version is None:
        abort(404)
    cache_key = (key, version, str(get_locale()), link_root())
    page = room_cache.get(cache_key)
    if page is None:
        event = load_event(key)
        page = render_template("room.html", version=version, referee_calls=room_calls(event), **event_state(event))
        room_cache.put(cache_key, page)
    return page


#: Rendered room screens by (event, version, language, root): every screen of a room, and each
#: poll that finds nothing new, costs one small query. A change that the room screen shows moves
#: the version (:func:`room_version`: a hand, a seating, a call, through :func:`scorer.storage.events.touch`).
room_cache: RevisionCache[str] = RevisionCache(64)


def room_calls(event: Event) -> list[Any]:
    """The open referee calls the room screen shows (:data:`scorer.storage.events.ROOM_CALLS`:
    the referee's module adds its own; none until then)."""
    return [str(call) for hook in events.ROOM_CALLS for call in hook(event)]


@bp.get("/api/ev/<key>/version")
@permission("view")
def version(key: str) -> Any:
    """What the room screen polls (:func:`room_version`): 16 bytes, no store."""
    found = room_version(key)
    if found is None:
        abort(404)
    response = jsonify(version=found)
    response.headers["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------------- organisers
@bp.get("/ev/<key>/organise/<edit_key>")
@permission("view")
def organise(key: str, edit_key: str) -> Any:
    """The organisers' link: this phone becomes an organiser of the event."""
    event = load_event(key)
    if not isinstance(edit_key, str) or not secrets.compare_digest(edit_key, event.edit_key):
        flash(_("This organisers' link is out of date. Ask the event's owner for the new one."))
        return redirect(url_for(".event_page", key=key))
    device = access.current_device(create=True)
    assert device is not None
    access.rotate()
    events.grant(event, device, events.ORGANISER, "link")
    flash(_("This phone can now run the club night."))
    return redirect(url_for(".event_page", key=key))


@bp.route("/ev/<key>/join", methods=["GET", "POST"])
@permission("view")
def join(key: str) -> Any:
    """Become an organiser with the event's PIN (at most :data:`PIN_TRIES` wrong ones an hour)."""
    event = load_event(key)
    form = ActionForm()
    error = None
    if request.method == "POST" and form.validate_on_submit():
        since = utcnow() - timedelta(hours=1)
        wrong = db.session.scalar(sa.select(sa.func.count()).select_from(EventChange).where(
            EventChange.event_id == event.id, EventChange.kind == "wrong_pin", EventChange.at >= since)) or 0
        pin = (request.form.get("pin") or "").strip()
        if wrong >= PIN_TRIES:
            error = _("Too many wrong PINs for this event in the last hour. Ask the owner for the organisers' link.")
        elif secrets.compare_digest(pin.encode(), event.pin.encode()):
            device = access.current_device(create=True)
            assert device is not None
            access.rotate()
            events.grant(event, device, events.ORGANISER, "pin")
            flash(_("This phone can now run the club night."))
            return redirect(url_for(".event_page", key=key))
        else:
            with units.writing():
                db.session.add(EventChange(event_id=event.id, kind="wrong_pin", data={}))
            error = _("That is not the event's PIN.")
    return render_template("event_join.html", event=event, form=form, error=error), 422 if error else 200


def _run(key: str, action: Any, saved: str) -> Any:
    """Run an organiser's change; a refusal is said and nothing is changed."""
    event = load_event(key)
    if not ActionForm().validate_on_submit():
        flash(_("Nothing was changed: the form was out of date. Try again."))
        return redirect(url_for(".event_page", key=key))
    try:
        action(event)
    except (RulesError, ScorerError) as error:
        flash(_("Nothing was changed: %(reason)s", reason=error_text(error)))
    else:
        flash(saved)
    return redirect(url_for(".event_page", key=key))


@bp.post("/ev/<key>/players")
@permission("manage", of="event")
def add_players(key: str) -> Any:
    names = [n for n in (request.form.get("players") or "").splitlines() if n.strip()]
    return _run(key, lambda e: events.add_players(e, names, device_name=access.device_name()),
                _("Players added."))


@bp.post("/ev/<key>/seat")
@permission("manage", of="event")
def seat(key: str) -> Any:
    how = request.form.get("how") or "draw"
    seed = (request.form.get("seed") or "").strip() or None
    tables = typed_tables(request.form.get("tables") or "")
    return _run(key, lambda e: events.seat_first_round(e, how=how, seed=seed, tables=tables,
                                                        device_name=access.device_name()),
                _("The first round is seated."))


@bp.post("/ev/<key>/start")
@permission("manage", of="event")
def start(key: str) -> Any:
    return _run(key, lambda e: events.start_round(e, device_name=access.device_name()),
                _("The round has begun: every table has its scoresheet."))


@bp.post("/ev/<key>/arrive")
@permission("manage", of="event")
def arrive(key: str) -> Any:
    name = request.form.get("name") or ""
    return _run(key, lambda e: event_moves.arrive(e, name, device_name=access.device_name()),
                _("The late arrival is seated."))


@bp.post("/ev/<key>/leave")
@permission("manage", of="event")
def leave(key: str) -> Any:
    name = request.form.get("name") or ""
    return _run(key, lambda e: event_moves.leave(e, name, device_name=access.device_name()),
                _("The player has left; the tables are seated again."))


@bp.post("/ev/<key>/renew")
@permission("manage", of="event")
def renew(key: str) -> Any:
    """The owner's: a new organisers' link and PIN; every organiser by the old ones is a viewer again."""
    def action(event: Event) -> None:
        if not events.is_owner(event, access.current_device()):
            raise events.EventRefused(Text("Only the event's owner can change its organisers' link and PIN."))
        events.renew_credentials(event)

    return _run(key, action, _("New organisers' link and PIN: the old ones no longer work."))


@bp.post("/ev/<key>/finish")
@permission("manage", of="event")
def finish(key: str) -> Any:
    return _run(key, lambda e: events.finish_event(e, device_name=access.device_name()),
                _("The club night is over."))


@bp.get("/e/<key>/event-line")
@permission("view")
def event_line_part(key: str) -> Any:
    """The event line alone, for a live scoresheet to place (static/event-line.js)."""
    if units.evening_revision(key) is None:
        abort(404)
    response = jsonify(html=str(event_line(key, access.is_scorer(key))))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/e/<key>/next")
@permission("score")
def next_table(key: str) -> Any:
    """One tap: this phone (a scorer of this table) goes to ``player``'s table of the next
    round, as a scorer there."""
    found = next_tables(key)
    name = request.form.get("player") or ""
    if found is None or not ActionForm().validate_on_submit():
        abort(404)
    place, where = found
    number = next((n for p, n in where.items() if p.casefold() == name.strip().casefold()), None)
    if number is None:
        flash(_("The next round has not begun for this table yet."))
        return redirect(url_for("sheet.scoresheet", key=key))
    later = next(r for r in place.event.round_rows if r.number == place.round.number + 1)
    target = next(t for t in later.tables if t.number == number).evening
    access.grant_scorer(target.key, "link")
    flash(_("Table %(number)s, round %(round)s: this phone scores here now.", number=number, round=later.number))
    return redirect(url_for("sheet.scoresheet", key=target.key))



# --------------------------------------------------------------------------- the event's PDF
#: Made PDFs by (event, room version, language, paper): a referee's ruling or a hand anywhere moves the version.
event_pdf_cache: RevisionCache[bytes] = RevisionCache(8)


@bp.get("/ev/<key>/event.pdf")
@permission("view")
def event_pdf(key: str) -> Any:
    """The club night's PDF in the phone's language (:mod:`scorer.reports.event_pdf`): the
    standings, each round's seating and tables, the referee's rulings, the fingerprint; on A4
    or ``?paper=letter``. Made in a render slot as the evening's PDF is; a failure is a 503
    with a clear page (``sheet.pdf_error``), never a 500."""
    paper = paper_of(request.args.get("paper"))
    version = room_version(key)
    if version is None:
        abort(404)
    cache_key = (key, version, str(get_locale()), paper)
    pdf = event_pdf_cache.get(cache_key)
    if pdf is None:
        pdf = pdf_job(lambda: event_pdf_html(load_event(key), paper), owner=f"event:{key}", client=client_id())
        event_pdf_cache.put(cache_key, pdf)
    response = Response(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = content_disposition("inline", load_event(key).name, "pdf")
    return response
