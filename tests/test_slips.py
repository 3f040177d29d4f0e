"""Issue 13, item 12: small slips fixed in their kind — the Russian overrule verb, numbers
in help text, a "+" on money gains, the chart legend's columns, PDF headings that
hyphenate, and options that do not apply. Made-up names throughout."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from pypdf import PdfReader

from scorer.reports.chart import legend_layout, running_totals_svg
from scorer.rules import VARIANTS
from tests.webhelpers import post_hand, start_evening

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("ru", "nb", "pt_BR")
#: messages about the evening file (JSON), whose numbers are written with a dot whatever the language
FILE_FORMAT = {"The stake must be a number such as 0.10."}


def _catalog(lang: str):  # type: ignore[no-untyped-def]
    with open(ROOT / "scorer" / "translations" / lang / "LC_MESSAGES" / "messages.po", "rb") as po:
        return read_po(po)


def _verb(text: str) -> str:
    return text.split()[0].casefold()[:5]  # "Заменить решение" → "замен"


@pytest.mark.parametrize("lang", LANGS)
def test_overrule_and_undo_are_different_verbs(lang: str) -> None:
    """Overruling a ruling keeps it on record; undoing a hand takes it out: no language may
    say both with one verb (Russian said «Отменить» for both)."""
    catalog = _catalog(lang)
    overrule = {_verb(catalog.get(m).string) for m in ("Overrule", "Overrule this ruling")}
    undo = {_verb(catalog.get(m).string) for m in ("Undo hand %(n)s", "Undo last hand…", "Undo the last call")}
    assert overrule.isdisjoint(undo), (overrule, undo)
    for message in catalog:
        if isinstance(message.id, str) and "overrul" in message.id.lower():
            assert not undo & {w.casefold()[:5] for w in message.string.split()}, message.id


@pytest.mark.parametrize("lang", LANGS)
def test_no_translation_writes_a_decimal_with_a_dot(lang: str) -> None:
    """Numbers in the help texts come from the app, formatted for the language; a decimal
    written into a translation by hand ("1.00" in Russian) is a slip."""
    for message in _catalog(lang):
        if message.id and isinstance(message.string, str) and message.id not in FILE_FORMAT:
            assert not re.search(r"\d\.\d", message.string), (message.id, message.string)


def test_the_chip_help_shows_one_chip_as_the_language_writes_it(client) -> None:  # type: ignore[no-untyped-def]
    client.set_cookie("lang", "ru")
    html = client.get("/new/russian36").get_data(as_text=True)
    assert "одна фишка = 1,00)" in html and "1.00" not in html


def test_money_gains_carry_a_plus_as_losses_carry_a_minus(client) -> None:  # type: ignore[no-untyped-def]
    """pagat at £0.10 a unit: Oskar bids Three and takes 3 — +3 from each of three
    opponents (P-6, P-12): Oskar +9 units, +£0.90; the others −3, −£0.30."""
    key = start_evening(client, players=("Ilka", "Oskar", "Runa", "Tove"), scoring="money", stake="0.10",
                        currency="£")
    assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
    html = client.get(f"/e/{key}").get_data(as_text=True)
    assert re.findall(r'<span class="money">(.*?)</span>', html)[:4] == ["−£0.30", "+£0.90", "−£0.30", "−£0.30"]
    client.set_cookie("lang", "ru")
    html = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert "+0,90\u00a0£" in html and "\u22120,30\u00a0£" in html


@pytest.mark.parametrize(("names", "layout"), [
    # "João Guilherme": 14 × 0.65 × 14 px = 127.4 + 25 = 152.4 px; the legend has 440 − 60 = 380:
    # four columns give 95 each, three do not divide four players, two give 190
    (("Maria Eduarda", "João Guilherme", "Ana Beatriz", "Luiz Henrique"), (2, -1)),
    (("Ann", "Bob", "Cat", "Dan"), (4, -1)),          # 3 × 9.1 + 25 = 52.3 ≤ 95
    (("Ann", "Bob", "Cat", "Dan", "Eve"), (5, -1)),   # ≤ 76
    # five long names: five columns are 76 px, and 5 has no other divisor: one column
    (("Maria Eduarda", "João Guilherme", "Ana Beatriz", "Luiz Henrique", "Rafaela"), (1, -1)),
    # one column is 380 px: 40 "W"s (364 + 25) do not fit, 38 and "…" (39 × 9.1 + 25 = 379.9) do
    (("W" * 40, "Bo"), (1, 38)),
])
def test_the_legend_has_as_many_columns_as_its_longest_name_allows(names, layout) -> None:  # type: ignore[no-untyped-def]
    assert legend_layout(names, 440) == layout


def test_the_chart_legend_uses_those_columns() -> None:
    names = ("Maria Eduarda", "João Guilherme", "Ana Beatriz", "Luiz Henrique")
    svg = running_totals_svg(names, [[1, 2], [2, 1], [0, 0], [-3, -3]], width=440, height=320).decode()
    legend = svg[svg.index('class="legends"'):]
    rows = {float(y) for y in re.findall(r'<rect[^>]*?y="([0-9.]+)"', legend)}
    assert len(rows) == 2  # two rows of two, not one row of four running into each other


def _ru_pdf_text(client) -> str:  # type: ignore[no-untyped-def]
    client.set_cookie("lang", "ru")
    body = (ROOT / "examples" / "hoyle-peep-pool.json").read_bytes()
    answer = client.post("/import", data={"file": (io.BytesIO(body), "e.json")}, content_type="multipart/form-data")
    key = answer.headers["Location"].rsplit("/", 1)[-1]
    pdf = client.get(f"/e/{key}/evening.pdf")
    assert pdf.status_code == 200
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.data)).pages)


def test_russian_pdf_headings_are_never_hyphenated(client) -> None:  # type: ignore[no-untyped-def]
    text = _ru_pdf_text(client)
    for word in ("Взятки", "Выполнил", "проигрыш", "Претензий", "Выигранные", "претензий"):
        assert word in text, word
    assert not re.search(r"(Взят|Выпол|про|Претен|Выигран)-\n", text)


def test_options_that_do_not_apply_are_left_out() -> None:
    napoleao, hoyle = VARIANTS["napoleao"], VARIANTS["hoyle"]
    to_target = {"end": "target", "target_score": 30, "hands": 20}
    assert [spec.key for spec, _ in napoleao.describe_options(to_target)] == ["end", "target_score"]
    assert [spec.key for spec, _ in napoleao.describe_options({**to_target, "end": "hands"})] == ["end", "hands"]
    no_pool = {spec.key: spec.default for spec in hoyle.option_specs}
    assert not {"pool_opening", "pool_top_up", "pool_at_end"} & {s.key for s, _ in hoyle.describe_options(no_pool)}


def test_a_game_to_a_target_lists_no_number_of_hands(client) -> None:  # type: ignore[no-untyped-def]
    key = start_evening(client, "napoleao", ("Ilka", "Oskar", "Runa"), opt_end="target", opt_target_score="25")
    html = client.get(f"/e/{key}").get_data(as_text=True)
    options = html[html.index('class="options"'):]
    assert "Target score" in options and "Number of hands" not in options
    form = client.get("/new/napoleao").get_data(as_text=True)  # static/options.js hides it while "target" is ticked
    assert re.search(r'data-applies="opt_end" data-values="hands ?"[^>]*>\s*<label>Number of hands', form)
    assert re.search(r"/static/options\.[0-9a-f]{12}\.js", form)  # under its content-hashed name
