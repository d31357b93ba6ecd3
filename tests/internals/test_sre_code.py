"""Compiled patterns kept between runs (``toolbay.internals.sre_code``): these fail when ``re``'s
compiler stops being shaped as that module expects, since nothing is then kept."""

from __future__ import annotations

import json
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import toolbay.helptext.describe  # noqa: F401 (imports every module of the parser, so every pattern)
from toolbay.helptext.kept import KEPT
from toolbay.internals import sre_code
from toolbay.internals.sre_code import KeptPatterns, kept_file_beside


@pytest.fixture
def writes_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def _parser_patterns() -> list[tuple[str, int]]:
    # Every pattern the help-text parser compiled in this process, whether or not it came from a file.
    patterns = list(KEPT.entries)
    assert len(patterns) > 100
    return patterns


def _refuse_to_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object) -> None:
        raise AssertionError("compiled, not read from the file")

    monkeypatch.setattr(re, "_compile", refused)
    monkeypatch.setattr(sre_code._parser, "parse", refused)


def test_every_parser_pattern_read_back_from_the_file_is_the_pattern_re_compiles(
        tmp_path: Path, writes_bytecode: None, monkeypatch: pytest.MonkeyPatch) -> None:
    patterns = _parser_patterns()
    expected = [re.compile(source, flags) for source, flags in patterns]
    first_run = KeptPatterns(save_at_exit=False, path=str(tmp_path / "patterns.sre"))
    for source, flags in patterns:
        first_run.compile(source, flags)
    first_run.save()
    assert len(first_run.entries) == len(patterns)  # every one was kept

    next_run = KeptPatterns(save_at_exit=False, path=str(tmp_path / "patterns.sre"))
    _refuse_to_compile(monkeypatch)
    for (source, flags), pattern in zip(patterns, expected, strict=True):
        kept = next_run.compile(source, flags)
        # Pattern equality compares the flags, the pattern and the compiled code word for word.
        assert kept == pattern
        assert (kept.groups, kept.groupindex) == (pattern.groups, pattern.groupindex)


def test_kept_patterns_match_as_compiled_ones(
        tmp_path: Path, writes_bytecode: None, monkeypatch: pytest.MonkeyPatch) -> None:
    source = r"(?P<name>--[\w-]+)(?:=(?P<value>\S+))?"
    first_run = KeptPatterns(save_at_exit=False, path=str(tmp_path / "p.sre"))
    first_run.compile(source)
    first_run.save()
    next_run = KeptPatterns(save_at_exit=False, path=str(tmp_path / "p.sre"))
    _refuse_to_compile(monkeypatch)
    kept = next_run.compile(source)
    found = kept.search("use --size=10 here")
    assert found is not None and found.group("name", "value") == ("--size", "10")


def test_a_damaged_or_foreign_file_is_ignored_and_patterns_still_compile(tmp_path: Path, writes_bytecode: None) -> None:
    path = tmp_path / "patterns.sre"
    source = r"^\s+(-\w), (--[\w-]+)"
    foreign_stamp = (999, sys.implementation.name, sys.hexversion, 0, 0)
    for content in (b"\x00garbage", marshal.dumps((foreign_stamp, {(source, 0): (0, [1, 2, 3], 0, {}, ())})),
                    marshal.dumps(("not", "a stamp"))):
        path.write_bytes(content)
        store = KeptPatterns(save_at_exit=False, path=str(path))
        assert store.entries == {}
        assert store.compile(source) == re.compile(source)


def test_an_entry_the_engine_refuses_is_compiled_instead(tmp_path: Path, writes_bytecode: None) -> None:
    path = tmp_path / "patterns.sre"
    source = "a+b"
    refused_code = memoryview(bytearray(8)).cast("I")
    refused_code[0], refused_code[1] = 999999, 1  # no engine takes it
    path.write_bytes(marshal.dumps((sre_code._stamp(), {(source, 0): (0, refused_code.tobytes(), 0, {}, ())})))
    store = KeptPatterns(save_at_exit=False, path=str(path))
    assert (source, 0) in store.entries
    assert store.compile(source) == re.compile(source)


def test_nothing_is_written_where_python_writes_no_bytecode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    store = KeptPatterns(save_at_exit=False, path=str(tmp_path / "patterns.sre"))
    store.compile("x+")
    store.save()
    assert not (tmp_path / "patterns.sre").exists()


def test_a_folder_that_cannot_be_written_costs_nothing_but_the_file(tmp_path: Path, writes_bytecode: None) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    store = KeptPatterns(save_at_exit=False, path=str(blocked / "__pycache__" / "patterns.sre"))
    assert store.compile("y+") == re.compile("y+")
    store.save()  # no error: the patterns are compiled again next time
    assert blocked.read_text() == "not a folder"


def test_a_link_at_the_temporary_name_of_another_process_is_neither_followed_nor_shared(
        tmp_path: Path, writes_bytecode: None) -> None:
    # Two containers sharing one installation may both run toolbay as pid 1: a name made of the
    # pid alone was one file both wrote at once (their writes interleaved could load as wrong
    # code), and a link left there by anyone who may write the folder was followed.
    path = tmp_path / "kept.sre"
    victim = tmp_path / "victim"
    victim.write_bytes(b"untouched")
    (tmp_path / f"kept.sre.{os.getpid()}.tmp").symlink_to(victim)
    sre_code.write_kept(str(path), ("stamp",), {"key": "value"})
    assert victim.read_bytes() == b"untouched"
    assert not path.is_symlink() and sre_code.read_kept(str(path), ("stamp",)) == {"key": "value"}


def test_the_file_is_kept_where_python_keeps_bytecode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    module = tmp_path / "pkg" / "kept.py"
    monkeypatch.setattr(sys, "pycache_prefix", None)
    beside = kept_file_beside(str(module), "patterns")
    assert beside == os.path.join(tmp_path, "pkg", "__pycache__", f"patterns.{sys.implementation.cache_tag}.sre")
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    under_prefix = kept_file_beside(str(module), "patterns")
    assert under_prefix == os.path.join(tmp_path / "prefix", str(tmp_path / "pkg").lstrip(os.sep),
                                        f"patterns.{sys.implementation.cache_tag}.sre")


def test_a_parse_help_run_keeps_the_patterns_it_compiled_though_it_ends_without_teardown(tmp_path: Path) -> None:
    # ``toolbay parse-help`` ends with os._exit (toolbay.entry), where exit handlers do not run.
    prefix = tmp_path / "bytecode"
    help_file = tmp_path / "help.txt"
    help_file.write_text("Usage: tiny [OPTIONS] FILE\n\nOptions:\n  -n, --lines INT  how many lines [default: 10]\n")
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    run = subprocess.run([sys.executable, "-m", "toolbay", "parse-help", str(help_file)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["input_schema"]["properties"]["lines"]["type"] == "integer"  # all of it written
    (kept,) = prefix.rglob(f"kept.{sys.implementation.cache_tag}.sre")  # toolbay.helptext.kept's
    assert len(KeptPatterns(save_at_exit=False, path=str(kept)).entries) > 100


def test_a_server_start_compiles_the_patterns_of_toolbays_own_modules_once_per_installation(tmp_path: Path) -> None:
    # The secret-hiding patterns alone (toolbay.redaction, ~40) were 20-30 ms of every server's start.
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "bytecode")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    modules = "import toolbay.redaction, toolbay.search.tokens, toolbay.handlers.wasm"
    subprocess.run([sys.executable, "-c", modules], check=True, env=env, timeout=120)
    (kept,) = (tmp_path / "bytecode").rglob(f"kept_patterns.{sys.implementation.cache_tag}.sre")
    sources = {source for source, _ in KeptPatterns(save_at_exit=False, path=str(kept)).entries}
    assert len(sources) > 40
    # The next process compiles none of them: ``re``'s compiler is never handed one.
    program = (
        "import re, sys\n"
        "compile = re._compiler.compile\n"
        "fresh = []\n"
        "re._compiler.compile = lambda p, flags=0: fresh.append(p) or compile(p, flags)\n"
        f"{modules}\n"
        "import json; print(json.dumps([p for p in fresh if isinstance(p, str)]))\n"
    )
    ran = subprocess.run([sys.executable, "-c", program], check=True, env=env, timeout=120,
                         capture_output=True, text=True)
    assert sources & set(json.loads(ran.stdout)) == set()


# A library's module as it may be written: patterns in its body and its classes' (kept), one in a
# function (left to re's own cache), one built from the environment at import (never written down).
_LIBRARY = '''
import os
import re

WORDS = re.compile(r"(?P<word>[a-z]+)-(?:one|two)\\b", re.IGNORECASE)


class Reader:
    NON_PRINTABLE = re.compile("[^\\x09\\x0a\\x20-\\x7e]")


FROM_THE_ENVIRONMENT = re.compile(os.environ["A_VALUE"] + "+")


def in_a_function():
    return re.compile(r"function-(\\d+)")
'''
_LITERALS = {(r"(?P<word>[a-z]+)-(?:one|two)\b", re.IGNORECASE), ("[^\x09\x0a\x20-\x7e]", 0)}


def _run_library(tmp_path: Path, program: str) -> str:
    """What ``program`` prints, run as a ``toolbay`` command's process is (literal patterns kept)."""
    (tmp_path / "library").mkdir(exist_ok=True)
    (tmp_path / "library" / "a_library.py").write_text(_LIBRARY, encoding="utf-8")
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "bytecode"), "A_VALUE": "secret-value",
           "PYTHONPATH": str(tmp_path / "library")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    script = "from toolbay.internals.sre_code import keep_literal_patterns\nkept = keep_literal_patterns()\n"
    return subprocess.run([sys.executable, "-c", script + program], check=True, env=env, timeout=120,
                          capture_output=True, text=True).stdout


def test_the_patterns_of_a_librarys_module_and_class_bodies_are_compiled_once_per_installation(
        tmp_path: Path) -> None:
    # PyYAML's, tomllib's, platform's, starlette's: 11-16 ms of each command's processor time.
    _run_library(tmp_path, "import a_library\na_library.in_a_function()\n")
    (kept,) = (tmp_path / "bytecode").rglob(f"sre_code.{sys.implementation.cache_tag}.sre")
    assert set(KeptPatterns(save_at_exit=False, path=str(kept)).entries) == _LITERALS
    # The next process compiles neither, and its patterns are re's.
    program = (
        "import re, json\n"
        "compile = re._compiler.compile\n"
        "fresh = []\n"
        "re._compiler.compile = lambda p, flags=0: fresh.append(p) or compile(p, flags)\n"
        "import a_library\n"
        "re._compiler.compile = compile\n"
        "same = a_library.WORDS == re.compile(a_library.WORDS.pattern, re.IGNORECASE) "
        "and a_library.Reader.NON_PRINTABLE == re.compile(a_library.Reader.NON_PRINTABLE.pattern)\n"
        "print(json.dumps({'fresh': [p for p in fresh if isinstance(p, str)], 'same': same,\n"
        "                  'match': a_library.WORDS.match('Word-ONE').groupdict()}))\n"
    )
    ran = json.loads(_run_library(tmp_path, program))
    assert {source for source, _ in _LITERALS} & set(ran["fresh"]) == set()
    assert ran["same"] and ran["match"] == {"word": "Word"}


def test_a_pattern_not_written_in_the_source_is_never_kept(tmp_path: Path) -> None:
    _run_library(tmp_path, "import a_library\nprint(a_library.in_a_function().pattern)\n")
    (kept,) = (tmp_path / "bytecode").rglob(f"sre_code.{sys.implementation.cache_tag}.sre")
    assert b"secret-value" not in kept.read_bytes()
    assert b"function-" not in kept.read_bytes()


def test_a_functions_code_is_told_from_a_modules_and_a_classs_as_the_hook_expects() -> None:
    # keep_literal_patterns keeps what the code of a module's or a class's body compiles: code
    # without CO_OPTIMIZED, which every function's has.
    import inspect

    class Body:
        code = sys._getframe(0).f_code

    assert sre_code._CO_OPTIMIZED == inspect.CO_OPTIMIZED
    assert not Body.code.co_flags & inspect.CO_OPTIMIZED
    assert sys._getframe(0).f_code.co_flags & inspect.CO_OPTIMIZED
    assert not compile("x = 1", "<module>", "exec").co_flags & inspect.CO_OPTIMIZED
