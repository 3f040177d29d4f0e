"""Play anywhere: the service worker, served from the site's root so its scope is the
whole site (``/``). It keeps the scoresheet, quick entry and Big totals of the tables
this phone has open for when the network is gone (``static/sw.js``); the hands typed
meanwhile wait in the page's outbox (``static/outbox*.js``) and go out as JSON commands.

The worker's settings come from here, put before ``static/sw.js`` as ``self.NAP``, so
nothing in it is kept by hand: the **shell** (every static file the pages load: their
``<script>``, stylesheet and icons, found in the templates, and the modules those
scripts import), a **version** (a hash of the worker and of every file in the shell: a
changed file is a new worker, whose caches have new names; it deletes the old ones when
it takes over) and the **routes** of a table's pages it keeps, made from Flask's own
URL rules. Its **words** — what it answers a write the network did not take, "Not
saved" (issue 21, item 8) — are in the language the page registered it with
(``/sw.js?lang=<lang>``, ``static/register-sw.js``), else the phone's.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, current_app, g, jsonify, request, session
from flask.ctx import RequestContext
from flask_babel import force_locale, gettext
from flask_wtf.csrf import generate_csrf

from ...storage import units
from .. import access, compression, quiet
from ..engine_bundle import build_bundle
from ..i18n import LANGUAGES, select_locale
from ..permissions import permission
from ..slots import too_busy_for_background
from ..static_names import hashed_url

bp = Blueprint("offline", __name__)

#: a table's pages kept for offline use (the scoresheet first), and its chart
KEPT_PAGES = ("sheet.scoresheet", "table.quick", "table.big", "hands.new_hand", "table.confirm_undo", "hands.hand",
              "hands.edit_hand")
#: what a fresh scoresheet also fetches and keeps: the other pages, the last hand's two
WARMED = ("table.quick", "table.big", "hands.new_hand", "table.confirm_undo")
WARMED_LAST = ("hands.hand", "hands.edit_hand")
CHART = "sheet.chart"
#: Workbox's modules the worker uses, put in its answer before static/sw.js (one request
#: per update check, issue 23 item 1)
WORKBOX = ("workbox-core.prod.js", "workbox-routing.prod.js", "workbox-strategies.prod.js")
#: all of them in one answer (:func:`kept_pages`): one request per change of the table, not six
KEPT = "offline.kept_pages"
#: Retry-After of a warm-up put off (seconds): the worker asks once more after it (static/sw.js),
#: then at the table's next change
WARM_LATER = "10"
#: the headers a kept page is stored with (the page's own, as its route answered)
KEPT_HEADERS = ("Content-Type", "Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy",
                "X-Frame-Options", "Content-Language")

_STATIC_REF = re.compile(r"""url_for\(\s*['"]static['"]\s*,\s*filename\s*=\s*['"]([^'"]+)['"]""")
_IMPORT = re.compile(r"""^\s*import\s[^;]*?from\s+["']\./([^"']+)["']""", re.M)
_MANIFEST_SRC = re.compile(r'"src"\s*:\s*"/static/([^"]+)"')


#: the scripts only a scorer's scoresheet loads (the phone's engine, the Home Screen note): not in
#: the shell, which every phone installs, so that a viewer's phone downloads nothing for them
#: (issue 24, "what a viewer downloads: nothing"); a scorer's phone keeps them when its page
#: loads them (static/sw.js: a hashed name is kept cache-first), as it does their imports
SCORER_ONLY = ("phone.js", "ios-install.js")


def shell(static: Path, templates: Path) -> list[str]:
    """The static files the pages use, as paths under ``static``: each file a template
    names with ``url_for('static', …)`` (the PDF's own templates aside), the modules a
    script imports (``import … from "./x.js"``, followed through) and the icons of the
    web manifest; sorted. :data:`SCORER_ONLY` and what only they import are left out."""
    found: set[str] = set()
    for page in templates.rglob("*.html"):
        if "pdf" in page.relative_to(templates).parts:
            continue
        found.update(_STATIC_REF.findall(page.read_text(encoding="utf-8")))
    found -= set(SCORER_ONLY)
    todo = sorted(found)
    while todo:
        name = todo.pop()
        path = static / name
        if name.endswith(".js") and path.is_file():
            for imported in _IMPORT.findall(path.read_text(encoding="utf-8")):
                if imported not in found:
                    found.add(imported)
                    todo.append(imported)
        if name.endswith(".webmanifest") and path.is_file():
            found.update(_MANIFEST_SRC.findall(path.read_text(encoding="utf-8")))
    return sorted(name for name in found if (static / name).is_file())


def engine_versions(static: Path) -> dict[str, str]:
    """The names of the service worker's two caches of the phone's engine: ``pyodide`` (the
    pinned runtime under static/vendor/pyodide/, 13 MB, named by its loader's hash) and
    ``engine`` (the bundle, :func:`engine_zip`, and static/engine/, named by their hash); "none"
    without Pyodide."""
    loader = static / "vendor" / "pyodide" / "pyodide.mjs"
    if not loader.is_file():
        return {"pyodide": "none", "engine": "none"}
    digest = hashlib.sha256(engine_zip())
    for name in ("engine.mjs", "worker.js"):
        digest.update((static / "engine" / name).read_bytes())
    return {"pyodide": hashlib.sha256(loader.read_bytes()).hexdigest()[:12], "engine": digest.hexdigest()[:12]}


_bundle: list[bytes] = []


def engine_zip() -> bytes:
    """The engine bundle (:mod:`scorer.web.engine_bundle`) built from this process's source, once."""
    if not _bundle:
        _bundle.append(build_bundle())
    return _bundle[0]


@bp.get("/engine/nap-engine.zip")
@permission("public")
def engine_bundle() -> Response:
    """The phone's engine bundle (static/engine/worker.js fetches it), built from the source this
    server runs; 404 where Pyodide is not installed (no engine is served)."""
    static = Path(current_app.static_folder or "static")
    if not (static / "vendor" / "pyodide" / "pyodide.mjs").is_file():
        abort(404)
    response = Response(engine_zip(), mimetype="application/zip")
    response.headers["Cache-Control"] = "no-cache"
    response.add_etag()
    return response.make_conditional(request)


def _route(endpoint: str) -> str:
    """The JavaScript regular expression (source) for a URL rule of ``endpoint``: each
    ``<key>`` a named group ``key``, an ``<int:number>`` a named group ``number``."""
    rule = next(r for r in current_app.url_map.iter_rules() if r.endpoint == endpoint)
    out = ""
    for part in re.split(r"(<[^>]+>)", rule.rule):
        if part.startswith("<"):
            converter, _, name = part[1:-1].rpartition(":")
            out += rf"(?<{name}>\d+)" if converter == "int" else rf"(?<{name}>[A-Za-z0-9_-]+)"
        else:
            out += re.escape(part).replace("/", r"\/")
    return f"^{out}$"


def _template(endpoint: str) -> str:
    """The path of ``endpoint`` with ``{key}`` and ``{number}`` in place of its parts."""
    rule = next(r for r in current_app.url_map.iter_rules() if r.endpoint == endpoint)
    return re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)


def _stamp(*folders: Path) -> tuple[Any, ...]:
    """Each file's path, size and change time under ``folders``: the settings are made
    again only when one of them changes (looked at on every request for the worker, so
    walked with :func:`os.walk`, not :meth:`Path.rglob`: a third of the time)."""
    found = []
    for folder in folders:
        for root, _dirs, files in os.walk(folder):
            for name in files:
                path = os.path.join(root, name)
                try:
                    st = os.stat(path)
                except OSError:  # gone since it was listed
                    continue
                if stat.S_ISREG(st.st_mode):
                    found.append((path, st.st_size, st.st_mtime_ns))
    found.sort()
    return tuple(found)


_made: dict[str, Any] = {}


def settings() -> dict[str, Any]:
    """What ``static/sw.js`` reads from ``self.NAP``: version, shell, routes."""
    return dict(_settings())


def _settings() -> dict[str, Any]:
    """:func:`settings` as kept (not a copy: never changed), made again when a file under the
    static or template folder changed (:func:`_stamp`), another app asks or its folder moved."""
    static = Path(current_app.static_folder or "static")
    templates = Path(current_app.root_path, current_app.template_folder or "templates")
    stamp = _stamp(static, templates)
    if _made.get("stamp") == stamp and _made.get("app") == id(current_app) and _made.get("folder") == str(static):
        return _made["settings"]  # type: ignore[no-any-return]
    files = shell(static, templates)
    digest = hashlib.sha256()
    for name in ["sw.js", *files, *sorted(str(p.relative_to(static)) for p in (static / "vendor").rglob("*.js"))]:
        digest.update(name.encode() + b"\0" + (static / name).read_bytes() + b"\0")
    made = {
        "version": digest.hexdigest()[:16],
        # under their hashed names (scorer.web.static_names): kept for good, never revalidated
        "shell": [hashed_url(name) for name in files],
        "css": hashed_url("app.css"),
        "pages": [_route(e) for e in KEPT_PAGES],
        "chart": _route(CHART),
        "sheet": _template(KEPT_PAGES[0]),
        "warm": [_template(e) for e in WARMED],
        "warm_last": [_template(e) for e in WARMED_LAST],
        "kept": _template(KEPT),
        **engine_versions(static),
    }
    _made.update(stamp=stamp, app=id(current_app), settings=made, folder=str(static))
    return made


def words(lang: str | None) -> dict[str, str]:
    """What the worker says when a write (POST) found no network, in ``lang`` (a
    locale code, ``pt_BR`` or ``pt-BR``; any other: the phone's language,
    :func:`scorer.web.i18n.select_locale`): ``lang`` (the HTML ``lang`` of its page),
    ``json`` (the message of its 503 JSON answer), ``title``, ``page`` and ``back`` (its
    "Not saved" page for a form's post). Nothing was saved; nothing is kept."""
    code = (lang or "").replace("-", "_")
    if code not in LANGUAGES:
        code = select_locale()
    with force_locale(code):
        return {
            "lang": code.replace("_", "-"),
            "json": gettext("Not saved: there is no network, and this phone kept nothing. "
                            "Send it again once the network is back."),
            "title": gettext("Not saved"),
            "page": gettext("There is no network, and this phone could not keep what you sent: nothing was saved. "
                            "Go back to the form and send it again once the network is back."),
            "back": gettext("Back to the form"),
        }


@bp.get("/sw.js")
@permission("public")
def service_worker() -> Response:
    """``static/sw.js`` at the root with its settings before it (and its words, in the
    language of ``?lang=``), never cached by HTTP (a new version is picked up at once),
    allowed to control the whole site. Its body and ETag are made once per language and
    state of the static files in each process (:func:`_worker`), and compressed once per
    coding (:func:`scorer.web.compression.keep_compressed`)."""
    made = _worker(_settings(), language(request.args.get("lang")))
    response = Response(made.body, mimetype="text/javascript")
    response.headers["Service-Worker-Allowed"] = "/"
    response.headers["Cache-Control"] = "no-cache"
    # a conditional request for it (If-None-Match) is answered 304 when nothing changed
    response.set_etag(made.etag)
    compression.keep_compressed(made.compressed)
    return response.make_conditional(request)


class Made(compression.Kept):
    """The worker's answer made once and kept, with its ``etag`` (what :meth:`Response.add_etag`
    gives it)."""

    def __init__(self, body: bytes) -> None:
        super().__init__(body)
        self.etag = hashlib.sha1(body).hexdigest()


#: the worker's answers by language, for the settings they were made with (``"made"``)
_workers: dict[str, Any] = {}
_workers_lock = threading.Lock()


def language(lang: str | None) -> str:
    """The language :func:`words` speaks for ``?lang=lang``: ``lang`` if it is one of
    :data:`scorer.web.i18n.LANGUAGES` (``pt-BR`` is ``pt_BR``), else the phone's."""
    code = (lang or "").replace("-", "_")
    return code if code in LANGUAGES else select_locale()


def _worker(made: dict[str, Any], code: str) -> Made:
    """The worker's answer in language ``code`` with the settings ``made`` (those
    :func:`_settings` keeps: a new object when a file changed, which forgets every answer)."""
    with _workers_lock:
        if _workers.get("made") is not made:
            _workers.clear()
            _workers["made"] = made
        found: Made | None = _workers.get(code)
    if found is not None:
        return found
    static = Path(current_app.static_folder or "static")
    nap = {**made, "words": words(code)}
    workbox = "".join((static / "vendor" / "workbox" / name).read_text(encoding="utf-8") + "\n" for name in WORKBOX)
    body = f"self.NAP = {json.dumps(nap, indent=1)};\n" + workbox + (static / "sw.js").read_text(encoding="utf-8")
    found = Made(body.encode())
    with _workers_lock:
        if _workers.get("made") is made:
            _workers[code] = found
    return found


def _inner(path: str, cookie: str | None, known: dict[str, Any] | None = None,
           opened: dict[str, Any] | None = None) -> Response:
    """``GET path`` answered by the app for this very phone (its cookies, or ``cookie`` in
    their place; its address and scheme as the proxy told them; quiet as this request is),
    in an application context of its own; ``known``: what this request already found out
    about the phone (:func:`scorer.web.access.current_device`, ``is_scorer``), which the
    page's request would read again; ``opened``: the session the first page opened from the
    cookie, kept there (:func:`_opened`) for the next pages (the same cookie: the same
    session, each page given a copy of its own as it was opened, not read and checked again)."""
    environ = {k: v for k, v in request.environ.items() if k not in ("CONTENT_LENGTH", "CONTENT_TYPE", "wsgi.input")}
    environ.update(REQUEST_METHOD="GET", PATH_INFO=path, QUERY_STRING="", HTTP_ACCEPT="text/html")
    environ[quiet.INNER_PAGE] = True  # its session is not written: its cookie is not kept
    environ.pop("HTTP_ACCEPT_ENCODING", None)  # the pages as they are: the whole answer is compressed
    if cookie is not None:
        environ["HTTP_COOKIE"] = cookie
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    kept = opened.get("session") if opened is not None else None
    with app.app_context(), RequestContext(app, environ, session=kept() if kept else None) as page:
        if opened is not None and kept is None:
            opened["session"] = _opened(page.session)
        for name, value in (known or {}).items():
            setattr(g, name, dict(value) if isinstance(value, dict) else value)
        return app.full_dispatch_request()


def _opened(session: Any) -> Callable[[], Any]:
    """What makes a copy of ``session`` as it is now (just opened: neither read nor changed by
    its page), deep: a page's change to its session (a message flashed) is its own."""
    data, kind, modified = copy.deepcopy(dict(session)), type(session), session.modified

    def again() -> Any:
        made = kind(copy.deepcopy(data))
        made.modified = modified
        return made
    return again


def _with_form_secret() -> str | None:
    """The Cookie header the pages are made with when this phone's session had no form
    secret yet (Flask-WTF's): one made here, so that every kept page's form carries a token
    of the secret this answer's own cookie gives the phone; ``None`` when it had one."""
    if "csrf_token" in session:
        return None
    generate_csrf()
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    name = app.config["SESSION_COOKIE_NAME"]
    value = app.session_interface.get_signing_serializer(app).dumps(dict(session))  # type: ignore[attr-defined]
    others = [f"{k}={v}" for k, v in request.cookies.items() if k != name]
    return "; ".join([*others, f"{name}={value}"])


@bp.get("/e/<key>/kept")
@permission("view")
def kept_pages(key: str) -> Response:
    """The table's pages the service worker keeps for offline use (``WARMED``, and with
    ``?last=N`` hand N's page and correction form, ``WARMED_LAST``) in one answer instead
    of a request each (issue 23 item 1): ``{"pages": [{"path", "headers", "html"}]}``,
    only those answered 200 for this phone (a viewer gets no scorer's form). Each page is
    made by its own route with this request's cookies, so it is the page the phone would
    get; the answer is compressed whole (the pages share their frame).

    Put off when this process is busy (:func:`scorer.web.slots.too_busy_for_background`): 503
    ``{"later": true, "error": {"code": "busy", "message"}}`` with ``Retry-After``, nothing
    made; the worker keeps the copies it has and asks again at the table's next change or
    scoresheet (static/sw.js). No phone waits for a warm-up; every phone waits behind one
    (six pages, the app's longest request of a hand: issue 23 item 2)."""
    if too_busy_for_background():
        response = jsonify(later=True, error={"code": "busy", "message": "busy: the pages are kept later"})
        response.status_code = 503
        response.headers.update({"Retry-After": WARM_LATER, "Cache-Control": "no-store"})
        return response
    paths = [_template(e).replace("{key}", key) for e in WARMED]
    last = request.args.get("last", "")
    if last.isdigit() and 0 < int(last) < 10**6:
        paths += [_template(e).replace("{key}", key).replace("{number}", str(int(last))) for e in WARMED_LAST]
    cookie = _with_form_secret()
    pages = []
    # the same phone asks for each page: who it is and whether it scores here, read once (its
    # role first: with its row, in one query)
    scorer = access.is_scorer(key)
    known = {"nap_device": access.current_device(), "nap_scorer_of": {key: scorer},
             # the forms' token (Flask-WTF's, kept in g): signed once for the pages, not once each
             # (the same secret, this second: the token each page would sign)
             current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token"): generate_csrf()}
    opened: dict[str, Any] = {}
    with units.sharing_evening(key):  # read once for the six pages, not once each
        for path in paths:
            answer = _inner(path, cookie, known, opened)
            if answer.status_code == 200 and answer.mimetype == "text/html":
                pages.append({"path": path, "html": answer.get_data(as_text=True),
                              "headers": {h: answer.headers[h] for h in KEPT_HEADERS if h in answer.headers}})
    response = jsonify(pages=pages)
    response.headers["Cache-Control"] = "no-store"
    response.vary.add("Cookie")
    return response
