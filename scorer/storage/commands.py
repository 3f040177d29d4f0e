"""Commands: every write to an evening is one typed command, executed by :func:`execute`
in one unit of work, which answers with an outcome instead of raising.

    from scorer.storage.commands import Device, RecordHand, Saved, execute
    outcome = execute(RecordHand(key, number, facts, token), device=Device("Ann's phone", device_id))
    if isinstance(outcome, Saved): ...   # Saved | AlreadySaved | Conflict | Refused

The runner takes the evening's row lock, answers a retry (the command's ``token`` used
before by the same command, with the same content: :func:`scorer.storage.tokens.digest`)
with :class:`AlreadySaved` before anything else, refuses a used token sent with other
content, runs the command's handler (registered with :func:`handles`), keeps the token
with what it saved and the command's digest, and commits once
(:func:`scorer.storage.units.writing`). A handler raises the refusals of
:mod:`scorer.storage.errors` and the engine's :class:`~scorer.rules.RulesError`; the
runner turns every one of them into an outcome, and two posts at once (the token's
unique row colliding) into :class:`AlreadySaved` or :class:`Conflict`. Messages stay
English :class:`~scorer.rules.Text` templates: the web translates them.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from sqlalchemy.exc import IntegrityError

from ..rules import Claim, HandFacts, Override, RulesError, Text
from . import tokens
from .errors import AlreadyCreated, EveningFinished, HandConflict, NotAParty, OwnerOnly, ScorerError
from .models import Evening, db
from .units import get_evening, lock_key, reading, writing

#: The modules whose handlers :func:`execute` looks up (imported on first use). A module
#: that adds commands adds itself here.
HANDLER_MODULES = ["scorer.storage.hand_writes", "scorer.storage.evening_writes", "scorer.storage.seat_writes",
                   "scorer.storage.disputes", "scorer.storage.table_access",
                   "scorer.storage.groups", "scorer.storage.notes", "scorer.storage.referees",
                   "scorer.storage.payments"]


@dataclass(frozen=True)
class Device:
    """Who sends a command: the phone's name (kept in the history) and its row (``None``: not known)."""

    name: str = ""
    id: int | None = None


# --------------------------------------------------------------------------- commands
class Command:
    """A write to the evening ``key``. ``token_kind`` is the command as its one-time token
    is kept ("" keeps none); ``collision`` what two at once without a token meet.

    ``scope`` "evening" (the default): the runner locks the evening ``key``, answers a
    retry and keeps the token. ``scope`` "": the command writes no one evening (it makes
    one, or writes a group or the phone itself, ``key`` naming it if anything): the
    handler is called with ``None`` for the evening, locks what it writes, and keeps its
    token as a creation does (:func:`scorer.storage.tokens.keep_created`, a retry raising
    :class:`~scorer.storage.errors.AlreadyCreated`, answered as :class:`AlreadySaved`)."""

    key: str
    token_kind: ClassVar[str] = ""
    scope: ClassVar[str] = "evening"
    #: whether the runner reads the evening's players, seat changes, hands and versions with
    #: its row under the lock (``False``: the handler reads what it needs, see :class:`RecordHand`)
    loads: ClassVar[bool] = True
    collision: ClassVar[Text] = Text("The table changed on another phone while you were editing; here it is now.")

    @property
    def token_(self) -> str | None:
        return getattr(self, "token", None) or None

    @property
    def hand_(self) -> int | None:
        return getattr(self, "hand_id", None)

    @property
    def digested(self) -> Command:
        """The command as its token's digest sees it (:func:`scorer.storage.tokens.digest`):
        itself, or, for a command that may say the same thing two ways, one of them."""
        return self


@dataclass(frozen=True)
class RecordHand(Command):
    """Record hand ``number`` (which must be the next one) with ``facts`` (seats of the evening).
    ``played_at``: when the phone says the hand was played (aware, checked by the caller: in
    the past 7 days, not ahead), kept with its first version; ``None``: not said."""

    key: str
    number: int
    facts: HandFacts
    token: str | None = None
    played_at: datetime | None = None
    token_kind: ClassVar[str] = "record"
    loads: ClassVar[bool] = False  # the kept ledger at the locked revision says what it needs, if kept
    collision: ClassVar[Text] = Text("Hand {number} has already been recorded (perhaps from another phone).")

    @property
    def digested(self) -> Command:
        # when it was played is not what it saves: a retry is the same command whatever it says
        return dataclasses.replace(self, played_at=None)


@dataclass(frozen=True)
class _HandChange(Command):
    """A new version of a hand in play, named by its row ``hand_id`` and the ``version`` the
    phone saw (and its ``number``, when the phone names it so: a form without the row id)."""

    key: str
    hand_id: int | None
    version: int
    token: str | None = None
    number: int | None = None
    collision: ClassVar[Text] = Text("Hand {number} was corrected on another phone first.")


@dataclass(frozen=True)
class CorrectHand(_HandChange):
    """Replace the hand's facts with ``facts``; ``kind`` names it in the history.
    ``dispute_id``: the dispute this correction rules on ("Rule on it"), closed in the same
    unit of work (as is every open dispute of the hand whose claim is now in its facts)."""

    facts: HandFacts | None = None
    kind: str = "correct"
    dispute_id: int | None = None
    token_kind: ClassVar[str] = "correct"


@dataclass(frozen=True)
class RestoreVersion(_HandChange):
    """Make version ``restore`` of the hand the current one again (as a new version)."""

    restore: int = 0
    token_kind: ClassVar[str] = "restore"


@dataclass(frozen=True)
class OverrideRuling(_HandChange):
    """Overrule the hand's ruling with the table's figures (``None``: remove the override)."""

    override: Override | None = None
    token_kind: ClassVar[str] = "override"


@dataclass(frozen=True)
class SetClaims(_HandChange):
    """Replace the hand's claims (empty: none); ``dispute_id`` as for :class:`CorrectHand`."""

    claims: tuple[Claim, ...] = ()
    dispute_id: int | None = None
    token_kind: ClassVar[str] = "correct"


@dataclass(frozen=True)
class RecordPlay(_HandChange):
    """Record the cards of each trick (empty: remove the record; the tricks it gave stay)."""

    tricks: tuple[tuple[str, ...], ...] = ()
    token_kind: ClassVar[str] = "play"


@dataclass(frozen=True)
class SetHandNote(_HandChange):
    """Write the table's ``note`` on the hand ("" removes it; issue 25 item 7): a new
    version of the hand, cleaned and at most 280 characters
    (:func:`scorer.storage.notes.clean_note`)."""

    note: str = ""
    token_kind: ClassVar[str] = "correct"


@dataclass(frozen=True)
class UndoHand(Command):
    """Take the last hand out of play: ``number``, ``version`` and row ``hand_id`` as the phone saw it."""

    key: str
    number: int | None
    version: int
    hand_id: int | None = None


@dataclass(frozen=True)
class ChangeSettings(Command):
    """Change the table's name, place and options; ``revision`` is the table the phone saw."""

    key: str
    revision: int
    name: str
    place: str
    options: dict[str, Any]


@dataclass(frozen=True)
class SetFinished(Command):
    """Close the evening or reopen it; ``revision`` ``None`` does not check (a double tap is harmless)."""

    key: str
    finished: bool
    revision: int | None = None


@dataclass(frozen=True)
class ChangeSeats(Command):
    """A player joins (``name``, left of seat ``left_of``), leaves (``seat``) or is renamed
    (``seat`` is called ``name``), before the next hand; ``kind`` says which."""

    key: str
    kind: str
    name: str = ""
    seat: int | None = None
    left_of: int | None = None
    revision: int | None = None


@dataclass(frozen=True)
class UndoSeatChange(Command):
    """Undo the last change of seats (row ``change_id`` as the page showed it; ``None``:
    the last, if the table is still at ``revision``)."""

    key: str
    change_id: int | None = None
    revision: int | None = None


# --------------------------------------------------------------------------- outcomes
@dataclass(frozen=True)
class Saved:
    """Done (``changed`` ``False``: nothing to change, nothing saved). ``hand_id``,
    ``number`` and ``version`` name the hand written, ``detail`` anything else the
    command made (a :class:`~scorer.rules.SeatChange`)."""

    key: str
    hand_id: int | None = None
    number: int | None = None
    version: int | None = None
    changed: bool = True
    detail: Any = None


@dataclass(frozen=True)
class AlreadySaved:
    """The same command again (its token was used): nothing new; the hand the first one
    saved (its number then, its row; ``None`` for tokens saved before migration 0010);
    for a command of no one evening, ``key`` is what the first one made or wrote (an
    evening's or a group's key)."""

    message: Text
    number: int | None = None
    hand_id: int | None = None
    key: str | None = None


@dataclass(frozen=True)
class Conflict:
    """The table is not what the phone saw (another phone was first): nothing saved.
    ``number`` is the hand concerned (0: the table)."""

    message: Text
    number: int = 0


@dataclass(frozen=True)
class Refused:
    """The rules (``rule``, e.g. ``"P-7"``) or the state of the evening refuse it:
    nothing saved. ``finished``: refused because the evening is finished; ``forbidden``:
    this phone may not send it (only the table's owner may)."""

    message: Text
    rule: str | None = None
    finished: bool = False
    forbidden: bool = False


Outcome = Saved | AlreadySaved | Conflict | Refused

# --------------------------------------------------------------------------- the runner
C = TypeVar("C", bound=Command)
Handler = Callable[[Any, Evening, Device], Saved]
_HANDLERS: dict[type[Command], Handler] = {}


def handles(command_type: type[C]) -> Callable[[Callable[[C, Evening, Device], Saved]], Any]:
    """Register the handler of ``command_type``: called with the command, the evening
    (locked, read again) and the device, inside the unit of work; returns :class:`Saved`
    or raises a refusal."""

    def register(handler: Callable[[C, Evening, Device], Saved]) -> Any:
        _HANDLERS[command_type] = handler
        return handler

    return register


def _handler(command_type: type[Command]) -> Handler:
    if command_type not in _HANDLERS:
        for module in HANDLER_MODULES:
            importlib.import_module(module)
    return _HANDLERS[command_type]


def execute(command: Command, *, device: Device | None = None) -> Outcome:
    """Run ``command`` as one unit of work and answer with its outcome (see the module)."""
    handler = _handler(type(command))
    device = device or Device()
    content = tokens.digest(command.digested) if command.token_ else None
    try:
        with writing():
            if not command.scope:
                tokens.same_content(command.token_, content)  # a used token with other content: refused
                made = handler(command, None, device)
                tokens.remember(command.token_, content)
                return made
            evening = lock_key(command.key, load=command.loads)
            if evening is None:
                return Conflict(Text("There is no such evening."))
            used = tokens.retry_of(command.token_, content, evening, command.token_kind, command.hand_)
            if used is not None:  # answered before any check: the first one made the command stale
                return AlreadySaved(tokens.SAVED_TWICE, used.hand_number, used.hand_id)
            outcome = handler(command, evening, device)
            if outcome.changed and command.token_kind:
                tokens.keep(command.token_, evening, command.token_kind, number=outcome.number,
                            hand_id=outcome.hand_id, content=content)
                db.session.flush()  # two at once: the second one's token collides here
            return outcome
    except IntegrityError:
        return _collided(command, content)
    except RulesError as error:
        return Refused(error.message, error.rule)  # type: ignore[arg-type]
    except ScorerError as error:
        return refusal(error)


def refusal(error: ScorerError) -> Outcome:
    """The outcome of a refusal raised by a handler (or by a write not yet a command)."""
    if isinstance(error, AlreadyCreated):
        return AlreadySaved(error.message, key=error.evening_key or error.group_key)
    if isinstance(error, HandConflict):
        return Conflict(error.message, error.number)
    if isinstance(error, OwnerOnly):
        return Refused(error.message, "owner", forbidden=error.forbidden)
    if isinstance(error, NotAParty):
        return Refused(error.message, "party", forbidden=True)
    return Refused(error.message, None, finished=isinstance(error, EveningFinished))


def _collided(command: Command, content: str | None) -> Outcome:
    """Two at once: the second one's unit rolled back. A retry (its token saved by the
    first, with the same ``content``) is :class:`AlreadySaved`; else the first one changed
    the hand or the table."""
    try:
        with reading():
            tokens.same_content(command.token_, content)
            if not command.scope:
                tokens.creation_retry(command.token_, command.token_kind)
                return Conflict(command.collision)
            evening = get_evening(command.key)
            used = None if evening is None else tokens.token_used(command.token_, evening, command.token_kind,
                                                                   command.hand_)
    except ScorerError as error:
        return refusal(error)
    if used:
        return AlreadySaved(tokens.SAVED_TWICE, used.hand_number, used.hand_id)
    number = getattr(command, "number", None) or 0
    return Conflict(Text(str(command.collision), number=number), number)
