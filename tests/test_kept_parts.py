"""The hand form's claim part is printed once per state and then taken as printed (issue 23
item 2, scorer/web/kept_parts.py): every page that takes it must be byte for byte the page a
fresh print makes, whatever the form shows (a claim being corrected, what a rejected post
typed, another table's players, another language, a 36-card pack)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from scorer.web import kept_parts
from tests.webhelpers import start_evening

#: the form's tokens differ from one answer to the next; all else is the page
TOKENS = re.compile(r'(name="(?:csrf_token|token)"[^>]*value=")[^"]*"')
CLAIM_PART = re.compile(r'<fieldset class="claimform">.*?</fieldset>', re.S)


def _started(client: Any, **kwargs: Any) -> str:
    """A new table, its "started" message shown and gone (a message is printed once)."""
    key = start_evening(client, **kwargs)
    client.get(f"/e/{key}")
    return key


def _page(client: Any, path: str, data: dict[str, str] | None = None) -> str:
    answer = client.get(path) if data is None else client.post(path, data=data)
    assert answer.status_code in (200, 422), (path, answer.status_code)
    return TOKENS.sub(r'\1"', answer.get_data(as_text=True))


def _fresh_and_kept(client: Any, path: str) -> tuple[str, str]:
    """The page printed with no part kept, then the same page with its part kept."""
    kept_parts.parts(client.application).clear()
    fresh = _page(client, path)
    kept = _page(client, path)
    return fresh, kept


def _claim_part(html: str) -> str:
    found = CLAIM_PART.findall(html)
    assert len(found) == 1, "the page has no claim part"
    return found[0]


def _save_with_claim(client: Any, key: str) -> None:
    hand = {"number": 1, "token": "kept-parts-claim-1",
            "facts": {"auction": ["three", "pass", "pass", "pass"], "tricks": 2,
                      "claims": [{"kind": "revoke", "accused": "Bob", "by": "Cat", "upheld": False, "trick": 2,
                                  "suit_led": "H"}]}}
    answer = client.post(f"/api/e/{key}/hands", json=hand)
    assert answer.status_code == 201, answer.get_data(as_text=True)


def test_a_new_hands_form_takes_its_claim_part_as_printed_and_is_the_same_page(app: Any) -> None:
    client = app.test_client()
    key = _started(client)
    fresh, kept = _fresh_and_kept(client, f"/e/{key}/hand")
    assert kept == fresh
    assert len(kept_parts.parts(client.application)._data) == 1  # one part printed; the second page took it
    part = _claim_part(kept)
    assert 'name="claim_accused" type="radio" value="1"' in part and ">Bob<" in part
    assert "checked" in part  # the table's decision: "upheld" until changed


def test_a_correction_shows_its_own_claim_not_the_part_kept_for_a_new_hand(app: Any) -> None:
    client = app.test_client()
    key = _started(client)
    _save_with_claim(client, key)
    kept_parts.parts(client.application).clear()
    empty = _claim_part(_page(client, f"/e/{key}/hand"))  # a new hand's part, kept first
    fresh, kept = _fresh_and_kept(client, f"/e/{key}/hand/1/edit")
    assert kept == fresh
    part = _claim_part(kept)
    assert part != empty
    # Bob accused (seat 1) by Cat (seat 2), rejected, in trick 2, hearts led: each pill checked
    for name, value in (("claim_kind", "revoke"), ("claim_accused", "1"), ("claim_by", "2"),
                        ("claim_upheld", "no"), ("claim_trick", "2"), ("claim_suit", "H")):
        assert re.search(rf'<input checked id="{name}-\d+" name="{name}" type="radio" value="{value}">', part), name
    # and the new hand's part, asked again, is still the empty one (two states, two parts)
    assert _claim_part(_page(client, f"/e/{key}/hand")) == empty
    assert len(kept_parts.parts(client.application)._data) == 2


def test_a_rejected_post_shows_what_was_typed_in_its_claim_part(app: Any) -> None:
    client = app.test_client()
    key = _started(client)
    _page(client, f"/e/{key}/hand")  # the empty part kept
    typed = {"number": "1", "dealer": "0", "call_1": "three", "call_2": "pass", "call_3": "pass", "call_0": "pass",
             "tricks": "2", "claim_kind": "revoke", "claim_accused": "9", "claim_card": "ZZZZ", "save": "1"}
    kept = _page(client, f"/e/{key}/hand", typed)  # the empty part is kept; this one is not
    kept_parts.parts(app).clear()
    assert kept == _page(client, f"/e/{key}/hand", typed)  # = printed fresh
    part = _claim_part(kept)
    assert 'value="ZZZZ"' in part  # the card as typed, shown again to be corrected
    assert 'name="claim_kind" type="radio" value="revoke"' in part and "<input checked id=\"claim_kind-1\"" in part
    assert client.get(f"/api/e/{key}").get_json()["hands"] == []  # and nothing saved
    assert len(kept_parts.parts(app)._data) == 0  # a posted part is printed, never kept


def test_what_a_phone_posts_is_never_kept_however_large(app: Any) -> None:
    """A refused post shows what it typed again: kept, a megabyte typed into a claim's card
    field would have stayed in the worker's memory (2,000 such posts: gigabytes)."""
    client = app.test_client()
    key = _started(client)
    _page(client, f"/e/{key}/hand")  # the new hand's part, kept
    assert len(kept_parts.parts(app)._data) == 1
    for n in range(5):
        typed = {"number": "1", "dealer": "0", "claim_kind": "revoke", "claim_card": f"{n}" * 200_000,
                 "claim_evidence": "X" * 200_000, "save": "1"}
        answer = client.post(f"/e/{key}/hand", data=typed)
        assert answer.status_code == 422
        assert "X" * 200_000 in _claim_part(answer.get_data(as_text=True))  # shown, to be corrected
    assert len(kept_parts.parts(app)._data) == 1  # still only the new hand's part
    stored = next(iter(kept_parts.parts(app)._data.values()))
    assert len(stored) < 20_000 and "XXXX" not in stored


def test_each_table_and_each_language_gets_its_own_part(app: Any) -> None:
    first, second = app.test_client(), app.test_client()
    one = _started(first, players=("Ann", "Bob", "Cat", "Dan"))
    other = _started(second, players=("Eve", "Fay", "Gus", "Hal"))
    kept_parts.parts(app).clear()
    ours = _claim_part(_page(first, f"/e/{one}/hand"))
    theirs = _claim_part(_page(second, f"/e/{other}/hand"))
    assert ">Bob<" in ours and ">Bob<" not in theirs and ">Fay<" in theirs
    second.set_cookie("lang", "ru")
    russian = _page(second, f"/e/{other}/hand")
    kept_parts.parts(app).clear()
    assert _page(second, f"/e/{other}/hand") == russian  # the same as printed fresh
    assert _claim_part(russian) != theirs and ">Fay<" in _claim_part(russian)
    assert 'lang="ru"' in russian


@pytest.mark.parametrize("variant", ["hoyle", "russian36", "napoleao"])
def test_every_variants_hand_form_is_the_page_a_fresh_print_makes(app: Any, variant: str) -> None:
    client = app.test_client()
    key = _started(client, variant=variant)
    fresh, kept = _fresh_and_kept(client, f"/e/{key}/hand")
    assert kept == fresh
    if 'class="claimform"' in fresh:
        ranks = re.findall(r'name="claim_card_rank" type="radio" value="(\w+)"', _claim_part(fresh))
        assert ranks[-1] == ("6" if variant == "russian36" else "2")  # the pack's lowest rank
