"""What a stored evening's hands are, read in one statement: its revision, the
``(hand id, version)`` of every hand in play (its :data:`Fingerprint`), its players, the
marks the scoresheet shows (:class:`HandMarks`), and the facts of the hands saved since a
kept ledger (:func:`fingerprints`); the facts of any other hand versions
(:func:`hand_facts`). :mod:`scorer.storage.kept_ledgers` decides from these what of a kept
ledger it can reuse."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from ..evening.codec import decode_hand
from ..rules import HandFacts
from .models import HandVersion, db

#: ``(hand id, version)`` of every hand in play, in order: what a ledger was folded from.
Fingerprint = tuple[tuple[int, int], ...]


#: See :func:`fingerprints`. Plain SQL (the same on SQLite and PostgreSQL): SQLAlchemy
#: would spend more time building the key of a three-part UNION than the database runs it.
FINGERPRINTS = sa.text(
    "WITH e AS (SELECT id, revision, confirmation FROM evening WHERE id IN :ids) "
    "SELECT 0, e.id, 0, e.revision, NULL FROM e "
    "UNION ALL SELECT 1, h.evening_id, h.number, h.id, NULL FROM hand h JOIN e ON h.evening_id = e.id "
    "WHERE h.number > 0 "
    "UNION ALL SELECT 2, h.evening_id, v.hand_id, max(v.version), NULL FROM hand_version v "
    "JOIN hand h ON h.id = v.hand_id JOIN e ON h.evening_id = e.id WHERE h.number > 0 AND v.version > 1 "
    "GROUP BY h.evening_id, v.hand_id "
    "UNION ALL SELECT 3, s.evening_id, count(*), 0, NULL FROM seat_change s JOIN e ON s.evening_id = e.id "
    "WHERE s.undone_at IS NULL GROUP BY s.evening_id "
    "UNION ALL SELECT 4, p.evening_id, p.seat, 0, p.name FROM player p JOIN e ON p.evening_id = e.id "
    "UNION ALL SELECT 5, d.evening_id, d.hand_id, CASE WHEN d.resolved_at IS NULL THEN 1 ELSE 0 END, NULL "
    "FROM dispute d JOIN e ON d.evening_id = e.id "
    "UNION ALL SELECT 6, h.evening_id, h.id, 0, NULL FROM hand h JOIN e ON h.evening_id = e.id "
    "WHERE e.confirmation AND h.number > 0 AND h.confirmed_at IS NULL "
    "UNION ALL SELECT 7, h.evening_id, v.hand_id, v.version, CAST(v.facts AS TEXT) FROM hand h "
    "JOIN e ON h.evening_id = e.id JOIN hand_version v ON v.hand_id = h.id WHERE h.number > 0 AND h.id > :after"
).bindparams(sa.bindparam("ids", expanding=True, type_=sa.Integer))


@dataclass(frozen=True)
class HandMarks:
    """What the scoresheet marks on an evening's hands, by hand row id, read with its
    fingerprint (so at the same revision): the hands with an open dispute, those ever
    disputed, and those not confirmed yet (only when the table asks for confirmation,
    else empty). See :func:`scorer.storage.disputes.marks`."""

    open: frozenset[int]
    disputed: frozenset[int]
    unconfirmed: frozenset[int]


@dataclass(frozen=True)
class Printed:
    """What :func:`fingerprints` reads of the evenings: by evening id, the revision and
    fingerprint (``(revision, ((hand id, version), …))``), the players' names in seat
    order and the marks; the ids of the evenings with a change of seats in play; and by
    ``(hand id, version)`` the facts (JSON text) of the hands saved since ``after``."""

    prints: dict[int, tuple[int, Fingerprint]]
    players: dict[int, tuple[str, ...]]
    seats: set[int]
    marks: dict[int, HandMarks]
    facts: dict[tuple[int, int], str]


def fingerprints(ids: Sequence[int], after: int) -> Printed:
    """Each evening's revision and ``(hand id, version)`` of its hands in play, read in one
    statement (one snapshot, on PostgreSQL too): the revision belongs to those hands.
    Rows: the revision (kind 0); every hand in play, ``(number, id)`` (kind 1); the
    current version of each hand corrected at least once (kind 2): a hand without one
    is at version 1 (a version is never deleted); the evenings with a change of seats in
    play (kind 3); each player, ``(seat, name)`` (kind 4: a change of seats may add one or
    rename one); each dispute, ``(hand id, open)`` (kind 5); each hand in play not yet
    confirmed when the table asks for confirmation (kind 6); and the facts (JSON text) of
    every version of the hands in play whose row id is above ``after`` (kind 7: the hands
    saved since a kept ledger, so that a new hand costs no query more)."""
    revision: dict[int, int] = {}
    seats: set[int] = set()
    numbered: dict[int, list[tuple[int, int]]] = {}
    versions: dict[int, int] = {}
    seated: dict[int, list[tuple[int, str]]] = {}
    disputes: dict[int, list[tuple[int, int]]] = {}
    unconfirmed: dict[int, set[int]] = {}
    facts: dict[tuple[int, int], str] = {}
    for kind, evening_id, a, b, name in db.session.execute(FINGERPRINTS, {"ids": list(ids), "after": after}):
        if kind == 7:
            facts[a, b] = name
        elif kind == 0:
            revision[evening_id] = b
        elif kind == 1:
            numbered.setdefault(evening_id, []).append((a, b))
        elif kind == 2:
            versions[a] = b
        elif kind == 3:
            seats.add(evening_id)
        elif kind == 4:
            seated.setdefault(evening_id, []).append((a, name))
        elif kind == 5:
            disputes.setdefault(evening_id, []).append((a, b))
        else:
            unconfirmed.setdefault(evening_id, set()).add(a)
    prints = {}
    for evening_id, value in revision.items():
        hands = sorted(numbered.get(evening_id, ()))
        prints[evening_id] = (value, tuple((hand_id, versions.get(hand_id, 1)) for _, hand_id in hands))
    players = {evening_id: tuple(name for _, name in sorted(names)) for evening_id, names in seated.items()}
    marks = {evening_id: HandMarks(frozenset(h for h, is_open in disputes.get(evening_id, ()) if is_open),
                                   frozenset(h for h, _ in disputes.get(evening_id, ())),
                                   frozenset(unconfirmed.get(evening_id, ()))) for evening_id in revision}
    return Printed(prints, players, seats, marks, facts)


def hand_facts(wanted: dict[tuple[int, int], int],
           read: Mapping[tuple[int, int], str]) -> dict[tuple[int, int], HandFacts]:
    """The facts of these ``(hand id, version)`` pairs, each at a table of the number of
    players given: from ``read`` (the JSON text of those read with the fingerprints)
    where it has them, the others with one more query."""
    out = {pair: decode_hand(json.loads(read[pair]), players) for pair, players in wanted.items() if pair in read}
    ids = sorted({pair[0] for pair in wanted if pair not in out})
    for start in range(0, len(ids), 500):
        rows = db.session.execute(sa.select(HandVersion.hand_id, HandVersion.version, HandVersion.facts)
                                  .where(HandVersion.hand_id.in_(ids[start:start + 500])))
        for hand_id, version, facts in rows:
            players = wanted.get((hand_id, version))
            if players is not None and (hand_id, version) not in out:
                out[hand_id, version] = decode_hand(facts, players)
    return out


def common_prefix(one: Fingerprint, other: Fingerprint) -> int:
    """How many hands two fingerprints share from the first."""
    if one == other[:len(one)]:  # the usual case: hands added after those kept
        return len(one)
    count = 0
    for a, b in zip(one, other):
        if a != b:
            break
        count += 1
    return count
