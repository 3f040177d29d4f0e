"""Charts of running totals, drawn as SVG on the server by pygal.

The same chart appears on the scoresheet (as an ``<img>`` of its own URL, so the
page's Content-Security-Policy needs no inline styles), in the evening's PDF and on
a group's season page. No script is embedded (``js=[]``): the SVG is a picture only.
Lines differ by dash pattern as well as colour, so the chart prints in black and white.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Sequence
from typing import Any
from xml.etree import ElementTree

import pygal
from pygal.etree import etree as pygal_etree
from pygal.style import Style

# pygal appends a legacy ``sys.meta_path`` finder for its map plugins (which we do not
# use); Python warns (ImportWarning) on every later import that passes it. Drop it.
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "PluginImportFixer"]

from ..evening.ledger import Ledger  # noqa: E402 - after the meta_path fix above

#: Dash patterns (SVG ``stroke-dasharray``) cycled over the players; the first is solid.
DASHES = ("", "8,4", "2,3", "10,3,2,3", "12,3,2,3,2,3", "14,4", "1,2", "6,2,2,2")

#: Colours that stay apart in print and for common colour blindness (Okabe–Ito).
COLOURS = ("#000000", "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#999999")


def running_totals_svg(
    names: Sequence[str],
    series: Sequence[Sequence[int]],
    *,
    x_labels: Sequence[str] | None = None,
    title: str = "",
    y_title: str = "",
    width: int = 800,
    height: int = 400,
    legend: bool = True,
) -> bytes:
    """An SVG line chart: one line per player of their running total.

    ``names[i]`` labels ``series[i]``, the player's total after each point (units:
    chips or points, whatever the ledger counts); all series have the same length.
    A leading 0 (before the first hand) is added so every line starts at zero.
    ``x_labels`` label the points after the start (default 1, 2, …; for a season,
    the evenings' dates). ``legend=False`` leaves out pygal's legend (colour squares
    only), for a page that draws its own with :func:`line_style`. Returns UTF-8 SVG
    bytes with no script.
    Raises ``ValueError`` if the series and names differ in number or length.
    """
    if len(names) != len(series):
        raise ValueError("one series per name is needed")
    lengths = {len(s) for s in series}
    if len(lengths) > 1:
        raise ValueError("every series must have the same length")
    points = lengths.pop() if lengths else 0
    low = min((min(s) for s in series if s), default=0)
    high = max((max(s) for s in series if s), default=0)
    labels = ["0", *(x_labels if x_labels is not None else [str(i) for i in range(1, points + 1)])]
    if len(labels) != points + 1:
        raise ValueError("one x label per point is needed")
    columns, cut = legend_layout(names, width)
    style = Style(
        background="white",
        plot_background="white",
        foreground="#222222",
        foreground_strong="#000000",
        foreground_subtle="#bbbbbb",
        colors=COLOURS,
        font_family="DejaVu Sans, sans-serif",
        label_font_size=13,
        major_label_font_size=13,
        legend_font_size=14,
        title_font_size=16,
        stroke_width=2.5,
        # thin solid grey guides, so that only the players' lines are dashed
        guide_stroke_dasharray="none",
        major_guide_stroke_dasharray="none",
        guide_stroke_color="#c8c8c8",
        major_guide_stroke_color="#999999",
    )
    chart = Line(
        style=style,
        width=width,
        height=height,
        js=[],
        disable_xml_declaration=True,
        show_dots=points <= 40,
        dots_size=2.5,
        show_legend=legend,
        legend_at_bottom=True,
        legend_at_bottom_columns=columns,
        truncate_legend=cut,
        title=title or None,
        y_title=y_title or None,
        show_minor_x_labels=False,
        x_labels_major_every=max(1, (points + 1) // 12),
        x_label_rotation=0 if points < 30 else 30,
        print_values=False,
        interpolate=None,
        y_labels=integer_ticks(low, high) if names else None,
        value_formatter=_whole,
    )
    chart.x_labels = labels
    for index, (name, values) in enumerate(zip(names, series, strict=True)):
        dash = line_style(index)[1]
        chart.add(name, [0, *values], stroke_style={"width": 2.5, "dasharray": dash} if dash else {"width": 2.5})
    svg = _render(chart)
    # pygal still writes its tooltip configuration as a <script>; the chart is a
    # picture, so drop it (text in an etree-built SVG is escaped: no "</script>" inside)
    # (a character UTF-8 cannot hold, a lone surrogate, is a character reference, as pygal writes it)
    return _SCRIPT.sub("", svg).encode("utf-8", "xmlcharrefreplace")


_get = object.__getattribute__


class Line(pygal.Line):  # type: ignore[misc]
    """pygal's line chart (named ``Line`` as pygal's is: the SVG's class says "line-graph"), its
    attribute look-up made cheap (issue 23 item 2: a chart's first
    render was ~30 ms, 40 % of it in pygal's ``BaseGraph.__getattribute__``, which every read
    of an option goes through, several Python calls each). The same answer: while the chart
    renders, a name its render state holds is read from the state, any other from the chart
    (pygal's rule: dunder names and ``state`` itself always from the chart)."""

    def __getattribute__(self, name: str) -> Any:
        if name[:2] != "__" and name != "state":
            state = _get(self, "__dict__").get("state")
            if state is not None:
                held = state.__dict__  # a plain object (pygal.state.State): its own attributes
                if name in held:
                    return held[name]
        return _get(self, name)

    def _tooltip_data(self, *_args: Any, **_kwargs: Any) -> None:
        """No tooltip data: pygal writes four ``<desc>`` elements per dot for its tooltip script,
        which the chart does not carry (``js=[]``; a picture only). Without them a chart of 30
        hands is drawn in about a quarter less time (12.9 → 9.4 ms) and weighs 38 % less
        (60.9 → 37.8 KB; issue 23 item 2); the picture is the same."""


def _render(chart: Any) -> str:
    """``chart.render(is_unicode=True)`` (no XML declaration, not pretty-printed) written
    straight to text (:func:`_write`): pygal has ElementTree write it to UTF-8 bytes through a
    text wrapper and decodes them, a fifth of the render. With lxml (whose writer differs)
    pygal's own."""
    if pygal_etree.lxml or chart.config.pretty_print or not chart.config.disable_xml_declaration:
        return chart.render(is_unicode=True)  # type: ignore[no-any-return]
    root = chart.render_tree()
    out: list[str] = []
    try:
        _write(root, out.append)
    except _Unusual:  # a namespaced name, a processing instruction: ElementTree's own writer
        return ElementTree.tostring(root, encoding="unicode")
    return "".join(out)


class _Unusual(Exception):
    """A tree :func:`_write` does not write as ElementTree would (pygal makes none)."""


_escape_cdata = ElementTree._escape_cdata  # type: ignore[attr-defined]
_escape_attrib = ElementTree._escape_attrib  # type: ignore[attr-defined]


def _write(elem: Any, write: Any) -> None:
    """``elem`` as ``ElementTree.tostring(elem, encoding="unicode")`` writes it (its XML
    serializer: comments, attributes in their order, the same escaping, ``" />"`` for an empty
    element) for a tree with no namespaced names (ElementTree's writer would first walk the
    whole tree to collect them), a third of its time; :class:`_Unusual` for any other tree."""
    tag = elem.tag
    if tag is ElementTree.Comment:
        write(f"<!--{elem.text}-->")
    elif type(tag) is not str or tag[:1] == "{":
        raise _Unusual(tag)
    else:
        write("<" + tag)
        for key, value in elem.items():
            if type(key) is not str or key[:1] == "{" or type(value) is not str:
                raise _Unusual(key)
            write(f' {key}="{_escape_attrib(value)}"')
        text = elem.text
        if text or len(elem):
            write(">")
            if text:
                write(_escape_cdata(text))
            for child in elem:
                _write(child, write)
            write("</" + tag + ">")
        else:
            write(" />")
    if elem.tail:
        write(_escape_cdata(elem.tail))


#: The legend's type size (px) and the room a legend entry needs besides its text: the
#: colour box (12) and the gap after it (5), and a gap before the next column.
LEGEND_FONT = 14
LEGEND_BOX = 12 + 5 + 8
#: The plot's side margins (the y labels on the left), which the legend does not use.
LEGEND_MARGINS = 60


def text_width(text: str, size: int = LEGEND_FONT) -> float:
    """A generous estimate of ``text``'s width in px at ``size`` in DejaVu Sans: 0.65 em a
    character (its capitals and "m"/"w" are wider than pygal's 0.6), 1 em for a wide
    (CJK) character."""
    return sum(size * (1.0 if unicodedata.east_asian_width(c) in "WF" else 0.65) for c in text)


def legend_layout(names: Sequence[str], width: int) -> tuple[int, int]:
    """``(columns, truncation)`` for a legend under a chart ``width`` px wide: the most
    columns in which the longest name fits (so no name runs into the next column or out
    of the picture, whatever the language or the screen: the image is scaled as a
    whole), and ``-1`` (no truncation) — or, when even one column is too narrow, the
    number of characters that fit. The columns divide the players evenly: pygal reserves
    ``players // columns`` rows, so a last, shorter row would fall below the picture."""
    n = max(1, len(names))
    room = width - LEGEND_MARGINS
    longest = max((text_width(name) for name in names), default=0.0)
    for columns in range(n, 0, -1):
        if n % columns == 0 and longest + LEGEND_BOX <= room / columns:
            return columns, -1
    widest = max(names, key=text_width)
    fit = len(widest)
    while fit > 1 and text_width(widest[:fit] + "…") + LEGEND_BOX > room:
        fit -= 1
    return 1, fit


def line_style(index: int) -> tuple[str, str]:
    """``(colour, stroke-dasharray)`` of the ``index``-th line ("" is solid)."""
    return COLOURS[index % len(COLOURS)], DASHES[index % len(DASHES)]


def ledger_chart_svg(ledger: Ledger, *, width: int = 800, height: int = 400, legend: bool = True) -> bytes:
    """The evening's chart: each player's running total (units: chips or points) after
    every hand of ``ledger``, hands numbered from 1. UTF-8 SVG bytes, no script."""
    rows = ledger.rows
    series = [[row.totals[seat] for row in rows] for seat in range(ledger.setup.n)]
    return running_totals_svg(ledger.setup.players, series, width=width, height=height, legend=legend)


def integer_ticks(low: int, high: int, most: int = 10) -> list[int]:
    """Whole-number y-axis ticks covering ``low``…``high`` and 0 (units are whole chips
    or points, so a tick of 2.5 would mislead): at most ``most`` + 1 ticks, a step of
    1, 2 or 5 × a power of ten."""
    low, high = min(low, 0), max(high, 0)
    span = max(1, high - low)
    step, scale = 1, 1
    while True:
        step = next((m * scale for m in (1, 2, 5) if span <= most * m * scale), 0)
        if step:
            break
        scale *= 10
    start = (low // step) * step
    end = -(-high // step) * step
    return list(range(start, end + step, step))


def _whole(value: float) -> str:
    """A tick or value as a whole number with a real minus sign: ``−12``."""
    n = round(value)
    return f"−{-n}" if n < 0 else str(n)


_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.DOTALL)
