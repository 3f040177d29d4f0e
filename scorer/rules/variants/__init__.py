"""The variants, by id."""

from __future__ import annotations

from ..core import IllegalSetup, Text
from .base import Variant
from .hoyle import Hoyle
from .napoleao import Napoleao
from .pagat import Pagat
from .russian36 import Russian36

VARIANTS: dict[str, Variant] = {v.id: v for v in (Pagat(), Hoyle(), Russian36(), Napoleao())}


def get_variant(variant_id: str) -> Variant:
    """Return the variant with id ``variant_id``; raises :class:`IllegalSetup` if unknown."""
    try:
        return VARIANTS[variant_id]
    except (KeyError, TypeError):
        raise IllegalSetup(Text("Unknown variant {variant}; known: {known}.", variant=repr(variant_id),
                                known=", ".join(VARIANTS))) from None
