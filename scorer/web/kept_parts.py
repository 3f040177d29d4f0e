"""Parts of a page printed once for what they show, then taken as printed (issue 23 item 2).

The hand form's claim part (templates/hand_form.html: the kind of claim, the accused, the
trick, the cards, the table's decision) is half of the form's bytes, and the service worker's
warm-up prints two hand forms after every hand, yet it shows the same thing hand after hand:
a table's players, its variant's kinds of claim and, on almost every hand, no claim. A template
wraps such a part in a call block::

    {% call kept_part("claim", form.claim_state()) %} … {% endcall %}

and :func:`kept_part` prints the block only when no part of that name was printed before
from the same state (and language and link root); otherwise it answers the part as printed.
The key is everything the part reads (a form's fields:
:func:`scorer.web.fast_widgets.fields_state`): a part must print nothing that its key does not
hold (no CSRF token, no one-time token, no message, no hand number). Nothing is ever stale: a
different state is a different key. tests/test_kept_parts.py holds kept parts to a fresh
print of the same form.

Only a part printed from what the server chose is kept: a state of ``None`` (a form a phone
posted, whose part shows what it typed, valid or not) is printed and not kept, so that no
request can fill the cache with what it sends (a post of a megabyte in a claim's card field
would otherwise have kept two). Each app keeps its own parts (:func:`parts`).

Measured (``benchmarks/kept_parts.py``: the warm-up with parts kept and printed each time, in
turns in one process): ×0.91-0.98 of the warm-up's CPU.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from flask import Flask, current_app
from markupsafe import Markup

from ..reports.words import locale_code
from .caches import TABLES_KEPT, RevisionCache, link_root

#: how many parts an app keeps: two a table (a new hand's form and a correction's) for a room
#: of :data:`~scorer.web.caches.TABLES_KEPT` tables; a part is about 10 KB (the claim part)
PARTS_KEPT = 2 * TABLES_KEPT


def parts(app: Flask) -> RevisionCache[Markup]:
    """``app``'s printed parts by (name, language, link root, state)."""
    found: RevisionCache[Markup] | None = app.extensions.get("nap_parts")
    if found is None:
        found = app.extensions.setdefault("nap_parts", RevisionCache(PARTS_KEPT))
    return found


def kept_part(name: str, *state: Hashable, caller: Callable[[], str]) -> Markup:
    """The part ``name`` of a page, printed by ``caller`` (the template's call block) the first
    time this ``state`` is met in the request's language and link root, and taken from
    :func:`parts` after that. Printed every time, and not kept, when ``state`` holds ``None``
    (what a phone sent: see the module's text) or while the templates are reloaded as they
    change (``TEMPLATES_AUTO_RELOAD``, debugging)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if app.jinja_env.auto_reload or None in state:
        return Markup(caller())
    kept = parts(app)
    key = (name, locale_code(), link_root(), *state)
    found = kept.get(key)
    if found is None:
        found = Markup(caller())
        kept.put(key, found)
    return found


def init_app(app: Flask) -> None:
    app.jinja_env.globals["kept_part"] = kept_part
