"""The running-totals chart is drawn faster than pygal draws it (issue 23 item 2: its first
render was ~30 ms) and is the same picture byte for byte: :class:`scorer.reports.chart.Line`
(pygal's line chart with a cheap attribute look-up, and without the ``<desc>`` elements pygal
writes for its tooltip script, which the chart does not carry) written straight to text,
against pygal's own ``Line`` and ``render`` with those elements taken out, for charts of every
shape the app draws."""

from __future__ import annotations

import random
import re
import uuid
from typing import Any

import pygal
import pygal.graph.base
import pytest

from scorer.reports import chart


@pytest.fixture
def counted_ids(monkeypatch: Any) -> None:
    """pygal names each chart by a random UUID (its CSS is scoped to it): counted instead, so
    that two renders of one chart can be compared."""
    made = iter(range(1, 10**6))
    monkeypatch.setattr(pygal.graph.base, "uuid4", lambda: uuid.UUID(int=next(made)))


def _cases() -> list[tuple[list[str], list[list[int]], dict[str, Any]]]:
    rng = random.Random(23)
    pool = ["Ann", "Bob", "Клара", "Dmitri Ivanovich Petrov-Vodkin", "李小龙", "O'Neil & <Sons>", "Zoë", "Ян"]
    cases: list[tuple[list[str], list[list[int]], dict[str, Any]]] = [([], [], {}), (["Ann"], [[]], {})]
    for points in (1, 2, 29, 30, 31, 40, 41, 80):
        names = rng.sample(pool, rng.randint(3, 8))
        series = [[0] * points for _ in names]
        for line in series:
            total = 0
            for i in range(points):
                total += rng.randint(-300, 300)
                line[i] = total
        options: dict[str, Any] = {"width": rng.choice([440, 800]), "height": rng.choice([320, 400]),
                                   "legend": points != 31}
        if points in (2, 40):
            options.update(title="An evening <b>&", y_title="chips")
        if points in (29, 41):
            options["x_labels"] = [f"2026-01-{1 + i % 28:02d}" for i in range(points)]
        cases.append((names, series, options))
    return cases


@pytest.mark.usefixtures("counted_ids")
def test_the_chart_is_pygals_byte_for_byte(monkeypatch: Any) -> None:
    ours = [chart.running_totals_svg(names, series, **options) for names, series, options in _cases()]
    monkeypatch.setattr(chart, "Line", pygal.Line)
    monkeypatch.setattr(chart, "_render", lambda c: c.render(is_unicode=True))
    again = iter(range(1, 10**6))  # the same names again
    monkeypatch.setattr(pygal.graph.base, "uuid4", lambda: uuid.UUID(int=next(again)))
    pygals = [chart.running_totals_svg(names, series, **options) for names, series, options in _cases()]
    tooltips = re.compile(rb'<desc class="[^"<]*">[^<]*</desc>')
    assert sum(len(tooltips.findall(p)) for p in pygals) > 1000  # a dot's value, x, y and label
    assert len(ours) == 10 and ours == [tooltips.sub(b"", p) for p in pygals]
    assert not any(b"<desc" in o for o in ours)
    assert sum(map(len, ours)) < 0.75 * sum(map(len, pygals))  # a quarter less to send
    text = ours[2].decode()
    assert text.startswith('<svg xmlns="http://www.w3.org/2000/svg" id="chart-00000000-0000-0000-0000-000000000003"')
    assert 'class="graph line-graph vertical"' in text and "<script" not in text
    assert "O'Neil &amp; &lt;Sons&gt;" in "".join(c.decode() for c in ours)  # escaped as pygal escapes it


def test_the_charts_options_are_read_as_pygal_reads_them() -> None:
    """Outside a render a chart answers from itself; during one, from its render state
    (pygal's rule), so an option set on the chart is the one drawn."""
    line = chart.Line(width=300, show_legend=False)
    assert line.config.width == 300 and "state" in vars(line) and line.state is None
    line.add("Ann", [0, 5, -3])
    svg = chart._render(line)
    assert 'viewBox="0 0 300 ' in svg and 'class="legends"' not in svg
    assert line.state is None  # torn down after the render


def test_the_tree_is_written_as_elementtree_writes_it() -> None:
    """:func:`scorer.reports.chart._write` against ``ElementTree.tostring``: escaping in text,
    tails and attributes (quotes, line ends, tabs), comments, empty elements; a tree with a
    namespaced name or a processing instruction is left to ElementTree."""
    from xml.etree import ElementTree as ET

    root = ET.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "id": 'a"b<c>&d'})
    root.append(ET.Comment(" made by <pygal> & co "))
    group = ET.SubElement(root, "g", {"class": "x\ty\nz\r"})
    ET.SubElement(group, "path", {"d": "M0 0"})
    text = ET.SubElement(group, "text", {"x": "1"})
    text.text = "O'Neil & <Sons> > 3"
    text.tail = "tail & <more>"
    ET.SubElement(root, "desc").text = ""
    out: list[str] = []
    chart._write(root, out.append)
    assert "".join(out) == ET.tostring(root, encoding="unicode")
    assert '<path d="M0 0" />' in "".join(out) and "&amp; &lt;Sons&gt; &gt; 3" in "".join(out)
    for odd in (ET.Element("{http://www.w3.org/1999/xlink}a"), ET.ProcessingInstruction("pi", "x")):
        tree = ET.Element("svg")
        tree.append(odd)
        with pytest.raises(chart._Unusual):
            chart._write(tree, [].append)
