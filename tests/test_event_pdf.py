"""The club night's PDF (issue 22 item 8): the night of tests/club_night.py played through
the JSON commands, then its PDF read back with pdftotext in English and in Norwegian: the
standings worked out by hand, each round's seating, each table's totals, the referee's
ruling and the event's fingerprint."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.club_night import FINAL, NOTE, SEATING_2, SEATING_3, TABLES_1, play_whole_night


def pdf_pages(pdf: bytes) -> list[str]:
    """The PDF's text page by page (pdftotext -layout; pages split at form feeds)."""
    out = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True).stdout
    return out.decode().split("\f")[:-1]


needs_pdftotext = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) missing")


def standings_lines(text: str) -> list[tuple[int, str, int]]:
    """(place, name, total) of each line of the standings table in ``text``."""
    found = re.findall(r"^\s*(\d+)\s+(\w+)\s+([+−-]?\d+)\s+\d+\s+\d+\s+\d+\s*$", text, re.M)
    return [(int(p), n, int(t.replace("−", "-"))) for p, n, t in found]


@needs_pdftotext
def test_the_event_pdf_in_two_languages(app: Any) -> None:
    owner, rita = app.test_client(), app.test_client()
    night = play_whole_night(app, owner, rita)
    state = night.state()
    assert state["finished"] and [(r["place"], r["name"], r["total"]) for r in state["standings"]["rows"]] == FINAL
    fingerprint = state["fingerprint"]

    # the event's page and its JSON state point to the PDF
    assert state["pdf"].endswith(f"/ev/{night.key}/event.pdf")
    assert f'href="/ev/{night.key}/event.pdf"' in app.test_client().get(f"/ev/{night.key}").get_data(as_text=True)
    answer = app.test_client().get(f"/ev/{night.key}/event.pdf")  # a viewer with the event's link
    assert answer.status_code == 200 and answer.mimetype == "application/pdf"
    if os.environ.get("NAP_EVENT_PDF"):  # to look at: pdftoppm -png
        Path(os.environ["NAP_EVENT_PDF"]).write_bytes(answer.data)
    pages = pdf_pages(answer.data)
    first = pages[0]
    assert "Thursday club night" in first and "Final standings" in first and fingerprint in first
    assert standings_lines(first) == FINAL
    # each round on a page of its own: its seating, then each table's totals, best first
    rounds = [p for p in pages if re.search(r"^\s*Round \d\b", p, re.M)]
    assert len(rounds) == 3
    for text, seating in zip(rounds, (TABLES_1, SEATING_2, SEATING_3), strict=True):
        for number, table in enumerate(seating, start=1):
            if table == TABLES_1[2]:
                table = [*table, "Zoe"]  # the late arrival joined table 3 of round 1
            assert re.search(rf"Table {number}\s+{', '.join(table)}", text), (number, table, text)
    assert "Drawn" not in rounds[0] and "Seated as typed." in rounds[0]
    assert "Came late, seated in this round: Zoe" in rounds[0] and "Came late" not in rounds[1]
    assert "Seated by the standings after the last round." in rounds[1]
    # round 1, table 1: Bob +16 (winner), Ann Cat Eve +1, Dan −19 (tests/club_night.py)
    table_1 = rounds[0].split("Table 1 ·", 1)[1]
    assert re.search(r"Bob — winner\s+\+16", table_1) and re.search(r"Dan\s+−19", table_1)
    # round 2, table 1 after the referee's ruling: Hal +12, the four others −3
    assert re.search(r"Hal — winner\s+\+12", rounds[1].split("Table 1 ·", 1)[1])
    rulings = next(p for p in pages if "The referee’s rulings" in p)
    assert re.search(r"Round 2 · Table 1: dispute on hand 1 · claim upheld by Rita", rulings)
    assert NOTE in rulings and fingerprint in rulings
    assert all(fingerprint in p for p in pages)  # the footer of every page

    # the same PDF in Norwegian (the phone's language): the same numbers, Norwegian words
    norsk = app.test_client()
    assert norsk.get("/lang/nb?next=/").status_code == 303
    answer = norsk.get(f"/ev/{night.key}/event.pdf")
    pages_nb = pdf_pages(answer.data)
    assert "Final standings" not in pages_nb[0] and "Sluttstilling" in pages_nb[0], pages_nb[0][:400]
    assert standings_lines(pages_nb[0]) == FINAL and fingerprint in pages_nb[0]
    assert re.search(r"Runde 2\b", "\n".join(pages_nb))
    # a ruling's words in Norwegian, the referee's name and the note as typed
    assert "innsigelsen godtatt av Rita" in pages_nb[-1] and NOTE in pages_nb[-1]
    assert app.test_client().get("/ev/nosuchevent/event.pdf").status_code == 404
