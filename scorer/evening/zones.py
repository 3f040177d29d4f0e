"""Time zones: an evening is kept in UTC and shown in the table's own zone.

The table's zone is the IANA name its browser reports (``Intl.DateTimeFormat().
resolvedOptions().timeZone``, sent with the new-evening and import forms by
static/zone.js) and stored on the evening; a table saved before that (or a browser
without it) is shown in UTC, and the pages say so.
"""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

UTC_ZONE = ZoneInfo("UTC")


def valid_zone(name: object) -> str:
    """``name`` if it is an IANA time zone this machine knows (``"America/Sao_Paulo"``), else ``""``."""
    if not isinstance(name, str) or not 1 <= len(name) <= 64 or name not in _zones():
        return ""
    return name


_ZONES: set[str] = set()


def _zones() -> set[str]:
    if not _ZONES:
        _ZONES.update(available_timezones())
    return _ZONES


def zone_info(zone: str) -> ZoneInfo:
    """The table's time zone (UTC for a table saved before zones were kept, or an unknown name)."""
    try:
        return ZoneInfo(zone) if valid_zone(zone) else UTC_ZONE
    except ZoneInfoNotFoundError:  # pragma: no cover - listed but not loadable
        return UTC_ZONE


def in_zone(moment: datetime, zone: str) -> datetime:
    """``moment`` (stored in UTC; a naive one is UTC, as SQLite gives it back) in the table's ``zone``."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC_ZONE)
    return moment.astimezone(zone_info(zone))


def today_in(zone: str) -> date:
    """Today's date where the table sits (its time ``zone``; UTC when unknown)."""
    return datetime.now(zone_info(zone)).date()


