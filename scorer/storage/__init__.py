"""Storage: the database models (facts only), units of work, idempotency tokens, each
aggregate's writes, kept ledgers, roles and the live revision memory.

Imports :mod:`scorer.rules` and :mod:`scorer.evening` below it, and Flask-SQLAlchemy;
never the web layer, reports or the command line.
"""
