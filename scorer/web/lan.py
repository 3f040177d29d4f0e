"""This machine's address on the home network, for the phones at the table, and the
links a phone shares with the others (:func:`external_url`, :func:`lan_host`).

Found without sending anything: ``connect()`` on a UDP socket only picks the route and
the local address the kernel would use (``getsockname()``); no packet leaves the machine.
Falls back to ``127.0.0.1`` when there is no network.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any
from urllib.parse import urlsplit

from flask import current_app, request, url_for

#: The names a phone may have used to open the app on this very machine; links built
#: from them would lead the other phones nowhere.
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "::", ""})  # noqa: S104

#: A private-range address used only to ask the kernel for a route (nothing is sent).
_PROBE = ("10.255.255.255", 1)


def lan_address() -> str:
    """This machine's LAN address (``192.168.1.23``), or ``127.0.0.1`` if it has none."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(_PROBE)  # UDP: no traffic, only the choice of the outgoing interface
            address = s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    try:
        if ipaddress.ip_address(address).is_unspecified:
            return "127.0.0.1"
    except ValueError:
        return "127.0.0.1"
    return address


def is_local_name(host: str) -> bool:
    """True for ``localhost``, ``127.0.0.1``, ``0.0.0.0`` and ``[::1]`` (no port)."""
    name = host.strip().lower().strip("[]")
    if name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def external_url(endpoint: str, **values: Any) -> str:
    """An absolute link for another phone (the Share page's links and QR codes).

    ``PUBLIC_URL`` if it is configured (``https://nap.example.org`` + the route's path);
    else the scheme, host and port the request came with (through ``NAP_PROXY_HOPS``
    proxies, what they forwarded), except that a phone that opened the app as
    ``localhost``, ``127.0.0.1`` or ``0.0.0.0`` gets this machine's LAN address instead
    (:func:`lan_host`), so the other phones at the table can open the link."""
    public = current_app.config.get("PUBLIC_URL")
    path = url_for(endpoint, **values)
    if public:
        root = request.script_root
        return public + (path[len(root):] if root and path.startswith(root) else path)
    host = lan_host()
    if host is not None:
        return f"{request.scheme}://{host}{path}"
    return url_for(endpoint, _external=True, **values)


def lan_host() -> str | None:
    """``192.168.1.23:5000`` when this request's host is a name only this machine
    understands (``localhost``, ``127.0.0.1``, ``0.0.0.0``, ``[::1]``) and the machine
    has a LAN address (same port); ``None`` otherwise, when ``PUBLIC_URL`` is set, or when
    the server listens on a loopback address only (it would not answer on the LAN one)."""
    if current_app.config.get("PUBLIC_URL") or current_app.config.get("LISTENING_LOCAL_ONLY"):
        return None
    parts = urlsplit("//" + request.host)
    try:
        hostname, port = parts.hostname or "", parts.port
    except ValueError:
        return None
    if not is_local_name(hostname):
        return None
    address = lan_address()
    if is_local_name(address):
        return None
    if ":" in address:
        address = f"[{address}]"
    return f"{address}:{port}" if port else address


def unreachable(link: str) -> str | None:
    """Why the other phones cannot open ``link`` (an :func:`external_url`), or ``None``
    when they can: ``"local-only"`` when this server listens on a loopback address only
    (``HOST=127.0.0.1``), ``"no-network"`` when the link names this machine for want of
    a network address. A configured ``PUBLIC_URL`` is always reachable (issue 25, item 6:
    the Share page offered such a link and QR code and said nothing)."""
    if current_app.config.get("PUBLIC_URL"):
        return None
    try:
        hostname = urlsplit(link).hostname or ""
    except ValueError:
        return None
    if not is_local_name(hostname):
        return None
    return "local-only" if current_app.config.get("LISTENING_LOCAL_ONLY") else "no-network"
