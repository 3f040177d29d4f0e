"""Money after the night (issue 22 item 7): the settle-up's payments of a closed money
evening marked paid, and who may mark them.

- :class:`MarkPaid` marks a payment of the current settle-up paid, or (``paid`` false)
  takes a mark back. A mark is a :class:`~scorer.storage.models.PaidTransfer` row keyed by
  payer, payee and amount; taking it back sets its ``undone_at`` (the row stays), so the
  history keeps both and nothing is lost. Both go into the evening's history (kinds
  "paid" and "unpaid") and bump its revision (every phone's settle-up updates).
- Who: a scorer of the table, or the phone of either party (a phone that opened that
  player's own link, :func:`party_sig`, while the table's credentials are unchanged).
- Refused, with nothing changed: an evening not played for money, one not over yet, a
  payment that is not in the settle-up, marking a payment marked already (two phones at
  once: the evening's row lock and the partial unique index record it once), taking back
  a mark that is not there, a phone that is neither a scorer nor a party.
- A correction that changes the settle-up never touches a mark: a mark whose payment is no
  longer in the settle-up is listed as "was paid" (:attr:`Money.was_paid`) and can be taken
  back; a payment of the new settle-up with the same payer, payee and amount is paid.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass

import sqlalchemy as sa

from ..evening.ledger import Ledger
from ..evening.settle import SettleUp, settle_up
from ..evening.transfers import Explained, explain
from ..rules import POOL, Text
from .commands import Command, Device, Saved, handles
from .errors import NotAParty, ScorerError
from .evenings import is_closed, ledger_of
from .models import POOL_PAYEE, Change, Evening, PaidTransfer, TableAccess, db, utcnow
from .roles import access_row, holds_role
from .units import bump, writing


# --------------------------------------------------------------------------- parties
def party_sig(secret: bytes, evening: Evening, seat: int) -> str:
    """The signature in player ``seat``'s own link at ``evening``: 16 URL-safe characters of
    an HMAC-SHA256 under the app's secret key of the table's key, the seat, the scorers'
    key and the credentials' generation (new credentials make every player's link new)."""
    message = f"party:{evening.key}:{seat}:{evening.edit_key}:{evening.access_generation}".encode()
    return base64.urlsafe_b64encode(hmac.new(secret, message, hashlib.sha256).digest())[:16].decode()


def sig_matches(secret: bytes, evening: Evening, seat: int, sig: str) -> bool:
    """Constant-time check of a player's link."""
    return 0 <= seat < len(evening.players) and hmac.compare_digest(party_sig(secret, evening, seat).encode(),
                                                                    str(sig)[:64].encode())


def grant_party(device_id: int, key: str, seat: int) -> None:
    """Make the phone ``device_id`` player ``seat``'s phone at table ``key`` (its link was checked)."""
    from .models import Device as DeviceRow

    with writing():
        evening = db.session.scalar(sa.select(Evening).where(Evening.key == key))
        device = db.session.get(DeviceRow, device_id)
        if evening is None or device is None:
            return
        row = access_row(device, evening)
        row.party_seat, row.party_generation = seat, evening.access_generation


def roles_of(device_id: int | None, evening_id: int) -> tuple[bool, int | None]:
    """``(scorer, party seat)`` of the phone ``device_id`` at the evening (one query)."""
    if device_id is None:
        return False, None
    found = db.session.execute(
        sa.select(TableAccess, Evening.access_generation).join(Evening, TableAccess.evening_id == Evening.id)
        .where(TableAccess.evening_id == evening_id, TableAccess.device_id == device_id)).first()
    if found is None:
        return False, None
    row, generation = found
    party = row.party_seat if row.party_seat is not None and row.party_generation == generation else None
    return holds_role(row, generation), party


# --------------------------------------------------------------------------- reading
@dataclass(frozen=True)
class Transfer:
    """A payment of the settle-up (``payer``/``payee`` seats or :data:`~scorer.rules.POOL`,
    ``amount`` in minor units), the hands it settles (:func:`scorer.evening.transfers.explain`)
    and its mark, if it is marked paid."""

    explained: Explained
    mark: PaidTransfer | None

    @property
    def payer(self) -> int | str:
        return self.explained.payment.payer

    @property
    def payee(self) -> int | str:
        return self.explained.payment.payee

    @property
    def amount(self) -> int:
        return self.explained.payment.amount


@dataclass(frozen=True)
class Money:
    """A money evening's settle-up with its marks: ``transfers`` in the settle-up's order,
    ``was_paid`` the marks in force whose payment is no longer in it (a correction changed
    the settle-up), ``closed`` whether it is final (only then can payments be marked)."""

    settle: SettleUp
    transfers: tuple[Transfer, ...]
    was_paid: tuple[PaidTransfer, ...]
    closed: bool

    @property
    def open(self) -> tuple[Transfer, ...]:
        """The payments not marked paid."""
        return tuple(t for t in self.transfers if t.mark is None)


def payee_code(payee: int | str) -> int:
    """A payee as :class:`~scorer.storage.models.PaidTransfer` keeps it (the pool: -1)."""
    return POOL_PAYEE if payee == POOL else int(payee)


def payee_of(code: int) -> int | str:
    """The payee a kept code stands for."""
    return POOL if code == POOL_PAYEE else code


def marks_in_force(evening_ids: list[int]) -> dict[int, list[PaidTransfer]]:
    """The marks in force (not taken back) of these evenings, by evening, oldest first."""
    out: dict[int, list[PaidTransfer]] = {i: [] for i in evening_ids}
    if evening_ids:
        for mark in db.session.scalars(sa.select(PaidTransfer).where(
                PaidTransfer.evening_id.in_(evening_ids), PaidTransfer.undone_at.is_(None)).order_by(PaidTransfer.id)):
            out[mark.evening_id].append(mark)
    return out


def money_of(evening_id: int, ledger: Ledger, closed: bool, marks: list[PaidTransfer] | None = None) -> Money | None:
    """The evening's settle-up with its marks, or ``None`` when it is not played for money
    (or has no hand yet)."""
    if ledger.setup.stake is None or ledger.variant.points_only or not ledger.rows:
        return None
    settle = settle_up(ledger)
    marks = list(marks_in_force([evening_id])[evening_id] if marks is None else marks)
    by_key = {(m.payer, payee_of(m.payee), m.amount): m for m in marks}
    transfers = []
    for e in explain(ledger, settle):
        p = e.payment
        transfers.append(Transfer(e, by_key.pop((p.payer, p.payee, p.amount), None)))
    return Money(settle, tuple(transfers), tuple(by_key.values()), closed)


def open_in_group(group_id: int) -> list[tuple[Evening, Ledger, Money]]:
    """Every closed money evening of the group with a payment not marked paid, newest first,
    with its settle-up (the group's page lists the open payments)."""
    from .kept_ledgers import settled_many

    evenings = list(db.session.scalars(sa.select(Evening).where(
        Evening.group_id == group_id, Evening.stake_minor.is_not(None)).order_by(Evening.played_on.desc(),
                                                                             Evening.id.desc())))
    if not evenings:
        return []
    found = settled_many([e.key for e in evenings])
    marks = marks_in_force([e.id for e in evenings])
    out = []
    for evening in evenings:
        kept = found.get(evening.key)
        if kept is None or kept.error is not None:
            continue
        if not (evening.finished_at is not None or kept.ledger.end_reached):
            continue
        money = money_of(evening.id, kept.ledger, True, marks[evening.id])
        if money is not None and (money.open or money.was_paid):
            out.append((evening, kept.ledger, money))
    return out


# --------------------------------------------------------------------------- commands
@dataclass(frozen=True)
class MarkPaid(Command):
    """Mark the payment ``payer`` → ``payee`` of ``amount`` (seats, the payee
    :data:`~scorer.rules.POOL` for the pool; minor units) paid, or take the mark back
    (``paid`` false)."""

    key: str
    payer: int
    payee: int | str
    amount: int
    paid: bool = True
    collision = Text("That payment was marked paid on another phone a moment ago.")


@handles(MarkPaid)
def _mark(command: MarkPaid, evening: Evening, device: Device) -> Saved:
    ledger = ledger_of(evening)
    if evening.stake_minor is None or ledger.variant.points_only:
        raise ScorerError(Text("This evening is not played for money: there is nothing to pay."))
    if not is_closed(evening, ledger):
        raise ScorerError(Text("Payments are marked once the evening is over: finish it first."))
    scorer, party = roles_of(device.id, evening.id)
    if not scorer and party not in (command.payer, command.payee):
        raise NotAParty(Text("Only a scorer of the table, or the phone of the player who pays or is paid (their "
                             "own link), can mark this payment."))
    money = money_of(evening.id, ledger, True)
    assert money is not None
    key = (command.payer, command.payee, command.amount)
    mark = next((t.mark for t in money.transfers if (t.payer, t.payee, t.amount) == key), None) or next(
        (m for m in money.was_paid if (m.payer, payee_of(m.payee), m.amount) == key), None)
    names = ledger.setup.players
    who = {"payer": names[command.payer] if 0 <= command.payer < len(names) else "?",
           "payee": names[command.payee] if isinstance(command.payee, int) and 0 <= command.payee < len(names)
           else "", "pool": command.payee == POOL, "amount": command.amount, "currency": evening.currency}
    if command.paid:
        if not any((t.payer, t.payee, t.amount) == key for t in money.transfers):
            raise ScorerError(Text("There is no such payment in the settle-up (a correction may have changed it): "
                                   "reload the page."))
        if mark is not None:
            raise ScorerError(Text("That payment is already marked paid (by {who}).", who=mark.marked_by or "?"))
        db.session.add(PaidTransfer(evening_id=evening.id, payer=command.payer, payee=payee_code(command.payee),
                                    amount=command.amount, currency=evening.currency,
                                    marked_by=(device.name or "")[:40], undone_by=""))
        db.session.add(Change(evening_id=evening.id, kind="paid", device=(device.name or "")[:40], after=who))
    else:
        if mark is None:
            raise ScorerError(Text("That payment is not marked paid: there is nothing to take back."))
        mark.undone_at, mark.undone_by = utcnow(), (device.name or "")[:40]
        db.session.add(Change(evening_id=evening.id, kind="unpaid", device=(device.name or "")[:40], before=who))
    bump(evening)
    db.session.flush()  # two phones at once: the second mark collides on the partial unique index
    return Saved(evening.key)
