"""What each route lets a phone do, declared on the route and checked before its view.

Every route declares its level with :func:`permission` (a route without one is refused,
and a test fails on it); :func:`check_permission`, a ``before_request`` step, runs the
check: viewers read, scorers (:func:`scorer.web.access.is_scorer`) enter and correct.
"""

from __future__ import annotations

from typing import Any

from flask import abort, current_app, flash, jsonify, redirect, request, url_for
from flask_babel import gettext as _

from ..storage import groups, units
from . import access

#: What a route lets a phone do, declared on every route with :func:`permission` and
#: checked before the view runs (:func:`check_permission`):
#:
#: - ``public``: nothing keyed (the start page, import, a new group, the language menu);
#: - ``view``: anyone holding the table's (or group's) link reads;
#: - ``score``: the table's scorers record, correct, undo and overrule hands;
#: - ``manage``: the table's scorers change the table itself (settings, finish, reopen);
#:   for a group, whoever holds its link (its key is its credential).
#:
#: - ``pay``: a scorer, or the phone of a player of the table (their own link, issue 22 item
#:   7), marks the settle-up's payments paid; which payments a player's phone may mark (its
#:   own, as payer or payee) is checked by the command under the table's lock.
#: - ``referee``: a referee of the event (issue 22 item 5): of the event the route's
#:   ``key`` names (``of="event"``), or of the event whose table it names; the owner's
#:   own routes of an event (naming and revoking referees) are ``manage`` of the event at
#:   the door, the owner checked by their command under the event's lock.
#:
#: A later ``dispute`` (any phone raising a claim) fits between ``view`` and ``score``.
LEVELS = ("public", "view", "pay", "score", "manage", "referee")
#: What the route's ``key`` names: an evening (a table), a group or an event (a club night,
#: whose ``manage`` routes are its owner's and organisers': :func:`scorer.storage.events.is_organiser`).
SUBJECTS = ("evening", "group", "event")


def permission(level: str, of: str = "evening") -> Any:
    """Declare what a route needs: ``@permission("score")`` under ``@bp.post(…)``.

    ``level`` is one of :data:`LEVELS`; ``of`` what the URL's ``key`` is (:data:`SUBJECTS`).
    Raises ``ValueError`` at import time for an unknown level or subject. A route with
    no declaration is refused (and a test fails on it)."""
    if level not in LEVELS or of not in SUBJECTS:
        raise ValueError(f"unknown permission {level!r} of {of!r}")

    def declare(view: Any) -> Any:
        view.permission = (level, of)
        return view

    return declare


def permission_of(view: Any) -> tuple[str, str] | None:
    """``(level, subject)`` declared on a view function, or ``None`` if undeclared."""
    return getattr(view, "permission", None)


def check_permission() -> Any:
    """Run the check each route declares (:func:`permission`) before the
    view: an unknown table or group is a 404; a viewer asking for a scorer's route is
    sent to the PIN page (nothing runs, nothing changes), or answered ``403`` JSON under
    ``/api/`` (a script has no PIN page to go to); an undeclared route is refused."""
    if request.endpoint is None or request.endpoint == "static":
        return None  # a 404 or 405 of the router, or a static file
    declared = permission_of(current_app.view_functions.get(request.endpoint))
    if declared is None:
        current_app.logger.error("route %s declares no permission; refused", request.endpoint)
        abort(403)
    level, subject = declared
    if level in ("public", "view"):
        return None  # a view that reads answers 404 itself for an unknown key (no extra query here)
    key = (request.view_args or {}).get("key", "")
    if level == "referee":
        return _check_referee(subject, key)
    if subject == "group":
        if groups.get_group(key) is None:
            abort(404)
        return None  # a group's link is its key: holding it is enough to manage it
    if subject == "event":
        return _check_event(key)
    if not units.valid_key(key):
        abort(404)
    if access.is_scorer(key):  # a scorer's row is joined to the table's: the table exists
        return None
    if units.evening_revision(key) is None:
        abort(404)
    if level == "pay" and access.party_seat(key) is not None:
        return None
    message = _("Only the table's scorers can change the score. Enter the table's PIN to become one.")
    if level == "pay":
        message = _("Only a scorer of the table, or a player who opened their own link from a scorer, can mark "
                    "payments paid.")
    if request.path.startswith("/api/"):
        return jsonify(error={"code": "forbidden", "message": message}), 403
    flash(message)
    return redirect(url_for("table.join", key=key))


def _check_event(key: str) -> Any:
    """An event's ``manage`` route: its owner's and organisers' only (the event's link or PIN
    makes a phone an organiser); anyone else is sent to the event's PIN page, or answered
    ``403`` JSON under ``/api/``. Nothing runs, nothing changes."""
    from ..storage import events

    event = events.get_event(key)
    if event is None:
        abort(404)
    if events.is_organiser(event, access.current_device()):
        return None
    message = _("Only the event's organisers can change it. Enter the event's PIN to become one.")
    if request.path.startswith("/api/"):
        return jsonify(error={"code": "forbidden", "message": message}), 403
    flash(message)
    return redirect(url_for("events.join", key=key))


def _check_referee(subject: str, key: str) -> Any:
    """The door of the referee's routes (``referee``, issue 22 item 5): of the event ``key``
    names (``of="event"``) or of the event of the table it names. An unknown event or table
    is a 404; a phone that is no referee of it (or was revoked) is refused: ``403`` JSON under
    ``/api/``, else the referee's PIN page says why. Nothing runs, nothing changes."""
    from ..storage import referees

    if subject == "event":
        event = referees.event_by_key(key)
    else:
        event = referees.table_of_key(key)
    if event is None:
        abort(404)
    device = access.current_device()
    device_id = device.id if device is not None else None
    if referees.referee_of(device_id, event.id) is not None:
        return None
    message = _("Only the event's referees can do that; this phone is not one of them (or its role was revoked).")
    if request.path.startswith("/api/"):
        return jsonify(error={"code": "forbidden", "message": message}), 403
    flash(message)
    return redirect(url_for("referee.join_pin", key=event.key))
