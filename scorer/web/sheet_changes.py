"""What changed on the scoresheet between two revisions, as live updates send it (issue 23,
item 1; ``GET /e/<key>/changes``, :func:`scorer.web.views.sheet.changes`): the parts of the
page and the rows of hands that differ, cut from the two renders of the page's own
templates (:func:`scorer.web.views.sheet.render_sheet`), so a part placed by
``static/live.js`` is byte for byte the part a fresh page holds. The browser only places
HTML; it never computes a score. docs/api.md describes the answer."""

from __future__ import annotations

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


def sheet_changes(old: Rendered, new: Rendered) -> dict[str, Any] | None:
    """What turns the scoresheet rendered ``old`` into the one rendered ``new`` (both as
    :func:`scorer.web.views.sheet.render_sheet` gives them): ``{"parts": {name: html},
    "rows": {number: html}, "removed": [numbers]}`` holding only what differs (a row
    whose running totals moved after a corrected hand differs too), or ``None`` when
    the difference cannot be said that way (the frame of the rows changed: the first
    hand, the last one undone; the lines before hand 1 changed; a part appeared)."""
    old_parts, new_parts = parts_of(old[2]), parts_of(new[2])
    if old_parts.keys() != new_parts.keys() or old_parts.get("hands") != new_parts.get("hands"):
        return None
    if HANDS not in new_parts.get("hands", ""):
        return None  # no table to place rows in (or a template without the marker)
    old_rows, old_loose = rows_by_hand(old[3])
    new_rows, new_loose = rows_by_hand(new[3])
    if old_loose != new_loose:
        return None
    return {
        "parts": {name: html for name, html in new_parts.items() if old_parts[name] != html},
        "rows": {str(n): html for n, html in sorted(new_rows.items()) if old_rows.get(n) != html},
        "removed": sorted(set(old_rows) - set(new_rows)),
    }


