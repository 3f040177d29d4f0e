"""The evening's PDF: text extracted with pypdf shows the right totals and rulings;
the URL fetcher loads only the app's static files."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from scorer.evening.file import loads
from scorer.reports.pdf import STATIC_BASE, StaticOnlyFetcher, render_html_pdf
from scorer.storage import evening_writes, hand_writes

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def test_pdf_shows_standings_options_and_rulings(app: Any, client: Any) -> None:
    with app.app_context():
        evening = evening_writes.import_evening(loads((EXAMPLES / "hoyle-five.json").read_bytes()))
        evening_writes.set_finished(evening, True)  # finished: the standings are final, Alice won
        key = evening.key
    response = client.get(f"/e/{key}/evening.pdf")
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    text = pdf_text(response.data)
    assert "Five-handed Nap with Blücher" in text
    assert "Final standings" in text
    assert "Winner: Alice" in text
    # standings, best first, with money at £0.05 a unit
    for line in ("1 Alice — winner +70 +£3.50", "2 Chloe +55 +£2.75", "3 Eve +5 +£0.25", "4 Dmitri −5 −£0.25",
                 "5 Boris −125 −£6.25"):
        assert line in text, line
    assert "Wellington and Blücher yes (H-7)" in text
    assert "Boris made the highest bid, Blücher" in text and "Boris −80" in text  # hand 7
    assert "H-10 Tricks won beyond the bid score nothing" in text
    assert "H-12 · 000_380d836cfbf226e6.txt · «Неправильная сдача»" in text
    assert "Totals +70 −125 +55 −5 +5" in text


def test_pdf_shared_win_and_cyrillic_names(app: Any, client: Any) -> None:
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["Анна", "Bjørn", "<b>João</b>"],
                                                first_dealer=0,
                                          options={"hands_per_dealer": 1}, stake=None)
        from scorer.rules import HandFacts

        hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass"), 3))  # Bjørn +6
        hand_writes.record_hand(evening, 2, HandFacts(1, ("three", "pass", "pass"), 3))  # dealer Bjørn: <b>João</b> +6
        evening_writes.set_finished(evening, True)  # a hand short of the agreed end, but stopped there
        key = evening.key
    text = pdf_text(client.get(f"/e/{key}/evening.pdf").data)
    assert "Winners: Bjørn, <b>João</b> (equal totals share the win, P-14)" in text
    assert "Анна" in text


def test_the_pdf_of_an_evening_not_finished_has_standings_so_far_and_no_winner(app: Any, client: Any) -> None:
    """Issue 25, item 6: the PDF said "Final standings … winner" under a header that said
    the evening was hands short of its agreed end."""
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat", "Dan"], first_dealer=0,
                                                options={"hands_per_dealer": 2}, stake=None)
        from scorer.rules import HandFacts

        # P-9: Bob (eldest, Ann deals) makes Three: +3 from each of 3; then Cat (eldest, Bob
        # deals) makes Three: Bob and Cat +6, Ann and Dan −6
        hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        hand_writes.record_hand(evening, 2, HandFacts(1, ("three", "pass", "pass", "pass"), 3))
        key = evening.key
    text = pdf_text(client.get(f"/e/{key}/evening.pdf").data)
    assert "6 hands short of the agreed end (P-14)" in text  # 4 players × 2 deals = 8 hands
    assert "Standings after hand 2" in text and "Final standings" not in text
    assert "The evening is not finished: no winner yet." in text
    assert "winner" not in text.replace("no winner yet", "").lower()
    for line in ("1 Bob +6", "1 Cat +6", "3 Ann −6", "3 Dan −6"):
        assert line in text, line
    with app.app_context():
        from scorer.storage import units

        finished = units.get_evening(key)
        assert finished is not None
        evening_writes.set_finished(finished, True)
    text = pdf_text(client.get(f"/e/{key}/evening.pdf").data)
    assert "Final standings" in text and "Winners: Bob, Cat" in text and "no winner yet" not in text


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "http://127.0.0.1:5000/static/app.css",
        "https://nap-scorer.invalid/static/../../../etc/passwd",
        "https://nap-scorer.invalid/static/%2e%2e/scorer/app.py",
        "https://example.com/static/app.css",
        "data:text/css,body{}",
    ],
)
def test_fetcher_refuses_everything_but_static_files(app: Any, url: str) -> None:
    fetcher = StaticOnlyFetcher(Path(app.static_folder))
    with pytest.raises(ValueError, match="refused"):
        fetcher.fetch(url)


def test_fetcher_serves_static_files(app: Any) -> None:
    response = StaticOnlyFetcher(Path(app.static_folder)).fetch(STATIC_BASE + "pdf.css")
    assert b"@font-face" in response.read()


def test_hostile_document_cannot_read_local_files(app: Any) -> None:
    html = '<link rel="stylesheet" href="file:///etc/passwd"><img src="http://127.0.0.1:1/x.png"><p>safe</p>'
    with app.app_context():
        text = pdf_text(render_html_pdf(html))
    assert "safe" in text and "root:" not in text


def test_pdf_of_a_treasure_evening_has_the_settle_up(app: Any, client: Any) -> None:
    with app.app_context():
        key = evening_writes.import_evening(loads((EXAMPLES / "russian36-treasure.json").read_bytes())).key
    text = pdf_text(client.get(f"/e/{key}/evening.pdf").data)
    assert "Treasure: 60 (RUB 60.00)" in text
    assert "The treasure is shared: RUB 15.00 each. (R-2)" in text  # settled in money, to the kopeck
    # balances Ivan +245, Olga −285, Pyotr +105, Sveta −65: settled in at most three payments
    # a long auction wraps in its cell under the hand: compared with the line breaks folded
    assert "Auction: Olga One, Pyotr Two, Sveta pass, Ivan pass, Olga «Здесь», Pyotr Three, Olga pass." in " ".join(
        text.split())
    # no two or three of them sum to zero, so three payments: the biggest debtor pays the biggest creditor
    for line in ("Olga pays Ivan RUB 245.00", "Sveta pays Pyotr RUB 65.00", "Olga pays Pyotr RUB 40.00"):
        assert line in text, line


def test_pdf_shows_claims_rulings_and_overrides(app: Any, client: Any) -> None:
    with app.app_context():
        key = evening_writes.import_evening(loads((EXAMPLES / "hoyle-referee.json").read_bytes())).key
    text = " ".join(pdf_text(client.get(f"/e/{key}/evening.pdf").data).split())
    assert "Disputed. " in text
    assert "Sam revoked in trick 3 (2C on a heart lead; later showed 5H)" in text
    assert "Play stops: Sam pays Ed 12" in text
    assert "Rejected: the claim that Wes revoked in trick 2" in text
    assert "Overruled by the table; the ruling gave Nora −10, Ed −10, Sam −10, Wes +62, pool −32." in text
    assert "TABLE The table overruled this ruling: Wes's Nap was conceded" in text
