"""Names in any script print in the PDF: no glyph is drawn as a box (.notdef) and the
text extracts back as typed. Fonts: DejaVu shipped in static/fonts, the rest installed
by scripts/setup (Noto, WenQuanYi Micro Hei, Noto Color Emoji) and found through fontconfig."""

from __future__ import annotations

import io
import re
from typing import Any

from pypdf import PdfReader
from pypdf.generic import ContentStream, DictionaryObject, NameObject

from scorer.reports.pdf import evening_pdf_html, render_html_pdf
from scorer.rules import HandFacts, Stake
from scorer.storage import evening_writes, evenings, hand_writes

#: Made-up names, one script each: Greek, Cyrillic, Arabic, Hebrew, Devanagari, Chinese with an emoji.
PLAYERS = ["Ξένια", "Зоя", "ليلى", "נועה", "अनुज", "小龙 🐉"]
#: The table's name (title and page footer): Korean, Japanese, emoji and Latin.
TABLE = "민지네 목요일 · 木曜日の夜 🃏🎲"


def _cids(font: DictionaryObject) -> dict[int, int]:
    """A Type0 font's encoding CMap as ``code → CID`` (empty for Identity-H: code = CID)."""
    encoding = font["/Encoding"]
    if isinstance(encoding, NameObject):
        assert encoding == "/Identity-H", encoding
        return {}
    cmap = encoding.get_object().get_data().decode("latin-1")
    pairs = {int(code, 16): int(cid) for code, cid in re.findall(r"<([0-9a-fA-F]+)>\s+(\d+)", cmap)}
    for low, high, cid in re.findall(r"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s+(\d+)", cmap):
        pairs.update({code: int(cid) + code - int(low, 16) for code in range(int(low, 16), int(high, 16) + 1)})
    return pairs


def _gid(font: DictionaryObject, code: int, cids: dict[int, int]) -> int:
    cid = cids.get(code, code)
    gid_map = font["/DescendantFonts"][0].get_object().get("/CIDToGIDMap", NameObject("/Identity"))
    if isinstance(gid_map, NameObject):
        return cid
    data = gid_map.get_object().get_data()
    return int.from_bytes(data[2 * cid: 2 * cid + 2], "big")


def _shown(operands: list, operator: bytes) -> bytes:
    if operator == b"TJ":
        return b"".join(bytes(o.original_bytes) for o in operands[0] if hasattr(o, "original_bytes"))
    return bytes(operands[-1].original_bytes)


def notdef_glyphs(data: bytes) -> list[str]:
    """Every glyph a PDF shows with glyph id 0 (.notdef, drawn as a box), as ``"font code"``.
    Only Type0 fonts with two-byte codes are understood (WeasyPrint writes nothing else);
    any other font fails the test rather than pass unchecked."""
    reader = PdfReader(io.BytesIO(data))
    missing: list[str] = []

    def scan(stream: Any, resources: DictionaryObject) -> None:
        fonts = resources.get("/Font", DictionaryObject()).get_object()
        xobjects = resources.get("/XObject", DictionaryObject()).get_object()
        font, cids = None, {}
        for operands, operator in ContentStream(stream, reader).operations:
            if operator == b"Tf":
                font = fonts[operands[0]].get_object()
                assert font["/Subtype"] == "/Type0", f"unchecked font {font['/BaseFont']} ({font['/Subtype']})"
                cids = _cids(font)
            elif operator in (b"Tj", b"TJ", b"'", b'"'):
                shown = _shown(operands, operator)
                for i in range(0, len(shown), 2):
                    code = int.from_bytes(shown[i: i + 2], "big")
                    if _gid(font, code, cids) == 0:
                        missing.append(f"{font['/BaseFont']} {code:04x}")
            elif operator == b"Do":
                form = xobjects[operands[0]].get_object()
                if form.get("/Subtype") == "/Form":
                    scan(form, form.get("/Resources", resources).get_object())

    for page in reader.pages:
        scan(page.get_contents(), page["/Resources"].get_object())
    return missing


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def test_a_character_no_font_has_is_found_as_a_box(app: Any) -> None:
    """The check itself can fail: U+10FFFD (private use) is in no font, so it is drawn as .notdef."""
    html = '<link rel="stylesheet" href="pdf.css"><p>Zoë \U0010fffd</p>'
    with app.app_context():
        data = render_html_pdf(html)
    assert len(notdef_glyphs(data)) == 1  # the one box; "Zoë" is drawn from DejaVu


def test_every_script_a_player_may_type_prints_without_boxes(app: Any, client: Any) -> None:
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=PLAYERS, first_dealer=0, name=TABLE,
                                          options={"hands_per_dealer": 1}, stake=Stake(10, "£"))
        # hand 1, Ξένια deals: Зоя (eldest) bids Three and takes 3: Зоя +15, each of the other five −3 (P-12)
        hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass", "pass", "pass", "pass"), 3))
        # hand 2, Зоя deals: eldest is ليلى; 小龙 🐉 (fourth to speak) bids Three and takes 3: +15, others −3
        hand_writes.record_hand(evening, 2, HandFacts(1, ("pass", "pass", "pass", "three", "pass", "pass"), 3))
        evening_writes.set_finished(evening, True)  # stopped early: the PDF names its winners
        key = evening.key
    response = client.get(f"/e/{key}/evening.pdf")
    assert response.status_code == 200
    assert notdef_glyphs(response.data) == []
    text = " ".join(pdf_text(response.data).split())
    # Зоя and 小龙 🐉 +15 −3 = +12 each (+£1.20); the other four −3 −3 = −6 each (−£0.60)
    assert "Winners: Зоя, 小龙 🐉 (equal totals share the win, P-14)" in text
    assert "1 小龙 🐉 — shares the win +12 +£1.20" in text  # a money gain carries its "+" (issue 13 item 12)
    assert "3 अनुज −6 −£0.60" in text
    for name in [*PLAYERS, TABLE]:
        assert name in text, name


def test_right_to_left_names_keep_their_order_in_a_list(app: Any) -> None:
    """Two Arabic or Hebrew names side by side would swap places and take the comma
    between them (Unicode bidi): each name is isolated in the PDF's lists."""
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=PLAYERS[1:5], first_dealer=1, options={},
                                          stake=None)
        with app.test_request_context():
            html = evening_pdf_html(evening, evenings.ledger_of(evening))
    assert "<bdi>Зоя</bdi>, <bdi>ليلى</bdi>, <bdi>נועה</bdi>, <bdi>अनुज</bdi>; <bdi>ليلى</bdi> dealt first" in html
