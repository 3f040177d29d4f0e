"""What the pages of a club night show (issue 22), shared by its pages, its JSON commands and
the scoresheet of each of its tables (:mod:`scorer.web.views.events`,
:mod:`scorer.web.views.api_events`, :mod:`scorer.web.views.sheet`): the tables of the
current round, the state every page of the event reads (standings worked out now, the
fingerprint), the room screen's version, and the line at the top of a table's scoresheet.
Nothing here names a table's key, link or PIN to anyone but the event's organisers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from flask import render_template
from flask_babel import gettext as _
from flask_babel import ngettext
from markupsafe import Markup

from ..evening.standings import TIE_BREAK, Standings
from ..reports.words import error_text, moment, money, signed, tr
from ..rules import VARIANTS, RulesError, Stake
from ..storage import events, units
from ..storage.evenings import as_utc
from ..storage.models import Evening, Event, EventTable, db
from .table_forms import ActionForm


@dataclass(frozen=True)
class TableLine:
    """A table of the current round as every page of the event shows it (no key, no PIN)."""

    number: int
    players: tuple[str, ...]
    hands: int
    finished: bool
    key: str
    edit_key: str
    pin: str


def table_lines(event: Event) -> list[TableLine]:
    """The tables of the current round, begun: players seated now, hands played, finished."""
    from ..storage.kept_ledgers import settled

    round_ = events.current_round(event)
    if round_ is None or round_.started_at is None:
        return []
    out = []
    for table in round_.tables:
        evening = table.evening
        found = settled(evening.key)
        hands = len(found.ledger.rows) if found is not None else 0
        players = tuple(round_.seating[table.number - 1]) if table.number - 1 < len(round_.seating) else ()
        out.append(TableLine(table.number, players, hands, evening.finished_at is not None, evening.key,
                             evening.edit_key, evening.pin))
    return out


def standing_value(event: Event, ranked: Standings, total: int) -> str:
    """A total as the event plays: money in its currency, or units with a sign."""
    if ranked.money and event.stake_minor is not None:
        return money(Stake(event.stake_minor, event.currency), total)
    return signed(total)


def length_text(event: Event) -> str:
    if event.length == "end_point":
        return _("each round to the agreed end point (P-14)")
    if event.length == "minutes":
        return _("%(num)s minutes a round", num=event.amount)
    return _("%(num)s hands a table each round", num=event.amount)


def event_state(event: Event) -> dict[str, Any]:
    """Everything the event's page, room screen and JSON state show, read now (standings
    worked out from the tables' ledgers). No key, link or PIN of any table."""
    try:
        ranked: Standings | None = events.standings_of(event)
        problem = None
    except RulesError as error:  # a table that no longer settles: said, not a 500
        ranked, problem = None, error_text(error)
    round_ = events.current_round(event)
    tables = table_lines(event)
    fingerprint, changes = events.fingerprint_of(event)
    ends = None
    if event.length == "minutes" and round_ is not None and round_.started_at is not None and event.amount:
        ends = moment(as_utc(round_.started_at) + timedelta(minutes=event.amount), event.time_zone)
    return {"event": event, "round": round_, "tables": tables, "ends": ends, "standings": ranked, "problem": problem,
            "fingerprint": fingerprint, "changes": changes, "variant": VARIANTS[event.variant].name,
            "playing": events.playing(event), "length": length_text(event),
            "value": (lambda total: standing_value(event, ranked, total)) if ranked else None,
            "tie_break": tr(TIE_BREAK)}


def room_version(key: str) -> str | None:
    """What the room screen polls: the event's revision and the sum of its tables' (each
    only grows, so any change anywhere changes it), in one query; ``None`` for no event."""
    if not units.valid_key(key):
        return None
    row = db.session.execute(
        sa.select(Event.revision, sa.func.coalesce(sa.func.sum(Evening.revision), 0),
                  sa.func.count(Evening.finished_at))
        .select_from(Event).outerjoin(EventTable, EventTable.event_id == Event.id)
        .outerjoin(Evening, Evening.id == EventTable.evening_id).where(Event.key == key).group_by(Event.id)).first()
    return None if row is None else f"{row[0]}.{row[1]}.{row[2]}"


def typed_tables(text: str) -> list[list[str]]:
    """Tables typed one a line, names separated by commas."""
    return [[n for n in (p.strip() for p in line.split(",")) if n] for line in text.splitlines() if line.strip()]


def next_tables(evening_key: str) -> tuple[Any, dict[str, int]] | None:
    """``(place, {player at this table: their table in the next round})`` once the round of
    the table ``evening_key`` is over and the next one has begun; ``None`` otherwise."""
    if not units.valid_key(evening_key):
        return None
    evening_id = db.session.scalar(  # one small query: most evenings are of no event
        sa.select(EventTable.evening_id).join(Evening, Evening.id == EventTable.evening_id)
        .where(Evening.key == evening_key))
    place = None if evening_id is None else events.event_of_evening(evening_id)
    if place is None:
        return None
    evening = place.table.evening
    rounds = place.event.round_rows
    later = [r for r in rounds if r.number == place.round.number + 1 and r.started_at is not None]
    if not later:
        return place, {}
    here = {p.name.casefold() for p in evening.players}
    where = {}
    for index, table in enumerate(later[0].seating):
        for name in table:
            if name.casefold() in here:
                where[name] = index + 1
    return place, where


@dataclass(frozen=True)
class RoundEnd:
    """Whether a table has played its round (the event's length), and when a timed round ends."""

    reached: str | None  # what says so ("its 10 hands are played"), or None while it plays on
    due: datetime | None  # a timed round's end (UTC): the phone asks again then
    left: int | None = None  # a round of a number of hands: the hands this table still plays


def round_end(place: Any, now: datetime | None = None) -> RoundEnd:
    """Has the table of ``place`` reached its round's length? A number of hands: that many
    hands saved; pagat's end point (P-14): every player has dealt the agreed hands; a time:
    the round's minutes since it began. A finished table has nothing more to reach. The
    table is never finished here: its scorer may want to correct the last hand first."""
    from ..storage.kept_ledgers import settled

    event, evening = place.event, place.table.evening
    if evening.finished_at is not None:
        return RoundEnd(None, None)
    if event.length == "minutes":
        if place.round.started_at is None or not event.amount:
            return RoundEnd(None, None)
        due = as_utc(place.round.started_at) + timedelta(minutes=event.amount)
        if (now or datetime.now(UTC)) >= due:
            return RoundEnd(ngettext("its %(num)d minute is up", "its %(num)d minutes are up", event.amount), due)
        return RoundEnd(None, due)
    try:
        found = settled(evening.key)
    except RulesError:
        return RoundEnd(None, None)
    if found is None:
        return RoundEnd(None, None)
    ledger = found.ledger
    if event.length == "end_point":
        if ledger.rows and ledger.hands_remaining == 0:
            return RoundEnd(_("the agreed end point is reached (P-14)"), None)
        return RoundEnd(None, None)
    if event.amount and len(ledger.rows) >= event.amount:
        return RoundEnd(ngettext("its %(num)d hand is played", "its %(num)d hands are played", event.amount), None)
    return RoundEnd(None, None, event.amount - len(ledger.rows) if event.amount else None)


def event_line(evening_key: str, scorer: bool) -> Markup:
    """The line at the top of a table of an event: which table of which round, the button that
    calls the referee (any phone, while the table plays), the round's end once this table has
    reached it (a scorer's phone: "Finish this table" as its next action); once the next round
    has begun, where each player of this table goes next (a scorer's phone: one tap)."""
    found = next_tables(evening_key)
    if found is None:
        return Markup("")
    place, where = found
    end = round_end(place)
    playing = place.table.evening.finished_at is None and place.event.finished_at is None
    return Markup(render_template("_event_line.html", place=place, where=where, scorer=scorer, key=evening_key,
                                  end=end, playing=playing,
                                  action=ActionForm() if scorer and (where or end.reached) else None))
