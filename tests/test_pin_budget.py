"""PIN guessing is bounded per phone, per network and per table per day, and no single
watcher can close PIN entry for the table (issue 21 item 5, ASVS 5.0 6.1.1).

Before: anyone with the view link paused PIN entry for everyone with 30 wrong PINs
from fresh cookies, again every 15 minutes (and guessed 2880 PINs a day, 0.29 %)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from conftest import _dispose, make_app

from scorer.storage import pin_budget
from scorer.storage.models import Evening, PinAttempt, db
from webhelpers import start_evening


class Clock:
    """The budget's clock, moved by the test (no waiting)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 4, 20, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def wait(self, minutes: int) -> None:
        self.now += timedelta(minutes=minutes)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(pin_budget, "utcnow", fake)
    return fake


def _pin(app: Any, key: str) -> str:
    with app.app_context():
        return db.session.scalar(sa.select(Evening.pin).where(Evening.key == key)) or ""


def _join(app: Any, key: str, pin: str, address: str, phone: Any = None) -> tuple[int, str]:
    client = phone or app.test_client()  # a fresh client: a fresh cookie
    answer = client.post(f"/e/{key}/join", data={"pin": pin}, environ_overrides={"REMOTE_ADDR": address})
    return answer.status_code, answer.get_data(as_text=True)


def _wrong(pin: str) -> str:
    return "000000" if pin != "000000" else "111111"


WATCHER, HOME = "203.0.113.7", "198.51.100.4"


def test_a_watcher_with_fresh_cookies_never_closes_pin_entry_from_one_network(app: Any, clock: Clock) -> None:
    key = start_evening(app.test_client())
    pin = _pin(app, key)
    # 30 wrong PINs from fresh cookies paused the table for everyone; now the watcher's network
    # is stopped after 10 and the players at home are not
    answers = [_join(app, key, _wrong(pin), WATCHER) for _ in range(30)]
    assert [status for status, _ in answers] == [422] * 30
    assert sum("not this table" in page for _, page in answers) == pin_budget.NETWORK_TRIES == 10
    assert "Too many wrong PINs from this network. Try again in 15 min" in answers[10][1]
    assert _join(app, key, pin, HOME)[0] == 302
    # the watcher keeps going, 10 every 15 minutes: after 50 the table is guarded and it is refused
    for _ in range(4):
        clock.wait(16)
        checked = [_join(app, key, _wrong(pin), WATCHER)[1] for _ in range(12)]
        assert sum("not this table" in page for page in checked) == 10
    clock.wait(16)
    assert "PIN entry is closed here" in _join(app, key, _wrong(pin), WATCHER)[1]
    assert "PIN entry is closed here" in _join(app, key, pin, WATCHER)[1]  # not even the right one
    # a player at home mistypes once, then joins: other networks keep their tries
    assert "not this table" in _join(app, key, _wrong(pin), HOME)[1]
    assert _join(app, key, pin, HOME)[0] == 302
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(PinAttempt)) == 51


def _close(app: Any, key: str, pin: str, clock: Clock) -> int:
    """Close PIN entry at the table with as few networks as it takes; how many it took."""
    for _ in range(5):  # one network brings the table to 50 wrong PINs and can add no more
        for _ in range(10):
            _join(app, key, _wrong(pin), WATCHER)
        clock.wait(16)
    networks = 1
    while "PIN entry is closed here" not in _join(app, key, pin, f"192.0.2.{networks}")[1]:
        for _ in range(5):  # each new network: a fresh cookie per guess, as many as it is let
            _join(app, key, _wrong(pin), f"192.0.2.{networks}")
        networks += 1
    return networks


def test_closing_pin_entry_takes_eighteen_networks_and_a_new_pin_opens_it(app: Any, clock: Clock) -> None:
    owner = app.test_client()
    key = start_evening(owner)
    pin = _pin(app, key)
    assert _close(app, key, pin, clock) == pin_budget.networks_to_close() == 18  # the watcher's and 17 more
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(PinAttempt)) == pin_budget.TABLE_CAP == 100
    assert "PIN entry is closed here" in _join(app, key, pin, HOME)[1]  # closed for all, for the day
    assert owner.post(f"/e/{key}/credentials").status_code == 302  # the owner changes the PIN
    assert _join(app, key, _pin(app, key), HOME)[0] == 302


def test_the_day_rolls_on(app: Any, clock: Clock) -> None:
    key = start_evening(app.test_client())
    pin = _pin(app, key)
    _close(app, key, pin, clock)
    assert "PIN entry is closed here" in _join(app, key, pin, HOME)[1]  # 100 today
    clock.wait(24 * 60 + 1)
    assert _join(app, key, pin, HOME)[0] == 302
    with app.app_context():  # the day's old rows are gone: a table keeps at most the cap
        assert db.session.scalar(sa.select(sa.func.count()).select_from(PinAttempt)) == 0


def test_ipv6_phones_count_by_their_slash_64() -> None:
    assert pin_budget.network_of("2001:db8:1:2:aaaa:bbbb:cccc:1") == "2001:db8:1:2::/64"
    assert pin_budget.network_of("2001:db8:1:2::99") == "2001:db8:1:2::/64"
    assert pin_budget.network_of("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert pin_budget.network_of("::ffff:203.0.113.9") == "203.0.113.9"
    assert pin_budget.network_of("203.0.113.9") == "203.0.113.9"
    assert pin_budget.network_of(None) == ""


def test_behind_the_proxy_the_network_is_the_forwarded_client(sqlite_url: str, clock: Clock) -> None:
    app = make_app(sqlite_url, NAP_PROXY_HOPS=1)
    try:
        key = start_evening(app.test_client())
        pin = _pin(app, key)

        def join(pin: str, client_address: str) -> str:
            return app.test_client().post(f"/e/{key}/join", data={"pin": pin},
                                          headers={"X-Forwarded-For": client_address}).get_data(as_text=True)

        for _ in range(10):
            join(_wrong(pin), "2001:db8:5:5::1")
        assert "from this network" in join(_wrong(pin), "2001:db8:5:5:ffff::2")  # the same /64
        assert "not this table" in join(_wrong(pin), "2001:db8:5:6::1")  # another line
    finally:
        _dispose(app)


def test_the_odds_of_guessing_the_pin_in_a_day() -> None:
    assert pin_budget.PIN_SPACE == 10**6  # six digits
    before = pin_budget.daily_odds(30 * 96)  # 30 per table every 15 minutes
    after = pin_budget.daily_odds(pin_budget.TABLE_CAP)
    assert round(before * 100, 3) == 0.288 and round(after * 100, 3) == 0.010
