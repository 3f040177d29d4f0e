"""Money after the night (issue 22 item 7): the payments page (each payment of a money
evening's settle-up, the hands it settles, paid or open), marking a payment paid or taking
the mark back (a scorer, or either party's phone by the player's own link), the result card
as a picture for a group chat and as text, and the JSON commands (``docs/api.md``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext, ngettext

from ...evening.ledger import Ledger
from ...reports.card import CardLine, result_card
from ...reports.words import day, money, money_change, tr
from ...rules import POOL
from ...storage import evenings, payments
from ...storage.commands import Saved, execute
from ...storage.models import Evening
from .. import access, json_body
from ..answers import form_answer, json_answer, sender
from ..json_body import BadBody
from ..lan import external_url
from ..payment_words import card_text, lines_of, standings
from ..payment_words import party as party_name
from ..permissions import permission
from ..table_forms import ActionForm
from .common import content_disposition, evening_or_404

bp = Blueprint("payments", __name__)
api = json_body.json_blueprint("api_payments", __name__)


def _load(key: str) -> tuple[Evening, Ledger, payments.Money | None]:
    evening = evening_or_404(key)
    ledger = evenings.ledger_of(evening)
    return evening, ledger, payments.money_of(evening.id, ledger, evenings.is_closed(evening, ledger))


def _allowed(evening: Evening) -> tuple[bool, int | None]:
    """(this phone is a scorer, its player's seat) at ``evening``."""
    return access.is_scorer(evening.key), access.party_seat(evening.key)


@bp.get("/e/<key>/payments")
@permission("view")
def page(key: str) -> Any:
    evening, ledger, money_ = _load(key)
    access.remember(key)
    scorer, party = _allowed(evening)
    links = []
    if scorer and money_ is not None:
        secret = _secret()
        links = [(name, external_url("payments.player_link", key=key, seat=s,
                                     sig=payments.party_sig(secret, evening, s)))
                 for s, name in enumerate(ledger.setup.players)]
    return render_template(
        "payments.html", action=ActionForm(), evening=evening, ledger=ledger, money=money_, scorer=scorer, party=party,
        lines=lines_of(ledger, money_) if money_ is not None else [], links=links,
        text=card_text(evening, ledger, money_) if money_ is not None else "",
        was_paid=[(m, party_name(ledger, m.payer), party_name(ledger, payments.payee_of(m.payee)),
                   money(ledger.setup.stake, m.amount)) for m in money_.was_paid] if money_ is not None else [])


def _secret() -> bytes:
    secret = current_app.secret_key
    return secret.encode() if isinstance(secret, str) else bytes(secret or b"")


@bp.get("/e/<key>/player/<int:seat>/<sig>")
@permission("view")
def player_link(key: str, seat: int, sig: str) -> Any:
    """A player's own link (from a scorer): this phone is that player's, and may mark the
    payments they pay or receive."""
    evening = evening_or_404(key)
    if not payments.sig_matches(_secret(), evening, seat, sig):
        abort(404)
    device = access.current_device(create=True)
    assert device is not None
    payments.grant_party(device.id, key, seat)
    flash(gettext("This phone is %(name)s's: it can mark the payments %(name)s pays or receives.",
                  name=tr(evening.players[seat].name)))
    return redirect(url_for(".page", key=key))


def _form_seat(name: str) -> int | str:
    raw = str(request.form.get(name, ""))[:8]
    if raw == "pool":
        return POOL
    if not raw.isdigit():
        abort(400)
    return int(raw)


@bp.post("/e/<key>/payments/mark")
@permission("pay")
def mark(key: str) -> Any:
    """Mark a payment paid, or (``paid=0``) take the mark back: a form on the payments page."""
    payer = _form_seat("payer")
    payee = _form_seat("payee")
    raw = str(request.form.get("amount", ""))[:15]
    if not isinstance(payer, int) or not raw.isdigit():
        abort(400)
    paid = request.form.get("paid", "1") != "0"
    outcome = execute(payments.MarkPaid(key, payer, payee, int(raw), paid), device=sender())
    return form_answer(outcome, to=url_for(".page", key=key),
                       saved=gettext("Marked paid.") if paid else gettext("The mark is taken back: not paid."))


@bp.get("/e/<key>/card.png")
@permission("view")
def card(key: str) -> Response:
    """The result card as a PNG picture (standings and settle-up)."""
    evening, ledger, money_ = _load(key)
    if money_ is None:
        abort(404)
    stake = ledger.setup.stake
    assert stake is not None
    ranked = [CardLine(name, money_change(stake, b), "gain" if b > 0 else "loss" if b < 0 else "")
              for name, b in standings(ledger, stake, money_)]
    lines = [CardLine(gettext("%(payer)s pays %(payee)s", payer=line.payer, payee=line.payee), line.amount,
                      "done" if line.transfer.mark else "") for line in lines_of(ledger, money_)]
    if not lines:
        lines = [CardLine(gettext("Nobody owes anything."))]
    hands = ngettext("%(num)s hand", "%(num)s hands", len(ledger.rows))
    png = result_card(evening.name, f"{day(evening.played_on)} · {hands}", gettext("Standings"), ranked,
                      gettext("Settle-up") if money_.closed else gettext("Settle-up if the evening ended now"),
                      lines, gettext("Nap scorer · a tick: marked paid"))
    response = Response(png, mimetype="image/png")
    response.headers["Content-Disposition"] = content_disposition("inline", evening.name, "png")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/e/<key>/card.txt")
@permission("view")
def card_txt(key: str) -> Response:
    """The result card as plain text (UTF-8)."""
    evening, ledger, money_ = _load(key)
    if money_ is None:
        abort(404)
    return Response(card_text(evening, ledger, money_) + "\n", mimetype="text/plain")


# --------------------------------------------------------------------------- JSON
def _json(evening: Evening, ledger: Ledger, money_: payments.Money) -> dict[str, Any]:
    names = ledger.setup.players

    def who(p: int | str) -> str:
        return names[p] if isinstance(p, int) else "pool"

    return {
        "revision": evening.revision, "closed": money_.closed, "currency": evening.currency,
        "transfers": [{"payer": who(line.transfer.payer), "payee": who(line.transfer.payee),
                       "amount": line.transfer.amount, "text": line.text,
                       "hands": [{"hand": p.hand, "amount": p.amount, "lost": p.lost}
                                 for p in line.transfer.explained.parts],
                       "paid": None if line.transfer.mark is None else {
                           "by": line.transfer.mark.marked_by,
                           "at": evenings.as_utc(line.transfer.mark.marked_at).isoformat()}}
                      for line in lines_of(ledger, money_)],
        "was_paid": [{"payer": who(m.payer), "payee": who(payments.payee_of(m.payee)), "amount": m.amount,
                      "by": m.marked_by, "at": evenings.as_utc(m.marked_at).isoformat()} for m in money_.was_paid],
        "open": len(money_.open),
    }


@api.get("/e/<key>/transfers")
@permission("view")
def transfers(key: str) -> Any:
    """The settle-up's payments, the hands each settles, and which are paid (amounts in the
    currency's smallest unit)."""
    evening, ledger, money_ = _load(key)
    if money_ is None:
        return jsonify(error={"code": "refused", "message": gettext(
            "This evening is not played for money: there is nothing to pay.")}), 422
    response = jsonify(_json(evening, ledger, money_))
    response.headers["Cache-Control"] = "no-store"
    return response


def _command(key: str, paid: bool) -> Any:
    body = json_body.body()
    evening = evening_or_404(key)
    names = [p.name for p in evening.players]

    def seat(field: str, pool: bool) -> int | str:
        value = body.get(field)
        if pool and value == "pool":
            return POOL
        if not isinstance(value, str) or value not in names:
            raise BadBody(gettext("%(field)s must be the name of a player of this table.", field=field))
        return names.index(value)

    payer, payee = seat("payer", False), seat("payee", True)
    amount = json_body.integer(body, "amount", 1, json_body.MAX_AMOUNT)
    outcome = execute(payments.MarkPaid(key, int(payer), payee, amount, paid), device=sender())

    def saved(_: Saved, status: int) -> Any:
        fresh, ledger, money_ = _load(key)
        assert money_ is not None
        return jsonify(_json(fresh, ledger, money_)), status

    return json_answer(key, outcome, saved, 201 if paid else 200)


@api.post("/e/<key>/transfers/paid")
@permission("pay")
def mark_paid(key: str) -> Any:
    """Mark a payment paid: ``{"payer": "Bob", "payee": "Ann" | "pool", "amount": 320}``."""
    return _command(key, True)


@api.post("/e/<key>/transfers/unpaid")
@permission("pay")
def mark_unpaid(key: str) -> Any:
    """Take a payment's mark back (undo; the mark stays in the history)."""
    return _command(key, False)
