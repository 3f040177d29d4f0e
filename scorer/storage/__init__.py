"""Storage: the database models (facts only), units of work, idempotency tokens, each
aggregate's writes, kept ledgers and the fingerprints they are checked by, phones and
their roles (the PIN budget), and the live revision memory.

Imports :mod:`scorer.rules` and :mod:`scorer.evening` below it, and Flask-SQLAlchemy;
never the web layer, reports or the command line.
"""

from .state_guard import install as _install_state_guard

_install_state_guard()  # before any row is loaded: see state_guard (a CPython 3.11 double free)
