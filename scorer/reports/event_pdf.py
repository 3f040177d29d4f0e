"""A club night's PDF (issue 22 item 8): the night's standings (worked out from the
tables' ledgers, never stored), each round's seating and every table's summary (its
players' totals there, hands, winners, the table's own fingerprint), the referee's
rulings, and the event's fingerprint; in the phone's language.

Made as the evening's PDF is (:mod:`scorer.reports.pdf`): the HTML is built here inside a
render slot (:func:`scorer.reports.pdf.pdf_job`) and WeasyPrint renders it in the render
worker with ``static/pdf.css``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import render_template
from flask_babel import get_locale
from flask_babel import gettext as _

from ..evening import chain
from ..evening.standings import TIE_BREAK, Standings
from ..rules import VARIANTS, RulesError
from ..storage import events
from ..storage.models import Event
from .pdf import page_css_rules
from .words import day, error_text, money, signed, tr


@dataclass(frozen=True)
class TableSummary:
    """One table of a round as the PDF prints it: ``lines`` (name, total as text, won?)
    best first, the hands played, whether it is finished, its fingerprint."""

    number: int
    lines: tuple[tuple[str, str, bool], ...]
    hands: int
    finished: bool
    fingerprint: str
    problem: str | None = None


@dataclass(frozen=True)
class RoundSummary:
    number: int
    how: str
    seed: str | None
    seating: tuple[tuple[str, ...], ...]
    tables: tuple[TableSummary, ...]
    arrived: tuple[str, ...] = ()
    left: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ruling:
    """A referee's call as the PDF prints it (closed calls only)."""

    round: int
    table: int
    hand: int | None
    note: str
    outcome: str
    referee: str
    raised_by: str
    upheld: bool | None = None  # a ruled claim: upheld (True) or rejected (False); None: no claim


def _table_summary(event: Event, number: int, evening: Any, value: Callable[[int], str]) -> TableSummary:
    from ..storage.kept_ledgers import settled

    try:
        found = settled(evening.key)
    except RulesError as error:  # a table that no longer settles: said, the rest of the PDF still made
        return TableSummary(number, (), 0, evening.finished_at is not None, "", error_text(error))
    if found is None:
        return TableSummary(number, (), 0, evening.finished_at is not None, "")
    ledger = found.ledger
    money_play = event.stake_minor is not None and ledger.money_totals is not None
    totals = ledger.money_totals if money_play else ledger.totals
    winners = set(ledger.winners) if ledger.rows else set()
    order = sorted(range(ledger.setup.n), key=lambda s: (-totals[s], s))
    lines = tuple((ledger.setup.players[s], value(totals[s]), s in winners) for s in order)
    fingerprint, _count = chain.summary(
        chain.of_ledger(ledger, draw=tuple(evening.draw or ()), finished=evening.finished_at is not None)
    )
    return TableSummary(number, lines, len(ledger.rows), evening.finished_at is not None, fingerprint)


def rounds_of(event: Event, value: Callable[[int], str]) -> list[RoundSummary]:
    """Each round seated so far: its seating (a closed table's empty list left out), its
    late arrivals and early leavers, and its tables' summaries once it has begun."""
    out = []
    for round_ in event.round_rows:
        tables = tuple(_table_summary(event, t.number, t.evening, value) for t in round_.tables)
        arrived = tuple(p.name for p in event.players if p.arrived == round_.number)
        left = tuple(p.name for p in event.players if p.left == round_.number)
        out.append(RoundSummary(round_.number, round_.how, round_.seed, tuple(tuple(t) for t in round_.seating if t),
                                tables, arrived, left))
    return out


def rulings_of(event: Event) -> list[Ruling]:
    """The referee's closed calls, oldest first (none when the referee module is absent)."""
    try:
        from ..storage import referee_rulings, referees
    except ImportError:  # the referee's module not in this build: the PDF says there were none
        return []
    closed = [c for c in referees.calls(event.id) if c.closed_at is not None]
    closed.sort(key=lambda c: c.id)
    return [
        Ruling(
            c.round_number,
            c.table_number,
            c.hand_number,
            c.note,
            c.outcome,
            c.closer.name if c.closer is not None else "",
            c.device,
            referee_rulings.ruled_upheld(c),
        )
        for c in closed
    ]


def event_pdf_html(event: Event, paper: str = "a4") -> str:
    """The event's PDF as HTML in the request's language (see the module)."""
    stake = events.stake_of(event)
    try:
        ranked: Standings | None = events.standings_of(event)
        problem = None
    except RulesError as error:
        ranked, problem = None, error_text(error)

    def value(total: int) -> str:
        return money(stake, total) if stake is not None else signed(total)

    fingerprint, changes = events.fingerprint_of(event)
    date = day(event.created_at, event.time_zone)
    return render_template(
        "pdf/event.html",
        event=event,
        lang=str(get_locale() or "en").replace("_", "-"),
        date=date,
        page_css=page_css_rules(paper, f"{event.name} · {date} · {fingerprint}"),
        standings=ranked,
        problem=problem,
        value=value,
        rounds=rounds_of(event, value),
        rulings=rulings_of(event),
        fingerprint=fingerprint,
        changes=changes,
        variant=tr(VARIANTS[event.variant].name),
        tie_break=tr(TIE_BREAK),
        length=_length_text(event),
        stake=stake,
    )


def _length_text(event: Event) -> str:
    if event.length == "end_point":
        return _("each round to the agreed end point (P-14)")
    if event.length == "minutes":
        return _("%(num)s minutes a round", num=event.amount)
    return _("%(num)s hands a table each round", num=event.amount)
