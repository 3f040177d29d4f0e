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
