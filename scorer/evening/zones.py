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


def repeated(local: datetime) -> bool:
    """Whether the wall-clock time of ``local`` (an aware time in its zone) happens twice
    that day: the hour the clocks go back at the end of summer time (02:00–02:59 in Oslo
    on the last Sunday of October), which is passed first in summer time, then again."""
    if local.tzinfo is None:
        return False
    first, second = local.replace(fold=0).utcoffset(), local.replace(fold=1).utcoffset()
    return first is not None and second is not None and first > second  # a gap has them the other way


def offset_label(local: datetime) -> str:
    """The UTC offset of ``local`` as people read it: ``UTC+2``, ``UTC−3`` (a real minus
    sign), ``UTC+5:30``, ``UTC`` for none."""
    offset = local.utcoffset()
    if not offset:
        return "UTC"
    minutes = int(offset.total_seconds()) // 60
    sign = "+" if minutes > 0 else "\u2212"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def today_in(zone: str) -> date:
    """Today's date where the table sits (its time ``zone``; UTC when unknown)."""
    return datetime.now(zone_info(zone)).date()


