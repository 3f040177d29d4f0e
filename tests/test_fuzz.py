"""Random and hostile values posted to every form: never a 500, never a partial write.

A refused request changes nothing; an accepted one writes a whole hand (one Hand and
one HandVersion) or a whole evening.
"""

from __future__ import annotations

import io
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.webhelpers import counts, start_evening

HOSTILE = st.sampled_from(
    ["", " ", "∞", "-1", "7", "1e9", "NaN", "null", "true", "0x10", "three", "nap", "wellington", "blucher", "two",
     "pass", "<script>alert(1)</script>", "' OR 1=1 --", "\x00", "🂡", "Ω" * 50, "9" * 400, "5.0", "4 ", "%s%n"]
)
VALUES = HOSTILE | st.text(max_size=60)
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _field_values(names: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(names), VALUES, max_size=len(names))


@FUZZ
@given(data=st.data())
def test_hand_form_fuzz(app: Any, client: Any, data: st.DataObject) -> None:
    key = start_evening(client, "hoyle", ("A", "B", "C", "D"))
    fields = ["number", "version", "dealer", "tricks", "save", "misdeal", "call_0", "call_1", "call_2", "call_3",
              "call_9"]
    form = data.draw(_field_values(fields))
    before = counts(app)
    response = client.post(f"/e/{key}/hand", data=form)
    assert response.status_code in (302, 404, 422), response.status_code
    after = counts(app)
    assert after in (before, (before[0], before[1] + 1, before[2] + 1))
    if after != before:
        assert response.status_code == 302
    edit = data.draw(_field_values(fields))
    response = client.post(f"/e/{key}/hand/1/edit", data=edit)
    assert response.status_code in (302, 404, 422)


@FUZZ
@given(data=st.data())
def test_new_evening_form_fuzz(app: Any, client: Any, data: st.DataObject) -> None:
    fields = [f"players-{i}" for i in range(8)] + ["first_dealer", "scoring", "stake", "currency", "name",
                                                    "opt_hands_per_dealer", "opt_all_pass_counts"]
    form = data.draw(_field_values(fields))
    variant = data.draw(st.sampled_from(["pagat", "hoyle", "whist", "%00"]))
    before = counts(app)
    response = client.post(f"/new/{variant}", data=form)
    assert response.status_code in (302, 404, 422)
    after = counts(app)
    assert after == before or (response.status_code == 302 and after[0] == before[0] + 1)


@FUZZ
@given(body=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_import_fuzz(app: Any, client: Any, body: bytes) -> None:
    before = counts(app)
    response = client.post("/import", data={"file": (io.BytesIO(body), "x.json")}, content_type="multipart/form-data")
    assert response.status_code == 422
    assert counts(app) == before


def _whole(app: Any, key: str) -> tuple[int, int]:
    """(revision, hands in play), after checking that what is stored is whole: every
    hand has a version and the evening settles."""
    from scorer.storage import evenings, units

    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        assert all(h.versions for h in evening.hands)
        ledger = evenings.ledger_of(evening)
        return evening.revision, len(ledger.rows)


#: Every other form, with the fields it reads (plus one nobody reads).
FORMS = [
    ("/e/{key}/quick", ["number", "token", "declarer", "contract", "trump", "tricks", "misdeal",
                        "all_pass"]),
    ("/e/{key}/join", ["pin"]),
    ("/device", ["device", "next"]),
    ("/e/{key}/undo", ["number", "version"]),
    ("/e/{key}/hand/1/override", ["version", "units_0", "units_1", "units_2", "units_3", "pool", "reason",
                                  "remove"]),
    ("/e/{key}/hand/1/play", ["version", "record", "card", "undo", "clear", "save"]),
    ("/e/{key}/hand/1/restore/1", []),
    ("/e/{key}/finish", []),
    ("/e/{key}/reopen", []),
    ("/e/{key}/settings", ["name", "place", "revision", "opt_hands_per_dealer", "opt_all_pass_counts"]),
]


@FUZZ
@given(data=st.data())
def test_every_other_form_fuzz(app: Any, client: Any, data: st.DataObject) -> None:
    key = start_evening(client, "pagat", ("A", "B", "C", "D"))
    assert client.post(f"/e/{key}/quick", data={"number": "1", "declarer": "1", "contract": "three",
                                                "tricks": "3"}).status_code == 302
    for _ in range(3):
        url, fields = data.draw(st.sampled_from(FORMS))
        form = data.draw(_field_values([*fields, "extra"]))
        before = _whole(app, key)
        response = client.post(url.format(key=key), data=form)
        assert response.status_code < 500, (url, form)
        after = _whole(app, key)
        if after != before:  # something was saved: then it was a whole change, told by a redirect
            assert response.status_code == 302 and after[0] == before[0] + 1, (url, form)
