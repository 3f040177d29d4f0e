"""Headers and small faults: what a page may be kept as, who may frame a picture, where
a form may send the phone back to, and who may read the database file."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from conftest import make_app

from webhelpers import post_hand, start_evening


def test_the_share_page_is_never_cached(client: Any) -> None:
    """A scorer's Share page holds the PIN and the scorers' link."""
    key = start_evening(client)
    response = client.get(f"/e/{key}/share")
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"


def test_no_other_site_may_frame_the_pictures(client: Any) -> None:
    key = start_evening(client)
    post_hand(client, key, 1, 0, {1: "three"}, 3)
    for url in (f"/e/{key}/qr.svg", f"/e/{key}/chart.svg"):
        policy = client.get(url).headers["Content-Security-Policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, url


def test_a_device_name_with_a_bad_return_address_changes_nothing(client: Any) -> None:
    """A CR/LF in ``next`` answered 500 after the phone had been renamed."""
    response = client.post("/device", data={"device": "Evil", "next": "/e/x\r\nSet-Cookie: a=b"})
    assert response.status_code == 302 and response.headers["Location"] == "/"
    page = client.get("/").get_data(as_text=True)
    assert "Nothing was changed" in page and "Evil" not in page
    good = client.post("/device", data={"device": "Ann's phone", "next": "/new"})
    assert good.status_code == 302 and good.headers["Location"] == "/new"


def test_a_cached_scoresheet_never_carries_a_visitors_query_into_its_links(app: Any, client: Any) -> None:
    """The whole-page cache served the first visitor's query string inside the language
    links to everyone; the links are built from the page's path now."""
    key = start_evening(client)
    viewer = app.test_client()
    first = viewer.get(f"/e/{key}?utm=first-visitor").get_data(as_text=True)
    second = app.test_client().get(f"/e/{key}").get_data(as_text=True)
    assert "first-visitor" not in first and "first-visitor" not in second
    assert f"next=/e/{key}" in second.replace("%2F", "/")
    new = client.get("/new?group=abc&x=1").get_data(as_text=True)  # a start page keeps its group only
    assert "group%3Dabc" in new and "x%3D1" not in new


def test_the_sqlite_database_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "private.sqlite3"
    app = make_app(f"sqlite:///{path}")
    with app.app_context():
        from scorer.storage.models import db

        db.session.remove()
        db.engine.dispose()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_an_sqlite_file_named_any_way_is_readable_by_its_owner_only(tmp_path: Path, monkeypatch: Any) -> None:
    """Issue 21 item 16: a relative name (Flask-SQLAlchemy opens it in the instance folder),
    the ``sqlite+pysqlite`` driver's URL, a path through ``..`` and a ``file:`` URI were
    created 0644; the relative one also left an empty 0600 file of the same name in the
    working folder."""
    monkeypatch.setenv("NAP_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.chdir(tmp_path)
    old_umask = os.umask(0o022)
    try:
        for url, path in [("sqlite:///relative.sqlite3", tmp_path / "instance" / "relative.sqlite3"),
                          (f"sqlite+pysqlite:///{tmp_path / 'driver.sqlite3'}", tmp_path / "driver.sqlite3"),
                          (f"sqlite:///{tmp_path / 'gone' / '..' / 'dotted.sqlite3'}", tmp_path / "dotted.sqlite3"),
                          (f"sqlite:///file:{tmp_path / 'uri.sqlite3'}?uri=true", tmp_path / "uri.sqlite3")]:
            app = make_app(url)
            with app.app_context():
                from scorer.storage.models import db

                db.session.remove()
                db.engine.dispose()
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, url
    finally:
        os.umask(old_umask)
    assert not (tmp_path / "relative.sqlite3").exists()


def test_every_answer_carries_the_security_headers_once_and_a_views_own_policy_wins(client: Any) -> None:
    """The headers are added after the view (unless it set its own), in one order, once each."""
    from scorer.web.app import ENGINE_CSP, SECURITY_HEADERS

    key = start_evening(client)
    page = client.get(f"/e/{key}")
    names = [name for name, _ in page.headers if name in SECURITY_HEADERS]
    assert names == list(SECURITY_HEADERS)  # in this order, each once
    assert all(page.headers[name] == value for name, value in SECURITY_HEADERS.items())
    assert page.headers["Vary"] == "Accept-Language, Cookie, Accept-Encoding"
    assert "Strict-Transport-Security" not in page.headers  # plain HTTP
    chart = client.get(f"/e/{key}/qr.svg")  # the view's own policy is kept, the others added
    assert chart.headers.get_all("Content-Security-Policy") == ["default-src 'none'; frame-ancestors 'none'"]
    assert chart.headers["X-Frame-Options"] == "DENY" and chart.headers["Referrer-Policy"] == "same-origin"
    worker = client.get("/static/engine/worker.js")
    worker.close()  # (a file's answer)
    assert worker.headers.get_all("Content-Security-Policy") == [ENGINE_CSP]
    assert "'wasm-unsafe-eval'" in ENGINE_CSP
    secure = client.get("/healthz", base_url="https://localhost")
    assert secure.headers.get_all("Strict-Transport-Security") == ["max-age=31536000"]
    names = [name for name, _ in secure.headers]
    assert names.index("Strict-Transport-Security") == names.index("X-Frame-Options") + 1  # after the others


def test_the_session_cookies_serializer_is_made_once_per_secret_key(app: Any, client: Any) -> None:
    """It was made for every request (a tenth of a request that reads no session); a new
    secret key (with the old one as a fallback) makes a new one, and old cookies still open."""
    interface = app.session_interface
    first = interface.get_signing_serializer(app)
    assert first is not None and interface.get_signing_serializer(app) is first
    with client.session_transaction() as sess:
        sess["kept"] = "yes"
    app.secret_key, app.config["SECRET_KEY_FALLBACKS"] = "a-new-secret", ["test-secret"]
    second = interface.get_signing_serializer(app)
    assert second is not first and interface.get_signing_serializer(app) is second
    with client.session_transaction() as sess:  # signed with the old key, read with its fallback
        assert sess["kept"] == "yes"
    app.config["SECRET_KEY_FALLBACKS"] = None
    with client.session_transaction() as sess:  # the old key no longer accepted: an empty session
        assert "kept" not in sess
