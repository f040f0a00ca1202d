"""Results computed from a history, kept per database until the history they were computed from changes: a
request pays only for the histories it has not seen since their last change. Bounded by entries, never by the
length of a history: each entry is a small result, not the runs."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

from sqlmodel import Session

T = TypeVar("T")
ENTRIES = 4096  # results kept per database

_lock = threading.Lock()
_stores: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # engine -> OrderedDict(key -> result)


def kept(session: Session, key: Hashable, compute: Callable[[], T]) -> T:
    """The result kept under `key` for the session's database, or `compute()`'s, kept from now on. The key must
    name everything the result depends on (the history's version: tierplan/db/history_reads.py's series summaries)."""
    store = _store(session)
    with _lock:
        if key in store:
            store.move_to_end(key)
            return cast(T, store[key])
    result = compute()
    with _lock:
        store[key] = result
        while len(store) > ENTRIES:
            store.popitem(last=False)
    return result


def _store(session: Session) -> OrderedDict[Hashable, Any]:
    bind = session.get_bind()
    engine = getattr(bind, "engine", bind)  # a Connection's engine
    with _lock:
        if engine not in _stores:
            _stores[engine] = OrderedDict()
        return cast(OrderedDict[Hashable, Any], _stores[engine])
