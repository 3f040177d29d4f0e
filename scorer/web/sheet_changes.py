"""What changed on the scoresheet between two revisions, as live updates send it (issue 23,
item 1; ``GET /e/<key>/changes``, :func:`scorer.web.views.sheet.changes`): the parts of the
page and the rows of hands that differ, cut from the two renders of the page's own
templates (:func:`scorer.web.views.sheet.render_sheet`), so a part placed by
``static/live.js`` is byte for byte the part a fresh page holds. The browser only places
HTML; it never computes a score. docs/api.md describes the answer.

The older render is needed only as its :func:`digests_of` (a short hash of each part and of
each row): that is what each process keeps, in memory and in the database
(:mod:`scorer.storage.sheet_digests`), so a phone whose page another app process rendered
still gets what changed, not the page."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

#: Where the rows of hands go in the scoresheet's fragment and page: they are joined in
#: once, into the finished page (a long evening's rows are most of its bytes).
HANDS = "<!--hands-->"

#: A part of the scoresheet's fragment (templates/_sheet.html): its name and what is inside.
PART = re.compile(r'<div data-live-part="([a-z]+)">(.*?)</div><!--/part-->', re.S)
#: The hand a row of the scoresheet shows (templates/_sheet_rows.html).
HAND = re.compile(r'<tbody id="hand-([0-9]+)"')

#: A render of the scoresheet (:func:`scorer.web.views.sheet.render_sheet`): its title, whether
#: the evening is finished, its fragment, its rows of hands (newest first) and its
#: :func:`digests_of` (made with it, from its rows' :func:`row_digest`, :func:`digests_from`).
Rendered = tuple[str, bool, Markup, "tuple[Markup, ...]", dict[str, Any]]


def parts_of(fragment: str) -> dict[str, str]:
    """The named parts of a scoresheet fragment: ``{"totals": "<section …>", …}``."""
    return {name: inner for name, inner in PART.findall(fragment)}


def rows_by_hand(rows: tuple[Markup, ...]) -> tuple[dict[int, str], tuple[str, ...]]:
    """The rendered rows by hand number, and the pieces that show no hand (the lines of
    seat changes before hand 1 on an evening with changes of seats)."""
    numbered: dict[int, str] = {}
    loose: list[str] = []
    for row in rows:
        found = HAND.search(row)
        if found:
            numbered[int(found.group(1))] = str(row)
        else:
            loose.append(str(row))
    return numbered, tuple(loose)


def digest(text: str) -> str:
    """A short hash of ``text`` (80 bits, hex): equal texts, equal digests."""
    return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()


def row_digest(row: str) -> tuple[int | None, str]:
    """The hand a rendered row shows (``None``: a line that shows none, see :func:`rows_by_hand`)
    and the row's :func:`digest`: a pure function of its text, so a row kept from one revision
    to the next (:meth:`scorer.storage.kept_ledgers.Settled.per_hand`) is searched and hashed once."""
    found = HAND.search(row)
    return (int(found.group(1)) if found else None, digest(row))


def digests_of(rendered: Rendered) -> dict[str, Any]:
    """What :func:`sheet_changes` needs of an older render: ``{"parts": {name: digest},
    "rows": {"n": digest}, "loose": digest}`` (JSON, kept where every process finds it), made
    with the render (:func:`digests_from`)."""
    return rendered[4]


def digests_from(fragment: str, rows: Sequence[str], digested: Sequence[tuple[int | None, str]] | None = None
                 ) -> dict[str, Any]:
    """:func:`digests_of` the render of ``fragment`` and ``rows`` (newest first): the digest of
    each part, of each row by its hand (:func:`rows_by_hand`) and of the rows that show no
    hand together. ``digested[i]``, if given, is ``rows[i]``'s :func:`row_digest` (kept with
    the row: the rows of a long evening are not hashed again at each revision)."""
    if digested is None:
        digested = [row_digest(row) for row in rows]
    return {"parts": {name: digest(html) for name, html in parts_of(fragment).items()},
            "rows": {str(n): hashed for n, hashed in digested if n is not None},
            "loose": digest("\0".join(str(row) for row, (n, _) in zip(rows, digested) if n is None))}


def sheet_changes(old: dict[str, Any], new: Rendered) -> dict[str, Any] | None:
    """What turns the scoresheet rendered ``old`` (its :func:`digests_of`) into the one
    rendered ``new`` (as :func:`scorer.web.views.sheet.render_sheet` gives it): ``{"parts": {name: html},
    "rows": {number: html}, "removed": [numbers]}`` holding only what differs (a row
    whose running totals moved after a corrected hand differs too), or ``None`` when
    the difference cannot be said that way (the frame of the rows changed: the first
    hand, the last one undone; the lines before hand 1 changed; a part appeared). The
    digests of ``new`` are those made with it (:func:`digests_of`): its rows are not hashed again."""
    old_parts, new_parts = old.get("parts", {}), parts_of(new[2])
    hashed = digests_of(new)
    if old_parts.keys() != new_parts.keys() or old_parts.get("hands") != hashed["parts"].get("hands", digest("")):
        return None
    if HANDS not in new_parts.get("hands", ""):
        return None  # no table to place rows in (or a template without the marker)
    old_rows = old.get("rows", {})
    if old.get("loose") != hashed["loose"]:
        return None
    new_rows, hashed_rows = rows_by_hand(new[3])[0], hashed["rows"]
    return {
        "parts": {name: html for name, html in new_parts.items() if old_parts[name] != hashed["parts"][name]},
        "rows": {str(n): html for n, html in sorted(new_rows.items()) if old_rows.get(str(n)) != hashed_rows[str(n)]},
        "removed": sorted(int(n) for n in old_rows if int(n) not in new_rows),
    }


