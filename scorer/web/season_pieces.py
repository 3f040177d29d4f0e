"""The pieces of a season page that each depend on one evening only (a book's row, a line
of the list of evenings), printed in Python (issue 23 item 4).

A new process showing a season of 1,000 evenings prints 2,000 of them at once; through
Jinja each figure, date, link and translation was a call through the template's context
(about 0.1 ms a piece, most of that view's time). Here the phone's language and the
catalog are worked out once and a piece is a few string joins. The text is byte for byte
what ``templates/_season_pieces.html`` prints (the template stays as the reference:
tests/test_cold_pages.py compares the two in every language), escaped as Jinja escapes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from flask_babel import get_translations
from markupsafe import Markup, escape

from ..reports.words import error_text, tr


def printer(kind: str, helpers: dict[str, Any]) -> Callable[[Sequence[Any]], list[Markup]]:
    """What prints pieces of ``kind`` (``"row"``: items (evening, cells); ``"line"``: an
    :class:`scorer.storage.groups.EveningLine`) with ``helpers`` (``groups._piece_helpers``:
    ``signed``, ``day``, ``url_for`` in the phone's language), each piece as
    :func:`scorer.web.caches.render_pieces` keeps it (stripped, one newline after)."""
    day, signed, url_for = helpers["day"], helpers["signed"], helpers["url_for"]

    def link(e: Any) -> str:
        return escape(url_for("sheet.scoresheet", key=e.key))

    def name(e: Any) -> str:
        text = str(e.name)
        if len(text) >= 2 and text[0] == "\u2068" and text[-1] == "\u2069":  # as the bdi filter
            text = text[1:-1]
        return f"<bdi>{escape(text)}</bdi>"

    if kind == "row":
        def cell(c: Any) -> str:
            if c is None:
                return '<td class="num"><span class="muted">–</span></td>'
            return f'<td class="num"><span class="chg">{escape(signed(c[0]))}</span><span class="run">' \
                   f'{escape(signed(c[1]))}</span></td>'

        def rows(items: Sequence[Any]) -> list[Markup]:
            return [Markup(f'<tr><td><a href="{link(e)}">{escape(day(e.played_on))}<br><small>{name(e)}</small></a>'
                           f'</td>\n      {"".join(map(cell, cells))}</tr>\n') for e, cells in items]

        return rows

    catalog = get_translations()
    variants: dict[Any, str] = {}

    def variant(v: Any) -> str:
        try:
            return variants[v]
        except (KeyError, TypeError):
            text = str(escape(str(tr(v))))
            try:
                variants[v] = text
            except TypeError:
                pass
            return text

    def line(e: Any) -> Markup:
        hands = Markup(catalog.ungettext("%(num)d hand", "%(num)d hands", e.hands)) % {"num": e.hands}
        winners = ""
        if e.winners:
            n = len(e.winners)
            winners = " · " + Markup(catalog.ungettext("winner: %(names)s", "winners: %(names)s", n)) % {
                "num": n, "names": ", ".join(map(str, e.winners))}
        problem = ""
        if e.problem:
            problem = Markup('<span class="disputed">%s</span>') % (
                Markup(catalog.ugettext("Left out of the season: %(problem)s")) % {"problem": error_text(e.problem)})
        return Markup(f'<li><a class="card" href="{link(e)}">\n    <strong>{escape(day(e.played_on))} · {name(e)}'
                      f'</strong>\n    <span class="muted">{variant(e.variant)} · {hands}{winners}</span>\n    '
                      f'{problem}\n  </a></li>\n')

    def lines(items: Sequence[Any]) -> list[Markup]:
        return [line(e) for e in items]

    return lines
