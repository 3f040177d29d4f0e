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
from typing import Any

from markupsafe import Markup

#: Where the rows of hands go in the scoresheet's fragment and page: they are joined in
#: once, into the finished page (a long evening's rows are most of its bytes).
HANDS = "<!--hands-->"

#: A part of the scoresheet's fragment (templates/_sheet.html): its name and what is inside.
PART = re.compile(r'<div data-live-part="([a-z]+)">(.*?)</div><!--/part-->', re.S)
#: The hand a row of the scoresheet shows (templates/_sheet_rows.html).
HAND = re.compile(r'<tbody id="hand-([0-9]+)"')

Rendered = tuple[str, bool, Markup, "tuple[Markup, ...]"]


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


def digests_of(rendered: Rendered) -> dict[str, Any]:
    """What :func:`sheet_changes` needs of an older render: ``{"parts": {name: digest},
    "rows": {"n": digest}, "loose": digest}`` (JSON, kept where every process finds it)."""
    rows, loose = rows_by_hand(rendered[3])
    return {"parts": {name: digest(html) for name, html in parts_of(rendered[2]).items()},
            "rows": {str(n): digest(html) for n, html in rows.items()}, "loose": digest("\0".join(loose))}


def sheet_changes(old: dict[str, Any], new: Rendered) -> dict[str, Any] | None:
    """What turns the scoresheet rendered ``old`` (its :func:`digests_of`) into the one
    rendered ``new`` (as :func:`scorer.web.views.sheet.render_sheet` gives it): ``{"parts": {name: html},
    "rows": {number: html}, "removed": [numbers]}`` holding only what differs (a row
    whose running totals moved after a corrected hand differs too), or ``None`` when
    the difference cannot be said that way (the frame of the rows changed: the first
    hand, the last one undone; the lines before hand 1 changed; a part appeared)."""
    old_parts, new_parts = old.get("parts", {}), parts_of(new[2])
    if old_parts.keys() != new_parts.keys() or old_parts.get("hands") != digest(new_parts.get("hands", "")):
        return None
    if HANDS not in new_parts.get("hands", ""):
        return None  # no table to place rows in (or a template without the marker)
    old_rows = old.get("rows", {})
    new_rows, new_loose = rows_by_hand(new[3])
    if old.get("loose") != digest("\0".join(new_loose)):
        return None
    return {
        "parts": {name: html for name, html in new_parts.items() if old_parts[name] != digest(html)},
        "rows": {str(n): html for n, html in sorted(new_rows.items()) if old_rows.get(str(n)) != digest(html)},
        "removed": sorted(int(n) for n in old_rows if int(n) not in new_rows),
    }


