"""This machine's address on the home network, for the phones at the table.

Found without sending anything: ``connect()`` on a UDP socket only picks the route and
the local address the kernel would use (``getsockname()``); no packet leaves the machine.
Falls back to ``127.0.0.1`` when there is no network.
"""

from __future__ import annotations

import ipaddress
import socket

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
