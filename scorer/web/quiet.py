"""Requests made for keeping a page, not for showing it ("quiet" requests, issue 25 item 5):
the service worker's warm-ups (``X-Nap-Warm: 1``, static/sw.js), the live part's fresh copy
(``X-Nap-Live: 1``, static/live.js) and a browser's prefetch or prerender (``Sec-Purpose``,
``Purpose`` or ``X-Moz``: ``prefetch``). Only GET and HEAD are ever quiet.

A quiet request neither takes nor leaves a message (Flask's flashes): the messages waiting
in the session are put aside before the view runs (so a page rendered for a cache shows
none, and :func:`scorer.web.views.sheet.scoresheet` serves the page every phone shares), and
the session is written back with exactly the messages it came with, whatever the view
flashed (the undo page of an evening with no hand flashes "There is no hand to undo." and
redirects). The session cookie is not sent at all unless something else in it changed (a
form's first CSRF secret, which the kept page's form needs).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, g, request, session

#: The header the service worker's and live.js's fetches carry, and its value.
WARM_HEADER = "X-Nap-Warm"
LIVE_HEADER = "X-Nap-Live"
#: Where browsers say a request is a prefetch or a prerender.
PREFETCH_HEADERS = ("Sec-Purpose", "Purpose", "X-Purpose", "X-Moz")

#: The WSGI environ's mark on a page made inside another request for its answer (the warm-up's
#: pages, :func:`scorer.web.views.offline.kept_pages`): only its body and a few headers are kept
#: (never its cookie), so its session is not written (:func:`unsaved`); the outer request's is.
INNER_PAGE = "nap.inner_page"

_FLASHES = "_flashes"
_NONE = object()


def _environ_key(name: str) -> str:
    """Where WSGI puts the request header ``name`` (as werkzeug's ``request.headers`` reads it)."""
    return "HTTP_" + name.upper().replace("-", "_")


_WARM_KEYS = (_environ_key(WARM_HEADER), _environ_key(LIVE_HEADER))
_PREFETCH_KEYS = tuple(_environ_key(name) for name in PREFETCH_HEADERS)


def is_quiet() -> bool:
    """Whether this request (GET or HEAD) was made to keep a page rather than show it.

    (Read from the WSGI environ, as ``request.headers`` would: every request asks, and
    most carry none of these headers, each of which ``request.headers.get`` looked for by
    raising and catching a KeyError.)"""
    if request.method not in ("GET", "HEAD"):
        return False
    environ = request.environ
    if any(environ.get(key) == "1" for key in _WARM_KEYS):
        return True
    for key in _PREFETCH_KEYS:
        value = environ.get(key)
        if value:
            value = value.lower()
            if "prefetch" in value or "prerender" in value:
                return True
    return False


def hold_messages() -> None:
    """Before a quiet request's view (a ``before_request`` step): the session as it came,
    and its waiting messages put aside."""
    if request.endpoint == "static" or not is_quiet():
        return
    g.nap_quiet_before = dict(session)
    g.nap_quiet_flashes = session.pop(_FLASHES, _NONE)


def settle(sess: Any) -> None:
    """Before a quiet request's session is saved: its messages as they came, and not
    written at all when nothing else changed (called by the app's session interface)."""
    if "nap_quiet_before" not in g:
        return
    held = g.pop("nap_quiet_flashes", _NONE)
    before = g.pop("nap_quiet_before")
    sess.pop(_FLASHES, None)
    if held is not _NONE:
        sess[_FLASHES] = held
    if dict(sess) == before:
        sess.modified = False


def unsaved() -> bool:
    """Whether this request's session is left unwritten: a page made inside another request
    (:data:`INNER_PAGE`), whose ``Set-Cookie`` nobody reads (writing it signed the session
    again for each of the warm-up's six pages)."""
    return request.environ.get(INNER_PAGE) is True


def init_app(app: Flask) -> None:
    """Hold a quiet request's messages before any other step reads the session."""
    app.before_request_funcs.setdefault(None, []).insert(0, hold_messages)
