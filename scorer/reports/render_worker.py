"""The PDF render worker: WeasyPrint in a child process the web app can kill.

WeasyPrint cannot be interrupted inside a thread, so the web app runs
``python -m scorer.reports.render_worker STATIC_DIR`` (:mod:`scorer.reports.render_pool` starts and stops it)
and keeps it: the worker imports WeasyPrint and loads the fonts once, then renders one
document after another, each finished HTML (already translated, charts inlined) read from
stdin and its PDF written to stdout in frames (:func:`scorer.reports.render_pool.read_frame`,
:func:`scorer.reports.render_pool.write_frame`). Past the time limit the app kills the worker and
starts another; at the end of its input the worker exits. Each reply carries the worker's
resident memory as it replies (:func:`scorer.reports.render_pool.resident_bytes`): the app
replaces a worker a render grew past ``NAP_PDF_WORKER_MAX_MIB``.

Between renders it keeps one WeasyPrint ``FontConfiguration`` (the app's fonts are
registered with Fontconfig once) and the objects it imported out of the garbage
collector's way (``gc.freeze``, higher thresholds: :data:`GC_THRESHOLDS`).

Only the app's own static files (fonts, CSS) can be loaded while rendering: the
fetcher refuses ``file:``, ``data:`` and every network address, so a hostile name or
a template mistake cannot make the server read local files or call out.

This module imports no Flask, database or rules code, so the worker starts quickly.
Exit status: 0 at the end of its input; 2 for a usage error.
"""

from __future__ import annotations

import gc
import mimetypes
import os
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote, urlsplit

from weasyprint import HTML
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

from .render_pool import read_frame, write_frame

#: Base URL of the documents we render; nothing answers at it: the fetcher maps it
#: onto the static folder. ``.invalid`` is reserved and never resolves (RFC 2606).
STATIC_BASE = "https://nap-scorer.invalid/static/"

#: The worker's garbage-collector thresholds. A render allocates hundreds of thousands of
#: boxes, and the default first threshold (700) ran a collection every few hundred of them
#: (benchmarks/bench.py measures the difference); a full collection runs after each render.
GC_THRESHOLDS = (20_000, 50, 1000)

#: Rendered when a worker starts, before the first request: loads the fonts and the stylesheet.
WARM_UP = '<link rel="stylesheet" href="pdf.css"><p>Nap <b>Наполеон</b> Napoleão <i>—</i></p>'


class StaticOnlyFetcher(URLFetcher):
    """Serves ``STATIC_BASE`` URLs from ``static_dir``; refuses everything else
    (raises ``ValueError``, which WeasyPrint reports and skips)."""

    def __init__(self, static_dir: Path) -> None:
        super().__init__(allowed_protocols=("https",), allow_redirects=False)
        self.static_dir = static_dir.resolve()

    def fetch(self, url: str, headers: dict | None = None) -> URLFetcherResponse:
        parts = urlsplit(url)
        prefix = urlsplit(STATIC_BASE)
        if (parts.scheme, parts.netloc) != (prefix.scheme, prefix.netloc) or not parts.path.startswith(prefix.path):
            raise ValueError(f"refused to fetch {url!r}: only the app's static files may be loaded")
        relative = unquote(parts.path[len(prefix.path) :])
        path = (self.static_dir / relative).resolve()
        if not path.is_relative_to(self.static_dir) or not path.is_file():
            raise ValueError(f"refused to fetch {url!r}: not a static file")
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(url, body=path.read_bytes(), headers={"Content-Type": mime})


def write_pdf(html: str, static_dir: Path, font_config: Any = None) -> bytes:
    """Render ``html`` (relative links point into ``static_dir``) to PDF bytes, in this
    process; ``font_config`` (a WeasyPrint ``FontConfiguration``) may be kept between renders."""
    fetcher = StaticOnlyFetcher(static_dir)
    return HTML(string=html, base_url=STATIC_BASE, url_fetcher=fetcher).write_pdf(font_config=font_config)


def lower_priority(niceness: str) -> None:
    """Run at niceness ``niceness`` (a number, as text) or lower priority, never higher."""
    if niceness.isdigit() and hasattr(os, "getpriority"):
        current = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, 0, max(current, int(niceness)))


def serve(static_dir: Path, requests: BinaryIO, replies: BinaryIO) -> None:
    """Render every document read from ``requests`` onto ``replies`` until the input ends."""
    font_config = FontConfiguration()
    try:
        write_pdf(WARM_UP, static_dir, font_config)
    except Exception as error:  # noqa: BLE001 - the first real document will say what is wrong
        print(f"warm-up render failed: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
    gc.collect()
    gc.freeze()  # what the imports made lives as long as the worker: never scanned again
    gc.set_threshold(*GC_THRESHOLDS)
    while (html := read_frame(requests)) is not None:
        started = time.process_time()
        try:
            pdf = write_pdf(html.decode("utf-8"), static_dir, font_config)
        except Exception as error:  # noqa: BLE001 - reported to the app, which answers with a clear page
            write_frame(replies, b"E", f"{type(error).__name__}: {error}".encode(), time.process_time() - started)
        else:
            write_frame(replies, b"P", pdf, time.process_time() - started)
        del html
        gc.collect()  # after the reply: the garbage of this render goes while nobody waits


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m scorer.reports.render_worker STATIC_DIR  (framed HTML on stdin, framed PDFs on stdout)",
              file=sys.stderr)
        return 2
    lower_priority(os.environ.get("NAP_PDF_NICE", ""))  # a PDF is never more urgent than the pages
    # the replies get a descriptor of their own; anything else printed goes to stderr
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    try:
        serve(Path(argv[0]), sys.stdin.buffer, replies)
    except BrokenPipeError:  # the app went away mid-reply
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
