"""Groups of evenings: saving and reading a group, its evenings and merged spellings,
and its season (the bridge between the database and :mod:`scorer.evening.season`).

Every write is one transaction (and a command: :class:`NewGroup`, :class:`AddToGroup`,
:class:`RemoveFromGroup`, :class:`MergeNames`, :class:`UnmergeNames`). A request the group refuses raises
:class:`GroupError`, whose ``str()`` is for users; nothing is saved then. No
function here changes an evening's own facts: a group only collects evenings, and
a merge of spellings only changes how the season counts them.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass, replace
from datetime import date
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from ..evening.ledger import HandError
from ..evening.season import Book, SeasonEvening, name_key, resolve, season_books, shared_table, spellings_in
from ..rules import VARIANTS, Text
from . import tokens, units
from .commands import Command, Device, Saved, handles
from .errors import AlreadyCreated, ScorerError, TokenReused
from .event_models import EventTable
from .kept_ledgers import HEAD_COLUMNS
from .kept_results import season_rows
from .models import Evening, Group, GroupAlias, db


class GroupError(ScorerError):
    """A change the group refuses; ``message`` is an English :class:`~scorer.rules.Text`
    template with its parameters, shown in the phone's language by :func:`scorer.web.i18n.error_text`
    (a command's :class:`~scorer.storage.commands.Refused`)."""


_KEY = re.compile(r"[A-Za-z0-9_-]{1,32}")


def get_group(key: str) -> Group | None:
    """The group with URL key ``key`` (merges loaded), or ``None``."""
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        return None
    return db.session.scalar(sa.select(Group).where(Group.key == key).options(selectinload(Group.aliases)))


@tokens.creating("group")
def create_group(name: str, token: str | None = None) -> Group:
    """Save a new group called ``name`` (trimmed; 1 to 80 characters, checked by the form)
    in a unit of its own (the demo, tests): :func:`scorer.storage.tokens.creating`.

    ``token``: the form's one-time token, saved in the same unit of work; posted again,
    :class:`scorer.storage.errors.AlreadyCreated` names the group the first post made and
    nothing new is saved."""
    return make_group(name, token)


def make_group(name: str, token: str | None) -> Group:
    """Add a group called ``name`` and keep ``token`` with it, in the pending unit of work
    (flushed: two posts at once collide here on the token, and the unit is rolled back)."""
    group = Group(name=" ".join(name.split())[:80])
    db.session.add(group)
    db.session.flush()
    tokens.keep_created(token, "group", group_id=group.id)
    db.session.flush()
    return group


def evening_head(evening_key: str) -> tuple[int, tuple[str, str] | None, dict[str, Any]] | None:
    """``(evening revision, (group key, group name) or None, the evening's row)`` in one
    small query (the scoresheet's), or ``None`` if there is no such evening. The row holds
    :data:`scorer.storage.kept_ledgers.HEAD_COLUMNS` by name, for :func:`scorer.storage.kept_ledgers.settled_many`."""
    found = sheet_head(evening_key)
    return None if found is None else found[:3]


#: :func:`sheet_head`'s statement, built once (its key a parameter), as the role queries are
#: (:mod:`scorer.storage.roles`): building it and its cache key on every page cost about as
#: much as running it.
_SHEET_HEAD = (sa.select(*HEAD_COLUMNS, Group.key.label("group_key"), Group.name.label("group_name"),
                         sa.exists().where(EventTable.evening_id == Evening.id).label("in_event"))
               .outerjoin(Group, Evening.group_id == Group.id).where(Evening.key == sa.bindparam("key")))


def sheet_head(evening_key: str) -> tuple[int, tuple[str, str] | None, dict[str, Any], bool] | None:
    """:func:`evening_head` and, in the same query, whether the evening is a table of an
    event (the scoresheet asks for the event's line only then: most evenings are of none)."""
    if not units.valid_key(evening_key):
        return None
    row = db.session.execute(_SHEET_HEAD, {"key": evening_key}).first()
    if row is None:
        return None
    head = row._asdict()
    group_key, group_name, event = head.pop("group_key"), head.pop("group_name"), head.pop("in_event")
    return head["revision"], None if group_key is None else (group_key, group_name), head, bool(event)


def state(group: Group) -> Hashable:
    """Everything the season depends on, cheaply (two small queries): each evening's
    id, revision, name and date, and the merges. Equal states give equal seasons."""
    evenings = db.session.execute(
        sa.select(Evening.id, Evening.revision, Evening.name, Evening.played_on)
        .where(Evening.group_id == group.id).order_by(Evening.id)
    ).all()
    merges = db.session.execute(
        sa.select(GroupAlias.alias, GroupAlias.canonical).where(GroupAlias.group_id == group.id)
        .order_by(GroupAlias.id)
    ).all()
    return group.key, group.name, tuple(tuple(r) for r in evenings), tuple(tuple(r) for r in merges)


@dataclass(frozen=True)
class EveningLine:
    """One evening on the group page: ``variant`` is the variant's name (a
    translatable text), ``winners`` are names (none before the first hand);
    ``problem`` is the error when a stored hand no longer settles (the evening is
    then left out of the season and says so)."""

    key: str
    name: str
    played_on: date
    variant: Any
    hands: int
    winners: tuple[str, ...]
    money: bool
    problem: HandError | None = None


@dataclass(frozen=True)
class Season:
    """A group's season as plain data (safe to cache): the evening lines, the books,
    every name key used → its latest spelling, and the merges (alias key → key)."""

    lines: tuple[EveningLine, ...]
    books: tuple[Book, ...]
    spellings: dict[str, str]
    aliases: dict[str, str]

    def spelling(self, key: str) -> str:
        return self.spellings.get(key, key)


def _lock(group: Group) -> Group:
    """Begin a change to ``group``'s merges: take its row lock (PostgreSQL ``SELECT …
    FOR UPDATE``; SQLite's write lock is already held) and read its merges again, so two
    phones merging at once (Bob→Bobby and Bobby→Bob) queue instead of making a loop."""
    db.session.execute(sa.select(Group.id).where(Group.id == group.id).with_for_update())
    fresh = db.session.scalar(sa.select(Group).where(Group.id == group.id).options(selectinload(Group.aliases))
                              .execution_options(populate_existing=True))
    assert fresh is not None  # groups are never deleted
    return fresh


def aliases_of(group: Group) -> dict[str, str]:
    return {a.alias: a.canonical for a in group.aliases}


def season_of(group: Group) -> Season:
    """Settle every evening of the group and add them up (see :func:`scorer.evening.season.season_books`).
    Each evening's result is the one kept in the database for its current revision when
    there is one (:func:`scorer.storage.kept_results.season_rows`, issue 23 item 4: any
    process finds it); the others are settled (resuming this process's kept ledgers) and
    kept for every process."""
    lines: list[EveningLine] = []
    settled: list[SeasonEvening] = []
    aliases = aliases_of(group)  # read before the results are kept (a unit of its own)
    for row in season_rows(group.id):
        variant = VARIANTS.get(row.variant)
        base = {"key": row.key, "name": row.name, "played_on": row.played_on,
                "variant": variant.name if variant else row.variant,
                "hands": row.hands, "money": row.stake_minor is not None}
        if row.result is None:
            lines.append(EveningLine(winners=(), problem=row.problem, **base))
            continue
        result = row.result
        winners = tuple(result.setup.players[s] for s in result.winners) if result.hands else ()
        lines.append(EveningLine(winners=winners, **base))
        settled.append(SeasonEvening(row.key, row.name, row.played_on, result))
    spellings = spellings_in([e.ledger.setup.players for e in settled])
    books = tuple(season_books(settled, aliases))
    for book in books:  # the lists of names show each player as the season tables do
        # (only a spelling of the key itself: a book where the player appears only under a
        # merged spelling, "Bobby" for "bob", must not rename "bob" in the lists)
        spellings.update({p.key: p.name for p in book.players if p.key in spellings and name_key(p.name) == p.key})
    return Season(tuple(lines), books, spellings, aliases)


def evening_key_from(text: str) -> str | None:
    """The evening key in a pasted link (``https://…/e/<key>``, with anything after it)
    or a bare key; ``None`` if there is none."""
    text = (text or "").strip()
    found = re.search(r"/e/([A-Za-z0-9_-]{1,32})(?![A-Za-z0-9_-])", text)
    if found:
        return found.group(1)
    return text if _KEY.fullmatch(text) else None


@units.write
def add_evening(group: Group, text: str) -> Evening:
    """Put the evening whose link or key is ``text`` into ``group``.

    Raises :class:`GroupError` (nothing saved) if there is no such evening, or it is
    in this group already, or in another group (remove it there first).
    """
    key = evening_key_from(text)
    evening = units.get_evening(key) if key else None
    if evening is None:
        raise GroupError(Text("No evening has that link. Paste the address of the evening's scoresheet, "
                           "or its key (the part after /e/)."))
    if evening.group_id == group.id:
        raise GroupError(Text("“{name}” is in this group already.", name=evening.name))
    if evening.group_id is not None:
        raise GroupError(Text("“{name}” belongs to another group. Remove it from that group's page first.",
                           name=evening.name))
    # only if it is still in no group: two groups adding it at once cannot both succeed
    moved = db.session.execute(sa.update(Evening).where(Evening.id == evening.id, Evening.group_id.is_(None))
                               .values(group_id=group.id).execution_options(synchronize_session=False))
    if moved.rowcount != 1:  # type: ignore[attr-defined]
        raise GroupError(Text("“{name}” belongs to another group. Remove it from that group's page first.",
                              name=evening.name))
    return evening


@units.write
def remove_evening(group: Group, evening_key: str) -> Evening:
    """Take an evening out of the group (the evening itself is unchanged and can be
    added again). Raises :class:`GroupError` if it is not in the group."""
    evening = units.get_evening(evening_key) if isinstance(evening_key, str) else None
    if evening is None or evening.group_id != group.id:
        raise GroupError(Text("That evening is not in this group."))
    from .events import event_of_evening  # events reads groups' evenings

    place = event_of_evening(evening)
    if place is not None:  # the club night's standings and the season count its tables together
        raise GroupError(Text("That evening is table {table} of round {round} of the club night {name}: it stays in "
                              "the club night's group.", table=place.table.number, round=place.round.number,
                              name=place.event.name))
    db.session.execute(sa.update(Evening).where(Evening.id == evening.id).values(group_id=None))
    return evening


@units.write
def merge(group: Group, alias_name: str, canonical_name: str) -> GroupAlias:
    """Count the player spelt ``alias_name`` as ``canonical_name`` in this group's season.

    Both must be names used in the group's evenings. Raises :class:`GroupError`
    (nothing saved) when they are already one player, when ``alias_name`` is already
    merged into someone, or when the two sat at the same table (two people).
    """
    group = _lock(group)
    alias, canonical = name_key(alias_name or ""), name_key(canonical_name or "")
    evenings = list(db.session.scalars(
        sa.select(Evening).where(Evening.group_id == group.id).options(selectinload(Evening.players))
        .order_by(Evening.played_on, Evening.id)))
    tables = [[p.name for p in e.players] for e in evenings]
    known = spellings_in(tables)
    if alias not in known or canonical not in known:
        raise GroupError(Text("Choose two names from the lists: both must have played in this group."))
    aliases = aliases_of(group)
    shown = {"alias": " ".join(alias_name.split()), "canonical": " ".join(canonical_name.split())}  # as chosen
    if resolve(alias, aliases) == resolve(canonical, aliases):
        raise GroupError(Text("{alias} and {canonical} already count as one player.", **shown))
    if alias in aliases:
        raise GroupError(Text("{alias} is already merged into {other}: un-merge that first.",
                           alias=known[alias], other=known.get(aliases[alias], aliases[alias])))
    index = shared_table(tables, aliases, alias, canonical)
    if index is not None:
        both = evenings[index]
        raise GroupError(Text("{alias} and {canonical} both played at “{evening}” ({date}): they are two "
                           "players, so they cannot be merged.", evening=both.name,
                           date=both.played_on.isoformat(), **shown))
    row = GroupAlias(group_id=group.id, alias=alias, canonical=canonical)
    try:
        with db.session.begin_nested():  # a merge of the same spelling saved meanwhile
            db.session.add(row)
    except IntegrityError:
        raise GroupError(Text("{alias} is already merged into another name.", **shown)) from None
    return row


@units.write
def unmerge(group: Group, alias_id: int) -> None:
    """Undo one merge (the spellings count apart again). Raises :class:`GroupError`
    if the group has no such merge."""
    group = _lock(group)
    row = next((a for a in group.aliases if a.id == alias_id), None)
    if row is None:
        raise GroupError(Text("That merge is not in this group (perhaps it was undone already)."))
    db.session.delete(row)


# --------------------------------------------------------------------------- as commands
# A group's link is its key: holding it is enough to manage it. The commands write no one
# evening (scope ""): each handler finds its group and keeps its token with the group.
@dataclass(frozen=True)
class NewGroup(Command):
    """Start a group called ``name``; ``key`` is unused ("")."""

    name: str
    token: str | None = None
    key: str = ""
    token_kind: ClassVar[str] = "group"
    scope: ClassVar[str] = ""


@dataclass(frozen=True)
class AddToGroup(Command):
    """Put the evening whose link or key is ``link`` into group ``key``."""

    key: str
    link: str
    token: str | None = None
    token_kind: ClassVar[str] = "group_add"
    scope: ClassVar[str] = ""

    @property
    def digested(self) -> AddToGroup:
        """The evening by its key, however it was pasted (a retry may paste it otherwise)."""
        return replace(self, link=evening_key_from(self.link) or self.link)


@dataclass(frozen=True)
class RemoveFromGroup(Command):
    """Take evening ``evening`` (its key) out of group ``key``."""

    key: str
    evening: str
    token: str | None = None
    token_kind: ClassVar[str] = "group_remove"
    scope: ClassVar[str] = ""


@dataclass(frozen=True)
class MergeNames(Command):
    """Count the player spelt ``alias`` as ``canonical`` in group ``key``'s season."""

    key: str
    alias: str
    canonical: str
    token: str | None = None
    token_kind: ClassVar[str] = "merge"
    scope: ClassVar[str] = ""


@dataclass(frozen=True)
class UnmergeNames(Command):
    """Undo merge ``merge_id`` of group ``key``."""

    key: str
    merge_id: int
    token: str | None = None
    token_kind: ClassVar[str] = "unmerge"
    scope: ClassVar[str] = ""


def _group_of(command: Command) -> Group:
    """The command's group, its token checked: a retry (the same command on this group)
    raises :class:`AlreadyCreated` naming it, a token used elsewhere :class:`TokenReused`."""
    group = get_group(command.key)
    if group is None:
        raise GroupError(Text("There is no such group."))
    try:
        tokens.creation_retry(command.token_, command.token_kind)
    except AlreadyCreated as again:
        if again.group_key != group.key:
            raise TokenReused(tokens.REUSED) from None
        raise
    return group


def _written(command: Command, group: Group, detail: Any = None) -> Saved:
    tokens.keep_created(command.token_, command.token_kind, group_id=group.id)
    return Saved(group.key, detail=detail)


@handles(NewGroup)
def _new(command: NewGroup, evening: None, device: Device) -> Saved:
    tokens.creation_retry(command.token, command.token_kind)  # posted twice: AlreadyCreated, nothing made
    return Saved(make_group(command.name, command.token).key)


@handles(AddToGroup)
def _add(command: AddToGroup, evening: None, device: Device) -> Saved:
    group = _group_of(command)
    return _written(command, group, add_evening(group, command.link).name)


@handles(RemoveFromGroup)
def _remove(command: RemoveFromGroup, evening: None, device: Device) -> Saved:
    group = _group_of(command)
    return _written(command, group, remove_evening(group, command.evening).name)


@handles(MergeNames)
def _merge(command: MergeNames, evening: None, device: Device) -> Saved:
    group = _group_of(command)
    merge(group, command.alias, command.canonical)
    return _written(command, group)


@handles(UnmergeNames)
def _unmerge(command: UnmergeNames, evening: None, device: Device) -> Saved:
    group = _group_of(command)
    unmerge(group, command.merge_id)
    return _written(command, group)
