"""Who asks ``GET /e/<key>/changes`` is read in one query (issue 23 item 2: every watching
phone asks after each hand): the phone's role at the table by its device id
(:func:`scorer.web.access.is_scorer_only`), the same answer as the full check
(:func:`scorer.web.access.is_scorer`: the phone's row, then its role) for every kind of phone."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa

from scorer.storage.models import Evening, db
from scorer.web import access

PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def _post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _start(client: Any, token: str) -> str:
    made = _post(client, "/api/evenings", {"variant": "pagat", "players": PLAYERS, "first_dealer": "Ann",
                                           "token": token})
    assert made.status_code == 201
    return str(made.get_json()["key"])


def _edit_key(app: Any, key: str) -> str:
    with app.app_context():
        return str(db.session.scalar(sa.select(Evening.edit_key).where(Evening.key == key)))


def _role(app: Any, phone: Any, key: str) -> tuple[bool, bool]:
    """``(is_scorer_only, is_scorer)`` for ``phone``'s cookies, each in a request of its own."""
    cookie = "; ".join(f"{c.key}={c.value}" for c in phone._cookies.values())
    found = []
    for check in (access.is_scorer_only, access.is_scorer):
        with app.test_request_context(f"/e/{key}/changes", headers={"Cookie": cookie} if cookie else {}):
            found.append(check(key))
    return found[0], found[1]


def _asks_as(phone: Any, key: str) -> str:
    """What ``/changes`` takes the phone for: the roles whose ``shown`` it answers without a
    reload. A viewer's page is answered for any phone (a viewer's parts: what the link shows
    anyone, without reading the phone's role); a scorer's page only for a scorer's phone."""
    roles = [role for role in ("viewer", "scorer")
             if "reload" not in phone.get(f"/e/{key}/changes?shown=en/{role}&since=0").get_json()]
    assert roles in (["viewer"], ["viewer", "scorer"]), roles
    return roles[-1]


def test_the_changes_take_each_phone_for_what_it_is(app: Any) -> None:
    owner = app.test_client()
    key = _start(owner, "t-1")
    other_table = _start(app.test_client(), "t-2")
    by_link = app.test_client()
    assert by_link.get(f"/e/{key}/scorer/{_edit_key(app, key)}").status_code == 302
    viewer = app.test_client()  # a device row of its own (its second visit), no role
    assert viewer.get(f"/e/{key}").status_code == 200 and viewer.get(f"/e/{key}").status_code == 200
    elsewhere = app.test_client()  # a scorer of another table only
    assert elsewhere.get(f"/e/{other_table}/scorer/{_edit_key(app, other_table)}").status_code == 302
    stranger = app.test_client()  # no cookie at all
    forged = app.test_client()
    forged.set_cookie("nap_device", "x" * 32)
    phones = {"owner": owner, "by_link": by_link, "viewer": viewer, "elsewhere": elsewhere, "stranger": stranger,
              "forged": forged}
    expected = {"owner": True, "by_link": True, "viewer": False, "elsewhere": False, "stranger": False,
                "forged": False}
    for name, phone in phones.items():
        assert _role(app, phone, key) == (expected[name], expected[name]), name
        assert _asks_as(phone, key) == ("scorer" if expected[name] else "viewer"), name
    assert _role(app, elsewhere, other_table) == (True, True)
    # the owner renews the credentials: the phone that came by the old link only watches now
    assert _post(owner, f"/api/e/{key}/credentials", {"token": "n-1"}).status_code == 201
    assert _role(app, by_link, key) == (False, False) and _asks_as(by_link, key) == "viewer"
    assert _role(app, owner, key) == (True, True) and _asks_as(owner, key) == "scorer"


def _page_reads(app: Any, phone: Any, key: str, role_first: bool) -> tuple[int | None, bool, int]:
    """``(device id, is_scorer, SQL statements)`` as a page reads them: the role first (the
    scoresheet, a scorer's route: its row read with its role, one query) or the row first."""
    cookie = "; ".join(f"{c.key}={c.value}" for c in phone._cookies.values())
    statements: list[str] = []
    with app.test_request_context(f"/e/{key}", headers={"Cookie": cookie} if cookie else {}):
        def count(*args: Any) -> None:
            if not args[2].startswith("BEGIN"):  # SQLite's, sent by the app (scorer.storage.models)
                statements.append(args[2])

        sa.event.listen(db.engine, "before_cursor_execute", count)
        try:
            if role_first:
                scorer = access.is_scorer(key)
                device = access.current_device()
            else:
                device = access.current_device()
                scorer = access.is_scorer(key)
        finally:
            sa.event.remove(db.engine, "before_cursor_execute", count)
        return (device.id if device is not None else None), scorer, len(statements)


def test_a_page_reads_the_phones_row_and_its_role_in_one_query(any_app: Any) -> None:
    """The scoresheet read the phone's row, then its role: two queries; now one, the same answer."""
    app = any_app
    owner = app.test_client()
    key = _start(owner, "t-1")
    other_table = _start(app.test_client(), "t-2")
    by_link = app.test_client()
    assert by_link.get(f"/e/{key}/scorer/{_edit_key(app, key)}").status_code == 302
    viewer = app.test_client()
    assert viewer.get(f"/e/{key}").status_code == 200 and viewer.get(f"/e/{key}").status_code == 200
    elsewhere = app.test_client()
    assert elsewhere.get(f"/e/{other_table}/scorer/{_edit_key(app, other_table)}").status_code == 302
    stranger, forged = app.test_client(), app.test_client()
    forged.set_cookie("nap_device", "x" * 32)
    phones = {"owner": owner, "by_link": by_link, "viewer": viewer, "elsewhere": elsewhere, "stranger": stranger,
              "forged": forged}
    roles = {"owner": True, "by_link": True, "viewer": False, "elsewhere": False, "stranger": False, "forged": False}

    def check(table: str, expected: dict[str, bool]) -> None:
        for name, phone in phones.items():
            device, scorer, one = _page_reads(app, phone, table, role_first=True)
            assert (device, scorer) == _page_reads(app, phone, table, role_first=False)[:2], name
            assert scorer is expected[name], name
            assert (device is None) is (name in ("stranger", "forged")), name
            # (a well-formed unsigned id is looked up once, as a phone's from before the signature)
            assert one == (0 if name == "stranger" else 1), name

    check(key, roles)
    check(other_table, {**dict.fromkeys(phones, False), "elsewhere": True})
    check("AAAAAAAAAAAAAAAAAAAAAA", dict.fromkeys(phones, False))  # no such table: each phone's row, no role
    assert _post(owner, f"/api/e/{key}/credentials", {"token": "n-1"}).status_code == 201  # renewed
    check(key, {**roles, "by_link": False})
