"""JSON commands: every write of the HTML forms as one JSON request, answered with JSON
(``docs/api.md``). Each command is read from its body into the same typed command the
HTML form makes (:mod:`scorer.storage.commands`) and answered from its outcome by
:func:`scorer.web.answers.json_answer`. Hands are named by their row id *and* the version
the client saw, so a command from a stale screen is refused (409) with the table's
state, never applied to another hand that took the same number.

Same-origin scripts and tests only: the blueprint is exempt from the forms' CSRF
token, and every POST must say ``Content-Type: application/json`` instead (a
cross-site HTML form cannot send it without a CORS preflight, which is never allowed).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from flask import abort, jsonify, make_response, request, url_for
from flask_babel import gettext

from ...evening.codec import encode_hand
from ...evening.file import EveningFileError, check_hand, dump_seat_change, read_hand, seat_reader
from ...evening.ledger import Ledger
from ...evening.limits import NOTE_LIMIT
from ...evening.lone_bid import lone_bid_hand
from ...evening.tables import play_rules
from ...reports.words import error_text
from ...rules import HandFacts, RulesError
from ...rules.play import PlayState
from ...storage import evenings, hand_writes, kept_ledgers
from ...storage.commands import (
    ChangeSeats,
    ChangeSettings,
    Command,
    CorrectHand,
    OverrideRuling,
    RecordHand,
    RecordPlay,
    RestoreVersion,
    Saved,
    SetClaims,
    SetFinished,
    SetHandNote,
    UndoHand,
    UndoSeatChange,
    execute,
)
from ...storage.db import db
from ...storage.models import Evening, Hand
from ...storage.notes import SetEveningNote, StartRematch
from .. import json_body
from ..answers import conflict_json, fresh_evening, hand_of, json_answer, sender, state_of, totals
from ..json_body import BadBody
from ..permissions import permission
from .common import evening_or_404

bp = json_body.json_blueprint("api", __name__)


def _facts(data: Any, ledger: Ledger, dealer: int, seated: tuple[int, ...] = ()) -> HandFacts:
    """A hand dict with names (the evening file's hand) as facts; ``dealer`` when it names none."""
    if not isinstance(data, dict):
        raise BadBody(gettext("facts must be a JSON object (a hand as in the evening file)."))
    try:
        if "lone_bid" in data:
            data = lone_bid_hand(data, ledger, dealer, seated or ledger.seated)
        check_hand(data, "facts")
        return read_hand(data, ledger.setup.players, dealer=dealer, where="facts")
    except (EveningFileError, RulesError) as error:
        raise BadBody(error_text(error), error.rule) from None
    except (TypeError, ValueError, KeyError) as error:  # the schema let something odd through
        raise BadBody(str(error)[:160]) from None


# --------------------------------------------------------------------------- answers

def _hand_saved(saved: Saved, status: int) -> Any:
    """The answer to a hand command: the hand (by row id) as saved now, the totals and
    the revision. A conflict when that hand is no longer in play (a retry of a command
    whose hand another phone undid meanwhile: its answer is not another hand's)."""
    evening = fresh_evening(saved.key)
    ledger = evenings.ledger_of(evening)
    if saved.hand_id is not None:
        hand = next((h for h in evening.hands if h.id == saved.hand_id), None)
    else:  # a token saved before tokens kept their hand (0010): by number
        hand = next((h for h in evening.hands if h.number == saved.number), None)
    if hand is None:
        return conflict_json(saved.key, error_text(hand_writes.gone(evening, saved.hand_id or 0)))
    return jsonify(revision=evening.revision, hand=hand_of(hand, ledger), totals=totals(ledger)), status


def _run(command: Command, status: int = 201) -> Any:
    return json_answer(command.key, execute(command, device=sender()), _hand_saved, status)


def _hand(evening: Evening, hand_id: int) -> Hand:
    """The hand with row id ``hand_id`` as the client saw it (its facts read from the ledger);
    404 for a hand that was never at this table, a conflict for one undone since."""
    hand = next((h for h in evening.hands if h.id == hand_id), None)
    if hand is not None:
        return hand
    gone = db.session.get(Hand, hand_id) if 0 < hand_id < 2**31 else None
    if gone is None or gone.evening_id != evening.id:
        abort(404)
    abort(make_response(conflict_json(evening.key, error_text(hand_writes.gone(evening, hand_id)))))


def _correction(key: str, hand_id: int) -> tuple[dict[str, Any], Evening, Ledger, Hand, dict[str, Any]]:
    """What every correction command reads first: the body, the table, the hand it names
    by row id, and the command's own fields (``hand_id``, ``version``, ``token``)."""
    body = json_body.body()
    fields = {"key": key, "hand_id": hand_id, "version": json_body.integer(body, "version", 1),
              "token": json_body.token(body)}
    evening = evening_or_404(key)
    return body, evening, evenings.ledger_of(evening), _hand(evening, hand_id), fields


def _patched(ledger: Ledger, hand: Hand, field: str, value: Any) -> HandFacts:
    """The hand's current facts with one field of its dict replaced (``None``: removed)."""
    names = ledger.setup.players
    data = encode_hand(ledger.rows[hand.number - 1].facts, names)
    data.pop(field, None)
    if value is not None:
        data[field] = value
    return _facts(data, ledger, ledger.rows[hand.number - 1].facts.dealer)


def settled_ledger(key: str) -> Ledger:
    """The evening's ledger at its current revision as this process keeps it (one small query
    when kept, :func:`scorer.storage.kept_ledgers.settled`; the writes hand theirs over), not
    the whole evening loaded: what a command reads before it runs, for its defaults (the
    command reads the table again under its lock). 404 if there is no such evening. The save
    loaded the evening three times (read, under the lock, for the answer): a third of its
    CPU, at a hand a minute per table a thousand loads a minute (issue 23 item 2)."""
    found = kept_ledgers.settled(key)
    if found is None:
        abort(404)
    return found.ledger


# --------------------------------------------------------------------------- commands
@bp.get("/e/<key>")
@permission("view")
def state(key: str) -> Any:
    response = jsonify(state_of(evening_or_404(key)))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/e/<key>/hands")
@permission("score")
def new_hand(key: str) -> Any:
    body = json_body.body()
    number, token = json_body.integer(body, "number", 1), json_body.token(body)
    ledger = settled_ledger(key)
    # what the hand does not say is its place's (a retry after it was saved: the same command)
    row = ledger.rows[number - 1] if number <= len(ledger.rows) else None
    dealer, seated = (row.facts.dealer, row.seated) if row else (ledger.next_dealer, ())
    return _run(RecordHand(key, number, _facts(body.get("facts"), ledger, dealer, seated), token,
                           played_at=json_body.played_at(body)))


@bp.post("/e/<key>/hands/<int:hand_id>/versions")
@permission("score")
def correct(key: str, hand_id: int) -> Any:
    body, _, ledger, hand, fields = _correction(key, hand_id)
    row = ledger.rows[hand.number - 1]
    return _run(CorrectHand(**fields, facts=_facts(body.get("facts"), ledger, row.facts.dealer, row.seated)))


@bp.post("/e/<key>/hands/<int:hand_id>/restore")
@permission("score")
def restore(key: str, hand_id: int) -> Any:
    body, _, _, _, fields = _correction(key, hand_id)
    return _run(RestoreVersion(**fields, restore=json_body.integer(body, "restore", 1)))


@bp.post("/e/<key>/hands/<int:hand_id>/override")
@permission("score")
def override(key: str, hand_id: int) -> Any:
    body, _, ledger, hand, fields = _correction(key, hand_id)
    if "override" not in body:
        raise BadBody(gettext("override must be given: the table's figures, or null to remove them."))
    return _run(OverrideRuling(**fields, override=_patched(ledger, hand, "override", body["override"]).override))


@bp.post("/e/<key>/hands/<int:hand_id>/claims")
@permission("score")
def claims(key: str, hand_id: int) -> Any:
    body, _, ledger, hand, fields = _correction(key, hand_id)
    value = body.get("claims")
    if not isinstance(value, list):
        raise BadBody(gettext("claims must be a list (empty to remove every claim)."))
    # else the disputes its claims rule on
    dispute = json_body.integer(body, "dispute", 1) if "dispute" in body else None
    return _run(SetClaims(**fields, claims=_patched(ledger, hand, "claims", value or None).claims,
                          dispute_id=dispute))  # the hand corrected and its disputes closed: one unit


@bp.post("/e/<key>/hands/<int:hand_id>/play")
@permission("score")
def play(key: str, hand_id: int) -> Any:
    body, _, ledger, hand, fields = _correction(key, hand_id)
    row = ledger.rows[hand.number - 1]
    if not isinstance(body.get("record"), list):
        raise BadBody(gettext("record must be a list of tricks, each a list of cards (empty to remove it)."))
    if row.ruling.declarer is not None and row.ruling.contract is not None:
        record = _patched(ledger, hand, "record", body["record"] or None).record  # checked as the file's record
        try:
            PlayState(play_rules(ledger, row), record).reading  # noqa: B018 - a record that cannot be read: 422
        except RulesError as error:
            raise BadBody(error_text(error), error.rule) from None
    else:  # nobody bid: the command refuses it
        record = ()
    return _run(RecordPlay(**fields, tricks=record))


def _note(body: dict[str, Any]) -> str:
    """The body's ``note`` (required; "" removes it): a text of at most 280 characters once cleaned."""
    if "note" not in body:
        raise BadBody(gettext("note must be given: a line of text, or \"\" to remove it."))
    return json_body.text(body, "note", "", limit=NOTE_LIMIT)


@bp.post("/e/<key>/hands/<int:hand_id>/note")
@permission("score")
def hand_note(key: str, hand_id: int) -> Any:
    """The table's note on a hand (issue 25 item 7): a new version of the hand."""
    body, _, _, _, fields = _correction(key, hand_id)
    return _run(SetHandNote(**fields, note=_note(body)))


@bp.post("/e/<key>/note")
@permission("score")
def evening_note(key: str) -> Any:
    """The table's note on the evening; allowed on a finished evening (it changes no total)."""
    body = json_body.body()
    revision = json_body.integer(body, "revision") if "revision" in body else None
    note = _note(body)

    def saved(_: Saved, status: int) -> Any:
        fresh = fresh_evening(key)
        return jsonify(revision=fresh.revision, note=fresh.note), status

    return json_answer(key, execute(SetEveningNote(key, note, revision), device=sender()), saved)


@bp.post("/e/<key>/rematch")
@permission("score")
def rematch(key: str) -> Any:
    """Start the rematch of a closed evening (issue 25 item 8), or find the one made:
    ``{"key", "url", "created", "message"}``, 201 when made now, 200 when it was made before."""
    json_body.body()

    def made(saved: Saved, status: int) -> Any:
        message = (gettext("Rematch started: the same players, a new evening. Good luck!") if saved.changed
                   else gettext("The rematch had already started: here it is."))
        return jsonify(key=saved.detail, url=url_for("sheet.scoresheet", key=saved.detail),
                       created=saved.changed, message=message), status

    return json_answer(key, execute(StartRematch(key), device=sender()), made, 201)


#: how much of each ruling one "differs" log line keeps (characters of compact JSON)
DIFFERS_KEPT = 2000
differs_log = logging.getLogger("scorer.provisional")


@bp.post("/e/<key>/differs")
@permission("score")
def differs(key: str) -> Any:
    """A scorer's phone found the server's ruling not the provisional one it showed (README
    "Provisional rulings on the scorer's phone"; the server's stands): ``{"provisional": {...},
    "server": {...}}`` (JSON objects, as static/ruling-diff.js builds them) are logged, one line
    of at most 2 × :data:`DIFFERS_KEPT` characters of each, for whoever keeps the engines equal.
    202 ``{"logged": true}``; 422 when either is not an object; nothing is saved."""
    body = json_body.body()
    evening_or_404(key)
    kept = {}
    for name in ("provisional", "server"):
        value = body.get(name)
        if not isinstance(value, dict):
            raise BadBody(gettext("%(field)s must be a JSON object.", field=name))
        kept[name] = json.dumps(value, separators=(",", ":"), ensure_ascii=True, sort_keys=True)[:DIFFERS_KEPT]
    differs_log.warning("provisional ruling differs at table %s: provisional=%s server=%s",
                        key, kept["provisional"], kept["server"])
    return jsonify(logged=True), 202


@bp.post("/e/<key>/undo")
@permission("score")
def undo(key: str) -> Any:
    body = json_body.body()
    hand_id, version = json_body.integer(body, "hand_id", 1), json_body.integer(body, "version", 1)
    _hand(evening_or_404(key), hand_id)

    def undone(saved: Saved, status: int) -> Any:
        evening = fresh_evening(key)
        return jsonify(revision=evening.revision, undone={"id": hand_id, "number": saved.number},
                       totals=totals(evenings.ledger_of(evening))), status

    outcome = execute(UndoHand(key, None, version, hand_id), device=sender())
    return json_answer(key, outcome, undone)


@bp.post("/e/<key>/settings")
@permission("manage")
def settings(key: str) -> Any:
    body = json_body.body()
    revision = json_body.integer(body, "revision")
    evening = evening_or_404(key)
    name, place = json_body.text(body, "name", evening.name), json_body.text(body, "place", evening.place or "")
    options = body.get("options", dict(evening.options or {}))
    if not isinstance(options, dict):
        raise BadBody(gettext("options must be a JSON object."))

    def saved(_: Saved, status: int) -> Any:
        fresh = fresh_evening(key)
        return jsonify(revision=fresh.revision, name=fresh.name, place=fresh.place,
                       options=dict(fresh.options or {}), totals=totals(evenings.ledger_of(fresh))), 200

    return json_answer(key, execute(ChangeSettings(key, revision, name, place, options), device=sender()), saved)


def _finished(_: Saved, status: int) -> Any:
    evening = fresh_evening(str((request.view_args or {}).get("key", "")))
    return jsonify(revision=evening.revision, finished=evening.finished_at is not None), 200


@bp.post("/e/<key>/finish")
@permission("manage")
def finish(key: str) -> Any:
    revision = json_body.integer(json_body.body(), "revision")
    return json_answer(key, execute(SetFinished(key, True, revision), device=sender()), _finished)


@bp.post("/e/<key>/reopen")
@permission("manage")
def reopen(key: str) -> Any:
    revision = json_body.integer(json_body.body(), "revision")
    return json_answer(key, execute(SetFinished(key, False, revision), device=sender()), _finished)


# --------------------------------------------------------------------------- people come and go
def _seated(saved: Saved, status: int) -> Any:
    evening = fresh_evening(saved.key)
    ledger = evenings.ledger_of(evening)
    names = ledger.setup.players
    out: dict[str, Any] = {"revision": evening.revision, "seated": [names[s] for s in ledger.seated],
                           "next_dealer": names[ledger.next_dealer], "totals": totals(ledger)}
    if saved.detail is not None:
        out["change"] = dump_seat_change(saved.detail, [p.name for p in evening.players])
    return jsonify(out), status


@bp.post("/e/<key>/seats")
@permission("score")
def seats(key: str) -> Any:
    """A player joins (``{"join": name, "left_of": name}``), leaves (``{"leave": name}``) or is
    renamed (``{"rename": name, "to": new name}``) before the next hand; ``revision`` is the
    table's revision the client saw."""
    body = json_body.body()
    revision = json_body.integer(body, "revision")
    seat_of = seat_reader([p.name for p in evening_or_404(key).players])
    kinds = [k for k in ("join", "leave", "rename") if k in body]
    if len(kinds) != 1:
        raise BadBody(gettext("Send one of join (with left_of), leave or rename (with to)."))
    kind = kinds[0]
    try:
        if kind == "join":
            command = ChangeSeats(key, "join", name=json_body.text(body, "join", "", 40),
                                  left_of=seat_of(body.get("left_of"), "left_of"), revision=revision)
        elif kind == "leave":
            command = ChangeSeats(key, "leave", seat=seat_of(body.get("leave"), "leave"), revision=revision)
        else:
            command = ChangeSeats(key, "rename", seat=seat_of(body.get("rename"), "rename"),
                                  name=json_body.text(body, "to", "", 40), revision=revision)
    except EveningFileError as error:
        raise BadBody(error_text(error), error.rule) from None
    return json_answer(key, execute(command, device=sender()), _seated, 201)


@bp.post("/e/<key>/seats/undo")
@permission("score")
def undo_seats(key: str) -> Any:
    """Undo the last change of seats (it must have no hand after it, unless it is a rename)."""
    revision = json_body.integer(json_body.body(), "revision")
    evening_or_404(key)
    return json_answer(key, execute(UndoSeatChange(key, None, revision), device=sender()), _seated)
