"""The scoresheet and what is made from it: the chart, the rules page, the JSON, CSV
and PDF exports; finishing an evening and opening it again."""

from __future__ import annotations

import re
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import get_locale, gettext
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from ...evening.file import dumps
from ...evening.settle import settle_up, statistics
from ...reports.chart import ledger_chart_svg
from ...reports.pdf import (
    PdfBusy,
    PdfCrashed,
    PdfError,
    PdfFailed,
    evening_pdf_html,
    paper_of,
    pdf_job,
    time_limit,
)
from ...reports.presenters import seat_lines
from ...reports.spreadsheet import ledger_csv, score_sheet_csv
from ...storage import disputes, evening_writes, evenings, payments, units
from ...storage.commands import Saved, SetFinished, execute
from ...storage.groups import evening_head, sheet_head
from ...storage.kept_ledgers import Settled, resumable
from ...storage.notes import SetEveningNote, StartRematch, in_event, rematch_of
from ...storage.records import record_of
from .. import access, compression
from ..answers import form_answer, outcome_text, sender
from ..caches import (
    by_revision,
    changes_cache,
    chart_cache,
    frame_cache,
    link_root,
    page_cache,
    pdf_cache,
    pdf_failures,
    recall_sheet,
    remember_sheet,
    sheet_cache,
)
from ..event_pages import event_line
from ..payment_words import lines_of
from ..permissions import permission
from ..sheet_changes import HANDS, Rendered, digests_from, row_digest, sheet_changes
from ..table_forms import ActionForm
from .common import SVG_CSP, client_id, content_disposition, load_evening, undo_offer

bp = Blueprint("sheet", __name__)


def render_sheet(found: Settled) -> Rendered:
    """The scoresheet's fragment with :data:`HANDS` where its rows of hands go, those rows
    (newest first) and their digests (:func:`scorer.web.sheet_changes.digests_of`). Each row
    without a mark (disputed, unconfirmed) is rendered and hashed once, when its hand is new
    or changed (:meth:`scorer.storage.kept_ledgers.Settled.per_hand`, by language);
    the few rows with a mark are rendered again for each revision (a dispute changes the
    revision, not the hand). An evening with changes of seats (issue 12) is rendered whole,
    its lines of seat changes between the rows, and nothing of it is kept."""
    evening, ledger = found.head, found.ledger
    names = ledger.setup.players
    lines = seat_lines(ledger)
    disputed, waiting = disputes.marks(evening.id, [hand_id for hand_id, _ in found.fingerprint],
                                       evening.confirmation, found.marks)
    digested = None
    if resumable(ledger):
        variant = (str(get_locale()), link_root())
        rows = list(found.per_hand(("sheet", *variant),
                                   lambda start, stop: _sheet_rows(found, start, stop, {}, set(), set())))
        digested = list(found.per_hand(("sheet digests", *variant),
                                       lambda start, stop: [row_digest(row) for row in rows[start:stop]]))
        for number in sorted(disputed | waiting):
            if number <= len(rows):
                rows[number - 1] = _sheet_rows(found, number - 1, number, {}, disputed, waiting)[0]
                digested[number - 1] = row_digest(rows[number - 1])
    else:
        rows = _sheet_rows(found, 0, len(ledger.rows), lines, disputed, waiting)
        if ledger.rows and lines.get(1):  # the changes before the first hand, below it
            rows.insert(0, Markup("".join(f'<tbody class="seats"><tr><td colspan="{ledger.setup.n}">'
                                          f"{Markup.escape(line)}</td></tr></tbody>" for line in lines[1]) + "\n"))
    closed = evenings.is_closed(evening, ledger)
    pay_money = payments.money_of(evening.id, ledger, closed) if not ledger.variant.points_only else None
    fragment = Markup(
        render_template(
            "_sheet.html", evening=evening, ledger=ledger, closed=closed, pay_money=pay_money,
            pay_lines=lines_of(ledger, pay_money) if pay_money is not None else None,
            hands=Markup(HANDS),
            settle=None if ledger.variant.points_only else settle_up(ledger),
            stats=found.running("statistics", lambda before, start, stop: statistics(ledger, start, stop, before))
            if resumable(ledger) else statistics(ledger), seat_lines=lines,
            start_names=[ledger.setup.players[s] for s in ledger.setup.seated_at_start],
            disputed=disputed, waiting=waiting, record=record_of(found),
            rematch=rematch_of(evening.id) if evenings.is_closed(evening, ledger) else None,
            in_event=closed and in_event(evening.id),
            party=lambda p: names[p] if isinstance(p, int) else (ledger.variant.pool_name(ledger.setup.options)
                                                                 or "pool"),
        )
    )
    return (evening.name, evening.finished_at is not None, fragment, tuple(rows[::-1]),
            digests_from(fragment, rows[::-1], None if digested is None else digested[::-1]))


def _sheet_rows(found: Settled, start: int, stop: int, lines: dict[int, list[str]], disputed: set[int],
                waiting: set[int]) -> list[Markup]:
    """The scoresheet's rows of hands ``start + 1`` to ``stop``, in order, rendered in one
    go, each after the ``lines`` of seat changes that follow its hand, and with its marks
    if its number is in ``disputed`` or ``waiting``."""
    html = render_template("_sheet_rows.html", evening=found.head, ledger=found.ledger,
                           rows=found.ledger.rows[start:stop], seat_lines=lines, disputed=disputed, waiting=waiting)
    return [Markup(part.strip() + "\n") for part in html.split("<!--row-->")[:stop - start]]


def shown_as(scorer: bool) -> str:
    """What a page was rendered for, as its ``data-changes`` URL carries it: the phone's
    language and role, e.g. ``"ru/viewer"``. A phone whose language or role changed since
    its page was rendered is told to reload (its page's parts would not match)."""
    return f"{get_locale()}/{'scorer' if scorer else 'viewer'}"


@bp.get("/e/<key>")
@permission("view")
def scoresheet(key: str) -> str:
    # the fragment differs by language and by role (scorers get the buttons that change things)
    # one small query for the revision and the group: an unchanged evening is served from the cache
    head = sheet_head(key)
    if head is None:
        abort(404)
    revision, group, row, in_event = head
    scorer = access.is_scorer(key)
    locale = str(get_locale())
    access.remember(key)
    # the whole page is the same for every phone with this language and role, unless it
    # has a message waiting (flash) or a form that carries its own CSRF token (Reopen)
    # and every link in it starts with the root it was built under (never a request's header)
    root = link_root()
    page_key = (key, revision, locale, scorer, group, root)
    plain = "_flashes" not in session
    page = page_cache.get(page_key) if plain else None
    if page is not None:
        return with_event_line(page, key, scorer, in_event)
    rendered = by_revision(sheet_cache, key, render_sheet, locale, scorer, root, revision=revision, head=row)
    title, finished, fragment, rows, _ = rendered
    # the same for every phone of this language and role; not a scorer's page with a
    # form in its fragment that needs this phone's CSRF token (Rematch). A page with a
    # message waiting (the saving phone's redirect: "Hand 7 saved" and its Undo) is the
    # same frame with this phone's messages in its slot (issue 23 item 4)
    framed = not (scorer and finished) and CSRF not in fragment
    shared = plain and framed
    if framed:
        frame = frame_of(key, locale, scorer, group, title, finished, root)
        flashes = no_flashes() if plain else render_template("_flashes.html", undo=undo_offer(key) if scorer else None)
        before, _, after = frame.replace(FLASHES, flashes, 1).replace(REVISION, str(revision)).partition(SHEET)
        page = "".join((before, fragment, after))
    else:
        page = render_template("scoresheet.html", key=key, title=title, finished=finished, sheet=fragment,
                               changes=url_for(".changes", key=key, shown=shown_as(scorer)),
                               action=ActionForm() if scorer else None, scorer=scorer, revision=revision,
                               group=group, undo=undo_offer(key) if scorer and not plain else None)
    if scorer and CSRF in page:
        page = page.replace(CSRF, str(Markup('<input type="hidden" name="csrf_token" value="%s">') % generate_csrf()))
    before, _, after = page.partition(HANDS)
    page = "".join((before, *rows, after))
    if shared:
        page_cache.put(page_key, page)
    page = with_event_line(page, key, scorer, in_event)
    # what live updates diff against, kept once the page has read all it reads: keeping it
    # commits (the request's transaction, or a unit of work of its own), and no read begins
    # another transaction after it
    remember_sheet(key, (locale, scorer, root), revision, rendered)
    return page


def with_event_line(page: str, key: str, scorer: bool, in_event: bool = True) -> str:
    """The scoresheet with, for a table of a club night, the event's line above the score
    (which table of which round; the next table of each player once it is seated): one small
    query, never cached with the page (the next round is seated by another table's finish).
    ``in_event`` ``False``: the table is of no event (read with its row): no line, no query."""
    line = event_line(key, scorer) if in_event else Markup("")
    if not line:
        return page
    if 'id="round-over"' in line or "data-by-hands" in line:
        page = without_evening_end(page, 'id="round-over"' in line)
    script = Markup('<script src="%s" defer></script>') % url_for("static", filename="event-line.js")
    return page.replace("<div data-live=", f"{line}{script}<div data-live=", 1)


#: The scoresheet's lines of the evening's own end (P-14, B-14) and, once the table's round
#: is over, its next hand (the dealer line and the "Record hand" button).
_EVENING_END = re.compile(r'\s*<p class="(?:remaining|to-deal)">.*?</p>', re.S)
_NEXT_HAND = re.compile(r'\s*<p class="next" .*?</p>|\s*<div class="recordbar"><a [^>]*id="record-hand".*?</div>', re.S)


def without_evening_end(page: str, over: bool) -> str:
    """A club night's table plays its round, not the evening's agreed end: the scoresheet
    without the lines of that end (the event's line says how many hands the round has left)
    and, once the round is over at this table, without its next hand (the event's line
    offers "Finish this table"). ``static/app.css`` hides the same after a live update."""
    page = _EVENING_END.sub("", page)
    return _NEXT_HAND.sub("", page) if over else page


#: Where the scoresheet's fragment, its revision and this phone's messages go in its frame
#: (:data:`frame_cache`): HTML comments, which no text a phone typed can contain (it is escaped).
SHEET, REVISION, FLASHES = "<!--sheet-->", "<!--revision-->", "<!--flashes-->"


_NO_FLASHES: list[str] = []


def no_flashes() -> str:
    """What ``_flashes.html`` renders with no message waiting (its whitespace), rendered
    once: a request with no message (so none is taken from its session)."""
    if not _NO_FLASHES:
        _NO_FLASHES.append(render_template("_flashes.html", undo=None))
    return _NO_FLASHES[0]


def frame_of(key: str, locale: str, scorer: bool, group: Any, title: str, finished: bool, root: str) -> str:
    """The scoresheet's page around its fragment, its revision and its messages (kept in
    :data:`frame_cache`: the same for every phone of this language and role)."""
    frame_key = (key, locale, scorer, group, title, finished, root)
    frame = frame_cache.get(frame_key)
    if frame is None:
        frame = render_template("scoresheet.html", key=key, title=title, finished=finished, sheet=Markup(SHEET),
                                changes=url_for(".changes", key=key, shown=shown_as(scorer)), action=None,
                                scorer=scorer, revision=Markup(REVISION), group=group, undo=None,
                                flash_slot=Markup(FLASHES))
        frame_cache.put(frame_key, frame)
    return frame
#: Where a form in the scoresheet's fragment (shared by every phone) takes this phone's CSRF
#: token: filled in when the page is made; a part placed by a live update has none
#: (static/rematch.js sends the JSON command instead).
CSRF = "<!--csrf-->"


@permission("manage")
def _set_finished(key: str, finished: bool) -> Any:
    """Close the evening (no more hands) or open it again."""
    evening = units.get_evening(key)
    if evening is None:
        abort(404)
    if ActionForm().validate_on_submit():
        return form_answer(execute(SetFinished(key, finished), device=sender()), to=url_for(".scoresheet", key=key),
                           saved=gettext("The evening is finished. Download the PDF to keep it.") if finished
                           else gettext("The evening is open again."))
    return redirect(url_for(".scoresheet", key=key))


bp.add_url_rule("/e/<key>/finish", "finish", _set_finished, methods=["POST"], defaults={"finished": True})


@bp.get("/e/<key>/finish")
@permission("manage")
def confirm_finish(key: str) -> str:
    """Ask before closing the evening: a stray tap at 11 pm must not end it."""
    evening = units.get_evening(key)
    if evening is None:
        abort(404)
    return render_template("confirm_finish.html", evening=evening, action=ActionForm())


bp.add_url_rule("/e/<key>/reopen", "reopen", _set_finished, methods=["POST"], defaults={"finished": False})


@bp.post("/e/<key>/rematch")
@permission("score")
def rematch(key: str) -> Any:
    """One tap after the end (issue 25 item 8): a new evening with the same players, seats,
    rules, options, stake, group and time zone; the next dealer in turn deals first. A
    second tap (or another phone's) opens the one made."""
    if units.get_evening(key) is None:
        abort(404)
    if not ActionForm().validate_on_submit():
        return redirect(url_for(".scoresheet", key=key))
    outcome = execute(StartRematch(key), device=sender())
    if isinstance(outcome, Saved) and outcome.detail:
        flash(gettext("Rematch started: the same players, a new evening. Good luck!") if outcome.changed
              else gettext("The rematch had already started: here it is."))
        return redirect(url_for(".scoresheet", key=outcome.detail))
    return form_answer(outcome, saved=None, to=url_for(".scoresheet", key=key))


@bp.route("/e/<key>/note", methods=["GET", "POST"])
@permission("score")
def evening_note(key: str) -> Any:
    """The table's line of free text about the evening (issue 25 item 7); it may be
    written on a finished evening too (it changes no total)."""
    evening = units.get_evening(key)
    if evening is None:
        abort(404)
    form = ActionForm()
    note = evening.note
    if request.method == "POST" and form.validate_on_submit():
        note = str(request.form.get("note", ""))  # counted whole: the refusal says its real length
        revision = request.form.get("revision", "")
        command = SetEveningNote(key, note, int(revision) if revision.isascii() and revision.isdigit()
                                 and len(revision) <= 9 else None)
        outcome = execute(command, device=sender())
        if isinstance(outcome, Saved):
            flash(gettext("The note on the evening is saved.") if outcome.changed else gettext("Nothing changed."))
            return redirect(url_for(".scoresheet", key=key))
        form.form_errors.append(outcome_text(outcome))
    status = 422 if request.method == "POST" else 200
    return render_template("evening_note.html", evening=evening, form=form, note=note), status


@bp.get("/e/<key>/rules")
@permission("view")
def rules(key: str) -> str:
    """The variant's rules in plain words with this table's options filled in."""
    evening, ledger = load_evening(key)
    return render_template(f"rules/{ledger.variant.id}.html", evening=evening, ledger=ledger,
                           setup=ledger.setup, o=ledger.setup.options, stake=ledger.setup.stake,
                           variant=ledger.variant)


@bp.get("/e/<key>/evening.json")
@permission("view")
def export_json(key: str) -> Response:
    evening = units.get_evening(key)  # facts only: works even if a stored hand no longer settles
    if evening is None:
        abort(404)
    body = dumps(evening_writes.export_evening(evening))
    response = Response(body, mimetype="application/json")
    response.headers["Content-Disposition"] = content_disposition("attachment", evening.name, "json")
    return response


@bp.get("/e/<key>/ledger.csv")
@permission("view")
def export_csv(key: str) -> Response:
    """The ledger for spreadsheets (:func:`scorer.reports.spreadsheet.ledger_csv`)."""
    evening, ledger = load_evening(key)
    response = Response(ledger_csv(ledger), mimetype="text/csv")
    response.headers["Content-Disposition"] = content_disposition("attachment", evening.name, "csv")
    return response


@bp.get("/e/<key>/scoresheet.csv")
@permission("view")
def export_spreadsheet(key: str) -> Response:
    """The score sheet as a spreadsheet opens it, in the phone's language
    (:func:`scorer.reports.spreadsheet.score_sheet_csv`)."""
    evening, ledger = load_evening(key)
    response = Response(score_sheet_csv(ledger), mimetype="text/csv")
    response.headers["Content-Disposition"] = content_disposition("attachment", f"{evening.name} score sheet", "csv")
    return response


@bp.get("/e/<key>/evening.pdf")
@permission("view")
def export_pdf(key: str) -> Any:
    """The evening's PDF in the phone's language, on A4 or ``?paper=letter`` (anything
    else: A4). A render past ``PDF_TIME_LIMIT`` seconds is stopped: 503 with a clear page."""
    paper = paper_of(request.args.get("paper"))
    revision = units.evening_revision(key)
    if revision is None:
        abort(404)
    cache_key = (key, revision, str(get_locale()), paper)
    pdf = pdf_cache.get(cache_key)
    if pdf is None:
        # a PDF that failed is answered at once (pdf_error): until the evening changes when
        # the document caused it, for a while when the worker or the load did (then tried again);
        # the evening is settled and its HTML built only once a render slot is held
        pdf = pdf_failures.run((*cache_key, time_limit()), lambda: pdf_job(
            lambda: evening_pdf_html(*load_evening(key), paper), owner=key, client=client_id()))
        pdf_cache.put(cache_key, pdf)
    response = Response(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = content_disposition("inline", units.evening_name(key), "pdf")
    return response


@bp.app_errorhandler(PdfError)
def pdf_error(error: PdfError) -> Any:
    """Any PDF (the evening's, a season's) that took too long or failed: 503 with a clear
    page in the phone's language, never a 500 or a hung worker. ``Retry-After``: 10 s when
    every render slot is busy; the seconds left of a remembered failure's wait; none for a
    failure the document caused (asking again does not help until the evening changes);
    else 60 s."""
    if isinstance(error, PdfBusy):
        headers = {"Retry-After": "10"}
    elif error.retry_after is not None:
        headers = {"Retry-After": str(error.retry_after)}
    elif isinstance(error, PdfFailed) and not isinstance(error, PdfCrashed):
        headers = {}
    else:
        headers = {"Retry-After": "60"}
    return render_template("error.html", code=503, message=str(error)), 503, headers


@bp.get("/e/<key>/chart.svg")
@permission("view")
def chart(key: str) -> Response:
    """The running-totals chart as SVG (pygal, no script), shown on the scoresheet in an
    ``<img>``. Its own CSP lets pygal's ``<style>`` apply and nothing else load."""
    # drawn small, so that its words stay legible on a phone (the PDF draws its own, larger)
    # the revision as the live poll knows it, if that is the page's (``?r=``) or newer: else read
    known, shown = units.revisions().cached(key), request.args.get("r", type=int)
    kept = by_revision(chart_cache, key, lambda found: compression.Kept(
        ledger_chart_svg(found.ledger, width=440, height=320)),
        revision=known if known is not None and shown is not None and shown <= known else None)
    response = Response(kept.body, mimetype="image/svg+xml")
    response.headers["Content-Security-Policy"] = SVG_CSP
    response.add_etag()
    compression.keep_compressed(kept.compressed)  # compressed once per coding, as it is kept
    return response.make_conditional(request)


@bp.get("/e/<key>/changes")
@permission("view")
def changes(key: str) -> Response:
    """What changed on the scoresheet since revision ``since`` for this phone's language and
    role (``shown``, :func:`shown_as`, must match the page's): ``{"revision": R, "parts": …,
    "rows": …, "removed": …}`` (:func:`sheet_changes`), or ``{"revision": R, "reload":
    true}`` when the phone should fetch the page (its revision is no longer in memory,
    :func:`scorer.web.caches.recall_sheet`; its language or role changed; or the change is
    not one :func:`sheet_changes` can say).
    A viewer's page is answered as a viewer's, its phone's role not read (:func:`access.role_shown`).
    (docs/api.md) Never kept by a cache: the answer depends on the phone's cookies. Each process
    makes an answer once (:data:`scorer.web.caches.changes_cache`) for the revision the live poll
    knows (:func:`scorer.storage.units.polled_revision`) if newer than ``since``, else read."""
    since = request.args.get("since", type=int)
    head = None

    def read() -> int | None:
        nonlocal head
        head = evening_head(key)
        return None if head is None else head[0]

    revisions = units.revisions()
    revision = revisions.cached(key)
    if revision is None:
        revision = revisions.fill(key, read)
    elif since is None or since >= revision:
        revision = read()
    if revision is None:
        abort(404)
    asked = request.args.get("shown", "")
    scorer = access.role_shown(key, asked)
    variant = (str(get_locale()), scorer, link_root())
    shown = asked == shown_as(scorer)
    if shown and since is not None and since < revision:
        kept = changes_cache.get((key, revision, since, *variant))
        if kept is None:
            if head is None:  # the revision came from memory: the evening's row for the render
                head = evening_head(key)
                if head is None:
                    abort(404)
            kept = _changes_since(key, since, variant, head)
        response = current_app.response_class(kept.body, mimetype="application/json")
        compression.keep_compressed(kept.compressed)
    else:
        response = jsonify(revision=revision, **({"parts": {}, "rows": {}, "removed": []} if shown and since == revision
                                                 else {"reload": True}))
    response.headers["Cache-Control"] = "no-store"
    response.vary.add("Cookie")
    response.vary.add("Accept-Language")
    return response


def _changes_since(key: str, since: int, variant: tuple[str, bool, str], head: Any) -> compression.Kept:
    """The answer of :func:`changes` for a phone at revision ``since`` (older than the
    evening's, ``head``: :func:`scorer.storage.groups.evening_head`), kept in
    :data:`changes_cache` when it holds for good: made from the render of the evening's revision and
    from the digests of revision ``since`` (not kept when these are gone: a reload)."""
    revision, _group, row = head
    answer: dict[str, Any] = {"revision": revision}
    delta: dict[str, Any] | None = None
    old = recall_sheet(key, variant, since) if since < revision else None
    if old is not None:
        new = by_revision(sheet_cache, key, render_sheet, *variant, revision=revision, head=row)
        remember_sheet(key, variant, revision, new)
        delta = sheet_changes(old, new)
    answer.update(delta if delta is not None else {"reload": True})
    kept = compression.Kept(jsonify(answer).get_data())
    if old is not None and sheet_cache.get((key, revision, *variant)) is new:  # the render of that revision
        changes_cache.put((key, revision, since, *variant), kept)
    return kept
