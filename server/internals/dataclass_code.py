"""The functions ``dataclasses`` writes for each class, compiled once per installation.

``@dataclass`` writes the source of each class's ``__init__``, ``__repr__``, ``__eq__`` (and
more for frozen ones) and ``exec``-s it: Python compiles that text anew in every process, about
600 functions for ``toolbay list`` (toolbay's classes, pydantic's, anyio's, typer's), 80-110 ms
of its processor time. The text is the same from one run to the next, so ``keep_compiled_code``
gives the ``dataclasses`` module an ``exec`` of its own (a module global, found before the
built-in one) that compiles each text once and keeps the code object in a file where Python
would keep bytecode, as ``toolbay.internals.sre_code`` keeps regular expressions:

- written only when Python writes bytecode, at exit, merged with what another process wrote;
- stamped with the interpreter's version and bytecode magic number, and ignored whole when
  either differs or when it cannot be read;
- the code is what ``exec`` would compile from the same text (``<string>``, no inherited
  ``__future__`` flags, as ``dataclasses`` has none), so the functions are the same.

``tests/internals/test_dataclass_code.py`` fails if ``dataclasses`` stops compiling its
functions through a call of ``exec`` on their text.
"""

from __future__ import annotations

import atexit
import builtins
import sys
from importlib._bootstrap_external import MAGIC_NUMBER

from toolbay.internals.sre_code import kept_file_beside, read_kept, write_kept

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see toolbay.helptext.records)
if TYPE_CHECKING:
    from types import CodeType
    from typing import Any

# Bumped when the file's layout changes.
_FORMAT = 1
# Past this many texts the file starts afresh with one process's: classes changed or gone
# leave theirs behind.
MAX_KEPT = 8192


def _stamp() -> tuple[Any, ...]:
    return (_FORMAT, sys.implementation.name, sys.hexversion, MAGIC_NUMBER)


class KeptCode:
    """``exec`` as the built-in one, with each source text compiled once per installation."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.entries: dict[str, CodeType] = read_kept(path, _stamp()) if path else {}
        self.compiled_afresh = 0

    def exec(self, source: Any, globals: dict[str, Any] | None = None, locals: Any = None, /) -> None:
        if isinstance(source, str):
            code = self.entries.get(source)
            if code is None:
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self.entries[source] = code
                if not self.compiled_afresh and self.path is not None:
                    atexit.register(self.save)
                self.compiled_afresh += 1
            source = code
        builtins.exec(source, globals, locals)

    def save(self) -> None:
        """Writes the entries, with what another process may have written since (as
        ``toolbay.internals.sre_code`` does)."""
        if self.path is None or sys.dont_write_bytecode:
            return
        merged = {**read_kept(self.path, _stamp()), **self.entries}
        write_kept(self.path, _stamp(), merged if len(merged) <= MAX_KEPT else dict(self.entries))


def keep_compiled_code() -> KeptCode | None:
    """From now on in this process (a ``toolbay`` command's own), ``dataclasses`` compiles each
    function's text once per installation. Returns what keeps them, or None where it already
    did or cannot (``dataclasses`` already has an ``exec`` of its own)."""
    import dataclasses

    if "exec" in vars(dataclasses):
        return None
    kept = KeptCode(kept_file_beside(__file__, "dataclass_code", "code"))
    dataclasses.exec = kept.exec  # type: ignore[attr-defined]
    return kept
