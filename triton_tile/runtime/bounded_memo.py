"""A memo of at most `limit` entries that drops its oldest when full.

For per-kernel caches keyed by launch values (a grid and argument values): each new set of
values adds an entry, so an unbounded dict would grow with every distinct launch of a
long-running process. Lookups are a plain dict get (the launch path reads one per launch);
insertions take a lock, so concurrent insertions neither grow it past `limit` nor fail while
picking the oldest entry.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Hashable, Optional


class BoundedMemo:
    def __init__(self, limit: int = 1024):
        if limit < 1:
            raise ValueError(f"BoundedMemo: limit must be at least 1, got {limit}")
        self.limit = limit
        self._entries: Dict[Hashable, Any] = {}
        self._lock = threading.Lock()
        # get(key): the value stored for `key`, or None; the dict's own method, so a lookup on
        # the launch path costs what a dict's does
        self.get: Callable[[Hashable], Optional[Any]] = self._entries.get

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            if key not in self._entries and len(self._entries) >= self.limit:
                self._entries.pop(next(iter(self._entries)), None)  # the oldest goes
            self._entries[key] = value

    def __len__(self) -> int:
        return len(self._entries)


__all__ = ["BoundedMemo"]
