"""Groups of evenings: start a group, its page with the season, the season chart and PDF.

A group's page, chart and PDF are kept by the group's state (each evening's revision
and the merges, :func:`scorer.storage.groups.state`), so an unchanged season costs a few
small queries, not 50 evenings settled again.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from markupsafe import Markup

from ...evening.season import Book
from ...reports.chart import running_totals_svg
from ...reports.words import in_language, locale_code, signed
from ...rules import isolate
from ...storage import events, group_queries, groups, units
from ...storage.commands import AlreadySaved, Saved, execute
from ...storage.groups import AddToGroup, MergeNames, NewGroup, RemoveFromGroup, UnmergeNames
from ...storage.models import Group
from .. import access, season_pieces
from ..answers import form_answer, sender
from ..caches import RevisionCache, render_pieces
from ..group_forms import AddEveningForm, GroupForm, ItemForm, MergeForm
from ..permissions import permission
from .common import SVG_CSP, client_id, content_disposition

bp = Blueprint("groups", __name__)

#: The season by group state: settling every evening of a group is the slow part.
season_cache: RevisionCache[groups.Season] = RevisionCache(16)
#: Rendered season tables, charts and PDFs by (group state, language[, book]).
fragment_cache: RevisionCache[Markup] = RevisionCache(32)
chart_cache: RevisionCache[bytes] = RevisionCache(32)
season_pdf_cache: RevisionCache[bytes] = RevisionCache(8)
#: Rendered rows and lines of evenings, by what each shows (:func:`.common.render_pieces`).
piece_cache: RevisionCache[Markup] = RevisionCache(10_000)

#: The chart's own policy: pygal's SVG carries a <style>, which the app's policy forbids.


def load_group(key: str) -> Group:
    group = groups.get_group(key)
    if group is None:
        abort(404)
    return group


def season_for(group: Group) -> tuple[Any, groups.Season]:
    """The group's state and its season (from the cache when unchanged)."""
    state = groups.state(group)
    season = season_cache.get(state)
    if season is None:
        season = groups.season_of(group)
        season_cache.put(state, season)
    return state, season


@bp.route("/groups/new", methods=["GET", "POST"])
@permission("public")
def new_group() -> Any:
    form = GroupForm()
    if request.method == "GET":
        form.token.data = secrets.token_urlsafe(16)
    if form.validate_on_submit():
        outcome = execute(NewGroup(form.name.data or "", form.token.data or None), device=sender())
        if isinstance(outcome, AlreadySaved) and outcome.key:  # posted twice: the group the first post made
            return form_answer(outcome, saved=None, to=url_for(".group", key=outcome.key))
        to = url_for(".group", key=outcome.key) if isinstance(outcome, Saved) else url_for(".new_group")
        answer = form_answer(outcome, to=to, form=form, saved=_(
            "The group “%(name)s” is ready. Start its first evening, or add evenings you have played.",
            name=" ".join((form.name.data or "").split())[:80]))
        if answer is not None:
            return answer
        return render_template("group_new.html", form=form), 422
    return render_template("group_new.html", form=form), (422 if form.is_submitted() else 200)


def _page(group: Group, *, status: int = 200, add_form: AddEveningForm | None = None,
          merge_form: MergeForm | None = None, errors: dict[str, list[str]] | None = None) -> Any:
    state, season = season_for(group)
    locale = str(get_locale())
    fragment = fragment_cache.get((state, locale))
    if fragment is None:
        fragment = _season_fragment(group, season)
        fragment_cache.put((state, locale), fragment)
    names = sorted(season.spellings.items(), key=lambda kv: kv[1].casefold())
    merge_form = merge_form or MergeForm(formdata=None)
    merge_form.alias.choices = [(v, v) for _, v in names]
    merge_form.canonical.choices = [(v, v) for _, v in names]
    return render_template(
        "group.html", group=group, season=season, fragment=fragment, add_form=add_form or AddEveningForm(formdata=None),
        merge_form=merge_form, action=ItemForm(formdata=None), errors=errors or {},
        merges=[(a, season.spelling(a.alias), season.spelling(a.canonical)) for a in group.aliases],
        last=group_queries.last_in_group(group.id), club_nights=events.events_of_group(group),
        open_payments=_open_payments(group),
    ), status


def _open_payments(group: Group) -> list[tuple[Any, list[Any], int]]:
    """The group's closed money evenings with payments not marked paid (issue 22 item 7):
    ``(evening, the open payments in words, marks kept from before a correction)``."""
    from ...storage import payments
    from ..payment_words import lines_of

    return [(evening, [line for line in lines_of(ledger, money) if line.transfer.mark is None], len(money.was_paid))
            for evening, ledger, money in payments.open_in_group(group.id)]


def _season_fragment(group: Group, season: groups.Season) -> Markup:
    """The season's part of the group's page; each evening's row and line rendered only
    when it is new or changed (a row changes with the running totals before it). The
    pieces are printed in Python with the phone's language fixed once (:func:`_piece_helpers`,
    :mod:`scorer.web.season_pieces`: the text ``_season_pieces.html`` prints, without a
    call through Jinja per figure)."""
    helpers = _piece_helpers()
    book_rows = []
    for book in season.books:
        columns = [tuple(zip(p.results, p.cumulative)) for p in book.players]
        items = [(e, tuple(None if cell[0] is None else cell for cell in cells))
                 for e, cells in zip(book.evenings, zip(*columns) if columns else ((),) * len(book.evenings))]
        keys = [(e.key, e.name, e.played_on, cells) for e, cells in items]
        book_rows.append(Markup("".join(render_pieces(season_pieces.printer("row", helpers), "row", items, keys,
                                                      piece_cache))))
    lines = season.lines[::-1]
    keys = [None if e.problem else (e.key, e.name, e.played_on, e.variant, e.hands, e.winners) for e in lines]
    return Markup(render_template("_season.html", group=group, season=season, book_rows=book_rows, lines=Markup(
        "".join(render_pieces(season_pieces.printer("line", helpers), "line", lines, keys, piece_cache)))))


def _piece_helpers() -> dict[str, Any]:
    """What the season's pieces print with, the phone's language and the link to a
    scoresheet worked out once for thousands of pieces, not at each figure: the same
    texts and links as the template's own helpers (:func:`scorer.reports.words.in_language`)."""
    code = locale_code()
    sheet = url_for("sheet.scoresheet", key="KEY")
    prefix = sheet[:-len("KEY")] if sheet.endswith("/KEY") else None

    def links(endpoint: str, **values: Any) -> str:
        key = values.get("key")
        if endpoint == "sheet.scoresheet" and prefix is not None and len(values) == 1 and units.valid_key(key):
            return prefix + key
        return url_for(endpoint, **values)

    return {**in_language(code), "url_for": links}


@bp.get("/g/<key>")
@permission("view", of="group")
def group(key: str) -> Any:
    return _page(load_group(key))


@bp.post("/g/<key>/add")
@permission("manage", of="group")
def add_evening(key: str) -> Any:
    group = load_group(key)
    form = AddEveningForm()
    if form.validate_on_submit():
        evening_key = groups.evening_key_from(form.link.data or "")
        if evening_key and units.evening_revision(evening_key) is not None and not access.is_scorer(evening_key):
            form.link.errors = [_("Only a scorer of that evening can put it in a group: open it on this "
                                  "phone with its scorers' link or PIN first.")]
        else:
            outcome = execute(AddToGroup(key, form.link.data or ""), device=sender())
            name = outcome.detail if isinstance(outcome, Saved) else ""
            answer = form_answer(outcome, to=url_for(".group", key=key), form=form,
                                 saved=_("“%(name)s” is now in the group.", name=isolate(name)))
            if answer is not None:
                return answer
    return _page(group, status=422, add_form=form, errors={"add": _messages(form)})


@bp.post("/g/<key>/remove")
@permission("manage", of="group")
def remove_evening(key: str) -> Any:
    back = url_for(".group", key=key)
    form = ItemForm()
    if not form.validate_on_submit():
        return redirect(back)
    item = str(form.item.data or "")[:40]
    if units.evening_revision(item) is not None and not access.is_scorer(item):
        flash(_("Only a scorer of that evening can take it out of the group."))
        return redirect(back)
    outcome = execute(RemoveFromGroup(key, item), device=sender())
    name = outcome.detail if isinstance(outcome, Saved) else ""
    return form_answer(outcome, to=back, saved=_("“%(name)s” is no longer in the group; the evening itself is "
                                                 "unchanged.", name=name))


@bp.post("/g/<key>/merge")
@permission("manage", of="group")
def merge(key: str) -> Any:
    group = load_group(key)
    form = MergeForm()
    if form.validate_on_submit():
        command = MergeNames(key, str(form.alias.data or "")[:200], str(form.canonical.data or "")[:200])
        answer = form_answer(execute(command, device=sender()), to=url_for(".group", key=key) + "#merge", form=form,
                             saved=_("%(alias)s now counts as %(canonical)s in this group's season. No evening was "
                                     "changed.", alias=form.alias.data, canonical=form.canonical.data))
        if answer is not None:
            return answer
    return _page(group, status=422, merge_form=form, errors={"merge": _messages(form)})


@bp.post("/g/<key>/unmerge")
@permission("manage", of="group")
def unmerge(key: str) -> Any:
    back = url_for(".group", key=key) + "#merge"
    form = ItemForm()
    if not form.validate_on_submit():
        return redirect(back)
    raw = str(form.item.data or "")[:12]
    merge_id = int(raw) if raw.isdigit() else -1
    return form_answer(execute(UnmergeNames(key, merge_id), device=sender()), to=back,
                       saved=_("The two spellings count as two players again."))


def _messages(form: Any) -> list[str]:
    out = list(form.form_errors)
    for field in form:
        out.extend(str(e) for e in field.errors if not isinstance(e, (list, tuple, dict)))  # lazy strings too
    return out


def _book_index(season: groups.Season) -> int:
    try:
        index = int(request.args.get("book", "0")[:4])
    except ValueError:
        abort(404)
    if not 0 <= index < len(season.books):
        abort(404)
    return index


def chart_svg(book: Book, *, width: int = 800, height: int = 400, short_dates: bool = False) -> bytes:
    """The season chart of one book: cumulative totals, evening by evening (units).
    ``short_dates`` labels the evenings ``09-03`` when they are all in one year (a
    phone's narrow chart would cut ``2026-09-03`` short)."""
    days = [e.played_on for e in book.evenings]
    one_year = len({d.year for d in days}) <= 1
    labels = [d.isoformat()[5:] if short_dates and one_year else d.isoformat() for d in days]
    return running_totals_svg(
        [p.name for p in book.players], [p.cumulative for p in book.players],
        x_labels=labels, width=width, height=height,
    )


@bp.get("/g/<key>/chart.svg")
@permission("view", of="group")
def chart(key: str) -> Response:
    state, season = season_for(load_group(key))
    index = _book_index(season)
    svg = chart_cache.get((state, index))
    if svg is None:
        svg = chart_svg(season.books[index], width=440, height=330, short_dates=True)  # a phone's width
        chart_cache.put((state, index), svg)
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Content-Security-Policy"] = SVG_CSP
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/g/<key>/season.pdf")
@permission("view", of="group")
def season_pdf(key: str) -> Response:
    from ...reports.pdf import pdf_job

    group = load_group(key)
    state, season = season_for(group)
    locale = str(get_locale())
    pdf = season_pdf_cache.get((state, locale))
    if pdf is None:
        def build() -> str:  # inside the render slot (scorer.reports.pdf.pdf_job)
            charts = [Markup(chart_svg(book, width=760, height=380, short_dates=True).decode())
                      for book in season.books]
            return render_template("pdf/season.html", group=group, season=season, charts=charts, signed=signed,
                                   lang=locale.replace("_", "-"))

        pdf = pdf_job(build, owner=f"group:{key}", client=client_id())
        season_pdf_cache.put((state, locale), pdf)
    response = Response(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = content_disposition("inline", group.name, "pdf")
    return response
