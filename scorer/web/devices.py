"""How a request's phone is recognised: the device cookie that carries its random id,
signed by the server, and a readable guess at what it is from its User-Agent.

The id is kept for 400 days (the most a browser keeps a cookie), so a browser restart
loses nothing. A phone seen for the first time is given a new id in the response
(:func:`set_device_cookie`, an ``after_request`` step); the database keeps only its hash
(:mod:`scorer.storage.roles`).

Only ids this server issued are accepted (issue 21 item 3, ASVS 5.0 7.2.3): the cookie's
value is the id signed with the app's secret key (itsdangerous' ``TimestampSigner``). A
well-formed id that is not signed, or whose signature is wrong, names no phone: a client
cannot plant an id of its choosing in another phone's browser. The one exception keeps
phones from before the signature logged in: an unsigned id whose device row exists is
accepted once and sent back signed. A phone that gains a role is given a new id
(:func:`scorer.web.access.rotate`, ASVS 7.2.4), so an id planted before cannot follow it.

Over HTTPS the cookie is named ``__Host-nap_device`` (Secure, ``Path=/``, no Domain: the
browser refuses it from a subdomain or over plain HTTP); over plain HTTP on the home
network, ``nap_device``. A phone that comes over HTTPS with the old name is moved to the
new one.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from flask import current_app, g, request
from itsdangerous import BadSignature, TimestampSigner
from ua_parser import parse

from ..storage import roles

#: The device cookie over plain HTTP: a signed random id, kept for 400 days (browsers
#: keep a cookie at most that long).
DEVICE_COOKIE = "nap_device"
#: Its name over HTTPS (``__Host-``: Secure, Path=/, no Domain).
SECURE_DEVICE_COOKIE = "__Host-nap_device"
DEVICE_COOKIE_AGE = 400 * 24 * 3600
TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")
#: itsdangerous' salt: a device cookie's signature is worth nothing as a session's.
SALT = "nap-device"


def cookie_name() -> str:
    """The device cookie's name for this request: ``__Host-nap_device`` over HTTPS."""
    return SECURE_DEVICE_COOKIE if request.is_secure else DEVICE_COOKIE


def _signer() -> TimestampSigner:
    return TimestampSigner(current_app.secret_key or "", salt=SALT)  # type: ignore[arg-type]


def sign(token: str) -> str:
    """The cookie value of the device id ``token``: ``token.timestamp.signature``."""
    return _signer().sign(token).decode()


def _sent() -> str:
    """The device cookie this phone sent: under this request's name, else the other one."""
    other = DEVICE_COOKIE if request.is_secure else SECURE_DEVICE_COOKIE
    return request.cookies.get(cookie_name()) or request.cookies.get(other) or ""


def _verified() -> str | None:
    """The id in the cookie this phone sent, if the server issued it (see the module's
    note); an unsigned id of an existing phone is accepted and marked to be re-sent signed."""
    raw = _sent()
    if not raw:
        return None
    try:
        token = _signer().unsign(raw, max_age=DEVICE_COOKIE_AGE).decode()
    except BadSignature:  # also SignatureExpired
        token = ""
    if token:
        return token if TOKEN.fullmatch(token) else None
    if TOKEN.fullmatch(raw) and roles.find_device(raw) is not None:
        g.nap_resign_device_token = raw  # a phone from before the signature: sent back signed
        return raw
    return None


def cookie_token() -> str | None:
    """The device id of this phone: the one it was just given in this response, else the
    one its cookie carries if the server issued it (``None`` for no cookie, a forged or an
    unknown unsigned one). Checked once per request."""
    if "nap_new_device_token" in g:
        return g.nap_new_device_token  # type: ignore[no-any-return]
    if "nap_cookie_token" not in g:
        g.nap_cookie_token = _verified()
    return g.nap_cookie_token  # type: ignore[no-any-return]


def give_token() -> str:
    """A new device id for this phone (sent with the response by :func:`set_device_cookie`)."""
    g.nap_new_device_token = secrets.token_urlsafe(24)
    return g.nap_new_device_token  # type: ignore[no-any-return]


def is_new() -> bool:
    """Whether this phone was given its id in this very response."""
    return "nap_new_device_token" in g


def set_device_cookie(response: Any) -> Any:
    """Send this phone's device cookie when it was given a new id, when its unsigned id is
    signed now, or when it moves to the ``__Host-`` name (an ``after_request`` step)."""
    token = g.get("nap_new_device_token") or g.get("nap_resign_device_token")
    name = cookie_name()
    if not token and request.is_secure and DEVICE_COOKIE in request.cookies and name not in request.cookies:
        token = cookie_token()  # moved to the ``__Host-`` name
    if token:
        secure = request.is_secure or bool(current_app.config.get("SESSION_COOKIE_SECURE"))
        response.set_cookie(name, sign(token), max_age=DEVICE_COOKIE_AGE, path="/", httponly=True, samesite="Lax",
                            secure=secure)
        if request.is_secure and DEVICE_COOKIE in request.cookies:
            response.delete_cookie(DEVICE_COOKIE, path="/", httponly=True, samesite="Lax", secure=True)
    return response


#: Browser families as ua-parser names them, as a person would (the rest as they are).
BROWSERS = {"Chrome Mobile": "Chrome", "Chrome Mobile WebView": "Chrome", "Chrome Mobile iOS": "Chrome",
            "HeadlessChrome": "Chrome", "Chromium": "Chrome", "Mobile Safari": "Safari",
            "Mobile Safari UI/WKWebView": "Safari", "Firefox Mobile": "Firefox", "Firefox iOS": "Firefox",
            "Edge Mobile": "Edge", "Samsung Internet": "Samsung", "Opera Mobile": "Opera"}
#: Systems as ua-parser names them, as a person would (the rest as they are).
SYSTEMS = {"Mac OS X": "Mac", "Chrome OS": "Chromebook", "Ubuntu": "Linux", "Fedora": "Linux"}
#: The most a guess may hold (the ``device.model`` column).
GUESS_MAX = 20


def guess_device(user_agent: str) -> str:
    """A short, readable name for a browser from its User-Agent string: the browser and the
    system, e.g. ``"Chrome, Android"``, ``"Safari, iPhone"``, ``"Firefox, Windows"`` (at
    most 20 characters; ``"a browser"`` when neither is known, ``"unknown device"`` for
    none). The string is read by ua-parser (its built-in rules), never by hand."""
    ua = (user_agent or "")[:1024]
    if not ua.strip():
        return "unknown device"
    parsed = parse(ua)
    browser = parsed.user_agent.family if parsed.user_agent else ""
    system = parsed.os.family if parsed.os else ""
    if system == "iOS" and parsed.device is not None and parsed.device.family in ("iPhone", "iPad"):
        system = parsed.device.family
    parts = [BROWSERS.get(browser, browser), SYSTEMS.get(system, system)]
    return ", ".join(part for part in parts if part and part != "Other")[:GUESS_MAX] or "a browser"
