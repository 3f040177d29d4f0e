"""The between-hands part of a variant: the next deal, the pool's name and the end point.

Defaults: the next dealer shuffles (``rule_deal_passes``), every hand counts, no agreed
number of hands or deals (P-14, B-14), no target score. The pool is the variant's pool
part (:mod:`.pool`: ``hoyle``'s :class:`~.pool.Pool`, H-16, ``russian36``'s
:class:`~.pool.Treasure`, R-2; ``None`` for none). ``pagat`` (P-4, P-14), ``hoyle``
(H-4) and ``napoleao`` (B-14) override what their sources say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..core import Bid, EveningSetup, Text
from .pool import PoolPart


class BetweenHands:
    """The between-hands steps of :class:`~scorer.rules.variants.base.Variant` (a mixin part)."""

    rule_deal_passes: ClassVar[str]
    rule_end: ClassVar[str] = "P-14"  # the agreed end of the evening
    #: The pool part (:class:`~.pool.Pool`, :class:`~.pool.Treasure`), or ``None``.
    pool: ClassVar[PoolPart | None] = None
    deal_note: ClassVar[str] = Text("Shuffle and deal five cards each.")

    def shuffle_after(self, contract: Bid | None, made: bool) -> bool:
        """Whether the next dealer shuffles (rather than gathers and cuts)."""
        return True

    def shuffle_note(self, shuffle: bool) -> tuple[str, str]:
        """``(rule id, sentence)`` telling the next dealer how to prepare the pack."""
        return self.rule_deal_passes, self.deal_note

    def all_pass_counts(self, options: Mapping[str, Any]) -> bool:
        """Whether an all-pass hand counts towards the agreed end point."""
        return True

    def hands_to_play(self, setup: EveningSetup) -> int | None:
        """The number of counted hands agreed for the evening (B-14), or ``None``."""
        return None

    def deals_each(self, setup: EveningSetup) -> int | None:
        """The counted deals each player gives before the agreed end (P-14), or ``None``."""
        return None

    @property
    def rule_pool_end(self) -> str | None:
        """The rule of what happens to the pool (treasure) at the end (H-16, R-2), if any."""
        return self.pool.rule if self.pool is not None else None

    def pool_name(self, options: Mapping[str, Any]) -> str | None:
        """What the table calls its pool ("Pool", "Treasure"), or ``None`` without one."""
        return self.pool.name(options) if self.pool is not None else None

    def pool_at_end(self, options: Mapping[str, Any]) -> str:
        """What happens to chips left in the pool at the end: ``"share"`` or ``"leave"``."""
        return self.pool.at_end(options) if self.pool is not None else "leave"

    def target_score(self, options: Mapping[str, Any]) -> int | None:
        """A total that ends the evening when a player reaches it, or ``None``."""
        return None
