"""How large a request body may be, by route (issue 23, item 7).

Every route takes at most ``MAX_CONTENT_LENGTH`` (1 MiB: a form or a JSON command); the
import routes (:data:`IMPORT_ENDPOINTS`, the Import page and ``POST /api/evenings/import``, and
the Verify page and ``POST /api/verify``, which read a file as large)
take an evening file of up to :data:`~scorer.evening.limits.MAX_FILE_BYTES` with its
envelope, ``NAP_MAX_IMPORT_BODY`` (:data:`~scorer.evening.limits.MAX_IMPORT_BODY`, 32 MiB
and 64 KiB). A larger body is answered 413 (a page, or JSON under ``/api/``) before it is
read, and nothing is saved. waitress (:mod:`scorer.cli.serve`) and nginx
(``deploy/nginx.conf``) let the import routes' bodies through and no larger.
"""

from __future__ import annotations

from flask import Request, current_app

#: The routes that read an evening file.
IMPORT_ENDPOINTS = frozenset({"start.import_evening", "api_evenings.import_evening",
                              "verify.page", "api_verify.verify_json"})


class NapRequest(Request):
    """Flask's request, whose ``max_content_length`` is ``NAP_MAX_IMPORT_BODY`` on the import
    routes (once the route is matched) and ``MAX_CONTENT_LENGTH`` elsewhere."""

    @property
    def max_content_length(self) -> int | None:
        rule = self.url_rule
        if self._max_content_length is None and current_app and rule is not None and rule.endpoint in IMPORT_ENDPOINTS:
            return current_app.config["NAP_MAX_IMPORT_BODY"]  # type: ignore[no-any-return]
        return super().max_content_length

    @max_content_length.setter
    def max_content_length(self, value: int | None) -> None:
        self._max_content_length = value
