"""What every view shares, and nothing else: loading an evening, the revision caches,
saving a new hand, the labels and helpers that pages and the PDF show (in the phone's
language), and the template helpers every page may use.

The view modules (:mod:`.start`, :mod:`.sheet`, :mod:`.hands`, :mod:`.play`,
:mod:`.table`, :mod:`.groups`) import from here and never from each other.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, abort, current_app, flash, jsonify, redirect, render_template, request, session, url_for
from flask_babel import get_locale, gettext
from flask_babel import gettext as _
from markupsafe import Markup

from ...evening.file import dump_seat_change
from ...evening.ledger import Ledger, LedgerRow, table_ledger, to_table
from ...evening.season import Book
from ...rules import BIDS, HERE, PASS, RULES, VARIANTS, HandFacts, Result, RulesError
from ...rules.play import PlayRules
from ...storage import evenings, groups, units
from ...storage import kept_ledgers as settled
from ...storage.models import Evening
from .. import access, i18n, lan
from ..caches import RevisionCache
from ..form_fields import error_messages
from ..i18n import error_text, tr
from ..table_forms import ActionForm

#: No routes: the template filters and context processors every page uses.
bp = Blueprint("common", __name__)


@bp.app_template_filter("call_label")
def call_label_filter(call: str) -> str:
    return call_label(call)


@bp.app_template_filter("bdi")
def bdi_filter(name: str) -> Markup:
    """A player's name isolated from the text around it (``<bdi>``), so that two
    right-to-left names in a list (Arabic, Hebrew) keep their order and their commas."""
    return Markup("<bdi>%s</bdi>") % name


@bp.app_context_processor
def helpers() -> dict[str, Any]:
    return {"signed": signed, "citation": citation, "rule_source": rule_source, "result_label": result_label,
            "error_messages": error_messages,
            "is_scorer": access.is_scorer, "device_name": access.device_name, "book_title": book_title,
            "seat_change_text": seat_change_text}


def seat_change_text(item: Mapping[str, Any]) -> str:
    """A change of seats in the evening file's form (``{"before_hand": 9, "join": "Eve",
    "left_of": "Bob"}``, ``leave``, ``rename``/``from``) as one line in the phone's
    language: "Eve joined before hand 9, on Bob's left" (issue 12)."""
    number = item.get("before_hand", 0)
    if "join" in item:
        return gettext("%(name)s joined before hand %(n)s, sitting on the left of %(left)s", name=item["join"],
                       n=number, left=item.get("left_of", ""))
    if "leave" in item:
        return gettext("%(name)s left before hand %(n)s", name=item["leave"], n=number)
    return gettext("%(old)s is now called %(name)s (before hand %(n)s)", old=item.get("from", ""),
                   name=item.get("rename", ""), n=number)


def seat_lines(ledger: Ledger) -> dict[int, list[str]]:
    """The ledger's changes of seats as lines of text by the hand they come before."""
    lines: dict[int, list[str]] = {}
    for change in ledger.changes:
        lines.setdefault(change.before_hand, []).append(
            seat_change_text(dump_seat_change(change, ledger.setup.players)))
    return lines


_OLD_SESSION_KEYS = ("scorer_of", "seen", "pin_fails", "device", "device_tag")


@bp.before_app_request
def adopt_old_session() -> None:
    """A phone whose session still holds roles from before they moved to the database."""
    if request.endpoint != "static" and any(k in session for k in _OLD_SESSION_KEYS):
        access.adopt_session_roles()


@bp.after_app_request
def device_cookie(response: Any) -> Any:
    """A phone seen for the first time gets its device cookie (:mod:`scorer.web.access`)."""
    return access.set_device_cookie(response)


@bp.before_app_request
def check_permission() -> Any:
    """Run the check each route declares (:func:`scorer.web.access.permission`) before the
    view: an unknown table or group is a 404; a viewer asking for a scorer's route is
    sent to the PIN page (nothing runs, nothing changes), or answered ``403`` JSON under
    ``/api/`` (a script has no PIN page to go to); an undeclared route is refused."""
    if request.endpoint is None or request.endpoint == "static":
        return None  # a 404 or 405 of the router, or a static file
    declared = access.permission_of(current_app.view_functions.get(request.endpoint))
    if declared is None:
        current_app.logger.error("route %s declares no permission; refused", request.endpoint)
        abort(403)
    level, subject = declared
    if level in ("public", "view"):
        return None  # a view that reads answers 404 itself for an unknown key (no extra query here)
    key = (request.view_args or {}).get("key", "")
    if subject == "group":
        if groups.get_group(key) is None:
            abort(404)
        return None  # a group's link is its key: holding it is enough to manage it
    if units.evening_revision(key) is None:
        abort(404)
    if access.is_scorer(key):
        return None
    message = _("Only the table's scorers can change the score. Enter the table's PIN to become one.")
    if request.path.startswith("/api/"):
        return jsonify(error={"code": "forbidden", "message": message}), 403
    flash(message)
    return redirect(url_for("table.join", key=key))


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
    if not lan.is_local_name(hostname):
        return None
    address = lan.lan_address()
    if lan.is_local_name(address):
        return None
    if ":" in address:
        address = f"[{address}]"
    return f"{address}:{port}" if port else address


def client_id() -> str:
    """Who is asking, for limits per phone (one PDF at a time): the client's address."""
    return request.remote_addr or ""


def posted_int(name: str) -> int | None:
    """A whole number a form posted in field ``name`` (ASCII digits, at most 9); ``None``
    when the field is missing or empty (an older page); ``-1`` for anything else (junk,
    a number too long): a row id or revision that never matches, so the write is refused
    as stale instead of going ahead unchecked."""
    text = str(request.form.get(name, "")).strip()
    if not text:
        return None
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else -1


def content_disposition(kind: str, name: str, extension: str) -> str:
    """``attachment; filename="thursday-at-the-crown.json"`` (ASCII, from the evening's name)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "nap-evening"
    return f'{kind}; filename="{slug}.{extension}"'


def load_evening(key: str) -> tuple[Evening, Ledger]:
    evening = units.get_evening(key)
    if evening is None:
        abort(404)
    return evening, evenings.ledger_of(evening)


def load_settled(key: str, head: Mapping[str, Any] | None = None) -> settled.Settled:
    """The evening settled at its current revision, without loading its hands when this
    process has settled it before (:func:`scorer.storage.kept_ledgers.settled`; ``head``: the
    evening's row if the caller has read it); 404 if no evening."""
    found = settled.settled(key, head)
    if found is None:
        abort(404)
    return found


#: The policy of an SVG picture (a chart): pygal's own ``<style>`` applies, nothing
#: loads, and no other site may frame it.
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"

#: Rendered scoresheets by (evening key, revision): several phones reloading an
#: unchanged evening cost one small query each, not a full settle and render.
sheet_cache: RevisionCache[tuple[str, bool, Markup, tuple[Markup, ...]]] = RevisionCache(64)

#: Rendered PDFs by (evening key, revision): WeasyPrint needs seconds for a long
#: evening, so a second download of an unchanged evening is served from here.
pdf_cache: RevisionCache[bytes] = RevisionCache(8)

#: PDFs that failed or ran past the time limit, by (evening key, revision, language,
#: paper, limit): asked again, they are answered at once (503) instead of rendered again.
pdf_failures: RevisionCache[Any] = RevisionCache(64)

#: Whole scoresheet pages by (evening key, revision, language, role, group).
page_cache: RevisionCache[str] = RevisionCache(128)

#: The scoresheet's page around its fragment by (evening key, language, role, group,
#: title, finished): the same at every revision, so the first view after a new hand
#: renders only the fragment and the new row. Only pages every phone of a language and
#: role shares (no message waiting, no form with its own CSRF token) are kept.
frame_cache: RevisionCache[str] = RevisionCache(128)

#: The running-totals chart (SVG bytes) by (evening key, revision).
chart_cache: RevisionCache[bytes] = RevisionCache(64)


def by_revision(cache: RevisionCache[Any], key: str, build: Any, *variant: Any, revision: int | None = None,
                head: Mapping[str, Any] | None = None) -> Any:
    """What ``build(found)`` gives for the evening's current revision (``found`` a
    :class:`scorer.storage.kept_ledgers.Settled`: ``head`` and ``ledger``), from ``cache`` when it is
    there (one small query), else built and kept. ``variant`` (e.g. language and paper
    size) is part of the cache key; ``revision`` if the caller has read it already, and
    ``head`` the evening's row (:data:`scorer.storage.kept_ledgers.HEAD_COLUMNS`) if it has.
    404 if no evening."""
    if revision is None:
        revision = units.evening_revision(key)
    if revision is None:
        abort(404)
    value = cache.get((key, revision, *variant))
    if value is None:
        found = load_settled(key, head)
        value = build(found)
        if found.revision == found.head.revision:  # else a write came between its reads: keep nothing
            cache.put((key, found.revision, *variant), value)
    return value


#: What :func:`render_pieces` splits a template's output at.
PIECE = "<!--piece-->"


def render_pieces(template: str, kind: str, items: Sequence[Any], keys: Sequence[Hashable | None],
                  cache: RevisionCache[Markup], **context: Any) -> list[Markup]:
    """``template`` rendered for each of ``items`` (in the phone's language), the pieces
    kept in ``cache`` by (language, ``kind``, key): a page made of many rows renders only
    the rows whose key it has not met. ``keys[i]`` must hold everything the piece of
    ``items[i]`` shows (``None``: render it, keep nothing). The template loops over
    ``items`` (the missing ones, in order) and ends each piece with :data:`PIECE`."""
    locale = str(get_locale())
    out: list[Markup | None] = [None if k is None else cache.get((locale, kind, k)) for k in keys]
    missing = [i for i, piece in enumerate(out) if piece is None]
    if missing:
        html = render_template(template, kind=kind, items=[items[i] for i in missing], **context)
        for i, part in zip(missing, html.split(PIECE), strict=False):
            out[i] = Markup(part.strip() + "\n")  # the same however many are rendered together
            if keys[i] is not None:
                cache.put((locale, kind, keys[i]), out[i])
    return [piece or Markup() for piece in out]


def call_label(call: str) -> str:
    """A call as shown on a button: «Здесь» (R-6: the same word in every language), Pass, the bid's name."""
    if call == HERE:
        return "«Здесь»"
    if call == PASS:
        return gettext("Pass")
    return tr(BIDS[call].name) if call in BIDS else call


def rules_error(form: Any, error: RulesError) -> None:
    form.form_errors.append(error_text(error))


def undo_offer(key: str) -> dict[str, Any] | None:
    """The one-tap Undo shown with "Hand 7 saved" on the scoresheet: the last hand's
    number, version and row id (so a stale tap never undoes a newer hand), or ``None``
    when there is nothing to undo or the evening is finished."""
    evening = units.get_evening(key)
    if evening is None or not evening.hands or evening.finished_at is not None:
        return None
    last = evening.hands[-1]
    return {"key": key, "number": last.number, "version": last.current.version, "hand_id": last.id,
            "form": ActionForm()}


def play_rules(ledger: Ledger, row: LedgerRow) -> PlayRules:
    """How the record of play of hand ``row`` is read (its declarer, contract, the
    variant's pack and trump rules, and the cards a player held after an upheld
    wrong-cards claim). The hand must have a declarer. Seats are those of the table that
    played the hand (:func:`table_row`: the players seated for it, ``0…``)."""
    ledger, row = table_row(ledger, row)
    setup, variant, r = ledger.setup, ledger.variant, row.ruling
    assert r.declarer is not None and r.contract is not None
    held = {c.accused: c.cards_held for c in row.facts.claims
            if c.upheld and c.kind == "wrong_cards" and c.cards_held is not None}
    return PlayRules(setup.n, r.declarer, r.contract.tricks, pack_size=variant.pack_size,
                     named_trump=row.facts.trump if variant.names_trump else None, must_trump=variant.must_trump,
                     misere=r.contract.id == "misere", held=held)


def table_row(ledger: Ledger, row: LedgerRow) -> tuple[Ledger, LedgerRow]:
    """The ledger and hand ``row`` as the table that played it sees them (issue 12): only
    the players seated for it, numbered ``0…`` clockwise (:func:`~scorer.evening.ledger.table_ledger`);
    both unchanged when everyone was seated."""
    seated = row.seated or tuple(range(ledger.setup.n))
    if seated == tuple(range(ledger.setup.n)):
        return ledger, row
    local = {seat: i for i, seat in enumerate(seated)}
    facts = to_table(row.facts, seated, ledger.setup.players)
    r = row.ruling
    ruling = dataclasses.replace(
        r, dealer=local[r.dealer], declarer=None if r.declarer is None else local[r.declarer],
        units=tuple(r.units[s] for s in seated),
        claims=tuple(dataclasses.replace(c, accused=local[c.accused], by=None if c.by is None else local[c.by])
                     for c in r.claims),
        next_dealer=local.get(r.next_dealer, 0),
        overruled=None if r.overruled is None else (tuple(r.overruled[0][s] for s in seated), r.overruled[1]))
    return table_ledger(ledger, seated), dataclasses.replace(
        row, facts=facts, ruling=ruling, totals=tuple(row.totals[s] for s in seated), seated=tuple(local.values()))


def with_record(row: LedgerRow, tricks: tuple[tuple[str, ...], ...]) -> HandFacts:
    """Hand ``row``'s facts with ``tricks`` as its record of play: the tricks won then
    come from the record; an empty record removes it, and the tricks it gave stay."""
    return dataclasses.replace(row.facts, record=tricks, tricks=None if tricks else row.ruling.tricks)


def row_of(ledger: Ledger, number: int) -> Any:
    """Hand ``number`` of the ledger. A number past the last hand (a hand undone on
    another phone, an old link) goes back to the scoresheet saying so; 0 is a 404."""
    if number > len(ledger.rows) >= 0 and number >= 1:
        flash(gettext("There is no hand %(number)s now (it may have been undone on another phone); nothing was "
                      "changed.", number=number))
        abort(redirect(url_for("sheet.scoresheet", key=(request.view_args or {}).get("key", ""))))
    if not 1 <= number <= len(ledger.rows):
        abort(404)
    return ledger.rows[number - 1]


# --- What pages and the PDF show of a ledger row, in the phone's language ---------------
@dataclass(frozen=True)
class Call:
    player: str
    call: str

    @property
    def label(self) -> str:
        if self.call == PASS:
            return _("pass")
        if self.call == HERE:
            return "«Здесь»"  # the dealer's word, the same in every language
        return i18n.tr(BIDS[self.call].name) if self.call in BIDS else self.call


def auction_of(ledger: Ledger, row: LedgerRow) -> list[Call]:
    """The calls of a hand with the player who made each, eldest hand first."""
    setup = ledger.setup
    if row.seated and row.seated != tuple(range(setup.n)):  # the table of that hand (issue 12)
        local = table_ledger(ledger, row.seated)
        facts = to_table(row.facts, row.seated, setup.players)
        return [Call(local.setup.players[seat], call)
                for seat, call in zip(ledger.variant.speakers(local.setup, facts), facts.auction)]
    seats = ledger.variant.speakers(setup, row.facts)
    return [Call(setup.players[seat], call) for seat, call in zip(seats, row.facts.auction)]


def result_label(row: LedgerRow) -> str:
    r = row.ruling
    return {Result.MADE: _("made"), Result.DEFEATED: _("defeated"), Result.ALL_PASSED: _("all passed"),
            Result.MISDEAL: _("misdeal")}[r.result]


def citation(rule_id: str) -> str:
    """``P-12 · 002_….txt · «Poeng og avslutning»``, or the id alone if unknown. The
    section heading is the source's own; "(source silent)" is said in the phone's language."""
    where = rule_source(rule_id)
    return f"{rule_id} · {where}" if where else rule_id


def rule_source(rule_id: str) -> str:
    """Where a rule comes from, without its id (for a line that shows the id already):
    ``002_….txt · «Poeng og avslutning»``; ``""`` if the id is unknown."""
    rule = RULES.get(rule_id)
    if rule is None:
        return ""
    section = _("(source silent)") if rule.section == "(source silent)" else rule.section
    return f"{rule.source} · «{section}»"


def signed(n: int) -> str:
    """``+4``, ``−12`` (a real minus sign), ``0``; digits grouped for the language."""
    return i18n.signed(n)


def book_title(book: Book) -> str:
    """``British Nap, basic (Pagat) · points`` or ``… · £0.10 a unit``."""
    variant = VARIANTS.get(book.key.variant)
    name = i18n.tr(variant.name) if variant else book.key.variant
    if book.stake is None:
        return _("%(variant)s · points", variant=name)
    return _("%(variant)s · %(stake)s a unit", variant=name, stake=i18n.money(book.stake, book.stake.minor))
