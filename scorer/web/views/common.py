"""What the views share, and nothing else: loading an evening and a hand, reading a
posted number, naming a download, saving a new hand and offering to undo it.
(The caches are :mod:`scorer.web.caches`, the links for other phones
:mod:`scorer.web.lan`, what pages show :mod:`scorer.reports.presenters`, the hooks
around every view :func:`scorer.web.app.register_hooks`.)

The view modules (:mod:`.start`, :mod:`.sheet`, :mod:`.hands`, :mod:`.play`,
:mod:`.table`, :mod:`.groups`) import from here and never from each other.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from flask import abort, flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext

from ...evening.ledger import Ledger, LedgerRow
from ...reports.words import error_text
from ...rules import HandFacts, RulesError
from ...storage import evenings, referees, units
from ...storage.models import Evening
from .. import access
from ..table_forms import ActionForm


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


def posted_hand_id() -> int:
    """The hand's row id a hand form posted (field ``hand_id``): every form that changes a
    hand in play (a correction, a restore, an override, the record of play, an undo)
    names the row it was made from, so that a page made before an undo never changes the
    new hand that took the number (ABA). A post without a valid one (an old page kept by
    a phone from before the forms carried it, a hand-made form) is answered 409 "This page
    is out of date: reload it." and changes nothing; it never falls back to the hand's
    number and version. Issue 21 item 14."""
    hand_id = posted_int("hand_id")
    if hand_id is None or hand_id < 1:
        message = gettext("This page is out of date: reload it.")
        abort(make_response(render_template("error.html", code=409, message=message), 409))
    return hand_id


def content_disposition(kind: str, name: str, extension: str) -> str:
    """``attachment; filename="thursday-at-the-crown.json"`` (ASCII, from the evening's name)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "nap-evening"
    return f'{kind}; filename="{slug}.{extension}"'


def evening_or_404(key: str) -> Evening:
    """The evening with key ``key`` (players and hands loaded); 404 if there is none."""
    evening = units.get_evening(key)
    if evening is None:
        abort(404)
    return evening


def load_evening(key: str) -> tuple[Evening, Ledger]:
    """The evening with key ``key`` and its ledger; 404 if there is none."""
    evening = evening_or_404(key)
    return evening, evenings.ledger_of(evening)


#: The policy of an SVG picture (a chart): pygal's own ``<style>`` applies, nothing
#: loads, and no other site may frame it.
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"

def rules_error(form: Any, error: RulesError) -> None:
    form.form_errors.append(error_text(error))


def undo_offer(key: str) -> dict[str, Any] | None:
    """The one-tap Undo shown with "Hand 7 saved" on the scoresheet: the last hand's
    number, version and row id (so a stale tap never undoes a newer hand), or ``None``
    when there is nothing to undo or the evening is finished. Reads the last hand only
    (:func:`scorer.storage.units.last_hand`), not the evening (issue 23 item 4)."""
    last = units.last_hand(key)
    if last is None:
        return None
    number, version, hand_id = last
    return {"key": key, "number": number, "version": version, "hand_id": hand_id, "form": ActionForm()}


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


def event_of_table(key: str) -> tuple[int, str] | None:
    """The id and key of the event whose table has URL key ``key``, or ``None``: read once for
    the pages of the service worker's warm-up (the desk link of each, the hand page's "Call the
    referee"), once each elsewhere."""
    def read() -> tuple[int, str] | None:
        event = referees.table_of_key(key)
        return None if event is None else (event.id, event.key)
    return units.shared_read((units.EVENT_OF, key), read)


def desk_url(in_event_line: bool = False) -> str | None:
    """This phone's link back to its referee's desk on this page of an event's table (what
    ``referee_desk()`` prints: :func:`scorer.web.views.referee.desk_link`), or ``None`` (a
    referee who ruled lands on the table's hand page and must find the way back)."""
    key = (request.view_args or {}).get("key")
    if not isinstance(key, str) or not request.path.startswith("/e/"):
        return None
    if request.endpoint == "sheet.scoresheet" and not in_event_line:
        return None
    # the same for every page of the table the service worker's warm-up makes in one request
    return units.shared_read(("referee_desk", key), lambda: _read_desk_url(key))


def _read_desk_url(key: str) -> str | None:
    event = event_of_table(key)
    if event is None:
        return None
    device = access.current_device()
    if referees.referee_of(device.id if device else None, event[0]) is None:
        return None
    return url_for("referee.desk", key=event[1])
