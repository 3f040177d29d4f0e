"""The evening, pure: the ledger (the fold of every ruling, totals, the pool), the
settle-up and statistics, a hand as its table saw it, the codec and the evening file,
seasons across evenings, time zones; the record chained and its fingerprint (``chain``,
``verify``); a club night's seating, standings and event (``seating``, ``standings``,
``event``).

Standard library (and ``jsonschema`` for the evening file) only: no Flask, no database.
Imports only :mod:`scorer.rules` below it.
"""
