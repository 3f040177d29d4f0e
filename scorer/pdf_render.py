"""The PDF worker: WeasyPrint in a child process the web app can kill.

WeasyPrint cannot be interrupted inside a thread, so the web app (:mod:`scorer.pdf`)
runs ``python -m scorer.pdf_render STATIC_DIR`` with finished HTML (already
translated, charts inlined) on stdin and reads the PDF from stdout, with a time
limit; past it the child is killed and the server worker is free again.

Only the app's own static files (fonts, CSS) can be loaded while rendering: the
fetcher refuses ``file:``, ``data:`` and every network address, so a hostile name or
a template mistake cannot make the server read local files or call out.

This module imports no Flask, database or rules code, so the child starts quickly.
Exit status: 0 with the PDF on stdout; 2 for a usage error; 1 (message on stderr)
if WeasyPrint fails.
"""

from __future__ import annotations

import mimetypes
import os
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

#: Base URL of the documents we render; nothing answers at it: the fetcher maps it
#: onto the static folder. ``.invalid`` is reserved and never resolves (RFC 2606).
STATIC_BASE = "https://nap-scorer.invalid/static/"


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


def write_pdf(html: str, static_dir: Path) -> bytes:
    """Render ``html`` (relative links point into ``static_dir``) to PDF bytes, in this process."""
    fetcher = StaticOnlyFetcher(static_dir)
    return HTML(string=html, base_url=STATIC_BASE, url_fetcher=fetcher).write_pdf()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m scorer.pdf_render STATIC_DIR < page.html > page.pdf", file=sys.stderr)
        return 2
    nice = os.environ.get("NAP_PDF_NICE", "")
    if nice.isdigit() and hasattr(os, "nice"):
        os.nice(int(nice))  # a PDF is never more urgent than the pages the server answers meanwhile
    html = sys.stdin.buffer.read().decode("utf-8")
    try:
        pdf = write_pdf(html, Path(argv[0]))
    except Exception as error:  # noqa: BLE001 - reported to the parent, which answers with a clear page
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return 1
    sys.stdout.buffer.write(pdf)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
