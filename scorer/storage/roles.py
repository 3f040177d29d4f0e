"""Phones and their roles at tables, in the database: the device rows, who is a scorer,
the tables a phone has opened, revoking a phone and new credentials.

A phone is known by a random id (its cookie, :mod:`scorer.web.devices`), stored here only
as a hash (:class:`~scorer.storage.models.Device`); the database keeps, per phone and
table (:class:`~scorer.storage.models.TableAccess`), whether it opened the table, how it
became a scorer, and its wrong PINs. A scorer can revoke another phone, but not the
table's owner (:func:`is_owner_row`); the owner alone changes the PIN and the scorers'
link (which makes every phone that became a scorer with the old ones a viewer again) or
hands the table to another scorer (:mod:`scorer.storage.table_access`).

PIN guessing is bounded per phone, per network and per table (counted in the
database, so clearing cookies resets nothing): :mod:`scorer.storage.pin_budget`. A
locked-out phone can still use the scorers' link.

Every function takes the phone (its :class:`~scorer.storage.models.Device` row) as an
argument: which phone a request comes from is the web layer's (:mod:`scorer.web.access`).
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from .models import Device, Evening, TableAccess, db, utcnow
from .units import writing

#: How the table's owner became a scorer: "start" and "import" (the phone that created
#: the table) or "owner" (the phone it was handed to). An owner's grant outlives a
#: change of the PIN and the scorers' link; "link" and "pin" do not. A table has one
#: owner: handing it over makes the old owner's row a "link" grant (no migration: the
#: ``via`` column says it), so every table created before owners existed is owned by
#: its creator.
OWNER_GRANTS = ("start", "import", "owner")


def token_hash(token: str) -> str:
    """What the database keeps of a device id: its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


#: The role queries, built once with their values as parameters: building a select and its
#: cache key on every request cost about as much as running it (~0.1 ms each, every page
#: and every live change asks one).
_DEVICE = sa.select(Device).where(Device.token_hash == sa.bindparam("token_hash"))
_ROLE = (sa.select(TableAccess, Evening.access_generation).join(Evening, TableAccess.evening_id == Evening.id)
         .where(Evening.key == sa.bindparam("key"), TableAccess.device_id == sa.bindparam("device_id")))
_ROLE_BY_TOKEN = (
    sa.select(TableAccess.via, TableAccess.revoked_at, TableAccess.generation, Evening.access_generation)
    .join(Evening, TableAccess.evening_id == Evening.id).join(Device, TableAccess.device_id == Device.id)
    .where(Evening.key == sa.bindparam("key"), Device.token_hash == sa.bindparam("token_hash")))
_AT_TABLE = sa.join(TableAccess, Evening, sa.and_(TableAccess.evening_id == Evening.id,
                                                  Evening.key == sa.bindparam("key")))
_DEVICE_AND_ROLE = (
    sa.select(Device, TableAccess.via, TableAccess.revoked_at, TableAccess.generation, Evening.access_generation)
    .select_from(sa.outerjoin(Device, _AT_TABLE, TableAccess.device_id == Device.id))
    .where(Device.token_hash == sa.bindparam("token_hash")))


def find_device(token: str) -> Device | None:
    """The device row of the id ``token``, or ``None``."""
    return db.session.scalar(_DEVICE, {"token_hash": token_hash(token)})


def add_device(token: str, tag: str, model: str) -> Device | None:
    """The device row of ``token``, made now (``tag`` tells two of one ``model`` apart)
    unless another request of the same phone made it a moment ago."""
    try:
        with writing():
            device = Device(token_hash=token_hash(token), tag=tag, model=model[:20])
            db.session.add(device)
    except IntegrityError:  # the same phone's other request made it a moment ago
        return find_device(token)
    return device


def rekey_device(device: Device, token: str) -> None:
    """Give ``device`` the new id ``token``: its row (its name, roles and tables) is now
    found by the new id only; the old id names no phone any more (issue 21 item 3)."""
    with writing():
        fresh = db.session.get(Device, device.id)
        assert fresh is not None
        fresh.token_hash = token_hash(token)
    device.token_hash = token_hash(token)


def rename_device(device: Device, name: str) -> Device:
    """Name the phone (at most 40 characters, spaces tidied; blank: back to the guess)."""
    clean = " ".join(str(name).split())[:40]
    with writing():
        fresh = db.session.get(Device, device.id)
        assert fresh is not None
        fresh.name = clean
    return fresh


def holds_role(row: TableAccess | None, generation: int) -> bool:
    """Whether a phone's row makes it a scorer of a table whose credentials are at
    ``generation`` (:attr:`~scorer.storage.models.Evening.access_generation`)."""
    if row is None or not row.via or row.revoked_at is not None:
        return False
    return row.via in OWNER_GRANTS or row.generation == generation


def is_owner_row(row: TableAccess | None) -> bool:
    """Whether ``row`` is the table's owner: an owner's grant not revoked. No scorer can
    revoke the owner now; a creator revoked before owners existed owns nothing (such a
    table has no owner: no phone renews its credentials or hands it over)."""
    return row is not None and row.via in OWNER_GRANTS and row.revoked_at is None


def owner_of(evening: Evening) -> TableAccess | None:
    """The row of ``evening``'s owner, or ``None`` (see :func:`is_owner_row`)."""
    return db.session.scalar(sa.select(TableAccess).where(
        TableAccess.evening_id == evening.id, TableAccess.via.in_(OWNER_GRANTS), TableAccess.revoked_at.is_(None))
        .options(selectinload(TableAccess.device)).order_by(TableAccess.id).limit(1))


def is_scorer(device: Device | None, key: str) -> bool:
    """Whether ``device`` may enter and correct hands at table ``key`` (one query; none
    without a device)."""
    found = None if device is None or not isinstance(key, str) else db.session.execute(
        _ROLE, {"key": key, "device_id": device.id}).first()
    return found is not None and holds_role(found[0], found[1])


def is_scorer_by_token(token: str, key: str) -> bool:
    """:func:`is_scorer` of the device whose id is ``token`` (:func:`find_device`) in one query,
    for a request that needs nothing else of the device's row: its row at the table, found by
    the device id's hash, read as :func:`holds_role` needs it."""
    found = db.session.execute(_ROLE_BY_TOKEN, {"key": key, "token_hash": token_hash(token)}).first()
    return found is not None and holds_role(found, found.access_generation)  # type: ignore[arg-type]


def device_and_role(token: str, key: str) -> tuple[Device | None, bool]:
    """:func:`find_device` of ``token`` and :func:`is_scorer` of that device at table ``key``, in
    one query: the device's row with its row at the table, if any (a page reads both)."""
    found = db.session.execute(_DEVICE_AND_ROLE, {"key": key, "token_hash": token_hash(token)}).first()
    if found is None:
        return None, False
    return found[0], holds_role(found, found.access_generation)  # type: ignore[arg-type]


def evening_id(key: str) -> int | None:
    """The row id of the evening with URL key ``key``, or ``None``."""
    return db.session.scalar(sa.select(Evening.id).where(Evening.key == key)) if isinstance(key, str) else None


def access_row(device: Device, evening: Evening) -> TableAccess:
    """``device``'s row at ``evening`` in the pending unit of work, made if missing."""
    row = db.session.scalar(sa.select(TableAccess).where(TableAccess.device_id == device.id,
                                                         TableAccess.evening_id == evening.id))
    if row is None:
        row = TableAccess(device_id=device.id, evening_id=evening.id, seen_at=utcnow(), via="", generation=0,
                          pin_failures=0)
        db.session.add(row)
    return row


def is_removed(row: TableAccess | None, generation: int) -> bool:
    """Whether ``row``'s phone was removed as a scorer while the table's credentials were
    at ``generation`` (the current one): it cannot come back by the PIN or the scorers'
    link until the owner renews them (the found bug of issue 21: it rejoined at once)."""
    return row is not None and row.revoked_at is not None and row.generation >= generation


def removed_from(device: Device | None, key: str) -> bool:
    """Whether ``device`` was removed as a scorer at table ``key`` since the table's PIN
    and scorers' link were last renewed (:func:`is_removed`)."""
    found = None if device is None else db.session.execute(
        sa.select(TableAccess, Evening.access_generation).join(Evening, TableAccess.evening_id == Evening.id)
        .where(Evening.key == key, TableAccess.device_id == device.id)).first()
    return found is not None and is_removed(found[0], found[1])


def grant(device: Device, key: str, via: str) -> None:
    """Make ``device`` a scorer at table ``key`` (``via``: "start", "import", "link" or
    "pin"), and remember the table. A phone removed as a scorer is not granted anything
    by the link or the PIN until the owner renews them (:func:`is_removed`); after that,
    with the new ones, it is a scorer again."""
    with writing():
        evening = db.session.scalar(sa.select(Evening).where(Evening.key == key))
        if evening is None:
            return
        row = access_row(device, evening)
        if via in ("link", "pin") and is_removed(row, evening.access_generation):
            return
        if not is_owner_row(row):  # the owner coming back by the link stays the owner
            row.via = via
        row.generation, row.revoked_at, row.granted_at, row.seen_at = (evening.access_generation, None, utcnow(),
                                                                       utcnow())


def seen(device: Device, key: str) -> None:
    """Write that ``device`` has opened table ``key`` now."""
    with writing():
        evening = db.session.scalar(sa.select(Evening).where(Evening.key == key))
        if evening is None:
            return
        access_row(device, evening).seen_at = utcnow()


def seen_keys(device: Device) -> list[str]:
    """The tables ``device`` has opened, most recent first (at most 100)."""
    return list(db.session.scalars(
        sa.select(Evening.key).join(TableAccess, TableAccess.evening_id == Evening.id)
        .where(TableAccess.device_id == device.id).order_by(TableAccess.seen_at.desc(), TableAccess.id.desc())
        .limit(100)))


def scorers_of(evening: Evening) -> list[tuple[TableAccess, bool]]:
    """Every phone that was made a scorer at ``evening``, and whether it still is, newest first."""
    rows = db.session.scalars(
        sa.select(TableAccess).where(TableAccess.evening_id == evening.id, TableAccess.via != "")
        .options(selectinload(TableAccess.device)).order_by(TableAccess.granted_at.desc(), TableAccess.id.desc()))
    return [(row, holds_role(row, evening.access_generation)) for row in rows]
