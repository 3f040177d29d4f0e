"""Where a write came from (scorer.web.origin; issue 21, item 9): behind the HTTPS proxy a
form posted with no Referer was refused as "expired" (Flask-WTF's strict Referer check);
now Origin, then Sec-Fetch-Site, then Referer decide, and the CSRF token is still required."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import _dispose, make_app

from scorer.web.origin import normal_origin
from tests.webhelpers import start_evening

#: What the documented nginx sends the app (NAP_PROXY_HOPS=1): the phone asked for https://nap.example.org.
FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "nap.example.org"}
SITE = "https://nap.example.org"
APP = "http://127.0.0.1:5000"
FORM = {"players-0": "Ann", "players-1": "Bob", "players-2": "Cat", "first_dealer": "0", "scoring": "points",
        "opt_hands_per_dealer": "2"}
FOREIGN = "sent from another site"
EXPIRED = "This form has expired"


@pytest.fixture
def proxied(sqlite_url: str) -> Iterator[Any]:
    app = make_app(sqlite_url, WTF_CSRF_ENABLED=True, NAP_PROXY_HOPS=1)
    yield app
    _dispose(app)


def _token(client: Any, **kwargs: Any) -> str:
    page = client.get("/new/pagat", **kwargs).get_data(as_text=True)
    found = re.search(r'name="csrf_token" type="hidden" value="([^"]*)"', page)
    assert found
    return found.group(1)


def _post_form(app: Any, headers: dict[str, str], *, token: bool = True) -> tuple[int, str]:
    """A new evening's form posted over HTTPS through the proxy with ``headers`` (and no
    others: the test client sends no Origin, Sec-Fetch-Site or Referer of its own)."""
    client = app.test_client()
    data = dict(FORM)
    if token:
        data["csrf_token"] = _token(client, base_url=APP, headers=FORWARDED)
    response = client.post("/new/pagat", data=data, base_url=APP, headers={**FORWARDED, **headers})
    return response.status_code, response.get_data(as_text=True)


@pytest.mark.parametrize("headers", [
    {},  # no Origin, no Fetch Metadata, no Referer: the CSRF token alone (was 400 "expired")
    {"Origin": SITE},
    {"Origin": "https://NAP.example.org:443"},  # the same origin, spelt otherwise
    {"Origin": SITE, "Referer": "https://evil.example/"},  # Origin decides first
    {"Sec-Fetch-Site": "same-origin"},
    {"Sec-Fetch-Site": "none"},
    {"Referer": f"{SITE}/new/pagat"},
], ids=["nothing", "origin", "origin-port", "origin-first", "fetch-same-origin", "fetch-none", "referer"])
def test_a_form_from_this_site_is_accepted_over_https(proxied: Any, headers: dict[str, str]) -> None:
    status, page = _post_form(proxied, headers)
    assert status == 302, page


@pytest.mark.parametrize("headers", [
    {"Origin": "https://evil.example"},
    {"Origin": "null"},
    {"Origin": "http://nap.example.org"},  # the same host over plain HTTP is another origin
    {"Origin": "https://nap.example.org:8443"},
    {"Origin": "https://evil.example", "Sec-Fetch-Site": "same-origin", "Referer": f"{SITE}/"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
    {"Sec-Fetch-Site": "cross-site", "Referer": f"{SITE}/"},
    {"Referer": "https://evil.example/new/pagat"},
], ids=["origin", "null", "scheme", "port", "origin-first", "fetch-cross", "fetch-same-site", "fetch-first",
        "referer"])
def test_a_form_from_another_site_is_refused(proxied: Any, headers: dict[str, str]) -> None:
    status, page = _post_form(proxied, headers)
    assert status == 400 and FOREIGN in page


def test_the_csrf_token_is_still_required_from_this_site(proxied: Any) -> None:
    for headers in ({"Origin": SITE}, {"Sec-Fetch-Site": "same-origin"}, {"Referer": f"{SITE}/"}, {}):
        status, page = _post_form(proxied, headers, token=False)
        assert status == 400 and EXPIRED in page, headers


def test_plain_http_on_the_home_network_checks_the_same_way(sqlite_url: str) -> None:
    app = make_app(sqlite_url, WTF_CSRF_ENABLED=True)
    try:
        client = app.test_client()
        home = "http://192.168.1.5:5000"
        data = {**FORM, "csrf_token": _token(client, base_url=home)}
        refused = client.post("/new/pagat", data=data, base_url=home, headers={"Origin": "http://evil.example"})
        assert refused.status_code == 400 and FOREIGN in refused.get_data(as_text=True)
        ok = client.post("/new/pagat", data=data, base_url=home, headers={"Origin": home})
        assert ok.status_code == 302
    finally:
        _dispose(app)


def test_public_url_is_this_site_too(sqlite_url: str) -> None:
    app = make_app(sqlite_url, WTF_CSRF_ENABLED=True, PUBLIC_URL="https://scores.example.org/")
    try:
        client = app.test_client()
        data = {**FORM, "csrf_token": _token(client, base_url=APP)}
        ok = client.post("/new/pagat", data=data, base_url=APP, headers={"Origin": "https://scores.example.org"})
        assert ok.status_code == 302
    finally:
        _dispose(app)


def test_a_json_command_from_another_site_is_refused_with_cross_site(proxied: Any) -> None:
    client = proxied.test_client()
    data = {**FORM, "csrf_token": _token(client, base_url=APP, headers=FORWARDED)}
    response = client.post("/new/pagat", data=data, base_url=APP, headers=FORWARDED)
    key = response.headers["Location"].rsplit("/", 1)[-1]
    # the API has no CSRF token: a page of another site that got a JSON POST through (a
    # browser bug, a lax CORS proxy) is still refused by where it came from
    for headers in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Referer": "https://evil.example/x"}):
        refused = client.post(f"/api/e/{key}/finish", json={"revision": 0}, base_url=APP,
                              headers={**FORWARDED, **headers})
        assert refused.status_code == 400, headers
        assert refused.get_json()["error"]["code"] == "cross_site"
        assert FOREIGN in refused.get_json()["error"]["message"]
    ok = client.post(f"/api/e/{key}/finish", json={"revision": 0}, base_url=APP,
                     headers={**FORWARDED, "Origin": SITE, "Sec-Fetch-Site": "same-origin"})
    assert ok.status_code == 200, ok.get_data(as_text=True)
    assert ok.get_json()["finished"] is True


def test_reads_are_never_checked(app: Any) -> None:
    key = start_evening(app.test_client())
    response = app.test_client().get(f"/e/{key}", headers={"Origin": "https://evil.example",
                                                           "Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 200


def test_normal_origin() -> None:
    assert normal_origin("https://Nap.Example.org") == "https://nap.example.org:443"
    assert normal_origin("http://nap.example.org:80/x?y") == "http://nap.example.org:80"
    assert normal_origin("http://[::1]:5000/") == "http://::1:5000"
    for bad in ("null", "", "/relative", "ftp://x", "https://x:99999", "https://"):
        assert normal_origin(bad) is None, bad
