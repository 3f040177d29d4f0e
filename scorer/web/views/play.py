"""The record of play: the cards of each trick, one tap a card."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext

from ...evening.tables import play_rules, table_row
from ...reports.words import error_text
from ...rules.cards import RANKS_36, RANKS_52, SUITS
from ...rules.play import PlayState
from ...storage.commands import RecordPlay, execute
from ..answers import form_answer, sender
from ..permissions import permission
from ..table_forms import PlayForm
from .common import load_evening, posted_hand_id, row_of

bp = Blueprint("play", __name__)


@bp.route("/e/<key>/hand/<int:number>/play", methods=["GET", "POST"])
@permission("score")
def record_play(key: str, number: int) -> Any:
    """Record the cards played to each trick, one tap a card: with JavaScript
    (``static/play.js``) the taps build the tricks in the page and Save posts the whole
    record once; without it each tap posts and re-renders the page. Save stores the
    record as a new version of the hand."""
    evening, ledger = load_evening(key)
    row = row_of(ledger, number)
    record = evening.hands[number - 1]
    variant, r = ledger.variant, row.ruling
    if r.declarer is None or r.contract is None:
        flash(gettext("Nobody bid in this hand, so there is no play to record."))
        return redirect(url_for("hands.hand", key=key, number=number))
    if request.method == "GET" and evening.finished_at is not None:  # a post: the command says so
        flash(gettext("This evening is finished: reopen it to record the play."))
        return redirect(url_for("hands.hand", key=key, number=number))
    hand_id = posted_hand_id() if request.method == "POST" else record.id
    form = PlayForm()
    if request.method == "GET":
        form.version.data = str(record.current.version)
        form.hand_id.data = str(record.id)
        form.token.data = secrets.token_urlsafe(16)
        form.record.data = "|".join(" ".join(t) for t in row.facts.record)
    elif not form.validate_on_submit():
        abort(400)
    rules = play_rules(ledger, row)
    state = PlayState(rules, form.tricks())
    error = None
    if request.method == "POST":
        if "undo" in request.form and state.tricks:
            state = state.undo()
        elif "clear" in request.form:
            state = state.clear()
        elif request.form.get("card"):
            state = state.add(str(request.form["card"])[:4])
        if "save" in request.form:
            try:
                version = int(str(form.version.data)[:9])
            except (TypeError, ValueError):
                flash(gettext("This form is missing its version; reload the page."))
                return redirect(url_for("hands.hand", key=key, number=number))
            command = RecordPlay(key, hand_id, version, form.token.data or None, number,
                                 tricks=state.tricks)
            answer = form_answer(execute(command, device=sender()), to=url_for("hands.hand", key=key, number=number),
                                 saved=gettext("The record of play is saved; the hand is ruled from it."), form=form)
            if answer is not None:
                return answer
            error = form.form_errors[-1]
    state, refused = state.readable()  # a hand-made form may hold junk: show what can be read
    error = error or (error_text(refused) if refused else None)
    reading = state.reading
    form.record.data = "|".join(" ".join(t) for t in state.tricks)
    ranks = RANKS_36 if variant.pack_size == 36 else RANKS_52
    ledger, row = table_row(ledger, row)  # the names of the table that played it (issue 12)
    return render_template(
        "play.html", evening=evening, ledger=ledger, row=row, form=form, tricks=state.tricks, reading=reading,
        error=error, to_play=state.next_to_play, played=state.played, ranks=ranks, suits=SUITS,
        seats=reading.seats if reading else (), winners=reading.winners if reading else (),
        # play.js follows the simple case (every player holds five cards); short hands (H-13) post each tap
        enhance=not rules.held, named_trump=rules.named_trump,
    ), (422 if error else 200)
