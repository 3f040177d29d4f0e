"""The evening's PDF summary: HTML built here (translated in the phone's language),
rendered by WeasyPrint in a long-lived render worker with a time limit
(:mod:`scorer.reports.render_pool` runs :mod:`scorer.reports.render_worker`).

The worker loads only the app's own static files (fonts, CSS) through
:class:`~scorer.reports.render_worker.StaticOnlyFetcher`; a render that takes longer than
``PDF_TIME_LIMIT`` seconds is stopped by killing the worker and reported as
:class:`PdfTooSlow`, so a long evening can never hang a server worker.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from flask import current_app, has_request_context, render_template, request
from flask_babel import format_date, get_locale
from flask_babel import gettext as _
from markupsafe import Markup

from ..evening import chain
from ..evening.ledger import Ledger
from ..evening.settle import settle_up, statistics
from ..rules import RULES
from ..storage.models import Evening
from ..storage.units import reading
from . import render_pool
from .chart import ledger_chart_svg, line_style
from .presenters import auction_of, seat_lines
from .render_worker import STATIC_BASE, StaticOnlyFetcher  # noqa: F401 - re-exported: the fetcher the worker uses
from .words import tr

#: Seconds a render may take before its worker is killed (config ``PDF_TIME_LIMIT``).
#: A 300-hand evening renders in about 3.3 s of CPU through the worker (benchmarks/pdf_bench.py;
#: 7.2 s with a child per render before), so 30 s leaves room for a slower or busier server.
DEFAULT_TIME_LIMIT = 30.0
#: Render workers, so renders at once (config ``PDF_WORKERS``); a request that finds them
#: all busy is told to try again (503) at once, never queued, so the server's threads stay
#: free for pages. One render on the two-core machine this runs on leaves a core for the pages.
DEFAULT_WORKERS = 1
#: Renders before a worker is replaced by a fresh one (config ``PDF_WORKER_RENDERS``).
DEFAULT_WORKER_RENDERS = render_pool.DEFAULT_MAX_RENDERS
#: A worker's resident memory (MiB) past which it is replaced after its render (config
#: ``NAP_PDF_WORKER_MAX_MIB``; issue 23, item 5).
DEFAULT_WORKER_MAX_MIB = render_pool.DEFAULT_MAX_MIB

#: ``?paper=`` values and the CSS ``@page`` size each gives; anything else is A4.
PAPERS = {"a4": "A4", "letter": "letter"}



class PdfError(Exception):
    """The PDF could not be made; ``str()`` is a message fit for the person who asked.
    ``retry_after``: whole seconds before asking again is worth it (the answer's
    ``Retry-After``), when known (:mod:`scorer.reports.render_failures` sets it)."""

    retry_after: int | None = None


class PdfTooSlow(PdfError):
    """The render took longer than ``limit`` seconds and was stopped."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        super().__init__(_("The PDF took longer than %(limit)s s to make, so it was stopped. "
                           "Try again when the server is less busy, or export the evening as CSV or JSON.",
                           limit=f"{limit:g}"))


class PdfFailed(PdfError):
    """WeasyPrint raised on this document: it will fail again the same way until the document changes."""

    def __init__(self, _limit: object = None) -> None:
        super().__init__(_("The PDF could not be made. The evening is safe: export it as CSV or JSON."))


class PdfCrashed(PdfFailed):
    """The render worker died during the render, answered something that is not a PDF, or
    could not be started: the worker's fault (or the machine's), not the document's, so a
    later try may well work (issue 21 item 15)."""

    def __init__(self, _limit: object = None) -> None:
        PdfError.__init__(self, _("The PDF could not be made. Try again in a minute, or export the evening as "
                                  "CSV or JSON."))


class PdfBusy(PdfError):
    """Every render slot stayed busy for ``limit`` seconds."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        super().__init__(_("The server is busy making other PDFs. Try again in a minute."))


class PdfTableBusy(PdfBusy):
    """This table (or this phone) already has a PDF being made: asked again at once."""

    def __init__(self, limit: float) -> None:
        PdfError.__init__(self, _("This PDF is being made right now. Try again in a minute."))
        self.limit = limit


def workers() -> render_pool.WorkerPool:
    """This app's render workers: ``PDF_WORKERS`` of them (config or environment; default
    :data:`DEFAULT_WORKERS`), each replaced after ``PDF_WORKER_RENDERS`` renders (default
    :data:`DEFAULT_WORKER_RENDERS`) or after a render that left it holding more than
    ``NAP_PDF_WORKER_MAX_MIB`` MiB (default :data:`DEFAULT_WORKER_MAX_MIB`). Needs an app context."""
    return render_pool.pool(_count("PDF_WORKERS", DEFAULT_WORKERS), Path(current_app.static_folder or "static"),
                           _count("PDF_WORKER_RENDERS", DEFAULT_WORKER_RENDERS),
                           _count("NAP_PDF_WORKER_MAX_MIB", DEFAULT_WORKER_MAX_MIB))


def _count(name: str, default: int) -> int:
    """A whole number ≥ 1 from config ``name``, else the environment's ``name``, else ``default``."""
    value = current_app.config.get(name) or os.environ.get(name) or default
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        current_app.logger.warning("%s %r is not a whole number; using %s", name, value, default)
        return default


def warm_workers() -> None:
    """Start the render workers now (``nap serve`` does, at start): the first PDF does not
    wait for WeasyPrint to load. Needs an app context."""
    workers().warm()


#: What has a render going on now: table (or group) keys and clients (addresses).
_in_progress: set[str] = set()
_in_progress_lock = threading.Lock()


@contextlib.contextmanager
def _claim(names: tuple[str, ...], limit: float) -> Iterator[None]:
    """Hold ``names`` (a table and a client) for one render; :class:`PdfTableBusy` at once
    if any of them already has one going (never queued: a queue would hold server threads)."""
    with _in_progress_lock:
        if any(n in _in_progress for n in names):
            raise PdfTableBusy(limit)
        _in_progress.update(names)
    try:
        yield
    finally:
        with _in_progress_lock:
            _in_progress.difference_update(names)


def time_limit(seconds: float | str | None = None) -> float:
    """Seconds a PDF may take: ``seconds`` if given, else config ``PDF_TIME_LIMIT``, else
    the environment's ``PDF_TIME_LIMIT``, else :data:`DEFAULT_TIME_LIMIT`. Needs an app context."""
    if seconds is None:
        seconds = (current_app.config.get("PDF_TIME_LIMIT") or os.environ.get("PDF_TIME_LIMIT")
                   or DEFAULT_TIME_LIMIT)
    try:
        return float(seconds)
    except (TypeError, ValueError):
        current_app.logger.warning("PDF_TIME_LIMIT %r is not a number of seconds; using %s", seconds,
                                   DEFAULT_TIME_LIMIT)
        return DEFAULT_TIME_LIMIT


def pdf_job(build_html: Callable[[], str], *, owner: str, client: str = "",
            seconds: float | None = None) -> bytes:
    """Make one PDF without starving the rest of the server.

    ``build_html()`` (settling the evening, drawing the chart, the HTML) runs only once a
    render worker is held, and the render runs in that worker (a child process at low
    priority, :mod:`scorer.reports.render_pool`), killed if it is not done ``seconds`` after the
    request began (default: :func:`time_limit`). At most ``PDF_WORKERS`` renders run at
    once (default :data:`DEFAULT_WORKERS`), at most one per ``owner`` (a table's or a
    group's key) and one per ``client`` (the phone's address); a request that finds its
    slot taken is answered at once, never queued. Needs an app context.

    Raises :class:`PdfTableBusy` or :class:`PdfBusy` (try again soon), :class:`PdfTooSlow`
    past the limit, :class:`PdfFailed` if WeasyPrint fails on the document,
    :class:`PdfCrashed` (a :class:`PdfFailed`) if the worker dies, answers something that
    is not a PDF or cannot be started.
    """
    limit = time_limit(seconds)
    deadline = time.monotonic() + limit
    names = (f"owner:{owner}", f"client:{client}") if client else (f"owner:{owner}",)
    with _claim(names, limit):
        pool = workers()
        worker = pool.take()
        if worker is None:
            raise PdfBusy(limit)
        try:
            # the document is built in a read that ends with it, so a long render holds
            # no database lock (SQLite) and no snapshot (PostgreSQL)
            with reading():
                html = build_html()
            return _render(worker, html, deadline, limit)
        finally:
            pool.give(worker)


def _render(worker: render_pool.RenderWorker, html: str, deadline: float, limit: float) -> bytes:
    """``html`` through ``worker`` by ``deadline``, its failures as :class:`PdfError`."""
    if time.monotonic() >= deadline:
        raise PdfTooSlow(limit)
    try:
        pdf, _cpu = worker.render(html.encode("utf-8"), deadline)
    except render_pool.RenderTimeout:
        current_app.logger.warning("PDF render stopped after %s s", limit)
        raise PdfTooSlow(limit) from None
    except render_pool.RenderFailed as error:  # the document's fault
        current_app.logger.error("PDF render failed (%s): %s", type(error).__name__, str(error)[-2000:])
        raise PdfFailed() from None
    except render_pool.RenderCrashed as error:  # the worker's
        current_app.logger.error("PDF render failed (%s): %s", type(error).__name__, str(error)[-2000:])
        raise PdfCrashed() from None
    if not pdf.startswith(b"%PDF"):
        current_app.logger.error("PDF render failed: the worker's answer is not a PDF")
        raise PdfCrashed()
    return pdf


def render_html_pdf(html: str, time_limit: float | None = None, *, owner: str = "", client: str = "") -> bytes:
    """Render ``html`` (whose relative links point into ``static/``) to PDF bytes: a
    :func:`pdf_job` whose HTML is already built. Raises what :func:`pdf_job` raises."""
    return pdf_job(lambda: html, owner=owner or "html", client=client, seconds=time_limit)


def paper_of(value: str | None) -> str:
    """The ``?paper=`` value as a key of :data:`PAPERS`: ``"letter"`` or, for anything
    else (missing, misspelt), ``"a4"``."""
    value = (value or "").strip().lower()
    return value if value in PAPERS else "a4"


def standings(ledger: Ledger) -> list[tuple[int, int, int]]:
    """``(place, seat, total)`` best first; equal totals share a place (P-14)."""
    ordered = sorted(range(ledger.setup.n), key=lambda s: (-ledger.totals[s], s))
    return [(1 + sum(t > ledger.totals[s] for t in ledger.totals), s, ledger.totals[s]) for s in ordered]


def _rule_order(rule_id: str) -> tuple[str, int]:
    prefix, _sep, number = rule_id.partition("-")
    return prefix, int(number) if number.isdigit() else 0


def css_string(text: str) -> str:
    """``text`` as a quoted CSS string, every character but letters, digits and spaces
    escaped (``\\3c `` for ``<``), so a table's name cannot end the ``<style>`` or the string."""
    return '"' + "".join(c if c.isalnum() or c == " " else f"\\{ord(c):x} " for c in text) + '"'


def page_css_rules(paper: str, footer: str) -> Markup:
    """The ``@page`` rules that depend on the request: paper size, the footer (table and
    date) and "page N of M" in the phone's language."""
    marker = "\x00"
    words = _("page %(page)s of %(pages)s", page=marker + "page" + marker, pages=marker + "pages" + marker)
    parts = []
    for i, piece in enumerate(str(words).split(marker)):
        if i % 2:
            parts.append(f"counter({'pages' if piece == 'pages' else 'page'})")
        elif piece:
            parts.append(css_string(piece))
    return Markup(
        f"@page {{ size: {PAPERS[paper]}; "
        f"@bottom-left {{ content: {css_string(footer)}; }} "
        f"@bottom-right {{ content: {' '.join(parts)}; }} }}"
    )


def _rules_appendix(evening: Evening, ledger: Ledger) -> Markup:
    """The ``rules`` block of ``templates/rules/<variant>.html`` (the table's rules page),
    with this table's options filled in: the same words as the web page."""
    template = current_app.jinja_env.get_template(f"rules/{ledger.variant.id}.html")
    setup = ledger.setup
    values: dict[str, Any] = dict(evening=evening, ledger=ledger, setup=setup, o=setup.options, stake=setup.stake,
                                  variant=ledger.variant)
    current_app.update_template_context(values)
    context = template.new_context(values)
    for _piece in template.root_render_func(context):  # runs the page's top-level {% set %}s; output unused
        pass
    return Markup("".join(template.blocks["rules"](context)))


def evening_pdf_html(evening: Evening, ledger: Ledger, paper: str = "a4") -> str:
    """The PDF's HTML, in the request's language: the first page (table, players,
    options, standings and winners, settle-up or ranking), the chart, statistics, the
    hand-by-hand log with rulings and overrides (rule ids), and the rules appendix.
    ``paper`` is a key of :data:`PAPERS`."""
    setup = ledger.setup
    pool_name = ledger.variant.pool_name(setup.options)
    date = format_date(evening.played_on, "long")
    names = setup.players
    record = chain.summary(chain.of_ledger(ledger, draw=evening.draw or (), finished=evening.finished_at is not None))
    return render_template(
        "pdf/evening.html",
        record=record,
        evening=evening,
        ledger=ledger,
        lang=str(get_locale() or "en").replace("_", "-"),
        date=date,
        page_css=page_css_rules(paper, f"{evening.name} · {date} · {record[0]}"),
        auctions={row.number: auction_of(ledger, row) for row in ledger.rows},
        standings=standings(ledger),
        settle=None if ledger.variant.points_only or not ledger.rows else settle_up(ledger),
        stats=statistics(ledger),
        chart=Markup(ledger_chart_svg(ledger, width=760, height=360, legend=False).decode()) if ledger.rows else None,
        line_styles=[line_style(seat) for seat in range(setup.n)],
        pool_name=pool_name,
        party=lambda p: names[p] if isinstance(p, int) else (tr(pool_name) if pool_name else _("pool")).lower(),
        cited=sorted({rid for row in ledger.rows for rid in row.ruling.rule_ids if rid in RULES}, key=_rule_order),
        rules_appendix=_rules_appendix(evening, ledger),
        seat_lines=seat_lines(ledger),
        start_names=[names[s] for s in setup.seated_at_start],
    )


def render_evening_pdf(evening: Evening, ledger: Ledger, paper: str | None = None) -> bytes:
    """The evening's summary as PDF bytes (see :func:`evening_pdf_html`), on A4 unless
    ``paper`` (default: the request's ``?paper=``) is ``"letter"``. Raises what
    :func:`render_html_pdf` raises."""
    if paper is None:
        paper = request.args.get("paper") if has_request_context() else None
    return render_html_pdf(evening_pdf_html(evening, ledger, paper_of(paper)))
