"""Checking an evening file's record (issue 22 item 6): ``nap verify``, the Verify page and
``POST /api/verify`` (:mod:`scorer.evening.chain`)."""

from __future__ import annotations

import json

from . import chain
from .file import loads, record_of


def verify(text: str | bytes) -> chain.Verdict:
    """Check an evening file's record: the :class:`~scorer.evening.chain.Verdict`
    (``chained`` false for a file that carries no chain: nothing to check, its facts'
    fingerprint only). Raises :class:`~scorer.evening.file.EveningFileError` for a file
    that cannot be read as an evening at all (bad JSON, the wrong shape, facts the rules
    refuse)."""
    evening = loads(text, check_chain=False)
    data = json.loads(text)
    if "chain" not in data:
        return chain.Verdict(False, chain.summary(record_of(evening))[0], chained=False)
    return chain.check_written(record_of(evening), data)
