"""The service worker's settings (scorer/views/offline.py, put before static/sw.js as
``self.NAP``): every static file a page loads — its scripts, the modules they import,
its stylesheet and icons — is in the shell it keeps for offline use; the version (and
so the caches' names) changes with the files' contents and only with them; the routes
match the table's pages, made from Flask's URL rules."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

from tests.webhelpers import post_hand, start_evening

STATIC_REF = re.compile(r"""<(?:script|link)\b[^>]*?(?:src|href)="(/static/[^"?#]+)""")
IMPORT = re.compile(r"""^\s*import\s[^;]*?from\s+["']\./([^"']+)["']""", re.M)
HASHED = re.compile(r"\.[0-9a-f]{12}(\.[A-Za-z0-9]+)$")


def _plain(url: str) -> str:
    """A static URL without the hash in its name (``/static/app.<hash>.css`` → ``/static/app.css``)."""
    return HASHED.sub(r"\1", url)


def _nap(client: Any) -> dict[str, Any]:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["Service-Worker-Allowed"] == "/"
    match = re.match(r"self\.NAP = (.*?);\n", response.get_data(as_text=True), re.S)
    assert match, "sw.js begins with its settings"
    return json.loads(match.group(1))


def _loads(page: str, client: Any) -> set[str]:
    """The static files ``page`` (HTML) loads: its <script src> and <link href>, and the
    modules its scripts import (as the app serves them), followed through."""
    found = set(STATIC_REF.findall(page))
    todo = [u for u in found if u.endswith(".js")]
    while todo:
        url = todo.pop()
        served = client.get(url)
        assert served.status_code == 200, url
        for name in IMPORT.findall(served.get_data(as_text=True)):
            if f"/static/{name}" not in found:
                found.add(f"/static/{name}")
                todo.append(f"/static/{name}")
    return found


def test_every_file_a_page_loads_is_in_the_shell(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    assert post_hand(client, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    pages = ["/", "/new/pagat", "/new/hoyle", "/import", f"/e/{key}", f"/e/{key}/quick", f"/e/{key}/hand",
             f"/e/{key}/hand/1", f"/e/{key}/hand/1/edit", f"/e/{key}/hand/1/play", f"/e/{key}/undo",
             f"/e/{key}/big", f"/e/{key}/share", f"/e/{key}/settings", f"/e/{key}/seats", f"/e/{key}/history"]
    static = Path(app.static_folder)
    shell = set(_nap(client)["shell"])
    loaded: dict[str, set[str]] = {}
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        loaded[url] = _loads(response.get_data(as_text=True), client)
        extra = {_plain(u) for u in loaded[url] - shell}
        if url == f"/e/{key}":  # a scorer's scoresheet: the phone's engine and the Home Screen note, kept as loaded
            assert extra == {"/static/phone.js", "/static/ruling-diff.js", "/static/ios-install.js"}, extra
        else:
            assert not extra, f"{url} loads {sorted(extra)}, not in the service worker's shell"
    # the pages' own scripts are really there: the modules and what they import
    # (under their hashed names: a module's imports are rewritten to the hashed names too)
    plain = {url: {_plain(u) for u in urls} for url, urls in loaded.items()}
    assert all(HASHED.search(u) for urls in loaded.values() for u in urls)
    assert {"/static/outbox.js", "/static/outbox-send.js", "/static/outbox-store.js", "/static/rules.js",
            "/static/fullform.js", "/static/undo.js"} <= plain[f"/e/{key}/hand"]
    assert "/static/quick-entry.js" in plain[f"/e/{key}/quick"]
    assert "/static/play.js" in plain[f"/e/{key}/hand/1/play"]
    assert all((static / _plain(u).removeprefix("/static/")).is_file() for u in shell)


def test_the_version_follows_the_files_contents(app: Any, tmp_path: Path) -> None:
    copy = tmp_path / "static"
    shutil.copytree(app.static_folder, copy)
    app.static_folder = str(copy)
    client = app.test_client()
    first = _nap(client)
    assert re.fullmatch(r"[0-9a-f]{16}", first["version"])
    assert _nap(client)["version"] == first["version"]  # the same files: the same worker
    (copy / "rules.js").write_text((copy / "rules.js").read_text(encoding="utf-8") + "\n// changed\n",
                                   encoding="utf-8")
    changed = _nap(client)
    assert changed["version"] != first["version"]
    # the same files, rules.js and the modules importing it under new hashed names
    assert [_plain(u) for u in changed["shell"]] == [_plain(u) for u in first["shell"]]
    moved = {_plain(u) for u in set(changed["shell"]) - set(first["shell"])}
    assert {"/static/rules.js", "/static/outbox-send.js", "/static/fullform.js", "/static/outbox.js"} <= moved
    assert "/static/app.css" not in moved and "/static/live.js" not in moved
    (copy / "sw.js").write_text((copy / "sw.js").read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert _nap(client)["version"] not in (first["version"], changed["version"])
    body = client.get("/sw.js").get_data(as_text=True)
    # the caches are named by the version, and the old ones go when this worker takes over
    assert '"nap-pages-" + NAP.version' in body and '"nap-static-" + NAP.version' in body
    assert "caches.delete(name)" in body


def test_the_routes_match_the_tables_pages_and_nothing_else(app: Any) -> None:
    nap = _nap(app.test_client())
    # JavaScript's named groups (?<key>…) are Python's (?P<key>…)
    pages = [re.compile(source.replace("(?<", "(?P<").replace(r"\/", "/")) for source in nap["pages"]]

    def page(path: str) -> tuple[int, dict[str, str]] | None:
        for i, route in enumerate(pages):
            match = route.match(path)
            if match:
                return i, match.groupdict()
        return None

    assert page("/e/Ab_c-1") == (0, {"key": "Ab_c-1"})  # the scoresheet comes first: it warms the others
    assert page("/e/Ab_c-1/quick") == (1, {"key": "Ab_c-1"})
    assert page("/e/k/hand/12") == (5, {"key": "k", "number": "12"})
    assert page("/e/k/hand/12/edit") == (6, {"key": "k", "number": "12"})
    for other in ("/e/k/history", "/e/k/hand/x", "/e/k/hand/1/play", "/e/k/chart.svg", "/api/e/k", "/e/k/quick/1"):
        assert page(other) is None, other
    assert re.match(nap["chart"].replace("(?<", "(?P<").replace(r"\/", "/"), "/e/k/chart.svg")
    assert nap["sheet"] == "/e/{key}"
    assert nap["warm"] == ["/e/{key}/quick", "/e/{key}/big", "/e/{key}/hand", "/e/{key}/undo"]
    assert nap["warm_last"] == ["/e/{key}/hand/{number}", "/e/{key}/hand/{number}/edit"]


def test_the_workers_words_are_in_the_language_it_was_registered_with(app: Any) -> None:
    """What the worker says of a write the network did not take ("Not saved", issue 21,
    item 8) comes in the table's language: register-sw.js registers /sw.js?lang=<lang>."""
    client = app.test_client()

    def words(query: str, **headers: str) -> dict[str, str]:
        body = client.get(f"/sw.js{query}", headers=headers).get_data(as_text=True)
        match = re.match(r"self\.NAP = (.*?);\n", body, re.S)
        assert match
        return json.loads(match.group(1))["words"]

    english = words("?lang=en")
    assert english == {
        "lang": "en",
        "json": "Not saved: there is no network, and this phone kept nothing. Send it again once the network is back.",
        "title": "Not saved",
        "page": "There is no network, and this phone could not keep what you sent: nothing was saved. "
                "Go back to the form and send it again once the network is back.",
        "back": "Back to the form",
    }
    assert words("?lang=ru")["title"] == "Не сохранено"
    assert words("?lang=nb")["back"] == "Tilbake til skjemaet"
    brazil = words("?lang=pt-BR")  # as <html lang> writes it
    assert brazil["lang"] == "pt-BR" and brazil["title"] == "Não salvo"
    assert words("?lang=pt_BR") == brazil
    # no language, or one the app does not have: the phone's own
    assert words("", **{"Accept-Language": "nb-NO"})["title"] == "Ikke lagret"
    assert words("?lang=xx", **{"Accept-Language": "ru"})["lang"] == "ru"
    assert words("?lang=<script>") == english
    # the settings are the same in every language: one version, the same caches
    assert _nap(client)["version"] == json.loads(re.match(
        r"self\.NAP = (.*?);\n", client.get("/sw.js?lang=ru").get_data(as_text=True), re.S).group(1))["version"]


def test_the_page_registers_the_worker_with_its_language(app: Any) -> None:
    script = Path(app.static_folder, "register-sw.js").read_text(encoding="utf-8")
    assert 'register("/sw.js?lang=" + encodeURIComponent(lang)' in script
    assert 'document.documentElement.getAttribute("lang")' in script
    page = app.test_client().get("/", headers={"Accept-Language": "pt-BR"}).get_data(as_text=True)
    assert '<html lang="pt-BR">' in page and re.search(r"/static/register-sw\.[0-9a-f]{12}\.js", page)


def test_the_worker_is_made_once_per_language_and_files(app: Any, tmp_path: Path) -> None:
    """The answer is made once per language and state of the static files (issue 23 item 2:
    phones check for a new worker often): the same bytes and ETag each time, compressed the
    same, a matching conditional request answered 304; another language is another answer,
    and a changed file is in the very next answer."""
    import brotli

    from scorer.web.views import offline

    copy = tmp_path / "static"
    shutil.copytree(app.static_folder, copy)
    app.static_folder = str(copy)
    client = app.test_client()
    first = client.get("/sw.js?lang=en")
    again = client.get("/sw.js?lang=en")
    assert first.status_code == again.status_code == 200
    assert first.data == again.data and first.headers["ETag"] == again.headers["ETag"]
    assert first.headers["ETag"].strip('"') == hashlib.sha1(first.data).hexdigest()
    packed = [client.get("/sw.js?lang=en", headers={"Accept-Encoding": "br"}) for _ in range(2)]
    assert [p.headers["Content-Encoding"] for p in packed] == ["br", "br"]
    assert packed[0].data == packed[1].data and brotli.decompress(packed[1].data) == first.data
    assert packed[1].headers["ETag"] == first.headers["ETag"][:-1] + ':br"'
    assert "Accept-Encoding" in packed[1].headers["Vary"]
    unchanged = client.get("/sw.js?lang=en", headers={"If-None-Match": first.headers["ETag"]})
    assert unchanged.status_code == 304 and unchanged.data == b""
    with app.test_request_context("/sw.js?lang=en"):
        assert offline._worker(offline._settings(), "en") is offline._worker(offline._settings(), "en")
    russian = client.get("/sw.js?lang=ru")
    said = re.match(r"self\.NAP = (.*?);\n", russian.get_data(as_text=True), re.S)
    assert said and json.loads(said.group(1))["words"]["title"] == "Не сохранено"
    assert russian.headers["ETag"] != first.headers["ETag"]
    assert client.get("/sw.js?lang=en").data == first.data  # each language kept: English again
    (copy / "sw.js").write_text((copy / "sw.js").read_text(encoding="utf-8") + "\n// a new worker\n",
                                encoding="utf-8")
    fresh = client.get("/sw.js?lang=en", headers={"If-None-Match": first.headers["ETag"]})
    assert fresh.status_code == 200 and fresh.get_data(as_text=True).endswith("\n// a new worker\n")
    assert fresh.headers["ETag"] != first.headers["ETag"]
