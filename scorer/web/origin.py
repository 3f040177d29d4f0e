"""Where a write came from: every request that changes something (any method but GET,
HEAD, OPTIONS, TRACE) must come from a page of this site (issue 21, item 9).

Flask-WTF's check of a form posted over HTTPS wanted a ``Referer`` naming this site
(``WTF_CSRF_SSL_STRICT``): a browser that sends none (a privacy setting, an extension)
got "form has expired" for every form behind the documented proxy. This check replaces
it, and asks the browser's own headers in order, the first one present deciding:

1. ``Origin``: must be this site's origin (``scheme://host[:port]`` as the app sees the
   request, behind ``ProxyFix`` the proxy's public one; or that of ``PUBLIC_URL``).
   ``Origin: null`` (a sandboxed frame, a privacy redirect) is not this site.
2. ``Sec-Fetch-Site`` (Fetch Metadata): must be ``same-origin`` or ``none`` (typed by
   the user); ``same-site`` and ``cross-site`` are refused.
3. ``Referer``: must be a page of this site's origin.
4. none of them (an old browser, a script, the tests): the request passes on its CSRF
   token alone (forms) or on its JSON content type (``/api/``), as over plain HTTP before.

Refused: 400, "sent from another site" (the error page, or under ``/api/`` the JSON
error ``cross_site``). The forms' CSRF tokens are still required (:mod:`.extensions`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Flask, current_app, jsonify, render_template, request
from flask_babel import gettext

#: The methods that change nothing, never checked (as Flask-WTF's ``WTF_CSRF_METHODS``).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normal_origin(url: str) -> str | None:
    """``scheme://host:port`` of ``url`` in one spelling (lower case, the default port
    written out), or ``None`` when it names no origin (``null``, a relative URL, a bad port)."""
    try:
        parts = urlsplit(url.strip())
        scheme, host, port = parts.scheme.lower(), (parts.hostname or "").lower(), parts.port
    except ValueError:
        return None
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    return f"{scheme}://{host}:{port or _DEFAULT_PORTS[scheme]}"


def site_origins() -> set[str]:
    """This site's origins, normalised: the request's own (``request.host_url``, which the
    trusted proxy's ``X-Forwarded-Proto`` and ``-Host`` set) and ``PUBLIC_URL``'s."""
    origins = {normal_origin(request.host_url), normal_origin(current_app.config.get("PUBLIC_URL") or "")}
    origins.discard(None)
    return origins  # type: ignore[return-value]


def cross_site() -> bool:
    """Whether this request was sent by another site's page (the rules of the module)."""
    origins = site_origins()
    origin = request.headers.get("Origin")
    if origin is not None:
        return normal_origin(origin) not in origins
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return fetch_site.strip().lower() not in ("same-origin", "none")
    referer = request.headers.get("Referer")
    if referer is not None:
        return normal_origin(referer) not in origins
    return False


def refusal() -> Any:
    """The 400 answer to a request from another site (JSON under ``/api/``)."""
    message = gettext("This was sent from another site, not from a page of this app. "
                      "Open the app's own page and try again.")
    if request.path.startswith("/api/"):
        return jsonify(error={"code": "cross_site", "message": message}), 400
    return render_template("error.html", code=400, message=message), 400


def init_app(app: Flask) -> None:
    """Check every unsafe request's origin before any view (and before the CSRF token)."""
    app.config["WTF_CSRF_SSL_STRICT"] = False  # the Referer check this module replaces

    @app.before_request
    def same_origin_only() -> Any:
        if request.method in SAFE_METHODS or not cross_site():
            return None
        return refusal()
