"""Compression in the app's own serving path (issue 23 item 1, "What a phone costs"):
HTML, SVG, CSS, JavaScript, JSON and the web manifest are sent brotli- or gzip-encoded to
a phone that asks for it (``Accept-Encoding``), identity otherwise, always with
``Vary: Accept-Encoding``. Dynamic answers go through Flask-Compress; the static files
under hashed names (:mod:`scorer.web.static_names`) are compressed once per file and
kept. deploy/nginx.conf compresses too, only what arrives uncompressed (nginx passes an
answer that already has a ``Content-Encoding`` as it is).

BREACH (a secret in a compressed answer that also reflects what an attacker typed) was
weighed, and only the Share page is left uncompressed:

- the CSRF token in a form is Flask-WTF's ``URLSafeTimedSerializer`` signature of the
  session's raw token: its timestamp and HMAC change every second, so what BREACH would
  need (the same secret in thousands of answers) is only its payload part, which is
  useless without ``SECRET_KEY`` (a token must carry a valid signature);
- the session and device cookies are ``SameSite=Lax`` (``__Host-`` over HTTPS): another
  site cannot make a phone fetch the app's pages with its cookies as sub-requests, which
  the attack needs in bulk;
- the Share page (``table.share``) shows the scorers' link, a long-lived secret, next to
  links built from the request: it is never compressed (it is opened rarely).
"""

from __future__ import annotations

import functools
import gzip
from typing import Any

from flask import Flask, Response, g, request
from flask_compress import Compress

#: what is worth compressing (the types the pages, charts, scripts and commands use)
MIMETYPES = ["text/html", "text/css", "text/javascript", "application/javascript", "application/json",
             "application/manifest+json", "image/svg+xml", "text/plain"]
#: endpoints never compressed (BREACH, above)
UNCOMPRESSED = {"table.share"}

compress = Compress()


def _brotli() -> Any | None:
    try:
        import brotli
    except ImportError:  # pragma: no cover - Flask-Compress installs it where it builds
        return None
    return brotli


def offered(accept_encoding: str) -> dict[str, float]:
    """The codings an ``Accept-Encoding`` header names, lower-case, each with its q (1.0 when
    not given, 0.0 when unreadable)."""
    found: dict[str, float] = {}
    for part in accept_encoding.lower().split(","):
        name, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name:
            found[name] = q
    return found


@functools.lru_cache(maxsize=64)
def chosen(accept_encoding: str) -> str | None:
    """``"br"``, ``"gzip"`` or None (identity) for an ``Accept-Encoding`` header: br when
    accepted (and installed), else gzip; a coding given ``q=0`` is refused. (Asked by every
    answer; the few headers browsers send are each read once.)"""
    codings = offered(accept_encoding)
    star = codings.get("*", 0.0)
    for coding in ("br", "gzip"):
        if coding == "br" and _brotli() is None:
            continue
        if codings.get(coding, star) > 0:
            return coding
    return None


def encode(data: bytes, coding: str) -> bytes:
    """``data`` compressed with ``coding`` (``"br"`` or ``"gzip"``), at the highest level
    (static files are compressed once)."""
    if coding == "br":
        brotli = _brotli()
        assert brotli is not None
        return brotli.compress(data, quality=11)
    return gzip.compress(data, compresslevel=9, mtime=0)


def compressible(mimetype: str | None) -> bool:
    return (mimetype or "") in MIMETYPES


class Kept:
    """An answer's body made once and answered again unchanged, with its compressed bodies by
    coding (``compressed``, filled as phones ask for them: :func:`keep_compressed`)."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.compressed: dict[str, bytes] = {}


def keep_compressed(kept: dict[str, bytes]) -> None:
    """This request's answer is one the view keeps and answers again unchanged (the service
    worker, a table's live changes): its compressed body is taken from ``kept`` (by coding),
    or compressed as usual and put there. The caller keeps ``kept`` with the body it compresses
    (never shared with another body). Flask-Compress does the rest as for any answer (its
    headers, ETag suffix, conditional answer): only the compression is saved."""
    g.nap_compressed = kept


class _Kept:
    """Flask-Compress's cache (``COMPRESS_CACHE_BACKEND``), which it asks for every answer it
    compresses: only an answer whose view called :func:`keep_compressed` is looked up or kept
    (in the view's own ``kept``); any other is compressed as if there were no cache."""

    def get(self, key: str) -> bytes | None:
        kept: dict[str, bytes] | None = g.get("nap_compressed")
        return None if kept is None else kept.get(key.partition(";")[0])

    def set(self, key: str, value: bytes) -> None:
        kept: dict[str, bytes] | None = g.get("nap_compressed")
        if kept is not None:
            kept[key.partition(";")[0]] = value


def init_app(app: Flask) -> None:
    """Compress the app's answers (Flask-Compress), the Share page aside; an answer a view
    keeps is compressed once per coding (:func:`keep_compressed`)."""
    app.config.setdefault("COMPRESS_MIMETYPES", MIMETYPES)
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"] if _brotli() else ["gzip"])
    # a streamed answer (a static file under its old name) is compressed only by brotli
    app.config.setdefault("COMPRESS_ALGORITHM_STREAMING", ["br"] if _brotli() else [])
    app.config.setdefault("COMPRESS_BR_LEVEL", 5)
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)
    app.config["COMPRESS_REGISTER"] = False
    app.config["COMPRESS_CACHE_BACKEND"] = _Kept
    app.config["COMPRESS_CACHE_KEY"] = lambda _request: ""  # the coding is the key ("br;"): see _Kept
    compress.init_app(app)

    @app.after_request
    def _compress(response: Response) -> Response:
        # (what the phone accepts is read here: Flask-Compress takes "br;q=0" for a yes)
        if request.endpoint in UNCOMPRESSED or chosen(request.headers.get("Accept-Encoding", "")) is None:
            response.vary.add("Accept-Encoding")
            return response
        return compress.after_request(response)
