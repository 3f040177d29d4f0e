"""Who may do what at a table, for the phone a request comes from: viewers read,
scorers enter and correct.

A table's link (``/e/<key>``, 128 random bits) lets anyone who has it watch the
scoresheet. Scorers are the phones that started or imported the evening, opened the
scorers' link (``/e/<key>/scorer/<edit_key>``), or typed the table's six-digit PIN.

This module binds the request to the database: the phone is the one its cookie names
(:mod:`scorer.web.devices`), its rows and the PIN budget are :mod:`scorer.storage.roles`,
and answers are cached for the request. What each route needs is declared with
:func:`scorer.web.permissions.permission`.
"""

from __future__ import annotations

import hmac
import secrets
import time

from flask import g, request, session
from flask_babel import gettext as _

from ..rules import Text
from ..storage import pin_budget, roles
from ..storage.commands import Device as Sender
from ..storage.commands import Refused, Saved, execute
from ..storage.models import Device, Evening, TableAccess
from ..storage.table_access import NameDevice
from .devices import cookie_token, give_token, guess_device, is_new

#: How often (seconds) a phone's "last seen" at a table is written again.
SEEN_EVERY = 3600
_recently_seen: dict[tuple[int, str], float] = {}


class PinRefused(Exception):
    """The PIN was not checked: too many wrong tries; ``str()`` says how long to wait."""


class PhoneRemoved(PinRefused):
    """The PIN was not checked: a scorer removed this phone and the PIN is unchanged since."""


def removed_text() -> str:
    """What a phone removed as a scorer is told when it tries the PIN or the scorers' link again."""
    return _("A scorer removed this phone as a scorer here. Ask the table's owner for the new PIN or scorers' "
             "link once they have changed them.")


def current_device(create: bool = False) -> Device | None:
    """This phone's :class:`~scorer.storage.models.Device` (from its cookie), or ``None``; with
    ``create``, its row is made when missing, for the id in its cookie or a new one (the
    cookie is set on the response by :func:`scorer.web.devices.set_device_cookie`). Cached
    for the request."""
    if "nap_device" in g and (g.nap_device is not None or not create):
        return g.nap_device  # type: ignore[no-any-return]
    token = cookie_token()
    device = roles.find_device(token) if token else None
    if device is None and create:
        token = token or give_token()
        device = roles.add_device(token, secrets.token_hex(2)[:3], guess_device(request.headers.get("User-Agent", "")))
    g.nap_device = device
    return device


def is_scorer(key: str) -> bool:
    """Whether this phone may enter and correct hands at table ``key``: one query (none
    for a phone without a device id; with its row, :func:`current_device`, when this request
    has not read it yet), cached for the request."""
    cache: dict[str, bool] = g.setdefault("nap_scorer_of", {})
    if key not in cache:
        token = cookie_token() if "nap_device" not in g and isinstance(key, str) else None
        if token:  # the phone's row not read yet: read with its role, in one query
            g.nap_device, cache[key] = roles.device_and_role(token, key)
        else:
            cache[key] = roles.is_scorer(current_device(), key)
    return cache[key]


def is_scorer_only(key: str) -> bool:
    """:func:`is_scorer` for a request that reads nothing else about the phone (the live
    changes, asked by every watching phone after each hand): one query with the device id,
    not one for the phone's row and one for its role, unless this request has read its row."""
    cache: dict[str, bool] = g.setdefault("nap_scorer_of", {})
    if key not in cache:
        if "nap_device" in g:
            cache[key] = roles.is_scorer(g.nap_device, key)
        else:
            token = cookie_token()
            cache[key] = bool(token) and isinstance(key, str) and roles.is_scorer_by_token(str(token), key)
    return cache[key]


def role_shown(key: str, shown: str) -> bool:
    """Whether to answer this phone's ask for live changes (``GET /e/<key>/changes``) as a
    scorer's, for its page's ``shown`` (``"en/viewer"``, ``"ru/scorer"``): a viewer's page is
    answered as a viewer's without reading the phone's role (a viewer's parts are what the
    table's link shows anyone; the role read was most of what each watching phone's ask cost,
    issue 23 item 2), and the request is a viewer's for its templates too
    (:func:`is_scorer`), so that what it renders and keeps holds no scorer's button; a phone
    that became a scorer in another tab keeps its viewer's page until it loads it again. A
    scorer's page: :func:`is_scorer_only` (a phone no longer a scorer is told to reload)."""
    if shown.endswith("/viewer"):
        g.setdefault("nap_scorer_of", {})[key] = False
        return False
    return is_scorer_only(key)


def party_seat(key: str) -> int | None:
    """The player (seat) whose phone this is at table ``key`` (their own link, issue 22 item
    7), or ``None``; cached for the request."""
    cache: dict[str, int | None] = g.setdefault("nap_party_of", {})
    if key not in cache:
        from ..storage import payments

        device = current_device()
        evening_id = roles.evening_id(key)
        cache[key] = None if device is None or evening_id is None else payments.roles_of(device.id, evening_id)[1]
    return cache[key]


def grant_scorer(key: str, via: str = "link") -> bool:
    """Make this phone a scorer at table ``key`` (``via``: "start", "import", "link" or
    "pin") under a new device id (:func:`rotate`), and remember the table. ``False``
    (nothing granted) for a phone removed as a scorer that comes back by the link or the
    PIN before the owner renewed them (:func:`scorer.storage.roles.is_removed`)."""
    device = current_device(create=True)
    assert device is not None
    if via in ("link", "pin") and roles.removed_from(device, key):
        return False
    rotate()
    roles.grant(device, key, via)
    g.pop("nap_scorer_of", None)
    return True


def rotate() -> None:
    """Give this phone a new device id as it gains a role (ASVS 5.0 7.2.4, issue 21 item
    3): its row, with its name, roles and tables, answers to the new id only, sent in this
    response's cookie; an id planted in its browser before (a server-issued one a visitor
    fetched for itself) names a phone with no role. A phone given its id in this very
    response keeps it (nobody else can know it). Handing the table over needs no new id:
    the phone it goes to is a scorer already, so its id was renewed when it became one."""
    device = current_device(create=True)
    assert device is not None
    if is_new():
        return
    roles.rekey_device(device, give_token())


def remember(key: str) -> None:
    """Remember that this phone has opened table ``key`` (the home page lists it); written
    at most once an hour per phone and table. A phone seen for the first time is only
    given its cookie: its row is written when it comes back with it, so a client that
    keeps no cookies (a script, a poll) never writes anything by reading."""
    if is_new():
        return  # given its id in this very response
    if cookie_token() is None:
        give_token()
        return
    device = current_device(create=True)
    if device is None or not isinstance(key, str):
        return
    now = time.time()
    if now - _recently_seen.get((device.id, key), 0) < SEEN_EVERY:
        return
    roles.seen(device, key)
    if len(_recently_seen) > 10_000:
        _recently_seen.clear()
    _recently_seen[(device.id, key)] = now


def seen_keys() -> list[str]:
    """The tables this phone has opened, most recent first (at most 100)."""
    device = current_device()
    return [] if device is None else roles.seen_keys(device)


def scorers_of(evening: Evening) -> list[tuple[TableAccess, bool]]:
    """Every phone that was made a scorer at ``evening``, and whether it still is, newest
    first (:func:`scorer.storage.roles.scorers_of`: the table's page lists them)."""
    return roles.scorers_of(evening)


def owner_of(evening: Evening) -> TableAccess | None:
    """The row of ``evening``'s owner (:func:`scorer.storage.roles.owner_of`), or ``None``."""
    return roles.owner_of(evening)


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
    """Check ``pin`` against the table's PIN and make this phone a scorer if right.

    Returns ``False`` for a wrong PIN (counted against the budgets of this phone, its
    network and the table). Raises :class:`PinRefused` without checking when a budget is
    spent (:func:`scorer.storage.pin_budget.try_pin`: this phone, its network, or the
    table's day). The network is the client's address (behind the trusted proxy, as
    ProxyFix gives it), an IPv6 one as its /64.
    """
    device = current_device(create=True)
    assert device is not None
    answer = pin_budget.try_pin(evening, device, pin_budget.network_of(request.remote_addr), pin)
    if answer.refused == "phone":
        raise PinRefused(_("Too many wrong PINs from this phone. Try again in %(minutes)s min, or ask a "
                           "scorer for the scorers' link.", minutes=answer.waits))
    if answer.refused == "network":
        raise PinRefused(_("Too many wrong PINs from this network. Try again in %(minutes)s min, or ask a "
                           "scorer for the scorers' link.", minutes=answer.waits))
    if answer.refused == "removed":
        raise PhoneRemoved(removed_text())
    if answer.refused:
        raise PinRefused(_("Too many wrong PINs at this table today: PIN entry is closed here for now. A scorer "
                           "can share the scorers' link instead."))
    if answer.right:
        rotate()
        g.pop("nap_scorer_of", None)
    return answer.right


def phone_name(device: Device | None, user_agent: str = "") -> str:
    """How a phone is named in the history and the scorers' list: the name the user set,
    else a guess from the browser and its system and a short tag that tells two of one make
    apart: ``"Chrome, Android (a60)"``."""
    if device is not None and device.name:
        return device.name
    # this phone's own browser says what it is; another phone's is what it said when first seen
    guess = guess_device(user_agent) if user_agent or device is None or not device.model else device.model
    return f"{guess} ({device.tag})" if device is not None and device.tag else guess


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
    for a wrong PIN, "pin_paused" when PIN entry is paused, "removed" for a phone a
    scorer removed, until the PIN is changed). A phone that is a scorer
    already tries no PIN. Not a command: wrong PINs are counted even when refused, in
    several short units of work (see :func:`try_pin`)."""
    if is_scorer(evening.key):
        return Saved(evening.key, changed=False)
    try:
        joined = try_pin(evening, pin)
    except PinRefused as error:
        return Refused(Text(str(error)), "removed" if isinstance(error, PhoneRemoved) else "pin_paused")
    if not joined:
        return Refused(Text(_("That is not this table's PIN.")), "pin")
    return Saved(evening.key)
