"""Check an evening file's record (issue 22 item 6): the Verify page (upload a file) and
``POST /api/verify`` (the file as JSON), as ``nap verify`` does
(:func:`scorer.evening.file.verify`, :mod:`scorer.evening.chain`). Anyone may: nothing
is stored, nothing is changed."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, jsonify, render_template
from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired

from ...evening.file import EveningFileError
from ...evening.limits import MAX_FILE_BYTES
from ...evening.verify import verify
from ...reports.words import tr
from ..answers import refused_json
from ..json_body import BadBody, body, json_blueprint
from ..permissions import permission

bp = Blueprint("verify", __name__)
api = json_blueprint("api_verify", __name__)


class VerifyForm(FlaskForm):
    """Upload an evening file (JSON) to check."""

    file = FileField(_l("Evening file (.json)"), validators=[FileRequired(_l("Choose a file to check."))])


def verdict_json(text: str | bytes) -> dict[str, Any]:
    """What the file's record says: ``{"whole": bool, "chained": bool, "fingerprint":
    "R3YE-F8JA", "altered_from": 3 | None, "where": "change 3 (hand 3)" | None}`` (``where``
    in the phone's language). Raises :class:`EveningFileError` for a file that is not an
    evening."""
    verdict = verify(text)
    return {"whole": verdict.whole, "chained": verdict.chained, "fingerprint": verdict.fingerprint,
            "altered_from": verdict.altered_from, "where": None if verdict.where is None else str(tr(verdict.where))}


def unreadable_text(error: EveningFileError) -> str:
    """An unreadable file's error in the phone's language, saying where."""
    message = str(tr(error.message))
    return gettext("%(where)s: %(message)s", where=error.where, message=message) if error.where else message


@bp.route("/verify", methods=["GET", "POST"])
@permission("public")
def page() -> Any:
    form = VerifyForm()
    result, error = None, None
    if form.validate_on_submit():
        try:
            result = verdict_json(form.file.data.read(MAX_FILE_BYTES + 1))
        except EveningFileError as refused:
            error = unreadable_text(refused)
    status = 422 if form.is_submitted() and result is None else 200
    return render_template("verify.html", form=form, result=result, error=error), status


@api.post("/verify")
@permission("public")
def verify_json() -> Any:
    """Check the evening file given as ``evening`` (a JSON object)."""
    data = body()
    if not isinstance(data.get("evening"), dict):
        raise BadBody(gettext("evening must be an evening file (a JSON object)."))
    try:
        return jsonify(verdict_json(json.dumps(data["evening"], ensure_ascii=False, separators=(",", ":"))))
    except EveningFileError as refused:
        return refused_json(unreadable_text(refused), refused.rule)
