"""Entry that never dead-ends (issue 12): quick entry offers only what it can save.

A Wellington or Blücher names who bid Nap (and Wellington) before it (P-7, H-7 of
shared/rules; «Вариант» in the hoyle seed); in napoleao "Everyone passed" makes the dealer
the declarer and asks for the bid (B-6, Portuguese seed); a refused tap keeps what was
tapped and offers the full form filled in; a save shows "Hand N saved · Undo".
"""

from __future__ import annotations

import re
from typing import Any

from scorer.rules import get_variant
from scorer.storage import evenings, units
from tests.helpers import setup
from tests.webhelpers import start_evening, totals_on_page


def checked(html: str, name: str) -> list[str]:
    """The values of the checked inputs called ``name`` on a page."""
    tags = re.findall(r"<input\b[^>]*>", html)
    return [re.search(r'value="([^"]*)"', t).group(1) for t in tags  # type: ignore[union-attr]
            if f'name="{name}"' in t and re.search(r"\bchecked\b", t)]


def _rows(app: Any, key: str) -> list[Any]:
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        return evenings.ledger_of(evening).rows


def test_a_wellington_auction_is_made_from_who_bid_nap() -> None:
    variant = get_variant("hoyle")
    s = setup("hoyle", wellington_blucher=True)
    # Ann deals: Bob speaks first, then Cat, Dan, Ann. Bob bid Nap, Dan Wellington.
    assert variant.lone_bid_auction(s, 0, 3, "wellington", {"nap": 1}) == ("nap", "pass", "wellington", "pass")
    assert variant.lone_bid_auction(s, 0, 0, "blucher", {"nap": 2, "wellington": 3}) == (
        "pass", "nap", "wellington", "blucher")
    assert variant.overcalled("blucher") == ("nap", "wellington") and variant.overcalled("three") == ()


def test_wellington_from_quick_entry_is_saved_and_paid_by_h11(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client, variant="hoyle")
    # Ann deals; Bob bid Nap, Dan overcalled Wellington and won all five.
    response = client.post(f"/e/{key}/quick", data={"number": "1", "declarer": "3", "contract": "wellington",
                                                     "nap_by": "1", "tricks": "5"})
    assert response.status_code == 302, response.get_data(as_text=True)
    row = _rows(app, key)[0]
    assert row.facts.auction == ("nap", "pass", "wellington", "pass")
    # H-11, Hoyle tradition: a made Wellington takes 10 from each of the three opponents.
    assert row.ruling.units == (-10, -10, -10, 30)
    totals = totals_on_page(client.get(f"/e/{key}").get_data(as_text=True))
    assert [totals[n] for n in ("Ann", "Bob", "Cat", "Dan")] == ["−10", "−10", "−10", "+30"]


def test_the_only_player_who_can_have_bid_nap_is_filled_in(app: Any) -> None:
    """Issue 25, item 6: when one player only speaks before the declarer, the Nap that a
    Wellington overcalls (H-7) can only be theirs: the server fills it in (no JavaScript
    needed), shows it tapped when the page comes back, and saves with it."""
    client = app.test_client()
    key = start_evening(client, variant="hoyle")
    # Ann deals: Bob is eldest, Cat speaks second; Cat's Wellington overcalls Bob's Nap
    page = client.post(f"/e/{key}/quick", data={"number": "1", "declarer": "2", "contract": "wellington"})
    body = page.get_data(as_text=True)
    assert page.status_code == 422 and "Tap who bid Nap before." not in body
    assert checked(body, "nap_by") == ["1"]  # shown tapped
    saved = client.post(f"/e/{key}/quick", data={"number": "1", "declarer": "2", "contract": "wellington",
                                                  "tricks": "5"})
    assert saved.status_code == 302, saved.get_data(as_text=True)
    row = _rows(app, key)[0]
    assert row.facts.auction == ("nap", "wellington", "pass", "pass")
    assert row.ruling.units == (-10, -10, 30, -10)  # H-11: 10 from each of three
    # hand 2, Bob deals: Ann speaks third, after Cat and Dan; either may have bid the Nap: asked
    page = client.post(f"/e/{key}/quick", data={"number": "2", "declarer": "0", "contract": "wellington",
                                                "tricks": "5"})
    assert page.status_code == 422 and "Tap who bid Nap before." in page.get_data(as_text=True)


def test_a_wellington_without_its_nap_asks_and_keeps_every_tap(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client, variant="hoyle")
    page = client.post(f"/e/{key}/quick", data={"number": "1", "declarer": "1", "contract": "wellington",
                                                "tricks": "5"})
    body = page.get_data(as_text=True)
    assert page.status_code == 422 and "Tap who bid Nap before." in body
    assert checked(body, "declarer") == ["1"] and checked(body, "contract") == ["wellington"]
    # Dan speaks after Bob, so Dan cannot have bid the Nap that Bob's Wellington overcalls (H-7).
    page = client.post(f"/e/{key}/quick", data={"number": "1", "declarer": "1", "contract": "wellington",
                                                "nap_by": "3", "tricks": "5"})
    body = page.get_data(as_text=True)
    assert page.status_code == 422 and "H-7" in body and "Continue in the full form" in body
    link = re.search(r'href="(/e/[^"]+/hand\?[^"]+)"', body)
    assert link is not None
    full = client.get(link.group(1).replace("&amp;", "&")).get_data(as_text=True)
    # the full form comes filled in: Bob's Wellington, Dan's Nap, five tricks
    assert checked(full, "call_1") == ["wellington"] and checked(full, "call_3") == ["nap"]
    assert checked(full, "tricks") == ["5"] and checked(full, "call_2") in ([], ["pass"])
    assert not _rows(app, key)


def test_napoleao_everyone_passed_makes_the_dealer_declare(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client, variant="napoleao")
    page = client.post(f"/e/{key}/quick", data={"number": "1", "all_pass": "1"})
    body = page.get_data(as_text=True)
    assert page.status_code == 200 and "B-6" in body and "Ann (the dealer) declares" in body
    assert checked(body, "declarer") == ["0"]
    assert not _rows(app, key)
    # Ann (the dealer) declares One with hearts trump and takes one trick.
    saved = client.post(f"/e/{key}/quick", data={"number": "1", "declarer": "0", "contract": "one",
                                                  "trump": "H", "tricks": "1"})
    assert saved.status_code == 302, saved.get_data(as_text=True)
    row = _rows(app, key)[0]
    assert row.ruling.declarer == 0 and row.facts.auction[-1] == "one"


def test_a_save_offers_undo_in_one_tap(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    response = client.post(f"/e/{key}/quick", data={"number": "1", "declarer": "1", "contract": "three",
                                                     "tricks": "3"})
    assert response.headers["Location"].endswith(f"/e/{key}")  # the top: totals first
    body = client.get(f"/e/{key}").get_data(as_text=True)
    banner = re.search(r'<div class="flash saved".*?</div>', body, re.S)
    assert banner is not None and "Hand 1 saved." in banner.group(0)
    fields = dict(re.findall(r'name="(number|version|hand_id|csrf_token)"[^>]*value="([^"]*)"', banner.group(0)))
    assert fields["number"] == "1" and fields["version"] == "1"
    undone = client.post(f"/e/{key}/undo", data=fields)
    assert undone.status_code == 302 and not _rows(app, key)
    assert "Hand 1 is undone" in client.get(f"/e/{key}").get_data(as_text=True)
    # the next view has no banner
    assert 'class="flash saved"' not in client.get(f"/e/{key}").get_data(as_text=True)


def test_quick_entry_is_never_kept_by_the_browser(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    response = client.get(f"/e/{key}/quick")
    assert response.headers["Cache-Control"] == "no-store"
    assert 'autocomplete="off"' in response.get_data(as_text=True)


def test_the_rule_set_chooser_names_each_game_with_one_line_and_no_file_names(app: Any) -> None:
    from scorer.rules import VARIANTS

    body = app.test_client().get("/new").get_data(as_text=True)
    assert ".txt" not in body and not re.search(r"\b[0-9a-f]{16}\b", body)
    for variant in VARIANTS.values():
        assert variant.blurb and str(variant.blurb) in body


def test_a_russian36_auction_in_the_address_is_shown_again(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client, variant="russian36", players=("Ivan", "Olga", "Pyotr", "Sveta"))
    # Ivan (dealer) passed, Olga bid Two: Pyotr is to speak
    page = client.get(f"/e/{key}/hand?dealer=0&calls=pass,two").get_data(as_text=True)
    assert 'name="calls" type="hidden" value="pass,two"' in page and "<bdi>Pyotr</bdi> to speak" in page
    # a made-up auction (Olga cannot bid «Здесь»: R-6) starts again instead of failing
    page = client.get(f"/e/{key}/hand?dealer=0&calls=pass,here").get_data(as_text=True)
    assert 'name="calls" type="hidden" value=""' in page and "<bdi>Ivan</bdi> <small>(dealer)</small> to speak" in page
    assert client.get(f"/e/{key}/hand?dealer=9&calls=pass").status_code == 200
    # Ivan (dealer) One, Olga Two, the others pass; back to Ivan, who holds Olga's Two
    # with «Здесь»: the page says which bid is held (it used to say only «Здесь»)
    page = client.get(f"/e/{key}/hand?dealer=0&calls=one,two,pass,pass,here").get_data(as_text=True)
    assert "Highest so far: Two, held by Ivan with «Здесь»" in page and "<bdi>Olga</bdi> to speak" in page
    page = client.get(f"/e/{key}/hand?dealer=0&calls=one,two,pass,pass,here",
                      headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "Пока высшая: " in page and ", её держит Ivan словом «Здесь»" in page
