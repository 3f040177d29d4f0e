"""Reading an evening's facts for the engine: its set-up, its hands' current facts, its
ledger (kept across requests where it can be, :mod:`scorer.storage.kept_ledgers`) and
whether it is closed. No writes here: they are commands (:mod:`scorer.storage.commands`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.orm import joinedload, object_session

from ..evening.codec import decode_hand, encode_hand
from ..evening.ledger import Ledger, settle_evening
from ..rules import EveningSetup, HandFacts, SeatChange
from . import kept_ledgers as settled
from . import units
from .models import Change, Evening, Hand, HandVersion, db

__all__ = ["seat_changes_of", "setup_of", "facts_of", "current_facts", "ledger_of", "is_closed", "normalise",
           "log", "history", "after_write", "version_of"]


def seat_changes_of(evening: Evening) -> list[SeatChange]:
    """The evening's seat changes in play (not undone), in order, as the engine's facts."""
    return settled.seat_changes_of(evening)


def setup_of(evening: Evening, changes: Sequence[SeatChange] | None = None) -> EveningSetup:
    """The engine's view of an evening's set-up: every player who sits at the table during
    the evening (by :attr:`~scorer.storage.models.Player.seat`), those at the first deal ``seated``
    (the others join by one of ``changes``, by default the evening's)."""
    return settled.setup_of(evening, changes)


def facts_of(version: HandVersion, n: int) -> HandFacts:
    """The engine's view of one recorded version of a hand at a table of ``n`` players."""
    return decode_hand(version.facts, n)


def current_facts(evening: Evening) -> list[HandFacts]:
    """The current facts of every hand in play, in order."""
    n = len(evening.players)
    return [facts_of(h.current, n) for h in evening.hands]


def ledger_of(evening: Evening) -> Ledger:
    """Settle the evening (loaded with its hands) from its current facts: the same
    ledger as :func:`~scorer.evening.ledger.settle_evening` of :func:`current_facts` and
    :func:`seat_changes_of`. Without a change of seats in play it reuses this process's
    kept ledger for the hands it shares (:mod:`scorer.storage.kept_ledgers`); with one (issue 12) it
    settles the whole evening every time, which is simple and safe.
    Raises :class:`~scorer.evening.ledger.HandError` for a stored hand the rules refuse.
    The pages of the service worker's warm-up share one evening and settle it once
    (:func:`scorer.storage.units.shared_of`)."""
    return units.shared_of(evening, "ledger", lambda: _ledger_of(evening))


def _ledger_of(evening: Evening) -> Ledger:
    if units.shared_evening(evening.key) is evening and "hands" not in evening.__dict__:
        return _warm(evening).ledger
    changes = seat_changes_of(evening)
    setup = setup_of(evening, changes)
    if changes or not settled.resumable_setup(setup):
        return settle_evening(setup, current_facts(evening), changes)
    return settled.ledger_of_loaded(evening, setup)


def _warm(evening: Evening) -> settled.Settled:
    """The warm-up's evening (:func:`scorer.storage.units.sharing_evening`, read without its
    hands) settled at the revision it was read at: the kept ledger with no query when this
    process keeps it (the phone that saved the hand has handed it over), else read as the
    scoresheet reads it (:func:`scorer.storage.kept_ledgers.settled`), never from the ORM's hands."""
    def read() -> settled.Settled:
        found = settled.settled(evening.key, head=settled.head_row(evening))
        assert found is not None  # just read; evenings are never deleted
        return found
    return units.shared_of(evening, "settled", read)


def hand_in_play(evening: Evening, number: int) -> Hand:
    """``evening.hands[number - 1]``, hand ``number`` in play (a number its ledger has, with
    its versions). The warm-up's evening has not read its hands: that hand alone is read, by
    the row id its ledger was settled from, in the evening's own session, once for the pages
    that show it (its page and its correction form)."""
    if units.shared_evening(evening.key) is not evening or "hands" in evening.__dict__:
        return evening.hands[number - 1]
    hand_id = _warm(evening).fingerprint[number - 1][0]
    session = object_session(evening)
    assert session is not None

    def read() -> Hand:
        found = session.scalar(sa.select(Hand).where(Hand.id == hand_id).options(joinedload(Hand.versions)))
        assert found is not None  # hands are never deleted
        return found
    return units.shared_of(evening, f"hand {number}", read)


def is_closed(evening: Evening, ledger: Ledger) -> bool:
    """Closed by the table, or the agreed number of hands is played (P-14)."""
    return evening.finished_at is not None or ledger.end_reached


def normalise(facts: HandFacts) -> HandFacts:
    """A misdeal keeps no auction, tricks or other facts (nothing else about it counts);
    its override and its note stay."""
    if facts.misdeal:
        return HandFacts(facts.dealer, misdeal=True, override=facts.override, note=facts.note)
    return facts


def version_of(number: int, facts: HandFacts) -> HandVersion:
    """A new version ``number`` of a hand, with ``facts``."""
    return HandVersion(version=number, facts=encode_hand(facts))


def log(evening: Evening, kind: str, number: int | None, before: HandFacts | None, after: HandFacts | None,
        device: str, players: tuple[str, ...] | None = None, *, at_once: bool = False) -> None:
    """Add one history entry to the pending transaction (see :class:`~scorer.storage.models.Change`);
    ``players``: their names, when known without reading the evening's players. ``at_once``:
    inserted now, with no ORM object (the unit of work's flush costs more than the row), for
    a write that has flushed what it had pending (the entries keep their order)."""
    players = tuple(p.name for p in evening.players) if players is None else players
    row = {"evening_id": evening.id, "kind": kind, "hand_number": number, "device": (device or "")[:40],
           "before": None if before is None else encode_hand(before, players),
           "after": None if after is None else encode_hand(after, players)}
    if at_once:
        db.session.connection().execute(sa.insert(Change), row)
    else:
        db.session.add(Change(**row))


def history(evening: Evening, limit: int = 500) -> list[Change]:
    """The evening's changes, newest first."""
    return list(db.session.scalars(
        sa.select(Change).where(Change.evening_id == evening.id).order_by(Change.id.desc()).limit(limit)))


#: a hand that reached the server later than this after it was played waited on the phone
LATE = timedelta(minutes=1)


def as_utc(when: datetime) -> datetime:
    """``when`` with its zone (a database without zones gives it back naive: UTC)."""
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def played_late(version: HandVersion) -> datetime | None:
    """When the phone says ``version`` (a hand's first) was played, if it reached the server
    more than :data:`LATE` from then (it waited in the phone's outbox); else ``None``."""
    if version.played_at is None:
        return None
    played = as_utc(version.played_at)
    return played if abs(as_utc(version.created_at) - played) > LATE else None


def played_by_change(evening: Evening, changes: Sequence[Change]) -> dict[int, datetime]:
    """``{change id: when the phone played it}`` for each "new" change of ``changes`` (the
    history, :func:`history`) whose hand reached the server late (:func:`played_late`). A
    change names its hand by its place, which an undone hand gives back: the hands that had
    a place and the "new" changes of that place are paired newest with newest."""
    news: dict[int, list[Change]] = {}
    for c in sorted(changes, key=lambda c: c.id):
        if c.kind == "new" and c.hand_number:
            news.setdefault(c.hand_number, []).append(c)
    if not news:
        return {}
    firsts = db.session.execute(
        sa.select(Hand.number, Hand.undone_number, HandVersion).join(HandVersion, HandVersion.hand_id == Hand.id)
        .where(Hand.evening_id == evening.id, HandVersion.version == 1).order_by(Hand.id)).all()
    placed: dict[int, list[HandVersion]] = {}
    for number, undone_number, version in firsts:
        placed.setdefault(number if number > 0 else (undone_number or 0), []).append(version)
    found = {}
    for number, made in news.items():
        for change, version in zip(reversed(made), reversed(placed.get(number, [])), strict=False):
            when = played_late(version)
            if when is not None:
                found[change.id] = when
    return found


def after_write(evening: Evening, revision: int, ledger: Ledger, fingerprint: settled.Fingerprint,
                players: tuple[str, ...] | None = None) -> tuple[settled.EveningHead, Ledger, settled.Fingerprint]:
    """What :func:`scorer.storage.kept_ledgers.remember` keeps once the write to ``evening`` (locked,
    its revision bumped once, to ``revision``) commits: read before the commit, which
    expires the ORM's objects. ``players``: as :func:`scorer.storage.kept_ledgers.head_of`."""
    return dataclasses.replace(settled.head_of(evening, players), revision=revision), ledger, fingerprint
