"""Units of work: every write is one transaction that saves everything or nothing.

:func:`writing` is the unit (it commits once, when its block ends, or rolls back if it
raises; nested use joins the outer unit, so a write called inside another saves with
it or not at all). No function below it commits or rolls back by hand. :func:`lock`
takes an evening's row lock at the start of a write and :func:`bump` adds the revision
step the live pages poll. :func:`on_commit` runs something once the unit has committed
(the kept ledgers remember what was saved).
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import joinedload, lazyload, selectinload
from sqlalchemy.orm.attributes import set_committed_value

from . import live
from .event_models import Event, EventTable
from .models import WRITING, Evening, Hand, HandVersion, db

#: An evening's URL key (or scorers' key): 22 URL-safe base64 characters as made; at most 32.
KEY = re.compile(r"[A-Za-z0-9_-]{1,32}")


def valid_key(key: object) -> bool:
    """Whether ``key`` could be an evening's or group's key (anything else is never looked up:
    PostgreSQL refuses a NUL in a text comparison)."""
    return isinstance(key, str) and KEY.fullmatch(key) is not None


#: what :func:`get_evening` reads with an evening
_LOADED = (selectinload(Evening.players), selectinload(Evening.seat_changes),
           selectinload(Evening.hands).selectinload(Hand.versions))
#: what :func:`sharing_evening` reads with the warm-up's evening: its players and changes of
#: seats in the evening's own statement, not its hands (each of them, and a version of each, is
#: most of what reading an evening costs): the pages' ledger and the hand they show are read
#: without them (:func:`scorer.storage.evenings.ledger_of`, :func:`scorer.storage.evenings.hand_in_play`);
#: a page that asks for ``evening.hands`` still gets them, with their versions, read then
_LIGHT = (joinedload(Evening.players), joinedload(Evening.seat_changes),
          lazyload(Evening.hands).selectinload(Hand.versions))


def get_evening(key: str, *, fresh: bool = False) -> Evening | None:
    """The evening with URL key ``key``, players and hands loaded, or ``None``.

    ``fresh``: overwrite what the session already holds with what the database holds
    now (after taking the row lock, see :func:`lock`).
    """
    if not valid_key(key):
        return None
    shared = _SHARED.get()
    if shared is not None and not fresh and key in shared:
        return shared[key]
    query = sa.select(Evening).where(Evening.key == key).options(*_LOADED)
    if fresh:
        query = query.execution_options(populate_existing=True)
    return db.session.scalar(query)


#: what :func:`shared_read` keeps the event of a table under, ``(EVENT_OF, key)``: ``(its id, its
#: key)`` or ``None`` (:func:`scorer.web.views.common.event_of_table`), read with the shared evening
EVENT_OF = "event_of_table"
#: the evenings read once for several pages made in one request (:func:`sharing_evening`)
_SHARED: ContextVar[dict[str, Evening] | None] = ContextVar("nap_shared_evenings", default=None)
#: what those pages read alike, read once (:func:`shared_read`)
_READS: ContextVar[dict[Any, Any] | None] = ContextVar("nap_shared_reads", default=None)
T = TypeVar("T")


@contextlib.contextmanager
def sharing_evening(key: str) -> Iterator[Evening | None]:
    """Read the evening with URL key ``key`` once, in this session, and let every
    :func:`get_evening` of it (not ``fresh``) in the block answer that same evening: the
    service worker's warm-up (:func:`scorer.web.views.offline.kept_pages`) makes six pages
    of one table, each by its own route in an application context (and a session) of its
    own, and each read the whole evening again, a sixth of the warm-up's CPU each (issue 23
    item 2). The pages only read it. It is read without its hands (:data:`_LIGHT`), and with the
    event it is a table of (:data:`EVENT_OF`). Yields the evening, or ``None`` when there is none."""
    row = db.session.execute(  # with the event it is a table of (at most one), if any
        sa.select(Evening, Event.id, Event.key).outerjoin(EventTable, EventTable.evening_id == Evening.id)
        .outerjoin(Event, Event.id == EventTable.event_id).where(Evening.key == key).options(*_LIGHT)
    ).unique().first() if valid_key(key) else None
    evening = None if row is None else row[0]
    token = _SHARED.set({key: evening} if evening is not None else {})
    reads = _READS.set({} if row is None else {(EVENT_OF, key): None if row[1] is None else (row[1], row[2])})
    try:
        yield evening
    finally:
        _READS.reset(reads)
        _SHARED.reset(token)


def shared_evening(key: str) -> Evening | None:
    """The evening with URL key ``key`` as :func:`sharing_evening` has read it for this block,
    or ``None`` outside one (nothing is read)."""
    shared = _SHARED.get()
    return None if shared is None else shared.get(key)


def shared_read(what: Any, read: Callable[[], T]) -> T:
    """``read()``; inside :func:`sharing_evening`, what it answered the first time ``what`` was
    asked in the block: each page of the warm-up asks whether its table is an event's (the
    referee's desk link), and the answer is the same for all six. Keep no ORM object in it
    (each page's session ends with its page)."""
    reads = _READS.get()
    if reads is None:
        return read()
    if what not in reads:
        reads[what] = read()
    return reads[what]  # type: ignore[no-any-return]


def shared_of(evening: Evening, what: str, read: Callable[[], T]) -> T:
    """:func:`shared_read` of ``what`` about ``evening`` when it is the evening
    :func:`sharing_evening` shares (each page of the warm-up settles the same evening: its
    ledger is settled once); ``read()`` for any other."""
    shared = _SHARED.get()
    if shared is None or shared.get(evening.key) is not evening:
        return read()
    return shared_read((what, evening.key), read)


def evening_revision(key: str) -> int | None:
    """The evening's current revision (one cheap query), or ``None`` if there is no such evening;
    inside :func:`sharing_evening`, the revision of the evening it read (no query)."""
    if not valid_key(key):
        return None
    shared = _SHARED.get()
    if shared is not None and key in shared:
        return shared[key].revision
    return db.session.scalar(sa.select(Evening.revision).where(Evening.key == key))


def last_hand(key: str) -> tuple[int, int, int] | None:
    """The last hand in play of the evening with URL key ``key`` as ``(number, current
    version, row id)``, in one small query that reads that hand only (the one-tap Undo
    offer, issue 23 item 4); ``None`` when there is no such evening, it has no hand in
    play, or it is finished (nothing to undo)."""
    if not valid_key(key):
        return None
    row = db.session.execute(_LAST_HAND, {"key": key}).first()
    return None if row is None else (row[0], row[1], row[2])


#: :func:`last_hand`'s statement (built once): the last hand by the (evening, number) index; its
#: versions by their hand's.
_LAST_HAND = (sa.select(Hand.number, sa.select(sa.func.max(HandVersion.version))
                        .where(HandVersion.hand_id == Hand.id).scalar_subquery(), Hand.id)
              .join(Evening, Evening.id == Hand.evening_id)
              .where(Evening.key == sa.bindparam("key"), Evening.finished_at.is_(None), Hand.number > 0)
              .order_by(Hand.number.desc()).limit(1))


def evening_name(key: str) -> str:
    """The evening's name (one cheap query); empty if there is no such evening."""
    if not valid_key(key):
        return ""
    return db.session.scalar(sa.select(Evening.name).where(Evening.key == key)) or ""


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


class _Unit:
    """What the current unit of work has done that matters once it commits."""

    def __init__(self) -> None:
        self.bumped: list[str] = []  # the evenings whose polled revision is forgotten on commit
        self.after: list[Callable[[], None]] = []  # run once committed (:func:`on_commit`)


#: The unit of work in progress (see :func:`writing`), if any.
_UNIT: ContextVar[_Unit | None] = ContextVar("nap_unit", default=None)


def bump(evening: Evening) -> int:
    """Add ``revision + 1`` to the pending transaction (an UPDATE, so concurrent
    writers to one evening queue on its row instead of losing a bump). Returns the
    revision after it (the evening was read under its row lock, :func:`lock`)."""
    revision = evening.revision + 1
    statement = sa.update(Evening).where(Evening.id == evening.id).values(revision=Evening.revision + 1)
    notify = live.notify_call(db.session.get_bind().dialect.name, evening.key)
    if notify is not None:  # the other processes' pollers are told once this transaction commits
        statement = statement.returning(notify)  # by the same statement
    db.session.execute(statement.execution_options(synchronize_session=False))
    set_committed_value(evening, "revision", revision)  # as the database has it now
    unit = _UNIT.get()
    if unit is None:
        revisions().forget(evening.key)
    else:
        unit.bumped.append(evening.key)  # forgotten once committed (writing): a poll meanwhile cannot keep the old one
    return revision


def lock(evening: Evening) -> Evening:
    """Begin a write to ``evening``: take its row lock, then read it again.

    On PostgreSQL ``SELECT … FOR UPDATE`` waits until any other phone's write to this
    evening has committed and holds the row until this transaction ends (on SQLite,
    ``BEGIN IMMEDIATE`` already holds the database). Every check that follows — the
    next hand's number, the last hand, the current version, the revision, the options
    — then runs on what is committed now, not on what the request read before.
    Returns the evening, re-read with its players, hands and versions (also what this
    unit has written to it so far: a write nested in another sees the outer one's).
    """
    fresh = _locked(sa.select(Evening).where(Evening.id == evening.id))
    assert fresh is not None  # evenings are never deleted
    return fresh


def lock_key(key: str, *, load: bool = True) -> Evening | None:
    """:func:`lock` the evening with URL key ``key`` (``None`` if there is no such evening).
    ``load`` ``False``: its own row only (its players, seat changes and hands are read when
    asked, e.g. by :func:`loaded`), for a write that reads them from the kept ledger."""
    if not valid_key(key):
        return None
    return _locked(sa.select(Evening).where(Evening.key == key), load=load)


def _locked(query: Any, *, load: bool = True) -> Evening | None:
    """The evening of ``query`` read under its row lock: the lock is the statement that reads
    its row (``SELECT … FOR UPDATE``, the unit's first: on PostgreSQL it waits for any other
    write to the evening and then reads the row as that one committed it), and its players,
    seat changes, hands and versions are read after it (not locked: every write to them
    takes the evening's lock first). One statement less than the lock and a read after it."""
    query = query.with_for_update().execution_options(populate_existing=True)
    if load:
        query = query.options(*_LOADED)
    return db.session.scalar(query)


def loaded(evening: Evening) -> Evening:
    """``evening`` (locked by :func:`lock_key` without ``load``) read again with its players,
    seat changes, hands and versions, as :func:`lock` reads it."""
    fresh = get_evening(evening.key, fresh=True)
    assert fresh is not None  # evenings are never deleted
    return fresh


def on_commit(action: Callable[[], None]) -> None:
    """Run ``action`` once the current unit of work has committed (never if it rolls back);
    at once outside a unit."""
    unit = _UNIT.get()
    if unit is None:
        action()
    else:
        unit.after.append(action)


@contextlib.contextmanager
def writing() -> Iterator[Any]:
    """A unit of work that writes, inside a request or outside one (a worker, a replay).

    Any read transaction open on the session is ended first, then the write begins on
    what is committed now (on SQLite with the write lock, see
    :data:`scorer.storage.models.WRITING`). Commits when the block ends, rolls back (saving
    nothing) if it raises. Nested use joins the outer unit: it neither commits nor rolls
    back, the outer unit does. Yields the session.
    """
    if WRITING.get():
        yield db.session
        return
    db.session.rollback()
    token = WRITING.set(True)
    unit = _Unit()
    unit_token = _UNIT.set(unit)
    try:
        yield db.session
        db.session.commit()
    except BaseException:
        db.session.rollback()
        unit.after.clear()
        raise
    finally:
        WRITING.reset(token)
        _UNIT.reset(unit_token)
        for key in unit.bumped:  # the polled revisions of the tables this unit changed
            revisions().forget(key)
    for action in unit.after:
        action()


@contextlib.contextmanager
def reading() -> Iterator[Any]:
    """A unit of work that only reads: the transaction is ended when the block ends, so
    nothing (a long PDF render, a worker) keeps a snapshot or a lock. Yields the session."""
    try:
        yield db.session
    finally:
        db.session.rollback()


def write_locked(function: Any) -> Any:
    """A write to one evening (its first argument) as one :func:`writing` unit of work that
    takes the evening's row lock first (:func:`lock`). ``.on_locked`` is the function itself,
    for a command's handler, which runs inside the command's unit on the evening it locked."""

    @functools.wraps(function)
    def wrapper(evening: Evening, *args: Any, **kwargs: Any) -> Any:
        with writing():
            return function(lock(evening), *args, **kwargs)

    wrapper.on_locked = function  # type: ignore[attr-defined]
    return wrapper


def write(function: Any) -> Any:
    """Run a function as one :func:`writing` unit of work: it saves everything or nothing,
    and a refusal rolls back (releasing the lock) so the caller can go on reading."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with writing():
            return function(*args, **kwargs)

    return wrapper
