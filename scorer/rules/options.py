"""Table options: what a variant lets a table choose, with defaults and one line of help."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .core import IllegalSetup, Text


@dataclass(frozen=True)
class OptionSpec:
    """One option of a variant.

    ``kind`` is ``"bool"``, ``"int"`` (between ``minimum`` and ``maximum``) or
    ``"choice"`` (one of ``choices``, pairs of stored value and label). ``rule`` is
    the rule id the option belongs to; ``help`` one line for the set-up form.
    """

    key: str
    label: str
    kind: str
    default: Any
    rule: str
    help: str
    choices: tuple[tuple[Any, str], ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    #: shown folded under "More options" on the set-up form
    advanced: bool = False
    #: ``(key, values)``: the option only applies while option ``key`` has one of ``values``
    #: (napoleão's number of hands only when the game ends after a number of hands); it is
    #: then left out of the scoresheet, rules page and PDF, and hidden on the forms
    applies: tuple[str, tuple[Any, ...]] | None = None

    def applies_to(self, options: Mapping[str, Any]) -> bool:
        """Whether this option has any effect with these (resolved) ``options``."""
        return self.applies is None or options.get(self.applies[0]) in self.applies[1]

    def resolve(self, value: Any) -> Any:
        """Check ``value`` (``None`` → default) and return it; raises :class:`IllegalSetup`."""
        if value is None:
            return self.default
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise IllegalSetup(Text("Option “{label}” must be true or false.", label=self.label), self.rule)
            return value
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise IllegalSetup(Text("Option “{label}” must be a whole number.", label=self.label), self.rule)
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise IllegalSetup(
                    Text("Option “{label}” must be between {low} and {high}.", label=self.label, low=self.minimum,
                         high=self.maximum), self.rule
                )
            return value
        allowed = [c for c, _ in self.choices]
        if value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool):
            raise IllegalSetup(
                Text("Option “{label}” must be one of: {allowed}.", label=self.label,
                     allowed=", ".join(str(a) for a in allowed)), self.rule
            )
        return value

    def describe(self, value: Any) -> str:
        """The option's value in words (``"yes"``, the choice's label, the number)."""
        if self.kind == "bool":
            return Text("yes") if value else Text("no")
        for stored, label in self.choices:
            if stored == value:
                return label
        return str(value)


def resolve_options(specs: tuple[OptionSpec, ...], raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """Resolve ``raw`` against ``specs``: defaults filled in, values checked.

    Returns a new dict with exactly the specs' keys. Raises :class:`IllegalSetup`
    for an unknown key or a bad value.
    """
    raw = dict(raw or {})
    known = {s.key for s in specs}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise IllegalSetup(Text("Unknown option for this variant: {keys}.", keys=", ".join(unknown)))
    return {s.key: s.resolve(raw.get(s.key)) for s in specs}
