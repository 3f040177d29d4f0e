"""PDF benchmarks: what a render costs through the app's renderer, each figure against a
baseline measured in the same run on the same document (like with like). Prints, asserts nothing.

- the 10-hand evening PDF through the app's renderer (the render worker) against the same
  HTML rendered in this warm interpreter (target ≤ 1.2×: nothing of the worker's start-up left);
- the 100-hand evening PDF against the floor: the same PDF with its hand log's numbers and
  rulings as a plain fixed-layout table (target ≤ 1.3×), and against those numbers and rulings
  alone (no first page, chart, statistics or appendix), all through the app's renderer;
- cost against hands (10, 100, 300): the PDF and the floor, and the cost of each further hand
  from 10 to 100 against from 100 to 300 (1.0 when the cost is linear);
- the worker's garbage-collector settings against Python's defaults, in this interpreter.

This interpreter renders with the worker's settings (one kept ``FontConfiguration``, imports
frozen out of the collector, the same thresholds), so the first ratio is the worker's cost alone.

Wall time is what the phone waits for; CPU time (the renderer's own, from the worker's reply or
``getrusage``) is given beside it because a busy shared machine makes wall times noisy. Each pair
of figures is measured interleaved, the median of ``--repeat`` rounds. A render past the time
limit is reported as such (the app answers it with its 503 page), never as a traceback.

Run: ``.venv/bin/python benchmarks/pdf_bench.py [--repeat 5] [--limit 120] [--nice 10]``
(``bench.py`` runs it too). It works on older checkouts (a child process per render) as well,
for before-and-after figures.
"""

from __future__ import annotations

import argparse
import gc
import html as markup
import inspect
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench import make_evening  # noqa: E402

Sample = tuple[float, float]  # (wall seconds, CPU seconds)


def floor_table(ledger: Any) -> str:
    """The hand log's numbers and rulings as a plain fixed-layout table: per hand one row of
    number, dealer, contract, tricks, result, each player's change and running total (and the
    pool's), and one row with the auction and the ruling's text."""
    from scorer.web.i18n import reason_text, tr
    from scorer.web.views.common import auction_of, result_label

    setup = ledger.setup
    esc = markup.escape
    rows = []
    for row in ledger.rows:
        r = row.ruling
        contract = f"{setup.players[r.declarer]}: {tr(r.contract.name)}" if r.contract else "—"
        cells = [str(row.number), setup.players[r.dealer], contract, "" if r.tricks is None else str(r.tricks),
                 result_label(row), *map(str, r.units), *map(str, row.totals), str(r.pool), str(row.pool)]
        calls = ", ".join(f"{c.player} {c.label}" for c in auction_of(ledger, row))
        ruling = " ".join(f"{reason.rule} {reason_text(reason)}" for reason in r.reasons)
        rows.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>"
                    f'<tr><td colspan="{len(cells)}">{esc(calls)}. {esc(ruling)}</td></tr>')
    return ('<table class="floor" style="table-layout: fixed; width: 100%; font-size: 8pt">' + "".join(rows)
            + "</table>")


def floor_alone(ledger: Any) -> str:
    """:func:`floor_table` alone in a document, in the PDF's font: the numbers and rulings, nothing else."""
    return ('<!doctype html><html><head><meta charset="utf-8"><style>'
            '@font-face { font-family: "Nap Sans"; src: url("fonts/DejaVuSans.ttf"); }'
            'html { font: 8pt "Nap Sans"; } table { border-collapse: collapse; }'
            '</style></head><body>' + floor_table(ledger) + "</body></html>")


def floor_document(page: str, ledger: Any) -> str:
    """The evening's PDF ``page`` with its hand log replaced by :func:`floor_table`: the same
    first page, chart, statistics and appendix; the hand-by-hand numbers and rulings as a plain table."""
    start = page.index('<section class="log">')
    end = page.index("</section>", start) + len("</section>")
    plain = '<style>.floor td { padding: 0 1pt; hyphens: manual; }</style>'
    return page[:start] + '<section class="log">' + plain + floor_table(ledger) + "</section>" + page[end:]


class Renderers:
    """The app's renderer (a worker, or on older code a child per render) and this interpreter."""

    def __init__(self, app: Any, limit: float) -> None:
        import scorer.reports.pdf
        from scorer.reports.render_worker import write_pdf

        self.app, self.limit = app, limit
        self.static = Path(app.static_folder)
        self.worker = hasattr(scorer.reports.pdf, "workers")
        self.cpu: list[float] = []
        if self.worker:
            from scorer.reports import render_pool

            real = render_pool.RenderWorker.render

            def spy(worker: Any, html: bytes, deadline: float) -> tuple[bytes, float]:
                pdf, cpu = real(worker, html, deadline)
                self.cpu.append(cpu)
                return pdf, cpu

            render_pool.RenderWorker.render = spy  # type: ignore[method-assign]
        kept: dict[str, Any] = {}
        if "font_config" in inspect.signature(write_pdf).parameters:
            from weasyprint.text.fonts import FontConfiguration

            kept["font_config"] = FontConfiguration()  # as a warm process would keep it
        self.in_process: Callable[[str], bytes] = lambda html: write_pdf(html, self.static, **kept)
        try:  # this interpreter renders with the worker's GC settings, and collects after the render as it does
            from scorer.reports.render_worker import GC_THRESHOLDS

            self.gc: tuple[int, ...] | None = GC_THRESHOLDS
        except ImportError:  # older code: a child per render, Python's defaults
            self.gc = None

    @property
    def name(self) -> str:
        return "the render worker" if self.worker else "a child process per render"

    def app_render(self, html: str) -> Sample | None:
        """Through the app's renderer; ``None`` if it ran past the limit or failed."""
        from scorer.reports.pdf import PdfError, render_html_pdf

        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu.clear()
        started = time.perf_counter()
        with self.app.app_context():
            try:
                render_html_pdf(html, self.limit)
            except PdfError as error:
                print(f"  (a render through {self.name} stopped: {type(error).__name__}: {error})")
                return None
        wall = time.perf_counter() - started
        if self.cpu:
            return wall, self.cpu[-1]
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)

    def warm_render(self, html: str, *, tuned: bool = True) -> Sample:
        """In this interpreter, with the worker's GC settings unless not ``tuned``."""
        defaults = gc.get_threshold()
        if tuned and self.gc:
            gc.set_threshold(*self.gc)
        started, cpu = time.perf_counter(), time.process_time()
        try:
            self.in_process(html)
            return time.perf_counter() - started, time.process_time() - cpu
        finally:
            gc.set_threshold(*defaults)
            if self.gc:
                gc.collect()  # outside the time, as the worker collects after its reply


def pair(first: Callable[[], Sample | None], second: Callable[[], Sample | None],
         repeat: int) -> tuple[Sample | None, Sample | None]:
    """Medians (wall, CPU) of ``first`` and ``second`` run in turn ``repeat`` times, after one warm-up each."""
    a: list[Sample] = []
    b: list[Sample] = []
    if first() is None or second() is None:
        return None, None
    for _ in range(repeat):
        for fn, out in ((first, a), (second, b)):
            got = fn()
            if got is None:
                return None, None
            out.append(got)

    def median(samples: list[Sample]) -> Sample:
        return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)

    return median(a), median(b)


def ratio(what: str, a: Sample | None, b: Sample | None, against: str, target: str = "") -> None:
    if a is None or b is None:
        print(f"{what}: past the time limit, answered with the 503 page (no ratio)")
        return
    print(f"{what}: {a[0] * 1000:.0f} ms wall, {a[1] * 1000:.0f} ms CPU; {against}: {b[0] * 1000:.0f} ms wall, "
          f"{b[1] * 1000:.0f} ms CPU = {a[0] / b[0]:.2f}× wall, {a[1] / b[1]:.2f}× CPU{target}")


def gc_figure(renderers: Renderers, html: str, repeat: int) -> None:
    """The worker's GC settings (scorer.reports.render_worker.GC_THRESHOLDS) against Python's defaults,
    in this interpreter, on the same document (CPU is the fair figure here)."""
    if renderers.gc:
        ratio("the 100-hand PDF in this interpreter, with the worker's GC thresholds",
              *pair(lambda: renderers.warm_render(html), lambda: renderers.warm_render(html, tuned=False), repeat),
              "with Python's default thresholds")


def run(app: Any, *, repeat: int = 5, limit: float = 120.0) -> None:
    """Every PDF figure of this module for ``app`` (a database it may write to)."""
    from scorer.reports.pdf import evening_pdf_html
    from scorer.storage import evening_writes, evenings, units

    renderers = Renderers(app, limit)
    gc.collect()
    gc.freeze()  # what this interpreter has imported and built stays out of the collector's way, as in the worker
    documents: dict[int, tuple[str, str]] = {}
    with app.app_context(), app.test_request_context():
        for hands in (10, 100, 300):
            key = evening_writes.import_evening(make_evening(hands, seed=11)).key
            stored = units.get_evening(key)
            ledger = evenings.ledger_of(stored)
            page = evening_pdf_html(stored, ledger)
            documents[hands] = (page, floor_document(page, ledger))
            if hands == 100:
                log_alone = floor_alone(ledger)
    print(f"PDF renders through {renderers.name} (time limit {limit:g} s), each against its baseline "
          f"in the same run, medians of {repeat}:")
    ten = documents[10][0]
    ratio("evening PDF, 10 hands, through the app", *pair(lambda: renderers.app_render(ten),
                                                           lambda: renderers.warm_render(ten), repeat),
          "the same HTML in this warm interpreter", " (target ≤ 1.2×)")
    costs: dict[int, tuple[Sample | None, Sample | None]] = {}
    for hands in (10, 100, 300):
        page, floor = documents[hands]
        rounds = repeat if hands <= 100 else max(1, repeat // 2)
        costs[hands] = pair(lambda page=page: renderers.app_render(page),  # type: ignore[misc]
                            lambda floor=floor: renderers.app_render(floor), rounds)
        ratio(f"evening PDF, {hands} hands, through the app", *costs[hands],
              "the floor (the same PDF with its hand log's numbers and rulings as a plain fixed-layout table)",
              " (target ≤ 1.3×)" if hands == 100 else "")
    hundred = documents[100][0]
    ratio("evening PDF, 100 hands, through the app", *pair(lambda: renderers.app_render(hundred),
                                                           lambda: renderers.app_render(log_alone), repeat),
          "the hand log's numbers and rulings alone as a plain table (no first page, chart, statistics, appendix)")
    linear(costs)
    gc_figure(renderers, documents[100][0], max(2, repeat // 2))


def linear(costs: dict[int, tuple[Sample | None, Sample | None]]) -> None:
    pdfs = {hands: pdf for hands, (pdf, _floor) in costs.items()}
    if any(sample is None for sample in pdfs.values()):
        print("cost against hands: a render ran past the limit")
        return
    for index, unit in ((0, "wall"), (1, "CPU")):
        at = {hands: sample[index] for hands, sample in pdfs.items() if sample is not None}
        early, late = (at[100] - at[10]) / 90, (at[300] - at[100]) / 200
        print(f"cost against hands ({unit}): 10 → {at[10]:.2f} s, 100 → {at[100]:.2f} s, 300 → {at[300]:.2f} s; "
              f"each hand from 10 to 100 {early * 1000:.1f} ms, from 100 to 300 {late * 1000:.1f} ms "
              f"= {late / early:.2f}× (1.0 is linear)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--limit", type=float, default=120.0, help="PDF_TIME_LIMIT for the run (seconds)")
    parser.add_argument("--nice", type=int, default=10,
                        help="run this process at the render worker's niceness, so both sides compete alike")
    args = parser.parse_args()
    if args.nice and hasattr(os, "setpriority"):
        os.setpriority(os.PRIO_PROCESS, 0, max(os.getpriority(os.PRIO_PROCESS, 0), args.nice))
    from flask_migrate import upgrade

    from scorer import create_app

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/pdf.sqlite3", "SECRET_KEY": "bench",
                          "PDF_TIME_LIMIT": args.limit})
        with app.app_context():
            upgrade()
        run(app, repeat=args.repeat, limit=args.limit)


if __name__ == "__main__":
    main()
