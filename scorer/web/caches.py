"""A small thread-safe LRU cache for rendered pages and PDFs, keyed by an evening's
revision: an entry can never be stale, because every change bumps the revision."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class RevisionCache(Generic[V]):
    """Keeps the ``size`` most recently used values."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def clear(self) -> None:
        """Forget everything (the benchmark's cold page)."""
        with self._lock:
            self._data.clear()

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)
