"""Names at the table over an evening with renames (issue 25 item 11).

The evening file names every player by the name they have at the end
(``setup.players``); a ``"rename"`` :class:`~scorer.rules.SeatChange` gives the name a
player had before it (``name``). ``shared/rules/README.md`` ("People who come and go",
adopted): names stay unique at the table ignoring case, as at the start
(:meth:`~scorer.rules.variants.base.Variant.check_setup`), so a rename from or to a name
a seated player has at that moment is refused. Only the players seated at the same time
count: a name may come back to the table after its first owner left.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import EveningSetup, SeatChange, Text, clean_text


def _key(name: str) -> str:
    return clean_text(name).casefold()


def seated_name_clash(setup: EveningSetup, changes: Sequence[SeatChange]) -> tuple[int, Text] | None:
    """The first moment two players seated together share a name, ignoring case (and the two
    ways of typing an accent, as :func:`~scorer.rules.clean_text` makes them one): the index
    into ``changes`` of the rename that gave one of them that name, and the refusal in
    words; ``None`` when names stay unique. ``changes`` are in the order of the hands (as
    the evening file lists them); each one's seat indexes ``setup.players``.

    The table is checked as it is before the first change and after each one: its seated
    players (``setup.seated_at_start``, then the joins and leaves) and the name each has
    then (the ``name`` of that seat's next rename, or its name at the end when none follows).
    """
    players = setup.players
    renames = [i for i, c in enumerate(changes) if c.kind == "rename"]

    def name_at(seat: int, after: int) -> tuple[str, int | None]:
        """The seat's name once the changes before index ``after`` are folded in, and the
        index of the rename that says so (``None``: its name at the end)."""
        nxt = next((i for i in renames if i >= after and changes[i].seat == seat), None)
        return (players[seat], None) if nxt is None else (changes[nxt].name, nxt)

    seated = set(setup.seated_at_start)
    for step in range(len(changes) + 1):
        if step:
            change = changes[step - 1]
            if change.kind == "join":
                seated.add(change.seat)
            elif change.kind == "leave":
                seated.discard(change.seat)
        seen: dict[str, int] = {}
        for seat in sorted(seated):
            name, source = name_at(seat, step)
            other = seen.setdefault(_key(name), seat)
            if other == seat:
                continue
            other_name, other_source = name_at(other, step)
            if source is None:  # the one whose name comes from a rename is cited
                seat, name, source, other, other_name = other, other_name, other_source, seat, name
            assert source is not None  # the names at the end are unique (check_setup)
            return source, Text(
                "{name} was called “{old}” before hand {hand} while {other} was at the table: two players at the "
                "table cannot share a name, ignoring case.", name=players[seat], old=name,
                hand=changes[source].before_hand, other=other_name)
    return None
