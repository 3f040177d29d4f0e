"""Saving and reading an evening's facts: the bridge between the database and the engine.

Every write is one transaction: it either saves everything or nothing. Errors are
domain errors (:class:`ScorerError` and the engine's :class:`~scorer.rules.RulesError`)
that the views map back onto their forms.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from datetime import date
from typing import Any

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from ..evening.codec import decode_hand, encode_hand
from ..evening.file import EveningFile, dump_seat_change
from ..evening.ledger import Fold, HandError, Ledger, settle_evening
from ..evening.zones import today_in, valid_zone
from ..rules import (
    EveningSetup,
    HandFacts,
    IllegalSetup,
    RulesError,
    SeatChange,
    Stake,
    Text,
    clean_text,
    get_variant,
)
from . import kept_ledgers as settled
from . import live
from .models import (
    WRITING,
    Change,
    Evening,
    Hand,
    HandVersion,
    Player,
    SeatChangeRecord,
    Submission,
    db,
    utcnow,
)


class ScorerError(Exception):
    """A request the current state of the evening refuses. ``message`` is an English
    :class:`~scorer.rules.Text` template with its parameters (``str()`` gives it in
    English); the web layer shows it in the phone's language (:func:`scorer.web.i18n.error_text`)."""

    def __init__(self, message: Text) -> None:
        super().__init__(message)
        self.message = message


class EveningFinished(ScorerError):
    """The evening is closed (or its agreed end is reached): no more hands."""


class AlreadySaved(ScorerError):
    """This very form was saved before (a double tap or a browser retry): nothing new
    is saved; ``number`` is where the hand the first submission saved was then, and
    ``hand_id`` its row (``None`` for tokens saved before migration 0010)."""

    def __init__(self, message: Text, number: int | None, hand_id: int | None = None) -> None:
        super().__init__(message)
        self.number = number
        self.hand_id = hand_id


class HandConflict(ScorerError):
    """Another phone saved that hand (or a newer version of it) first."""

    def __init__(self, message: Text, number: int) -> None:
        super().__init__(message)
        self.number = number


#: An evening's URL key (or scorers' key): 22 URL-safe base64 characters as made; at most 32.
KEY = re.compile(r"[A-Za-z0-9_-]{1,32}")


def valid_key(key: object) -> bool:
    """Whether ``key`` could be an evening's or group's key (anything else is never looked up:
    PostgreSQL refuses a NUL in a text comparison)."""
    return isinstance(key, str) and KEY.fullmatch(key) is not None


def get_evening(key: str, *, fresh: bool = False) -> Evening | None:
    """The evening with URL key ``key``, players and hands loaded, or ``None``.

    ``fresh``: overwrite what the session already holds with what the database holds
    now (after taking the row lock, see :func:`_lock`).
    """
    if not valid_key(key):
        return None
    query = (sa.select(Evening).where(Evening.key == key)
             .options(selectinload(Evening.players), selectinload(Evening.seat_changes),
                      selectinload(Evening.hands).selectinload(Hand.versions)))
    if fresh:
        query = query.execution_options(populate_existing=True)
    return db.session.scalar(query)


def evening_revision(key: str) -> int | None:
    """The evening's current revision (one cheap query), or ``None`` if there is no such evening."""
    if not valid_key(key):
        return None
    return db.session.scalar(sa.select(Evening.revision).where(Evening.key == key))


#: The tables whose revision the current unit of work bumped (see :func:`writing`).
_BUMPED: ContextVar[list[str] | None] = ContextVar("nap_bumped", default=None)


def revisions() -> live.Revisions:
    """This app's memory of polled revisions (:mod:`scorer.storage.live`)."""
    return current_app.extensions["nap_revisions"]  # type: ignore[no-any-return]


def polled_revision(key: str) -> int | None:
    """:func:`evening_revision` for the phones' live poll, answered from this process's
    memory (:class:`scorer.storage.live.Revisions`): most polls of a table between two changes cost
    no query. A change made in this process is seen at once (:func:`writing` forgets the
    key on commit); one made in another process at once on PostgreSQL (``LISTEN/NOTIFY``),
    after at most :data:`scorer.storage.live.POLL_TTL` seconds on SQLite."""
    def read() -> int | None:
        with reading():  # the poll's read ends at once: nothing else is read in this request
            return evening_revision(key)

    return revisions().fill(key, read)


def evening_name(key: str) -> str:
    """The evening's name (one cheap query); empty if there is no such evening."""
    if not valid_key(key):
        return ""
    return db.session.scalar(sa.select(Evening.name).where(Evening.key == key)) or ""


def _bump(evening: Evening) -> int:
    """Add ``revision + 1`` to the pending transaction (an UPDATE, so concurrent
    writers to one evening queue on its row instead of losing a bump). Returns the
    revision after it (the evening was read under its row lock, :func:`_lock`)."""
    revision = evening.revision + 1
    db.session.execute(sa.update(Evening).where(Evening.id == evening.id).values(revision=Evening.revision + 1))
    notify = live.notify_sql(db.session.get_bind().dialect.name)
    if notify is not None:  # the other processes' pollers are told once this transaction commits
        db.session.execute(sa.text(notify), {"key": evening.key})
    bumped = _BUMPED.get()
    if bumped is None:
        revisions().forget(evening.key)
    else:
        bumped.append(evening.key)  # forgotten once committed (writing): a poll meanwhile cannot keep the old one
    return revision


def _lock(evening: Evening) -> Evening:
    """Begin a write to ``evening``: take its row lock, then read it again.

    On PostgreSQL ``SELECT … FOR UPDATE`` waits until any other phone's write to this
    evening has committed and holds the row until this transaction ends (on SQLite,
    ``BEGIN IMMEDIATE`` already holds the database). Every check that follows — the
    next hand's number, the last hand, the current version, the revision, the options
    — then runs on what is committed now, not on what the request read before.
    Returns the evening, re-read with its players, hands and versions.
    """
    key = evening.key
    db.session.execute(sa.select(Evening.id).where(Evening.id == evening.id).with_for_update())
    fresh = get_evening(key, fresh=True)
    assert fresh is not None  # evenings are never deleted
    return fresh


@contextlib.contextmanager
def writing() -> Iterator[Any]:
    """A unit of work that writes, inside a request or outside one (a worker, a replay).

    Any read transaction open on the session is ended first, then the write begins on
    what is committed now (on SQLite with the write lock, see
    :data:`scorer.storage.models.WRITING`). Commits when the block ends, rolls back (saving
    nothing) if it raises. Nested use joins the outer unit. Yields the session.
    """
    if WRITING.get():
        yield db.session
        return
    db.session.rollback()
    token = WRITING.set(True)
    bumped: list[str] = []
    bumped_token = _BUMPED.set(bumped)
    try:
        yield db.session
        db.session.commit()
    except BaseException:
        db.session.rollback()
        raise
    finally:
        WRITING.reset(token)
        _BUMPED.reset(bumped_token)
        for key in bumped:  # the polled revisions of the tables this unit changed
            revisions().forget(key)


@contextlib.contextmanager
def reading() -> Iterator[Any]:
    """A unit of work that only reads: the transaction is ended when the block ends, so
    nothing (a long PDF render, a worker) keeps a snapshot or a lock. Yields the session."""
    try:
        yield db.session
    finally:
        db.session.rollback()


def write(function: Any) -> Any:
    """Run a service function as one :func:`writing` unit of work: it saves everything
    or nothing, and a refusal rolls back (releasing the lock) so the caller can go on reading."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with writing():
            return function(*args, **kwargs)

    return wrapper


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
    Raises :class:`~scorer.evening.ledger.HandError` for a stored hand the rules refuse."""
    changes = seat_changes_of(evening)
    setup = setup_of(evening, changes)
    if changes or not settled.resumable_setup(setup):
        return settle_evening(setup, current_facts(evening), changes)
    return settled.ledger_of_loaded(evening, setup)


def is_closed(evening: Evening, ledger: Ledger) -> bool:
    """Closed by the table, or the agreed number of hands is played (P-14)."""
    return evening.finished_at is not None or ledger.end_reached


def normalise(facts: HandFacts) -> HandFacts:
    """A misdeal keeps no auction, tricks or other facts (nothing else about it counts)."""
    if facts.misdeal:
        return HandFacts(facts.dealer, misdeal=True, override=facts.override)
    return facts


@write
def create_evening(
    *,
    variant: str,
    players: Sequence[str],
    first_dealer: int,
    options: dict,
    stake: Stake | None,
    name: str = "",
    draw: Sequence[str] = (),
    device: str = "",
    group_id: int | None = None,
    time_zone: str = "",
    token: str | None = None,
) -> Evening:
    """Check the set-up with the engine and save a new evening (one transaction),
    in the group ``group_id`` if given (the season, :mod:`scorer.storage.groups`).

    ``time_zone`` is the table's IANA zone (the browser's; "" = UTC): the evening's date
    is today there. ``token`` is the form's one-time token, saved in the same transaction:
    if it started an evening before (the form posted twice), :class:`AlreadyCreated` is
    raised with that evening and nothing new is saved.
    Raises :class:`~scorer.rules.IllegalSetup` and saves nothing if the variant refuses it.
    """
    creation_retry(token, "start")
    setup = get_variant(variant).check_setup(
        EveningSetup(variant, tuple(p.strip() for p in players), first_dealer, options, stake)
    )
    today = today_in(time_zone)
    evening = Evening(
        name=name.strip() or f"Nap {today.isoformat()}",
        played_on=today,
        time_zone=valid_zone(time_zone),
        variant=variant,
        options=dict(setup.options),
        stake_minor=None if stake is None else stake.minor,
        currency="" if stake is None else stake.currency,
        first_dealer=setup.first_dealer,
        draw=list(draw),
        players=[Player(seat=i, name=n) for i, n in enumerate(setup.players)],
        group_id=group_id,
    )
    db.session.add(evening)
    db.session.flush()
    _log(evening, "start", None, None, None, device)
    commit_created(token, "start", evening_id=evening.id)
    return evening


#: A one-time token: 1 to 64 printable ASCII characters (forms make 22 with
#: ``secrets.token_urlsafe``; a JSON command's client makes its own).
TOKEN = re.compile(r"[!-~]{1,64}")


class TokenReused(ScorerError):
    """A token already used by another command, at another table or for another hand:
    it is not a retry, and nothing is saved."""


def _token_used(token: str | None, evening: Evening, command: str,
                hand_id: int | None = None) -> Submission | None:
    """The submission that used ``token`` before, if the same command on this table (and
    this hand) used it: a retry. Raises :class:`TokenReused` when another command used it,
    and ``ValueError`` for a token that is not :data:`TOKEN` (forms and the API check first)."""
    if not token:
        return None
    if not TOKEN.fullmatch(token):
        raise ValueError("a one-time token is 1 to 64 printable ASCII characters")
    used = db.session.scalar(sa.select(Submission).where(Submission.token == token))
    if used is None:
        return None
    same = (used.evening_id == evening.id and used.command in ("", command)
            and (hand_id is None or used.hand_id in (None, hand_id)))
    if not same:
        raise TokenReused(Text("This one-time token was used for another change; send the command with a new "
                               "token. Nothing was saved."))
    return used


def used_token(token: str | None, evening: Evening, command: str, hand_id: int | None = None
               ) -> AlreadySaved | None:
    """The refusal a write with ``token`` meets because the same command used that token
    before (a retry), or ``None``: lets a caller answer a retry before its own checks.
    Raises :class:`TokenReused` as :func:`_token_used` does."""
    used = _token_used(token, evening, command, hand_id)
    return None if used is None else _already_saved(used)


class AlreadyCreated(ScorerError):
    """This very form created something before (posted twice, or retried by the browser):
    nothing new is made; ``evening_key`` or ``group_key`` is what the first post made."""

    def __init__(self, evening_key: str | None = None, group_key: str | None = None) -> None:
        super().__init__(Text("This form was already sent (it was sent twice); nothing was made again."))
        self.evening_key = evening_key
        self.group_key = group_key


def creation_retry(token: str | None, command: str) -> None:
    """Raise :class:`AlreadyCreated` if ``token`` already made something with ``command``
    ("start", "import", "group"); :class:`TokenReused` if another command used it."""
    if not token:
        return
    if not TOKEN.fullmatch(token):
        raise ValueError("a one-time token is 1 to 64 printable ASCII characters")
    used = db.session.scalar(sa.select(Submission).where(Submission.token == token))
    if used is None:
        return
    if used.command != command:
        raise TokenReused(Text("This one-time token was used for another change; send the command with a new "
                               "token. Nothing was saved."))
    from .models import Group  # the group's key, for the page the first post made

    if used.group_id is not None:
        raise AlreadyCreated(group_key=db.session.scalar(sa.select(Group.key).where(Group.id == used.group_id)))
    raise AlreadyCreated(evening_key=db.session.scalar(sa.select(Evening.key).where(Evening.id == used.evening_id)))


def commit_created(token: str | None, command: str, *, evening_id: int | None = None,
                    group_id: int | None = None) -> None:
    """Store the creating form's ``token`` with what it made and commit, in one transaction.
    Two posts at once: the second one's token row collides (unique), its transaction is
    rolled back (nothing of it saved) and :class:`AlreadyCreated` names the first's."""
    if token:
        db.session.add(Submission(token=token, evening_id=evening_id, group_id=group_id, command=command))
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        creation_retry(token, command)
        raise


def _already_saved(submission: Submission) -> AlreadySaved:
    return AlreadySaved(Text("This form was already saved (it was sent twice); nothing was saved again."),
                        submission.hand_number, submission.hand_id)


def _log(evening: Evening, kind: str, number: int | None, before: HandFacts | None, after: HandFacts | None,
         device: str) -> None:
    """Add one history entry to the pending transaction (see :class:`~scorer.storage.models.Change`)."""
    players = tuple(p.name for p in evening.players)
    db.session.add(Change(
        evening_id=evening.id, kind=kind, hand_number=number, device=(device or "")[:40],
        before=None if before is None else encode_hand(before, players),
        after=None if after is None else encode_hand(after, players),
    ))


@write
def record_hand(evening: Evening, number: int, facts: HandFacts, *, device: str = "",
                token: str | None = None, device_id: int | None = None) -> Hand:
    """Save hand ``number`` (which must be the next one) with ``facts``.

    The engine rules on the facts first; nothing is saved if it refuses them
    (:class:`~scorer.rules.RulesError`). Raises :class:`EveningFinished` for a closed
    evening and :class:`HandConflict` if hand ``number`` exists already (saved from
    another phone, or a double tap). ``token`` is the form's one-time token: if it was
    used before, :class:`AlreadySaved` is raised and nothing is saved; it is stored
    with the hand, in the same transaction. ``device`` names the phone in the history;
    ``device_id`` is its row, kept with the hand for confirmation (see :mod:`scorer.storage.disputes`).
    """
    facts = normalise(facts)
    evening = _lock(evening)
    used = _token_used(token, evening, "record")
    if used is not None:
        raise _already_saved(used)
    ledger = ledger_of(evening)
    if is_closed(evening, ledger):
        raise EveningFinished(Text("This evening is finished: no more hands can be recorded."))
    expected = len(evening.hands) + 1
    if number < expected:
        raise HandConflict(Text("Hand {number} has already been recorded (perhaps from another phone).",
                             number=number), number)
    if number > expected:
        raise HandConflict(Text("This form was for hand {number}, but the next hand is {expected}; nothing was "
                             "saved.", number=number, expected=expected),
                           expected - 1)
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
    hand.versions.append(_version(1, facts))
    try:
        revision = _bump(evening)
        db.session.add(hand)
        db.session.flush()  # the hand's row id, for its token
        _log(evening, "new", number, None, facts, device)
        if token:
            db.session.add(Submission(token=token, evening_id=evening.id, hand_number=number, command="record",
                                      hand_id=hand.id))
        kept = None if after is None else _after_write(evening, revision, after,
                                                       settled.fingerprint_of(evening) + ((hand.id, 1),))
        db.session.commit()
        if kept is not None:
            settled.remember(*kept)
    except IntegrityError:
        db.session.rollback()
        used = _token_used(token, evening, "record")
        if used is not None:
            raise _already_saved(used) from None
        raise HandConflict(Text("Hand {number} has already been recorded (perhaps from another phone).",
                             number=number), number) from None
    return hand


@write
def correct_hand(evening: Evening, number: int, base_version: int, facts: HandFacts, *, device: str = "",
                 kind: str = "correct", token: str | None = None, hand_id: int | None = None) -> HandVersion:
    """Save corrected facts for hand ``number`` as a new version; the old one is kept.

    ``base_version`` is the version the user was looking at: if another phone saved
    a newer one since, :class:`HandConflict` is raised and nothing is saved.
    Raises :class:`EveningFinished`, :class:`HandConflict` (also when the hand is no
    longer in play: undone on another phone) and
    :class:`~scorer.rules.RulesError`; :class:`AlreadySaved` when ``token`` was used.
    ``kind`` names the change in the history ("correct", "override", "restore", "play").
    ``hand_id``: the hand's row id the user saw (the JSON commands name it): if hand
    ``number`` is now another row (undone, and a new hand took its number), :class:`HandConflict`.
    """
    facts = normalise(facts)
    evening = _lock(evening)
    used = _token_used(token, evening, kind, hand_id)
    if used is not None:
        raise _already_saved(used)
    if evening.finished_at is not None:
        raise EveningFinished(Text("This evening is finished: reopen it to correct a hand."))
    hand = next((h for h in evening.hands if h.number == number), None)
    if hand is None or (hand_id is not None and hand.id != hand_id):
        raise HandConflict(Text("Hand {number} is no longer in play (it was undone on another phone); nothing was "
                             "saved.", number=number), number)
    if hand.current.version != base_version:
        raise HandConflict(
            Text("Hand {number} was corrected on another phone while you were editing; here is the saved version.",
              number=number),
            number,
        )
    before = facts_of(hand.current, len(evening.players))
    if before == facts:
        db.session.rollback()  # nothing to save: release the lock
        return hand.current
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
    version = _version(base_version + 1, facts)
    version.hand_id = hand.id
    fingerprint = settled.fingerprint_of(evening)
    fingerprint = (*fingerprint[:number - 1], (hand.id, base_version + 1), *fingerprint[number:])
    try:
        revision = _bump(evening)
        db.session.add(version)
        _log(evening, kind, number, before, facts, device)
        if token:
            db.session.add(Submission(token=token, evening_id=evening.id, hand_number=number, command=kind,
                                      hand_id=hand.id))
        kept = None if after is None else _after_write(evening, revision, after, fingerprint)
        db.session.commit()
        if kept is not None:
            settled.remember(*kept)
    except IntegrityError:
        db.session.rollback()
        used = _token_used(token, evening, kind, hand.id)
        if used is not None:
            raise _already_saved(used) from None
        raise HandConflict(Text("Hand {number} was corrected on another phone first.", number=number),
                           number) from None
    return version


@write
def undo_last_hand(evening: Evening, number: int, base_version: int, *, device: str = "",
                   hand_id: int | None = None) -> Hand:
    """Take the last hand out of play; nothing is deleted (its versions are kept, the
    history keeps its facts) and its place is free for the next hand.

    ``number`` and ``base_version`` are what the user saw as the last hand: if another
    phone has since added a hand or corrected this one, :class:`HandConflict` is
    raised and nothing changes (also when ``hand_id`` is given and the last hand is
    another row). Raises :class:`EveningFinished` for a closed evening.
    """
    evening = _lock(evening)
    if evening.finished_at is not None:
        raise EveningFinished(Text("This evening is finished: reopen it to undo a hand."))
    if not evening.hands:
        raise HandConflict(Text("There is no hand to undo."), 0)
    hand = evening.hands[-1]
    if hand.number != number or hand.current.version != base_version or (hand_id is not None and hand.id != hand_id):
        raise HandConflict(Text("The last hand changed on another phone; nothing was undone. Here it is now."),
                           hand.number)
    if any(c.before_hand > hand.number and c.kind != "rename" for c in seat_changes_of(evening)):
        raise HandConflict(Text("Someone joined or left the table after hand {number}: undo that first.",
                                number=hand.number), hand.number)
    before = facts_of(hand.current, len(evening.players))
    _bump(evening)  # under the row lock taken above: the hand checked is still the last
    for record in evening.seat_changes:  # a rename after this hand now comes before the hand taking its place
        if record.undone_at is None and record.before_hand > hand.number:
            record.before_hand = hand.number
    hand.undone_number, hand.undone_at, hand.number = number, utcnow(), -hand.id
    _log(evening, "undo", number, before, None, device)
    db.session.commit()
    db.session.expire_all()
    return hand


@write
def change_settings(evening: Evening, base_revision: int, *, name: str, place: str, options: dict,
                    device: str = "") -> None:
    """Change the table's name, place and options; every hand is ruled again under the
    new options before anything is saved (one transaction, logged with before and after).

    Raises :class:`EveningFinished` for a finished evening (reopen it first),
    :class:`HandConflict` if the table changed since the page was shown
    (``base_revision``), :class:`~scorer.rules.IllegalSetup` for a bad option, and
    :class:`~scorer.rules.RulesError` when a hand already played would be refused or
    would fall after the end the new options set (P-14 and the variants' end rules).
    """
    evening = _lock(evening)
    if evening.finished_at is not None:  # finished is final until reopened: the totals cannot move
        raise EveningFinished(Text("This evening is finished: reopen it to change its settings."))
    if evening.revision != base_revision:
        raise HandConflict(Text("The table changed on another phone while you were editing; here it is now."), 0)
    old = setup_of(evening)
    new = get_variant(evening.variant).check_setup(dataclasses.replace(old, options=dict(options)))
    hands, changes = current_facts(evening), seat_changes_of(evening)
    try:
        ledger = settle_evening(new, hands, changes)
        if changes:  # a change of seats in play: as it always was
            ended = bool(hands) and settle_evening(
                new, hands[:-1], [c for c in changes if c.before_hand < len(hands)]).end_reached
        else:
            ended = bool(hands) and Fold.resume(ledger, len(hands) - 1).ledger().end_reached
        if ended:
            raise RulesError(Text("With these options the evening would have ended before hand {number}; "
                               "nothing was changed.", number=len(hands)))
    except HandError as error:
        raise RulesError(Text("With these options, {error}; nothing was changed.", error=error.message),
                         error.rule) from None
    before = {"name": evening.name, "place": evening.place, "options": dict(evening.options or {})}
    after = {"name": name.strip() or evening.name, "place": place.strip(), "options": dict(new.options)}
    if before == after:
        db.session.rollback()  # nothing changed: release the lock
        return
    evening.name, evening.place, evening.options = after["name"], after["place"], after["options"]
    revision = _bump(evening)
    db.session.add(Change(evening_id=evening.id, kind="options", device=(device or "")[:40], before=before,
                          after=after))
    kept = _after_write(evening, revision, ledger, settled.fingerprint_of(evening))
    db.session.commit()
    settled.remember(*kept)  # a ledger with changes of seats is not kept


def history(evening: Evening, limit: int = 500) -> list[Change]:
    """The evening's changes, newest first."""
    return list(db.session.scalars(
        sa.select(Change).where(Change.evening_id == evening.id).order_by(Change.id.desc()).limit(limit)))


@write
def set_finished(evening: Evening, finished: bool, *, device: str = "", base_revision: int | None = None) -> None:
    """Close the evening (no more hands) or reopen it; the history keeps which phone did.

    ``base_revision`` (the JSON commands give it): :class:`HandConflict` if the table
    changed since; ``None`` does not check (the HTML button, where a double tap is harmless)."""
    evening = _lock(evening)
    if base_revision is not None and evening.revision != base_revision:
        raise HandConflict(Text("The table changed on another phone while you were editing; here it is now."), 0)
    if (evening.finished_at is not None) == finished:
        db.session.rollback()  # already so (a double tap): nothing to record
        return
    evening.finished_at = utcnow() if finished else None
    _bump(evening)
    _log(evening, "finish" if finished else "reopen", None, None, None, device)
    db.session.commit()


def _after_write(evening: Evening, revision: int, ledger: Ledger, fingerprint: settled.Fingerprint
                 ) -> tuple[settled.EveningHead, Ledger, settled.Fingerprint]:
    """What :func:`scorer.storage.kept_ledgers.remember` keeps once the write to ``evening`` (locked,
    its revision bumped once, to ``revision``) commits: read before the commit, which
    expires the ORM's objects."""
    return dataclasses.replace(settled.head_of(evening), revision=revision), ledger, fingerprint


def _version(number: int, facts: HandFacts) -> HandVersion:
    return HandVersion(version=number, facts=encode_hand(facts))


@write
def import_evening(data: EveningFile, *, device: str = "", time_zone: str = "", token: str | None = None) -> Evening:
    """Save an evening read from a file (already checked by the engine), in one transaction.

    ``time_zone``: the importing browser's zone ("" = UTC), kept as the table's unless the
    file names the table's own; a file without a date is dated today there. ``token``: as
    for :func:`create_evening` (:class:`AlreadyCreated` when this file was imported with it
    before)."""
    creation_retry(token, "import")
    time_zone = data.time_zone or time_zone
    setup = data.setup
    today = today_in(time_zone)
    evening = Evening(
        name=data.name or f"Nap {today.isoformat()}",
        played_on=today,
        time_zone=valid_zone(time_zone),
        variant=setup.variant,
        options=dict(setup.options),
        stake_minor=None if setup.stake is None else setup.stake.minor,
        currency="" if setup.stake is None else setup.stake.currency,
        first_dealer=setup.first_dealer,
        players=[Player(seat=i, name=n) for i, n in enumerate(setup.players)],
        finished_at=utcnow() if data.finished else None,
        place=data.place or "",
        draw=list(data.draw),
    )
    if data.date:
        evening.played_on = date.fromisoformat(data.date)
    for change in data.changes:
        evening.seat_changes.append(SeatChangeRecord(before_hand=change.before_hand, kind=change.kind,
                                                     seat=change.seat, left_of=change.left_of, name=change.name))
    for number, facts in enumerate(data.hands, start=1):
        hand = Hand(number=number)
        hand.versions.append(_version(1, normalise(facts)))
        evening.hands.append(hand)
    db.session.add(evening)
    db.session.flush()
    _log(evening, "import", None, None, None, device)
    commit_created(token, "import", evening_id=evening.id)
    return evening


def export_evening(evening: Evening) -> EveningFile:
    """The evening's current facts as an :class:`EveningFile` (for JSON export)."""
    return EveningFile(
        setup=setup_of(evening),
        hands=current_facts(evening),
        name=evening.name,
        date=evening.played_on.isoformat() if evening.played_on else None,
        place=evening.place or None,
        finished=evening.finished_at is not None,
        draw=list(evening.draw or ()),
        changes=_in_hand_order(seat_changes_of(evening), len(evening.hands)),
        time_zone=evening.time_zone or None,
    )


def _in_hand_order(changes: Sequence[SeatChange], hands: int) -> list[SeatChange]:
    """The seat changes as the engine applies them (:func:`scorer.evening.ledger.settle_evening`:
    by the hand they come before, in the order made within a hand; those after the last
    hand before the next one), as the evening file wants them. Only a rename can be out of
    place: one saved before :func:`undo_last_hand` moved renames back with the hands undone."""
    ordered = sorted(changes, key=lambda c: c.before_hand)
    return [c if c.before_hand <= hands + 1 else dataclasses.replace(c, before_hand=hands + 1) for c in ordered]


def last_in_group(group_id: int) -> Evening | None:
    """The group's last evening (latest date, then latest started), players loaded, or ``None``."""
    return db.session.scalar(
        sa.select(Evening).where(Evening.group_id == group_id)
        .order_by(Evening.played_on.desc(), Evening.id.desc()).limit(1)
        .options(selectinload(Evening.players), selectinload(Evening.seat_changes),
                 selectinload(Evening.hands).selectinload(Hand.versions)))


def usual_table(evening: Evening) -> dict[str, Any]:
    """What a new evening of the same group starts from (issue 12): the players seated at
    the end of ``evening``, clockwise, its rule set, options and stake, as the new-evening
    form's fields (``players``, ``opt_<key>``, ``scoring``, ``stake``, ``currency``)."""
    ledger = ledger_of(evening)
    names = [ledger.setup.players[s] for s in ledger.seated or range(ledger.setup.n)]
    values: dict[str, Any] = {"players": names, "first_dealer": "0"}
    options = evening.options or {}
    values.update({f"opt_{k}": (v if isinstance(v, bool | int) else str(v)) for k, v in options.items()})
    if evening.stake_minor is not None:
        values.update(scoring="money", stake=f"{evening.stake_minor // 100}.{evening.stake_minor % 100:02d}",
                      currency=evening.currency)
    return values


def evenings_by_keys(keys: Sequence[str]) -> list[Evening]:
    """The evenings with these URL keys, in the order of ``keys`` (unknown keys skipped)."""
    wanted = [k for k in keys if valid_key(k)][:100]
    if not wanted:
        return []
    found = {e.key: e for e in db.session.scalars(
        sa.select(Evening).where(Evening.key.in_(wanted)).options(selectinload(Evening.players)))}
    return [found[k] for k in wanted if k in found]


def _seat_refusal(message: Text) -> IllegalSetup:
    return IllegalSetup(message)


@write
def change_seats(evening: Evening, kind: str, *, name: str = "", seat: int | None = None,
                 left_of: int | None = None, base_revision: int | None = None, device: str = "") -> SeatChange:
    """Record, before the next hand, that a player joins (``name``, sitting on the left of
    seat ``left_of``: a new name takes a new seat and starts at 0, the name of a player who
    left brings them back with their total), leaves (``seat``, who keeps their total) or is
    renamed (``seat`` is called ``name`` from now on; allowed at any time, also on a
    finished evening). One transaction, logged in the history.

    Raises :class:`HandConflict` when the table changed since ``base_revision``,
    :class:`EveningFinished` for a join or leave on a finished evening, and
    :class:`~scorer.rules.IllegalSetup` (nothing saved) for a name that is empty, too
    long or taken, or a change the rules refuse (P-1, H-1, R-1, B-1: a seventh player).
    """
    evening = _lock(evening)
    if base_revision is not None and evening.revision != base_revision:
        raise HandConflict(Text("The table changed on another phone while you were editing; here it is now."), 0)
    if kind != "rename" and evening.finished_at is not None:
        raise EveningFinished(Text("This evening is finished: reopen it to change who is at the table."))
    players = {p.seat: p for p in evening.players}
    name = clean_text(name or "")
    if kind != "leave" and not 1 <= len(name) <= 40:
        raise _seat_refusal(Text("Give a name of 1 to 40 characters."))
    same = next((p for p in evening.players if p.name.casefold() == name.casefold()), None) if name else None
    before_hand = len(evening.hands) + 1
    if kind == "join":
        if same is not None and same.seat in ledger_of(evening).seated:
            raise _seat_refusal(Text("{name} is already at the table.", name=same.name))
        if same is None:
            same = Player(seat=max(players) + 1, name=name)
            evening.players.append(same)
        change = SeatChange(before_hand, "join", same.seat, left_of)
    elif kind == "leave" and seat in players:
        change = SeatChange(before_hand, "leave", seat)
    elif kind == "rename" and seat in players:
        if same is not None and same.seat != seat:
            raise _seat_refusal(Text("{name} is already a player at this table.", name=name))
        change = SeatChange(before_hand, "rename", seat, name=players[seat].name)
    else:
        raise _seat_refusal(Text("That player is not one of the players."))
    db.session.flush()
    if change.kind != "rename":
        try:
            changes = seat_changes_of(evening) + [change]
            settle_evening(setup_of(evening, changes), current_facts(evening), changes)
        except HandError as error:
            raise error.error from None
    if kind == "rename":
        if players[seat].name == name:
            db.session.rollback()
            return change
        players[seat].name = name
    evening.seat_changes.append(SeatChangeRecord(before_hand=before_hand, kind=change.kind, seat=change.seat,
                                                 left_of=change.left_of, name=change.name))
    _bump(evening)
    names = tuple(p.name for p in evening.players)
    db.session.add(Change(evening_id=evening.id, kind=kind, hand_number=before_hand, device=(device or "")[:40],
                          after=dump_seat_change(change, names)))
    db.session.commit()
    return change


@write
def undo_seat_change(evening: Evening, change_id: int | None, *, device: str = "",
                     base_revision: int | None = None) -> None:
    """Undo the last change of seats (``change_id`` is its row, as the page showed it):
    the row is kept, marked undone; a newcomer's seat is given up, a rename is reversed.

    Raises :class:`HandConflict` (nothing changed) unless it is the last change of seats
    still in play and no hand has been recorded after it (undo that hand first; a rename
    can be undone at any time while it is the last), and :class:`EveningFinished`.
    ``change_id`` ``None``: the last change, if the table is still at ``base_revision``."""
    evening = _lock(evening)
    if base_revision is not None and evening.revision != base_revision:
        raise HandConflict(Text("The table changed on another phone while you were editing; here it is now."), 0)
    if evening.finished_at is not None:
        raise EveningFinished(Text("This evening is finished: reopen it to change who is at the table."))
    live = [r for r in evening.seat_changes if r.undone_at is None]
    record = live[-1] if live else None
    if record is None or (change_id is not None and record.id != change_id) or (
            record.kind != "rename" and record.before_hand != len(evening.hands) + 1):
        raise HandConflict(Text("Only the last change of seats, with no hand after it, can be undone."), 0)
    players = {p.seat: p for p in evening.players}
    names = tuple(p.name for p in evening.players)
    change = SeatChange(record.before_hand, record.kind, record.seat, record.left_of, record.name)
    if record.kind == "rename":
        taken = any(p.name.casefold() == record.name.casefold() for p in evening.players if p.seat != record.seat)
        if taken:
            raise _seat_refusal(Text("{name} is already a player at this table.", name=record.name))
        players[record.seat].name = record.name
    record.undone_at = utcnow()
    if record.kind == "join" and not any(r.seat == record.seat for r in live[:-1]):
        evening.players.remove(players[record.seat])  # a newcomer who never played: the seat is given up
    try:
        settle_evening(setup_of(evening), current_facts(evening), seat_changes_of(evening))
    except HandError as error:
        raise error.error from None
    _bump(evening)
    db.session.add(Change(evening_id=evening.id, kind="undo_seat", hand_number=record.before_hand,
                          device=(device or "")[:40], before=dump_seat_change(change, names)))
    db.session.commit()
