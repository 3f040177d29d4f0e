"""The language menu's one route: ``GET /lang/<code>?next=<path>`` sets the phone's
language cookie (:mod:`scorer.web.i18n`) and goes back to the page."""

from __future__ import annotations

from flask import Blueprint, Response, redirect, request

from ..i18n import COOKIE, COOKIE_AGE, LANGUAGES, safe_next
from ..permissions import permission

bp = Blueprint("language", __name__)


@bp.get("/lang/<code>")
@permission("public")
def choose_language(code: str) -> Response:
    """Set this phone's language for a year and go back to the page it came from."""
    response = redirect(safe_next(request.args.get("next")), code=303)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=COOKIE_AGE, samesite="Lax", httponly=True,
                            secure=request.is_secure)
    return response
