"""The club night's new-user check (t22-fixa): links for other phones carry the LAN address
(the referee's link, each player's payment link), the hand's page and the event's PDF name
the referee who upheld or rejected a claim (in all four languages), a referee's phone finds
its way back to the desk from the table's pages, and the referees' page leads back to the
event and says "Revoke Mary" as one piece of text."""

from __future__ import annotations

import re
from typing import Any

import pytest
import sqlalchemy as sa
from test_paid_transfers import NAMES, _money_evening
from test_referee import night, phone, post, referees_named

from scorer.reports.event_pdf import rulings_of
from scorer.storage import events, units
from scorer.storage.models import Event, db
from scorer.storage.referee_models import Referee
from scorer.web import lan

LAN = "192.168.1.23"
OPENED_AS = "http://localhost:5317"  # the organiser's own browser, on this very machine


@pytest.fixture
def on_a_home_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lan, "lan_address", lambda: LAN)


def test_the_referees_link_and_the_payment_links_carry_the_lan_address(app: Any, on_a_home_network: None) -> None:
    owner, owner_id = phone(app, "Owner")
    key, _tables = night(app, owner_id)
    named = referees_named(app, owner, key)
    with app.app_context():
        link_key = db.session.scalar(sa.select(Referee.link_key).where(Referee.name == "Mary"))
    expected = f"http://{LAN}:5317/ev/{key}/referee/{link_key}"
    page = owner.get(f"/ev/{key}/referees", base_url=OPENED_AS).get_data(as_text=True)
    assert re.findall(r'<a class="referee-link" href="([^"]+)">', page)[0] == expected
    assert "127.0.0.1" not in page and "localhost" not in page
    listed = owner.get(f"/api/ev/{key}/referees", base_url=OPENED_AS).get_json()["referees"]
    assert [r["link"] for r in listed if r["name"] == "Mary"] == [expected]
    assert named["Mary"]["link"] == f"http://{LAN}/ev/{key}/referee/{link_key}"  # named from localhost (no port)

    client = app.test_client()
    money_key = _money_evening(client)
    payments = client.get(f"/e/{money_key}/payments", base_url=OPENED_AS).get_data(as_text=True)
    links = re.findall(r'readonly value="([^"]+)"', payments)
    assert len(links) == 4
    for name, link in zip(NAMES, links, strict=True):
        assert link.startswith(f"http://{LAN}:5317/e/{money_key}/player/"), (name, link)
    # the link opens the player's phone as that party, from the LAN address
    bob = app.test_client()
    assert bob.get(links[1].split(f"{LAN}:5317", 1)[1]).status_code == 302


def _ruled_night(app: Any) -> tuple[Any, Any, str, list[str]]:
    """Table 1's hand 1: Dan claims Cat revoked (Mary upholds it from the desk) and Ann
    claims Bob revoked (Mary rejects it): Mary's and the owner's phones, the keys."""
    owner, owner_id = phone(app, "Owner")
    key, tables = night(app, owner_id)
    named = referees_named(app, owner, key)
    mary, _ = phone(app, "Mary's phone")
    assert post(mary, f"/api/ev/{key}/referee/join", {"pin": named["Mary"]["pin"]}).status_code == 200
    table = app.test_client()
    with app.app_context():
        hand_id = units.get_evening(tables[0]).hands[0].id  # type: ignore[union-attr]
    version = 1
    for i, (accused, by, upheld) in enumerate((("Cat", "Dan", True), ("Bob", "Ann", False))):
        made = post(
            table,
            f"/api/e/{tables[0]}/hands/{hand_id}/disputes",
            {"kind": "revoke", "accused": accused, "raised_by": by, "trick": 2, "token": f"d-{i}"},
        )
        assert made.status_code == 201, made.get_data(as_text=True)
        called = post(table, f"/api/e/{tables[0]}/referee", {"hand": 1, "token": f"c-{i}"})
        assert called.status_code == 201, called.get_data(as_text=True)
        ruled = post(
            mary,
            f"/api/ev/{key}/calls/{called.get_json()['call']['id']}/rule",
            {"dispute": made.get_json()["dispute"]["id"], "version": version, "upheld": upheld, "token": f"m-{i}"},
        )
        assert ruled.status_code == 201, ruled.get_data(as_text=True)
        version += 1
    return owner, mary, key, tables


@pytest.mark.parametrize(
    ("lang", "upheld", "rejected"),
    [
        ("en", "upheld by the referee <bdi>Mary</bdi>", "rejected by the referee <bdi>Mary</bdi>"),
        ("nb", "godtatt av dommeren <bdi>Mary</bdi>", "avvist av dommeren <bdi>Mary</bdi>"),
        ("ru", "принята судьёй <bdi>Mary</bdi>", "отклонена судьёй <bdi>Mary</bdi>"),
        ("pt-BR", "aceita pelo árbitro <bdi>Mary</bdi>", "rejeitada pelo árbitro <bdi>Mary</bdi>"),
    ],
)
def test_the_hand_names_the_referee_who_ruled_on_each_claim(app: Any, lang: str, upheld: str, rejected: str) -> None:
    owner, _mary, _key, tables = _ruled_night(app)
    page = owner.get(f"/e/{tables[0]}/hand/1", headers={"Accept-Language": lang}).get_data(as_text=True)
    claims = re.findall(r"<li>([^\n]*?)</li>", page.split('<ul class="claims">', 1)[1].split("</ul>", 1)[0])
    assert len(claims) == 2  # the newest ruling first: Bob's (rejected), then Cat's (upheld)
    assert claims[0].startswith("Bob") and claims[0].endswith(f"<bdi>Ann</bdi>: <strong>{rejected}</strong>.")
    assert claims[1].startswith("Cat") and claims[1].endswith(f"<bdi>Dan</bdi>: <strong>{upheld}</strong>.")
    assert "by the table" not in page


def test_the_event_pdf_says_whether_the_referee_upheld_or_rejected(app: Any) -> None:
    _owner, _mary, key, _tables = _ruled_night(app)
    with app.test_request_context("/"):
        event = db.session.scalar(sa.select(Event).where(Event.key == key))
        assert event is not None
        assert [(r.hand, r.outcome, r.referee, r.upheld) for r in rulings_of(event)] == [
            (1, "ruled", "Mary", True),
            (1, "ruled", "Mary", False),
        ]
        from scorer.reports.event_pdf import event_pdf_html

        html = " ".join(event_pdf_html(events.get_event(key)).split())  # type: ignore[arg-type]
    assert "Table 1: dispute on hand 1 · claim upheld by <bdi>Mary</bdi>" in html
    assert "Table 1: dispute on hand 1 · claim rejected by <bdi>Mary</bdi>" in html


def test_a_referee_finds_the_desk_from_the_tables_pages(app: Any) -> None:
    owner, mary, key, tables = _ruled_night(app)
    link = f'<a class="button small" id="referee-desk-back" href="/ev/{key}/calls">Referee’s desk</a>'
    for url in (f"/e/{tables[0]}", f"/e/{tables[0]}/hand/1", f"/e/{tables[1]}", f"/e/{tables[0]}/history"):
        assert mary.get(url).get_data(as_text=True).count(link) == 1, url
        assert 'id="referee-desk-back"' not in owner.get(url).get_data(as_text=True), url  # the owner: no referee
    assert 'id="referee-desk-back"' not in mary.get(f"/ev/{key}").get_data(as_text=True)  # not a table's page
    ru = mary.get(f"/e/{tables[0]}/hand/1", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert f'href="/ev/{key}/calls">Место судьи</a>' in ru
    # the service worker's warm-up (one request, the desk read once for its pages) keeps each page with its link
    for client, count in ((mary, 1), (owner, 0)):
        kept = client.get(f"/e/{tables[0]}/kept?last=1", headers={"X-Nap-Warm": "1"}).get_json()["pages"]
        assert [p["path"] for p in kept][-1] == f"/e/{tables[0]}/hand/1"
        for page in kept:
            assert page["html"].count(link) == count, page["path"]
            assert _hidden_blank(page["html"]) == _hidden_blank(client.get(page["path"]).get_data(as_text=True))
    # revoked, the phone is no referee: no link
    with app.app_context():
        mary_id = db.session.scalar(sa.select(Referee.id).where(Referee.name == "Mary"))
    assert post(owner, f"/api/ev/{key}/referees/{mary_id}/revoke", {}).status_code == 200
    assert 'id="referee-desk-back"' not in mary.get(f"/e/{tables[0]}/hand/1").get_data(as_text=True)


def test_the_referees_page_leads_back_and_keeps_revoke_and_the_name_apart(app: Any) -> None:
    owner, owner_id = phone(app, "Owner")
    key, _tables = night(app, owner_id)
    referees_named(app, owner, key)
    page = owner.get(f"/ev/{key}/referees").get_data(as_text=True)
    assert f'<a class="button small" id="event-link" href="/ev/{key}">Back to the club night</a>' in page
    # .button is a flex box: "Revoke " and <bdi>Mary</bdi> as two flex items lost the space between them
    assert '<button class="button" type="submit"><span>Revoke <bdi>Mary</bdi></span></button>' in page
    assert owner.get(f"/ev/{key}").status_code == 200


def _hidden_blank(html: str) -> str:
    """``html`` with the value of every hidden field blanked (one-time tokens, CSRF)."""
    return re.sub(r'(type="hidden"[^>]*?value=")[^"]*', r"\1", html)
