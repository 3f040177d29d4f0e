"""Who ruled on a hand's claims from the referee's desk, and how (issue 22 item 5): read
only, for the hand's page and the event's PDF. The referee's commands are in
:mod:`scorer.storage.referees`."""

from __future__ import annotations

import sqlalchemy as sa

from .evenings import facts_of
from .models import Dispute, Evening, Hand, db
from .referee_models import Referee, RefereeCall


def claim_referees(evening_id: int, hand_id: int) -> dict[tuple[str, int | None], str]:
    """The referee who ruled from the desk on each claim (kind, accused seat) of hand
    ``hand_id`` of table ``evening_id``, by name (the hand's page names them)."""
    rows = db.session.execute(
        sa.select(Dispute.kind, Dispute.accused, Referee.name)
        .join(RefereeCall, RefereeCall.dispute_id == Dispute.id).join(Referee, Referee.id == RefereeCall.closed_by)
        .where(RefereeCall.evening_id == evening_id, RefereeCall.outcome == "ruled", Dispute.hand_id == hand_id)
        .order_by(RefereeCall.id))
    return {(kind, accused): name for kind, accused, name in rows}


def ruled_upheld(call: RefereeCall) -> bool | None:
    """Whether the claim call ``call`` ruled on stands upheld in its hand now (``False``:
    rejected); ``None`` when the call ruled on no claim (closed otherwise, a misdeal, a
    wrong score, or the claim is no longer among the hand's claims)."""
    if call.outcome != "ruled" or call.dispute_id is None:
        return None
    dispute = db.session.get(Dispute, call.dispute_id)
    hand = db.session.get(Hand, dispute.hand_id) if dispute is not None else None
    evening = db.session.get(Evening, call.evening_id)
    if dispute is None or hand is None or evening is None:
        return None
    claims = facts_of(hand.current, len(evening.players)).claims
    return next((c.upheld for c in claims if (c.kind, c.accused) == (dispute.kind, dispute.accused)), None)
