"""Evenings: start one, record and correct hands, scoresheet, PDF, JSON export and import."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
import secrets
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import get_locale, gettext
from markupsafe import Markup

from .. import access, services
from ..cache import RevisionCache
from ..chart import ledger_chart_svg
from ..evening_file import EveningFileError, dumps, loads, parse_stake
from ..forms import (
    ActionForm,
    ImportForm,
    PlayForm,
    error_messages,
    evening_form_for,
    hand_form_for,
    override_form_for,
)
from ..groups import evening_head
from ..i18n import error_text, tr
from ..ledger import Ledger, settle_up, statistics
from ..models import Evening
from ..pdf import PdfError
from ..rules import BIDS, HERE, PASS, RULES, VARIANTS, HandFacts, IllegalSetup, Override, RulesError, Stake
from ..rules.cards import RANKS_36, RANKS_52, SUITS
from ..rules.play import read_record
from ..rules.sources import QUOTES, SOURCE_LANGUAGES
from .display import auction_of, citation, result_label, signed

bp = Blueprint("evenings", __name__)


@bp.app_template_filter("call_label")
def call_label_filter(call: str) -> str:
    return call_label(call)


@bp.app_context_processor
def helpers() -> dict[str, Any]:
    return {"signed": signed, "citation": citation, "result_label": result_label, "error_messages": error_messages}


def content_disposition(kind: str, name: str, extension: str) -> str:
    """``attachment; filename="thursday-at-the-crown.json"`` (ASCII, from the evening's name)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "nap-evening"
    return f'{kind}; filename="{slug}.{extension}"'


def load_evening(key: str) -> tuple[Evening, Ledger]:
    evening = services.get_evening(key)
    if evening is None:
        abort(404)
    return evening, services.ledger_of(evening)


@bp.get("/healthz")
def healthz() -> Response:
    """A trivial route: the baseline of the benchmark."""
    return Response("ok", mimetype="text/plain")


@bp.get("/")
def index() -> str:
    # only the tables this phone has opened: a table's link is its key, never listed to strangers
    from ..commands import demo_link

    return render_template("index.html", evenings=services.evenings_by_keys(access.seen_keys()), demo=demo_link(),
                           variant_names={v.id: v.name for v in VARIANTS.values()})


def _group_arg() -> Any:
    """The group a new evening starts in (``?group=<key>``, from the group's page), or
    ``None``; an unknown group key is a 404, never an evening quietly left out of it."""
    key = request.args.get("group")
    if not key:
        return None
    from ..groups import get_group

    group = get_group(key)
    if group is None:
        abort(404)
    return group


@bp.get("/new")
def choose_variant() -> str:
    return render_template("choose_variant.html", variants=VARIANTS.values(), group=_group_arg())


@bp.route("/new/<variant_id>", methods=["GET", "POST"])
def new_evening(variant_id: str) -> Any:
    variant = VARIANTS.get(variant_id)
    if variant is None:
        abort(404)
    group = _group_arg()  # the form posts back to this URL, ?group=… included
    form = evening_form_for(variant)
    if form.validate_on_submit():
        names, first = form.seated()
        stake = None
        if form.scoring.data == "money":
            stake = Stake(parse_stake(form.stake.data), (form.currency.data or "").strip())
        try:
            evening = services.create_evening(
                variant=variant.id, players=names, first_dealer=first, options=form.options(), stake=stake,
                name=form.name.data or "", draw=form.draw(), device=access.device_name(),
                group_id=group.id if group else None,
            )
        except IllegalSetup as error:
            form.form_errors.append(error_text(error))
        else:
            flash(gettext("The evening has started. Good luck!"))
            access.grant_scorer(evening.key)  # the table's creator is its first scorer
            return redirect(url_for(".scoresheet", key=evening.key))
    status = 422 if form.is_submitted() else 200
    return render_template("new_evening.html", form=form, variant=variant, group=group), status


#: Rendered scoresheets by (evening key, revision): several phones reloading an
#: unchanged evening cost one small query each, not a full settle and render.
sheet_cache: RevisionCache[tuple[str, bool, Markup]] = RevisionCache(64)
#: Rendered PDFs by (evening key, revision): WeasyPrint needs seconds for a long
#: evening, so a second download of an unchanged evening is served from here.
pdf_cache: RevisionCache[bytes] = RevisionCache(8)
#: Whole scoresheet pages by (evening key, revision, language, role, group).
page_cache: RevisionCache[str] = RevisionCache(128)
#: The running-totals chart (SVG bytes) by (evening key, revision).
chart_cache: RevisionCache[bytes] = RevisionCache(64)


def _by_revision(cache: RevisionCache[Any], key: str, build: Any, *variant: Any, revision: int | None = None) -> Any:
    """What ``build(evening, ledger)`` gives for the evening's current revision, from
    ``cache`` when it is there (one small query), else built and kept. ``variant``
    (e.g. language and paper size) is part of the cache key; ``revision`` if the caller
    has read it already. 404 if no evening."""
    if revision is None:
        revision = services.evening_revision(key)
    if revision is None:
        abort(404)
    value = cache.get((key, revision, *variant))
    if value is None:
        evening, ledger = load_evening(key)
        value = build(evening, ledger)
        cache.put((key, evening.revision, *variant), value)
    return value


def _render_sheet(evening: Evening, ledger: Ledger) -> tuple[str, bool, Markup]:
    names = ledger.setup.players
    fragment = Markup(
        render_template(
            "_sheet.html", evening=evening, ledger=ledger, closed=services.is_closed(evening, ledger),
            settle=None if ledger.variant.points_only else settle_up(ledger),
            stats=statistics(ledger),
            party=lambda p: names[p] if isinstance(p, int) else (ledger.variant.pool_name(ledger.setup.options)
                                                                 or "pool"),
        )
    )
    return evening.name, evening.finished_at is not None, fragment


@bp.get("/e/<key>")
def scoresheet(key: str) -> str:
    # the fragment differs by language and by role (scorers get the buttons that change things)
    # one small query for the revision and the group: an unchanged evening is served from the cache
    head = evening_head(key)
    if head is None:
        abort(404)
    revision, group = head
    scorer = access.is_scorer(key)
    locale = str(get_locale())
    access.remember(key)
    # the whole page is the same for every phone with this language and role, unless it
    # has a message waiting (flash) or a form that carries its own CSRF token (Reopen)
    page_key = (key, revision, locale, scorer, group)
    plain = "_flashes" not in session
    page = page_cache.get(page_key) if plain else None
    if page is not None:
        return page
    title, finished, fragment = _by_revision(sheet_cache, key, _render_sheet, locale, scorer, revision=revision)
    page = render_template("scoresheet.html", key=key, title=title, finished=finished, sheet=fragment,
                           action=ActionForm() if scorer else None, scorer=scorer, revision=revision, group=group)
    if plain and not (scorer and finished):
        page_cache.put(page_key, page)
    return page


def _hand_page(evening: Evening, ledger: Ledger, form: Any, *, number: int, editing: bool, status: int = 200) -> Any:
    setup = ledger.setup
    variant = ledger.variant
    try:
        dealer = int(form.dealer.data)
    except (TypeError, ValueError):
        dealer = ledger.next_dealer
    dealer = dealer if 0 <= dealer < setup.n else ledger.next_dealer
    order = variant.speaking_order(setup, dealer)
    context: dict[str, Any] = {"sequence": variant.sequence_auction}
    if variant.sequence_auction:
        seq = form.call_sequence()
        try:
            said = [(setup.players[variant.next_speaker(setup, dealer, seq[:i])[0]], call)  # type: ignore[attr-defined]
                    for i, call in enumerate(seq)]
            speaker, legal = variant.next_speaker(setup, dealer, seq)  # type: ignore[attr-defined]
        except (RulesError, TypeError, IndexError):
            said, speaker, legal = [], dealer, []
            form.calls.data = ""
        declarer_text = ""
        if speaker is None:
            try:
                declarer, contract, _ = variant.check_auction(HandFacts(dealer, seq), setup)
            except RulesError:
                declarer, contract = None, None
            declarer_text = (gettext("%(declarer)s plays %(contract)s.", declarer=setup.players[declarer],
                                     contract=tr(contract.name)) if declarer is not None and contract
                             else gettext("Everyone passed."))
        highest = ""
        if speaker is not None and seq:
            holder = None
            for (who, call) in said:
                if call not in (PASS,):
                    holder = (who, call)
            if holder:
                highest = gettext("Highest so far: %(call)s (%(who)s)", call=call_label(holder[1]), who=holder[0]) \
                    if holder[1] != HERE else gettext("Highest so far: held by %(who)s with «Здесь»", who=holder[0])
        context.update(said=said, speaker=speaker, legal=legal, auction_over=speaker is None,
                       declarer_text=declarer_text, eldest=dealer, highest=highest)
    else:
        context.update(call_fields=[getattr(form, f"call_{s}") for s in order], auction_over=True, eldest=order[0])
    return (
        render_template(
            "hand_form.html", evening=evening, ledger=ledger, form=form, number=number, editing=editing,
            dealer=dealer, order=order, call_label=call_label, options=setup.options, **context,
        ),
        status,
    )


def call_label(call: str) -> str:
    """A call as shown on a button: «Здесь» (R-6: the same word in every language), Pass, the bid's name."""
    if call == HERE:
        return "«Здесь»"
    if call == PASS:
        return gettext("Pass")
    return tr(BIDS[call].name) if call in BIDS else call


def _facts_from(form: Any, ledger: Ledger, kept: HandFacts | None = None) -> HandFacts:
    """The facts entered on the form. ``kept`` is the hand being corrected: what the
    form does not show — further claims (the form edits the first), the record of
    play and an override — is carried over unchanged."""
    dealer = int(form.dealer.data)
    override = kept.override if kept else None
    if form.misdeal.data:
        return HandFacts(dealer=dealer, misdeal=True, override=override)
    claim = form.claim_value()
    variant = ledger.variant
    auction = form.call_sequence() if variant.sequence_auction else form.calls_in_speaking_order(dealer)
    return HandFacts(
        dealer=dealer,
        auction=auction,
        tricks=form.tricks_value(),
        trump=form.trump.data or None,
        purchase=bool(form.purchase.data),
        widow=bool(form.widow.data),
        peeks=form.peeks_value(),
        claims=((claim,) if claim else ()) + (kept.claims[1:] if kept else ()),
        override=override,
        record=kept.record if kept else (),
    )


def _auction_step(evening: Evening, ledger: Ledger, form: Any, *, number: int, editing: bool) -> Any | None:
    """russian36: one more call (or one call undone) in the auction being built; nothing
    is saved. ``None`` when the request is not an auction step."""
    if not ledger.variant.sequence_auction or form.save.data or form.misdeal.data:
        return None
    seq = form.call_sequence()
    if "undo_call" in request.form:
        seq = seq[:-1]
    elif request.form.get("call"):
        seq = seq + (str(request.form["call"])[:20],)
    else:
        return None
    try:
        ledger.variant.next_speaker(ledger.setup, int(form.dealer.data), seq)  # type: ignore[attr-defined]
    except RulesError as error:
        form.form_errors.append(error_text(error))
        return _hand_page(evening, ledger, form, number=number, editing=editing, status=422)
    form.calls.data = ",".join(seq)
    form.calls_dealer.data = form.dealer.data if seq else ""
    return _hand_page(evening, ledger, form, number=number, editing=editing)


def _rules_error(form: Any, error: RulesError) -> None:
    form.form_errors.append(error_text(error))


@bp.route("/e/<key>/hand", methods=["GET", "POST"])
def new_hand(key: str) -> Any:
    evening, ledger = load_evening(key)
    setup = ledger.setup
    number = len(ledger.rows) + 1
    ladder = ledger.variant.ladder(setup.options)
    if services.is_closed(evening, ledger):
        flash(gettext("This evening is finished: no more hands can be recorded."))
        return redirect(url_for(".scoresheet", key=key))
    if request.method == "GET":
        form = hand_form_for(setup, ladder, ledger.variant.claim_rules, number=str(number), dealer=str(ledger.next_dealer),
                             token=secrets.token_urlsafe(16))
        return _hand_page(evening, ledger, form, number=number, editing=False)
    form = hand_form_for(setup, ladder, ledger.variant.claim_rules)
    if form.validate_on_submit():
        step = _auction_step(evening, ledger, form, number=number, editing=False)
        if step is not None:
            return step
        posted = form.int_or_none(form.number)
        if posted is None or not 1 <= posted <= 100_000:
            form.form_errors.append(gettext("This form is missing its hand number; reload the page."))
        else:
            saved = save_new_hand(evening, posted, _facts_from(form, ledger), form.token.data, form)
            if saved is not None:
                return saved
    return _hand_page(evening, ledger, form, number=number, editing=False, status=422)


def save_new_hand(evening: Evening, number: int, facts: HandFacts, token: str | None, form: Any = None) -> Any:
    """Record hand ``number`` (full form or quick entry) and answer as a phone expects:
    saved → the scoresheet at the hand; saved already (a double tap, another phone) or
    the evening finished → a redirect that says so. ``None`` when the rules refuse the
    hand: the refusal is added to ``form.form_errors`` (the caller shows the form again)."""
    key = evening.key
    try:
        services.record_hand(evening, number, facts, device=access.device_name(), token=token or None)
    except (services.AlreadySaved, services.EveningFinished) as error:
        flash(str(error))
        return redirect(url_for("evenings.scoresheet", key=key))
    except services.HandConflict as error:
        flash(str(error))
        if error.number < 1:
            return redirect(url_for("evenings.scoresheet", key=key))
        return redirect(url_for("evenings.hand", key=key, number=error.number))
    except RulesError as error:
        if form is not None:
            _rules_error(form, error)
        return None
    flash(gettext("Hand %(number)s saved.", number=number))
    return redirect(url_for("evenings.scoresheet", key=key) + f"#hand-{number}")


def _row(ledger: Ledger, number: int) -> Any:
    """Hand ``number`` of the ledger. A number past the last hand (a hand undone on
    another phone, an old link) goes back to the scoresheet saying so; 0 is a 404."""
    if number > len(ledger.rows) >= 0 and number >= 1:
        flash(gettext("There is no hand %(number)s now (it may have been undone on another phone); nothing was "
                      "changed.", number=number))
        abort(redirect(url_for(".scoresheet", key=(request.view_args or {}).get("key", ""))))
    if not 1 <= number <= len(ledger.rows):
        abort(404)
    return ledger.rows[number - 1]


@bp.get("/e/<key>/hand/<int:number>")
def hand(key: str, number: int) -> Any:
    evening, ledger = load_evening(key)
    row = _row(ledger, number)
    record = evening.hands[number - 1]
    versions = []
    for v in reversed(record.versions):
        facts = services.facts_of(v, ledger.setup.n)
        versions.append({"version": v, "facts": facts})
    current = record.current
    override_form = override_form_for(
        ledger.setup.players, version=str(current.version), token=secrets.token_urlsafe(16), reason=row.facts.override.reason if row.facts.override
        else "", pool=row.ruling.pool, **{f"units_{s}": u for s, u in enumerate(row.ruling.units)})
    first_cite: dict[str, int] = {}
    for i, reason in enumerate(row.ruling.reasons):
        first_cite.setdefault(reason.rule, i)
    return render_template(
        "hand.html", evening=evening, ledger=ledger, row=row, auction=auction_of(ledger, row), record=record,
        versions=versions, closed=evening.finished_at is not None, quotes=QUOTES, first_cite=first_cite,
        source_lang=lambda rid: SOURCE_LANGUAGES.get(RULES[rid].source, "en") if rid in RULES else "en",
        describe_claim=lambda claim: ledger.variant.describe_claim(ledger.setup, claim),
        override_form=override_form, action=ActionForm(),
    )


@bp.post("/e/<key>/hand/<int:number>/override")
def override_hand(key: str, number: int) -> Any:
    """Overrule the ruling of a hand with the table's own figures and a reason, or
    remove the override: either way a new version of the hand, so it can be undone."""
    evening, ledger = load_evening(key)
    row = _row(ledger, number)
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
    if form.remove.data:
        if row.facts.override is None:
            flash(gettext("There is no override to remove."))
            return back
        override = None
    else:
        override = Override(units=form.units(ledger.setup.n), pool=form.pool.data or 0, reason=form.reason.data or "")
    facts = dataclasses.replace(row.facts, override=override)
    try:
        services.correct_hand(evening, number, base, facts, device=access.device_name(), kind="override",
                              token=form.token.data or None)
    except (services.HandConflict, services.EveningFinished, services.AlreadySaved) as error:
        flash(str(error))
    except RulesError as error:
        flash(gettext("Nothing was saved: %(errors)s", errors=error_text(error)))
    else:
        flash(gettext("The table's figures replace the ruling; the ruling is kept beside them.") if override else
              gettext("The override is removed: the ruling applies again."))
    return back


@bp.route("/e/<key>/hand/<int:number>/play", methods=["GET", "POST"])
def record_play(key: str, number: int) -> Any:
    """Record the cards played to each trick, one tap a card (no JavaScript): each tap
    re-renders the page; Save stores the record as a new version of the hand."""
    evening, ledger = load_evening(key)
    row = _row(ledger, number)
    record = evening.hands[number - 1]
    setup, variant, r = ledger.setup, ledger.variant, row.ruling
    if r.declarer is None or r.contract is None:
        flash(gettext("Nobody bid in this hand, so there is no play to record."))
        return redirect(url_for(".hand", key=key, number=number))
    if evening.finished_at is not None:
        flash(gettext("This evening is finished: reopen it to record the play."))
        return redirect(url_for(".hand", key=key, number=number))
    form = PlayForm()
    if request.method == "GET":
        form.version.data = str(record.current.version)
        form.token.data = secrets.token_urlsafe(16)
        form.record.data = "|".join(" ".join(t) for t in row.facts.record)
    elif not form.validate_on_submit():
        abort(400)
    tricks = form.tricks()
    error = None
    held = {c.accused: c.cards_held for c in row.facts.claims
            if c.upheld and c.kind == "wrong_cards" and c.cards_held is not None}

    def read(cards: list[list[str]]) -> Any:
        return read_record(cards, setup.n, r.declarer, r.contract.tricks, pack_size=variant.pack_size,
                           named_trump=row.facts.trump if variant.names_trump else None,
                           must_trump=variant.must_trump, misere=r.contract.id == "misere", held=held)

    if request.method == "POST":
        if "undo" in request.form and tricks:
            tricks[-1].pop()
            tricks = [t for t in tricks if t]
        elif "clear" in request.form:
            tricks = []
        elif request.form.get("card"):
            card = str(request.form["card"])[:4]
            try:
                complete = not tricks or len(read(tricks).winners) == len(tricks)
            except RulesError:
                complete = not tricks or len(tricks[-1]) >= setup.n
            if complete:
                tricks.append([])
            tricks[-1].append(card)
        if "save" in request.form:
            try:
                version = int(str(form.version.data)[:9])
            except (TypeError, ValueError):
                flash(gettext("This form is missing its version; reload the page."))
                return redirect(url_for(".hand", key=key, number=number))
            # an empty record removes it: the tricks it gave stay as the hand's tricks
            facts = dataclasses.replace(row.facts, record=tuple(tuple(t) for t in tricks),
                                        tricks=None if tricks else row.ruling.tricks)
            try:
                services.correct_hand(evening, number, version, facts, device=access.device_name(), kind="play",
                                      token=form.token.data or None)
            except (services.HandConflict, services.EveningFinished, services.AlreadySaved) as exc:
                flash(str(exc))
                return redirect(url_for(".hand", key=key, number=number))
            except RulesError as exc:
                error = error_text(exc)
            else:
                flash(gettext("The record of play is saved; the hand is ruled from it."))
                return redirect(url_for(".hand", key=key, number=number))
    reading = None
    while tricks:  # drop cards from the end until what is left can be read (a hand-made form may hold junk)
        try:
            reading = read(tricks)
            break
        except RulesError as exc:
            error = error or error_text(exc)
            tricks[-1].pop()
            tricks = [t for t in tricks if t]
    form.record.data = "|".join(" ".join(t) for t in tricks)
    played = {c.upper() for t in tricks for c in t}
    to_play = reading.next_to_play if reading is not None else (None if error and tricks else r.declarer)
    ranks = RANKS_36 if variant.pack_size == 36 else RANKS_52
    return render_template(
        "play.html", evening=evening, ledger=ledger, row=row, form=form, tricks=tricks, reading=reading,
        error=error, to_play=to_play, played=played, ranks=ranks, suits=SUITS,
        seats=reading.seats if reading else (), winners=reading.winners if reading else (),
    ), (422 if error else 200)


@bp.post("/e/<key>/hand/<int:number>/restore/<int:version>")
def restore_version(key: str, number: int, version: int) -> Any:
    """Make an earlier version of a hand the current one again, as a new version:
    nothing is lost, and the restore itself can be undone the same way."""
    evening, ledger = load_evening(key)
    _row(ledger, number)
    record = evening.hands[number - 1]
    old = next((v for v in record.versions if v.version == version), None)
    form = ActionForm()
    if old is None:
        abort(404)
    if form.validate_on_submit():
        try:
            services.correct_hand(evening, number, record.current.version, services.facts_of(old, ledger.setup.n),
                                  device=access.device_name(), kind="restore")
        except (services.HandConflict, services.EveningFinished) as error:
            flash(str(error))
        except RulesError as error:
            flash(gettext("Nothing was saved: %(errors)s", errors=error_text(error)))
        else:
            flash(gettext("Version %(version)s of hand %(number)s is current again.", version=version, number=number))
    return redirect(url_for(".hand", key=key, number=number))


@bp.route("/e/<key>/hand/<int:number>/edit", methods=["GET", "POST"])
def edit_hand(key: str, number: int) -> Any:
    evening, ledger = load_evening(key)
    row = _row(ledger, number)
    record = evening.hands[number - 1]
    setup = ledger.setup
    ladder = ledger.variant.ladder(setup.options)
    if evening.finished_at is not None:
        flash(gettext("This evening is finished: reopen it to correct a hand."))
        return redirect(url_for(".hand", key=key, number=number))
    if request.method == "GET":
        facts = row.facts
        order = ledger.variant.speaking_order(setup, facts.dealer)
        calls: dict[str, Any] = {f"call_{seat}": call for seat, call in zip(order, facts.auction)}
        calls.update({f"peek_{seat}": True for seat in facts.peeks})
        first = facts.claims[0] if facts.claims else None
        if first is not None:
            calls.update(claim_kind=first.kind, claim_accused=str(first.accused),
                         claim_by="" if first.by is None else str(first.by), claim_upheld="yes" if first.upheld else "no",
                         claim_trick="" if first.trick is None else str(first.trick), claim_suit=first.suit_led or "",
                         claim_card=first.card or "", claim_evidence=first.evidence or "",
                         claim_cards_held=first.cards_held, claim_before=first.before_speaking)
        form = hand_form_for(
            setup, ladder, ledger.variant.claim_rules, number=str(number), version=str(record.current.version), dealer=str(facts.dealer),
            tricks=None if facts.tricks is None else str(facts.tricks), calls=",".join(facts.auction),
            calls_dealer=str(facts.dealer) if facts.auction else "",
            trump=facts.trump or "", purchase=facts.purchase, widow=facts.widow, token=secrets.token_urlsafe(16),
            **calls,
        )
        return _hand_page(evening, ledger, form, number=number, editing=True)
    form = hand_form_for(setup, ladder, ledger.variant.claim_rules)
    if form.validate_on_submit():
        step = _auction_step(evening, ledger, form, number=number, editing=True)
        if step is not None:
            return step
        base = form.int_or_none(form.version)
        if base is None:
            form.form_errors.append(gettext("This form is missing its version; reload the page."))
        else:
            try:
                services.correct_hand(evening, number, base, _facts_from(form, ledger, row.facts),
                                      device=access.device_name(), token=form.token.data or None)
            except services.AlreadySaved as error:
                flash(str(error))
                return redirect(url_for(".hand", key=key, number=number))
            except services.HandConflict as error:
                flash(str(error))
                return redirect(url_for(".hand", key=key, number=number))
            except services.EveningFinished as error:
                flash(str(error))
                return redirect(url_for(".hand", key=key, number=number))
            except RulesError as error:
                _rules_error(form, error)
            else:
                flash(gettext("Hand %(number)s corrected; every later total follows.", number=number))
                return redirect(url_for(".hand", key=key, number=number))
    return _hand_page(evening, ledger, form, number=number, editing=True, status=422)


def _set_finished(key: str, finished: bool) -> Any:
    """Close the evening (no more hands) or open it again."""
    evening = services.get_evening(key)
    if evening is None:
        abort(404)
    if ActionForm().validate_on_submit():
        services.set_finished(evening, finished, device=access.device_name())
        flash(gettext("The evening is finished. Download the PDF to keep it.") if finished
              else gettext("The evening is open again."))
    return redirect(url_for(".scoresheet", key=key))


bp.add_url_rule("/e/<key>/finish", "finish", _set_finished, methods=["POST"], defaults={"finished": True})


@bp.get("/e/<key>/finish")
def confirm_finish(key: str) -> str:
    """Ask before closing the evening: a stray tap at 11 pm must not end it."""
    evening = services.get_evening(key)
    if evening is None:
        abort(404)
    return render_template("confirm_finish.html", evening=evening, action=ActionForm())
bp.add_url_rule("/e/<key>/reopen", "reopen", _set_finished, methods=["POST"], defaults={"finished": False})


@bp.get("/e/<key>/rules")
def rules(key: str) -> str:
    """The variant's rules in plain words with this table's options filled in."""
    evening, ledger = load_evening(key)
    return render_template(f"rules/{ledger.variant.id}.html", evening=evening, ledger=ledger,
                           setup=ledger.setup, o=ledger.setup.options, stake=ledger.setup.stake,
                           variant=ledger.variant)


@bp.get("/e/<key>/evening.json")
def export_json(key: str) -> Response:
    evening = services.get_evening(key)  # facts only: works even if a stored hand no longer settles
    if evening is None:
        abort(404)
    body = dumps(services.export_evening(evening))
    response = Response(body, mimetype="application/json")
    response.headers["Content-Disposition"] = content_disposition("attachment", evening.name, "json")
    return response


@bp.get("/e/<key>/ledger.csv")
def export_csv(key: str) -> Response:
    """The ledger for spreadsheets: one row per hand and player (units, money in the
    currency's smallest unit, running total), with the hand's result and rule ids."""
    evening, ledger = load_evening(key)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["hand", "dealer", "declarer", "contract", "tricks", "result", "player", "units", "money_minor",
                     "running_total", "pool_change", "disputed", "rules"])
    names = tuple(_csv_text(n) for n in ledger.setup.players)  # every column with a name
    stake = ledger.setup.stake
    for row in ledger.rows:
        r = row.ruling
        for seat, units in enumerate(r.units):
            writer.writerow([
                row.number, names[r.dealer], "" if r.declarer is None else names[r.declarer],
                r.contract.name if r.contract else "", "" if r.tricks is None else r.tricks, r.result.value,
                names[seat], units, "" if stake is None else units * stake.minor, row.totals[seat],
                r.pool if seat == 0 else "", "yes" if row.facts.claims or r.overruled else "",
                " ".join(r.rule_ids),
            ])
    response = Response(out.getvalue(), mimetype="text/csv")
    response.headers["Content-Disposition"] = content_disposition("attachment", evening.name, "csv")
    return response


def _csv_text(value: str) -> str:
    """Keep a spreadsheet from reading a name such as ``=HYPERLINK(…)`` as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


@bp.get("/e/<key>/evening.pdf")
def export_pdf(key: str) -> Any:
    """The evening's PDF in the phone's language, on A4 or ``?paper=letter`` (anything
    else: A4). A render past ``PDF_TIME_LIMIT`` seconds is stopped: 503 with a clear page."""
    from ..pdf import paper_of, pdf_builder

    paper = paper_of(request.args.get("paper"))
    pdf = _by_revision(pdf_cache, key, pdf_builder(paper), str(get_locale()), paper)  # PdfError: pdf_error()
    response = Response(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = content_disposition("inline", services.evening_name(key), "pdf")
    return response


@bp.app_errorhandler(PdfError)
def pdf_error(error: PdfError) -> Any:
    """Any PDF (the evening's, a season's) that took too long or failed: 503 with a clear
    page in the phone's language, never a 500 or a hung worker."""
    return render_template("error.html", code=503, message=str(error)), 503, {"Retry-After": "60"}


@bp.get("/e/<key>/chart.svg")
def chart(key: str) -> Response:
    """The running-totals chart as SVG (pygal, no script), shown on the scoresheet in an
    ``<img>``. Its own CSP lets pygal's ``<style>`` apply and nothing else load."""
    # drawn small, so that its words stay legible on a phone (the PDF draws its own, larger)
    svg = _by_revision(chart_cache, key, lambda evening, ledger: ledger_chart_svg(ledger, width=440, height=320))
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    response.add_etag()
    return response.make_conditional(request)


@bp.route("/import", methods=["GET", "POST"])
def import_evening() -> Any:
    form = ImportForm()
    if form.validate_on_submit():
        data = form.file.data.read(current_app.config["MAX_CONTENT_LENGTH"] + 1)
        try:
            evening = services.import_evening(loads(data), device=access.device_name())
        except EveningFileError as error:
            form.file.errors = [error_text(error)]  # "where: message (rule)", in the phone's language
        else:
            flash(gettext("Imported “%(name)s”.", name=evening.name))
            access.grant_scorer(evening.key)
            return redirect(url_for(".scoresheet", key=evening.key))
    return render_template("import.html", form=form), (422 if form.is_submitted() else 200)


