"""Starting: the home page, a new evening (choose the rules, then the table), import
of an evening file, and the health check."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template, request, url_for
from flask_babel import gettext

from ...evening.limits import MAX_FILE_BYTES
from ...rules import VARIANTS, Stake, isolate
from ...storage import group_queries, units
from ...storage.commands import AlreadySaved, Outcome, Saved, execute
from ...storage.evening_writes import ImportEvening, NewEvening
from .. import access
from ..answers import form_answer, sender
from ..demo import DEMO_FILE
from ..evening_forms import ImportForm, evening_form_for
from ..i18n import example_number
from ..permissions import permission

bp = Blueprint("start", __name__)


@bp.get("/healthz")
@permission("public")
def healthz() -> Response:
    """A trivial route: the baseline of the benchmark."""
    return Response("ok", mimetype="text/plain")



@bp.get("/")
@permission("public")
def index() -> str:
    # only the tables this phone has opened: a table's link is its key, never listed to strangers
    return render_template("index.html", evenings=group_queries.evenings_by_keys(access.seen_keys()), demo=demo_link(),
                           variant_names={v.id: v.name for v in VARIANTS.values()})



def demo_link() -> str | None:
    """The demo evening's scorers' link path, if ``flask demo`` loaded one that still exists."""
    path = Path(current_app.instance_path) / DEMO_FILE
    try:
        key, edit_key = path.read_text().split()[:2]
    except (OSError, ValueError):
        return None
    if units.evening_revision(key) is None:
        return None
    return f"/e/{key}/scorer/{edit_key}"


def _group_arg() -> Any:
    """The group a new evening starts in (``?group=<key>``, from the group's page), or
    ``None``; an unknown group key is a 404, never an evening quietly left out of it."""
    key = request.args.get("group")
    if not key:
        return None
    from ...storage.groups import get_group

    group = get_group(key)
    if group is None:
        abort(404)
    return group



@bp.get("/new")
@permission("public")
def choose_variant() -> str:
    return render_template("choose_variant.html", variants=VARIANTS.values(), group=_group_arg())



@bp.route("/new/<variant_id>", methods=["GET", "POST"])
@permission("public")
def new_evening(variant_id: str) -> Any:
    variant = VARIANTS.get(variant_id)
    if variant is None:
        abort(404)
    group = _group_arg()  # the form posts back to this URL, ?group=… included
    form = evening_form_for(variant)
    last = group_queries.last_in_group(group.id) if group is not None and request.method == "GET" else None
    if last is not None and last.variant == variant.id:  # the group's usual table (issue 12)
        values = group_queries.usual_table(last)
        if values.get("stake"):  # "0.125" as this phone writes it ("0,125"), read back the same
            values["stake"] = example_number(values["stake"])
        form = evening_form_for(variant, formdata=None, **values)
    if request.method == "GET":
        form.token.data = secrets.token_urlsafe(16)
    if form.validate_on_submit():
        names, first = form.seated()
        stake = None
        if form.scoring.data == "money":
            stake = Stake(form.stake_minor(), (form.currency.data or "").strip())
        command = NewEvening(variant.id, tuple(names), first, form.options(), stake, name=form.name.data or "",
                             draw=tuple(form.draw()), group_id=group.id if group else None, time_zone=form.zone(),
                             token=form.token.data or None)
        answer = _made(execute(command, device=sender()), "start", form,
                       saved=gettext("The evening has started. Good luck!"))
        if answer is not None:
            return answer
    status = 422 if form.is_submitted() else 200
    return render_template("new_evening.html", form=form, variant=variant, group=group), status


def _made(outcome: Outcome, via: str, form: Any, saved: str) -> Any:
    """The answer to a creating form: the new evening's scoresheet, this phone its first
    scorer; posted twice, the evening the first post made (this phone stays its scorer)
    and a line saying nothing was made again (303); refused, ``None`` with the refusal in
    ``form`` (the caller shows it again); anything else back to the form with why."""
    key = outcome.key if isinstance(outcome, (Saved, AlreadySaved)) else None
    if key:
        access.grant_scorer(key, via=via)  # the table's creator is its first scorer
    to = url_for("sheet.scoresheet", key=key) if key else request.full_path.rstrip("?")
    return form_answer(outcome, saved=saved, to=to, form=form)


@bp.route("/import", methods=["GET", "POST"])
@permission("public")
def import_evening() -> Any:
    form = ImportForm()
    if request.method == "GET":
        form.token.data = secrets.token_urlsafe(16)
    if form.validate_on_submit():
        data = form.file.data.read(MAX_FILE_BYTES + 1)  # the engine reads the bytes (and refuses more)
        outcome = execute(ImportEvening(data, time_zone=form.zone(), token=form.token.data or None), device=sender())
        name = units.evening_name(outcome.key) if isinstance(outcome, Saved) else ""
        answer = _made(outcome, "import", form, saved=gettext("Imported “%(name)s”.", name=isolate(name)))
        if answer is not None:
            return answer
    return render_template("import.html", form=form), (422 if form.is_submitted() else 200)
