"""The three persistent collections of ``rpds`` (``rpds-py``), in plain Python, for the phone.

The evening file's reader (:mod:`scorer.evening.file`) checks a file with ``jsonschema``, whose
``referencing`` needs ``rpds``, a compiled (Rust) extension that Pyodide's npm package does not
carry. The phone's engine bundle (:mod:`scorer.web.engine_bundle`) ships this module under the
name ``rpds`` in its place, so the phone checks files with the very schema, code and words of the
server. Only what ``jsonschema`` 4 and ``referencing`` use is here: :class:`HashTrieMap`,
:class:`HashTrieSet` and :class:`List`, immutable, each change returning a new value (a copy:
the schemas the reader walks hold a few dozen entries, where copying costs nothing).

On the server the real ``rpds`` is used; this module is never imported there.
Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any


class HashTrieMap(Mapping):
    """An immutable mapping: ``insert``, ``remove``, ``discard`` and ``update`` return new maps."""

    __slots__ = ("_items",)

    def __init__(self, value: Mapping | Iterable[tuple[Any, Any]] = (), **kwds: Any) -> None:
        items = dict(value.items() if isinstance(value, Mapping) else value)
        items.update(kwds)
        self._items = items

    @classmethod
    def convert(cls, value: Any) -> HashTrieMap:
        """``value`` itself if it is a map already, else a new map of it."""
        return value if isinstance(value, HashTrieMap) else cls(value)

    @classmethod
    def fromkeys(cls, keys: Iterable[Any], value: Any = None) -> HashTrieMap:
        return cls((key, value) for key in keys)

    def __getitem__(self, key: Any) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __repr__(self) -> str:
        return f"HashTrieMap({self._items!r})"

    def __or__(self, other: Mapping) -> HashTrieMap:
        return self.update(other)

    def __reduce__(self) -> tuple[type, tuple[dict]]:
        return (HashTrieMap, (dict(self._items),))

    def insert(self, key: Any, value: Any) -> HashTrieMap:
        items = dict(self._items)
        items[key] = value
        return HashTrieMap(items)

    def remove(self, key: Any) -> HashTrieMap:
        """Raises ``KeyError`` when ``key`` is absent (as ``rpds`` does)."""
        items = dict(self._items)
        del items[key]
        return HashTrieMap(items)

    def discard(self, key: Any) -> HashTrieMap:
        return self.remove(key) if key in self._items else self

    def update(self, *maps: Mapping | Iterable[tuple[Any, Any]], **kwds: Any) -> HashTrieMap:
        items = dict(self._items)
        for value in maps:
            items.update(value.items() if isinstance(value, Mapping) else value)
        items.update(kwds)
        return HashTrieMap(items)


class HashTrieSet:
    """An immutable set: ``insert``, ``remove``, ``discard`` and ``update`` return new sets."""

    __slots__ = ("_items",)

    def __init__(self, value: Iterable[Any] = ()) -> None:
        self._items = frozenset(value)

    def __contains__(self, key: Any) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HashTrieSet) and self._items == other._items

    def __hash__(self) -> int:
        return hash(self._items)

    def __repr__(self) -> str:
        return f"HashTrieSet({set(self._items)!r})"

    def insert(self, key: Any) -> HashTrieSet:
        return HashTrieSet(self._items | {key})

    def remove(self, key: Any) -> HashTrieSet:
        """Raises ``KeyError`` when ``key`` is absent (as ``rpds`` does)."""
        if key not in self._items:
            raise KeyError(key)
        return HashTrieSet(self._items - {key})

    def discard(self, key: Any) -> HashTrieSet:
        return HashTrieSet(self._items - {key}) if key in self._items else self

    def update(self, *iterables: Iterable[Any]) -> HashTrieSet:
        return HashTrieSet(self._items.union(*iterables))


class List:
    """An immutable singly linked list: ``push_front`` and ``drop_first`` return new lists."""

    __slots__ = ("_items",)

    def __init__(self, value: Iterable[Any] = (), *more: Any) -> None:
        self._items = tuple(value) + more if more else tuple(value)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, List) and self._items == other._items

    def __hash__(self) -> int:
        return hash(self._items)

    def __repr__(self) -> str:
        return f"List({list(self._items)!r})"

    @property
    def first(self) -> Any:
        """Raises ``IndexError`` on an empty list."""
        if not self._items:
            raise IndexError("empty list has no first element")
        return self._items[0]

    @property
    def rest(self) -> List:
        return List(self._items[1:])

    def push_front(self, value: Any) -> List:
        return List((value, *self._items))

    def drop_first(self) -> List:
        if not self._items:
            raise IndexError("empty list has no first element")
        return List(self._items[1:])
