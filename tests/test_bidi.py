"""Issue 25 item 3: a right-to-left name (Arabic, Hebrew) never flips the numbers beside it.

Unicode's bidi algorithm reads "محمد −12" in a left-to-right line as "12− محمد": the
digits after Arabic letters join them. Every name (and every typed text) is isolated
where it meets other words: ``<bdi>`` in the pages, FSI…PDI (U+2068 … U+2069) in the
engine's sentences, the PDF and the CSV; a name of left-to-right letters ("Ann") carries
no marks. Fixtures use made-up names: محمد (Arabic), ليلى (Arabic), נועה (Hebrew).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from typing import Any

from pypdf import PdfReader

from scorer.rules import EveningSetup, HandFacts, Stake, Text, get_variant, isolate, listing
from scorer.storage import evening_writes, hand_writes
from tests.test_browser import _phone, browser, site  # noqa: F401 - the fixtures

FSI, PDI = "\u2068", "\u2069"
#: Seat order; Bob deals first, so محمد is eldest hand.
PLAYERS = ("Bob", "محمد", "Ann", "Cat")


def _four_lost(players: tuple[str, ...] = PLAYERS) -> list[str]:
    """Hand 1 (pagat): Bob deals, محمد bids Four and takes 2: defeated, pays each of the
    3 opponents 4 (P-6, P-12): محمد −12, the others +4."""
    setup = EveningSetup(variant="pagat", options={}, players=players, first_dealer=0, stake=Stake(100, "NOK"))
    ruling = get_variant("pagat").settle(HandFacts(0, ("four", "pass", "pass", "pass"), 2), setup)
    assert ruling.units == (4, -12, 4, 4)
    return [str(r.text) for r in ruling.reasons]


# ------------------------------------------------------------------ the engine's sentences
def test_a_right_to_left_name_is_isolated_in_the_rulings_sentences() -> None:
    reasons = _four_lost()
    assert reasons[0] == f"{FSI}محمد{PDI} made the highest bid, Four, and plays alone against Bob, Ann, Cat."
    assert reasons[2] == (f"{FSI}محمد{PDI} won 2 tricks, needing 4: Four is defeated. {FSI}محمد{PDI} pays each "
                          f"of the 3 opponents 4: {FSI}محمد{PDI} −12.")


def test_a_left_to_right_name_carries_no_marks() -> None:
    reasons = _four_lost(("Bob", "Zoë", "Ann", "Cat"))
    assert reasons[2] == "Zoë won 2 tricks, needing 4: Four is defeated. Zoë pays each of the 3 opponents 4: Zoë −12."
    assert isolate("Ann") == "Ann" and isolate("Зоя") == "Зоя" and isolate("") == ""


def test_each_name_of_a_list_is_isolated_on_its_own() -> None:
    """"Ann, محمد, ليلى" isolated as a whole would still read "Ann, ليلى ,محمد": each name is."""
    assert str(listing(["Ann", "محمد", "ليلى", "נועה"])) == f"Ann, {FSI}محمد{PDI}, {FSI}ليلى{PDI}, {FSI}נועה{PDI}"
    # محمد declares: the opponents Bob, ليلى, נועה are listed one by one
    reasons = _four_lost(("Bob", "محمد", "ليلى", "נועה"))
    assert reasons[0] == (f"{FSI}محمد{PDI} made the highest bid, Four, and plays alone against "
                          f"Bob, {FSI}ليلى{PDI}, {FSI}נועה{PDI}.")
    # Arabic-Indic digits pull the neutrals beside them too (bidi class AN)
    assert isolate("٣") == f"{FSI}٣{PDI}" and isolate(isolate("محمد")) == f"{FSI}محمد{PDI}"
    assert str(Text("{who} −{n}", who="محمد", n=3)) == f"{FSI}محمد{PDI} −3"


# ------------------------------------------------------------------ the pages and the PDF
def _money_evening(app: Any) -> str:
    """Hand 1 as :func:`_four_lost`, at NOK 1.00 a unit; hand 2: محمد deals, Ann (eldest,
    the first to speak) bids Three and takes 3: Ann +9, each other −3. Totals: Bob +1, محمد −15, Ann +13, Cat +1."""
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=list(PLAYERS), first_dealer=0,
                                                options={"hands_per_dealer": 1}, stake=Stake(100, "NOK"))
        hand_writes.record_hand(evening, 1, HandFacts(0, ("four", "pass", "pass", "pass"), 2))
        hand_writes.record_hand(evening, 2, HandFacts(1, ("three", "pass", "pass", "pass"), 3))
        return evening.key


def test_the_hand_page_and_the_settle_up_isolate_the_name(app: Any, client: Any) -> None:
    key = _money_evening(app)
    for lang, sentence in {
        "en": f"{FSI}محمد{PDI} pays each of the 3 opponents 4: {FSI}محمد{PDI} −12.",
        "nb": f"{FSI}محمد{PDI} betaler hver av de 3 motspillerne 4: {FSI}محمد{PDI} −12.",
    }.items():
        client.set_cookie("lang", lang)
        html = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
        assert sentence in html, lang
    # the settle-up: محمد pays Ann 13 units and Bob and Cat 1 each (NOK 1.00 a unit)
    client.set_cookie("lang", "nb")
    html = client.get(f"/e/{key}").get_data(as_text=True)
    assert "<strong><bdi>محمد</bdi></strong> betaler <strong><bdi>Ann</bdi></strong> 13,00\xa0kr" in html


#: Marks that say which way a run reads: FSI…PDI, and the RLE…PDF pdftotext writes around right-to-left text.
_MARKS = dict.fromkeys(map(ord, "\u2068\u2069\u202a\u202b\u202c\u202d\u202e"))


def _squeezed(text: str) -> str:
    """``text`` without bidi marks and without spaces (pypdf drops or moves the spaces
    beside right-to-left runs): what is left is the order the glyphs are read in."""
    return "".join(text.translate(_MARKS).split())


def test_the_pdf_reads_the_name_before_its_number(app: Any, client: Any) -> None:
    """The PDF's text in reading order: "… 4: محمد −12", not "… 4: 12− محمد" (before the
    fix pdftotext read "4: 12− محمد." and pypdf "4: 12−  .محمد")."""
    key = _money_evening(app)
    data = client.get(f"/e/{key}/evening.pdf").data
    text = _squeezed("\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages))
    assert "payseachofthe3opponents4:محمد−12." in text
    assert "محمدpaysAnnNOK13.00" in text
    pdftotext = shutil.which("pdftotext")
    if pdftotext:  # poppler's reading (scripts/setup installs poppler-utils)
        shown = subprocess.run([pdftotext, "-", "-"], input=data, capture_output=True, check=True).stdout.decode()
        assert "payseachofthe3opponents4:محمد−12." in _squeezed(shown)  # before: "4: 12− محمد."
        assert "محمدpaysAnnNOK13.00" in _squeezed(shown)



def test_the_score_sheet_csv_isolates_a_name_beside_words_only(app: Any, client: Any) -> None:
    """A cell holding a name alone holds it as typed (a spreadsheet can look it up); the
    contract cell "محمد: Four" isolates it; "Ann" carries no marks anywhere."""
    key = _money_evening(app)
    body = client.get(f"/e/{key}/scoresheet.csv").data.decode("utf-8-sig").splitlines()
    assert body[0] == "Hand,Dealer,Contract,Tricks,Result,Bob,محمد,Ann,Cat"
    assert body[1] == f"1,Bob,{FSI}محمد{PDI}: Four,2,defeated,4,-12,4,4"
    assert body[2] == "2,محمد,Ann: Three,3,made,1,-15,13,1"


def test_a_change_of_seats_keeps_the_hands_number_after_the_name(app: Any) -> None:
    from scorer.reports.presenters import seat_change_text

    with app.test_request_context():
        assert seat_change_text({"before_hand": 3, "leave": "محمد"}) == f"{FSI}محمد{PDI} left before hand 3"
        assert seat_change_text({"before_hand": 2, "join": "ليلى", "left_of": "Bob"}) == (
            f"{FSI}ليلى{PDI} joined before hand 2, sitting on the left of Bob")
        assert seat_change_text({"before_hand": 4, "leave": "Ann"}) == "Ann left before hand 4"


# ------------------------------------------------------------------ in a real browser, at 390 × 844
_POSITIONS = """([selector, name, number]) => {
  // the screen position of the last `name` and the last `number` in the element's text
  const el = document.querySelector(selector);
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const found = {};
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const [key, word] of [["name", name], ["number", number]]) {
      const at = node.data.lastIndexOf(word);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + word.length);
      const box = range.getBoundingClientRect();
      found[key] = {left: box.left, right: box.right, top: box.top};
    }
  }
  return found;
}"""


def test_an_arabic_name_beside_a_negative_number_reads_right_in_the_browser(browser: Any, site: Any) -> None:  # noqa: F811
    """Chromium at 390 × 844: "… 4: محمد −12." has the name to the left of "−12" (before the
    fix the number came first, "4: 12− محمد"), and the Norwegian settle-up reads "Bob betaler
    محمد 1,00 kr" (it read "Bob betaler 1,00 محمد kr")."""
    app, base = site
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=list(PLAYERS), first_dealer=0,
                                                options={"hands_per_dealer": 1}, stake=Stake(100, "NOK"))
        # hand 1 as _four_lost: محمد −12; hand 2: محمد deals, Ann, Cat and Bob pass, محمد bids Nap and
        # takes 5: each opponent pays 5 (P-6, P-12): محمد −12 + 15 = +3, the others 4 − 5 = −1 each
        hand_writes.record_hand(evening, 1, HandFacts(0, ("four", "pass", "pass", "pass"), 2))
        hand_writes.record_hand(evening, 2, HandFacts(1, ("pass", "pass", "pass", "nap"), 5))
        key = evening.key
    context, page = _phone(browser)
    try:
        page.goto(f"{base}/e/{key}/hand/1")
        reason = "ol.reasons li:nth-child(3)"
        assert "pays each of the 3 opponents 4:" in page.locator(reason).inner_text()
        where = page.evaluate(_POSITIONS, [reason, "محمد", "−12"])
        assert abs(where["name"]["top"] - where["number"]["top"]) < 4  # on one line
        assert where["name"]["right"] <= where["number"]["left"] + 1, where  # the name, then −12
        page.screenshot(path="/tmp/t25-bidi/browser-hand.png", full_page=True)

        context.add_cookies([{"name": "lang", "value": "nb", "url": base}])
        page.goto(f"{base}/e/{key}")
        line = ".payments li:first-child"
        # the payment says which hand it settles (issue 22 item 7): Bob's only loss, −5 in hand 2
        assert page.locator(line).inner_text().replace("\u00a0", " ") == "Bob betaler محمد 1,00 kr: giv 2"
        where = page.evaluate(_POSITIONS, [line, "محمد", "1,00"])
        assert where["name"]["right"] <= where["number"]["left"] + 1, where
    finally:
        context.close()
