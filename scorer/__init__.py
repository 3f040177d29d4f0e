"""Nap scorer: the scorekeeper and referee for Napoleon (Nap).

``scorer.rules`` and ``scorer.evening.ledger`` are the pure engine; ``scorer.web.app`` the Flask
web app. :func:`create_app` is imported lazily so that the engine and the ``nap``
command never load Flask.
"""

from __future__ import annotations

from typing import Any


def create_app(test_config: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
    """Build the Flask app; see :func:`scorer.web.app.create_app`."""
    from .web.app import create_app as _create_app

    return _create_app(test_config)
