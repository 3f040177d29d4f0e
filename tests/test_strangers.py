"""A stranger cannot choose another phone's device id (issue 21 item 3, ASVS 5.0 7.2.3,
7.2.4): the device cookie is signed by the server, an id it did not issue names no phone,
and a phone gains every role under a new id, so an id planted in its browser beforehand
(even one the server issued to the stranger) never becomes a scorer's."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from scorer.storage import roles
from scorer.storage.models import Device, Evening, TableAccess, db
from webhelpers import start_evening


def _credentials(app: Any, key: str) -> tuple[str, str]:
    with app.app_context():
        row = db.session.execute(sa.select(Evening.pin, Evening.edit_key).where(Evening.key == key)).one()
        return row.pin, row.edit_key


def _device_cookie(client: Any, name: str = "nap_device") -> str:
    cookie = client.get_cookie(name)
    assert cookie is not None, f"no {name} cookie"
    return cookie.value  # type: ignore[no-any-return]


def _count(app: Any, model: Any) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(model)) or 0


def test_a_planted_id_the_server_issued_does_not_become_the_victims_scorer_role(app: Any) -> None:
    """The stranger fetches a real id for itself, plants it in the victim's browser (a
    subdomain, a shared computer), and waits for the victim to type the PIN."""
    key = start_evening(app.test_client())
    pin, edit_key = _credentials(app, key)
    stranger = app.test_client()
    stranger.get(f"/e/{key}")
    stranger.get(f"/e/{key}")  # back with its cookie: the server keeps a row for it
    planted = _device_cookie(stranger)
    for way in ("pin", "link"):
        victim = app.test_client()
        victim.set_cookie("nap_device", planted)
        if way == "pin":
            assert victim.post(f"/e/{key}/join", data={"pin": pin}).status_code == 302
        else:
            assert victim.get(f"/e/{key}/scorer/{edit_key}").status_code == 302
        assert _device_cookie(victim) != planted  # the victim was given a new id with its role
        assert victim.get(f"/e/{key}/quick").status_code == 200
        assert stranger.get(f"/e/{key}/quick").status_code == 302  # the planted id only watches
        assert app.test_client().get(f"/e/{key}/quick", headers={"Cookie": f"nap_device={planted}"}).status_code == 302


def test_a_planted_id_the_server_never_issued_names_no_phone(app: Any) -> None:
    """Any well-formed id a client sent became a device: a planted ``nap_device=<chosen>``
    was the victim's id after it typed the PIN, and the stranger scored with it."""
    key = start_evening(app.test_client())
    pin, _ = _credentials(app, key)
    chosen = "Stranger0Chosen0Id0Of0Mine0"
    victim = app.test_client()
    victim.set_cookie("nap_device", chosen)
    assert victim.post(f"/e/{key}/join", data={"pin": pin}).status_code == 302
    assert victim.get(f"/e/{key}/quick").status_code == 200
    stranger = app.test_client()
    stranger.set_cookie("nap_device", chosen)
    assert stranger.get(f"/e/{key}/quick").status_code == 302
    with app.app_context():
        assert roles.find_device(chosen) is None


def test_a_forged_signature_is_replaced_by_a_fresh_id(app: Any) -> None:
    key = start_evening(app.test_client())
    phone = app.test_client()
    phone.get(f"/e/{key}")
    real = _device_cookie(phone)
    token, stamp, _signature = real.split(".")
    forged = f"{'A' * 32}.{stamp}.{_signature}"  # another id under the real signature
    devices = _count(app, Device)
    stranger = app.test_client()
    stranger.set_cookie("nap_device", forged)
    answer = stranger.get(f"/e/{key}")
    fresh = _device_cookie(stranger)
    assert answer.status_code == 200 and fresh not in (forged, real) and fresh.count(".") == 2
    stranger.get(f"/e/{key}")  # back with the fresh id: its row is written under it
    assert _count(app, Device) == devices + 1
    with app.app_context():
        assert roles.find_device("A" * 32) is None and roles.find_device(fresh.split(".")[0]) is not None
        assert roles.find_device(token) is None  # the real phone has not come back yet


def test_a_phone_gains_its_role_under_a_new_id_and_keeps_its_name_and_tables(app: Any) -> None:
    owner = app.test_client()
    key = start_evening(owner)
    pin, _ = _credentials(app, key)
    phone = app.test_client()
    phone.get(f"/e/{key}")
    phone.get(f"/e/{key}")  # its row exists: it has opened the table
    assert phone.post("/device", data={"device": "Kitchen tablet"}).status_code == 302
    before, devices = _device_cookie(phone), _count(app, Device)
    assert phone.post(f"/e/{key}/join", data={"pin": pin}).status_code == 302
    after = _device_cookie(phone)
    assert after != before and _count(app, Device) == devices  # the same row, a new id
    assert "Kitchen tablet" in phone.get(f"/e/{key}/share").get_data(as_text=True)
    assert key in phone.get("/").get_data(as_text=True)
    # creating a table is gaining a role too
    second = start_evening(phone)
    assert _device_cookie(phone) != after
    assert phone.get(f"/e/{second}/quick").status_code == 200 and phone.get(f"/e/{key}/quick").status_code == 200
    with app.app_context():
        assert roles.find_device(before.split(".")[0]) is None and roles.find_device(after.split(".")[0]) is None


def test_a_phone_from_before_the_signature_keeps_its_role_and_is_given_a_signed_id(app: Any) -> None:
    key = start_evening(app.test_client())
    old = "OldPhone0From0Before0Signing"
    with app.app_context():
        device = roles.add_device(old, "abc", "iPhone")
        assert device is not None
        roles.grant(device, key, "link")
        device_id = device.id
    phone = app.test_client()
    phone.set_cookie("nap_device", old)
    answer = phone.get(f"/e/{key}/quick")
    assert answer.status_code == 200  # still a scorer
    signed = _device_cookie(phone)
    assert signed.startswith(old + ".") and signed.count(".") == 2
    assert phone.get(f"/e/{key}/quick").status_code == 200
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(TableAccess)
                                 .where(TableAccess.device_id == device_id)) == 1


def test_over_https_the_cookies_move_to_host_prefixed_names(app: Any) -> None:
    phone = app.test_client()
    key = start_evening(phone)  # over plain HTTP: nap_device and session
    old = _device_cookie(phone)
    assert phone.get_cookie("session") is not None
    answer = phone.get(f"/e/{key}/quick", base_url="https://localhost")
    assert answer.status_code == 200  # the same phone, still a scorer
    assert answer.headers["Strict-Transport-Security"] == "max-age=31536000"
    cookies = {c.split("=", 1)[0]: c for c in answer.headers.getlist("Set-Cookie")}
    moved = cookies["__Host-nap_device"]
    assert "; Secure" in moved and "; Path=/" in moved and "Domain" not in moved
    assert moved.split("=", 1)[1].split(".")[0] == old.split(".")[0]  # the same id, signed again
    assert cookies["nap_device"].startswith("nap_device=;")  # the old one is deleted
    assert "__Host-session" in cookies and cookies["session"].startswith("session=;")
    assert "Strict-Transport-Security" not in phone.get(f"/e/{key}").headers  # plain HTTP: none
