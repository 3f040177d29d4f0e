"""The between-hands part of a variant: the next deal, the pool's name and the end point.

Defaults: the next dealer shuffles (``rule_deal_passes``); ``pagat`` (P-4) and ``hoyle``
(H-4) override how the next deal is prepared. The pool is the variant's ``pool`` part
(:mod:`.pool`: ``hoyle``'s :class:`~.pool.Pool`, H-16, ``russian36``'s
:class:`~.pool.Treasure`, R-2; ``None`` for none). The end point is its ``end`` part, an
object with its own options (``variant.option_specs`` lists them):

- :class:`OpenEnd` — no agreed end: the table stops when it likes; every hand counts
  (``hoyle``, ``russian36``).
- :class:`DealsEach` — P-14: every player deals an agreed number of counted hands;
  whether an all-pass hand counts is an option (``pagat``; :mod:`scorer.rules.endpoint`
  counts the deals).
- :class:`TargetOrHands` — B-14: a target score (points) or an agreed number of hands
  (``napoleao``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..core import Bid, EveningSetup, Text
from ..options import OptionSpec
from .pool import PoolPart


class OpenEnd:
    """No agreed end point: every hand counts; no number of hands or deals, no target.
    ``rule`` is cited for the agreed end of the evening (default P-14)."""

    option_specs: tuple[OptionSpec, ...] = ()

    def __init__(self, rule: str = "P-14") -> None:
        self.rule = rule

    def all_pass_counts(self, options: Mapping[str, Any]) -> bool:
        """Whether an all-pass hand counts towards the agreed end point."""
        return True

    def hands_to_play(self, setup: EveningSetup) -> int | None:
        """The number of counted hands agreed for the evening, or ``None``."""
        return None

    def deals_each(self, setup: EveningSetup) -> int | None:
        """The counted deals each player gives before the agreed end, or ``None``."""
        return None

    def target_score(self, options: Mapping[str, Any]) -> int | None:
        """A total that ends the evening when a player reaches it, or ``None``."""
        return None


class DealsEach(OpenEnd):
    """P-14: the evening ends when every player has dealt ``hands_per_dealer`` counted
    hands; the ``all_pass_counts`` option says whether an all-pass hand counts."""

    option_specs = (
        OptionSpec(
            "hands_per_dealer",
            Text("Hands each player deals"),
            "int",
            2,
            "P-14",
            Text("The evening ends when every player has dealt this many hands (P-14)."),
            minimum=1,
            maximum=50,
        ),
        OptionSpec(
            "all_pass_counts",
            Text("Hands where everyone passed count"),
            "bool",
            False,
            "P-14",
            Text("Whether a hand where everyone passed counts towards that number (P-14)."),
        ),
    )

    def all_pass_counts(self, options: Mapping[str, Any]) -> bool:
        """P-14: as the table agreed."""
        return bool(options["all_pass_counts"])

    def deals_each(self, setup: EveningSetup) -> int | None:
        """P-14: the counted deals each player gives («hvor mange utdelinger hver spiller
        skal gi»); see :mod:`scorer.rules.endpoint`."""
        return int(setup.options["hands_per_dealer"])


class TargetOrHands(OpenEnd):
    """B-14: the game ends when a player reaches ``target_score`` points, or after
    ``hands`` hands, as the ``end`` option says (the source sets no number)."""

    option_specs = (
        OptionSpec(
            "end",
            Text("The game ends at"),
            "choice",
            "target",
            "B-14",
            Text("A target score or a number of hands (B-14; the source sets none)."),
            choices=(("target", Text("A target score")), ("hands", Text("A number of hands"))),
        ),
        OptionSpec("target_score", Text("Target score"), "int", 30, "B-14",
                   Text("With a target: the game ends when someone reaches it (B-14)."), minimum=1, maximum=1000,
                   applies=("end", ("target",))),
        OptionSpec("hands", Text("Number of hands"), "int", 20, "B-14",
                   Text("With a number of hands: the game ends after that many (B-14)."), minimum=1, maximum=500,
                   applies=("end", ("hands",))),
    )

    def hands_to_play(self, setup: EveningSetup) -> int | None:
        """B-14: the agreed number of hands, when the table chose hands."""
        return int(setup.options["hands"]) if setup.options["end"] == "hands" else None

    def target_score(self, options: Mapping[str, Any]) -> int | None:
        """B-14: the target score, when the table chose a target."""
        return int(options["target_score"]) if options["end"] == "target" else None


class BetweenHands:
    """The between-hands steps of :class:`~scorer.rules.variants.base.Variant` (a mixin
    that asks the variant's ``pool`` and ``end`` parts)."""

    rule_deal_passes: ClassVar[str]
    #: The pool part (:class:`~.pool.Pool`, :class:`~.pool.Treasure`), or ``None``.
    pool: ClassVar[PoolPart | None] = None
    #: The end-point part (:class:`OpenEnd`, :class:`DealsEach`, :class:`TargetOrHands`).
    end: ClassVar[OpenEnd] = OpenEnd()
    deal_note: ClassVar[str] = Text("Shuffle and deal five cards each.")

    def shuffle_after(self, contract: Bid | None, made: bool) -> bool:
        """Whether the next dealer shuffles (rather than gathers and cuts)."""
        return True

    def shuffle_note(self, shuffle: bool) -> tuple[str, str]:
        """``(rule id, sentence)`` telling the next dealer how to prepare the pack."""
        return self.rule_deal_passes, self.deal_note

    @property
    def rule_end(self) -> str:
        """The rule of the agreed end of the evening (P-14, B-14): the end part's."""
        return self.end.rule

    def all_pass_counts(self, options: Mapping[str, Any]) -> bool:
        """Whether an all-pass hand counts towards the agreed end point (the end part's)."""
        return self.end.all_pass_counts(options)

    def hands_to_play(self, setup: EveningSetup) -> int | None:
        """The number of counted hands agreed for the evening (B-14), or ``None``."""
        return self.end.hands_to_play(setup)

    def deals_each(self, setup: EveningSetup) -> int | None:
        """The counted deals each player gives before the agreed end (P-14), or ``None``."""
        return self.end.deals_each(setup)

    def target_score(self, options: Mapping[str, Any]) -> int | None:
        """A total that ends the evening when a player reaches it (B-14), or ``None``."""
        return self.end.target_score(options)

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
