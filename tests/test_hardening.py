"""Security settings that must hold on a home network (plain HTTP) and on HTTPS."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from scorer import create_app
from tests.conftest import make_app


def _start_with_csrf(client: Any, base_url: str, referrer: str | None) -> Any:
    page = client.get("/new/pagat", base_url=base_url).get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert token is not None
    headers = {"Referer": referrer} if referrer else {}
    return client.post("/new/pagat", base_url=base_url, headers=headers, data={
        "csrf_token": token.group(1), "players-0": "Ann", "players-1": "Bob", "players-2": "Cat",
        "first_dealer": "0", "scoring": "points", "opt_hands_per_dealer": "2"})


def test_csrf_works_on_plain_http_and_on_https(sqlite_url: str) -> None:
    app = make_app(sqlite_url, WTF_CSRF_ENABLED=True)
    # plain HTTP on a home network: no Referer needed
    assert _start_with_csrf(app.test_client(), "http://192.168.1.20:5000", None).status_code == 302
    # HTTPS: the browser sends a same-origin Referer (our Referrer-Policy allows it) and it is accepted
    https = app.test_client()
    assert _start_with_csrf(https, "https://nap.example", "https://nap.example/new/pagat").status_code == 302
    # a post from another site is refused on HTTPS
    evil = _start_with_csrf(app.test_client(), "https://nap.example", "https://evil.example/")
    assert evil.status_code == 400
    headers = app.test_client().get("/").headers
    assert headers["Referrer-Policy"] == "same-origin"
    assert "default-src 'self'" in headers["Content-Security-Policy"] and "'unsafe-inline'" not in \
        headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"


def test_the_csrf_token_does_not_expire_and_cookies_work_over_http(sqlite_url: str) -> None:
    app = make_app(sqlite_url, WTF_CSRF_ENABLED=True)
    assert app.config["WTF_CSRF_TIME_LIMIT"] is None
    assert app.config["SESSION_COOKIE_SECURE"] is False  # phones on http://<laptop>:5000 keep their session
    assert app.config["SESSION_COOKIE_HTTPONLY"] is True and app.config["SESSION_COOKIE_SAMESITE"] == "Lax"


def test_debug_is_off_and_the_secret_key_is_generated_into_instance(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'x.sqlite3'}")
    app = create_app()
    assert app.debug is False
    secret = Path(app.instance_path) / "secret_key"
    assert secret.exists() and app.config["SECRET_KEY"] == secret.read_text().strip()
    assert len(app.config["SECRET_KEY"]) == 64
    assert create_app().config["SECRET_KEY"] == app.config["SECRET_KEY"]  # the same on every start
    ignored = (Path(app.instance_path) / ".gitignore").read_text().split()
    assert ignored[0] == "*"  # never committed
