"""Regular expressions compiled once per installation, not once per process (``re``'s compiler).

Python compiles a pattern in Python code (a parser, then a code generator) in every process
that uses it. The help-text parser compiles about 120 on import: 16 ms, a third of a
``toolbay parse-help`` run. ``re`` has no public way to keep a compiled pattern, so this module
keeps what its compiler hands to the C engine (``_sre.compile``'s arguments) in a file, the
way Python keeps bytecode:

- the file sits where Python would put a ``.pyc`` of the package (its ``__pycache__``, or
  under ``sys.pycache_prefix``), and is written only when Python writes bytecode;
- it holds the interpreter's exact version and the engine's magic number, and is ignored
  whole when either differs, or when it cannot be read;
- an entry is kept only if the engine, given it, builds a pattern equal to ``re.compile``'s
  (``Pattern.__eq__`` compares the compiled code). If ``re``'s internals change, patterns are
  simply compiled each time, as without this module.
"""

from __future__ import annotations

import atexit
import functools
import marshal
import os
import re
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see helptext.records)
if TYPE_CHECKING:
    from typing import Any, Literal

    _WordFormat = Literal["I", "H", "L", "Q"]

try:
    import _sre
    from re import _compiler, _parser  # type: ignore[attr-defined]
except ImportError:  # not CPython's re: nothing to keep
    _sre = None

# Bumped when the layout of an entry changes.
_FORMAT = 2
# re's own compile, whatever keep_literal_patterns puts in its place.
_RE_COMPILE = re.compile

# The compiled code is kept as the engine's words in bytes, not as a list of ints: marshal reads
# bytes at once, where it made an int object of each of ~45,000 words, 2 ms of every run.
_Entry = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]


def _word_format() -> _WordFormat | None:
    """The ``memoryview`` format of one word of the engine's code, or None if none is its size."""
    size = getattr(_sre, "CODESIZE", None)
    formats: tuple[_WordFormat, ...] = ("I", "H", "L", "Q")
    return next((format for format in formats if memoryview(b"").cast(format).itemsize == size), None)


_WORD = _word_format()


def _stamp() -> tuple[int | str | None, ...]:
    return (_FORMAT, sys.implementation.name, sys.hexversion, getattr(_sre, "MAGIC", None),
            getattr(_sre, "CODESIZE", None))


def _engine_arguments(source: str, flags: int) -> _Entry | None:
    """What ``re._compiler.compile`` passes to ``_sre.compile`` after ``pattern``, or None if
    the compiler is no longer shaped this way."""
    if _WORD is None:  # no format of the engine's word size: keep nothing
        return None
    try:
        parsed = _parser.parse(source, flags)
        code = _compiler._code(parsed, flags)
        state = parsed.state
        indexgroup: list[str | None] = [None] * state.groups
        for name, index in state.groupdict.items():
            indexgroup[index] = name
        words = memoryview(bytearray(len(code) * _sre.CODESIZE)).cast(_WORD)
        for at, word in enumerate(code):
            words[at] = word
        return (int(flags | state.flags), words.tobytes(), state.groups - 1, dict(state.groupdict), tuple(indexgroup))
    except Exception:  # any change in the compiler's internals: keep nothing
        return None


def _engine_form(entry: _Entry) -> tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]:
    flags, code, groups, groupindex, indexgroup = entry
    assert _WORD is not None  # nothing is kept without it
    return flags, memoryview(code).cast(_WORD).tolist(), groups, groupindex, indexgroup


class KeptPatterns:
    """``compile`` as ``re.compile``, from the file when an entry for the pattern is there."""

    def __init__(self, path: str | None, *, save_at_exit: bool = True) -> None:
        self.path = path
        self.entries: dict[tuple[str, int], _Entry] = self._read() if path else {}
        # Saved once, when the process ends, and only if a pattern was compiled afresh.
        self._save_registered = not save_at_exit
        self._compiled_afresh = False

    def compile(self, source: str, flags: int = 0) -> re.Pattern[str]:
        flags = int(flags)
        key = (source, flags)
        entry = self.entries.get(key)
        if entry is not None:
            try:
                return _sre.compile(source, *_engine_form(entry))
            except Exception:  # an entry the engine refuses (a damaged file): compile it
                del self.entries[key]
        compiled = re.compile(source, flags)
        if self.path is not None:  # kept only where _engine_arguments can (see there)
            entry = _engine_arguments(source, flags)
            if entry is not None and _sre.compile(source, *_engine_form(entry)) == compiled:
                self.entries[key] = entry
                self._compiled_afresh = True
                if not self._save_registered:
                    self._save_registered = True
                    atexit.register(self.save)
        return compiled

    def save_before_ending(self) -> None:
        """``save`` now, if a pattern was compiled afresh, for a process about to end without
        Python's exit handlers (``os._exit``)."""
        if self._compiled_afresh:
            atexit.unregister(self.save)
            self._compiled_afresh = False
            self.save()

    def _read(self) -> dict[tuple[str, int], _Entry]:
        assert self.path is not None
        return read_kept(self.path, _stamp())

    def save(self) -> None:
        """Write the entries (merged with what another process may have written since), as
        Python writes bytecode: only when it would, atomically, and silently not at all on a
        read-only installation."""
        if self.path is not None and not sys.dont_write_bytecode:
            write_kept(self.path, _stamp(), {**self._read(), **self.entries})


def read_kept(path: str, stamp: tuple[Any, ...]) -> dict[Any, Any]:
    """The entries a kept file holds, or none where it is missing, damaged, or of another stamp."""
    try:
        with open(path, "rb") as file:
            kept_stamp, entries = marshal.loads(file.read())
    except Exception:  # missing, damaged or from another format: compile afresh
        return {}
    if kept_stamp != stamp or not isinstance(entries, dict):
        return {}
    return entries


def write_kept(path: str, stamp: tuple[Any, ...], entries: dict[Any, Any]) -> None:
    """Writes ``entries`` as Python writes bytecode: only when it would, atomically, and
    silently not at all on a read-only installation."""
    if sys.dont_write_bytecode:
        return
    # Created anew (O_EXCL: a link or file already at that name is neither followed nor shared)
    # under a name no other process takes: two containers sharing one installation may both run
    # toolbay as pid 1, and writes interleaved in one file could load as wrong code.
    temporary = f"{path}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
    try:
        data = marshal.dumps((stamp, entries))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "xb") as file:
            file.write(data)
        os.replace(temporary, path)
    except (OSError, ValueError):  # read-only, full, or not marshallable: compile next time
        import contextlib  # here: nothing else toolbay parse-help loads needs it

        with contextlib.suppress(OSError):
            os.unlink(temporary)


def kept_file_beside(package_file: str, name: str, suffix: str = "sre") -> str | None:
    """Where Python would keep bytecode for a module ``name`` beside ``package_file``, with
    ``.sre`` (or ``suffix``) for ``.pyc``; None where it keeps none."""
    if (_sre is None and suffix == "sre") or sys.implementation.cache_tag is None:
        return None
    folder = os.path.dirname(os.path.abspath(package_file))
    file_name = f"{name}.{sys.implementation.cache_tag}.{suffix}"
    if sys.pycache_prefix:
        return os.path.join(sys.pycache_prefix, folder.lstrip(os.sep), file_name)
    return os.path.join(folder, "__pycache__", file_name)


# Set on the code of functions; a module's body, a class's body (and code given to exec) run once.
_CO_OPTIMIZED = 0x0001


def keep_literal_patterns() -> KeptPatterns | None:
    """From now on in this process (a ``toolbay`` command's own), ``re.compile`` of a pattern
    written as it stands in the body of a module or a class (a string constant of the code that
    compiles it) is compiled once per installation, kept in a file named after this module.

    Libraries compile such patterns as they are imported: PyYAML's, tomllib's, platform's,
    starlette's, logging's, about 50-75 in a command, 11-16 ms of its processor time. Only a
    pattern that is a constant of the calling code is kept, so nothing built from what a caller,
    a configuration or the environment gives is written to the file; a function's patterns are
    left to ``re``'s own cache, which a kept pattern would bypass on every call. Returns what
    keeps them, or None where ``re.compile`` is already another's or nothing can be kept."""
    if _sre is None or _WORD is None or re.compile is not _RE_COMPILE:  # not CPython's re, or hooked already
        return None
    kept = KeptPatterns(kept_file_beside(__file__, "sre_code"))

    def compile(pattern: Any, flags: int = 0) -> re.Pattern[Any]:
        if isinstance(pattern, str) and not flags & re.DEBUG:
            code = sys._getframe(1).f_code
            if not code.co_flags & _CO_OPTIMIZED and pattern in code.co_consts:
                return kept.compile(pattern, flags)
        return _RE_COMPILE(pattern, flags)

    functools.update_wrapper(compile, _RE_COMPILE)  # re's name and words (functools is re's import too)
    re.compile = compile
    return kept

