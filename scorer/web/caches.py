"""The caches of rendered pages, pieces, charts and PDFs, keyed by an evening's
revision: an entry can never be stale, because every change bumps the revision.
:class:`RevisionCache` is a small thread-safe LRU; :func:`by_revision` fills one from
the evening settled at its current revision; :func:`render_pieces` renders only the
rows of a page it has not met.

What a kept page shows must not depend on the request beyond what its key holds: its
links, scripts, styles and forms start with the root they were built for
(:func:`link_root`, ``SCRIPT_NAME``), so that root is part of every key of a rendered
page or piece. No kept page holds an absolute link (the host is never part of one)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from flask import abort, render_template, request
from flask_babel import get_locale
from markupsafe import Markup

from ..reports.render_failures import FailureMemory
from ..storage import kept_ledgers as settled
from ..storage import sheet_digests, units
from .sheet_changes import Rendered, digests_of

V = TypeVar("V")


class RevisionCache(Generic[V]):
    """Keeps the ``size`` most recently used values."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def clear(self) -> None:
        """Forget everything (the benchmark's cold page)."""
        with self._lock:
            self._data.clear()

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)


def link_root() -> str:
    """The root this request's links are built from (``request.script_root``): ``""`` for
    an app served at ``/``. A key of anything rendered with ``url_for`` holds it, so a page
    built under another root (a server mounting the app elsewhere, a believed proxy) is
    never served to phones of this one."""
    return request.script_root


def load_settled(key: str, head: Mapping[str, Any] | None = None) -> settled.Settled:
    """The evening settled at its current revision, without loading its hands when this
    process has settled it before (:func:`scorer.storage.kept_ledgers.settled`; ``head``: the
    evening's row if the caller has read it); 404 if no evening."""
    found = settled.settled(key, head)
    if found is None:
        abort(404)
    return found


#: How many tables playing at once the per-table caches below are sized for: a club night of
#: 1,000 tables on one box (issue 23 item 2). Each of them keeps a few entries per table (its
#: current revision for the scorer's phone and for the viewers', a language or two); sized for
#: fewer, a room of more tables than they hold pushes each table's entry out before its next
#: hand, and every view renders again (measured with ``benchmarks/load.py --tables 1000``:
#: 8.8 ms of the app's CPU a request with 64 to 2,048 entries, 7.3 ms sized so). The memory it
#: costs, a 30-hand table: README, "Capacity".
TABLES_KEPT = 1_000

#: Rendered scoresheets by (evening key, revision, language, role, link root): several phones
#: reloading an unchanged evening cost one small query each, not a full settle and render.
sheet_cache: RevisionCache[Rendered] = RevisionCache(3 * TABLES_KEPT)

#: What the scoresheets rendered last for each (evening key, language, role, link root)
#: showed: their newest few revisions, ``((revision, digests), …)`` oldest first
#: (:func:`scorer.web.sheet_changes.digests_of`), what live updates diff a phone's revision
#: against (``GET /e/<key>/changes``, issue 23 item 1). Kept by table, so that a club night's
#: other tables, whose new revisions churn :data:`sheet_cache`, do not push out the revision
#: every phone of this table shows; and in the database too (:mod:`scorer.storage.sheet_digests`),
#: for the phones the proxy sends to another app process.
sheet_history: RevisionCache[tuple[tuple[int, dict[str, Any]], ...]] = RevisionCache(3 * TABLES_KEPT)

#: How many revisions of a table :data:`sheet_history` keeps (phones a hand or two behind).
HISTORY_DEPTH = 3

#: Rendered PDFs by (evening key, revision): WeasyPrint needs seconds for a long
#: evening, so a second download of an unchanged evening is served from here.
pdf_cache: RevisionCache[bytes] = RevisionCache(8)

#: PDFs that failed, by (evening key, revision, language, paper, limit): one the document
#: caused is answered at once (503) until the evening changes; a crash of the worker or a
#: render past the time limit only for a while (30 s, doubling to 10 min), then tried
#: again (:class:`scorer.reports.render_failures.FailureMemory`, issue 21 item 15).
pdf_failures = FailureMemory(64)

#: Whole scoresheet pages by (evening key, revision, language, role, group, link root).
page_cache: RevisionCache[str] = RevisionCache(3 * TABLES_KEPT)

#: The scoresheet's page around its fragment by (evening key, language, role, group,
#: title, finished, link root): the same at every revision, so the first view after a new hand
#: renders only the fragment and the new row. Only pages every phone of a language and
#: role shares (no message waiting, no form with its own CSRF token) are kept.
frame_cache: RevisionCache[str] = RevisionCache(3 * TABLES_KEPT)

#: The answers of ``GET /e/<key>/changes`` (:class:`scorer.web.compression.Kept`: JSON, and its
#: compressed bodies) by (evening key, revision, since, language, role, link root): the phones
#: watching a table ask the same question after each hand, and only the first in each process
#: has it made. A new revision is a new key: never answered from an older one.
changes_cache: RevisionCache[Any] = RevisionCache(4 * TABLES_KEPT)

#: Quick entry's page by (evening key, revision, name, language, link root, referee's desk link),
#: with :data:`scorer.web.quick_entry.CSRF_SLOT` and :data:`scorer.web.quick_entry.TOKEN_SLOT`
#: where each answer puts its phone's CSRF token and a new one-time token: the service worker's
#: warm-up makes it and the scorer's own GET a moment later answers it (issue 23 item 2).
quick_cache: RevisionCache[str] = RevisionCache(2 * TABLES_KEPT)
#: The running-totals chart (SVG, :class:`scorer.web.compression.Kept`: with its compressed
#: bodies) by (evening key, revision).
chart_cache: RevisionCache[Any] = RevisionCache(2 * TABLES_KEPT)


def by_revision(cache: RevisionCache[Any], key: str, build: Any, *variant: Any, revision: int | None = None,
                head: Mapping[str, Any] | None = None) -> Any:
    """What ``build(found)`` gives for the evening's current revision (``found`` a
    :class:`scorer.storage.kept_ledgers.Settled`: ``head`` and ``ledger``), from ``cache`` when it is
    there (one small query), else built and kept. ``variant`` (e.g. language and paper
    size) is part of the cache key; ``revision`` if the caller has read it already, and
    ``head`` the evening's row (:data:`scorer.storage.kept_ledgers.HEAD_COLUMNS`) if it has.
    404 if no evening."""
    if revision is None:
        revision = units.evening_revision(key)
    if revision is None:
        abort(404)
    value = cache.get((key, revision, *variant))
    if value is None:
        found = load_settled(key, head)
        value = build(found)
        if found.revision == found.head.revision:  # else a write came between its reads: keep nothing
            cache.put((key, found.revision, *variant), value)
    return value


def _variant_name(variant: tuple[Any, ...]) -> str:
    """``(language, scorer, link root)`` as the database keeps it: ``"en/viewer/"``."""
    locale, scorer, root = variant
    return f"{locale}/{'scorer' if scorer else 'viewer'}/{root}"[:200]


def remember_sheet(key: str, variant: tuple[Any, ...], revision: int, value: Any) -> None:
    """Keep what ``value``, the scoresheet rendered at ``revision`` for ``variant`` (language,
    role, link root), shows (its digests) in :data:`sheet_history` and in the database (once
    per revision in this process), if :data:`sheet_cache` holds it for that revision (so it
    was not read across a change)."""
    if sheet_cache.get((key, revision, *variant)) is not value:
        return
    kept = sheet_history.get((key, *variant)) or ()
    if any(r == revision for r, _ in kept):
        return
    digests = digests_of(value)
    sheet_history.put((key, *variant), tuple(sorted((*kept, (revision, digests)), key=lambda p: p[0]))[-HISTORY_DEPTH:])
    sheet_digests.keep(key, _variant_name(variant), revision, digests)


def recall_sheet(key: str, variant: tuple[Any, ...], revision: int) -> dict[str, Any] | None:
    """What the scoresheet rendered at ``revision`` for ``variant`` showed (its digests), from
    :data:`sheet_history`, :data:`sheet_cache` or the database (kept there by whichever
    process rendered it); ``None`` if none holds it any more."""
    for r, digests in sheet_history.get((key, *variant)) or ():
        if r == revision:
            return digests
    rendered = sheet_cache.get((key, revision, *variant))
    if rendered is not None:
        return digests_of(rendered)
    return sheet_digests.recall(key, _variant_name(variant), revision)


#: What :func:`render_pieces` splits a template's output at.
PIECE = "<!--piece-->"


def render_pieces(template: str | Callable[[Sequence[Any]], list[Markup]], kind: str, items: Sequence[Any],
                  keys: Sequence[Hashable | None], cache: RevisionCache[Markup], **context: Any) -> list[Markup]:
    """``template`` rendered for each of ``items`` (in the phone's language), the pieces
    kept in ``cache`` by (language, ``kind``, key): a page made of many rows renders only
    the rows whose key it has not met (and only under this request's :func:`link_root`,
    which the rows' links start with). ``keys[i]`` must hold everything the piece of
    ``items[i]`` shows (``None``: render it, keep nothing). The template loops over
    ``items`` (the missing ones, in order) and ends each piece with :data:`PIECE`; or
    ``template`` is a function printing the missing ones, a piece each (stripped, with one
    newline after: :mod:`scorer.web.season_pieces`)."""
    locale = (str(get_locale()), link_root())
    out: list[Markup | None] = [None if k is None else cache.get((*locale, kind, k)) for k in keys]
    missing = [i for i, piece in enumerate(out) if piece is None]
    if missing:
        if callable(template):
            printed = template([items[i] for i in missing])
        else:
            html = render_template(template, kind=kind, items=[items[i] for i in missing], **context)
            # the same however many are rendered together
            printed = [Markup(part.strip() + "\n") for part in html.split(PIECE)[:len(missing)]]
        for i, piece in zip(missing, printed, strict=False):
            out[i] = piece
            if keys[i] is not None:
                cache.put((*locale, kind, keys[i]), piece)
    return [piece or Markup() for piece in out]
