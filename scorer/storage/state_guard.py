"""A guard against a CPython memory error that killed ``nap serve`` on long evenings.

What happens (CPython 3.11, reproduced on 3.11.7 by ``tests/test_state_guard.py``): an
object whose class keeps its attributes inline (``__slots__`` naming ``__dict__``, or a
plain class) and whose class's shared attribute names are full (30 at most) gets its
instance dict made when a new attribute name is stored. Making that dict allocates, the
allocation can start a garbage-collector pass, and that pass can run a weak-reference
callback. When the callback stores a new attribute on *the same object*, it makes a dict
from the same inline values and frees them when that dict grows; the interrupted store
then builds its dict on the freed values and frees them again (a double free: the
allocator's free list turns into a loop, and the process dies later in a collector pass
with "Fatal Python error: Segmentation fault"). CPython 3.12 and 3.13 do not crash but
lose the callback's write.

Who does that here: SQLAlchemy's :class:`~sqlalchemy.orm.state.InstanceState` (one per
loaded row object; ``__slots__`` with ``__dict__``) registers ``self._cleanup`` as the
weak-reference callback of its object, and ``_cleanup`` stores ``session_id`` and
``_strong_obj`` on the state; loading stores new names (``runid``, ``load_path``, …) on
states. A process that has loaded enough rows has filled the shared names, and a save
of a long evening (thousands of hand rows loaded, their objects in reference cycles)
met the collector at that moment: found by ``benchmarks/segv_repro.py`` under valgrind
("Invalid free … free_values … dictresize", first freed in ``handle_callback``).

The guard: every ``InstanceState`` makes its instance dict as it is created, before its
object has a weak reference to call back. Stores then go to an ordinary dict (no inline
values to free twice; growing a dict allocates no tracked object, so no collector pass
runs in it). Cost: one small dict per loaded row object, made a little earlier than
before. Installed when :mod:`scorer.storage` is imported (every process of the app, its
tests and its tools)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm.state import InstanceState

_MARK = "_nap_dict_made_first"


def install() -> bool:
    """Wrap ``InstanceState.__init__`` so that each state makes its instance dict first.
    Returns ``True`` when it wrapped it now, ``False`` when it was already wrapped (safe to
    call again). Raises nothing."""
    init = InstanceState.__init__
    if getattr(init, _MARK, False):
        return False

    def __init__(self: InstanceState[Any], *args: Any, **kwargs: Any) -> None:
        self.__dict__  # noqa: B018 - makes the dict now, while no callback can name this state
        init(self, *args, **kwargs)  # (obj, manager) in SQLAlchemy 2.x: passed on as they come

    setattr(__init__, _MARK, True)
    __init__.__wrapped__ = init  # type: ignore[attr-defined]
    InstanceState.__init__ = __init__  # type: ignore[method-assign]
    return True
