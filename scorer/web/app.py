"""The Flask application factory, in small named steps (cookiecutter-flask style)."""

from __future__ import annotations

import mimetypes
import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask, has_request_context, jsonify, render_template, request, session
from flask.sessions import SecureCookieSessionInterface
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from itsdangerous import BadSignature
from markupsafe import Markup
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from ..evening.ledger import HandError
from ..evening.limits import MAX_BODY, MAX_IMPORT_BODY, mebibytes
from ..rules.core import FSI, PDI, isolate
from ..storage.db import db, migrate
from ..storage.paths import instance_dir, resource_dir
from . import logs, origin, outage, quiet, slots
from .bodies import NapRequest
from .extensions import csrf

mimetypes.add_type("application/manifest+json", ".webmanifest")


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app. ``test_config`` overrides the configuration (tests).

    The database is ``DATABASE_URL`` if set, else SQLite at ``instance/nap.sqlite3``.
    ``SECRET_KEY`` comes from the environment or from ``instance/secret_key``, which
    is generated on first start and never committed.
    """
    app = Flask(
        __name__,
        instance_path=str(instance_dir()),
        template_folder=str(resource_dir("templates")),
        static_folder=str(resource_dir("static")),
    )
    app.request_class = NapRequest  # the import routes take a larger body (scorer.web.bodies)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    configure(app, test_config)
    register_live(app)  # inside ProxyFix: the poll's answer needs nothing the proxy says
    configure_proxy(app)
    slots.init_app(app)  # first of the hooks: a page over its address's slots costs nothing more
    register_extensions(app)
    logs.init_app(app)
    register_blueprints(app)
    register_errorhandlers(app)
    register_headers(app)
    register_commands(app)
    return app


def configure(app: Flask, test_config: dict[str, Any] | None) -> None:
    url = os.environ.get("DATABASE_URL") or f"sqlite:///{Path(app.instance_path) / 'nap.sqlite3'}"
    if url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgres://")
    elif url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    app.config.from_mapping(
        SQLALCHEMY_DATABASE_URI=url,
        MAX_CONTENT_LENGTH=MAX_BODY,  # a form or a JSON command (1 MiB)
        NAP_MAX_IMPORT_BODY=MAX_IMPORT_BODY,  # the import routes: an evening file (scorer.web.bodies)
        WTF_CSRF_TIME_LIMIT=None,  # a CSRF token must not expire in the middle of an evening
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        # off by default: phones at a table reach the app over plain HTTP on the home
        # network; NAP_SECURE_COOKIES=1 when it is served over HTTPS only
        # and a request that came over HTTPS (directly or, with NAP_PROXY_HOPS, through
        # the proxy) gets a Secure session cookie anyway: see SessionInterface below
        SESSION_COOKIE_SECURE=os.environ.get("NAP_SECURE_COOKIES") == "1",
        # how many reverse proxies in front of the app to believe (X-Forwarded-For, -Proto,
        # -Host; never -Port or -Prefix); 0: none, the headers are ignored (README, "Deploy")
        NAP_PROXY_HOPS=_hops(os.environ.get("NAP_PROXY_HOPS", "0")),
        # the address the world uses (https://nap.example.org): every absolute link and QR
        # code is built from it when set, whatever Host the request came with
        PUBLIC_URL=os.environ.get("PUBLIC_URL", "").strip().rstrip("/"),
        # pages open the live stream (GET /e/<key>/events, scorer.web.live_stream): set by
        # `nap serve` when it runs the stream server (behind a proxy, or --live-port);
        # otherwise pages poll and open no stream
        NAP_LIVE_EVENTS=os.environ.get("NAP_LIVE_EVENTS") == "1",
        # seconds a write waits for another's lock on SQLite before answering 503 (scorer.web.outage)
        SQLITE_BUSY_TIMEOUT=float(os.environ.get("NAP_SQLITE_BUSY_TIMEOUT") or outage.SQLITE_BUSY_TIMEOUT),
    )
    if test_config is None:
        app.config["SECRET_KEY"] = os.environ.get("SECRET_KEY") or _instance_secret(app)
    else:
        app.config.from_mapping(test_config)
    # page threads one client address may hold at once (scorer.web.slots; 0: no cap)
    app.config["NAP_PAGE_SLOTS"] = slots.configured_slots(app, test_config)
    # other pages in progress in a process past which the warm-up is put off (scorer.web.slots)
    app.config["NAP_WARM_BUSY"] = slots.configured_warm_busy(app, test_config)


def _hops(value: Any) -> int:
    """``NAP_PROXY_HOPS``: a number of proxies; ``off``, ``no``, ``false`` or empty is 0."""
    text = str(value).strip().lower()
    if text in ("", "off", "no", "false", "none"):
        return 0
    hops = int(text)
    if hops < 0:
        raise ValueError("NAP_PROXY_HOPS must be 0 or more")
    return hops


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session, whose cookie is Secure when the request came over
    HTTPS (``request.is_secure``: behind a proxy, as ``X-Forwarded-Proto`` says once
    ``NAP_PROXY_HOPS`` trusts it), or always with ``NAP_SECURE_COOKIES=1``.

    Over HTTPS its cookie is named ``__Host-session`` (Secure, ``Path=/``, no Domain, issue
    21 item 3); a session still under the old name is read once and moved to the new one."""

    def __init__(self) -> None:
        self._serializers: dict[tuple[Any, ...], Any] = {}

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(super().get_cookie_secure(app) or (has_request_context() and request.is_secure))

    def get_cookie_name(self, app: Flask) -> str:
        if has_request_context() and request.is_secure:
            return SECURE_SESSION_COOKIE
        return super().get_cookie_name(app)

    def get_cookie_path(self, app: Flask) -> str:
        return "/" if has_request_context() and request.is_secure else super().get_cookie_path(app)

    def get_cookie_domain(self, app: Flask) -> str | None:
        return None if has_request_context() and request.is_secure else super().get_cookie_domain(app)

    def get_signing_serializer(self, app: Flask) -> Any:
        """Flask's serializer of the session cookie, made once per secret key (and fallbacks)
        rather than for every request: making one serializes an empty session to tell text
        from bytes (itsdangerous), a tenth of what a request that reads no session costs."""
        if not app.secret_key:
            return None
        key = (app.secret_key, tuple(app.config["SECRET_KEY_FALLBACKS"] or ()))
        made = self._serializers.get(key)
        if made is None:
            made = self._serializers[key] = super().get_signing_serializer(app)
        return made

    def open_session(self, app: Flask, request: Any) -> Any:
        session = super().open_session(app, request)
        old = app.config["SESSION_COOKIE_NAME"]
        if (session is not None and request.is_secure and SECURE_SESSION_COOKIE not in request.cookies
                and old in request.cookies):
            serializer = self.get_signing_serializer(app)
            try:
                data = serializer.loads(request.cookies[old], max_age=int(app.permanent_session_lifetime
                                                                          .total_seconds()))
            except BadSignature:
                data = {}
            session = self.session_class(data)
            session.modified = bool(data)  # written again under the new name
        return session

    def save_session(self, app: Flask, session: Any, response: Any) -> None:
        if has_request_context():
            if quiet.unsaved():
                return
            quiet.settle(session)  # a warm-up or prefetch neither takes nor leaves a message
        super().save_session(app, session, response)
        old = app.config["SESSION_COOKIE_NAME"]
        if request.is_secure and old in request.cookies and old != SECURE_SESSION_COOKIE:
            response.delete_cookie(old, path=super().get_cookie_path(app), domain=super().get_cookie_domain(app),
                                   secure=True, httponly=True, samesite="Lax")


#: The session cookie's name over HTTPS.
SECURE_SESSION_COOKIE = "__Host-session"


def configure_proxy(app: Flask) -> None:
    """Believe ``NAP_PROXY_HOPS`` reverse proxies about what the documented one
    (``deploy/nginx.conf``) sets: the client's address, scheme and host (with its port) come
    from its ``X-Forwarded-For``, ``-Proto`` and ``-Host`` (werkzeug's ProxyFix).
    ``X-Forwarded-Port`` and ``-Prefix`` are never believed: a proxy that does not set them
    passes a phone's own on, and a prefix starts every link of a page kept for every viewer
    (``//evil.example/static/…``)."""
    app.session_interface = SessionInterface()
    hops = _hops(app.config.get("NAP_PROXY_HOPS", 0))
    app.config["NAP_PROXY_HOPS"] = hops
    app.config["PUBLIC_URL"] = str(app.config.get("PUBLIC_URL") or "").strip().rstrip("/")
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops,  # type: ignore[method-assign]
                                x_port=0, x_prefix=0)


def _instance_secret(app: Flask) -> str:
    path = Path(app.instance_path) / "secret_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(32))
    return path.read_text().strip()


def sqlite_file(url: str, instance_path: str) -> Path | None:
    """The file an SQLite URL names, as Flask-SQLAlchemy opens it: a relative path is in
    the instance folder, ``file:…?uri=true`` is a URI, any ``sqlite+…`` driver; ``None``
    for another database or an in-memory one (issue 21, item 16)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    name = parsed.database
    if parsed.query.get("uri"):
        name = name.removeprefix("file:").split("?", 1)[0]
        if name in ("", ":memory:") or "mode=memory" in parsed.database:
            return None
    return Path(os.path.abspath(os.path.join(instance_path, name)))


def _private_sqlite_file(url: str, instance_path: str) -> None:
    """Create the SQLite database file readable by its owner only (0600, like the secret
    key) before SQLite creates it with the umask's mode (0644), wherever ``DATABASE_URL``
    puts it; its WAL files take the same mode. A file that exists keeps its mode."""
    path = sqlite_file(url, instance_path)
    if path is None or path.exists() or not path.parent.is_dir():  # no folder: SQLite fails anyway
        return
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:  # another process made it meanwhile
        pass


def register_extensions(app: Flask) -> None:
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    _private_sqlite_file(url, app.instance_path)
    # what lets the app answer 503 while the database is away and recover after (scorer.web.outage)
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = outage.engine_options(
        url, app.config.get("SQLALCHEMY_ENGINE_OPTIONS"), float(app.config["SQLITE_BUSY_TIMEOUT"]))
    from . import compression, kept_parts, static_names

    compression.init_app(app)  # its after_request runs last: it compresses the finished answer
    static_names.init_app(app)
    kept_parts.init_app(app)
    db.init_app(app)
    migrate.init_app(app, db)
    origin.init_app(app)  # first: a write from another site is refused before its token is read
    csrf.init_app(app)
    from . import i18n

    i18n.init_app(app)
    quiet.init_app(app)


def register_hooks(app: Flask) -> None:
    """What runs around every view: the template helpers every page may use, the roles a
    phone's old session held, its device cookie, and each route's permission check."""
    from ..reports.presenters import book_title, call_label, citation, result_label, rule_source, seat_change_text
    from ..reports.words import signed
    from . import access
    from .devices import set_device_cookie
    from .form_fields import error_messages
    from .permissions import check_permission

    app.add_template_filter(call_label, "call_label")
    app.add_template_filter(bdi, "bdi")
    app.add_template_filter(isolate, "iso")  # FSI…PDI, for text a script places (textContent) and the PDF

    @app.context_processor
    def helpers() -> dict[str, Any]:
        return {"signed": signed, "citation": citation, "rule_source": rule_source, "result_label": result_label,
                "error_messages": error_messages,
                "is_scorer": access.is_scorer, "device_name": access.device_name, "book_title": book_title,
                "seat_change_text": seat_change_text}

    @app.before_request
    def adopt_old_session() -> None:
        """A phone whose session still holds roles from before they moved to the database."""
        if request.endpoint != "static" and any(k in session for k in OLD_SESSION_KEYS):
            access.adopt_session_roles()

    app.after_request(set_device_cookie)  # a phone seen for the first time gets its device cookie
    app.before_request(check_permission)


def bdi(name: str) -> Markup:
    """A player's name (or anything typed) isolated from the text around it (``<bdi>``), so
    that two right-to-left names in a list (Arabic, Hebrew) keep their order and their commas
    and the number beside a name stays on its side ("محمد −12", not "12− محمد"). FSI…PDI
    that :func:`scorer.rules.isolate` put around the name are taken off: ``<bdi>`` does their work."""
    text = str(name)
    if len(text) >= 2 and text[0] == FSI and text[-1] == PDI:
        name = text[1:-1]
    return Markup("<bdi>%s</bdi>") % name


#: What a phone's session held before roles moved to the database (migration 0011).
OLD_SESSION_KEYS = ("scorer_of", "seen", "pin_fails", "device", "device_tag")


def register_blueprints(app: Flask) -> None:
    from .views import (
        api,
        api_disputes,
        api_evenings,
        api_events,
        api_groups,
        api_referee,
        api_table,
        disputes,
        events,
        groups,
        hands,
        language,
        offline,
        owner,
        payments,
        play,
        referee,
        sheet,
        start,
        table,
        verify,
    )

    register_hooks(app)  # first, as the blueprint that held them was
    for module in (language, start, sheet, hands, play, table, owner, disputes, groups, payments, events, api,
                   api_disputes, api_table, api_groups, api_evenings, api_events, offline, verify, referee,
                   api_referee):
        app.register_blueprint(module.bp)
    app.register_blueprint(verify.api)
    app.register_blueprint(payments.api)


def _json_error(code: int, message: str) -> Any:
    """An error under ``/api/`` is answered in JSON (the JSON commands, ``docs/api.md``)."""
    names = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 409: "conflict", 413: "too_large",
             500: "server_error"}
    return jsonify(error={"code": names.get(code, "error"), "message": message}), code


def _is_api() -> bool:
    return request.path.startswith("/api/")


def register_errorhandlers(app: Flask) -> None:
    outage.init_app(app)  # the database away: 503 with Retry-After, logged once
    def render_error(error: HTTPException) -> Any:
        code = error.code or 500
        messages = {
            400: _("The request could not be understood."),
            403: _("Only the table's scorers can change the score. Enter the table's PIN to become one."),
            404: _("There is nothing here. Check the link, or start a new evening."),
            405: _("That action is not possible here."),
            413: _("That file is too large (at most %(size)s MB).",
                   size=mebibytes(request.max_content_length or MAX_BODY)),
        }
        if _is_api():
            return _json_error(code, messages.get(code, error.description or ""))
        return render_template("error.html", code=code, message=messages.get(code, error.description)), code

    for code in (400, 403, 404, 405, 413):
        app.register_error_handler(code, render_error)

    @app.errorhandler(500)
    def server_error(error: Exception) -> Any:
        message = _("Something went wrong on our side; nothing you entered was half-saved. Please try again.")
        if _is_api():
            return _json_error(500, message)
        return render_template("error.html", code=500, message=message), 500

    @app.errorhandler(HandError)
    def hand_error(error: HandError) -> Any:
        # a stored hand the rules refuse (it should not happen: every save is ruled first)
        from ..reports.words import error_text

        message = _("This evening holds a hand the rules refuse — %(error)s. Export it as JSON to repair it.",
                    error=error_text(error))
        if _is_api():
            return _json_error(409, message)
        return render_template("error.html", code=409, message=message), 409

    @app.errorhandler(CSRFError)
    def csrf_error(error: CSRFError) -> tuple[str, int]:
        message = _("This form has expired or was not sent by this app. Go back, reload the page and try again.")
        return render_template("error.html", code=400, message=message), 400


#: The headers every answer carries (unless a view set its own).
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    # same-origin: the Referer never leaves the site, so a table's link is not leaked to other
    # sites (scorer.web.origin reads it, when a browser sends it, to tell where a write came from)
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


#: The policy of the phone's engine worker (static/engine/, a worker takes its script's policy):
#: it compiles Pyodide's WebAssembly, which ``script-src 'self'`` alone forbids.
ENGINE_CSP = SECURITY_HEADERS["Content-Security-Policy"].replace("script-src 'self';",
                                                                 "script-src 'self' 'wasm-unsafe-eval';")


#: HTTP Strict Transport Security, sent by the app on every answer to a request that came
#: over HTTPS (issue 21 item 3): a year, this host only (no ``includeSubDomains``: the app
#: does not know what else runs under its domain). The proxy of ``deploy/nginx.conf`` adds
#: none of its own, so the header is sent once; it is never sent over plain HTTP (the home
#: network), where a browser would ignore it anyway.
HSTS = "max-age=31536000"


def register_headers(app: Flask) -> None:
    @app.after_request
    def security_headers(response):  # type: ignore[no-untyped-def]
        # each header added unless the view set its own (as headers.setdefault, whose look-up
        # of a header not there raises and catches a KeyError: the view has set none, mostly)
        headers = response.headers
        present = {name.lower() for name in headers.keys()}
        if request.path.startswith("/static/engine/") and "content-security-policy" not in present:
            headers.add("Content-Security-Policy", ENGINE_CSP)
            present.add("content-security-policy")
        for name, value in SECURITY_HEADERS.items():
            if name.lower() not in present:
                headers.add(name, value)
        if request.is_secure and "strict-transport-security" not in present:  # over HTTPS (or as the proxy says)
            headers.add("Strict-Transport-Security", HSTS)
        return response


def register_live(app: Flask) -> None:
    """The live poll's memory (:mod:`scorer.storage.live`): one :class:`~scorer.storage.live.Revisions` per
    app (``app.extensions["nap_revisions"]``), listening for changes on PostgreSQL unless
    ``NAP_LIVE_LISTEN`` is false (on ``NAP_LISTEN_URL`` if set, else on the app's database
    URL), with a heartbeat every ``NAP_LISTEN_HEARTBEAT`` seconds
    (config or environment; 0: none), and the shortcut that answers a poll from it before Flask."""
    from sqlalchemy.engine import make_url

    from ..storage import live

    url = make_url(app.config["SQLALCHEMY_DATABASE_URI"])
    dsn = live.listen_dsn(url) if app.config.get("NAP_LIVE_LISTEN", True) else None
    direct = app.config.get("NAP_LISTEN_URL") or os.environ.get("NAP_LISTEN_URL")
    if dsn is not None and direct:  # past a pooler in transaction mode, to PostgreSQL itself
        dsn = live.listen_dsn(make_url(direct))
    beat = app.config.get("NAP_LISTEN_HEARTBEAT", os.environ.get("NAP_LISTEN_HEARTBEAT", live.HEARTBEAT))
    revisions = live.Revisions(dsn, heartbeat=float(beat))
    app.extensions["nap_revisions"] = revisions
    # what the Flask route answers with (tests/test_poll.py compares the two)
    headers = [("Cache-Control", "no-store"), *SECURITY_HEADERS.items(),
               ("Vary", "Accept-Language, Cookie, Accept-Encoding")]
    app.wsgi_app = live.PollShortcut(app.wsgi_app, revisions, headers)  # type: ignore[method-assign]


def register_commands(app: Flask) -> None:
    from .demo import demo_command

    app.cli.add_command(demo_command)
