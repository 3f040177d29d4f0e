"""The evening's PDF summary (WeasyPrint) with a locked-down URL fetcher.

Only the app's own static files (fonts, CSS) can be loaded while rendering: the
fetcher refuses ``file:``, ``data:`` and every network address, so a hostile name
or a template mistake cannot make the server read local files or call out.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from urllib.parse import unquote, urlsplit

from flask import current_app, render_template
from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

from .ledger import Ledger, settle_up
from .models import Evening
from .rules import RULES
from .views.display import auction_of

#: Base URL of the documents we render; nothing answers at it: the fetcher maps it
#: onto the static folder. ``.invalid`` is reserved and never resolves (RFC 2606).
STATIC_BASE = "https://nap-scorer.invalid/static/"


class StaticOnlyFetcher(URLFetcher):
    """Serves ``STATIC_BASE`` URLs from ``static_dir``; refuses everything else."""

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


def render_html_pdf(html: str) -> bytes:
    """Render ``html`` (whose relative links point into ``static/``) to PDF bytes."""
    fetcher = StaticOnlyFetcher(Path(current_app.static_folder or "static"))
    return HTML(string=html, base_url=STATIC_BASE, url_fetcher=fetcher).write_pdf()


def standings(ledger: Ledger) -> list[tuple[int, int, int]]:
    """``(place, seat, total)`` best first; equal totals share a place (P-14)."""
    ordered = sorted(range(ledger.setup.n), key=lambda s: (-ledger.totals[s], s))
    return [(1 + sum(t > ledger.totals[s] for t in ledger.totals), s, ledger.totals[s]) for s in ordered]


def _rule_order(rule_id: str) -> tuple[str, int]:
    prefix, _, number = rule_id.partition("-")
    return prefix, int(number) if number.isdigit() else 0


def render_evening_pdf(evening: Evening, ledger: Ledger) -> bytes:
    """The evening's summary: players, variant and options, final totals with the
    winner(s) (P-14: equal totals share), and the hand-by-hand log with each hand's
    ruling and the rule ids it applied."""
    html = render_template(
        "pdf/evening.html",
        evening=evening,
        ledger=ledger,
        auctions={row.number: auction_of(ledger, row) for row in ledger.rows},
        standings=standings(ledger),
        settle=None if ledger.variant.points_only or not ledger.rows else settle_up(ledger),
        pool_name=ledger.variant.pool_name(ledger.setup.options),
        party=lambda p: ledger.setup.players[p] if isinstance(p, int) else
        (ledger.variant.pool_name(ledger.setup.options) or "pool").lower(),
        cited=sorted({rid for row in ledger.rows for rid in row.ruling.rule_ids if rid in RULES}, key=_rule_order),
    )
    return render_html_pdf(html)
