"""What every view shares, and nothing else: loading an evening, the revision caches,
saving a new hand, the labels and helpers that pages and the PDF show (in the phone's
language), and the template helpers every page may use.

The view modules (:mod:`.start`, :mod:`.sheet`, :mod:`.hands`, :mod:`.play`,
:mod:`.table`, :mod:`.groups`) import from here and never from each other.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from flask import Blueprint, abort, current_app, flash, jsonify, redirect, request, session, url_for
from flask_babel import gettext
from flask_babel import gettext as _
from markupsafe import Markup

from ...evening.ledger import Ledger, LedgerRow
from ...reports.presenters import book_title, call_label, citation, result_label, rule_source, seat_change_text
from ...reports.words import error_text, signed
from ...rules import HandFacts, RulesError
from ...storage import groups, services
from ...storage.models import Evening
from .. import access
from ..forms import ActionForm, error_messages

#: No routes: the template filters and context processors every page uses.
bp = Blueprint("common", __name__)


@bp.app_template_filter("call_label")
def call_label_filter(call: str) -> str:
    return call_label(call)


@bp.app_template_filter("bdi")
def bdi_filter(name: str) -> Markup:
    """A player's name isolated from the text around it (``<bdi>``), so that two
    right-to-left names in a list (Arabic, Hebrew) keep their order and their commas."""
    return Markup("<bdi>%s</bdi>") % name


@bp.app_context_processor
def helpers() -> dict[str, Any]:
    return {"signed": signed, "citation": citation, "rule_source": rule_source, "result_label": result_label,
            "error_messages": error_messages,
            "is_scorer": access.is_scorer, "device_name": access.device_name, "book_title": book_title,
            "seat_change_text": seat_change_text}


_OLD_SESSION_KEYS = ("scorer_of", "seen", "pin_fails", "device", "device_tag")


@bp.before_app_request
def adopt_old_session() -> None:
    """A phone whose session still holds roles from before they moved to the database."""
    if request.endpoint != "static" and any(k in session for k in _OLD_SESSION_KEYS):
        access.adopt_session_roles()


@bp.after_app_request
def device_cookie(response: Any) -> Any:
    """A phone seen for the first time gets its device cookie (:mod:`scorer.web.access`)."""
    return access.set_device_cookie(response)


@bp.before_app_request
def check_permission() -> Any:
    """Run the check each route declares (:func:`scorer.web.access.permission`) before the
    view: an unknown table or group is a 404; a viewer asking for a scorer's route is
    sent to the PIN page (nothing runs, nothing changes), or answered ``403`` JSON under
    ``/api/`` (a script has no PIN page to go to); an undeclared route is refused."""
    if request.endpoint is None or request.endpoint == "static":
        return None  # a 404 or 405 of the router, or a static file
    declared = access.permission_of(current_app.view_functions.get(request.endpoint))
    if declared is None:
        current_app.logger.error("route %s declares no permission; refused", request.endpoint)
        abort(403)
    level, subject = declared
    if level in ("public", "view"):
        return None  # a view that reads answers 404 itself for an unknown key (no extra query here)
    key = (request.view_args or {}).get("key", "")
    if subject == "group":
        if groups.get_group(key) is None:
            abort(404)
        return None  # a group's link is its key: holding it is enough to manage it
    if services.evening_revision(key) is None:
        abort(404)
    if access.is_scorer(key):
        return None
    message = _("Only the table's scorers can change the score. Enter the table's PIN to become one.")
    if request.path.startswith("/api/"):
        return jsonify(error={"code": "forbidden", "message": message}), 403
    flash(message)
    return redirect(url_for("table.join", key=key))


def client_id() -> str:
    """Who is asking, for limits per phone (one PDF at a time): the client's address."""
    return request.remote_addr or ""


def posted_int(name: str) -> int | None:
    """A whole number a form posted in field ``name`` (ASCII digits, at most 9); ``None``
    when the field is missing or empty (an older page); ``-1`` for anything else (junk,
    a number too long): a row id or revision that never matches, so the write is refused
    as stale instead of going ahead unchecked."""
    text = str(request.form.get(name, "")).strip()
    if not text:
        return None
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else -1


def content_disposition(kind: str, name: str, extension: str) -> str:
    """``attachment; filename="thursday-at-the-crown.json"`` (ASCII, from the evening's name)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "nap-evening"
    return f'{kind}; filename="{slug}.{extension}"'


def load_evening(key: str) -> tuple[Evening, Ledger]:
    evening = services.get_evening(key)
    if evening is None:
        abort(404)
    return evening, services.ledger_of(evening)


#: The policy of an SVG picture (a chart): pygal's own ``<style>`` applies, nothing
#: loads, and no other site may frame it.
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"

def rules_error(form: Any, error: RulesError) -> None:
    form.form_errors.append(error_text(error))


def save_new_hand(evening: Evening, number: int, facts: HandFacts, token: str | None, form: Any = None) -> Any:
    """Record hand ``number`` (full form or quick entry) and answer as a phone expects:
    saved → the scoresheet at the hand; saved already (a double tap, another phone) or
    the evening finished → a redirect that says so. ``None`` when the rules refuse the
    hand: the refusal is added to ``form.form_errors`` (the caller shows the form again)."""
    key = evening.key
    try:
        services.record_hand(evening, number, facts, device=access.device_name(), token=token or None,
                             device_id=access.device_id())
    except (services.AlreadySaved, services.EveningFinished) as error:
        flash(error_text(error))
        return redirect(url_for("sheet.scoresheet", key=key))
    except services.HandConflict as error:
        flash(error_text(error))
        if error.number < 1:
            return redirect(url_for("sheet.scoresheet", key=key))
        return redirect(url_for("hands.hand", key=key, number=error.number))
    except RulesError as error:
        if form is not None:
            rules_error(form, error)
        return None
    flash(gettext("Hand %(number)s saved.", number=number), f"saved:{number}")
    return redirect(url_for("sheet.scoresheet", key=key))


def undo_offer(key: str) -> dict[str, Any] | None:
    """The one-tap Undo shown with "Hand 7 saved" on the scoresheet: the last hand's
    number, version and row id (so a stale tap never undoes a newer hand), or ``None``
    when there is nothing to undo or the evening is finished."""
    evening = services.get_evening(key)
    if evening is None or not evening.hands or evening.finished_at is not None:
        return None
    last = evening.hands[-1]
    return {"key": key, "number": last.number, "version": last.current.version, "hand_id": last.id,
            "form": ActionForm()}


def with_record(row: LedgerRow, tricks: tuple[tuple[str, ...], ...]) -> HandFacts:
    """Hand ``row``'s facts with ``tricks`` as its record of play: the tricks won then
    come from the record; an empty record removes it, and the tricks it gave stay."""
    return dataclasses.replace(row.facts, record=tricks, tricks=None if tricks else row.ruling.tricks)


def row_of(ledger: Ledger, number: int) -> Any:
    """Hand ``number`` of the ledger. A number past the last hand (a hand undone on
    another phone, an old link) goes back to the scoresheet saying so; 0 is a 404."""
    if number > len(ledger.rows) >= 0 and number >= 1:
        flash(gettext("There is no hand %(number)s now (it may have been undone on another phone); nothing was "
                      "changed.", number=number))
        abort(redirect(url_for("sheet.scoresheet", key=(request.view_args or {}).get("key", ""))))
    if not 1 <= number <= len(ledger.rows):
        abort(404)
    return ledger.rows[number - 1]


