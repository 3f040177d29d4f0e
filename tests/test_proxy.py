"""Behind an HTTPS reverse proxy the app builds its links and QR codes from what the
proxy says (``NAP_PROXY_HOPS``) or from ``PUBLIC_URL``, and marks the session cookie
Secure when the request came over HTTPS.

The end-to-end test runs the app under waitress behind a real nginx (Debian's) on
loopback with TLS, configured by ``deploy/nginx.conf`` itself (the README's "Deploy").
Without nginx it is skipped with a note, unless ``NAP_REQUIRE_PROXY=1`` (as in CI);
``./scripts/test`` installs nginx-light with apt-get when it is missing.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
import segno
from conftest import ROOT, _dispose, make_app
from waitress.server import create_server

from scorer.cli.serve import server_settings
from webhelpers import free_port, listening, post_hand, start_evening, stop, wait_until

NGINX = os.environ.get("NAP_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
REQUIRE = os.environ.get("NAP_REQUIRE_PROXY") == "1"
DEPLOY_CONF = ROOT / "deploy" / "nginx.conf"
DEPLOY_MAIN_CONF = ROOT / "deploy" / "nginx-main.conf"  # the lines of /etc/nginx/nginx.conf
PUBLIC_NAME = "nap.test"


@pytest.fixture
def qr_urls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every URL a QR code was made of (segno.make, as the QR route calls it)."""
    made: list[str] = []
    real = segno.make

    def spy(content: Any, *args: Any, **kwargs: Any) -> Any:
        made.append(content)
        return real(content, *args, **kwargs)

    monkeypatch.setattr(segno, "make", spy)
    return made


def _share_links(html: str) -> list[str]:
    return re.findall(r'<p class="link"><code>([^<]+)</code></p>', html)


# -- without a proxy process: the test client -------------------------------------------


def test_forwarded_headers_are_ignored_unless_a_proxy_is_trusted(app: Any, qr_urls: list[str]) -> None:
    client = app.test_client()
    key = start_evening(client)
    forged = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"}
    page = client.get(f"/e/{key}/share", base_url="http://nap.test:8000", headers=forged).get_data(as_text=True)
    assert _share_links(page)[0] == f"http://nap.test:8000/e/{key}"
    client.get(f"/e/{key}/qr.svg", base_url="http://nap.test:8000", headers=forged)
    assert qr_urls == [f"http://nap.test:8000/e/{key}"]


def test_one_trusted_proxy_gives_the_scheme_host_and_secure_cookie(sqlite_url: str, qr_urls: list[str]) -> None:
    app = make_app(sqlite_url, NAP_PROXY_HOPS=1)
    try:
        client = app.test_client()
        forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "nap.example.org"}
        data = {"players-0": "Ann", "players-1": "Bob", "players-2": "Cat", "first_dealer": "0",
                "scoring": "points", "opt_hands_per_dealer": "2"}
        response = client.post("/new/pagat", data=data, base_url="http://127.0.0.1:5000", headers=forwarded)
        assert response.status_code == 302
        key = response.headers["Location"].rsplit("/", 1)[-1]
        cookies = {c.split("=", 1)[0]: c for c in response.headers.getlist("Set-Cookie")}
        # over HTTPS the cookies carry the __Host- prefix: Secure, Path=/, no Domain (issue 21 item 3)
        for name in ("__Host-session", "__Host-nap_device"):
            assert "; Secure" in cookies[name] and "; Path=/" in cookies[name] and "Domain" not in cookies[name]
        assert "session" not in cookies and "nap_device" not in cookies
        assert response.headers["Strict-Transport-Security"] == "max-age=31536000"
        page = client.get(f"/e/{key}/share", base_url="http://127.0.0.1:5000", headers=forwarded)
        links = _share_links(page.get_data(as_text=True))
        assert links[0] == f"https://nap.example.org/e/{key}"
        assert links[1].startswith(f"https://nap.example.org/e/{key}/scorer/")
        client.get(f"/e/{key}/qr.svg?for=edit", base_url="http://127.0.0.1:5000", headers=forwarded)
        assert qr_urls == [links[1]]
    finally:
        _dispose(app)


#: What a visitor adds to its own request to move another phone's page to its site: the
#: prefix every link, script, style and form starts with, and the port of every absolute link.
POISON = {"X-Forwarded-Prefix": "//evil.example", "X-Forwarded-Port": "6666"}


def test_one_forged_request_never_poisons_the_kept_scoresheet(sqlite_url: str) -> None:
    """Behind the documented proxy (NAP_PROXY_HOPS=1) a visitor's X-Forwarded-Prefix was
    believed, and the page kept for every viewer of that revision pointed at its host."""
    app = make_app(sqlite_url, NAP_PROXY_HOPS=1)
    try:
        key = start_evening(app.test_client())
        forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "nap.example.org"}
        forged = app.test_client().get(f"/e/{key}", headers={**forwarded, **POISON}).get_data(as_text=True)
        page = app.test_client().get(f"/e/{key}", headers=forwarded).get_data(as_text=True)
        assert "evil.example" not in page and re.search(r'src="/static/live\.[0-9a-f]{12}\.js', page)
        assert "evil.example" not in forged
        scorer = app.test_client()
        start_evening(scorer)
        share = scorer.get(f"/e/{key}/share", headers={**forwarded, **POISON}).get_data(as_text=True)
        assert "6666" not in share and "evil.example" not in share
    finally:
        _dispose(app)


def test_a_scoresheet_kept_for_one_script_root_is_never_served_under_another(app: Any) -> None:
    """The kept pages are keyed by the root their links were built for: whatever sets
    SCRIPT_NAME (a proxy believed, a server mounting the app), no other root is served them."""
    key = start_evening(app.test_client())
    mounted = app.test_client().get(f"/e/{key}", environ_overrides={"SCRIPT_NAME": "/nap"}).get_data(as_text=True)
    plain = app.test_client().get(f"/e/{key}").get_data(as_text=True)
    again = app.test_client().get(f"/e/{key}", environ_overrides={"SCRIPT_NAME": "/nap"}).get_data(as_text=True)
    live = re.compile(r'src="/nap/static/live\.[0-9a-f]{12}\.js')
    assert live.search(mounted) and live.search(again)
    assert "/nap/" not in plain and re.search(r'src="/static/live\.[0-9a-f]+\.js', plain)


def test_the_session_cookie_is_not_secure_over_plain_http_unless_forced(sqlite_url: str) -> None:
    plain = make_app(sqlite_url)
    forced = make_app(sqlite_url, SESSION_COOKIE_SECURE=True)  # what NAP_SECURE_COOKIES=1 sets
    try:
        data = {"players-0": "Ann", "players-1": "Bob", "players-2": "Cat", "first_dealer": "0",
                "scoring": "points", "opt_hands_per_dealer": "2"}
        cookie = plain.test_client().post("/new/pagat", data=data).headers["Set-Cookie"]
        assert "Secure" not in cookie
        cookie = forced.test_client().post("/new/pagat", data=data).headers["Set-Cookie"]
        assert "; Secure" in cookie
        # HTTPS straight to the app (no proxy) is Secure too
        cookie = plain.test_client().post("/new/pagat", data=data, base_url="https://nap.test").headers["Set-Cookie"]
        assert "; Secure" in cookie
    finally:
        _dispose(plain)
        _dispose(forced)


def test_proxy_hops_come_from_the_environment(monkeypatch: pytest.MonkeyPatch, sqlite_url: str) -> None:
    from scorer import create_app

    monkeypatch.setenv("NAP_PROXY_HOPS", "2")
    monkeypatch.setenv("PUBLIC_URL", "https://nap.example.org/")
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": sqlite_url})
    assert app.config["NAP_PROXY_HOPS"] == 2 and app.config["PUBLIC_URL"] == "https://nap.example.org"
    assert type(app.wsgi_app).__name__ == "ProxyFix" and app.wsgi_app.x_proto == 2  # type: ignore[attr-defined]
    monkeypatch.setenv("NAP_PROXY_HOPS", "off")
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": sqlite_url})
    assert app.config["NAP_PROXY_HOPS"] == 0 and type(app.wsgi_app).__name__ != "ProxyFix"


def test_public_url_builds_every_link_and_qr_code(sqlite_url: str, qr_urls: list[str]) -> None:
    app = make_app(sqlite_url, PUBLIC_URL="https://nap.example.org/")
    try:
        client = app.test_client()
        key = start_evening(client)
        page = client.get(f"/e/{key}/share", base_url="http://localhost:5000").get_data(as_text=True)
        view, edit = _share_links(page)
        assert view == f"https://nap.example.org/e/{key}" and edit.startswith("https://nap.example.org/e/")
        assert "lan-note" not in page
        client.get(f"/e/{key}/qr.svg")
        client.get(f"/e/{key}/qr.svg?for=edit")
        assert qr_urls == [view, edit]
    finally:
        _dispose(app)


def test_waitress_leaves_the_forwarded_headers_only_when_a_proxy_is_trusted(sqlite_url: str) -> None:
    """waitress strips X-Forwarded-* by default: behind nginx ProxyFix saw none of them."""
    from scorer.cli.serve import SERVER_LIMITS

    for hops, cleared in ((0, True), (1, False)):
        app = make_app(sqlite_url, NAP_PROXY_HOPS=hops)
        settings = server_settings(app)
        assert settings.get("clear_untrusted_proxy_headers", True) is cleared
        assert {k: v for k, v in settings.items() if k in SERVER_LIMITS} == SERVER_LIMITS
        _dispose(app)


# -- through a real nginx with TLS -------------------------------------------------------


def _unavailable(message: str) -> None:
    if REQUIRE:
        pytest.fail(message + " and NAP_REQUIRE_PROXY=1")
    pytest.skip(message + " (./scripts/test installs nginx-light with apt-get)")


def certificate(tmp: Path) -> tuple[Path, Path]:
    """A self-signed certificate for nap.test and 127.0.0.1 (openssl; one day)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        _unavailable("no openssl to make a test certificate")
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={PUBLIC_NAME}",
         "-addext", f"subjectAltName=DNS:{PUBLIC_NAME},IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )
    return cert, key


def render_deploy_conf(listen: str, server_name: str, cert: Path, key: Path, app: str,
                       conf: Path = DEPLOY_CONF, live: str | None = None, text: str | None = None) -> str:
    """deploy/nginx.conf (or ``conf``: another checkout's, benchmarks/wire.py) with its
    placeholders filled, as the README tells an admin to (its access log next to the
    certificate, in the test's folder). ``live``: the stream server's address (by default
    the app's, which answers the stream's path 204: the phones poll). ``text``: the file's text
    as changed by the caller (:func:`conf_with_servers`), in place of ``conf``'s."""
    text = conf.read_text() if text is None else text
    for name, value in {"LISTEN": listen, "SERVER_NAME": server_name, "CERT": str(cert), "KEY": str(key),
                        "APP": app, "LIVE": live or app, "ACCESS_LOG": str(cert.parent / "nap.access.log"),
                        "STATIC": str(conf.parent.parent / "static")}.items():
        text = text.replace(f"@{name}@", value)
    assert "@" not in re.sub(r"#.*", "", text), "a placeholder of deploy/nginx.conf was left unfilled"
    return text


def _nginx_main(tmp: Path, site: Path) -> str:
    """The smallest main configuration around the site (what /etc/nginx/nginx.conf is on
    a server), with every file nginx writes inside ``tmp``."""
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers must reach tmp (0700)
    temp = "".join(f"    {kind}_temp_path {tmp / kind};\n" for kind in ("client_body", "proxy", "fastcgi"))
    return (f"{user}worker_processes 1;\nerror_log {tmp / 'error.log'} info;\n"
            f"{DEPLOY_MAIN_CONF.read_text()}"  # worker connections and open files, as documented
            f"http {{\n    access_log {tmp / 'access.log'};\n{temp}    include {site};\n}}\n")


@pytest.fixture
def app_behind_nginx(tmp_path: Path, sqlite_url: str) -> Iterator[tuple[int, Path, Any]]:
    """(nginx's HTTPS port, the CA file, the app): waitress on one loopback port, nginx
    with TLS on another, the app with CSRF on and one trusted proxy."""
    app = make_app(sqlite_url, WTF_CSRF_ENABLED=True, NAP_PROXY_HOPS=1)
    try:
        with behind_nginx(tmp_path, app) as (port, cert):
            yield port, cert, app
    finally:
        _dispose(app)


@contextlib.contextmanager
def behind_nginx(tmp_path: Path, app: Any, live: str | None = None,
                 others: tuple[Any, ...] = (), app_ports: list[int] | None = None) -> Iterator[tuple[int, Path]]:
    """(nginx's HTTPS port, the CA file): ``app`` served by waitress on a loopback port as
    ``nap serve`` does, nginx with TLS and deploy/nginx.conf in front of it (the live stream
    server at ``live``, by default the app, which answers its path 204). ``others``: more apps,
    each on a port of its own with a ``server`` line of its own in the upstream, as the
    processes of ``nap serve --worker-ports`` are listed (README, "Deploy"). ``app_ports``,
    if given, gets each app's port, in the upstream's order."""
    if not (os.path.isfile(NGINX) and os.access(NGINX, os.X_OK)):
        _unavailable(f"no nginx at {NGINX}")
    cert, key = certificate(tmp_path)
    servers = [create_server(each, host="127.0.0.1", port=0, **server_settings(each))  # as nap serve does
               for each in (app, *others)]
    ports = [server.effective_port for server in servers]  # type: ignore[union-attr]
    if app_ports is not None:
        app_ports.extend(ports)

    def run(server: Any) -> None:
        try:
            server.run()
        except OSError:  # the socket closed under waitress's loop at teardown
            pass

    threads = [threading.Thread(target=run, args=(server,), daemon=True) for server in servers]
    for thread in threads:
        thread.start()
    port = free_port()
    site = tmp_path / "nap.conf"
    text = conf_with_servers(DEPLOY_CONF.read_text(), ports[1:])
    site.write_text(render_deploy_conf(f"127.0.0.1:{port} ssl", PUBLIC_NAME, cert, key, f"127.0.0.1:{ports[0]}",
                                       live=live, text=text))
    main = tmp_path / "nginx.conf"
    main.write_text(_nginx_main(tmp_path, site))
    nginx = subprocess.Popen(
        [NGINX, "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c", str(main),
         "-g", f"daemon off; pid {tmp_path / 'nginx.pid'};"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        def proxying() -> bool:
            if nginx.poll() is not None:
                log = (tmp_path / "error.log").read_text() if (tmp_path / "error.log").exists() else ""
                pytest.fail(f"nginx stopped at once: {nginx.stdout.read().decode() if nginx.stdout else ''}{log}")
            return listening(port)

        wait_until(proxying, "nginx never listened", pause=0.1)
        yield port, cert
    finally:
        stop(nginx)
        for server in servers:
            server.close()
        for thread in threads:
            thread.join(timeout=5)


def conf_with_servers(text: str, ports: list[int]) -> str:
    """deploy/nginx.conf's text with a ``server`` line for each of ``ports`` after ``server @APP@;``,
    as an admin adds one per process of ``nap serve --worker-ports``."""
    assert text.count("server @APP@;") == 1
    return text.replace("server @APP@;", "server @APP@;" + "".join(f"\n    server 127.0.0.1:{p};" for p in ports))


class Phone:
    """A phone on the internet: HTTPS to nginx on loopback, asking for ``nap.test``,
    verifying the test's certificate, keeping its cookies."""

    def __init__(self, port: int, cafile: Path) -> None:
        self.port = port
        self.origin = f"https://{PUBLIC_NAME}:{port}"
        self.context = ssl.create_default_context(cafile=str(cafile))
        self.cookies: dict[str, str] = {}
        self.set_cookies: list[str] = []

    def request(self, method: str, path: str, form: dict[str, str] | None = None,
                referer: str | None = None, extra: dict[str, str] | None = None,
                ) -> tuple[int, http.client.HTTPMessage, str]:
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=30)
        headers = {"Host": f"{PUBLIC_NAME}:{self.port}", "Accept-Language": "en"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Referer"] = referer or self.origin + path
        headers.update(extra or {})
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            text = response.read().decode("utf-8")
        finally:
            conn.close()
        for raw in response.msg.get_all("Set-Cookie") or []:
            self.set_cookies.append(raw)
            name, _, rest = raw.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, response.msg, text

    def get(self, path: str, extra: dict[str, str] | None = None) -> tuple[int, http.client.HTTPMessage, str]:
        return self.request("GET", path, extra=extra)

    def session_cookie(self) -> str:
        return [c for c in self.set_cookies if c.startswith("__Host-session=")][-1]


def _hidden(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" type="hidden" value="([^"]*)"', html)
    assert found, f"no hidden field {name}"
    return found.group(1)


def test_a_phone_joins_and_scores_through_nginx_with_tls(app_behind_nginx: tuple[int, Path, Any],
                                                          qr_urls: list[str]) -> None:
    port, cafile, _app = app_behind_nginx
    origin = f"https://{PUBLIC_NAME}:{port}"
    host = Phone(port, cafile)

    # the host phone starts the evening (CSRF is on: token and Referer, over HTTPS)
    status, _, page = host.get("/new/pagat")
    assert status == 200
    form = {"csrf_token": _hidden(page, "csrf_token"), "players-0": "Ann", "players-1": "Bob", "players-2": "Cat",
            "players-3": "Dan", "first_dealer": "0", "scoring": "points", "opt_hands_per_dealer": "2"}
    status, headers, page = host.request("POST", "/new/pagat", form)
    assert status == 302, page
    key = (headers["Location"] or "").rstrip("/").rsplit("/", 1)[-1]
    assert "; Secure" in host.session_cookie() and "HttpOnly" in host.session_cookie()
    # __Host- names over HTTPS and HSTS once: the app's, which nginx passes on and does not repeat
    names = {c.split("=", 1)[0] for c in host.set_cookies}
    assert names == {"__Host-session", "__Host-nap_device"}
    assert all("; Secure" in c and "; Path=/" in c and "Domain" not in c for c in host.set_cookies)
    assert headers.get_all("Strict-Transport-Security") == ["max-age=31536000"]

    # the Share page's links and QR codes are the public https address nginx was asked for
    status, _, page = host.get(f"/e/{key}/share")
    assert status == 200
    view, edit = _share_links(page)
    assert view == f"{origin}/e/{key}"
    assert re.fullmatch(rf"{re.escape(origin)}/e/{key}/scorer/[^/]+", edit)
    assert "lan-note" not in page
    assert host.get(f"/e/{key}/qr.svg")[0] == 200 and host.get(f"/e/{key}/qr.svg?for=edit")[0] == 200
    assert qr_urls == [view, edit]

    # a second phone opens the scorers' link, records a hand by quick entry, sees the revision move
    phone = Phone(port, cafile)
    status, headers, _ = phone.get(urlsplit(edit).path)
    assert status == 302 and "; Secure" in phone.session_cookie()
    revision = int(re.search(r'"revision":\s*(\d+)', phone.get(f"/e/{key}/revision")[2]).group(1))  # type: ignore[union-attr]
    status, _, page = phone.get(f"/e/{key}/quick")
    assert status == 200
    form = {"csrf_token": _hidden(page, "csrf_token"), "token": _hidden(page, "token"),
            "number": _hidden(page, "number"), "declarer": "1", "contract": "three", "tricks": "3"}
    status, headers, page = phone.request("POST", f"/e/{key}/quick", form)
    assert status == 302, page
    status, _, body = phone.get(f"/e/{key}/revision")
    assert status == 200
    assert int(re.search(r'"revision":\s*(\d+)', body).group(1)) > revision  # type: ignore[union-attr]
    # and the viewer's own page through the proxy shows the hand
    status, _, page = host.get(f"/e/{key}")
    assert status == 200 and "Bob" in page


def test_forged_forwarded_headers_do_not_pass_nginx(app_behind_nginx: tuple[int, Path, Any]) -> None:
    """nginx passed a phone's own X-Forwarded-Prefix and -Port on to the app, which believed
    them: the scoresheet kept for every viewer then loaded its scripts from the visitor's host.
    deploy/nginx.conf now sets or clears every X-Forwarded-* header the app believes."""
    port, cafile, _app = app_behind_nginx
    origin = f"https://{PUBLIC_NAME}:{port}"
    host = Phone(port, cafile)
    status, _, page = host.get("/new/pagat")
    form = {"csrf_token": _hidden(page, "csrf_token"), "players-0": "Ann", "players-1": "Bob", "players-2": "Cat",
            "first_dealer": "0", "scoring": "points", "opt_hands_per_dealer": "2"}
    status, headers, page = host.request("POST", "/new/pagat", form)
    assert status == 302, page
    key = (headers["Location"] or "").rstrip("/").rsplit("/", 1)[-1]
    forged = {**POISON, "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http",
              "X-Forwarded-For": "203.0.113.9"}
    status, _, poisoned = Phone(port, cafile).get(f"/e/{key}", extra=forged)
    assert status == 200
    status, _, page = Phone(port, cafile).get(f"/e/{key}")
    assert status == 200 and "evil.example" not in page and re.search(r'src="/static/live\.[0-9a-f]{12}\.js', page)
    assert "evil.example" not in poisoned
    status, _, share = host.get(f"/e/{key}/share", extra=forged)
    assert status == 200 and _share_links(share)[0] == f"{origin}/e/{key}"


def test_an_evening_file_over_2_mb_passes_nginx_to_the_import_route_only(
        app_behind_nginx: tuple[int, Path, Any]) -> None:
    """Issue 23, item 7: deploy/nginx.conf's own block for the import routes lets a long
    evening's file (here 2,000 hands padded to 3 MiB) through; every other route keeps 2m."""
    from scorer.evening.file import dumps
    from tests.long_evenings import long_evening

    port, cafile, _app = app_behind_nginx
    evening = dumps(long_evening(2000)).encode()
    body = b'{"token": "nginx-long", "evening": ' + evening + b"}"
    body += b" " * (3 * 1024 * 1024 - len(body))

    def post(path: str) -> tuple[int, str]:
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=120,
                                           context=ssl.create_default_context(cafile=str(cafile)))
        try:
            conn.request("POST", path, body=body, headers={"Host": f"{PUBLIC_NAME}:{port}",
                                                           "Content-Type": "application/json"})
            response = conn.getresponse()
            return response.status, response.read().decode("utf-8", "replace")
        finally:
            conn.close()

    status, text = post("/api/evenings/import")
    assert status == 201, text[:300]
    assert post("/api/evenings")[0] == 413  # nginx's 2m for every other route


# -- where a write came from (scorer.web.origin; issue 21, item 9) ----------------------


def _post_without_referer(phone: Phone, path: str, form: dict[str, str],
                          headers: dict[str, str]) -> tuple[int, http.client.HTTPMessage, str]:
    """A form posted with the phone's cookies and only ``headers`` besides (no Referer)."""
    conn = http.client.HTTPSConnection("127.0.0.1", phone.port, context=phone.context, timeout=30)
    sent = {"Host": f"{PUBLIC_NAME}:{phone.port}", "Accept-Language": "en",
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": "; ".join(f"{k}={v}" for k, v in phone.cookies.items()), **headers}
    try:
        conn.request("POST", path, body=urlencode(form), headers=sent)
        response = conn.getresponse()
        return response.status, response.msg, response.read().decode("utf-8")
    finally:
        conn.close()


def test_a_form_without_referer_is_accepted_over_https_and_a_foreign_origin_is_not(
        app_behind_nginx: tuple[int, Path, Any]) -> None:
    """A browser that sends no Referer got "form has expired" for every form behind the
    proxy (Flask-WTF's strict Referer check over HTTPS)."""
    port, cafile, _app = app_behind_nginx
    phone = Phone(port, cafile)
    status, _, page = phone.get("/new/pagat")
    assert status == 200
    form = {"csrf_token": _hidden(page, "csrf_token"), "players-0": "Ann", "players-1": "Bob", "players-2": "Cat",
            "first_dealer": "0", "scoring": "points", "opt_hands_per_dealer": "2"}
    status, _, page = _post_without_referer(phone, "/new/pagat", form, {"Origin": "https://evil.example"})
    assert status == 400 and "sent from another site" in page
    status, _, page = _post_without_referer(phone, "/new/pagat", form, {"Sec-Fetch-Site": "cross-site"})
    assert status == 400 and "sent from another site" in page
    status, headers, page = _post_without_referer(phone, "/new/pagat", form, {})
    assert status == 302, page
    assert re.fullmatch(r"/e/[^/]+", urlsplit(headers["Location"] or "").path)
    status, headers, page = _post_without_referer(phone, "/new/pagat", form,
                                                  {"Origin": f"https://{PUBLIC_NAME}:{port}",
                                                   "Sec-Fetch-Site": "same-origin"})
    assert status == 302, page


# -- the access log never holds a scorers' link (issue 21, item 16) ---------------------


def test_the_access_log_masks_the_scorers_link(app_behind_nginx: tuple[int, Path, Any]) -> None:
    """The scorers' link is a write credential: nginx's combined log kept each one opened."""
    port, cafile, _app = app_behind_nginx
    host = Phone(port, cafile)
    status, _, page = host.get("/new/pagat")
    form = {"csrf_token": _hidden(page, "csrf_token"), "players-0": "Ann", "players-1": "Bob", "players-2": "Cat",
            "first_dealer": "0", "scoring": "points", "opt_hands_per_dealer": "2"}
    status, headers, page = host.request("POST", "/new/pagat", form)
    assert status == 302, page
    key = (headers["Location"] or "").rstrip("/").rsplit("/", 1)[-1]
    _, edit = _share_links(host.get(f"/e/{key}/share")[2])
    secret = edit.rsplit("/", 1)[-1]
    # the link as shared, and spelt otherwise: the app takes each of them
    for path in (f"/e/{key}/scorer/{secret}", f"/e/{key}/scorer/{secret}?x=1", f"/e/{key}/%73corer/{secret}",
                 f"//e/{key}//scorer/{secret}"):
        status, headers, _ = Phone(port, cafile).get(path, extra={"Referer": f"https://{PUBLIC_NAME}{path}"})
        assert status in (301, 302, 308), path
    # nginx writes a request's line after its answer has gone: the last one may come a moment later
    path, log, deadline = cafile.parent / "nap.access.log", "", time.monotonic() + 10
    while log.count(f" /e/{key}/scorer/[secret] HTTP/1.1") < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
        log = path.read_text()
    assert log.count(f" /e/{key}/scorer/[secret] HTTP/1.1") == 4
    assert log.count("[secret]") == 8  # and each one's Referer
    assert f'"GET /e/{key}/share HTTP/1.1" 200 ' in log and '"POST /new/pagat HTTP/1.1" 302 ' in log
    assert secret not in log


# -- per-address limits and short timeouts (issue 21, item 10) --------------------------


def test_the_documented_nginx_is_sized_for_a_club_night_and_limits_each_address() -> None:
    """768 worker connections (Debian's) fell to ~1,520 idle TLS connections from one address."""
    main = DEPLOY_MAIN_CONF.read_text()
    connections = int(re.search(r"^\s*worker_connections\s+(\d+);", main, re.M).group(1))  # type: ignore[union-attr]
    files = int(re.search(r"^worker_rlimit_nofile\s+(\d+);", main, re.M).group(1))  # type: ignore[union-attr]
    assert connections >= 1000 * 5 * 2 and files >= 2 * connections  # 1,000 tables of 5 phones, and the app side
    site = re.sub(r"#.*", "", DEPLOY_CONF.read_text())
    for directive in ("limit_req_zone $binary_remote_addr zone=nap_polls:10m rate=50r/s;",
                      "limit_req_zone $binary_remote_addr zone=nap_pages:10m rate=20r/s;",
                      "limit_req zone=nap_pages burst=80 nodelay;", "limit_req zone=nap_polls burst=100 nodelay;",
                      "limit_req zone=nap_static burst=600 nodelay;",
                      "limit_conn nap_addr 100;", "client_header_timeout 10s;", "client_body_timeout 10s;",
                      "send_timeout 10s;", "keepalive_timeout 15s;"):
        assert directive in site, directive


def _fetch(conn: http.client.HTTPSConnection, path: str) -> int:
    conn.request("GET", path, headers={"Host": PUBLIC_NAME})
    response = conn.getresponse()
    response.read()
    return response.status


def _https(port: int, cafile: Path, source: str = "127.0.0.1") -> http.client.HTTPSConnection:
    context = ssl.create_default_context(cafile=str(cafile))
    return http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=60, source_address=(source, 0))


def test_a_burst_from_one_address_is_refused_while_another_address_is_served(
        app_behind_nginx: tuple[int, Path, Any]) -> None:
    """No limit per address: one client's requests went on to the app as fast as it sent them."""
    port, cafile, _app = app_behind_nginx
    seen: list[int] = []
    stop_now = threading.Event()

    def burst() -> None:
        conn = _https(port, cafile)
        try:
            for _ in range(1000):  # far past the burst of 80: any box sends these faster than 20 a second
                if stop_now.is_set():
                    return
                status = _fetch(conn, "/healthz")
                seen.append(status)
                if status == 429:
                    stop_now.set()
        finally:
            conn.close()

    threads = [threading.Thread(target=burst) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert 429 in seen and seen.count(200) >= 80  # the burst passed, then the rate held it back
    other = _https(port, cafile, source="127.0.0.2")  # another address: its own allowance
    try:
        assert _fetch(other, "/healthz") == 200
    finally:
        other.close()
    again = _https(port, cafile)  # the live poll and static files have zones of their own
    try:
        assert _fetch(again, "/e/nosuchtable/revision") == 404
        assert _fetch(again, "/static/live.js") == 200
    finally:
        again.close()


def test_a_tables_phones_installing_at_once_behind_one_address_get_every_static_file(
        app_behind_nginx: tuple[int, Path, Any]) -> None:
    """Five phones behind one address (a pub's Wi-Fi) each fetch some 50 static files when the
    service worker installs: with static files in the pages' zone (burst 80) the installs
    failed with 429s (found by benchmarks/wire.py, whose phones hung)."""
    port, cafile, _app = app_behind_nginx
    names = sorted(p.name for p in (ROOT / "static").glob("*.js"))
    seen: list[int] = []

    def phone() -> None:
        conn = _https(port, cafile)
        try:
            for _ in range(3):
                for name in names:
                    seen.append(_fetch(conn, f"/static/{name}"))
        finally:
            conn.close()

    threads = [threading.Thread(target=phone) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) >= 5 * 50 and set(seen) == {200}, sorted(set(seen))


def test_a_silent_tls_connection_is_closed_soon(app_behind_nginx: tuple[int, Path, Any]) -> None:
    """A connection that never starts its TLS handshake held a worker connection for 60 s
    (nginx's default client_header_timeout): ~1,520 of them took nginx down."""
    import socket

    port, _cafile, _app = app_behind_nginx
    with socket.create_connection(("127.0.0.1", port), timeout=40) as silent:  # a hang guard past 10 s
        assert silent.recv(1) == b""  # nginx closed it (10 s); the old 60 s ran past the guard


# -- compression (issue 23, item 1) --------------------------------------------------


def _raw(port: int, cafile: Path, path: str, encoding: str, cookies: dict[str, str] | None = None,
         ) -> tuple[int, http.client.HTTPMessage, bytes]:
    """``GET path`` through nginx with ``Accept-Encoding: encoding``; the body as it came."""
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ssl.create_default_context(cafile=str(cafile)),
                                       timeout=30)
    headers = {"Host": f"{PUBLIC_NAME}:{port}", "Accept-Language": "en", "Accept-Encoding": encoding}
    if cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.msg, response.read()
    finally:
        conn.close()


def test_compression_through_nginx_is_done_once(app_behind_nginx: tuple[int, Path, Any]) -> None:
    """The app's own encoding passes nginx as it is (never compressed twice); what the app
    sends uncompressed nginx gzips (deploy/nginx.conf); the Share page neither (BREACH)."""
    import gzip

    import brotli

    port, cafile, _app = app_behind_nginx
    host = Phone(port, cafile)
    status, _, page = host.get("/new/pagat")
    form = {"csrf_token": _hidden(page, "csrf_token"), "players-0": "Ann", "players-1": "Bob", "players-2": "Cat",
            "first_dealer": "0", "scoring": "points", "opt_hands_per_dealer": "2"}
    status, headers, page = host.request("POST", "/new/pagat", form)
    key = (headers["Location"] or "").rstrip("/").rsplit("/", 1)[-1]
    status, headers, body = _raw(port, cafile, f"/e/{key}", "gzip, br")
    assert status == 200 and headers["Content-Encoding"] == "br"
    assert brotli.decompress(body).startswith(b"<!doctype html>")
    assert "Accept-Encoding" in headers["Vary"] and len(headers.get_all("Vary") or []) == 1
    # a file under its old name is streamed: the app sends it as it is to a gzip-only phone, nginx gzips it
    status, headers, body = _raw(port, cafile, "/static/app.css", "gzip")
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(body) == (ROOT / "static" / "app.css").read_bytes()
    status, headers, body = _raw(port, cafile, "/static/app.css", "identity")
    assert status == 200 and "Content-Encoding" not in headers and body == (ROOT / "static" / "app.css").read_bytes()
    status, headers, body = _raw(port, cafile, f"/e/{key}/share", "gzip, br", host.cookies)
    assert status == 200 and "Content-Encoding" not in headers and b"/scorer/" in body


def test_pyodide_is_sent_from_the_disk_gzipped_by_nginx(app_behind_nginx: tuple[int, Path, Any]) -> None:
    """deploy/nginx.conf sends Pyodide's files from the app's static folder with gzip_static: the
    copy scripts/setup compressed (NAME.gz), its type and Content-Encoding; the file as it is to a
    phone that takes no gzip (issue 24)."""
    import gzip

    folder = ROOT / "static" / "vendor" / "pyodide"
    if not (folder / "pyodide.asm.wasm.gz").is_file():
        pytest.skip("Pyodide's compressed copies are not there (./scripts/setup makes them)")
    port, cafile, _app = app_behind_nginx
    for name, kind in (("pyodide.asm.wasm", "application/wasm"), ("pyodide.asm.mjs", "text/javascript"),
                       ("python_stdlib.zip", "application/zip")):
        status, headers, body = _raw(port, cafile, f"/static/vendor/pyodide/{name}", "gzip, br")
        assert status == 200 and headers["Content-Encoding"] == "gzip", (name, dict(headers))
        assert headers["Content-Type"] == kind and "Accept-Encoding" in headers["Vary"]
        assert body == (folder / f"{name}.gz").read_bytes()
        assert gzip.decompress(body) == (folder / name).read_bytes()
    status, headers, body = _raw(port, cafile, "/static/vendor/pyodide/pyodide.mjs", "identity")
    assert status == 200 and "Content-Encoding" not in headers
    assert body == (folder / "pyodide.mjs").read_bytes()


def _https_stream(port: int, cafile: Path, key: str) -> tuple[http.client.HTTPSConnection, Any]:
    context = ssl.create_default_context(cafile=str(cafile))
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=30)
    conn.request("GET", f"/e/{key}/events", headers={"Host": f"{PUBLIC_NAME}:{port}", "Accept": "text/event-stream",
                                                     "Accept-Encoding": "gzip, br"})
    return conn, conn.getresponse()


def _next_event(response: Any) -> str:
    data = ""
    while True:
        line = response.fp.readline().decode()
        assert line, "the stream ended"
        if line == "\n" and data:
            return data
        if line.startswith("data: "):
            data = line[len("data: "):].strip()


def test_the_live_stream_goes_through_the_proxy_as_it_is_sent(tmp_path: Path, sqlite_url: str) -> None:
    """deploy/nginx.conf sends /e/<key>/events to the stream server, unbuffered and
    uncompressed: each revision reaches the phone when it is sent (issue 23 items 2, 3)."""
    from test_live_stream import StreamServer

    app = make_app(sqlite_url, NAP_PROXY_HOPS=1, NAP_LIVE_EVENTS=True)
    live = StreamServer(sqlite_url, hops=1)
    try:
        client = app.test_client()
        key = start_evening(client)
        with behind_nginx(tmp_path, app, live=f"127.0.0.1:{live.port}") as (port, cafile):
            conn, response = _https_stream(port, cafile, key)
            try:
                assert response.status == 200
                assert response.getheader("Content-Type") == "text/event-stream"
                assert response.getheader("Content-Encoding") is None  # never compressed
                assert _next_event(response) == '{"revision": 0}'
                assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
                assert _next_event(response) == '{"revision": 1}'  # not held in nginx's buffers
                # one stream, counted under the address nginx gives (X-Forwarded-For)
                assert list(live.hub.by_address) == ["127.0.0.1"] and live.hub.open == 1
            finally:
                conn.close()
            # a table nobody holds the link of: refused through the proxy too
            conn, response = _https_stream(port, cafile, "nosuchtable")
            assert response.status == 404
            conn.close()
    finally:
        live.close()
        _dispose(app)


def test_without_the_stream_server_the_path_is_204_through_the_proxy(
        app_behind_nginx: tuple[int, Path, Any], sqlite_url: str) -> None:
    """The stream's path reaches the app when no stream server is named (LIVE = the app):
    204, and EventSource stops (the page polls)."""
    port, cafile, _app = app_behind_nginx
    writer = make_app(sqlite_url)  # the same database, no CSRF: the table made by a form post
    try:
        key = start_evening(writer.test_client())
    finally:
        _dispose(writer)
    conn, response = _https_stream(port, cafile, key)
    assert response.status == 204
    conn.close()


def _named(name: str) -> Any:
    """An app process that answers every path with its own name (which process nginx chose)."""
    from flask import Flask

    app = Flask(name)
    app.config["NAP_PROXY_HOPS"] = 1

    @app.route("/", defaults={"path": ""}, methods=["GET", "POST"])
    @app.route("/<path:path>", methods=["GET", "POST"])
    def answer(path: str) -> str:
        return name

    return app


def test_the_documented_nginx_sends_each_table_to_one_process_and_spreads_the_tables(tmp_path: Path) -> None:
    """Issue 23 item 2: with one ``server`` line per process (``nap serve --worker-ports``), every
    request of a table (its pages, its JSON commands, with or without a query), of a club night
    and of a group reaches one process, whichever it asks; the tables are spread over both
    processes; a path of no table is answered too."""
    with behind_nginx(tmp_path, _named("one"), others=(_named("two"),)) as (port, cert):
        phone = Phone(port, cert)
        seen: dict[str, set[str]] = {}
        # 16 tables (within the pages' burst of 80): all of them on one process by chance is 3 in 100,000
        for i in range(16):
            key = f"table{i:02d}-{'x' * 14}"
            for path in (f"/e/{key}", f"/e/{key}/changes?since=3", f"/api/e/{key}/hands", f"/e/{key}/kept?last=4"):
                status, _, body = phone.request("GET", path)
                assert status == 200, (path, body)
                seen.setdefault(key, set()).add(body)
        assert all(len(names) == 1 for names in seen.values()), seen
        assert set().union(*seen.values()) == {"one", "two"}
        for scope in ("ev", "g"):
            answers = [phone.request("GET", f"/{scope}/night-{'y' * 16}{tail}") for tail in ("", "/room", "/x?y=1")]
            assert all(status == 200 for status, _, _ in answers)
            assert len({body for _, _, body in answers}) == 1 and answers[0][2] in ("one", "two")
        assert phone.request("GET", "/healthz")[::2] in ((200, "one"), (200, "two"))
