"""Post each form back as a browser would — every input with the value the page gave
it — so a field the user never touched can never block a save. Also regressions from
the referee's fresh-user test."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

from tests.webhelpers import counts, hand_id, post_hand, start_evening, totals_on_page


class FormInputs(HTMLParser):
    """The fields a browser would submit from the first POST form of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self.in_form = False
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form" and a.get("method") == "post" and not self.done:
            self.in_form = True
        if not self.in_form or tag != "input":
            return
        kind, name = a.get("type", "text"), a.get("name")
        value = a.get("value") if "value" in a else ("on" if kind in ("radio", "checkbox") else "")
        if not name or kind in ("submit", "file"):
            return
        if kind in ("radio", "checkbox"):
            if "checked" in a:
                self.data[name] = value or ""
        else:
            self.data.setdefault(name, value)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self.in_form:
            self.in_form, self.done = False, True


def browser_fields(html: str) -> dict[str, str]:
    parser = FormInputs()
    parser.feed(html)
    return parser.data


@pytest.mark.parametrize("variant", ["pagat", "hoyle", "napoleao"])
def test_the_hand_form_as_the_browser_sends_it(client: Any, app: Any, variant: str) -> None:
    key = start_evening(client, variant, ("A", "B", "C", "D"))
    fields = browser_fields(client.get(f"/e/{key}/hand").get_data(as_text=True))
    assert "claim_cards_held" in fields or variant != "hoyle"
    fields.update({"call_1": "four" if variant != "napoleao" else "three", "tricks": "4", "save": "1"})
    response = client.post(f"/e/{key}/hand", data=fields)
    assert response.status_code == 302, response.get_data(as_text=True)[-2000:]
    edit = browser_fields(client.get(f"/e/{key}/hand/1/edit").get_data(as_text=True))
    edit["save"] = "1"
    assert client.post(f"/e/{key}/hand/1/edit", data=edit).status_code == 302
    misdeal = browser_fields(client.get(f"/e/{key}/hand").get_data(as_text=True))
    misdeal["misdeal"] = "1"
    assert client.post(f"/e/{key}/hand", data=misdeal).status_code == 302
    assert counts(app)[1] == 2


def test_the_new_evening_form_as_the_browser_sends_it(client: Any, app: Any) -> None:
    for variant in ("pagat", "hoyle", "russian36", "napoleao"):
        fields = browser_fields(client.get(f"/new/{variant}").get_data(as_text=True))
        fields.update({"players-0": "A", "players-1": "B", "players-2": "C"})
        assert client.post(f"/new/{variant}", data=fields).status_code == 302, variant


def test_correcting_a_hand_keeps_its_record_and_override(client: Any, app: Any) -> None:
    key = start_evening(client, "hoyle", ("North", "East", "South", "West"))
    post_hand(client, key, 1, 0, {1: "three"}, 3)
    record, row = "AH 2H 3H 4H|KS 2S 5H 3S|QC 2C 3C 4C|KD 2D 3D 4D", hand_id(app, key, 1)
    client.post(f"/e/{key}/hand/1/play", data={"record": record, "version": "1", "hand_id": row, "save": "1"})
    client.post(f"/e/{key}/hand/1/override", data={"version": "2", "hand_id": row, "units_0": "1", "units_1": "-3",
                                                   "units_2": "1", "units_3": "1", "reason": "agreed", "apply": "1"})
    edit = browser_fields(client.get(f"/e/{key}/hand/1/edit").get_data(as_text=True))
    edit["save"] = "1"
    assert client.post(f"/e/{key}/hand/1/edit", data=edit).status_code == 302
    exported = client.get(f"/e/{key}/evening.json").get_json()["hands"][0]
    assert exported["record"][0] == ["AH", "2H", "3H", "4H"] and exported["override"]["reason"] == "agreed"
    assert totals_on_page(client.get(f"/e/{key}").get_data(as_text=True)) == {
        "North": "+1", "East": "−3", "South": "+1", "West": "+1"}
    # an empty record removes it; the tricks it gave stay with the hand
    client.post(f"/e/{key}/hand/1/override", data={"version": "3", "hand_id": row, "remove": "1"})
    saved = client.post(f"/e/{key}/hand/1/play", data={"record": "", "version": "4", "hand_id": row, "save": "1"})
    assert saved.status_code == 302
    hand = client.get(f"/e/{key}/evening.json").get_json()["hands"][0]
    assert "record" not in hand and hand["tricks"] == 1


def test_override_can_pay_out_the_pool_and_only_where_there_is_one(client: Any, app: Any) -> None:
    key = start_evening(client, "hoyle", ("A", "B", "C"), opt_pool="y", opt_pool_opening="5", opt_pool_top_up="0")
    post_hand(client, key, 1, 0, {1: "nap"}, 5)  # B makes Nap: 10 each and the pool of 15
    response = client.post(f"/e/{key}/hand/1/override", data={
        "version": "1", "hand_id": hand_id(app, key, 1), "units_0": "-15", "units_1": "30", "units_2": "-15",
        "pool": "0", "reason": "no pool today", "apply": "1"})
    assert response.status_code == 302 and counts(app)[2] == 2
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert totals_on_page(page) == {"A": "−15", "B": "+30", "C": "−15", "Pool": "0"}
    pagat = start_evening(client, "pagat", ("A", "B", "C"))
    post_hand(client, pagat, 1, 0, {1: "three"}, 3)
    before = counts(app)
    client.post(f"/e/{pagat}/hand/1/override", data={"version": "1", "hand_id": hand_id(app, pagat, 1),
                                                     "units_0": "-50", "units_1": "0", "units_2": "0", "pool": "50",
                                                     "reason": "x", "apply": "1"})
    assert counts(app) == before


def test_play_page_survives_a_bad_version_and_records_a_short_player(client: Any, app: Any) -> None:
    key = start_evening(client, "hoyle", ("A", "B", "C"))
    client.post(f"/e/{key}/hand", data={"number": "1", "dealer": "2", "call_0": "three", "tricks": "3", "save": "1",
                                        "claim_kind": "wrong_cards", "claim_accused": "1", "claim_cards_held": "4",
                                        "claim_upheld": "yes"})
    row = hand_id(app, key, 1)
    assert client.post(f"/e/{key}/hand/1/play", data={"record": "", "version": "abc", "hand_id": row,
                                                      "save": "1"}).status_code == 302
    assert client.post(f"/e/{key}/hand/1/play", data={"record": "", "version": "9" * 5000, "hand_id": row,
                                                      "save": "1"}).status_code == 302
    record = "AS 2S 3S|KS 4S 5S|QH AH 2H|KH 3H 4H"
    page = client.post(f"/e/{key}/hand/1/play", data={"record": record, "version": "1", "hand_id": row,
                                                      "card": "2D"})
    html = page.get_data(as_text=True)
    # B has no card: C led, A to play
    assert page.status_code == 200 and "|2D" in html and "<bdi>A</bdi> plays:" in html
