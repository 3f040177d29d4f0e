"""How a request's phone is recognised: the ``nap_device`` cookie that carries its random
id, and a readable guess at what it is from its User-Agent.

The id is kept for 400 days (the most a browser keeps a cookie), so a browser restart
loses nothing. A phone seen for the first time is given a new id in the response
(:func:`set_device_cookie`, an ``after_request`` step); the database keeps only its hash
(:mod:`scorer.storage.roles`).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from flask import current_app, g, request

#: The device cookie: a random id, kept for 400 days (browsers keep a cookie at most that long).
DEVICE_COOKIE = "nap_device"
DEVICE_COOKIE_AGE = 400 * 24 * 3600
TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")


def cookie_token() -> str | None:
    """The device id this phone sent (or was just given in this response), if well formed."""
    token = g.get("nap_new_device_token") or request.cookies.get(DEVICE_COOKIE, "")
    return token if TOKEN.fullmatch(token) else None


def give_token() -> str:
    """A new device id for this phone (sent with the response by :func:`set_device_cookie`)."""
    g.nap_new_device_token = secrets.token_urlsafe(24)
    return g.nap_new_device_token  # type: ignore[no-any-return]


def is_new() -> bool:
    """Whether this phone was given its id in this very response."""
    return "nap_new_device_token" in g


def set_device_cookie(response: Any) -> Any:
    """Give a phone seen for the first time its device cookie (an ``after_request`` step)."""
    token = g.get("nap_new_device_token")
    if token:
        response.set_cookie(DEVICE_COOKIE, token, max_age=DEVICE_COOKIE_AGE, httponly=True, samesite="Lax",
                            secure=request.is_secure or bool(current_app.config.get("SESSION_COOKIE_SECURE")))
    return response


def guess_device(user_agent: str) -> str:
    """A short, readable name for a browser from its User-Agent string."""
    ua = user_agent or ""
    for needle, name in (("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android phone"),
                         ("Windows", "Windows PC"), ("Macintosh", "Mac"), ("CrOS", "Chromebook"),
                         ("Linux", "Linux PC")):
        if needle in ua:
            return name
    return "a browser" if ua else "unknown device"
