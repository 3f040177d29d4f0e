"""At a table on a home network: ``nap serve`` prints the address the other phones must
open (this machine's LAN address) with a QR code, and a phone that opened the app as
``localhost`` gets Share links and QR codes with the LAN address. The LAN address is
monkeypatched: no test depends on, or sends anything to, a real network."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
import segno

from scorer.cli import serve
from scorer.web import lan


def start_evening(client: Any, base_url: str) -> str:
    data = {"players-0": "Ann", "players-1": "Bob", "players-2": "Cat", "first_dealer": "0", "scoring": "points",
            "opt_hands_per_dealer": "2"}
    response = client.post("/new/pagat", data=data, base_url=base_url)
    assert response.status_code == 302
    return response.headers["Location"].rsplit("/", 1)[-1]

LAN = "192.168.1.23"
#: the real function, taken before conftest's autouse fixture replaces it in every test
REAL_LAN_ADDRESS = lan.lan_address


@pytest.fixture
def on_a_home_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lan, "lan_address", lambda: LAN)


def _links(html: str) -> list[str]:
    return re.findall(r'<p class="link"><code>([^<]+)</code></p>', html)


@pytest.mark.parametrize("opened_as", ["http://localhost:5000", "http://127.0.0.1:5000", "http://0.0.0.0:5000"])
def test_a_phone_on_localhost_shares_the_lan_address(client: Any, on_a_home_network: None, opened_as: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    key = start_evening(client, opened_as)
    page = client.get(f"/e/{key}/share", base_url=opened_as).get_data(as_text=True)
    view, edit = _links(page)
    assert view == f"http://{LAN}:5000/e/{key}" and edit.startswith(f"http://{LAN}:5000/e/{key}/scorer/")
    assert page.count('class="help lan-note"') == 1 and f"{LAN}:5000" in page
    assert "lan-warning" not in page  # the LAN address works: nothing to warn of
    made: list[str] = []
    real = segno.make
    monkeypatch.setattr(segno, "make", lambda url, *a, **k: made.append(url) or real(url, *a, **k))
    client.get(f"/e/{key}/qr.svg", base_url=opened_as)
    client.get(f"/e/{key}/qr.svg?for=edit", base_url=opened_as)
    assert made == [view, edit]


def test_a_phone_on_the_lan_address_keeps_it_and_sees_no_note(client: Any, on_a_home_network: None) -> None:
    key = start_evening(client, "http://192.168.1.23:5000")
    page = client.get(f"/e/{key}/share", base_url="http://192.168.1.23:5000").get_data(as_text=True)
    assert _links(page)[0] == f"http://{LAN}:5000/e/{key}" and "lan-note" not in page


def test_without_a_network_the_local_address_stays(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lan, "lan_address", lambda: "127.0.0.1")
    key = start_evening(client, "http://localhost:5000")
    page = client.get(f"/e/{key}/share", base_url="http://localhost:5000").get_data(as_text=True)
    assert _links(page)[0] == f"http://localhost:5000/e/{key}" and "lan-note" not in page
    assert "Other phones cannot open this link or code: this machine has no address on a network." in page


def test_nap_serve_prints_the_tables_address_and_its_qr_code(on_a_home_network: None) -> None:
    out = io.StringIO()
    url = serve.announce("0.0.0.0", 5000, out=out)  # noqa: S104
    text = out.getvalue()
    assert url == f"http://{LAN}:5000/" and f"open http://{LAN}:5000/" in text
    assert text.count("\n") > 15 and "█" in text  # the QR code, in text
    assert serve.table_url("0.0.0.0", 8080, public_url="https://nap.example.org/") == "https://nap.example.org/"  # noqa: S104
    out = io.StringIO()
    assert serve.announce("127.0.0.1", 5000, out=out) == "http://127.0.0.1:5000/"
    assert "Only this machine" in out.getvalue()


def test_the_lan_address_is_found_without_sending_anything(monkeypatch: pytest.MonkeyPatch) -> None:
    """connect() on a UDP socket sends no packet; sendto/send are never called."""
    calls: list[str] = []

    class Socket:
        def __init__(self, *args: Any) -> None:
            pass

        def __enter__(self) -> Socket:
            return self

        def __exit__(self, *args: Any) -> None:
            pass

        def connect(self, address: Any) -> None:
            calls.append("connect")

        def getsockname(self) -> tuple[str, int]:
            return ("10.0.0.7", 40000)

        def send(self, *args: Any) -> None:
            raise AssertionError("nothing may be sent")

        sendto = send

    monkeypatch.setattr(lan.socket, "socket", Socket)
    assert REAL_LAN_ADDRESS() == "10.0.0.7" and calls == ["connect"]

    class NoNetwork(Socket):
        def connect(self, address: Any) -> None:
            raise OSError("Network is unreachable")

    monkeypatch.setattr(lan.socket, "socket", NoNetwork)
    assert REAL_LAN_ADDRESS() == "127.0.0.1"
    assert lan.is_local_name("localhost") and lan.is_local_name("[::1]") and not lan.is_local_name(LAN)


def test_a_server_listening_on_loopback_only_never_offers_the_lan_address(app: Any, client: Any,
                                                                         on_a_home_network: None) -> None:
    """``HOST=127.0.0.1``: the server does not answer on the LAN address, so the Share page
    keeps the address the phone used (the terminal already says only this machine can open it)."""
    app.config["LISTENING_LOCAL_ONLY"] = True
    key = start_evening(client, "http://127.0.0.1:5000")
    page = client.get(f"/e/{key}/share", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    assert _links(page)[0] == f"http://127.0.0.1:5000/e/{key}" and "lan-note" not in page and LAN not in page
    # and says so, with the way out (issue 25, item 6: it offered the link and QR and said nothing)
    assert ("Other phones cannot open this link or code: this server listens on this machine only (127.0.0.1:5000). "
            "Start it with HOST=0.0.0.0 ./scripts/serve (or nap serve --host 0.0.0.0)") in page
