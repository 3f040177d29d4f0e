"""A hand: the full form for a new hand or a correction (the russian36 auction tapped
call by call), the hand's page with its ruling and versions, restoring an earlier
version, and the table's override of a ruling."""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

from flask import Blueprint, abort, flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext

from ...evening.codec import decode_hand, encode_hand
from ...evening.ledger import Ledger, table_ledger, to_evening, to_table
from ...reports.presenters import auction_of, call_label
from ...reports.words import error_text, tr
from ...rules import HERE, PASS, RULES, HandFacts, Override, RulesError, isolate
from ...rules.auction import AuctionState
from ...rules.sources import QUOTES, SOURCE_LANGUAGES
from ...storage import disputes, evenings, referee_rulings, tokens
from ...storage.commands import CorrectHand, OverrideRuling, RestoreVersion, SetHandNote, execute
from ...storage.models import Evening
from .. import access
from ..answers import form_answer, save_new_hand, sender
from ..form_fields import error_messages
from ..forms import HandFormBase, hand_form_for
from ..permissions import permission
from ..table_forms import DISPUTE_NAMES, ActionForm, override_form_for
from .common import event_of_table, load_evening, posted_hand_id, posted_int, row_of

bp = Blueprint("hands", __name__)


def _hand_page(evening: Evening, ledger: Ledger, form: Any, *, number: int, editing: bool, status: int = 200) -> Any:
    """The full form. A correction's page also carries the hand's facts as saved (by
    name, ``kept``): what the form does not show goes with an offline correction too."""
    setup = ledger.setup
    variant = ledger.variant
    try:
        dealer = int(form.dealer.data)
    except (TypeError, ValueError):
        dealer = ledger.next_dealer
    dealer = dealer if 0 <= dealer < setup.n else ledger.next_dealer
    order = variant.speaking_order(setup, dealer)
    context: dict[str, Any] = {"sequence": variant.sequence_auction}
    if editing:  # the rows' facts are in the evening's seats, not the seated table's (issue 12)
        context["kept"] = encode_hand(ledger.rows[number - 1].facts, tuple(p.name for p in evening.players))
    if variant.sequence_auction:
        try:
            auction: AuctionState | None = AuctionState(variant, setup, dealer, form.call_sequence())
        except (RulesError, TypeError, IndexError):  # a hand-made form: start the auction again
            auction = None
            form.calls.data = ""
        names = setup.players
        declarer_text = highest = ""
        if auction is not None and auction.over:
            declarer, contract = auction.outcome
            declarer_text = (gettext("%(declarer)s plays %(contract)s.", declarer=isolate(names[declarer]),
                                     contract=tr(contract.name)) if declarer is not None and contract
                             else gettext("Everyone passed."))
        held = auction.highest if auction is not None and not auction.over else None
        if held is not None:
            seat, call = held
            # «Здесь» holds the bid before it: say which
            bid = next((c for _, c in reversed(auction.said) if c not in (PASS, HERE)), None) if auction else None
            highest = (gettext("Highest so far: %(call)s (%(who)s)", call=call_label(call), who=isolate(names[seat]))
                       if call != HERE or bid is None
                       else gettext("Highest so far: %(call)s, held by %(who)s with «Здесь»", call=call_label(bid),
                                    who=isolate(names[seat])))
        context.update(said=[(names[seat], call) for seat, call in auction.said] if auction else [],
                       speaker=auction.speaker if auction else dealer, legal=list(auction.legal) if auction else [],
                       auction_over=auction is not None and auction.over, declarer_text=declarer_text, eldest=dealer,
                       highest=highest)
    else:
        context.update(call_fields=[getattr(form, f"call_{s}") for s in order], auction_over=True, eldest=order[0])
    response = make_response(render_template(
        "hand_form.html", evening=evening, ledger=ledger, form=form, number=number, editing=editing,
        dealer=dealer, order=order, call_label=call_label, options=setup.options, **context,
    ), status)
    # Back to this page fetches it again (a fresh token, hand number and dealer); with the
    # form's autocomplete="off" the browser never refills the previous hand's choices.
    response.headers["Cache-Control"] = "no-store"
    return response



def _form(ledger: Ledger, **values: Any) -> Any:
    """The full hand form for this table (its players, the variant's bids and claims),
    filled with ``values``."""
    variant = ledger.variant
    return hand_form_for(ledger.setup, variant.ladder(ledger.setup.options), variant.claim_rules, variant.pack_size,
                         **values)


def _tapped(ledger: Ledger) -> dict[str, str]:
    """What quick entry had tapped when it sent the table here ("Continue in the full
    form"): ``?declarer=&contract=&trump=&tricks=&nap_by=&wellington_by=`` as the full
    form's fields (each seat's call, the trump, the tricks). Anything that does not fit
    this table is left out, never refused: the form is only being filled in."""
    args, setup, variant = request.args, ledger.setup, ledger.variant
    if variant.sequence_auction:
        return _auction_draft(ledger)
    bids = {bid.id for bid in variant.ladder(setup.options)}
    seats = {str(seat) for seat in range(setup.n)}
    values: dict[str, str] = {}
    contract = str(args.get("contract", ""))
    for field, call in (("nap_by", "nap"), ("wellington_by", "wellington"), ("declarer", contract)):
        seat = str(args.get(field, ""))
        if seat in seats and call in bids:
            values[f"call_{seat}"] = call
    if str(args.get("trump", "")) in {"S", "H", "D", "C"}:
        values["trump"] = str(args["trump"])
    if str(args.get("tricks", "")) in {"0", "1", "2", "3", "4", "5"}:
        values["tricks"] = str(args["tricks"])
    return values


def _auction_draft(ledger: Ledger) -> dict[str, str]:
    """russian36: the auction so far, from ``?dealer=&calls=`` (the page's own address
    after each call, and the phone's kept draft, ``static/auction-draft.js``), so that a
    reload or coming back shows the same auction (R-4, R-5). Calls that do not make a
    legal auction for this dealer are dropped: the auction starts again."""
    args, setup = request.args, ledger.setup
    dealer = str(args.get("dealer", ""))[:3]
    if dealer not in {str(seat) for seat in range(setup.n)}:
        return {}
    calls = tuple(c[:20] for c in str(args.get("calls", ""))[:1200].split(",") if c)[:60]
    try:
        AuctionState(ledger.variant, setup, int(dealer), calls)
    except (RulesError, TypeError, IndexError):
        return {"dealer": dealer}
    return {"dealer": dealer, "calls": ",".join(calls), "calls_dealer": dealer if calls else ""}


def _disputed(evening: Evening, row: Any, hand_id: int) -> dict[str, str]:
    """"Rule on it" (``?dispute=<id>``): the correction form with the disputed claim
    filled in (kind, accused, who raised it, trick), when the hand has no claim yet;
    the scorer then chooses upheld or rejected and the referee rules (issue 12)."""
    raw = str(request.args.get("dispute", ""))[:9]
    found = disputes.open_disputes(evening).get(row.number, []) if raw.isdigit() else []
    wanted = next((d for d in found if d.id == int(raw) and d.hand_id == hand_id), None)
    if wanted is None or wanted.kind not in disputes.ACCUSING or row.facts.claims:
        return {"dispute": str(wanted.id)} if wanted is not None else {}
    return {"dispute": str(wanted.id), "claim_kind": wanted.kind, "claim_accused": str(wanted.accused),
            "claim_by": "" if wanted.raised_by is None else str(wanted.raised_by),
            "claim_trick": "" if wanted.trick is None else str(wanted.trick)}


def _dispute_ruled() -> int | None:
    """The dispute a correction made from "Rule on it" rules on (closed with it, in its unit of work)."""
    raw = str(request.form.get("dispute", ""))[:9]
    return int(raw) if raw.isdigit() else None


def _facts_from(form: Any, ledger: Ledger, kept: HandFacts | None = None) -> HandFacts:
    """The facts entered on the form (read through the codec). ``kept`` is the hand
    being corrected: what the form does not show — further claims (the form edits the
    first), the record of play and an override — is carried over unchanged."""
    facts = decode_hand(form.hand_data(ledger.variant.sequence_auction), ledger.setup.n)
    if kept is None:
        return facts
    if facts.misdeal:
        return dataclasses.replace(facts, override=kept.override)
    return dataclasses.replace(facts, claims=facts.claims + kept.claims[1:], override=kept.override,
                               record=kept.record)


def _auction_step(evening: Evening, ledger: Ledger, form: Any, *, number: int, editing: bool) -> Any | None:
    """russian36: one more call (or one call undone) in the auction being built; nothing
    is saved. ``None`` when the request is not an auction step."""
    if not ledger.variant.sequence_auction or form.save.data or form.misdeal.data:
        return None
    variant, setup, dealer = ledger.variant, ledger.setup, int(form.dealer.data)
    seq = form.call_sequence()
    try:
        if "undo_call" in request.form:
            auction = AuctionState(variant, setup, dealer, seq[:-1])  # only the calls that are left are checked
        elif request.form.get("call"):
            auction = AuctionState(variant, setup, dealer, seq).add(str(request.form["call"])[:20])
        else:
            return None
    except RulesError as error:
        form.form_errors.append(error_text(error))
        return _hand_page(evening, ledger, form, number=number, editing=editing, status=422)
    form.calls.data = ",".join(auction.calls)
    form.calls_dealer.data = form.dealer.data if auction.calls else ""
    return _hand_page(evening, ledger, form, number=number, editing=editing)



@bp.route("/e/<key>/hand", methods=["GET", "POST"])
@permission("score")
def new_hand(key: str) -> Any:
    evening, full = load_evening(key)
    ledger = table_ledger(full)  # the players seated now, seats 0… among them (issue 12)
    number = len(ledger.rows) + 1
    if request.method == "GET" and evenings.is_closed(evening, full):  # a post: the command says so
        flash(gettext("This evening is finished: no more hands can be recorded."))
        return redirect(url_for("sheet.scoresheet", key=key))
    if request.method == "GET":
        form = _form(ledger, **{"number": str(number), "dealer": str(ledger.next_dealer),
                                "token": secrets.token_urlsafe(16), **_tapped(ledger)})
        return _hand_page(evening, ledger, form, number=number, editing=False)
    form = _form(ledger)
    if form.validate_on_submit():
        step = _auction_step(evening, ledger, form, number=number, editing=False)
        if step is not None:
            return step
        posted = form.int_or_none(form.number)
        if posted is None or not 1 <= posted <= 100_000:
            form.form_errors.append(gettext("This form is missing its hand number; reload the page."))
        else:
            facts = to_evening(_facts_from(form, ledger), full.seated, full.setup.n)
            saved = save_new_hand(evening, posted, facts, form.token.data, form)
            if saved is not None:
                return saved
    return _hand_page(evening, ledger, form, number=number, editing=False, status=422)



@bp.get("/e/<key>/hand/<int:number>")
@permission("view")
def hand(key: str, number: int) -> Any:
    evening, ledger = load_evening(key)
    row = row_of(ledger, number)
    record = evenings.hand_in_play(evening, number)
    versions = []
    for v in reversed(record.versions):
        facts = evenings.facts_of(v, ledger.setup.n)
        versions.append({"version": v, "facts": facts})
    current = record.current
    override_form = override_form_for(
        ledger.setup.players, version=str(current.version), hand_id=str(record.id), token=secrets.token_urlsafe(16),
        reason=row.facts.override.reason if row.facts.override else "", pool=row.ruling.pool,
        **{f"units_{s}": u for s, u in enumerate(row.ruling.units)})
    first_cite: dict[str, int] = {}
    for i, reason in enumerate(row.ruling.reasons):
        first_cite.setdefault(reason.rule, i)
    # its disputes, resolved too: the open ones shown, and whether it waits for another phone
    # (disputes.waiting_ids, the scoresheet's rule too), in one query
    disputed = disputes.of_hand(evening.id, record.id)
    return render_template(
        "hand.html", evening=evening, ledger=ledger, row=row, auction=auction_of(ledger, row), record=record,
        versions=versions, closed=evening.finished_at is not None, quotes=QUOTES, first_cite=first_cite,
        played_late=evenings.played_late(record.versions[0]),
        source_lang=lambda rid: SOURCE_LANGUAGES.get(RULES[rid].source, "en") if rid in RULES else "en",
        describe_claim=lambda claim: ledger.variant.describe_claim(ledger.setup, claim),
        override_form=override_form, action=ActionForm(), new_token=lambda: secrets.token_urlsafe(16),
        open_disputes=[d for d in disputed if d.resolved_at is None], dispute_names=DISPUTE_NAMES,
        waiting=record.id in disputes.waiting_ids(disputes.hand_marks(evening.confirmation, record, disputed)),
        scorer=access.is_scorer(key),
        this_phone=access.device_id(), event_table=event_of_table(key) is not None,
        claim_referees=referee_rulings.claim_referees(evening.id, record.id) if row.facts.claims else {},
    )



@bp.post("/e/<key>/hand/<int:number>/override")
@permission("score")
def override_hand(key: str, number: int) -> Any:
    """Overrule the ruling of a hand with the table's own figures and a reason, or
    remove the override: either way a new version of the hand, so it can be undone."""
    evening, ledger = load_evening(key)
    row_of(ledger, number)
    hand_id = posted_hand_id()
    form = override_form_for(ledger.setup.players)
    back = redirect(url_for(".hand", key=key, number=number))
    if not form.validate_on_submit():
        flash(gettext("Nothing was saved: %(errors)s", errors="; ".join(error_messages(form))))
        return back
    try:
        base = int(form.version.data)
    except (TypeError, ValueError):
        flash(gettext("This form is missing its version; reload the page."))
        return back
    override = None if form.remove.data else Override(units=form.units(ledger.setup.n), pool=form.pool.data or 0,
                                                         reason=form.reason.data or "")
    command = OverrideRuling(key, hand_id, base, form.token.data or None, number, override=override)
    saved = (gettext("The table's figures replace the ruling; the ruling is kept beside them.") if override else
             gettext("The override is removed: the ruling applies again."))
    return form_answer(execute(command, device=sender()), saved=saved, to=back.location)



@bp.post("/e/<key>/hand/<int:number>/restore/<int:version>")
@permission("score")
def restore_version(key: str, number: int, version: int) -> Any:
    """Make an earlier version of a hand the current one again, as a new version:
    nothing is lost, and the restore itself can be undone the same way."""
    evening, ledger = load_evening(key)
    row_of(ledger, number)
    record = evening.hands[number - 1]
    old = next((v for v in record.versions if v.version == version), None)
    form = ActionForm()
    if old is None:
        abort(404)
    hand_id = posted_hand_id()
    base = posted_int("base")
    token = str(request.form.get("token", ""))[:65]  # one-time: a double tap restores once
    if form.validate_on_submit() and base is None:
        flash(gettext("This form is missing its version; reload the page."))
    elif form.validate_on_submit() and token and not tokens.TOKEN.fullmatch(token):
        flash(gettext("This form is damaged; reload the page and try again."))
    elif form.validate_on_submit():  # the version the page showed as current: a newer correction since is not replaced
        command = RestoreVersion(key, hand_id, base, token or None, number, restore=version)
        return form_answer(execute(command, device=sender()), to=url_for(".hand", key=key, number=number),
                           saved=gettext("Version %(version)s of hand %(number)s is current again.", version=version,
                                         number=number))
    return redirect(url_for(".hand", key=key, number=number))



@bp.post("/e/<key>/hand/<int:number>/note")
@permission("score")
def hand_note(key: str, number: int) -> Any:
    """Write the table's note on a hand, or remove it (empty): a new version of the hand,
    so the earlier one, and its note, are kept (issue 25 item 7)."""
    evening, ledger = load_evening(key)
    row_of(ledger, number)
    hand_id = posted_hand_id()
    base = posted_int("base")
    token = str(request.form.get("token", ""))[:65]
    back = url_for(".hand", key=key, number=number)
    if not ActionForm().validate_on_submit() or (token and not tokens.TOKEN.fullmatch(token)):
        flash(gettext("This form is damaged; reload the page and try again."))
    elif base is None:
        flash(gettext("This form is missing its version; reload the page."))
    else:
        note = str(request.form.get("note", ""))  # counted whole: the refusal says its real length
        command = SetHandNote(key, hand_id, base, token or None, number, note=note)
        return form_answer(execute(command, device=sender()), to=back,
                           saved=gettext("The note on hand %(number)s is saved.", number=number))
    return redirect(back)



@bp.route("/e/<key>/hand/<int:number>/edit", methods=["GET", "POST"])
@permission("score")
def edit_hand(key: str, number: int) -> Any:
    evening, full = load_evening(key)
    row = row_of(full, number)
    seated = row.seated or tuple(range(full.setup.n))
    ledger = table_ledger(full, seated)  # the players seated for that hand (issue 12)
    row = dataclasses.replace(row, facts=to_table(row.facts, seated, full.setup.players))
    record = evenings.hand_in_play(evening, number)
    if request.method == "GET" and evening.finished_at is not None:  # a post: the command says so
        flash(gettext("This evening is finished: reopen it to correct a hand."))
        return redirect(url_for(".hand", key=key, number=number))
    if request.method == "GET":
        order = ledger.variant.speaking_order(ledger.setup, row.facts.dealer)
        form = _form(ledger, number=str(number), version=str(record.current.version), hand_id=str(record.id),
                     token=secrets.token_urlsafe(16), **{**HandFormBase.initial(encode_hand(row.facts), order),
                                                         **_disputed(evening, row, record.id)})
        return _hand_page(evening, ledger, form, number=number, editing=True)
    hand_id = posted_hand_id()
    form = _form(ledger)
    if form.validate_on_submit():
        step = _auction_step(evening, ledger, form, number=number, editing=True)
        if step is not None:
            return step
        base = form.int_or_none(form.version)
        if base is None:
            form.form_errors.append(gettext("This form is missing its version; reload the page."))
        else:
            facts = to_evening(_facts_from(form, ledger, row.facts), seated, full.setup.n)
            command = CorrectHand(key, hand_id, base, form.token.data or None, number, facts=facts,
                                  dispute_id=_dispute_ruled())  # "Rule on it": the close is in the correction's unit
            outcome = execute(command, device=sender())
            answer = form_answer(outcome, to=url_for(".hand", key=key, number=number), form=form,
                                 saved=gettext("Hand %(number)s corrected; every later total follows.", number=number))
            if answer is not None:
                return answer
    return _hand_page(evening, ledger, form, number=number, editing=True, status=422)

