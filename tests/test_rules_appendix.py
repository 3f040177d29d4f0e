"""The rules page and the PDF's appendix list every rule the evening may cite, in the
phone's language; the ruling page names each rule once."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from scorer.evening.file import loads
from scorer.reports.pdf import evening_pdf_html
from scorer.rules import RULES
from scorer.storage import evening_writes, evenings

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PREFIX = {"pagat": "P-", "hoyle": "H-", "russian36": "R-", "napoleao": "B-"}


def rule_ids(html: str) -> set[str]:
    """The rule ids a rules list shows, each as its own badge."""
    return set(re.findall(r'<span class="rule">([A-Z]-\d+)</span>', html))


def visible(html: str) -> str:
    """The words a reader sees (tags and their attributes, such as ``title``, dropped)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def pdf_text(data: bytes) -> str:
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages).split())


@pytest.mark.parametrize(("variant", "players", "tables"), [
    ("pagat", 4, [{}]),
    ("russian36", 4, [{}]),
    ("napoleao", 4, [{}]),
    # the pool (H-16) and each widow (H-17 … H-19) are options: every one is on the page of a table that chose it
    ("hoyle", 4, [{"pool": True, "widow": "widow"}, {"pool": True, "widow": "peep"}, {"widow": "garnet"}]),
])
def test_the_rules_page_lists_every_rule_of_the_variant(client: Any, app: Any, variant: str, players: int,
                                                        tables: list[dict]) -> None:
    shown: set[str] = set()
    for options in tables:
        with app.app_context():
            key = evening_writes.create_evening(variant=variant, players=[f"Pl{i}" for i in range(players)],
                                          first_dealer=0, options=options, stake=None).key
        shown |= rule_ids(client.get(f"/e/{key}/rules").get_data(as_text=True))
    every = {rid for rid in RULES if rid.startswith(PREFIX[variant])}
    assert every - shown == set()  # e.g. hoyle had no H-3, H-13, H-14, H-15; pagat no P-2; napoleao no B-15


@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.json") if ".expected" not in p.name))
def test_the_pdf_appendix_lists_every_rule_the_evening_cited(app: Any, example: str) -> None:
    with app.app_context():
        evening = evening_writes.import_evening(loads((EXAMPLES / f"{example}.json").read_bytes()))
        ledger = evenings.ledger_of(evening)
        with app.test_request_context():
            html = evening_pdf_html(evening, ledger)
    appendix = html[html.index('<ul class="rulespage">'):]
    appendix = appendix[:appendix.index("</ul>")]
    cited = {rid for row in ledger.rows for rid in row.ruling.rule_ids if rid in RULES}
    assert cited and cited - rule_ids(appendix) == set()


def test_the_appendix_is_in_russian_with_the_irregularities_hoyle_cited(client: Any, app: Any) -> None:
    with app.app_context():
        key = evening_writes.import_evening(loads((EXAMPLES / "hoyle-referee.json").read_bytes())).key
    text = pdf_text(client.get(f"/e/{key}/evening.pdf", headers={"Accept-Language": "ru"}).data)
    assert "Нап (правила Хойла) так, как играет этот стол. Источник: 000_380d836cfbf226e6.txt." in text
    assert "Nap (Hoyle rules)" not in text
    assert "H-3 Первый сдающий: каждый тянет карту" in text
    assert "H-13 Неправильное число карт: если игрок скажет об этом до заявки или паса" in text
    # this table plays with the pool, so the out-of-turn fine (3) goes into it and the revoker adds 5 (H-16)
    assert "Со стороны противника — штраф 3 фишки в банк (H-16)" in text
    assert "H-15 Ренонс: претензия останавливает игру, расчёт делается сразу." in text
    assert "Сделавший ренонс платит ещё штраф 5 фишек в банк (H-16)." in text
    # issue 25 item 9: a revoke stops play, but the hand's other claims still count
    assert "Остальные претензии сдачи всё равно учитываются: противник, сходивший не в очередь" in text


def test_pagats_house_rules_give_the_revoke_as_well_in_norwegian(client: Any, app: Any) -> None:
    with app.app_context():
        key = evening_writes.import_evening(loads((EXAMPLES / "pagat-thursday.json").read_bytes())).key
    text = pdf_text(client.get(f"/e/{key}/evening.pdf", headers={"Accept-Language": "nb"}).data)
    assert "Britisk Nap, grunnregler (Pagat), slik dette bordet spiller." in text
    assert "British Nap" not in text
    assert ("P-16 Kilden har ingen regler om uregelmessigheter. Husregler: feilgiv — samme giver gir på nytt, "
            "ingen poeng. Renons — har melderen renons, regnes givet som tapt; har en motspiller det, som om "
            "kontrakten ble vunnet.") in text
    assert "P-2 52 kort, ess høyest." in text


def test_the_ruling_page_names_each_rule_once(client: Any, app: Any) -> None:
    with app.app_context():
        key = evening_writes.import_evening(loads((EXAMPLES / "hoyle-referee.json").read_bytes())).key
    page = client.get(f"/e/{key}/hand/1", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    reasons = visible(page[page.index('<ol class="reasons">'):page.index("</ol>", page.index('<ol class="reasons">'))])
    # hand 1: H-16 (the new pool), H-6 (the auction), H-15 (Sam's revoke), H-16 (the revoke fine)
    assert [reasons.count(rid) for rid in ("H-6", "H-15", "H-16")] == [1, 1, 2]
    assert "000_380d836cfbf226e6.txt · «Ренонс»" in reasons and "H-15 · 000_" not in reasons
