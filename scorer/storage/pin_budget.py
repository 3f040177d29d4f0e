"""How many wrong PINs a table takes, and from whom (issue 21 item 5, ASVS 5.0 6.1.1).

Each wrong PIN is a row (:class:`~scorer.storage.models.PinAttempt`): the phone, its
network (an IPv4 address, or an IPv6 /64: :func:`network_of`; behind the proxy, the
client's address as ProxyFix gives it) and the time. A PIN is checked only when

* the phone has fewer than :data:`PHONE_TRIES` wrong PINs in the last :data:`WINDOW`;
* its network has fewer than :data:`NETWORK_TRIES` in the last :data:`WINDOW` (dropping
  the cookie gives a new phone, not a new network);
* the table has fewer than :data:`TABLE_CAP` in the last :data:`DAY` (the hard cap);
* and, once the table has :data:`GUARDED_AFTER` wrong PINs in the last day ("guarded"),
  the network has fewer than :data:`GUARDED_NETWORK_TRIES` that day: the networks that
  guessed are refused, every other one still has its few tries.

What that bounds, for the six-digit PIN (:func:`scorer.storage.models.new_pin`,
10**6 PINs; ``python benchmarks/pin_budget.py`` prints these from the constants):

* an attacker's odds of finding the PIN in a day: before, 30 per table per 15 minutes,
  2880 a day, 0.288 %; now at most :data:`TABLE_CAP` = 100 a day, 0.010 %
  (:func:`daily_odds`);
* how many wrong PINs one watcher needs to pause PIN entry for the whole table: before,
  30 (from fresh cookies, any network); now it never can from one network (it is
  refused after 50 and the others keep their tries): reaching the cap takes
  :func:`networks_to_close` = 18 networks (one with 50, then 17 with 3 each).

The renewal of the PIN by the table's owner clears the table's wrong PINs (a new PIN,
new odds). Every check and the count of a wrong PIN run in one unit of work under the
evening's row lock, so a burst of guesses at once never overdraws a budget.
"""

from __future__ import annotations

import hmac
import ipaddress
import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from .models import Device, Evening, PinAttempt, db, new_pin, utcnow
from .roles import grant, removed_from
from .units import writing

#: Wrong PINs one phone may try per window before it must wait.
PHONE_TRIES = 5
#: Wrong PINs one network (every phone on it) may try per window.
NETWORK_TRIES = 10
#: The window the phone's and the network's budgets count over.
WINDOW = timedelta(minutes=15)
#: The table's budgets count over a rolling day.
DAY = timedelta(days=1)
#: Wrong PINs at a table in a day after which it is guarded.
GUARDED_AFTER = 50
#: Wrong PINs a network may try in a day at a guarded table.
GUARDED_NETWORK_TRIES = 3
#: Wrong PINs at a table in a day after which no PIN is checked (until the day rolls on
#: or the owner changes the PIN).
TABLE_CAP = 100
#: How many PINs there are: 10 ** the length of a new PIN (six digits).
PIN_SPACE = 10 ** len(new_pin())


@dataclass(frozen=True)
class PinAnswer:
    """What :func:`try_pin` found: ``right``, or not; when the PIN was not checked at all,
    ``refused`` says why ("phone", "network": wait ``waits`` minutes; "table": the day's
    budget of the table, or of this network at a guarded table, is spent; "removed": a
    scorer removed this phone, and the PIN has not been changed since)."""

    right: bool = False
    refused: str = ""
    waits: int = 0


def network_of(address: str | None) -> str:
    """The network a client address counts under: an IPv4 address as it is, an IPv6
    address as its /64 (one home or phone line), an IPv4-mapped IPv6 address as IPv4;
    anything unreadable as itself (at most 64 characters), none as ""."""
    text = (address or "").strip()
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return text[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def try_pin(evening: Evening, device: Device, network: str, pin: str) -> PinAnswer:
    """Check ``pin`` against ``evening``'s PIN for ``device`` on ``network`` and make the
    phone a scorer if right; a wrong PIN is written as a :class:`PinAttempt`. Nothing is
    checked when a budget (the module's list) is spent: the answer says which."""
    now = utcnow()
    with writing():
        db.session.execute(sa.select(Evening.id).where(Evening.id == evening.id).with_for_update())
        db.session.execute(sa.delete(PinAttempt).where(PinAttempt.evening_id == evening.id, PinAttempt.at < now - DAY)
                           .execution_options(synchronize_session=False))
        if removed_from(device, evening.key):  # no PIN is checked for it (nor counted)
            return PinAnswer(refused="removed")
        refusal = _refusal(evening.id, device.id, network, now)
        if refusal is not None:
            return refusal
        pin_now = db.session.scalar(sa.select(Evening.pin).where(Evening.id == evening.id)) or ""
        candidate = re.sub(r"\s+", "", str(pin))[:12]
        right = hmac.compare_digest(pin_now.encode(), candidate.encode())
        if not right:
            db.session.add(PinAttempt(evening_id=evening.id, device_id=device.id, network=network[:64], at=now))
    if right:
        grant(device, evening.key, via="pin")
    return PinAnswer(right=right)


def _refusal(evening_id: int, device_id: int, network: str, now: datetime) -> PinAnswer | None:
    """Why a PIN from this phone and network is not checked now, or ``None``."""
    base = sa.select(sa.func.count(), sa.func.min(PinAttempt.at)).where(PinAttempt.evening_id == evening_id)
    table_day = db.session.execute(base).one()[0]
    if table_day >= TABLE_CAP:
        return PinAnswer(refused="table")
    recent = base.where(PinAttempt.at >= now - WINDOW)
    phone, phone_first = db.session.execute(recent.where(PinAttempt.device_id == device_id)).one()
    if phone >= PHONE_TRIES:
        return PinAnswer(refused="phone", waits=_minutes_left(phone_first, now))
    net, net_first = db.session.execute(recent.where(PinAttempt.network == network)).one()
    if net >= NETWORK_TRIES:
        return PinAnswer(refused="network", waits=_minutes_left(net_first, now))
    if table_day >= GUARDED_AFTER:
        net_day = db.session.execute(base.where(PinAttempt.network == network)).one()[0]
        if net_day >= GUARDED_NETWORK_TRIES:
            return PinAnswer(refused="table")
    return None


def forget_attempts(evening: Evening) -> None:
    """Clear ``evening``'s wrong PINs (its PIN was just changed), in the pending unit."""
    db.session.execute(sa.delete(PinAttempt).where(PinAttempt.evening_id == evening.id)
                       .execution_options(synchronize_session=False))


def _minutes_left(first: datetime | None, now: datetime) -> int:
    """Whole minutes (at least 1) until the oldest wrong PIN at ``first`` leaves the window."""
    if first is None:
        return 1
    first = first if first.tzinfo is not None else first.replace(tzinfo=UTC)  # SQLite gives naive UTC
    return max(1, math.ceil((WINDOW - (now - first)).total_seconds() / 60))


def daily_odds(guesses_per_day: int, pin_space: int = PIN_SPACE) -> float:
    """The chance (0…1) that ``guesses_per_day`` different guesses find a PIN among
    ``pin_space``: ``guesses / space``."""
    return min(1.0, guesses_per_day / pin_space)


def networks_to_close() -> int:
    """The fewest networks that together reach :data:`TABLE_CAP` in a day: one brings the
    table to :data:`GUARDED_AFTER` (it can bring no more), every other at most
    :data:`GUARDED_NETWORK_TRIES`."""
    return 1 + math.ceil((TABLE_CAP - GUARDED_AFTER) / GUARDED_NETWORK_TRIES)
