"""Charts of running totals, drawn as SVG on the server by pygal.

The same chart appears on the scoresheet (as an ``<img>`` of its own URL, so the
page's Content-Security-Policy needs no inline styles), in the evening's PDF and on
a group's season page. No script is embedded (``js=[]``): the SVG is a picture only.
Lines differ by dash pattern as well as colour, so the chart prints in black and white.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pygal
from pygal.style import Style

#: Dash patterns (SVG ``stroke-dasharray``) cycled over the players; the first is solid.
DASHES = ("", "8,4", "2,3", "10,3,2,3", "4,4", "14,4", "1,2", "6,2,2,2")

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
) -> bytes:
    """An SVG line chart: one line per player of their running total.

    ``names[i]`` labels ``series[i]``, the player's total after each point (units:
    chips or points, whatever the ledger counts); all series have the same length.
    A leading 0 (before the first hand) is added so every line starts at zero.
    ``x_labels`` label the points after the start (default 1, 2, …; for a season,
    the evenings' dates). Returns UTF-8 SVG bytes with no script.
    Raises ``ValueError`` if the series and names differ in number or length.
    """
    if len(names) != len(series):
        raise ValueError("one series per name is needed")
    lengths = {len(s) for s in series}
    if len(lengths) > 1:
        raise ValueError("every series must have the same length")
    points = lengths.pop() if lengths else 0
    labels = ["0", *(x_labels if x_labels is not None else [str(i) for i in range(1, points + 1)])]
    if len(labels) != points + 1:
        raise ValueError("one x label per point is needed")
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
    )
    chart = pygal.Line(
        style=style,
        width=width,
        height=height,
        js=[],
        disable_xml_declaration=True,
        show_dots=points <= 40,
        dots_size=2.5,
        legend_at_bottom=True,
        legend_at_bottom_columns=min(4, max(1, len(names))),
        truncate_legend=-1,
        title=title or None,
        y_title=y_title or None,
        show_minor_x_labels=False,
        x_labels_major_every=max(1, (points + 1) // 12),
        x_label_rotation=0 if points < 30 else 30,
        print_values=False,
        interpolate=None,
    )
    chart.x_labels = labels
    for index, (name, values) in enumerate(zip(names, series, strict=True)):
        dash = DASHES[index % len(DASHES)]
        chart.add(name, [0, *values], stroke_style={"width": 2.5, "dasharray": dash} if dash else {"width": 2.5})
    svg = chart.render(is_unicode=True)
    # pygal still writes its tooltip configuration as a <script>; the chart is a
    # picture, so drop it (text in an etree-built SVG is escaped: no "</script>" inside)
    return _SCRIPT.sub("", svg).encode()


_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.DOTALL)
