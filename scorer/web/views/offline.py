"""Play anywhere: the service worker, served from the site's root so its scope is the
whole site (``/``). It keeps the scoresheet, quick entry and Big totals of the tables
this phone has open for when the network is gone (``static/sw.js``); the hands typed
meanwhile wait in the page's outbox (``static/outbox.js``) and go out as JSON commands.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, send_from_directory

from ..permissions import permission

bp = Blueprint("offline", __name__)


@bp.get("/sw.js")
@permission("public")
def service_worker() -> Response:
    """``static/sw.js`` at the root, never cached by HTTP (a new version is picked up at
    once), allowed to control the whole site."""
    response = send_from_directory(current_app.static_folder or "static", "sw.js", max_age=0,
                                   mimetype="text/javascript")
    response.headers["Service-Worker-Allowed"] = "/"
    response.headers["Cache-Control"] = "no-cache"
    return response
