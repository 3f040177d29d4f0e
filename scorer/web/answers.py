"""The two adapters' answers to a command's outcome (:mod:`scorer.storage.commands`):
:func:`json_answer` for the JSON commands (``docs/api.md``), :func:`form_answer` for the
HTML forms (a redirect with a flash message, or the form again with its error). Every
write's view is body or form → command → :func:`~scorer.storage.commands.execute` → one
of these; no view catches a refusal itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import abort, flash, jsonify, redirect, url_for
from flask_babel import gettext

from ..evening import chain
from ..evening.codec import encode_hand
from ..evening.file import dump_seat_change
from ..evening.ledger import Ledger
from ..reports.words import tr
from ..rules import RULES, HandFacts
from ..storage import evenings, kept_ledgers, notes, units
from ..storage.commands import AlreadySaved, Conflict, Device, Outcome, RecordHand, Refused, Saved, execute
from ..storage.models import Dispute, Evening, Hand, db
from ..storage.records import record_of
from . import access


def sender() -> Device:
    """The phone sending the command: its name (for the history) and row."""
    return Device(access.device_name(), access.device_id())


def outcome_text(outcome: AlreadySaved | Conflict | Refused) -> str:
    """The outcome's message in the phone's language: ``message (rule)`` for the refusal of
    one of the engine's rules (``H-7``); a refusal's other codes (``pin``, ``pin_paused``)
    are for JSON clients and are not shown to a person."""
    message = str(tr(outcome.message))
    rule = getattr(outcome, "rule", None)
    return f"{message} ({rule})" if rule in RULES else message


# --------------------------------------------------------------------------- JSON
def dispute_of(dispute: Dispute, evening: Evening) -> dict[str, Any]:
    """A dispute as the commands answer it (players by name): the disputes' and the referee's."""
    names = [p.name for p in evening.players]
    hand = db.session.get(Hand, dispute.hand_id)
    return {"id": dispute.id, "hand_id": dispute.hand_id, "number": hand.number if hand is not None else 0,
            "kind": dispute.kind, "accused": None if dispute.accused is None else names[dispute.accused],
            "raised_by": None if dispute.raised_by is None else names[dispute.raised_by], "trick": dispute.trick,
            "note": dispute.note, "resolution": dispute.resolution or None}


def hand_of(hand: Hand, ledger: Ledger) -> dict[str, Any]:
    """A hand in play as the commands answer it: row id, number, version and facts (by name)."""
    facts = ledger.rows[hand.number - 1].facts  # already read by the ledger
    answer = {"id": hand.id, "number": hand.number, "version": hand.current.version,
              "facts": encode_hand(facts, ledger.setup.players)}
    played = hand.versions[0].played_at
    if played is not None:  # when the phone said it was played (ISO 8601, UTC)
        answer["played_at"] = evenings.as_utc(played).isoformat()
    return answer


def totals(ledger: Ledger) -> dict[str, int]:
    """Each player's total (units: chips or points), by name."""
    return dict(zip(ledger.setup.players, ledger.totals))


def state_of(evening: Evening, ledger: Ledger | None = None) -> dict[str, Any]:
    """What ``GET /api/e/<key>`` answers: everything a client needs to send the next command."""
    ledger = ledger or evenings.ledger_of(evening)
    names = ledger.setup.players
    closed = evenings.is_closed(evening, ledger)
    return {"revision": evening.revision, "finished": evening.finished_at is not None, "players": list(names),
            "variant": evening.variant, "name": evening.name, "place": evening.place,
            "options": dict(evening.options or {}), "hands": [hand_of(h, ledger) for h in evening.hands],
            "totals": totals(ledger), "next_dealer": names[ledger.next_dealer],
            "seated": [names[s] for s in ledger.seated],
            "seats": [dump_seat_change(c, names) for c in ledger.changes],
            "closed": closed, "record": record_json(evening, ledger),
            "note": evening.note or "", "rematch": notes.rematch_of(evening.id) if closed else None}


def record_json(evening: Evening, ledger: Ledger) -> dict[str, Any]:
    """The evening's record (issue 22 item 6): its ``fingerprint`` and number of ``changes``
    (:mod:`scorer.evening.chain`), worked out as the scoresheet works it out
    (:func:`scorer.storage.records.record_of`, reusing the links kept with this process's
    settled evening), from scratch only when no settled evening of this revision is kept."""
    head = {c.key: getattr(evening, c.key) for c in kept_ledgers.HEAD_COLUMNS}
    found = kept_ledgers.settled(evening.key, head)
    if found is not None and found.head.revision == evening.revision:
        fingerprint, changes = record_of(found)
    else:
        fingerprint, changes = chain.summary(
            chain.of_ledger(ledger, draw=evening.draw or (), finished=evening.finished_at is not None))
    return {"fingerprint": fingerprint, "changes": changes}


def fresh_evening(key: str) -> Evening:
    """The evening as committed now (404 if there is none)."""
    evening = units.get_evening(key, fresh=True)
    if evening is None:
        abort(404)
    return evening


def refused_json(message: str, rule: str | None = None) -> Any:
    return jsonify(error={"code": "refused", "rule": rule, "message": message}), 422


def conflict_json(key: str, message: str) -> Any:
    """The table is not what the client saw: nothing was saved; here is the table now."""
    return jsonify(error={"code": "conflict", "message": message}, state=state_of(fresh_evening(key))), 409


def json_answer(key: str, outcome: Outcome, saved: Callable[[Saved, int], Any], status: int = 200) -> Any:
    """The JSON answer to ``outcome``: ``saved(outcome, status)`` when saved (``status``
    200 when nothing changed), 409 with the table's state for a conflict or a finished
    evening, 422 for a refusal, 403 for what only the table's owner may do (rule
    "owner", as a viewer's 403 on a scorer's command). A retry (:class:`AlreadySaved`) answers what the first
    one saved: ``saved`` of it, with 200."""
    if isinstance(outcome, Saved):
        return saved(outcome, status if outcome.changed else 200)
    if isinstance(outcome, AlreadySaved):
        return saved(Saved(outcome.key or key, outcome.hand_id, outcome.number, changed=False), 200)
    if isinstance(outcome, Conflict) or outcome.finished:
        return conflict_json(key, outcome_text(outcome))
    if outcome.forbidden:
        return jsonify(error={"code": "forbidden", "rule": outcome.rule, "message": outcome_text(outcome)}), 403
    return refused_json(outcome_text(outcome), outcome.rule)


# --------------------------------------------------------------------------- HTML
def form_answer(outcome: Outcome, *, saved: str | None, to: str, back: str | None = None, form: Any = None,
                category: str = "message") -> Any:
    """The HTML answer to ``outcome``: saved → flash ``saved`` (if any) and go ``to``;
    a refusal of the rules with a ``form`` → ``None`` (the error is added to the form: the
    caller shows it again); any other refusal, a conflict or a retry → flash why and go
    ``back`` (default ``to``). A conflict about a hand goes to that hand's page when no
    ``back`` is given and ``to`` is the scoresheet. A creating form posted twice (a retry
    naming what the first post made, ``AlreadySaved.key``) is a 303 See Other to ``to``."""
    if isinstance(outcome, Saved):
        if saved:
            flash(saved, category)
        return redirect(to)
    text = outcome_text(outcome)
    if isinstance(outcome, AlreadySaved) and outcome.key:
        flash(text)
        return redirect(to, code=303)
    if isinstance(outcome, Refused) and not outcome.finished:
        if form is not None:
            form.form_errors.append(text)
            return None
        flash(gettext("Nothing was saved: %(errors)s", errors=text))
        return redirect(back or to)
    flash(text)
    return redirect(back or to)


def save_new_hand(evening: Evening, number: int, facts: HandFacts, token: str | None, form: Any = None) -> Any:
    """Record hand ``number`` (full form or quick entry) and answer as a phone expects:
    saved → the scoresheet at the hand; saved already (a double tap, another phone) or
    the evening finished → a redirect that says so; taken by another phone → that hand's
    page. ``None`` when the rules refuse the hand: the refusal is added to
    ``form.form_errors`` (the caller shows the form again)."""
    key = evening.key
    outcome = execute(RecordHand(key, number, facts, token or None), device=sender())
    sheet = url_for("sheet.scoresheet", key=key)
    back = (url_for("hands.hand", key=key, number=outcome.number)
            if isinstance(outcome, Conflict) and outcome.number >= 1 else sheet)
    return form_answer(outcome, saved=gettext("Hand %(number)s saved.", number=number), to=sheet, back=back,
                       form=form, category=f"saved:{number}")
