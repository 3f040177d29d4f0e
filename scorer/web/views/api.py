"""JSON commands: every write of the HTML forms as one JSON request over the same
services, answered with JSON (``docs/api.md``). Hands are named by their row id *and*
the version the client saw, so a command from a stale screen is refused (409) with the
table's state, never applied to another hand that took the same number.

Same-origin scripts and tests only: the blueprint is exempt from the forms' CSRF
token, and every POST must say ``Content-Type: application/json`` instead (a
cross-site HTML form cannot send it without a CORS preflight, which is never allowed).
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, abort, jsonify, request
from flask_babel import gettext

from ...evening.codec import encode_hand
from ...evening.file import EveningFileError, check_hand, dump_seat_change, read_hand, seat_reader
from ...evening.ledger import Ledger, table_ledger
from ...rules import HandFacts, RulesError, Text, clean_text
from ...rules.play import PlayState
from ...storage import disputes, services
from ...storage.models import Evening, Hand, db
from .. import access
from ..access import permission
from ..extensions import csrf
from ..i18n import error_text
from .common import play_rules, with_record

bp = Blueprint("api", __name__, url_prefix="/api")
csrf.exempt(bp)

#: Any whole number a command carries (a hand number, a version, a revision, a row id).
_MAX_INT = 1_000_000_000


class Refused(Exception):
    """The body cannot be read as the command (not JSON, wrong types, unknown names): 422."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message, self.rule = message, rule


# --------------------------------------------------------------------------- answers
def _refused(message: str, rule: str | None = None) -> Any:
    return jsonify(error={"code": "refused", "rule": rule, "message": message}), 422


@bp.errorhandler(Refused)
def _on_refused(error: Refused) -> Any:
    return _refused(error.message, error.rule)


@bp.errorhandler(RulesError)  # IllegalSetup too
def _on_rules_error(error: RulesError) -> Any:
    return _refused(error_text(error), error.rule)


@bp.errorhandler(EveningFileError)
def _on_shape_error(error: EveningFileError) -> Any:
    return _refused(error_text(error), error.rule)


@bp.errorhandler(services.HandConflict)
@bp.errorhandler(services.EveningFinished)
def _on_conflict(error: services.ScorerError) -> Any:
    """The table is not what the client saw: nothing was saved; here is the table now."""
    evening = services.get_evening((request.view_args or {}).get("key", ""), fresh=True)
    if evening is None:
        abort(404)
    return jsonify(error={"code": "conflict", "message": error_text(error)}, state=state_of(evening)), 409


@bp.errorhandler(services.AlreadySaved)
def _on_retry(error: services.AlreadySaved) -> Any:
    """The same command again (its token was used): nothing new; what the first one saved."""
    key = (request.view_args or {}).get("key", "")
    hand_id = error.hand_id
    if hand_id is None:  # a token saved before tokens kept their hand (0010): by number
        number = error.number or 0
        hand = next((h for h in _evening(key).hands if h.number == number), None)
        if hand is None:
            return _on_conflict(_gone(number))
        hand_id = hand.id
    try:
        return _saved(key, hand_id, 200)
    except services.HandConflict as gone:  # its hand was undone since: an error handler cannot raise it on
        return _on_conflict(gone)


@bp.errorhandler(services.TokenReused)
def _on_token_reused(error: services.TokenReused) -> Any:
    return _refused(error_text(error))


@bp.before_request
def _json_only() -> Any:
    if request.method == "POST" and request.mimetype != "application/json":
        return jsonify(error={"code": "unsupported_media_type",
                              "message": gettext("Send the command as JSON (Content-Type: application/json).")}), 415
    return None


# --------------------------------------------------------------------------- reading a body
def _body() -> dict[str, Any]:
    try:
        data = json.loads(request.get_data(cache=True) or b"")
    except (ValueError, RecursionError):  # bad JSON or UTF-8, absurd nesting or numbers
        raise Refused(gettext("The body is not JSON.")) from None
    if not isinstance(data, dict):
        raise Refused(gettext("The body must be a JSON object."))
    return data


def _int(body: dict[str, Any], name: str, low: int = 0) -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= _MAX_INT:
        raise Refused(gettext("%(field)s must be a whole number from %(low)s.", field=name, low=low))
    return value


def _text(body: dict[str, Any], name: str, default: str, limit: int = 80) -> str:
    """A text field, cleaned as every text the app keeps (:func:`scorer.rules.clean_text`:
    no control characters, NULs or lone surrogates) and then at most ``limit`` long."""
    value = body.get(name, default)
    value = clean_text(value) if isinstance(value, str) else value
    if not isinstance(value, str) or len(value) > limit:
        raise Refused(gettext("%(field)s must be a text of at most %(limit)s characters.", field=name, limit=limit))
    return value


def _token(body: dict[str, Any]) -> str:
    """The client's idempotency token: the same token again saves nothing a second time."""
    token = body.get("token")
    if not isinstance(token, str) or not services.TOKEN.fullmatch(token):
        raise Refused(gettext("token must be a text of 1 to 64 characters, new for each command."))
    return token


def _facts(data: Any, ledger: Ledger, dealer: int, seated: tuple[int, ...] = ()) -> HandFacts:
    """A hand dict with names (the evening file's hand) as facts; ``dealer`` when it names none."""
    if not isinstance(data, dict):
        raise Refused(gettext("facts must be a JSON object (a hand as in the evening file)."))
    if "lone_bid" in data:
        data = _lone_bid(data, ledger, dealer, seated or ledger.seated)
    check_hand(data, "facts")
    try:
        return read_hand(data, ledger.setup.players, dealer=dealer, where="facts")
    except (TypeError, ValueError, KeyError) as error:  # the schema let something odd through
        raise Refused(str(error)[:160]) from None


def _lone_bid(data: dict[str, Any], ledger: Ledger, dealer: int, seated: tuple[int, ...]) -> dict[str, Any]:
    """The common hand as quick entry sends it (``"lone_bid": {"declarer", "contract"}``,
    both ``null`` when everyone passed) made into the evening file's hand: the auction
    is the variant's own (:meth:`Variant.lone_bid_auction`: the declarer's bid, everyone
    else passing, in the variant's speaking order from ``dealer`` or the hand's dealer,
    among the players ``seated`` for the hand)."""
    lone = data["lone_bid"]
    if ("auction" in data or not isinstance(lone, dict) or set(lone) - {"declarer", "contract", "nap", "wellington"}
            or (lone.get("declarer") is None) != (lone.get("contract") is None)
            or not isinstance(lone.get("contract"), str | None)):
        raise Refused(gettext("lone_bid must name the declarer and the contract (both null: everyone passed), "
                              "and the hand then has no auction."))
    names = ledger.setup.players
    seat_of = seat_reader(names)
    if "dealer" in data:
        dealer = seat_of(data["dealer"], "facts.dealer")
    declarer = None if lone.get("declarer") is None else seat_of(lone["declarer"], "facts.lone_bid.declarer")
    table = table_ledger(ledger, seated)
    local = {seat: i for i, seat in enumerate(seated or range(ledger.setup.n))}
    # a Wellington or Blücher names who bid Nap (and Wellington) before it (P-7, H-7)
    earlier = {bid: seat_of(lone[bid], f"facts.lone_bid.{bid}") for bid in ("nap", "wellington") if bid in lone}
    for seat in (dealer, declarer, *earlier.values()):
        if seat is not None and seat not in local:
            raise Refused(gettext("%(name)s is not at the table for this hand.", name=names[seat]))
    auction = ledger.variant.lone_bid_auction(table.setup, local[dealer],
                                              None if declarer is None else local[declarer], lone.get("contract"),
                                              {bid: local[seat] for bid, seat in earlier.items()})
    hand = {k: v for k, v in data.items() if k != "lone_bid"}
    hand.update(dealer=names[dealer], auction=list(auction))
    return hand


# --------------------------------------------------------------------------- the table's state
def hand_of(hand: Hand, ledger: Ledger) -> dict[str, Any]:
    """A hand in play as the commands answer it: row id, number, version and facts (by name)."""
    facts = ledger.rows[hand.number - 1].facts  # already read by the ledger
    return {"id": hand.id, "number": hand.number, "version": hand.current.version,
            "facts": encode_hand(facts, ledger.setup.players)}


def state_of(evening: Evening, ledger: Ledger | None = None) -> dict[str, Any]:
    """What ``GET /api/e/<key>`` answers: everything a client needs to send the next command."""
    ledger = ledger or services.ledger_of(evening)
    names = ledger.setup.players
    return {"revision": evening.revision, "finished": evening.finished_at is not None, "players": list(names),
            "variant": evening.variant, "name": evening.name, "place": evening.place,
            "options": dict(evening.options or {}), "hands": [hand_of(h, ledger) for h in evening.hands],
            "totals": _totals(ledger), "next_dealer": names[ledger.next_dealer],
            "seated": [names[s] for s in ledger.seated],
            "seats": [dump_seat_change(c, names) for c in ledger.changes],
            "closed": services.is_closed(evening, ledger)}


def _totals(ledger: Ledger) -> dict[str, int]:
    """Each player's total (units: chips or points), by name."""
    return dict(zip(ledger.setup.players, ledger.totals))


def _evening(key: str, *, fresh: bool = False) -> Evening:
    evening = services.get_evening(key, fresh=fresh)
    if evening is None:
        abort(404)
    return evening


def _saved(key: str, hand_id: int, status: int) -> Any:
    """The answer to a hand command: the hand (by row id) as saved now, the totals and
    the revision. A conflict when that hand is no longer in play (a retry of a command
    whose hand another phone undid meanwhile: its answer is not another hand's)."""
    evening = _evening(key, fresh=True)
    ledger = services.ledger_of(evening)
    hand = _hand_in_play(evening, hand_id)
    return jsonify(revision=evening.revision, hand=hand_of(hand, ledger),
                   totals=_totals(ledger)), status


def _gone(number: int) -> services.HandConflict:
    """The conflict of a command about hand ``number``, which was undone since."""
    return services.HandConflict(Text("Hand {number} is no longer in play (it was undone on another phone); "
                                      "nothing was saved.", number=number), number)


def _hand_in_play(evening: Evening, hand_id: int, version: int | None = None) -> Hand:
    """The hand with row id ``hand_id`` if it is in play (at ``version``, if given); else a
    conflict (undone, or corrected since), or 404 for a hand that was never at this table."""
    hand = next((h for h in evening.hands if h.id == hand_id), None)
    if hand is None:
        if not 0 < hand_id < 2**31:  # no row has such an id (and the database cannot even look one up)
            abort(404)
        gone = db.session.get(Hand, hand_id)
        if gone is None or gone.evening_id != evening.id:
            abort(404)
        raise _gone(gone.undone_number or 0)
    if version is not None and hand.current.version != version:
        raise services.HandConflict(
            Text("Hand {number} was corrected on another phone while you were editing; here is the saved version.",
                 number=hand.number), hand.number)
    return hand


def _correct(evening: Evening, hand: Hand, base: int, facts: HandFacts, token: str, kind: str) -> Any:
    """Save the correction; 201 with the new version, or 200 when the facts are the
    ones already saved (nothing new: no version, no history entry)."""
    key, hand_id = evening.key, hand.id
    saved = services.correct_hand(evening, hand.number, base, facts, device=access.device_name(), kind=kind,
                                  token=token, hand_id=hand_id)
    return _saved(key, hand_id, 201 if saved.version > base else 200)


def _correction(key: str, hand_id: int, kind: str) -> tuple[dict[str, Any], Evening, Ledger, Hand, int, str]:
    """What every correction command reads first: the body, the table, and the hand it
    names by row id and version (409 if that is not the hand in play now)."""
    body = _body()
    base, token = _int(body, "version", 1), _token(body)
    evening = _evening(key)
    retry = services.used_token(token, evening, kind, hand_id)
    if retry is not None:  # answered before the version check: the first one made it stale
        raise retry
    hand = _hand_in_play(evening, hand_id, base)
    return body, evening, services.ledger_of(evening), hand, base, token


def _patched(ledger: Ledger, hand: Hand, field: str, value: Any) -> HandFacts:
    """The hand's current facts with one field of its dict replaced (``None``: removed)."""
    names = ledger.setup.players
    data = encode_hand(ledger.rows[hand.number - 1].facts, names)
    data.pop(field, None)
    if value is not None:
        data[field] = value
    return _facts(data, ledger, ledger.rows[hand.number - 1].facts.dealer)


# --------------------------------------------------------------------------- commands
@bp.get("/e/<key>")
@permission("view")
def state(key: str) -> Any:
    response = jsonify(state_of(_evening(key)))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/e/<key>/hands")
@permission("score")
def new_hand(key: str) -> Any:
    body = _body()
    number, token = _int(body, "number", 1), _token(body)
    evening = _evening(key)
    ledger = services.ledger_of(evening)
    facts = _facts(body.get("facts"), ledger, ledger.next_dealer)
    hand = services.record_hand(evening, number, facts, device=access.device_name(), token=token,
                                device_id=access.device_id())
    return _saved(key, hand.id, 201)


@bp.post("/e/<key>/hands/<int:hand_id>/versions")
@permission("score")
def correct(key: str, hand_id: int) -> Any:
    body, evening, ledger, hand, base, token = _correction(key, hand_id, "correct")
    row = ledger.rows[hand.number - 1]
    facts = _facts(body.get("facts"), ledger, row.facts.dealer, row.seated)
    return _correct(evening, hand, base, facts, token, "correct")


@bp.post("/e/<key>/hands/<int:hand_id>/restore")
@permission("score")
def restore(key: str, hand_id: int) -> Any:
    body, evening, ledger, hand, base, token = _correction(key, hand_id, "restore")
    wanted = _int(body, "restore", 1)
    old = next((v for v in hand.versions if v.version == wanted), None)
    if old is None:
        raise Refused(gettext("Hand %(number)s has no version %(version)s.", number=hand.number, version=wanted))
    return _correct(evening, hand, base, services.facts_of(old, ledger.setup.n), token, "restore")


@bp.post("/e/<key>/hands/<int:hand_id>/override")
@permission("score")
def override(key: str, hand_id: int) -> Any:
    body, evening, ledger, hand, base, token = _correction(key, hand_id, "override")
    if "override" not in body:
        raise Refused(gettext("override must be given: the table's figures, or null to remove them."))
    value = body["override"]
    if value is None and ledger.rows[hand.number - 1].facts.override is None:
        raise Refused(gettext("There is no override to remove."))
    return _correct(evening, hand, base, _patched(ledger, hand, "override", value), token, "override")


@bp.post("/e/<key>/hands/<int:hand_id>/claims")
@permission("score")
def claims(key: str, hand_id: int) -> Any:
    body, evening, ledger, hand, base, token = _correction(key, hand_id, "correct")
    value = body.get("claims")
    if not isinstance(value, list):
        raise Refused(gettext("claims must be a list (empty to remove every claim)."))
    dispute = _int(body, "dispute", 1) if "dispute" in body else None  # else the disputes its claims rule on
    saved = disputes.rule_on_hand(evening, hand.number, base, _patched(ledger, hand, "claims", value or None),
                                  device=access.device_name(), token=token, hand_id=hand.id, dispute_id=dispute)
    return _saved(key, hand.id, 201 if saved.version > base else 200)  # the hand corrected, its disputes closed


@bp.post("/e/<key>/hands/<int:hand_id>/play")
@permission("score")
def play(key: str, hand_id: int) -> Any:
    body, evening, ledger, hand, base, token = _correction(key, hand_id, "play")
    row = ledger.rows[hand.number - 1]
    if row.ruling.declarer is None or row.ruling.contract is None:
        raise Refused(gettext("Nobody bid in this hand, so there is no play to record."))
    if not isinstance(body.get("record"), list):
        raise Refused(gettext("record must be a list of tricks, each a list of cards (empty to remove it)."))
    record = _patched(ledger, hand, "record", body["record"] or None).record  # checked as the file's record
    state = PlayState(play_rules(ledger, row), record)
    state.reading  # noqa: B018 - raises RulesError for a record that cannot be read: 422
    return _correct(evening, hand, base, with_record(row, state.tricks), token, "play")


@bp.post("/e/<key>/undo")
@permission("score")
def undo(key: str) -> Any:
    body = _body()
    hand_id, version = _int(body, "hand_id", 1), _int(body, "version", 1)
    evening = _evening(key)
    hand = _hand_in_play(evening, hand_id)
    number = hand.number
    services.undo_last_hand(evening, number, version, device=access.device_name(), hand_id=hand_id)
    evening = _evening(key, fresh=True)
    ledger = services.ledger_of(evening)
    return jsonify(revision=evening.revision, undone={"id": hand_id, "number": number},
                   totals=_totals(ledger)), 200


@bp.post("/e/<key>/settings")
@permission("manage")
def settings(key: str) -> Any:
    body = _body()
    revision = _int(body, "revision")
    evening = _evening(key)
    name, place = _text(body, "name", evening.name), _text(body, "place", evening.place or "")
    options = body.get("options", dict(evening.options or {}))
    if not isinstance(options, dict):
        raise Refused(gettext("options must be a JSON object."))
    services.change_settings(evening, revision, name=name, place=place, options=options,
                             device=access.device_name())
    evening = _evening(key, fresh=True)
    ledger = services.ledger_of(evening)
    return jsonify(revision=evening.revision, name=evening.name, place=evening.place,
                   options=dict(evening.options or {}), totals=_totals(ledger)), 200


def _set_finished(key: str, finished: bool) -> Any:
    body = _body()
    revision = _int(body, "revision")
    services.set_finished(_evening(key), finished, device=access.device_name(), base_revision=revision)
    evening = _evening(key, fresh=True)
    return jsonify(revision=evening.revision, finished=evening.finished_at is not None), 200


@bp.post("/e/<key>/finish")
@permission("manage")
def finish(key: str) -> Any:
    return _set_finished(key, True)


@bp.post("/e/<key>/reopen")
@permission("manage")
def reopen(key: str) -> Any:
    return _set_finished(key, False)


# --------------------------------------------------------------------------- people come and go
def _seated_answer(key: str, change: dict[str, Any] | None, status: int) -> Any:
    evening = _evening(key, fresh=True)
    ledger = services.ledger_of(evening)
    names = ledger.setup.players
    out: dict[str, Any] = {"revision": evening.revision, "seated": [names[s] for s in ledger.seated],
                           "next_dealer": names[ledger.next_dealer], "totals": _totals(ledger)}
    if change is not None:
        out["change"] = change
    return jsonify(out), status


@bp.post("/e/<key>/seats")
@permission("score")
def seats(key: str) -> Any:
    """A player joins (``{"join": name, "left_of": name}``), leaves (``{"leave": name}``) or is
    renamed (``{"rename": name, "to": new name}``) before the next hand; ``revision`` is the
    table's revision the client saw."""
    body = _body()
    revision = _int(body, "revision")
    evening = _evening(key)
    names = [p.name for p in evening.players]
    seat_of = seat_reader(names)
    kinds = [k for k in ("join", "leave", "rename") if k in body]
    if len(kinds) != 1:
        raise Refused(gettext("Send one of join (with left_of), leave or rename (with to)."))
    kind = kinds[0]
    if kind == "join":
        change = services.change_seats(evening, "join", name=_text(body, "join", "", 40),
                                       left_of=seat_of(body.get("left_of"), "left_of"), base_revision=revision,
                                       device=access.device_name())
    elif kind == "leave":
        change = services.change_seats(evening, "leave", seat=seat_of(body.get("leave"), "leave"),
                                       base_revision=revision, device=access.device_name())
    else:
        change = services.change_seats(evening, "rename", seat=seat_of(body.get("rename"), "rename"),
                                       name=_text(body, "to", "", 40), base_revision=revision,
                                       device=access.device_name())
    fresh = _evening(key, fresh=True)
    return _seated_answer(key, dump_seat_change(change, [p.name for p in fresh.players]), 201)


@bp.post("/e/<key>/seats/undo")
@permission("score")
def undo_seats(key: str) -> Any:
    """Undo the last change of seats (it must have no hand after it, unless it is a rename)."""
    body = _body()
    revision = _int(body, "revision")
    services.undo_seat_change(_evening(key), None, base_revision=revision, device=access.device_name())
    return _seated_answer(key, None, 200)
