"""Who may do what at a table: viewers read, scorers enter and correct.

A table's link (``/e/<key>``, 128 random bits) lets anyone who has it watch the
scoresheet. Scorers are the browser sessions that started or imported the evening,
opened the scorers' link (``/e/<key>/scorer/<edit_key>``), or typed the table's
six-digit PIN. The role is kept in the signed session cookie, per evening key.

PIN guessing is bounded twice, because every phone at a table shares one IP address:
:data:`SESSION_TRIES` wrong PINs per browser session per :data:`WINDOW`, and a looser
:data:`TABLE_TRIES` per table per window (counted in the database, so clearing
cookies does not reset it). A locked-out session can still use the scorers' link.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from flask import request, session
from flask_babel import gettext as _

from .models import Evening, db, utcnow
from .services import writing

#: Wrong PINs one browser session may try per window before it must wait.
SESSION_TRIES = 5
#: Wrong PINs all sessions together may try at one table per window.
TABLE_TRIES = 30
#: The window both budgets count over.
WINDOW = timedelta(minutes=15)

_SCORER = "scorer_of"
_SEEN = "seen"
_FAILS = "pin_fails"
_DEVICE = "device"
_DEVICE_TAG = "device_tag"
_KEEP = 60  # evenings remembered per session (the cookie stays small)


#: What a route lets a phone do, declared on every route with :func:`permission` and
#: checked before the view runs (:func:`scorer.views.common.check_permission`):
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


def is_scorer(key: str) -> bool:
    """Whether this browser session may enter and correct hands at table ``key``."""
    return key in session.get(_SCORER, [])


def grant_scorer(key: str) -> None:
    """Make this browser session a scorer at table ``key`` (and remember the table)."""
    keys = [k for k in session.get(_SCORER, []) if k != key]
    session[_SCORER] = [*keys, key][-_KEEP:]
    remember(key)


def remember(key: str) -> None:
    """Remember that this browser has seen table ``key`` (the home page lists it)."""
    seen = session.get(_SEEN, [])
    if seen and seen[-1] == key:
        return  # already the latest: leave the session (and its cookie) unchanged
    keys = [k for k in seen if k != key]
    session[_SEEN] = [*keys, key][-_KEEP:]


def seen_keys() -> list[str]:
    """The tables this browser has opened, most recent first."""
    return list(reversed(session.get(_SEEN, [])))


def edit_key_matches(evening: Evening, edit_key: str) -> bool:
    """Constant-time check of a scorers' link."""
    return hmac.compare_digest(evening.edit_key.encode(), str(edit_key)[:64].encode())


def _session_fails(key: str) -> list[float]:
    now = time.time()
    fails: dict[str, list[float]] = session.get(_FAILS, {})
    return [t for t in fails.get(key, []) if now - t < WINDOW.total_seconds()]


def try_pin(evening: Evening, pin: str) -> bool:
    """Check ``pin`` against the table's PIN and make this session a scorer if right.

    Returns ``False`` for a wrong PIN (counted against both budgets). Raises
    :class:`PinRefused` without checking when this session has used its
    :data:`SESSION_TRIES` or the table its :data:`TABLE_TRIES` in the window.
    The table's counter is updated in its own short transactions, atomically.
    """
    recent = _session_fails(evening.key)
    if len(recent) >= SESSION_TRIES:
        wait = int(WINDOW.total_seconds() - (time.time() - min(recent))) // 60 + 1
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
        grant_scorer(evening.key)
        return True
    fails: dict[str, list[float]] = dict(session.get(_FAILS, {}))
    fails[evening.key] = [*recent, time.time()]
    session[_FAILS] = {k: v for k, v in fails.items() if v}
    return False


def device_name() -> str:
    """The name this phone goes by in the history: the one the user set, else a
    guess from the browser (``"iPhone"``, ``"Android phone"``, ``"Firefox"``…)."""
    name = session.get(_DEVICE)
    if isinstance(name, str) and name:
        return name
    # two phones of one make would look alike in the history: add a short tag that this
    # browser keeps ("iPhone 4f2")
    tag = session.get(_DEVICE_TAG)
    if not isinstance(tag, str) or not re.fullmatch(r"[0-9a-f]{3}", tag):
        tag = session[_DEVICE_TAG] = secrets.token_hex(2)[:3]
    return f"{guess_device(request.headers.get('User-Agent', ''))} {tag}"


def set_device_name(name: str) -> None:
    """Name this phone (at most 40 characters; blank goes back to the guess)."""
    clean = " ".join(str(name).split())[:40]
    if clean:
        session[_DEVICE] = clean
    else:
        session.pop(_DEVICE, None)


def guess_device(user_agent: str) -> str:
    """A short, readable name for a browser from its User-Agent string."""
    ua = user_agent or ""
    for needle, name in (("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android phone"),
                         ("Windows", "Windows PC"), ("Macintosh", "Mac"), ("CrOS", "Chromebook"),
                         ("Linux", "Linux PC")):
        if needle in ua:
            return name
    return "a browser" if ua else "unknown device"

