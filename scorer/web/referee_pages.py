"""What the referee's pages and JSON commands share (issue 22 item 5; :mod:`scorer.web.views.referee`,
:mod:`scorer.web.views.api_referee`): the event of a URL, the referees' names, the hand's
facts with a dispute's claim ruled (as a scorer's "Rule on it" fills the form), and the
open calls as the room screen shows them (the hook it asks for)."""

from __future__ import annotations

import dataclasses
from typing import Any

from flask import abort
from flask_babel import gettext

from ..rules import Claim, HandFacts
from ..storage import disputes, evenings, referees
from ..storage import events as events_storage
from ..storage.models import Dispute, Evening, db


def event_or_404(key: str) -> Any:
    """The event with URL key ``key``, else a 404."""
    event = referees.event_by_key(key)
    if event is None:
        abort(404)
    return event


def referee_names(event_id: int) -> dict[int, str]:
    """The event's referees' names by row id (revoked ones too: the history names them)."""
    return {r.id: r.name for r in referees.referees(event_id)}


def ruling_facts(evening: Evening, dispute_id: int, hand_id: int, base: int, upheld: bool) -> HandFacts | None:
    """The hand's facts (version ``base``) with the dispute's claim ``upheld`` or not put
    first, as "Rule on it" fills the form; ``None`` for a dispute that names no claim (a
    misdeal, a wrong score) or none of this hand (the command then says what is wrong)."""
    dispute = db.session.get(Dispute, dispute_id) if 0 < dispute_id < 2**31 else None
    hand = next((h for h in evening.hands if h.id == hand_id), None)
    if dispute is None or hand is None or dispute.hand_id != hand_id:
        return None
    if dispute.kind not in disputes.ACCUSING or dispute.accused is None:
        return None
    seen = next((v for v in hand.versions if v.version == base), hand.current)
    current = evenings.facts_of(seen, len(evening.players))
    claim = Claim(dispute.kind, dispute.accused, upheld, by=dispute.raised_by, trick=dispute.trick)
    return dataclasses.replace(current, claims=(claim, *current.claims))


# --------------------------------------------------------------------------- the room screen
def room_calls(event: Any) -> list[str]:
    """The open calls as the room screen shows them, in the phone's language ("Table 3:
    dispute on hand 7 · Mary is coming"), oldest first; no PIN, no link, no note (the
    note is the table's, not the room's)."""
    names = referee_names(event.id)
    shown = []
    for found in referees.calls(event.id, open_only=True):
        line = (gettext("Table %(table)s: dispute on hand %(n)s", table=found.table_number, n=found.hand_number)
                if found.hand_number else gettext("Table %(table)s calls the referee", table=found.table_number))
        if found.taken_by is not None:
            line += " · " + gettext("%(name)s is coming.", name=names.get(found.taken_by, "?"))
        shown.append(line)
    return shown


# The room screen (scorer.web.views.events.room) shows the lines of every hook in
# ``events.ROOM_CALLS``: this is the referee's, added once as the web layer loads.
if room_calls not in events_storage.ROOM_CALLS:
    events_storage.ROOM_CALLS.append(room_calls)
