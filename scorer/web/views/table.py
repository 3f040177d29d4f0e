"""One table, many phones: sharing (link, QR code, PIN), roles, live updates,
history, undo of the last hand, quick entry and the large-print totals.

Viewers (anyone with the table's link) read; scorers write. Every route that
changes anything is listed in :data:`SCORER_ONLY` and refused to viewers before it
runs, so a viewer's request changes nothing.
"""

from __future__ import annotations

import io
from typing import Any

import segno
from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _

from ...evening.file import dump_seat_change
from ...evening.ledger import table_ledger, to_evening
from ...reports.presenters import seat_change_text
from ...reports.words import money, signed
from ...rules import RulesError, SeatChange, Stake, get_variant, isolate
from ...storage import evenings, kept_ledgers, notes, units
from ...storage.commands import (
    ChangeSeats,
    ChangeSettings,
    Command,
    Conflict,
    Saved,
    UndoHand,
    UndoSeatChange,
    execute,
)
from ...storage.models import TableAccess, db
from ...storage.table_access import RenewCredentials, RevokeScorer
from .. import access, quick_entry
from ..answers import form_answer, outcome_text, save_new_hand, sender
from ..evening_forms import settings_form_for
from ..form_fields import is_number
from ..i18n import safe_next
from ..lan import external_url, lan_host, unreachable
from ..permissions import permission
from ..table_forms import DISPUTE_NAMES, ActionForm, DeviceForm, PinForm, quick_form_for
from .common import desk_url, evening_or_404, posted_hand_id, posted_int

bp = Blueprint("table", __name__)


@bp.get("/e/<key>/share")
@permission("view")
def share(key: str) -> Response:
    """Links and QR codes to join the table; scorers also see the PIN and the scorers' link."""
    evening = evening_or_404(key)
    access.remember(key)
    scorer = access.is_scorer(key)
    view_url = external_url("sheet.scoresheet", key=key)
    edit_url = external_url("table.scorer_link", key=key, edit_key=evening.edit_key) if scorer else None
    form = DeviceForm(device=access.device_name(), next=request.path)
    me = access.current_device()
    page = render_template("share.html", evening=evening, scorer=scorer, view_url=view_url, edit_url=edit_url,
                           device_form=form, scorers=access.scorers_of(evening) if scorer else [],
                           owner=access.owner_of(evening) if scorer else None,
                           me=me.id if me else None, phone_name=access.phone_name, action=ActionForm(),
                           lan_host=lan_host(), unreachable=unreachable(view_url))
    # a scorer's Share page holds the PIN and the scorers' link: never kept by a cache
    return Response(page, mimetype="text/html", headers={"Cache-Control": "no-store"})


@bp.get("/e/<key>/qr.svg")
@permission("view")
def qr(key: str) -> Response:
    """The QR code of the table's link (``?for=edit``: the scorers' link, scorers only), as SVG."""
    evening = evening_or_404(key)
    if request.args.get("for") == "edit":
        if not access.is_scorer(key):
            abort(404)
        url = external_url("table.scorer_link", key=key, edit_key=evening.edit_key)
    else:
        url = external_url("sheet.scoresheet", key=key)
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, dark="#000", light="#fff",
                                     xmldecl=False)
    response = Response(out.getvalue(), mimetype="image/svg+xml")
    response.headers["Content-Security-Policy"] = "default-src 'none'; frame-ancestors 'none'"
    response.headers["Cache-Control"] = "private, no-store"
    return response


@bp.post("/e/<key>/scorers/<int:access_id>/revoke")
@permission("manage")
def revoke(key: str, access_id: int) -> Any:
    """Take the scorer's role from another phone; it can still watch."""
    back = url_for("table.share", key=key) + "#scorers"
    if not ActionForm().validate_on_submit():
        return redirect(back)
    renew = request.form.get("renew") == "1"  # "Remove and change the PIN": the owner only
    outcome = execute(RevokeScorer(key, access_id, renew=renew), device=sender())
    access.forget_roles()
    row = db.session.get(TableAccess, access_id) if isinstance(outcome, Saved) else None
    phone = access.phone_name(row.device) if row is not None else ""
    if renew:
        return form_answer(outcome, to=back, saved=_("“%(name)s” can no longer change the score. The table has a "
                                                     "new PIN and a new scorers’ link: share them with the phones "
                                                     "that should score.", name=phone))
    return form_answer(outcome, to=back, saved=_("“%(name)s” can no longer change the score.", name=phone))


@bp.post("/e/<key>/credentials")
@permission("manage")
def renew(key: str) -> Any:
    """A new PIN and scorers' link; phones that scored with the old ones can only watch."""
    back = url_for("table.share", key=key) + "#scorers"
    if not ActionForm().validate_on_submit():
        return redirect(back)
    access.current_device(create=True)  # this phone stays a scorer: its row is kept with the new link
    outcome = execute(RenewCredentials(key), device=sender())
    access.forget_roles()
    return form_answer(outcome, to=back, saved=_("The table has a new PIN and a new scorers’ link. Phones that "
                                                 "used the old ones can only watch."))


@bp.get("/e/<key>/scorer/<edit_key>")
@permission("view")
def scorer_link(key: str, edit_key: str) -> Any:
    """The scorers' link: this phone becomes a scorer at the table."""
    evening = evening_or_404(key)
    if not access.edit_key_matches(evening, edit_key):
        abort(404)
    if not access.grant_scorer(key, via="link"):
        flash(access.removed_text())
        return redirect(url_for("sheet.scoresheet", key=key))
    flash(_("This phone can now enter and correct hands."))
    return redirect(url_for("sheet.scoresheet", key=key))


@bp.route("/e/<key>/join", methods=["GET", "POST"])
@permission("view")
def join(key: str) -> Any:
    """Become a scorer with the table's PIN."""
    evening = evening_or_404(key)
    access.remember(key)
    if access.is_scorer(key):
        return redirect(url_for("sheet.scoresheet", key=key))
    form = PinForm()
    status = 200
    if form.validate_on_submit():
        outcome = access.join(evening, form.pin.data or "")
        if isinstance(outcome, Saved):
            flash(_("PIN accepted: this phone can now enter and correct hands."))
            return redirect(url_for("sheet.scoresheet", key=key))
        form.pin.errors = [outcome_text(outcome)]
        status = 422
    elif form.is_submitted():
        status = 422
    return render_template("join.html", evening=evening, form=form), status


@bp.post("/device")
@permission("public")
def device() -> Any:
    """Name this phone (shown in the history)."""
    form = DeviceForm()
    target = form.next.data or ""
    back = safe_next(target)
    # validate everything first, then write: a bad ``next`` (off-site, CR/LF) changes nothing
    if form.validate_on_submit() and (not target or back == target):
        access.set_device_name(form.device.data or "")  # the NameDevice command, this phone's row made first
        flash(_("This phone is now called “%(name)s” in the history.", name=isolate(access.device_name())))
    else:
        flash(_("Nothing was changed: a phone's name has at most 40 characters."))
    return redirect(back)


@bp.route("/e/<key>/settings", methods=["GET", "POST"])
@permission("manage")
def settings(key: str) -> Any:
    """Change the table's name, place and options; kept in the history."""
    evening = evening_or_404(key)
    variant = get_variant(evening.variant)
    if request.method == "GET" and evening.finished_at is not None:  # a post: the command says so
        flash(_("This evening is finished: reopen it to change its settings."))
        return redirect(url_for("sheet.scoresheet", key=key))
    if request.method == "GET":
        values = {f"opt_{k}": (v if isinstance(v, bool | int) else str(v)) for k, v in (evening.options or {}).items()}
        form = settings_form_for(variant, name=evening.name, place=evening.place, revision=str(evening.revision),
                                 **values)
        return render_template("settings.html", evening=evening, variant=variant, form=form)
    form = settings_form_for(variant)
    if form.validate_on_submit():
        base = form.revision.data or ""
        command = ChangeSettings(key, int(base) if is_number(base) else -1, form.name.data or "",
                                 form.place.data or "", form.options())
        outcome = execute(command, device=sender())
        answer = form_answer(outcome, saved=_("The table's settings are saved; every hand is ruled under them."),
                             to=url_for("sheet.scoresheet", key=key), form=form,
                             back=url_for("table.settings", key=key) if isinstance(outcome, Conflict) else None)
        if answer is not None:
            return answer
    return render_template("settings.html", evening=evening, variant=variant, form=form), 422


@bp.route("/e/<key>/seats", methods=["GET", "POST"])
@permission("score")
def seats(key: str) -> Any:
    """Players come and go (issue 12): between hands a player joins (at a chosen place,
    starting at 0), leaves (keeping their total) or is renamed; the last change of seats
    can be undone. Each is one change in the history."""
    evening = evening_or_404(key)
    form = ActionForm()
    status = 200
    errors: list[str] = []
    if request.method == "POST":
        if form.validate_on_submit():
            asked = _leave_to_confirm(evening, form)
            if asked is not None:
                return asked
            message = _seat_post(evening, errors)
            if message is not None:
                flash(message)
                return redirect(url_for("sheet.scoresheet", key=key))
        else:
            errors.append(_("Nothing was saved: reload the page and try again."))
        status = 422
        evening = evening_or_404(key)
    ledger = evenings.ledger_of(evening)
    live = [r for r in evening.seat_changes if r.undone_at is None]
    last = live[-1] if live and (live[-1].kind == "rename" or live[-1].before_hand == len(ledger.rows) + 1) else None
    undo_text = None
    if last is not None:
        undo_text = seat_change_text(dump_seat_change(
            SeatChange(last.before_hand, last.kind, last.seat, last.left_of, last.name), ledger.setup.players))
    form.form_errors = errors
    return render_template("seats.html", evening=evening, ledger=ledger, form=form, last=last, undo_text=undo_text,
                           closed=evening.finished_at is not None, number=len(ledger.rows) + 1,
                           name=request.form.get("name", "")[:40] if status != 200 else ""), status


def _leave_to_confirm(evening: Any, form: Any) -> str | None:
    """The page that asks "Does X leave before hand N?" when "X leaves" was tapped and not
    yet confirmed (``confirm=1``), for a seated player; ``None`` otherwise (the change is
    then carried out, or refused, as posted). Nothing is changed by asking."""
    if request.form.get("action") != "leave" or request.form.get("confirm") == "1":
        return None
    ledger = evenings.ledger_of(evening)
    seat = posted_int("seat")
    if seat is None or seat not in ledger.seated:
        return None
    return render_template("confirm_leave.html", evening=evening, ledger=ledger, seat=seat, form=form,
                           number=len(ledger.rows) + 1, revision=posted_int("revision"))


def _seat_post(evening: Any, errors: list[str]) -> str | None:
    """Carry out the posted change of seats; its message, or ``None`` with ``errors`` filled."""
    action = request.form.get("action", "")
    if action == "undo":
        command: Command = UndoSeatChange(evening.key, posted_int("change_id") or 0)
    elif action in ("join", "leave", "rename"):
        command = ChangeSeats(evening.key, action, name=request.form.get("name", "")[:200], seat=posted_int("seat"),
                              left_of=posted_int("left_of"), revision=posted_int("revision"))
    else:
        errors.append(_("Nothing was saved: reload the page and try again."))
        return None
    outcome = execute(command, device=sender())
    if not isinstance(outcome, Saved):
        errors.append(outcome_text(outcome))
        return None
    if outcome.detail is None:
        return _("The last change of seats is undone. It is kept in the history.")
    evening = evening_or_404(evening.key)
    return seat_change_text(dump_seat_change(outcome.detail, tuple(p.name for p in evening.players)))


@bp.get("/e/<key>/revision")
@permission("view")
def revision(key: str) -> Response:
    """The table's revision: phones poll it to see new hands. A revision in this process's
    memory is answered before Flask (:class:`scorer.storage.live.PollShortcut`); this route reads it
    once after a change and keeps it (:func:`scorer.storage.units.polled_revision`). No ETag: the
    answer is 16 bytes, and waitress closes the connection after a bodiless 304, which would
    cost every poll a new connection."""
    rev = units.polled_revision(key)
    if rev is None:
        abort(404)
    response = jsonify(revision=rev)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/e/<key>/events")
@permission("view")
def events(key: str) -> Response:
    """The live stream's address when no stream server answers it (no proxy in front, or
    the proxy's stream server down): ``204``, which tells EventSource to stop, and the
    page polls :func:`revision` instead (``static/live.js``). Behind ``deploy/nginx.conf``
    the path is the stream server's (:mod:`scorer.web.live_stream`). An unknown table: 404."""
    if units.polled_revision(key) is None:
        abort(404)
    response = Response(status=204)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/e/<key>/big")
@permission("view")
def big(key: str) -> str:
    """Large-print totals, readable from across the table; follows the score live."""
    evening = evening_or_404(key)
    ledger = evenings.ledger_of(evening)
    order = sorted(range(ledger.setup.n), key=lambda s: (-ledger.totals[s], s))
    return render_template("big.html", evening=evening, ledger=ledger, order=order, signed=signed)


@bp.get("/e/<key>/history")
@permission("view")
def history(key: str) -> str:
    """Every change to the table, newest first: when, which phone, before and after."""
    evening = evening_or_404(key)
    ledger = evenings.ledger_of(evening)
    variant = ledger.variant

    def table_of(number: int | None) -> Any:  # the players seated for that hand (issue 12)
        rows = ledger.rows
        seated = rows[number - 1].seated if number and 0 < number <= len(rows) else ledger.seated
        return table_ledger(ledger, seated).setup

    changes = evenings.history(evening)
    return render_template("history.html", evening=evening, changes=changes,
                           said=lambda hand, number=None: named_auction(variant, table_of(number), hand),
                           option_changes=lambda change: option_changes(variant, change), dispute_names=DISPUTE_NAMES,
                           rematch=notes.rematch_of(evening.id), played=evenings.played_by_change(evening, changes),
                           paid_amount=lambda c: money(Stake(1, c.get("currency", "")), int(c.get("amount", 0))))


def named_auction(variant: Any, setup: Any, hand: dict[str, Any]) -> list[tuple[str, str]]:
    """``(player, call)`` for each call of a hand as the history stores it (the evening
    file's form: the dealer by name, the calls in speaking order); ``[]`` if unreadable."""
    calls = tuple(hand.get("auction") or ())
    try:
        dealer = setup.players.index(hand["dealer"])
        if variant.sequence_auction:
            seats = [variant.next_speaker(setup, dealer, calls[:i])[0] for i in range(len(calls))]
        else:
            seats = variant.speaking_order(setup, dealer)
        return [(setup.players[seat], call) for seat, call in zip(seats, calls, strict=False) if seat is not None]
    except (KeyError, ValueError, IndexError, TypeError, RulesError):
        return []


def option_changes(variant: Any, change: Any) -> list[tuple[str, str, str]]:
    """``(option label, before, after)`` in words for each option a settings change
    changed (labels and values in English; the template translates them)."""
    before, after = (change.before or {}).get("options", {}), (change.after or {}).get("options", {})
    out = []
    for spec in variant.option_specs:
        if spec.key in after and before.get(spec.key) != after[spec.key]:
            old = spec.describe(before[spec.key]) if spec.key in before else "—"
            out.append((spec.label, old, spec.describe(after[spec.key])))
    return out


@bp.get("/e/<key>/undo")
@permission("score")
def confirm_undo(key: str) -> Any:
    """Ask before taking the last hand out of play."""
    evening = evening_or_404(key)
    ledger = evenings.ledger_of(evening)  # a row for each hand in play
    if not ledger.rows:
        flash(_("There is no hand to undo."))
        return redirect(url_for("sheet.scoresheet", key=key))
    last = evenings.hand_in_play(evening, len(ledger.rows))
    return render_template("confirm_undo.html", evening=evening, ledger=ledger, row=ledger.rows[-1],
                           version=last.current.version, hand_id=last.id, action=ActionForm())


@bp.post("/e/<key>/undo")
@permission("score")
def undo(key: str) -> Any:
    """Undo the last hand (kept in the history; nothing is deleted)."""
    evening_or_404(key)
    hand_id = posted_hand_id()
    form = ActionForm()
    try:
        number = int(str(request.form.get("number", ""))[:9])
        version = int(str(request.form.get("version", ""))[:9])
    except ValueError:
        number = version = -1
    if not form.validate_on_submit() or number < 1:
        flash(_("Nothing was undone: reload the page and try again."))
        return redirect(url_for("sheet.scoresheet", key=key))
    outcome = execute(UndoHand(key, number, version, hand_id), device=sender())
    sheet = url_for("sheet.scoresheet", key=key)
    return form_answer(outcome, saved=_("Hand %(n)s is undone. It is kept in the history.", n=number), to=sheet,
                       back=url_for("table.confirm_undo", key=key)
                       if isinstance(outcome, Conflict) and outcome.number >= 1 else sheet)


@bp.route("/e/<key>/quick", methods=["GET", "POST"])
@permission("score")
def quick(key: str) -> Any:
    """Quick entry: declarer, contract (and trump where named), then one tap on the
    declarer's tricks saves the hand. Misdeal and all-pass are one tap each."""
    if request.method == "GET" and units.shared_evening(key) is None:  # (the warm-up has read the evening)
        # the page needs the evening's name, key and revision: its kept head, with the ledger
        found = kept_ledgers.settled(key)  # one small query when this process keeps it (issue 23 item 2)
        if found is None:
            abort(404)
        evening: Any = found.head
        full = found.ledger
    else:
        evening = evening_or_404(key)
        full = evenings.ledger_of(evening)
    ledger = table_ledger(full)  # the players seated now, seats 0… among them (issue 12)
    setup, variant = ledger.setup, ledger.variant
    number = len(ledger.rows) + 1
    if request.method == "GET" and (evening.finished_at is not None or full.end_reached):  # as is_closed
        flash(_("This evening is finished: no more hands can be recorded."))
        return redirect(url_for("sheet.scoresheet", key=key))
    ladder = variant.ladder(setup.options)
    dealer = ledger.next_dealer
    if request.method == "GET":  # made once per revision (the warm-up's and the scorer's), tokens put in
        return quick_entry.kept_page(evening, ledger, number, dealer, desk_url(),
                                     lambda token: quick_form_for(setup.players, ladder, number=str(number),
                                                                  token=token))
    form = quick_form_for(setup.players, ladder)
    errors: list[str] = []
    if form.validate_on_submit():
        posted = form.number.data or ""
        if not is_number(posted):
            errors.append(_("This form is missing its hand number; reload the page."))
        else:  # a double tap: the dealer is the hand's own (the same command again)
            row = full.rows[int(posted) - 1] if 0 < int(posted) <= len(full.rows) else None
            dealer = full.seated.index(row.facts.dealer) if row and row.facts.dealer in full.seated else dealer
            if quick_entry.dealer_declares(form, ledger, dealer):
                return quick_entry.quick_page(evening, ledger, form, number, dealer, dealer_declares=True)
            facts = quick_entry.quick_facts(form, ledger, dealer, errors)
            if facts is not None:
                facts = to_evening(facts, full.seated, full.setup.n)
                saved = save_new_hand(evening, int(posted), facts, form.token.data, form)
                if saved is not None:
                    return saved
    else:
        errors.append(_("Nothing was saved: reload the page and try again."))
    form.form_errors.extend(errors)
    return quick_entry.quick_page(evening, ledger, form, number, dealer, status=422)
