"""``NamedTuple`` and ``TYPE_CHECKING`` for the help-text parser, without ``typing`` at run time.

``toolbay parse-help`` should answer about as fast as Python starts. Importing ``typing`` cost it
~4 ms, and ``typing.NamedTuple`` compiles a forward reference for every annotated field (~2 ms
for these records). Type checkers read ``typing.NamedTuple`` here; at run time the same class
statement makes what ``typing.NamedTuple`` makes, a ``collections.namedtuple`` with the class
body's defaults, methods and docstring, only without checking the annotations.
"""

from __future__ import annotations

import collections

# typing.TYPE_CHECKING without importing typing (the idiom of PEP 781): type checkers take any
# name TYPE_CHECKING as true.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    # What the class statement or collections.namedtuple sets, not members to copy.
    _NOT_MEMBERS = frozenset({"__module__", "__qualname__", "__annotations__", "__orig_bases__"})

    class _RecordMaker(type):
        def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
            annotations = namespace.get("__annotations__", {})
            fields = tuple(annotations)
            defaults = [namespace[field] for field in fields if field in namespace]
            record = collections.namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            for key, value in namespace.items():
                if key not in fields and key not in _NOT_MEMBERS:
                    setattr(record, key, value)
            record.__qualname__ = namespace["__qualname__"]
            record.__annotations__ = annotations
            return record

    _Record = type.__new__(_RecordMaker, "NamedTuple", (), {})

    def NamedTuple(*args: object, **kwargs: object) -> object:  # noqa: N802 (typing's name)
        raise TypeError("records.NamedTuple is only a base class: class X(NamedTuple): ...")

    # As typing does: `class X(NamedTuple)` has _Record as its base, so _RecordMaker makes it.
    NamedTuple.__mro_entries__ = lambda bases: (_Record,)
