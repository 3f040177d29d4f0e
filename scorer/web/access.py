"""Who may do what at a table: viewers read, scorers enter and correct.

A table's link (``/e/<key>``, 128 random bits) lets anyone who has it watch the
scoresheet. Scorers are the phones that started or imported the evening, opened the
scorers' link (``/e/<key>/scorer/<edit_key>``), or typed the table's six-digit PIN.

A phone is known by a random id in the ``nap_device`` cookie, kept for 400 days (the
most a browser keeps one), so a browser restart loses nothing; the database keeps, per
phone and table (:class:`~scorer.storage.models.TableAccess`), whether it opened the table,
how it became a scorer, and its wrong PINs. The session cookie only carries the CSRF
token and messages, so it stays small however many tables a phone has seen. A scorer
can revoke another phone, or change the PIN and the scorers' link, which makes every
phone that became a scorer with the old ones a viewer again.

PIN guessing is bounded twice, because every phone at a table shares one IP address:
:data:`SESSION_TRIES` wrong PINs per phone per :data:`WINDOW`, and a looser
:data:`TABLE_TRIES` per table per window (both counted in the database, so clearing
cookies resets neither for long). A locked-out phone can still use the scorers' link.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from flask import current_app, g, request, session
from flask_babel import gettext as _
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from ..rules import Text
from ..storage.commands import Device as Sender
from ..storage.commands import Refused, Saved, execute
from ..storage.models import Device, Evening, TableAccess, db, utcnow
from ..storage.table_access import NameDevice, access_row
from ..storage.units import writing

#: Wrong PINs one phone may try per window before it must wait.
SESSION_TRIES = 5
#: Wrong PINs all sessions together may try at one table per window.
TABLE_TRIES = 30
#: The window both budgets count over.
WINDOW = timedelta(minutes=15)

#: The device cookie: a random id, kept for 400 days (browsers keep a cookie at most that long).
DEVICE_COOKIE = "nap_device"
DEVICE_COOKIE_AGE = 400 * 24 * 3600
_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")
#: How a phone may have become a scorer; "start" and "import" (the table's creator)
#: outlive a change of the PIN and the scorers' link, "link" and "pin" do not.
CREATOR_GRANTS = ("start", "import")
#: How often (seconds) a phone's "last seen" at a table is written again.
SEEN_EVERY = 3600
_recently_seen: dict[tuple[int, str], float] = {}


#: What a route lets a phone do, declared on every route with :func:`permission` and
#: checked before the view runs (:func:`scorer.web.views.common.check_permission`):
#:
#: - ``public``: nothing keyed (the start page, import, a new group, the language menu);
#: - ``view``: anyone holding the table's (or group's) link reads;
#: - ``score``: the table's scorers record, correct, undo and overrule hands;
#: - ``manage``: the table's scorers change the table itself (settings, finish, reopen);
#:   for a group, whoever holds its link (its key is its credential).
#:
#: A later ``dispute`` (any phone raising a claim) fits between ``view`` and ``score``.
LEVELS = ("public", "view", "score", "manage")
#: What the route's ``key`` names: an evening (a table) or a group.
SUBJECTS = ("evening", "group")


def permission(level: str, of: str = "evening") -> Any:
    """Declare what a route needs: ``@permission("score")`` under ``@bp.post(…)``.

    ``level`` is one of :data:`LEVELS`; ``of`` what the URL's ``key`` is (:data:`SUBJECTS`).
    Raises ``ValueError`` at import time for an unknown level or subject. A route with
    no declaration is refused (and a test fails on it)."""
    if level not in LEVELS or of not in SUBJECTS:
        raise ValueError(f"unknown permission {level!r} of {of!r}")

    def declare(view: Any) -> Any:
        view.permission = (level, of)
        return view

    return declare


def permission_of(view: Any) -> tuple[str, str] | None:
    """``(level, subject)`` declared on a view function, or ``None`` if undeclared."""
    return getattr(view, "permission", None)


class PinRefused(Exception):
    """The PIN was not checked: too many wrong tries; ``str()`` says how long to wait."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _cookie_token() -> str | None:
    """The device id this phone sent (or was just given in this response), if well formed."""
    token = g.get("nap_new_device_token") or request.cookies.get(DEVICE_COOKIE, "")
    return token if _TOKEN.fullmatch(token) else None


def _give_token() -> str:
    """A new device id for this phone (sent with the response by :func:`set_device_cookie`)."""
    g.nap_new_device_token = secrets.token_urlsafe(24)
    return g.nap_new_device_token  # type: ignore[no-any-return]


def current_device(create: bool = False) -> Device | None:
    """This phone's :class:`~scorer.storage.models.Device` (from its cookie), or ``None``; with
    ``create``, its row is made when missing, for the id in its cookie or a new one (the
    cookie is set on the response by :func:`set_device_cookie`). Cached for the request."""
    if "nap_device" in g and (g.nap_device is not None or not create):
        return g.nap_device  # type: ignore[no-any-return]
    token = _cookie_token()
    device = db.session.scalar(sa.select(Device).where(Device.token_hash == _hash(token))) if token else None
    if device is None and create:
        token = token or _give_token()
        try:
            with writing():
                device = Device(token_hash=_hash(token), tag=secrets.token_hex(2)[:3],
                                model=guess_device(request.headers.get("User-Agent", ""))[:20])
                db.session.add(device)
        except IntegrityError:  # the same phone's other request made it a moment ago
            device = db.session.scalar(sa.select(Device).where(Device.token_hash == _hash(token)))
    g.nap_device = device
    return device


def set_device_cookie(response: Any) -> Any:
    """Give a phone seen for the first time its device cookie (an ``after_request`` step)."""
    token = g.get("nap_new_device_token")
    if token:
        response.set_cookie(DEVICE_COOKIE, token, max_age=DEVICE_COOKIE_AGE, httponly=True, samesite="Lax",
                            secure=request.is_secure or bool(current_app.config.get("SESSION_COOKIE_SECURE")))
    return response


def holds_role(row: TableAccess | None, generation: int) -> bool:
    """Whether a phone's row makes it a scorer of a table whose credentials are at
    ``generation`` (:attr:`~scorer.storage.models.Evening.access_generation`)."""
    if row is None or not row.via or row.revoked_at is not None:
        return False
    return row.via in CREATOR_GRANTS or row.generation == generation


def is_scorer(key: str) -> bool:
    """Whether this phone may enter and correct hands at table ``key``: one query (none
    for a phone without a device id), cached for the request."""
    cache: dict[str, bool] = g.setdefault("nap_scorer_of", {})
    if key not in cache:
        device = current_device()
        found = None if device is None or not isinstance(key, str) else db.session.execute(
            sa.select(TableAccess, Evening.access_generation).join(Evening, TableAccess.evening_id == Evening.id)
            .where(Evening.key == key, TableAccess.device_id == device.id)).first()
        cache[key] = found is not None and holds_role(found[0], found[1])
    return cache[key]


def _row_for(evening: Evening) -> TableAccess:
    """This phone's row at ``evening`` in the pending unit of work, made if missing."""
    device = current_device(create=True)
    assert device is not None
    return access_row(evening, device.id)


def grant_scorer(key: str, via: str = "link") -> None:
    """Make this phone a scorer at table ``key`` (``via``: "start", "import", "link" or
    "pin"), and remember the table. A revoked phone that comes back through the link or
    PIN is a scorer again."""
    current_device(create=True)
    with writing():
        evening = db.session.scalar(sa.select(Evening).where(Evening.key == key))
        if evening is None:
            return
        row = _row_for(evening)
        if not (row.via in CREATOR_GRANTS and row.revoked_at is None):
            row.via = via
        row.generation, row.revoked_at, row.granted_at, row.seen_at = (evening.access_generation, None, utcnow(),
                                                                       utcnow())
    g.pop("nap_scorer_of", None)


def remember(key: str) -> None:
    """Remember that this phone has opened table ``key`` (the home page lists it); written
    at most once an hour per phone and table. A phone seen for the first time is only
    given its cookie: its row is written when it comes back with it, so a client that
    keeps no cookies (a script, a poll) never writes anything by reading."""
    if "nap_new_device_token" in g:
        return  # given its id in this very response
    if _cookie_token() is None:
        _give_token()
        return
    device = current_device(create=True)
    if device is None or not isinstance(key, str):
        return
    now = time.time()
    if now - _recently_seen.get((device.id, key), 0) < SEEN_EVERY:
        return
    with writing():
        evening = db.session.scalar(sa.select(Evening).where(Evening.key == key))
        if evening is None:
            return
        _row_for(evening).seen_at = utcnow()
    if len(_recently_seen) > 10_000:
        _recently_seen.clear()
    _recently_seen[(device.id, key)] = now


def seen_keys() -> list[str]:
    """The tables this phone has opened, most recent first (at most 100)."""
    device = current_device()
    if device is None:
        return []
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


def forget_roles() -> None:
    """Forget this request's answers of :func:`is_scorer` (a command changed the roles)."""
    g.pop("nap_scorer_of", None)


def adopt_session_roles() -> None:
    """Phones that became scorers before roles moved to the database (migration 0011)
    keep them: the old session's list is copied to this phone's rows once, then dropped."""
    keys = session.pop("scorer_of", None)
    seen = session.pop("seen", None)
    session.pop("pin_fails", None)
    name = session.pop("device", None)
    session.pop("device_tag", None)
    if not keys and not seen and not name:
        return
    if isinstance(name, str) and name:
        set_device_name(name)
    for key in (seen if isinstance(seen, list) else [])[:100]:
        remember(str(key)[:32])
    for key in (keys if isinstance(keys, list) else [])[:100]:
        grant_scorer(str(key)[:32], via="link")


def edit_key_matches(evening: Evening, edit_key: str) -> bool:
    """Constant-time check of a scorers' link."""
    return hmac.compare_digest(evening.edit_key.encode(), str(edit_key)[:64].encode())


def try_pin(evening: Evening, pin: str) -> bool:
    """Check ``pin`` against the table's PIN and make this session a scorer if right.

    Returns ``False`` for a wrong PIN (counted against both budgets). Raises
    :class:`PinRefused` without checking when this session has used its
    :data:`SESSION_TRIES` or the table its :data:`TABLE_TRIES` in the window.
    The table's counter is updated in its own short transactions, atomically.
    """
    current_device(create=True)
    with writing():
        row = _row_for(evening)
        if row.pin_window_start is not None and _aware(row.pin_window_start) < utcnow() - WINDOW:
            row.pin_failures, row.pin_window_start = 0, None
        fails, started = row.pin_failures, row.pin_window_start
    if fails >= SESSION_TRIES and started is not None:
        wait = int((WINDOW - (utcnow() - _aware(started))).total_seconds()) // 60 + 1
        raise PinRefused(_("Too many wrong PINs from this phone. Try again in %(minutes)s min, or ask a "
                           "scorer for the scorers' link.", minutes=wait))
    # reserve one try from the table's budget in a single UPDATE, so a burst of guesses
    # from many sessions at once cannot overdraw it (each UPDATE waits for the row)
    now = utcnow()
    expired = sa.or_(Evening.pin_window_start.is_(None), Evening.pin_window_start < now - WINDOW)
    with writing():
        reserved = db.session.execute(
            sa.update(Evening)
            .where(Evening.id == evening.id, sa.or_(expired, Evening.pin_failures < TABLE_TRIES))
            .values(pin_failures=sa.case((expired, 1), else_=Evening.pin_failures + 1),
                    pin_window_start=sa.case((expired, now), else_=Evening.pin_window_start))
            .execution_options(synchronize_session=False)
        )
    if reserved.rowcount != 1:  # type: ignore[attr-defined]
        raise PinRefused(_("Too many wrong PINs at this table. PIN entry is paused for a few minutes; "
                           "a scorer can share the scorers' link instead."))
    candidate = re.sub(r"\s+", "", str(pin))[:12]
    if hmac.compare_digest(evening.pin.encode(), candidate.encode()):
        # a right PIN is not a failure: give the try back
        with writing():
            db.session.execute(sa.update(Evening).where(Evening.id == evening.id, Evening.pin_failures > 0)
                               .values(pin_failures=Evening.pin_failures - 1)
                               .execution_options(synchronize_session=False))
        grant_scorer(evening.key, via="pin")
        return True
    with writing():
        row = _row_for(evening)
        row.pin_failures += 1
        row.pin_window_start = row.pin_window_start or utcnow()
    return False


def phone_name(device: Device | None, user_agent: str = "") -> str:
    """How a phone is named in the history and the scorers' list: the name the user set,
    else a guess from the browser and a short tag that tells two of one make apart."""
    if device is not None and device.name:
        return device.name
    # this phone's own browser says what it is; another phone's is what it said when first seen
    guess = guess_device(user_agent) if user_agent or device is None or not device.model else device.model
    return f"{guess} {device.tag}" if device is not None and device.tag else guess


def device_id() -> int | None:
    """This phone's :class:`~scorer.storage.models.Device` row id, or ``None`` (no cookie yet)."""
    device = current_device()
    return device.id if device is not None else None


def device_name() -> str:
    """The name this phone goes by in the history (see :func:`phone_name`)."""
    return phone_name(current_device(), request.headers.get("User-Agent", ""))


def set_device_name(name: str) -> None:
    """Name this phone (at most 40 characters; blank goes back to the guess): the
    :class:`~scorer.storage.table_access.NameDevice` command, for this phone's row."""
    device = current_device(create=True)  # a phone seen for the first time is saved first, on its own
    assert device is not None
    execute(NameDevice(name), device=Sender(device_name(), device.id))
    forget_device()


def forget_device() -> None:
    """Forget this request's :func:`current_device` (a command changed its row): read again."""
    g.pop("nap_device", None)


def join(evening: Evening, pin: str) -> Saved | Refused:
    """Become a scorer with the table's PIN: :func:`try_pin` as an outcome (rule "pin"
    for a wrong PIN, "pin_paused" when PIN entry is paused). A phone that is a scorer
    already tries no PIN. Not a command: wrong PINs are counted even when refused, in
    several short units of work (see :func:`try_pin`)."""
    if is_scorer(evening.key):
        return Saved(evening.key, changed=False)
    try:
        joined = try_pin(evening, pin)
    except PinRefused as error:
        return Refused(Text(str(error)), "pin_paused")
    if not joined:
        return Refused(Text(_("That is not this table's PIN.")), "pin")
    return Saved(evening.key)


def _aware(moment: datetime) -> datetime:
    """SQLite gives back naive datetimes (stored in UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def guess_device(user_agent: str) -> str:
    """A short, readable name for a browser from its User-Agent string."""
    ua = user_agent or ""
    for needle, name in (("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android phone"),
                         ("Windows", "Windows PC"), ("Macintosh", "Mac"), ("CrOS", "Chromebook"),
                         ("Linux", "Linux PC")):
        if needle in ua:
            return name
    return "a browser" if ua else "unknown device"

