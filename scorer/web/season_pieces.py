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
    return _rows(helpers) if kind == "row" else _lines(helpers)


def _text(value: Any) -> str:
    """``value`` escaped as :func:`markupsafe.escape` escapes it, as a plain string: a
    season's first view escapes ~17,000 values, and ``escape`` makes a :class:`Markup` of
    each (a Python ``__new__`` and two ``hasattr``), most of that view's printing."""
    if type(value) is not str:
        return str(escape(value))
    return value.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;").replace(
        '"', "&#34;")


def _name(e: Any) -> str:
    """The evening's name as the ``bdi`` filter prints it."""
    text = str(e.name)
    if len(text) >= 2 and text[0] == "\u2068" and text[-1] == "\u2069":
        text = text[1:-1]
    return f"<bdi>{_text(text)}</bdi>"


def _rows(helpers: dict[str, Any]) -> Callable[[Sequence[Any]], list[Markup]]:
    day, signed, url_for = helpers["day"], helpers["signed"], helpers["url_for"]
    figures: dict[int, str] = {}  # a season repeats its figures: each printed once

    def figure(n: int) -> str:
        text = figures.get(n)
        if text is None:
            text = figures[n] = _text(signed(n))
        return text

    def cell(c: Any) -> str:
        if c is None:
            return '<td class="num"><span class="muted">–</span></td>'
        return f'<td class="num"><span class="chg">{figure(c[0])}</span><span class="run">{figure(c[1])}</span>' \
               "</td>"

    def rows(items: Sequence[Any]) -> list[Markup]:
        return [Markup(f'<tr><td><a href="{_text(url_for("sheet.scoresheet", key=e.key))}">'
                       f"{_text(day(e.played_on))}<br><small>{_name(e)}</small></a></td>\n      "
                       f'{"".join(map(cell, cells))}</tr>\n') for e, cells in items]

    return rows


def _lines(helpers: dict[str, Any]) -> Callable[[Sequence[Any]], list[Markup]]:
    day, url_for = helpers["day"], helpers["url_for"]
    catalog = get_translations()
    variants: dict[Any, str] = {}
    counts: dict[int, Markup] = {}

    def variant(v: Any) -> str:
        try:
            return variants[v]
        except (KeyError, TypeError):
            text = _text(str(tr(v)))
            try:
                variants[v] = text
            except TypeError:
                pass
            return text

    def line(e: Any) -> Markup:
        hands = counts.get(e.hands)
        if hands is None:
            hands = counts[e.hands] = Markup(catalog.ungettext("%(num)d hand", "%(num)d hands", e.hands)) % {
                "num": e.hands}
        winners = ""
        if e.winners:
            n = len(e.winners)  # as Markup's % prints them: the number as it is, the names escaped
            winners = " · " + catalog.ungettext("winner: %(names)s", "winners: %(names)s", n) % {
                "num": n, "names": _text(", ".join(map(str, e.winners)))}
        problem = ""
        if e.problem:
            problem = Markup('<span class="disputed">%s</span>') % (
                Markup(catalog.ugettext("Left out of the season: %(problem)s")) % {"problem": error_text(e.problem)})
        return Markup(f'<li><a class="card" href="{_text(url_for("sheet.scoresheet", key=e.key))}">\n    <strong>'
                      f"{_text(day(e.played_on))} · {_name(e)}</strong>\n    <span class=\"muted\">"
                      f"{variant(e.variant)} · {hands}{winners}</span>\n    {problem}\n  </a></li>\n")

    def lines(items: Sequence[Any]) -> list[Markup]:
        return [line(e) for e in items]

    return lines
