"""JSON commands of disputes and confirmation (``docs/api.md``), over the same storage
functions as the forms of :mod:`scorer.web.views.disputes`, with the same permissions:
any phone disputes a hand or confirms one another phone entered; a scorer dismisses
or rules on a dispute; a manager turns confirmation on or off."""

from __future__ import annotations

import dataclasses
from typing import Any

from flask import abort, jsonify, request
from flask_babel import gettext

from ...evening.file import check_hand, read_hand
from ...rules import Claim, Text
from ...storage import disputes, errors, evenings, units
from ...storage.commands import CorrectHand, Saved, execute
from ...storage.models import Dispute, Evening, Hand, db
from .. import access
from ..access import permission
from ..answers import json_answer, sender
from ..api_support import Refused, body, evening_of, flag, integer, json_blueprint, run, seat, text, token

bp = json_blueprint("api_disputes", __name__)


@bp.errorhandler(errors.AlreadySaved)
def _on_retry(error: errors.AlreadySaved) -> Any:
    """A ruling sent again with its token (two at once): what the first one saved."""
    args = request.view_args or {}
    return _answer(args.get("key", ""), args.get("dispute_id", 0), 200)


def dispute_of(dispute: Dispute, evening: Evening) -> dict[str, Any]:
    """A dispute as the commands answer it (players by name)."""
    names = [p.name for p in evening.players]
    hand = db.session.get(Hand, dispute.hand_id)
    return {"id": dispute.id, "hand_id": dispute.hand_id, "number": hand.number if hand is not None else 0,
            "kind": dispute.kind, "accused": None if dispute.accused is None else names[dispute.accused],
            "raised_by": None if dispute.raised_by is None else names[dispute.raised_by], "trick": dispute.trick,
            "note": dispute.note, "resolution": dispute.resolution or None}


def _hand(evening: Evening, hand_id: int) -> Hand:
    """The hand in play with row id ``hand_id``: a conflict when it was undone, 404 if never here."""
    hand = next((h for h in evening.hands if h.id == hand_id), None)
    if hand is not None:
        return hand
    gone = db.session.get(Hand, hand_id) if 0 < hand_id < 2**31 else None
    if gone is None or gone.evening_id != evening.id:
        abort(404)
    raise errors.HandConflict(Text("Hand {number} is no longer in play (it was undone on another phone); "
                                     "nothing was saved.", number=gone.undone_number or 0), gone.undone_number or 0)


def _dispute(evening: Evening, dispute_id: int) -> Dispute:
    dispute = db.session.get(Dispute, dispute_id) if 0 < dispute_id < 2**31 else None
    if dispute is None or dispute.evening_id != evening.id:
        abort(404)
    return dispute


def _answer(key: str, dispute_id: int, status: int) -> Any:
    evening = units.get_evening(key, fresh=True)
    dispute = db.session.get(Dispute, dispute_id, populate_existing=True)
    assert evening is not None and dispute is not None
    return jsonify(revision=evening.revision, dispute=dispute_of(dispute, evening)), status


@bp.post("/e/<key>/hands/<int:hand_id>/disputes")
@permission("view")
def raise_dispute(key: str, hand_id: int) -> Any:
    """Dispute a hand (any phone, a viewer's included)."""
    data = body()
    once = token(data)
    evening = evening_of(key)
    names = [p.name for p in evening.players]
    kind = text(data, "kind", "", 20)
    accused, raised_by = seat(data, "accused", names), seat(data, "raised_by", names)
    trick = None if data.get("trick") is None else integer(data, "trick", 1)
    note = text(data, "note", "", 200)
    number = _hand(evening, hand_id).number
    saved, fresh = run("dispute", once, lambda: disputes.raise_dispute(
        evening, number, hand_id=hand_id, kind=kind, accused=accused, raised_by=raised_by, trick=trick, note=note,
        device=access.device_name(), device_id=access.device_id()).id, evening_id=evening.id, hand_id=hand_id)
    if saved is None:  # a retry: the dispute of that kind the first one raised
        saved = db.session.scalar(db.select(Dispute.id).where(Dispute.hand_id == hand_id, Dispute.kind == kind)
                                  .order_by(Dispute.id.desc()).limit(1))
        if saved is None:
            abort(404)
    return _answer(key, saved, 201 if fresh else 200)


@bp.post("/e/<key>/disputes/<int:dispute_id>/dismiss")
@permission("score")
def dismiss(key: str, dispute_id: int) -> Any:
    """A scorer finds nothing to change: the dispute is closed, the hand stands."""
    once = token(body())
    evening = evening_of(key)
    dispute = _dispute(evening, dispute_id)

    def do() -> None:
        if db.session.get(Dispute, dispute.id, populate_existing=True).resolved_at is not None:  # type: ignore[union-attr]
            raise errors.HandConflict(Text("This dispute was ruled on or dismissed on another phone; nothing "
                                             "was changed."), 0)
        disputes.settle_dispute(evening, dispute_id, "dismissed", device=access.device_name())

    run("dismiss", once, do, evening_id=evening.id)
    return _answer(key, dispute_id, 200)


@bp.post("/e/<key>/disputes/<int:dispute_id>/rule")
@permission("score")
def rule(key: str, dispute_id: int) -> Any:
    """Rule on a dispute: the hand is corrected and the dispute closed, in one unit of
    work. ``upheld`` (true or false) puts the dispute's claim in the hand's facts with
    the table's decision (a revoke, wrong cards, play out of turn); ``facts`` replaces
    the hand's facts (any dispute: a misdeal, a wrong score)."""
    data = body()
    base, once = integer(data, "version", 1), token(data)
    evening = evening_of(key)
    dispute = _dispute(evening, dispute_id)
    hand = _hand(evening, dispute.hand_id)
    facts = _ruling(data, evening, hand, dispute)
    outcome = execute(CorrectHand(key, hand.id, base, once, hand.number, facts=facts, dispute_id=dispute_id),
                      device=sender())  # the correction and the close: one unit of work

    def saved(done: Saved, status: int) -> Any:
        fresh = units.get_evening(key, fresh=True)
        closed = db.session.get(Dispute, dispute_id, populate_existing=True)
        assert fresh is not None and closed is not None
        return jsonify(revision=fresh.revision, dispute=dispute_of(closed, fresh),
                       hand={"id": hand.id, "number": hand.number, "version": done.version}), status

    return json_answer(key, outcome, saved, 201)


def _ruling(data: dict[str, Any], evening: Evening, hand: Hand, dispute: Dispute) -> Any:
    """The hand's facts after the ruling (see :func:`rule`)."""
    names = [p.name for p in evening.players]
    current = evenings.facts_of(hand.current, len(names))
    if ("upheld" in data) == ("facts" in data):
        raise Refused(gettext("Send upheld (true or false) or facts (the corrected hand), not both."))
    if "facts" in data:
        check_hand(data["facts"], "facts")
        return read_hand(data["facts"], names, dealer=current.dealer, where="facts")
    upheld = flag(data, "upheld")
    if dispute.kind not in disputes.ACCUSING or dispute.accused is None:
        raise Refused(gettext("This dispute names no claim: send the corrected hand as facts."))
    claim = Claim(dispute.kind, dispute.accused, upheld, by=dispute.raised_by, trick=dispute.trick)
    return dataclasses.replace(current, claims=(claim, *current.claims))


@bp.post("/e/<key>/hands/<int:hand_id>/confirm")
@permission("view")
def confirm(key: str, hand_id: int) -> Any:
    """Accept a hand another phone entered (the table asks for confirmation)."""
    once = token(body())
    evening = evening_of(key)
    number = _hand(evening, hand_id).number
    run("confirm", once, lambda: disputes.confirm_hand(evening, number, hand_id=hand_id, device=access.device_name(),
                                                       device_id=access.device_id()),
        evening_id=evening.id, hand_id=hand_id)
    evening = units.get_evening(key, fresh=True)
    assert evening is not None
    hand = next((h for h in evening.hands if h.id == hand_id), None)
    if hand is None:  # a retry after the hand was undone
        abort(404)
    return jsonify(revision=evening.revision, hand={"id": hand.id, "number": hand.number,
                                                    "confirmed": hand.confirmed_at is not None}), 200


@bp.post("/e/<key>/confirmation")
@permission("manage")
def confirmation(key: str) -> Any:
    """Turn confirmation on or off for the table."""
    data = body()
    on, once = flag(data, "on"), token(data)
    evening = evening_of(key)
    run("confirmation", once, lambda: disputes.set_confirmation(evening, on, device=access.device_name()),
        evening_id=evening.id)
    evening = units.get_evening(key, fresh=True)
    assert evening is not None
    return jsonify(revision=evening.revision, confirmation=evening.confirmation), 200
