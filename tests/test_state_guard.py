"""The guard against CPython 3.11's double free of inline attribute values
(:mod:`scorer.storage.state_guard`): the interpreter's fault shown in a child process,
the guard's way around it shown there too, and the guard installed on SQLAlchemy's
``InstanceState`` (the object whose weak-reference callback met the fault in ``nap
serve``)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

import scorer.storage  # noqa: F401 - installs the guard
from scorer.storage import state_guard

# A class like InstanceState: attributes inline (``__dict__`` in its slots), and a weak-
# reference callback, a method of the object, that stores a new name on it. ``GUARD`` makes
# the dict as the object is created, as scorer.storage.state_guard does for InstanceState.
CHILD = textwrap.dedent("""
    import gc, sys, weakref

    GUARD = sys.argv[1] == "guard"

    class State:
        __slots__ = ("__dict__", "__weakref__")

        def __init__(self):
            if GUARD:
                self.__dict__

        def cleanup(self, ref):
            self.late_name = "written by the callback"

    class Target:
        pass

    filler = State()
    for name in ["k0", "ref"] + [f"k{i}" for i in range(1, 40)]:  # shared names: 30 at most
        setattr(filler, name, 0)

    for attempt in range(5):
        gc.collect()
        gc.set_threshold(100000)
        state = State()
        state.k0 = 0
        target = Target()
        target.cycle = target  # only the collector frees it
        state.ref = weakref.ref(target, state.cleanup)
        del target
        gc.set_threshold(1)  # the next tracked allocation runs the collector
        state.new_name = 1  # a name the shared ones lack: a dict is made, the collector runs in it
        gc.set_threshold(700)
        gc.collect()  # the callback has run by now, in the store or here
        print(attempt, sorted(vars(state)), flush=True)
""")


def run_child(mode: str) -> subprocess.CompletedProcess[str]:
    # the system allocator, so that glibc sees the second free at once and stops the child
    env = dict(os.environ, PYTHONMALLOC="malloc")
    return subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True, env=env, timeout=60,
                          check=False)


def test_with_the_guard_a_callback_storing_on_its_object_in_a_collector_pass_is_safe_and_kept() -> None:
    guarded = run_child("guard")
    assert guarded.returncode == 0, guarded.stderr
    lines = guarded.stdout.splitlines()
    assert lines == [f"{i} ['k0', 'late_name', 'new_name', 'ref']" for i in range(5)]


def test_without_it_the_interpreter_frees_the_values_twice_or_loses_the_callbacks_write() -> None:
    bare = run_child("bare")
    if sys.version_info[:2] == (3, 11):
        # 3.11: the first attempt ends the child with glibc's "double free detected"
        assert bare.returncode == -6, (bare.returncode, bare.stderr[-300:])
        assert "double free" in bare.stderr
        assert "0 [" not in bare.stdout
    else:  # 3.12 and 3.13: no crash, but the callback's store is lost
        assert bare.returncode == 0, bare.stderr
        assert bare.stdout.splitlines()[0] == "0 ['k0', 'new_name', 'ref']"


class Base(DeclarativeBase):
    pass


class Row(Base):
    """A mapped class of the tests' own: each object of it has an InstanceState."""

    __tablename__ = "row"
    id: Mapped[int] = mapped_column(primary_key=True)


def test_every_instance_state_has_its_dict_from_the_start() -> None:
    state = sa.inspect(Row(id=7))
    held = gc.get_referents(state)  # a made dict is among them; inline values are not a dict
    assert any(found is state.__dict__ for found in held)
    assert state_guard.install() is False  # installed once, on import
    assert Row(id=8).id == 8


def test_the_guard_adds_no_attribute_and_keeps_the_object() -> None:
    row = Row(id=1)
    state = sa.inspect(row)
    assert "_nap_dict_made_first" not in vars(state)
    assert state.obj() is row and row.id == 1
