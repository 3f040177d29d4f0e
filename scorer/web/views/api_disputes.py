"""JSON commands of disputes and confirmation (``docs/api.md``), the same commands as
the forms of :mod:`scorer.web.views.disputes` (:mod:`scorer.storage.disputes`), with
the same permissions: any phone disputes a hand or confirms one another phone entered;
a scorer dismisses or rules on a dispute; a manager turns confirmation on or off.
Each route reads its body into a command, runs it (:func:`~scorer.storage.commands.execute`)
and answers its outcome (:func:`~scorer.web.answers.json_answer`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from flask import abort, jsonify
from flask_babel import gettext

from ...evening.file import check_hand, read_hand
from ...rules import Claim, HandFacts
from ...storage import disputes, evenings
from ...storage.commands import CorrectHand, Saved, execute
from ...storage.disputes import ConfirmHand, DismissDispute, RaiseDispute, SetConfirmation
from ...storage.models import Dispute, Evening, Hand, db
from ..answers import dispute_of, fresh_evening, json_answer, sender
from ..json_body import BadBody, body, flag, integer, json_blueprint, seat, text, token
from ..permissions import permission
from .common import evening_or_404

bp = json_blueprint("api_disputes", __name__)


def _known_hand(evening: Evening, hand_id: int) -> None:
    """404 for a hand never at this table (one undone since is the command's conflict)."""
    hand = db.session.get(Hand, hand_id) if 0 < hand_id < 2**31 else None
    if hand is None or hand.evening_id != evening.id:
        abort(404)


def _dispute(evening: Evening, dispute_id: int) -> Dispute:
    dispute = db.session.get(Dispute, dispute_id) if 0 < dispute_id < 2**31 else None
    if dispute is None or dispute.evening_id != evening.id:
        abort(404)
    return dispute


def _dispute_answer(dispute_id: int | None = None) -> Any:
    """What a dispute command answers: the revision and the dispute (``dispute_id``, else
    the one the command saved, else, for a retry, the one of that kind it raised)."""

    def answer(saved: Saved, status: int) -> Any:
        evening = fresh_evening(saved.key)
        wanted = dispute_id or saved.detail
        if wanted is None:  # a retry of a raise: the dispute of that kind the first one raised
            wanted = db.session.scalar(db.select(Dispute.id).where(
                Dispute.hand_id == saved.hand_id, Dispute.kind == str(body().get("kind")))
                .order_by(Dispute.id.desc()).limit(1))
        dispute = db.session.get(Dispute, wanted, populate_existing=True) if wanted else None
        if dispute is None:
            abort(404)
        return jsonify(revision=evening.revision, dispute=dispute_of(dispute, evening)), status

    return answer


@bp.post("/e/<key>/hands/<int:hand_id>/disputes")
@permission("view")
def raise_dispute(key: str, hand_id: int) -> Any:
    """Dispute a hand (any phone, a viewer's included)."""
    data = body()
    once = token(data)
    evening = evening_or_404(key)
    _known_hand(evening, hand_id)
    names = [p.name for p in evening.players]
    command = RaiseDispute(key, hand_id, text(data, "kind", "", 20), accused=seat(data, "accused", names),
                           raised_by=seat(data, "raised_by", names),
                           trick=None if data.get("trick") is None else integer(data, "trick", 1),
                           note=text(data, "note", "", 200), token=once)
    return json_answer(key, execute(command, device=sender()), _dispute_answer(), 201)


@bp.post("/e/<key>/disputes/<int:dispute_id>/dismiss")
@permission("score")
def dismiss(key: str, dispute_id: int) -> Any:
    """A scorer finds nothing to change: the dispute is closed, the hand stands."""
    once = token(body())
    _dispute(evening_or_404(key), dispute_id)
    outcome = execute(DismissDispute(key, dispute_id, once), device=sender())
    return json_answer(key, outcome, _dispute_answer(dispute_id), 200)


@bp.post("/e/<key>/disputes/<int:dispute_id>/rule")
@permission("score")
def rule(key: str, dispute_id: int) -> Any:
    """Rule on a dispute: the hand's correction carrying the dispute, which it closes in
    its unit of work. ``upheld`` (true or false) puts the dispute's claim in the hand's
    facts with the table's decision (a revoke, wrong cards, play out of turn); ``facts``
    replaces the hand's facts (any dispute: a misdeal, a wrong score)."""
    data = body()
    base, once = integer(data, "version", 1), token(data)
    evening = evening_or_404(key)
    dispute = _dispute(evening, dispute_id)
    hand = next((h for h in evening.hands if h.id == dispute.hand_id), None)
    number = hand.number if hand is not None else None  # undone: the command's conflict
    facts = _ruling(data, evening, hand, dispute, base) if hand is not None else None
    outcome = execute(CorrectHand(key, dispute.hand_id, base, once, number, facts=facts, dispute_id=dispute_id),
                      device=sender())

    def saved(done: Saved, status: int) -> Any:
        fresh = fresh_evening(key)
        closed = db.session.get(Dispute, dispute_id, populate_existing=True)
        assert closed is not None
        ruled = db.session.get(Hand, dispute.hand_id)
        return jsonify(revision=fresh.revision, dispute=dispute_of(closed, fresh),
                       hand={"id": dispute.hand_id, "number": ruled.number if ruled else number,
                             "version": ruled.current.version if ruled else done.version}), status

    return json_answer(key, outcome, saved, 201)


def _ruling(data: dict[str, Any], evening: Evening, hand: Hand, dispute: Dispute, base: int) -> HandFacts:
    """The hand's facts after the ruling (see :func:`rule`), made from version ``base``,
    the one the phone saw (a retry after it was saved: the same command again)."""
    names = [p.name for p in evening.players]
    seen = next((v for v in hand.versions if v.version == base), hand.current)
    current = evenings.facts_of(seen, len(names))
    if ("upheld" in data) == ("facts" in data):
        raise BadBody(gettext("Send upheld (true or false) or facts (the corrected hand), not both."))
    if "facts" in data:
        check_hand(data["facts"], "facts")  # a body that is no hand: 422 before any command (json_blueprint)
        return read_hand(data["facts"], names, dealer=current.dealer, where="facts")
    upheld = flag(data, "upheld")
    if dispute.kind not in disputes.ACCUSING or dispute.accused is None:
        raise BadBody(gettext("This dispute names no claim: send the corrected hand as facts."))
    claim = Claim(dispute.kind, dispute.accused, upheld, by=dispute.raised_by, trick=dispute.trick)
    return dataclasses.replace(current, claims=(claim, *current.claims))


@bp.post("/e/<key>/hands/<int:hand_id>/confirm")
@permission("view")
def confirm(key: str, hand_id: int) -> Any:
    """Accept a hand another phone entered (the table asks for confirmation)."""
    once = token(body())
    _known_hand(evening_or_404(key), hand_id)

    def saved(done: Saved, status: int) -> Any:
        evening = fresh_evening(key)
        hand = next((h for h in evening.hands if h.id == hand_id), None)
        if hand is None:  # a retry after the hand was undone
            abort(404)
        return jsonify(revision=evening.revision, hand={"id": hand.id, "number": hand.number,
                                                        "confirmed": hand.confirmed_at is not None}), status

    return json_answer(key, execute(ConfirmHand(key, hand_id, token=once), device=sender()), saved, 200)


@bp.post("/e/<key>/confirmation")
@permission("manage")
def confirmation(key: str) -> Any:
    """Turn confirmation on or off for the table."""
    data = body()
    command = SetConfirmation(key, flag(data, "on"), token(data))

    def saved(done: Saved, status: int) -> Any:
        evening = fresh_evening(key)
        return jsonify(revision=evening.revision, confirmation=evening.confirmation), status

    return json_answer(key, execute(command, device=sender()), saved, 200)

