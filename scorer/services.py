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
import time
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from datetime import date
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from . import settled
from .codec import decode_hand, encode_hand
from .evening_file import EveningFile
from .ledger import Fold, HandError, Ledger, settle_evening
from .models import WRITING, Change, Evening, Hand, HandVersion, Player, Submission, db, utcnow
from .rules import EveningSetup, HandFacts, RulesError, Stake, Text, get_variant


class ScorerError(Exception):
    """A request the current state of the evening refuses. ``message`` is an English
    :class:`~scorer.rules.Text` template with its parameters (``str()`` gives it in
    English); the web layer shows it in the phone's language (:func:`scorer.i18n.error_text`)."""

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
             .options(selectinload(Evening.players), selectinload(Evening.hands).selectinload(Hand.versions)))
    if fresh:
        query = query.execution_options(populate_existing=True)
    return db.session.scalar(query)


def evening_revision(key: str) -> int | None:
    """The evening's current revision (one cheap query), or ``None`` if there is no such evening."""
    if not valid_key(key):
        return None
    return db.session.scalar(sa.select(Evening.revision).where(Evening.key == key))


#: Seconds a polled revision is answered from this process's memory (:func:`polled_revision`).
POLL_TTL = 0.5
_polled: dict[str, tuple[int | None, float]] = {}
#: The tables whose revision the current unit of work bumped (see :func:`writing`).
_BUMPED: ContextVar[list[str] | None] = ContextVar("nap_bumped", default=None)


def polled_revision(key: str) -> int | None:
    """:func:`evening_revision` for the phones' live poll, answered from memory for up to
    :data:`POLL_TTL` seconds: most polls of a table between two changes cost no query. A
    change made in this process is seen at once (:func:`_bump` forgets the key); one
    made in another process after at most the TTL."""
    now = time.monotonic()
    cached = _polled.get(key)
    if cached is not None and cached[1] > now:
        return cached[0]
    with reading():  # the poll's read ends at once: nothing else is read in this request
        value = evening_revision(key)
    if len(_polled) > 5000:
        _polled.clear()
    _polled[key] = (value, now + POLL_TTL)
    return value


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
    bumped = _BUMPED.get()
    if bumped is None:
        _polled.pop(evening.key, None)
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
    :data:`scorer.models.WRITING`). Commits when the block ends, rolls back (saving
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
            _polled.pop(key, None)


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


def setup_of(evening: Evening) -> EveningSetup:
    """The engine's view of an evening's set-up."""
    return settled.setup_from(evening.variant, [p.name for p in evening.players], evening.first_dealer,
                              evening.options, evening.stake_minor, evening.currency)


def facts_of(version: HandVersion, n: int) -> HandFacts:
    """The engine's view of one recorded version of a hand at a table of ``n`` players."""
    return decode_hand(version.facts, n)


def current_facts(evening: Evening) -> list[HandFacts]:
    """The current facts of every hand in play, in order."""
    n = len(evening.players)
    return [facts_of(h.current, n) for h in evening.hands]


def ledger_of(evening: Evening) -> Ledger:
    """Settle the evening (loaded with its hands) from its current facts: the same
    ledger as :func:`~scorer.ledger.settle_evening` of :func:`current_facts`, reusing
    this process's kept ledger for the hands it shares (:mod:`scorer.settled`).
    Raises :class:`~scorer.ledger.HandError` for a stored hand the rules refuse."""
    return settled.ledger_of_loaded(evening, setup_of(evening))


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
) -> Evening:
    """Check the set-up with the engine and save a new evening (one transaction),
    in the group ``group_id`` if given (the season, :mod:`scorer.groups`).

    Raises :class:`~scorer.rules.IllegalSetup` and saves nothing if the variant refuses it.
    """
    setup = get_variant(variant).check_setup(
        EveningSetup(variant, tuple(p.strip() for p in players), first_dealer, options, stake)
    )
    evening = Evening(
        name=name.strip() or f"Nap {date.today().isoformat()}",
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
    db.session.commit()
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


def _already_saved(submission: Submission) -> AlreadySaved:
    return AlreadySaved(Text("This form was already saved (it was sent twice); nothing was saved again."),
                        submission.hand_number, submission.hand_id)


def _log(evening: Evening, kind: str, number: int | None, before: HandFacts | None, after: HandFacts | None,
         device: str) -> None:
    """Add one history entry to the pending transaction (see :class:`~scorer.models.Change`)."""
    players = tuple(p.name for p in evening.players)
    db.session.add(Change(
        evening_id=evening.id, kind=kind, hand_number=number, device=(device or "")[:40],
        before=None if before is None else encode_hand(before, players),
        after=None if after is None else encode_hand(after, players),
    ))


@write
def record_hand(evening: Evening, number: int, facts: HandFacts, *, device: str = "",
                token: str | None = None) -> Hand:
    """Save hand ``number`` (which must be the next one) with ``facts``.

    The engine rules on the facts first; nothing is saved if it refuses them
    (:class:`~scorer.rules.RulesError`). Raises :class:`EveningFinished` for a closed
    evening and :class:`HandConflict` if hand ``number`` exists already (saved from
    another phone, or a double tap). ``token`` is the form's one-time token: if it was
    used before, :class:`AlreadySaved` is raised and nothing is saved; it is stored
    with the hand, in the same transaction. ``device`` names the phone in the history.
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
    fold = Fold.resume(ledger)
    try:  # rule on the evening with the new hand in place: nothing is saved if it is refused
        fold.add(facts)
    except HandError as error:
        raise error.error from None
    hand = Hand(evening_id=evening.id, number=number)
    hand.versions.append(_version(1, facts))
    try:
        revision = _bump(evening)
        db.session.add(hand)
        db.session.flush()  # the hand's row id, for its token
        _log(evening, "new", number, None, facts, device)
        if token:
            db.session.add(Submission(token=token, evening_id=evening.id, hand_number=number, command="record",
                                      hand_id=hand.id))
        kept = _after_write(evening, revision, fold.ledger(), settled.fingerprint_of(evening) + ((hand.id, 1),))
        db.session.commit()
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
    fold = Fold.resume(ledger, number - 1)
    try:
        for later in [facts, *(row.facts for row in ledger.rows[number:])]:
            fold.add(later)
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
        kept = _after_write(evening, revision, fold.ledger(), fingerprint)
        db.session.commit()
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
    before = facts_of(hand.current, len(evening.players))
    _bump(evening)  # under the row lock taken above: the hand checked is still the last
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
    hands = current_facts(evening)
    try:
        ledger = settle_evening(new, hands)
        if hands and Fold.resume(ledger, len(hands) - 1).ledger().end_reached:
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
    settled.remember(*kept)


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
    """What :func:`scorer.settled.remember` keeps once the write to ``evening`` (locked,
    its revision bumped once, to ``revision``) commits: read before the commit, which
    expires the ORM's objects."""
    return dataclasses.replace(settled.head_of(evening), revision=revision), ledger, fingerprint


def _version(number: int, facts: HandFacts) -> HandVersion:
    return HandVersion(version=number, facts=encode_hand(facts))


@write
def import_evening(data: EveningFile, *, device: str = "") -> Evening:
    """Save an evening read from a file (already checked by the engine), in one transaction."""
    setup = data.setup
    evening = Evening(
        name=data.name or f"Nap {date.today().isoformat()}",
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
    for number, facts in enumerate(data.hands, start=1):
        hand = Hand(number=number)
        hand.versions.append(_version(1, normalise(facts)))
        evening.hands.append(hand)
    db.session.add(evening)
    db.session.flush()
    _log(evening, "import", None, None, None, device)
    db.session.commit()
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
    )


def evenings_by_keys(keys: Sequence[str]) -> list[Evening]:
    """The evenings with these URL keys, in the order of ``keys`` (unknown keys skipped)."""
    wanted = [k for k in keys if valid_key(k)][:100]
    if not wanted:
        return []
    found = {e.key: e for e in db.session.scalars(
        sa.select(Evening).where(Evening.key.in_(wanted)).options(selectinload(Evening.players)))}
    return [found[k] for k in wanted if k in found]
