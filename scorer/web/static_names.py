"""Static files under content-hashed names (issue 23 item 1, "What a phone costs").

Every file under ``static/`` (but ``sw.js``, which is served at ``/sw.js``) is also
served as ``<stem>.<hash>.<ext>`` — ``app.css`` as ``app.3f2a1b9c0d4e.css`` — with
``Cache-Control: public, max-age=31536000, immutable``: a phone never asks again for a
file it has, not even to revalidate it. ``url_for('static', filename='app.css')`` builds
the hashed name (:func:`init_app`'s ``url_defaults``), so every page links the hashed
names; the old names keep working, ``no-cache`` as before, and so does a hashed name of
an older version (the file as it is now, ``no-cache``).

ES modules import each other by relative name (``import … from "./rules.js"``). A hashed
module is served with those imports rewritten to the hashed names of what they import
(decided over an import map: an inline ``<script type="importmap">`` would need its hash
in the Content-Security-Policy of every page, and each page would carry the whole map).
A module's hash is therefore the hash of its rewritten text: a change in ``rules.js``
gives ``rules.js`` a new name, and every module importing it a new name too. The old
names serve the files untouched (their imports are the old names).

The table of names is made again when a file under ``static/`` changes (size or change
time), looked at once per request.
"""

from __future__ import annotations

import hashlib
import mimetypes
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, g, request
from markupsafe import Markup

from . import compression, precompressed

#: what a hashed name's answer says: kept for a year, never revalidated
IMMUTABLE = "public, max-age=31536000, immutable"
#: ``<stem>.<12 hex>.<ext>``
HASHED = re.compile(r"(?P<stem>.+)\.[0-9a-f]{12}(?P<ext>\.[A-Za-z0-9]+)")
#: a static import or re-export of a module by relative name
_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*)(["'])(\./[^"'\s]+)\2""")
#: files never given a hashed name
_UNHASHED = {"sw.js"}
#: folders never given hashed names (nor hashed: Pyodide's runtime is 13 MB, read at every start):
#: the phone's engine files, put there by scripts/setup at a pinned version and kept by the
#: service worker under a cache named by that version
UNHASHED_DIRS = ("vendor/pyodide/",)


@dataclass
class Names:
    """The hashed name of each file under ``folder`` (``hashed``: ``"app.css"`` →
    ``"app.<hash>.css"``), the file each hashed name is (``original``), and the rewritten
    text of each hashed module (``bodies``, bytes)."""

    folder: Path
    stamp: tuple[Any, ...] = ()
    hashed: dict[str, str] = field(default_factory=dict)
    original: dict[str, str] = field(default_factory=dict)
    bodies: dict[str, bytes] = field(default_factory=dict)
    _encoded: dict[tuple[str, str | None], bytes] = field(default_factory=dict)

    def encoded(self, hashed: str, coding: str | None) -> bytes:
        """The text of ``hashed`` (a module's rewritten), compressed with ``coding``
        (None: as it is); compressed once and kept."""
        key = (hashed, coding)
        if key not in self._encoded:
            data = self.bodies.get(hashed)
            if data is None:
                data = (self.folder / self.original[hashed]).read_bytes()
            self._encoded[key] = compression.encode(data, coding) if coding else data
        return self._encoded[key]

    def build(self) -> Names:
        files = sorted(name for p in self.folder.rglob("*") if p.is_file() and "." in p.name
                       and not (name := p.relative_to(self.folder).as_posix()).startswith(UNHASHED_DIRS))
        known = set(files) - _UNHASHED
        for name in files:
            if name in known:
                self._hash(name, known, ())
        return self

    def _hash(self, name: str, known: set[str], stack: tuple[str, ...]) -> str:
        if name in self.hashed:
            return self.hashed[name]
        data = (self.folder / name).read_bytes()
        rewritten = False
        if name.endswith(".js") and b"./" in data:
            here = posixpath.dirname(name)

            def swap(match: re.Match[str]) -> str:
                nonlocal rewritten
                target = posixpath.normpath(posixpath.join(here, match.group(3)))
                if target not in known or target in stack or target == name:
                    return match.group(0)
                rewritten = True
                new = "./" + posixpath.basename(self._hash(target, known, (*stack, name)))
                return f"{match.group(1)}{match.group(2)}{new}{match.group(2)}"

            text = _IMPORT.sub(swap, data.decode("utf-8"))
            data = text.encode("utf-8")
        stem, ext = posixpath.splitext(name)
        new_name = f"{stem}.{hashlib.sha256(data).hexdigest()[:12]}{ext}"
        self.hashed[name] = new_name
        self.original[new_name] = name
        if rewritten:
            self.bodies[new_name] = data
        return new_name


def _stamp(folder: Path) -> tuple[Any, ...]:
    return tuple((str(p), st.st_size, st.st_mtime_ns) for p in sorted(folder.rglob("*"))
                 if p.is_file() and (st := p.stat()))


def names() -> Names:
    """The current app's :class:`Names`: made once per process; in debug or testing made
    again when a static file changed (looked at once per request there: the look costs
    ~0.5 ms, a poll's worth, so a served app does not pay it on every page and file)."""
    cached = g.get("nap_static_names")
    if cached is not None:
        return cached
    folder = Path(current_app.static_folder or "static")
    kept: Names | None = current_app.extensions.get("nap_static_names")
    if kept is not None and kept.folder == folder and not (current_app.debug or current_app.testing):
        g.nap_static_names = kept
        return kept
    stamp = _stamp(folder)
    if kept is None or kept.folder != folder or kept.stamp != stamp:
        kept = Names(folder, stamp).build()
        current_app.extensions["nap_static_names"] = kept
    g.nap_static_names = kept
    return kept


def hashed_url(name: str) -> str:
    """``/static/<hashed name of name>`` (the name itself when it has none): the service
    worker's shell and Workbox's files (scorer.web.views.offline)."""
    return "/static/" + names().hashed.get(name, name)


#: the most roots (``SCRIPT_NAME``) :func:`frame_head` keeps a head for (a served app has one)
HEADS_KEPT = 8


def frame_head() -> Markup:
    """templates/_frame_head.html, the frame's links to its stylesheet, icons and scripts: the
    same on every page of the app's root for one state of the static files (their hashed names,
    :func:`names`), so printed once for them, not with a dozen ``url_for`` on every page (the
    warm-up's six pages among them, issue 23 item 2); printed each time while templates are
    reloaded as they change (``TEMPLATES_AUTO_RELOAD``, debugging)."""
    env = current_app.jinja_env
    table, root = names(), request.script_root
    kept: dict[str, tuple[Names, Markup]] = current_app.extensions.setdefault("nap_frame_head", {})
    found = kept.get(root)
    if found is None or found[0] is not table or env.auto_reload:
        if len(kept) >= HEADS_KEPT:
            kept.clear()
        found = kept[root] = (table, Markup(env.get_template("_frame_head.html").render()))
    return found[1]


def serve_static(filename: str) -> Response:
    """The static view: a hashed name ``immutable`` (a module with its imports
    rewritten), any other name as Flask serves it (``no-cache``, revalidated); a hashed
    name of an older version: the file as it is now, ``no-cache``."""
    table = names()
    original = table.original.get(filename)
    if original is None:
        old = HASHED.fullmatch(filename)
        if old and (old.group("stem") + old.group("ext")) in table.hashed:
            filename = old.group("stem") + old.group("ext")
        packed = precompressed.answer(filename)  # Pyodide's files: their copy compressed at setup
        return packed if packed is not None else current_app.send_static_file(filename)
    mimetype = mimetypes.guess_type(original)[0] or "application/octet-stream"
    if not compression.compressible(mimetype):
        response = current_app.send_static_file(original)
        response.headers["Cache-Control"] = IMMUTABLE
        return response
    coding = compression.chosen(request.headers.get("Accept-Encoding", ""))
    data = table.encoded(filename, coding)
    response = Response(data, mimetype=mimetype)
    if coding:
        response.headers["Content-Encoding"] = coding
    response.vary.add("Accept-Encoding")
    response.set_etag(filename.rsplit(".", 2)[-2] + (f":{coding}" if coding else ""))
    response.headers["Cache-Control"] = IMMUTABLE
    return response.make_conditional(request)


def init_app(app: Flask) -> None:
    """Serve the static files under hashed names too, and build links to them."""
    app.view_functions["static"] = serve_static
    app.jinja_env.globals["frame_head"] = frame_head

    @app.url_defaults
    def _hashed(endpoint: str | None, values: dict[str, Any]) -> None:
        if endpoint == "static" and isinstance(values.get("filename"), str):
            values["filename"] = names().hashed.get(values["filename"], values["filename"])
