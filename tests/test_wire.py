"""What a phone costs on the wire (issue 23 item 1): static files under content-hashed
names served ``immutable`` (old names still work, ``no-cache``), ES modules importing each
other by hashed name, compression negotiated (brotli or gzip when asked, identity
otherwise, ``Vary: Accept-Encoding``; the Share page never), /sw.js answered 304 when
unchanged. The figures are
benchmarks/wire.py's to measure."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import brotli

from scorer.web.compression import chosen
from tests.webhelpers import post_hand, start_evening

IMMUTABLE = "public, max-age=31536000, immutable"
HASHED = re.compile(r"/static/([\w/.-]+?)\.([0-9a-f]{12})(\.[A-Za-z0-9]+)")
STATIC_REF = re.compile(r"""(?:src|href)="(/static/[^"?#]+)""")
IMPORT = re.compile(r"""from\s+["']\./([^"']+)["']""")


def _tokenless(html: bytes) -> bytes:
    """``html`` with the value of each hidden field blanked (one-time tokens, CSRF)."""
    return re.sub(rb'type="hidden" value="[^"]*"', b'type="hidden" value=""', html)


def _refs(html: str) -> list[str]:
    return STATIC_REF.findall(html)


def test_pages_link_static_files_by_hashed_names_served_immutable(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    static = Path(app.static_folder)
    refs = _refs(client.get(f"/e/{key}").get_data(as_text=True))
    assert {"app.css", "live.js", "outbox.js", "register-sw.js", "icon.svg"} <= {
        HASHED.fullmatch(u).group(1) + HASHED.fullmatch(u).group(3) for u in refs}  # type: ignore[union-attr]
    for url in refs:
        match = HASHED.fullmatch(url)
        assert match, f"{url} has no hashed name"
        name = match.group(1) + match.group(3)
        response = client.get(url)
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == IMMUTABLE
        if name == "app.css":
            assert response.data == (static / name).read_bytes()
        response.close()
        # the old name keeps working, revalidated every time as before
        old = client.get(f"/static/{name}")
        assert old.status_code == 200 and "immutable" not in old.headers["Cache-Control"]
        assert "no-cache" in old.headers["Cache-Control"]
        assert old.data == (static / name).read_bytes()
        old.close()


def test_the_frames_links_printed_once_follow_the_root_and_the_static_files(app: Any, tmp_path: Path) -> None:
    """The frame's head (templates/_frame_head.html) is printed once and kept
    (scorer.web.static_names.frame_head): the links each ``url_for`` gives, under each root the
    app is mounted at, and new ones once a static file changes."""
    import shutil

    from flask import url_for

    client = app.test_client()
    key = start_evening(client)
    for root in ("", "/nap", ""):
        page = client.get(f"/e/{key}/big", environ_overrides={"SCRIPT_NAME": root}).get_data(as_text=True)
        with app.test_request_context(f"/e/{key}/big", environ_overrides={"SCRIPT_NAME": root}):
            app.preprocess_request()
            wanted = [url_for("static", filename=name) for name in ("app.css", "outbox.js", "register-sw.js")]
        assert all(f'"{url}"' in page for url in wanted), root
        assert all(url.startswith(f"{root}/static/") for url in wanted)
    static = tmp_path / "static"
    shutil.copytree(app.static_folder, static, ignore=shutil.ignore_patterns("pyodide"))
    app.static_folder = str(static)
    before = _refs(client.get(f"/e/{key}/big").get_data(as_text=True))
    (static / "app.css").write_text((static / "app.css").read_text() + "\n/* changed */\n")
    after = _refs(client.get(f"/e/{key}/big").get_data(as_text=True))
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert [HASHED.fullmatch(b).group(1) for _, b in changed] == ["app"]  # type: ignore[union-attr]


def test_a_hashed_module_imports_the_hashed_names_and_the_old_name_the_old_ones(app: Any) -> None:
    client = app.test_client()
    html = client.get("/").get_data(as_text=True)
    outbox = next(u for u in _refs(html) if "/static/outbox." in u)
    served = client.get(outbox).get_data(as_text=True)
    imported = IMPORT.findall(served)
    assert imported and all(re.fullmatch(r"[\w-]+\.[0-9a-f]{12}\.js", name) for name in imported), imported
    for name in imported:
        answer = client.get(f"/static/{name}")
        assert answer.status_code == 200 and answer.headers["Cache-Control"] == IMMUTABLE
    # the file under its old name is as written: its imports are the old names
    with client.get("/static/outbox.js") as old:
        plain = old.get_data(as_text=True)
    assert IMPORT.findall(plain) == [
        "outbox-store.js", "outbox-send.js", "outbox-view.js"]
    # a hashed name of an older version: the file as it is now, revalidated
    with client.get("/static/app.000000000000.css") as stale:
        assert stale.status_code == 200 and "no-cache" in stale.headers["Cache-Control"]
    assert client.get("/static/nothing.000000000000.css").status_code == 404


def test_the_service_workers_shell_and_stylesheet_use_the_hashed_names(app: Any) -> None:
    body = app.test_client().get("/sw.js").get_data(as_text=True)
    nap = json.loads(re.match(r"self\.NAP = (.*?);\n", body, re.S).group(1))  # type: ignore[union-attr]
    assert nap["shell"] and all(HASHED.fullmatch(u) for u in nap["shell"])
    assert HASHED.fullmatch(nap["css"]) and nap["css"] in nap["shell"]
    # Workbox comes in the worker's own answer: an update check is one request
    assert "importScripts" not in body and "this.workbox.strategies" in body


def test_compression_is_negotiated(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    assert post_hand(client, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    client.get(f"/e/{key}")  # the "saved" message, once
    plain = client.get(f"/e/{key}")
    assert "Content-Encoding" not in plain.headers
    assert "Accept-Encoding" in plain.headers["Vary"] and "Cookie" in plain.headers["Vary"]
    zipped = client.get(f"/e/{key}", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped.headers["Vary"]
    # the same page (but its one-time form tokens), a third of the size or less
    assert _tokenless(gzip.decompress(zipped.data)) == _tokenless(plain.data)
    assert len(zipped.data) * 3 < len(plain.data)
    best = client.get(f"/e/{key}", headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
    assert best.headers["Content-Encoding"] == "br"
    assert _tokenless(brotli.decompress(best.data)) == _tokenless(plain.data)
    refused = client.get(f"/e/{key}", headers={"Accept-Encoding": "br;q=0, gzip;q=0"})
    assert "Content-Encoding" not in refused.headers and _tokenless(refused.data) == _tokenless(plain.data)
    chart = client.get(f"/e/{key}/chart.svg?r=1", headers={"Accept-Encoding": "gzip"})
    assert chart.mimetype == "image/svg+xml" and chart.headers["Content-Encoding"] == "gzip"
    css = next(u for u in _refs(plain.get_data(as_text=True)) if "/static/app." in u)
    raw = client.get(css)
    assert "Content-Encoding" not in raw.headers and "Accept-Encoding" in raw.headers["Vary"]
    packed = client.get(css, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip" and gzip.decompress(packed.data) == raw.data
    assert packed.headers["Cache-Control"] == IMMUTABLE and "Accept-Encoding" in packed.headers["Vary"]


def test_the_share_page_is_never_compressed(app: Any) -> None:
    """It shows the scorers' link, a secret (BREACH: scorer/web/compression.py)."""
    client = app.test_client()
    key = start_evening(client)
    share = client.get(f"/e/{key}/share", headers={"Accept-Encoding": "gzip, br"})
    assert share.status_code == 200 and "Content-Encoding" not in share.headers
    assert "/scorer/" in share.get_data(as_text=True) and "Accept-Encoding" in share.headers["Vary"]


def test_choosing_an_encoding() -> None:
    assert chosen("gzip, deflate, br, zstd") == "br"
    assert chosen("gzip") == "gzip"
    assert chosen("br;q=0, gzip") == "gzip"
    assert chosen("*") == "br"
    assert chosen("identity") is None and chosen("") is None and chosen("gzip;q=0") is None


def test_the_worker_script_is_answered_304_when_unchanged(app: Any) -> None:
    client = app.test_client()
    first = client.get("/sw.js?lang=en", headers={"Accept-Encoding": "br"})
    assert first.headers["Cache-Control"] == "no-cache" and first.headers.get("ETag")
    again = client.get("/sw.js?lang=en", headers={"Accept-Encoding": "br", "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


def _hidden_blank(html: str) -> str:
    """``html`` with the value of every hidden field blanked (one-time tokens, CSRF)."""
    return re.sub(r'(type="hidden"[^>]*?value=")[^"]*', r"\1", html)


def test_the_tables_kept_pages_come_in_one_answer(app: Any) -> None:
    """The service worker's warm-up is one request (GET /e/<key>/kept), each page in it the
    one its own route gives this phone; a viewer gets only what a viewer may open."""
    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    scorer.get(f"/e/{key}")  # the "saved" message, once
    answer = scorer.get(f"/e/{key}/kept?last=1", headers={"X-Nap-Warm": "1"})
    assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-store"
    pages = {p["path"]: p for p in answer.get_json()["pages"]}
    assert list(pages) == [f"/e/{key}/quick", f"/e/{key}/big", f"/e/{key}/hand", f"/e/{key}/undo",
                           f"/e/{key}/hand/1", f"/e/{key}/hand/1/edit"]
    for path, page in pages.items():
        assert _hidden_blank(page["html"]) == _hidden_blank(scorer.get(path).get_data(as_text=True)), path
        assert page["headers"]["Content-Type"] == "text/html; charset=utf-8"
        assert "default-src 'self'" in page["headers"]["Content-Security-Policy"]
    assert ">Hand 2<" in pages[f"/e/{key}/quick"]["html"].replace("</h1>", "<").replace("<h1>", ">")
    # without ?last, the table's own four; a viewer gets only what a viewer may open
    assert [p["path"] for p in scorer.get(f"/e/{key}/kept").get_json()["pages"]] == [
        f"/e/{key}/quick", f"/e/{key}/big", f"/e/{key}/hand", f"/e/{key}/undo"]
    viewer = app.test_client().get(f"/e/{key}/kept?last=1").get_json()["pages"]
    assert [p["path"] for p in viewer] == [f"/e/{key}/big", f"/e/{key}/hand/1"]
    assert app.test_client().get("/e/nosuchtable/kept").get_json()["pages"] == []
    assert scorer.get(f"/e/{key}/kept?last=x").get_json()["pages"][-1]["path"] == f"/e/{key}/undo"


def test_a_kept_form_is_made_with_the_secret_the_answer_gives_the_phone(app: Any) -> None:
    """A phone whose session had no form secret yet gets one in the kept pages' answer, and
    the kept quick entry's token is one of that secret: its form, posted later, is taken."""
    from flask_wtf.csrf import validate_csrf

    scorer = app.test_client()
    key = start_evening(scorer)
    app.config["WTF_CSRF_ENABLED"] = True
    with scorer.session_transaction() as sess:
        sess.pop("csrf_token", None)
    answer = scorer.get(f"/e/{key}/kept", headers={"X-Nap-Warm": "1"})
    quick = next(p for p in answer.get_json()["pages"] if p["path"] == f"/e/{key}/quick")["html"]
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', quick)
    assert token, "the kept quick entry has a form token"
    with scorer.session_transaction() as sess:
        secret = sess.get("csrf_token")
    assert secret, "the answer's cookie carries the form secret"
    with app.test_request_context():
        from flask import session

        session["csrf_token"] = secret
        validate_csrf(token.group(1))  # raises when the token is not of this secret


# -- in a real browser (Chromium, as tests/test_offline.py drives it) ----------------------

from tests import test_offline as offline  # noqa: E402 - its browser and server fixtures

browser = offline.browser
site = offline.site


def test_hashed_modules_run_in_a_real_browser_and_offline_after(browser: Any, site: tuple[Any, str]) -> None:
    """The pages' modules load by hashed name (each import rewritten) and work: quick entry,
    a module importing four others, saves a hand offline into the outbox after a reload."""
    app, base = site
    ctx, a = offline._phone(browser)
    try:
        key = offline._start_table(a, base)
        offline._ready_offline(a, base, key)
        a.goto(f"{base}/e/{key}/quick")
        a.locator("h1:has-text('Hand 1')").wait_for(timeout=60000)
        loaded = a.evaluate("performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)")
        scripts = [u for u in loaded if u.startswith("/static/") and u.endswith(".js")]
        names = {HASHED.fullmatch(u).group(1) for u in scripts if HASHED.fullmatch(u)}  # type: ignore[union-attr]
        assert {"quick-entry", "outbox-send", "outbox-store", "rules", "words"} <= names, scripts
        assert all(HASHED.fullmatch(u) for u in scripts), scripts  # no module asked for by its old name
        ctx.set_offline(True)
        a.goto(f"{base}/e/{key}")
        a.locator("#netstate.offline").wait_for(timeout=60000)
        offline._quick_offline(a, "Bob", "Three", 3)
        a.locator(".outbox-entry.waiting").first.wait_for(state="attached", timeout=60000)
        assert "Hand 1 · Bob · Three · 3" in a.locator(".outbox").text_content()
        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        assert offline._hands(app, key) == [(1, 1, 3)]
    finally:
        ctx.close()
