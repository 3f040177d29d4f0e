"""Parts of a page printed once for what they show, then taken as printed (issue 23 item 2).

The hand form's claim part (templates/hand_form.html: the kind of claim, the accused, the
trick, the cards, the table's decision) is half of the form's bytes and a third of what the
service worker's warm-up costs the server after every hand (``benchmarks/mix_cost.py``), yet
it shows the same thing hand after hand: a table's players, its variant's kinds of claim and,
on almost every hand, no claim. A template wraps such a part in a call block::

    {% call kept_part("claim", form.claim_state()) %} … {% endcall %}

and :func:`kept_part` prints the block only when no part of that name was printed before
from the same state (and language and link root); otherwise it answers the part as printed.
The key is everything the part reads (a form's fields:
:func:`scorer.web.fast_widgets.fields_state`): a part must print nothing that its key does not
hold (no CSRF token, no one-time token, no message, no hand number). Nothing is ever stale: a
different state is a different key. tests/test_kept_parts.py holds kept parts to a fresh
print of the same form.

Measured (``mix_cost.py``'s table and the warm-up alone, parts kept and printed each time
interleaved in one process): the warm-up's hand forms print their claim part from the kept
copy; the warm-up costs 2-9 % less.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from flask import Flask, current_app
from markupsafe import Markup

from ..reports.words import locale_code
from .caches import TABLES_KEPT, RevisionCache, link_root

#: printed parts by (name, language, link root, state): two a table (a new hand's form and
#: a correction's) for a room of :data:`~scorer.web.caches.TABLES_KEPT` tables
part_cache: RevisionCache[Markup] = RevisionCache(2 * TABLES_KEPT)


def kept_part(name: str, *state: Hashable, caller: Callable[[], str]) -> Markup:
    """The part ``name`` of a page, printed by ``caller`` (the template's call block) the first
    time this ``state`` is met in the request's language and link root, and taken from
    :data:`part_cache` after that. Printed every time while the templates are reloaded as
    they change (``TEMPLATES_AUTO_RELOAD``, debugging)."""
    if current_app.jinja_env.auto_reload:
        return Markup(caller())
    key = (name, locale_code(), link_root(), *state)
    found = part_cache.get(key)
    if found is None:
        found = Markup(caller())
        part_cache.put(key, found)
    return found


def init_app(app: Flask) -> None:
    app.jinja_env.globals["kept_part"] = kept_part
