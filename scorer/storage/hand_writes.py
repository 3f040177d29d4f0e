"""The hand writes: record a hand, correct it (a new version; restore, override, claims
and the record of play are corrections too), undo the last one; and the handlers that
run them as commands (:mod:`scorer.storage.commands`). A correction carrying a dispute closes it with the
correction, in the same unit (:func:`scorer.storage.disputes.close_ruled_on`).

Each write is one unit of work (:func:`scorer.storage.units.write`; inside a command it
joins the command's unit): it takes the evening's row lock, rules on the evening with
the change in place, and saves everything or nothing. None of them commits by hand.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from ..evening.ledger import Fold, HandError, Ledger, settle_evening
from ..evening.limits import MAX_HANDS
from ..rules import HandFacts, RulesError, Text
from . import disputes, kept_results
from . import kept_ledgers as settled
from .commands import (
    CorrectHand,
    Device,
    OverrideRuling,
    RecordHand,
    RecordPlay,
    RestoreVersion,
    Saved,
    SetClaims,
    SetHandNote,
    UndoHand,
    handles,
)
from .errors import TABLE_CHANGED, EveningFinished, EveningFull, HandConflict, ScorerError
from .evenings import (
    after_write,
    current_facts,
    facts_of,
    is_closed,
    ledger_of,
    log,
    normalise,
    seat_changes_of,
    setup_of,
    version_of,
)
from .models import Evening, Hand, HandVersion, db, utcnow
from .notes import clean_note
from .units import bump, loaded, on_commit, write_locked

TAKEN = Text("Hand {number} has already been recorded (perhaps from another phone).")


def _remember(kept: tuple[settled.EveningHead, Ledger, settled.Fingerprint] | None) -> None:
    """Keep the ledger this write settled: its result for every process, in this unit of
    work (:func:`scorer.storage.kept_results.keep`), and the ledger in this process once the
    unit commits (:func:`scorer.storage.kept_ledgers.remember`)."""
    if kept is not None:  # a ledger with changes of seats is not kept
        head, ledger, _ = kept
        kept_results.keep(head.id, head.revision, ledger)
        on_commit(lambda: settled.remember(*kept))


@write_locked
def record_hand(evening: Evening, number: int, facts: HandFacts, *, device: str = "",
                device_id: int | None = None, played_at: datetime | None = None,
                kept: settled.Settled | None = None) -> Hand:
    """Save hand ``number`` (which must be the next one) with ``facts``.

    The engine rules on the facts first; nothing is saved if it refuses them
    (:class:`~scorer.rules.RulesError`). Raises :class:`EveningFinished` for a closed
    evening and :class:`HandConflict` if hand ``number`` exists already (saved from
    another phone, or a double tap). ``device`` names the phone in the history;
    ``device_id`` is its row, kept with the hand for confirmation (see :mod:`scorer.storage.disputes`).
    ``played_at``: when the phone says it was played (kept on version 1, shown in the history).
    ``kept``: the evening as this process keeps it settled at the revision read under the
    lock (:func:`scorer.storage.kept_ledgers.kept_at`): its ledger, hands and players are
    the kept ones, and the evening's are not read (issue 23 item 2).
    """
    facts = normalise(facts)
    ledger = ledger_of(evening) if kept is None else kept.ledger
    if is_closed(evening, ledger):
        raise EveningFinished(Text("This evening is finished: no more hands can be recorded."))
    expected = (len(evening.hands) if kept is None else len(kept.fingerprint)) + 1
    if number < expected:
        raise HandConflict(Text(str(TAKEN), number=number), number)
    if number > expected:
        raise HandConflict(Text("This form was for hand {number}, but the next hand is {expected}; nothing was "
                                "saved.", number=number, expected=expected), expected - 1)
    if number > MAX_HANDS:
        raise EveningFull(Text("An evening holds at most {limit} hands, and this one has them all: nothing was "
                               "saved. Start a new evening for the next hands.", limit=MAX_HANDS))
    try:  # rule on the evening with the new hand in place: nothing is saved if it is refused
        if settled.resumable(ledger):  # one hand more: the kept ledger goes on from its last hand
            fold = Fold.resume(ledger)
            fold.add(facts)
            after: Ledger | None = fold.ledger()
        else:  # a change of seats in play: the whole evening, as it always was (not kept)
            settle_evening(ledger.setup, current_facts(evening) + [facts], seat_changes_of(evening))
            after = None
    except HandError as error:
        raise error.error from None
    hand = Hand(evening_id=evening.id, number=number, entered_by=device_id)
    hand.versions.append(version_of(1, facts))
    hand.versions[0].played_at = played_at
    revision = bump(evening)
    db.session.add(hand)
    db.session.flush()  # the hand's row id (and two at once collide on its number here)
    players = None if kept is None else kept.head.players
    log(evening, "new", number, None, facts, device, players, at_once=True)  # nothing pending: flushed above
    if after is not None:
        fingerprint = settled.fingerprint_of(evening) if kept is None else kept.fingerprint
        _remember(after_write(evening, revision, after, fingerprint + ((hand.id, 1),), players))
    return hand


@write_locked
def correct_hand(evening: Evening, number: int, base_version: int, facts: HandFacts, *, device: str = "",
                 kind: str = "correct", hand_id: int | None = None) -> HandVersion:
    """Save corrected facts for hand ``number`` as a new version; the old one is kept.

    ``base_version`` is the version the user was looking at: if another phone saved
    a newer one since, :class:`HandConflict` is raised and nothing is saved.
    Raises :class:`EveningFinished`, :class:`HandConflict` (also when the hand is no
    longer in play: undone on another phone) and :class:`~scorer.rules.RulesError`.
    ``kind`` names the change in the history ("correct", "override", "restore", "play").
    ``hand_id``: the hand's row id the user saw: if hand ``number`` is now another row
    (undone, and a new hand took its number), :class:`HandConflict`. Facts equal to the
    saved ones save nothing and return the current version.
    """
    facts = normalise(facts)
    if evening.finished_at is not None:
        raise EveningFinished(Text("This evening is finished: reopen it to correct a hand."))
    hand = next((h for h in evening.hands if h.number == number), None)
    if hand is None or (hand_id is not None and hand.id != hand_id):
        raise HandConflict(Text("Hand {number} is no longer in play (it was undone on another phone); nothing was "
                                "saved.", number=number), number)
    if hand.current.version != base_version:
        raise HandConflict(Text("Hand {number} was corrected on another phone while you were editing; here is the "
                                "saved version.", number=number), number)
    before = facts_of(hand.current, len(evening.players))
    if before == facts:
        return hand.current  # nothing to save
    # rule on the evening with the correction: a hand's ruling can depend on the hands
    # before it (the pool), so it is checked in place, not alone, and every later hand
    # is ruled on again after it (the hands before it stand as they are)
    ledger = ledger_of(evening)
    try:
        if settled.resumable(ledger):
            fold = Fold.resume(ledger, number - 1)
            for later in [facts, *(row.facts for row in ledger.rows[number:])]:
                fold.add(later)
            after: Ledger | None = fold.ledger()
        else:  # a change of seats in play: the whole evening, as it always was (not kept)
            hands = [facts if h.number == number else old for h, old in zip(evening.hands, current_facts(evening))]
            settle_evening(setup_of(evening), hands, seat_changes_of(evening))
            after = None
    except HandError as error:
        raise error.error from None
    version = version_of(base_version + 1, facts)
    version.hand_id = hand.id
    fingerprint = settled.fingerprint_of(evening)
    fingerprint = (*fingerprint[:number - 1], (hand.id, base_version + 1), *fingerprint[number:])
    revision = bump(evening)
    db.session.add(version)
    log(evening, kind, number, before, facts, device)
    _remember(None if after is None else after_write(evening, revision, after, fingerprint))
    return version


@write_locked
def undo_last_hand(evening: Evening, number: int | None, base_version: int, *, device: str = "",
                   hand_id: int | None = None) -> Hand:
    """Take the last hand out of play; nothing is deleted (its versions are kept, the
    history keeps its facts) and its place is free for the next hand.

    ``number`` and ``base_version`` are what the user saw as the last hand (``number``
    ``None``: the row ``hand_id``, whatever its number): if another phone has since added
    a hand or corrected this one, :class:`HandConflict` is raised and nothing changes
    (also when ``hand_id`` is given and the last hand is another row). Raises
    :class:`EveningFinished` for a closed evening.
    """
    if evening.finished_at is not None:
        raise EveningFinished(Text("This evening is finished: reopen it to undo a hand."))
    if not evening.hands:
        raise HandConflict(Text("There is no hand to undo."), 0)
    hand = evening.hands[-1]
    if number is None and hand_id is not None and all(h.id != hand_id for h in evening.hands):
        raise gone(evening, hand_id)
    if ((number is not None and hand.number != number) or hand.current.version != base_version
            or (hand_id is not None and hand.id != hand_id)):
        raise HandConflict(Text("The last hand changed on another phone; nothing was undone. Here it is now."),
                           hand.number)
    if any(c.before_hand > hand.number and c.kind != "rename" for c in seat_changes_of(evening)):
        raise HandConflict(Text("Someone joined or left the table after hand {number}: undo that first.",
                                number=hand.number), hand.number)
    number = hand.number
    before = facts_of(hand.current, len(evening.players))
    bump(evening)  # under the row lock taken above: the hand checked is still the last
    for record in evening.seat_changes:  # a rename after this hand now comes before the hand taking its place
        if record.undone_at is None and record.before_hand > hand.number:
            record.before_hand = hand.number
    hand.undone_number, hand.undone_at, hand.number = number, utcnow(), -hand.id
    log(evening, "undo", number, before, None, device)
    db.session.flush()
    return hand


# --------------------------------------------------------------------------- as commands
def gone(evening: Evening, hand_id: int) -> HandConflict:
    """The conflict of a command about the row ``hand_id``, no longer in play (undone since)."""
    gone = db.session.get(Hand, hand_id) if 0 < hand_id < 2**31 else None
    number = gone.undone_number or 0 if gone is not None and gone.evening_id == evening.id else 0
    return HandConflict(Text("Hand {number} is no longer in play (it was undone on another phone); "
                             "nothing was saved.", number=number), number)


def _named(evening: Evening, command: CorrectHand | RestoreVersion | OverrideRuling | SetClaims | RecordPlay
           ) -> Hand:
    """The hand a correction names (its row, else its number), in play; else a conflict."""
    if evening.finished_at is not None:
        raise EveningFinished(Text("This evening is finished: reopen it to correct a hand."))
    if command.hand_id is not None:
        hand = next((h for h in evening.hands if h.id == command.hand_id), None)
        if hand is None or (command.number is not None and hand.number != command.number):
            raise gone(evening, command.hand_id)
    else:
        hand = next((h for h in evening.hands if h.number == command.number), None)
        if hand is None:
            raise HandConflict(Text("Hand {number} is no longer in play (it was undone on another phone); "
                                    "nothing was saved.", number=command.number), command.number or 0)
    if hand.current.version != command.version:
        raise HandConflict(Text("Hand {number} was corrected on another phone while you were editing; here is the "
                                "saved version.", number=hand.number), hand.number)
    return hand


def _save(evening: Evening, hand: Hand, command: CorrectHand | RestoreVersion | OverrideRuling | SetClaims | RecordPlay,
          facts: HandFacts, kind: str, device: Device) -> Saved:
    number, hand_id = hand.number, hand.id
    version = correct_hand.on_locked(evening, number, command.version, facts, device=device.name, kind=kind,
                                     hand_id=hand_id)
    return Saved(evening.key, hand_id, number, version.version, changed=version.version > command.version)


def _current(evening: Evening, hand: Hand) -> HandFacts:
    return facts_of(hand.current, len(evening.players))


def _seated_since(evening: Evening, number: int, facts: HandFacts) -> bool:
    """Whether hand ``number``, refused by the rules, is one the table before this hand's
    change of seats accepts: the phone saw the table before another phone changed who is
    seated (a conflict, not a wrong hand)."""
    changes = seat_changes_of(evening)
    before = [c for c in changes if c.before_hand != number or c.kind == "rename"]
    if len(before) == len(changes):
        return False
    try:
        settle_evening(setup_of(evening), current_facts(evening) + [normalise(facts)], before)
    except Exception:  # noqa: BLE001 - refused at the old table too: the rules' refusal stands
        return False
    return True


@handles(RecordHand)
def _record(command: RecordHand, evening: Evening, device: Device) -> Saved:
    # the runner locked the evening's row only (RecordHand.loads): its hands are read only
    # when this process does not keep it settled at that revision
    kept = settled.kept_at(evening.key, evening.revision, evening.group_id)
    if kept is None:
        evening = loaded(evening)
    try:
        hand = record_hand.on_locked(evening, command.number, command.facts, device=device.name,
                                     device_id=device.id, played_at=command.played_at, kept=kept)
    except RulesError:
        # kept: no change of seats in play (kept_at), so none for the phone to have missed
        if kept is None and _seated_since(evening, command.number, command.facts):
            raise HandConflict(TABLE_CHANGED, 0) from None
        raise
    return Saved(evening.key, hand.id, hand.number, 1)


@handles(CorrectHand)
def _correct(command: CorrectHand, evening: Evening, device: Device) -> Saved:
    hand = _named(evening, command)
    assert command.facts is not None
    disputes.close_ruled_on(evening, hand, command.dispute_id, normalise(command.facts), device.name)
    return _save(evening, hand, command, command.facts, command.kind, device)


@handles(RestoreVersion)
def _restore(command: RestoreVersion, evening: Evening, device: Device) -> Saved:
    hand = _named(evening, command)
    old = next((v for v in hand.versions if v.version == command.restore), None)
    if old is None:
        raise ScorerError(Text("Hand {number} has no version {version}.", number=hand.number,
                               version=command.restore))
    return _save(evening, hand, command, facts_of(old, len(evening.players)), "restore", device)


@handles(OverrideRuling)
def _override(command: OverrideRuling, evening: Evening, device: Device) -> Saved:
    hand = _named(evening, command)
    facts = _current(evening, hand)
    if command.override is None and facts.override is None:
        raise ScorerError(Text("There is no override to remove."))
    return _save(evening, hand, command, dataclasses.replace(facts, override=command.override), "override", device)


@handles(SetClaims)
def _claims(command: SetClaims, evening: Evening, device: Device) -> Saved:
    hand = _named(evening, command)
    facts = dataclasses.replace(_current(evening, hand), claims=tuple(command.claims))
    disputes.close_ruled_on(evening, hand, command.dispute_id, facts, device.name)
    return _save(evening, hand, command, facts, "correct", device)


@handles(SetHandNote)
def _note(command: SetHandNote, evening: Evening, device: Device) -> Saved:
    hand = _named(evening, command)
    facts = dataclasses.replace(_current(evening, hand), note=clean_note(command.note))
    return _save(evening, hand, command, facts, "note", device)


@handles(RecordPlay)
def _play(command: RecordPlay, evening: Evening, device: Device) -> Saved:
    hand = _named(evening, command)
    row = ledger_of(evening).rows[hand.number - 1]
    if row.ruling.declarer is None or row.ruling.contract is None:
        raise ScorerError(Text("Nobody bid in this hand, so there is no play to record."))
    facts = dataclasses.replace(row.facts, record=command.tricks, tricks=None if command.tricks else row.ruling.tricks)
    return _save(evening, hand, command, facts, "play", device)


@handles(UndoHand)
def _undo(command: UndoHand, evening: Evening, device: Device) -> Saved:
    hand = undo_last_hand.on_locked(evening, command.number, command.version, device=device.name,
                                    hand_id=command.hand_id)
    return Saved(evening.key, hand.id, hand.undone_number, hand.current.version)


#: For another aggregate's command that corrects a hand as :class:`CorrectHand` does (the
#: referee's ruling, :mod:`scorer.storage.referees`): the hand it names, in play at the
#: version the phone saw, and the new version saved.
named_hand = _named
save_version = _save
