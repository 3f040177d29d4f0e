"""The hand form for every variant: russian36's auction built one call at a time,
napoleao's trump, hoyle's widow and peeks; the scoresheet's pool and settle-up."""

from __future__ import annotations

from typing import Any

from tests.webhelpers import counts, hand_id, post_hand, start_evening, totals_on_page


def _step(client: Any, key: str, calls: str, call: str | None = None, **extra: str) -> Any:
    data = {"number": "1", "dealer": "0", "calls": calls, **extra}
    if call is not None:
        data["call"] = call
    return client.post(f"/e/{key}/hand", data=data)


def test_russian36_auction_one_call_at_a_time(client: Any, app: Any) -> None:
    key = start_evening(client, "russian36", ("Ivan", "Olga", "Pyotr", "Sveta"), opt_stake_per_trick="10",
                        opt_ante="5", scoring="money", stake="1", currency="RUB")
    page = client.get(f"/e/{key}/hand").get_data(as_text=True)
    assert "<bdi>Ivan</bdi> <small>(dealer)</small> to speak" in page  # the dealer speaks first
    assert 'name="call" value="one"' in page and 'value="here"' not in page  # nothing to hold yet
    # Ivan pass, Olga two, Pyotr three, Sveta pass, Olga pass: each step re-renders, nothing is saved
    calls = ""
    for call in ("pass", "two", "three", "pass"):
        response = _step(client, key, calls, call)
        assert response.status_code == 200
        calls = ",".join(c for c in (calls, call) if c)
    page = _step(client, key, calls, "pass").get_data(as_text=True)
    assert "Pyotr plays Three." in page and counts(app)[1] == 0
    # an illegal call is refused with its rule
    bad = _step(client, key, "pass,two", "here")
    assert bad.status_code == 422 and "(R-6)" in bad.get_data(as_text=True)
    moved = _step(client, key, "pass,two", "three", calls_dealer="0", dealer="1")
    assert moved.status_code == 422 and "undo the calls first" in moved.get_data(as_text=True)
    undo = _step(client, key, "pass,two", None, undo_call="1").get_data(as_text=True)
    assert 'name="calls" type="hidden" value="pass"' in undo
    saved = client.post(f"/e/{key}/hand", data={"number": "1", "dealer": "0", "calls": calls + ",pass",
                                                 "tricks": "3", "purchase": "y", "save": "1"})
    assert saved.status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    # antes 5 each into the treasure; Pyotr +90: Ivan −35, Olga −35, Pyotr +85, Sveta −35, treasure 20
    assert totals_on_page(page) == {"Ivan": "−35", "Olga": "−35", "Pyotr": "+85", "Sveta": "−35", "Treasure": "20"}
    assert "R-9" in client.get(f"/e/{key}/hand/1").get_data(as_text=True)


def test_napoleao_trump_and_points(client: Any) -> None:
    key = start_evening(client, "napoleao", ("Ana", "Bruno", "Carla"), opt_end="target", opt_target_score="5")
    new = client.get("/new/napoleao").get_data(as_text=True)
    assert "Value of one unit" not in new  # points only: no stake
    response = client.post(f"/e/{key}/hand", data={"number": "1", "dealer": "0", "call_1": "nap", "tricks": "5",
                                                   "trump": "H", "save": "1"})
    assert response.status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert totals_on_page(page) == {"Ana": "0", "Bruno": "+10", "Carla": "0"}
    assert "target of 5" in page and "Winner" in page
    assert "named ♥ hearts trump" in client.get(f"/e/{key}/hand/1").get_data(as_text=True)


def test_hoyle_peep_nap_peeks_and_pool(client: Any) -> None:
    key = start_evening(client, "hoyle", ("Ann", "Ben", "Cai"), opt_pool="y", opt_pool_opening="3",
                        opt_pool_top_up="1", opt_widow="peep", scoring="money", stake="0.10")
    form = client.get(f"/e/{key}/hand").get_data(as_text=True)
    assert 'name="peek_1"' in form and 'name="widow"' in form
    response = client.post(f"/e/{key}/hand", data={"number": "1", "dealer": "0", "call_1": "three", "tricks": "3",
                                                   "widow": "y", "peek_1": "y", "peek_2": "y", "save": "1"})
    assert response.status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert totals_on_page(page) == {"Ann": "−7", "Ben": "+2", "Cai": "−7", "Pool": "12"}
    assert "Settle-up" in page
    # if it ended now: pool 12 shared, 4 each → Ann −3, Ben +6, Cai −3
    # a money evening settles in money
    assert "<strong><bdi>Ann</bdi></strong> pays <strong><bdi>Ben</bdi></strong> £0.30" in page
    rules = client.get(f"/e/{key}/rules").get_data(as_text=True)
    assert "a new pool starts with 3 from each player; each dealer adds 1" in rules
    assert "Nap 10 / 5" in rules


def test_rules_page_of_every_variant_fills_in_the_options(client: Any) -> None:
    cases = {
        "pagat": ({"opt_hands_per_dealer": "3"}, "until each player has dealt 3 hands that count (at least 12 hands)"),
        "hoyle": ({"opt_lowest_bid": "2", "opt_schedule": "peel"}, "The lowest bid here is Two"),
        "russian36": ({"opt_stake_per_trick": "7", "opt_ante": "2"}, "every player pays 2 into it at every deal"),
        "napoleao": ({"opt_end": "hands", "opt_hands": "12"}, "This table plays 12 hands"),
    }
    for variant, (fields, sentence) in cases.items():
        key = start_evening(client, variant, ("A", "B", "C", "D"), **fields)
        page = client.get(f"/e/{key}/rules").get_data(as_text=True)
        assert sentence in page, variant
    key = start_evening(client, "hoyle", ("A", "B", "C"), opt_schedule="peel", opt_wellington_blucher="y")
    assert "Wellington 20 / 10; Blücher 30 / 15" in client.get(f"/e/{key}/rules").get_data(as_text=True)


def test_first_dealer_by_draw(client: Any, app: Any) -> None:
    # H-3: the lowest card deals, the ace low: Cai's ace beats Ben's two
    key = start_evening(client, "hoyle", ("Ann", "Ben", "Cai"), **{"draws-0": "KH", "draws-1": "2c", "draws-2": "AS"})
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert "<strong><bdi>Cai</bdi></strong> deals" in page
    assert "drawn: <bdi>Ann</bdi> KH, <bdi>Ben</bdi> 2C, <bdi>Cai</bdi> AS" in page
    exported = client.get(f"/e/{key}/evening.json").get_json()
    assert exported["draw"] == {"Ann": "KH", "Ben": "2C", "Cai": "AS"} and exported["first_dealer"] == "Cai"
    # B-2: in napoleao the ace is high, so Ben's two deals
    key = start_evening(client, "napoleao", ("Ann", "Ben", "Cai"), **{"draws-0": "KH", "draws-1": "2C",
                                                                       "draws-2": "AS"})
    assert "<strong><bdi>Ben</bdi></strong> deals" in client.get(f"/e/{key}").get_data(as_text=True)
    before = counts(app)
    tie = client.post("/new/hoyle", data={"players-0": "Ann", "players-1": "Ben", "draws-0": "5H", "draws-1": "5S",
                                          "first_dealer": "0", "scoring": "points"})
    assert tie.status_code == 422 and "draw again" in tie.get_data(as_text=True)
    partial = client.post("/new/hoyle", data={"players-0": "Ann", "players-1": "Ben", "draws-0": "5H",
                                              "first_dealer": "0", "scoring": "points"})
    assert partial.status_code == 422 and "every player drew, or none" in partial.get_data(as_text=True)
    junk = client.post("/new/hoyle", data={"players-0": "Ann", "players-1": "Ben", "draws-0": "ZZ", "draws-1": "5S",
                                           "first_dealer": "0", "scoring": "points"})
    assert junk.status_code == 422 and "is not a card" in junk.get_data(as_text=True)
    assert counts(app) == before


def test_a_claim_through_the_hand_form(client: Any, app: Any) -> None:
    key = start_evening(client, "hoyle", ("North", "East", "South", "West"))
    # dealer North: East bids Four; South revokes in trick 3; upheld: South pays East 12 (H-15)
    response = client.post(f"/e/{key}/hand", data={
        "number": "1", "dealer": "0", "call_1": "four", "save": "1", "claim_kind": "revoke", "claim_accused": "2",
        "claim_by": "1", "claim_trick": "3", "claim_suit": "H", "claim_card": "2c", "claim_evidence": "5h",
        "claim_upheld": "yes"})
    assert response.status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert totals_on_page(page) == {"North": "0", "East": "+12", "South": "−12", "West": "0"}
    assert "disputed" in page
    hand = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert "South revoked in trick 3 (2C on a heart lead; later showed 5H)" in hand
    assert "Ренонсирующий заявитель обязан выплатить" in hand  # the source's own sentence
    edit = client.get(f"/e/{key}/hand/1/edit").get_data(as_text=True)
    assert 'checked id="claim_kind-1" name="claim_kind" type="radio" value="revoke"' in edit
    before = counts(app)
    bad = client.post(f"/e/{key}/hand", data={"number": "2", "dealer": "1", "call_2": "three", "tricks": "3",
                                              "save": "1", "claim_kind": "out_of_turn"})
    assert bad.status_code == 422 and "Choose who is accused" in bad.get_data(as_text=True)
    junk = client.post(f"/e/{key}/hand", data={"number": "2", "dealer": "1", "call_2": "three", "tricks": "3",
                                               "save": "1", "claim_kind": "revoke", "claim_accused": "3",
                                               "claim_card": "ZZ"})
    assert junk.status_code == 422 and "is not a card" in junk.get_data(as_text=True)
    assert counts(app) == before


def test_overrule_a_ruling_and_undo_it(client: Any, app: Any) -> None:
    key = start_evening(client, "pagat", ("Ann", "Bob", "Cat"))
    client.post(f"/e/{key}/hand", data={"number": "1", "dealer": "0", "call_1": "four", "tricks": "4", "save": "1"})
    # dealer Ann: Bob speaks first, bids Four and makes it: Bob +8, Ann −4, Cat −4
    page = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert "Overrule this ruling" in page
    row = hand_id(app, key, 1)
    bad = client.post(f"/e/{key}/hand/1/override", data={"version": "1", "hand_id": row, "units_0": "5", "units_1": "0",
                                                          "units_2": "0", "reason": "typo", "apply": "1"})
    assert bad.status_code == 302 and counts(app)[2] == 1  # does not balance: nothing saved
    assert "must balance" in client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    good = client.post(f"/e/{key}/hand/1/override", data={"version": "1", "hand_id": row, "units_0": "-2",
                                                           "units_1": "4", "units_2": "-2",
                                                           "reason": "Bob showed his cards early", "apply": "1"})
    assert good.status_code == 302 and counts(app)[2] == 2
    sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert totals_on_page(sheet) == {"Ann": "−2", "Bob": "+4", "Cat": "−2"} and "overruled" in sheet
    hand = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert "Overruled by the table." in hand and "Bob showed his cards early" in hand and "Bob +8" in hand
    exported = client.get(f"/e/{key}/evening.json").get_json()
    assert exported["hands"][0]["override"] == {"entries": {"Ann": -2, "Bob": 4, "Cat": -2}, "pool": 0,
                                                "reason": "Bob showed his cards early"}
    undo = client.post(f"/e/{key}/hand/1/override", data={"version": "2", "hand_id": row, "remove": "1"})
    assert undo.status_code == 302 and counts(app)[2] == 3
    assert totals_on_page(client.get(f"/e/{key}").get_data(as_text=True)) == {"Ann": "−4", "Bob": "+8", "Cat": "−4"}


def test_record_the_play_card_by_card(client: Any, app: Any) -> None:
    key = start_evening(client, "hoyle", ("North", "East", "South", "West"))
    client.post(f"/e/{key}/hand", data={"number": "1", "dealer": "0", "call_1": "three", "tricks": "3", "save": "1"})
    page = client.get(f"/e/{key}/hand/1/play").get_data(as_text=True)
    assert "<bdi>East</bdi> plays:" in page and 'value="AS"' in page
    record, row = "", hand_id(app, key, 1)
    cards = ["AH", "2H", "3H", "4H", "KS", "2S", "5H", "3S", "QC", "2C", "3C", "4C", "KD", "2D", "3D", "4D"]
    for card in cards:
        response = client.post(f"/e/{key}/hand/1/play", data={"record": record, "version": "1", "hand_id": row,
                                                               "card": card})
        assert response.status_code == 200
        record = response.get_data(as_text=True).split('name="record" type="hidden" value="')[1].split('"')[0]
    assert record == "AH 2H 3H 4H|KS 2S 5H 3S|QC 2C 3C 4C|KD 2D 3D 4D"
    page = client.post(f"/e/{key}/hand/1/play", data={"record": record, "version": "1", "hand_id": row, "card": "KD"})
    assert page.status_code == 422 and "KD was played twice" in page.get_data(as_text=True)
    saved = client.post(f"/e/{key}/hand/1/play", data={"record": record, "version": "1", "hand_id": row,
                                                             "save": "1"})
    assert saved.status_code == 302
    # the record gives East one trick (the result was certain after trick 4): Three defeated
    sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert totals_on_page(sheet) == {"North": "+3", "East": "−9", "South": "+3", "West": "+3"}
    assert client.get(f"/e/{key}/evening.json").get_json()["hands"][0]["record"][3] == ["KD", "2D", "3D", "4D"]


def test_a_shared_pool_is_shared_in_money_and_nothing_is_owed_to_it(client: Any) -> None:
    """hoyle, 6 players, £3 a chip, pool shared: the pool opens at 30, Ada (dealing) adds 1,
    Bea's Nap is defeated (4 tricks) and she doubles it to 62 chips = £186.00 = 6 × £31.00
    (H-16). Totals Ada −1, Bea −61, the others 0 → Bea pays Ada £28.00 and each other £31.00."""
    names = ("Ada", "Bea", "Cy", "Dov", "Eli", "Fay")
    key = start_evening(client, "hoyle", names, opt_pool="y", scoring="money", stake="3.00")
    assert post_hand(client, key, 1, 0, {1: "nap"}, 4).status_code == 302
    assert client.post(f"/e/{key}/finish").status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert "The pool is shared: £31.00 each." in page and "does not divide" not in page
    assert "<strong><bdi>Bea</bdi></strong> pays <strong><bdi>Ada</bdi></strong> £28.00" in page
    for other in names[2:]:
        assert f"<strong><bdi>Bea</bdi></strong> pays <strong><bdi>{other}</bdi></strong> £31.00" in page
    assert "pays <strong><bdi>pool</bdi></strong>" not in page


def test_the_odd_penny_of_a_shared_pool_is_said_and_goes_to_the_next_dealer(client: Any) -> None:
    """3 players at 5p: pool 3 × 5 + 1 = 16 chips = 80p = 3 × 26p + 2p; Bea made Three (+6).
    The 2 odd pennies go to Bea (next dealer) and Cy: balances Ada −19p, Bea +32p, Cy −13p."""
    key = start_evening(client, "hoyle", ("Ada", "Bea", "Cy"), opt_pool="y", opt_pool_opening="5",
                        opt_pool_top_up="1", scoring="money", stake="0.05")
    assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert ("The pool is shared: £0.26 each. The last £0.02 does not divide equally: £0.01 each to "
            "<bdi>Bea</bdi>, <bdi>Cy</bdi>, in turn from the next dealer (H-16, adopted).") in page
    assert "<strong><bdi>Ada</bdi></strong> pays <strong><bdi>Bea</bdi></strong> £0.19" in page
    assert "<strong><bdi>Cy</bdi></strong> pays <strong><bdi>Bea</bdi></strong> £0.13" in page
