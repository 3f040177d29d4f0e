"""Quick entry's parts that are not the route (:func:`scorer.web.views.table.quick`):
the hand's facts from the taps, the Wellington and Blücher bidders, napoleao's dealer
who declares on all passes, and the page with its "Continue in the full form" link."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from flask import make_response, render_template, request, session, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_wtf.csrf import generate_csrf

from ..evening.lone_bid import lone_bid_auction
from ..reports.presenters import call_label
from ..reports.words import error_text
from ..rules import HandFacts, RulesError
from .caches import link_root, quick_cache
from .form_fields import is_number

#: Where a kept quick entry page (:data:`scorer.web.caches.quick_cache`) takes the phone's CSRF
#: token and its one-time token: neither is ever made by Flask-WTF nor by ``secrets`` (URL-safe
#: base64 has no ``.``), and both are plain text in an attribute (nothing to escape).
CSRF_SLOT = "nap.csrf.slot"
TOKEN_SLOT = "nap.token.slot"


def quick_facts(form: Any, ledger: Any, dealer: int, errors: list[str]) -> HandFacts | None:
    """The hand quick entry's taps describe, or ``None`` with ``errors`` filled."""
    setup, variant = ledger.setup, ledger.variant
    if "misdeal" in request.form:
        return HandFacts(dealer=dealer, misdeal=True)
    if "all_pass" in request.form:
        return HandFacts(dealer=dealer, auction=lone_bid_auction(ledger, (), dealer, None, None))
    declarer_raw = form.declarer.data or ""
    contract = form.contract.data or ""
    tricks = form.posted_tricks()
    if not is_number(declarer_raw) or not 0 <= int(declarer_raw) < setup.n:
        errors.append(_("Tap the player who won the auction."))
    if contract not in {bid.id for bid in variant.ladder(setup.options)}:
        errors.append(_("Tap the contract."))
    if variant.names_trump and not form.trump.data:
        errors.append(_("Tap the trump suit."))
    earlier = overcalled(form, variant, setup, contract, errors, speakers_before(ledger, dealer, declarer_raw))
    if tricks is None:
        errors.append(_("Tap the number of tricks the declarer won."))
    if errors:
        return None
    try:  # the table's own seats here (quick entry works on the players seated now)
        auction = lone_bid_auction(ledger, (), dealer, int(declarer_raw), contract, earlier)
    except RulesError as error:
        errors.append(error_text(error))
        return None
    return HandFacts(dealer=dealer, auction=auction, tricks=tricks,
                     trump=(form.trump.data or None) if variant.names_trump else None)


def speakers_before(ledger: Any, dealer: int, declarer_raw: str) -> list[int]:
    """The seats that speak before the tapped declarer (in the order of
    ``variant.speaking_order``, as the page's ``data-speaks``); empty when none was tapped
    or the auction goes by sequence (russian36)."""
    setup, variant = ledger.setup, ledger.variant
    if variant.sequence_auction or not is_number(declarer_raw):
        return []
    order = list(variant.speaking_order(setup, dealer))
    declarer = int(declarer_raw)
    return order[:order.index(declarer)] if declarer in order else []


def overcalled(form: Any, variant: Any, setup: Any, contract: str, errors: list[str],
               before: list[int] | None = None) -> dict[str, int]:
    """A Wellington or Blücher (P-7, H-7): the seats that bid Nap (and Wellington)
    before the declarer, as tapped; an error asks for any that is missing. When only one
    player speaks before the declarer (``before``, :func:`speakers_before`), an untapped
    bidder is that player: the one possible, filled in (issue 25, item 6), so the form
    shows it and saves without JavaScript; the engine still checks it."""
    earlier: dict[str, int] = {}
    asks = {"nap": (form.nap_by, _("Tap who bid Nap before.")),
            "wellington": (form.wellington_by, _("Tap who bid Wellington before."))}
    for bid in variant.overcalled(contract):
        field, ask = asks[bid]
        raw = field.data or ""
        if not raw and before is not None and len(before) == 1:
            raw = field.data = str(before[0])
        if is_number(raw) and 0 <= int(raw) < setup.n:
            earlier[bid] = int(raw)
        else:
            errors.append(ask)
    return earlier


def dealer_declares(form: Any, ledger: Any, dealer: int) -> bool:
    """napoleao (B-6): "Everyone passed" makes the dealer the declarer; the page asks
    for the dealer's bid with the dealer already tapped. ``True`` when that applies."""
    if "all_pass" not in request.form or not ledger.variant.dealer_declares_on_all_pass:
        return False
    form.declarer.data = str(dealer)
    form.contract.data = form.trump.data = None
    return True


def quick_page(evening: Any, ledger: Any, form: Any, number: int, dealer: int, status: int = 200,
               dealer_declares: bool = False) -> Any:
    """The quick entry page (``status`` 422 with the form's errors and the full form's link)."""
    setup, variant = ledger.setup, ledger.variant
    order = variant.speaking_order(setup, dealer) if not variant.sequence_auction else [dealer]
    overcalls = [bid.id for bid in variant.ladder(setup.options) if variant.overcalled(bid.id)]
    response = make_response(render_template(
        "quick.html", evening=evening, ledger=ledger, form=form, number=number, dealer=dealer,
        eldest=order[0], call_label=call_label, tricks=range(6), overcalls=overcalls,
        speaking=[order.index(seat) if seat in order else 0 for seat in range(setup.n)],
        dealer_declares=dealer_declares, full_form=full_form_link(evening, form) if status != 200 else None,
    ), status)
    # Back to this page fetches it again (a fresh token and hand number): the previous
    # hand's taps are never shown again, nor saved twice.
    response.headers["Cache-Control"] = "no-store"
    return response


def kept_page(evening: Any, ledger: Any, number: int, dealer: int, desk: str | None,
              form_for: Callable[[str], Any]) -> Any:
    """Quick entry's page for a GET: rendered once per revision of the table (its name, the
    language, the link root and this phone's referee's desk link: all it shows but its two
    tokens), kept in :data:`scorer.web.caches.quick_cache`, and answered with this phone's
    CSRF token and a new one-time token (``form_for(token)``: the page's form with that
    one-time token). The service worker's warm-up asks for the page after each hand and the
    scorer opens it a moment later: one render, not two (issue 23 item 2). A phone with a
    message waiting (shown on the page) or a query in its URL gets a page of its own."""
    key = (evening.key, evening.revision, evening.name, str(get_locale()), link_root(), desk)
    plain = "_flashes" not in session and not request.args  # (a page's messages are taken as it renders)
    page = quick_cache.get(key) if plain else None
    if page is None:
        form = form_for(TOKEN_SLOT)
        made = quick_page(evening, ledger, form, number, dealer).get_data(as_text=True)
        csrf = getattr(getattr(form, "csrf_token", None), "current_token", None)  # none when CSRF is off
        if made.count(TOKEN_SLOT) != 1 or (csrf and made.count(csrf) != 1):  # (never: the form holds each once)
            return quick_page(evening, ledger, form_for(secrets.token_urlsafe(16)), number, dealer)
        page = made.replace(csrf, CSRF_SLOT) if csrf else made
        if plain:
            quick_cache.put(key, page)
    page = page.replace(TOKEN_SLOT, secrets.token_urlsafe(16), 1)
    response = make_response(page.replace(CSRF_SLOT, generate_csrf(), 1) if CSRF_SLOT in page else page)
    response.headers["Cache-Control"] = "no-store"
    return response


def full_form_link(evening: Any, form: Any) -> str:
    """The full hand form filled in with what was tapped here (declarer, contract,
    trump, the Nap and Wellington bidders, tricks), for "Continue in the full form"."""
    tapped = {"declarer": form.declarer.data, "contract": form.contract.data, "trump": form.trump.data,
              "nap_by": form.nap_by.data, "wellington_by": form.wellington_by.data,
              "tricks": str(request.form.get("tricks", ""))[:2]}
    return url_for("hands.new_hand", key=evening.key, **{k: v for k, v in tapped.items() if v})
