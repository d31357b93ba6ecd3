"""Modules compiled before the runtime exists (``toolbay.wasm.early``), and when ``serve``
starts them (``toolbay.first_start``): on a first start only, taken by the runtime instead
of being compiled a second time; before the settings are read where nothing but the command
line can change what they depend on, and let go where the settings then say otherwise."""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM
from toolbay.config import load_settings
from toolbay.errors import WasmRejected
from toolbay.first_start import compile_early, guess_before_settings, is_first_start, runtime_sizing
from toolbay.wasm import RunRequest, WasmRuntime
from toolbay.wasm.compilers import baseline_compiler
from toolbay.wasm.early import EarlyCompiles


@pytest.fixture
def runtimes() -> Iterator[list[WasmRuntime]]:
    made: list[WasmRuntime] = []
    yield made
    for runtime in made:
        runtime.close()


def test_a_runtime_takes_the_modules_compiled_early_and_runs_them(tmp_path: Path,
                                                                  runtimes: list[WasmRuntime]) -> None:
    paths = [FIXTURE_WASM / "echo.wasm", BUNDLED_EXTENSIONS / "hashsum.wasm"]
    early = EarlyCompiles(baseline_compiler(False, 2), paths)
    runtime = WasmRuntime(tmp_path / "modules", consume_fuel=False, max_workers=2, early=early)
    runtimes.append(runtime)
    assert runtime.baseline is early.compiler
    echo = runtime.load(paths[0])
    hashsum = runtime.load(paths[1])
    assert early.taken == 2 and echo.compiler == "winch" and hashsum.compiler == "winch"
    assert runtime.run(echo, RunRequest(argv=["echo"], stdin=b"hello")).stdout == b"hello"
    digest = runtime.run(hashsum, RunRequest(argv=["hashsum", "-a", "sha256"], stdin=b"abc")).stdout
    assert digest.startswith(b"ba7816bf")
    # Taken once: a second runtime on the same early compiles compiles for itself.
    assert early.take(paths[0], echo.sha256) is None


def test_only_the_largest_files_up_to_the_budget_compile_early_and_a_changed_file_is_not_taken(
        tmp_path: Path) -> None:
    # Compiled code is held until taken: a folder of many tools compiles early only its largest.
    folder = tmp_path / "tools"
    folder.mkdir()
    for name in ("echo", "args", "greet_v1"):
        shutil.copy(FIXTURE_WASM / f"{name}.wasm", folder / f"{name}.wasm")
    sizes = {path.name: path.stat().st_size for path in folder.iterdir()}
    largest = max(sizes, key=lambda name: sizes[name])
    early = EarlyCompiles(baseline_compiler(False, 2), sorted(folder.iterdir()), budget_bytes=sizes[largest])
    found = {path.name: early.take(path, sha) for path, sha in _sha256s(folder)}
    assert [name for name, module in found.items() if module is not None] == [largest]
    # The content the runtime means (its sha256) is not what was compiled: not taken.
    again = EarlyCompiles(baseline_compiler(False, 2), [folder / "echo.wasm"])
    assert again.take(folder / "echo.wasm", "0" * 64) is None and again.taken == 0


def test_the_files_chosen_compile_smallest_first_and_the_bundled_ones_before_the_rest(
        caplog: pytest.LogCaptureFixture) -> None:
    """The order the log gives is the smaller thread's (the other takes the largest first):
    largest first on one thread, the Go tool's compile held back textkit's and with it
    textkit's describing."""
    caplog.set_level("DEBUG", logger="toolbay.wasm.early")
    bundled = [BUNDLED_EXTENSIONS / name for name in ("jsonkit.wasm", "textkit.wasm", "hashsum.wasm")]
    own = FIXTURE_WASM / "echo.wasm"  # smaller than any bundled tool, and the user's own
    early = EarlyCompiles(baseline_compiler(False, 2), [own, *bundled], first=bundled)
    early.drop()
    assert sorted(path.stat().st_size for path in bundled) == [path.stat().st_size for path in bundled[::-1]]
    assert caplog.messages[-1].endswith(": hashsum.wasm, textkit.wasm, jsonkit.wasm, echo.wasm")


def test_the_largest_file_compiles_at_once_not_after_the_smaller_ones(tmp_path: Path,
                                                                        runtimes: list[WasmRuntime]) -> None:
    """The largest file's compile is most of a first start, and it began only once the smaller
    ones had compiled (the bundled Go tool's 0.2 to 0.5 s after the fork). Here the smallest
    file's compile waits until the largest's has begun: it never would, one after the other."""
    largest_began = threading.Event()
    smallest_saw: list[bool] = []
    bundled = [BUNDLED_EXTENSIONS / name for name in ("hashsum.wasm", "textkit.wasm")]
    smallest, largest = (str(path) for path in bundled)

    class Watched(EarlyCompiles):
        def _compile(self, path: str) -> Any:
            if path == largest:
                largest_began.set()
            elif path == smallest:
                smallest_saw.append(largest_began.wait(timeout=30))  # a guard: it is set at once, or never
            return super()._compile(path)

    early = Watched(baseline_compiler(False, 2), bundled, first=bundled)
    runtime = WasmRuntime(tmp_path / "modules", consume_fuel=False, max_workers=2, early=early)
    runtimes.append(runtime)
    loaded = [runtime.load(path) for path in bundled]
    assert smallest_saw == [True]
    assert early.taken == 2 and [module.compiler for module in loaded] == ["winch", "winch"]


def test_after_the_first_scan_the_runtime_compiles_for_itself(tmp_path: Path, runtimes: list[WasmRuntime]) -> None:
    early = EarlyCompiles(baseline_compiler(False, 2), [FIXTURE_WASM / "echo.wasm"])
    runtime = WasmRuntime(tmp_path / "modules", consume_fuel=False, max_workers=2, early=early)
    runtimes.append(runtime)
    runtime.drop_early_compiles()
    echo = runtime.load(FIXTURE_WASM / "echo.wasm")
    assert early.taken == 0 and echo.compiler == "winch"


def test_modules_compiled_for_other_settings_are_left_and_compiled_again(tmp_path: Path,
                                                                           runtimes: list[WasmRuntime]) -> None:
    # Counting fuel changes the code, so a runtime that counts it cannot run code made without.
    early = EarlyCompiles(baseline_compiler(False, 2), [FIXTURE_WASM / "echo.wasm"])
    runtime = WasmRuntime(tmp_path / "modules", consume_fuel=True, max_workers=2, early=early)
    runtimes.append(runtime)
    assert runtime.baseline is not early.compiler
    echo = runtime.load(FIXTURE_WASM / "echo.wasm")
    assert early.taken == 0
    assert runtime.run(echo, RunRequest(argv=["echo"], stdin=b"hi")).stdout == b"hi"


def test_a_file_that_fails_early_is_rejected_by_the_runtime_with_its_usual_reason(
        tmp_path: Path, runtimes: list[WasmRuntime]) -> None:
    early = EarlyCompiles(baseline_compiler(False, 2), [FIXTURE_WASM / "truncated.wasm"])
    runtime = WasmRuntime(tmp_path / "modules", consume_fuel=False, max_workers=2, early=early)
    runtimes.append(runtime)
    with pytest.raises(WasmRejected) as caught:
        runtime.load(FIXTURE_WASM / "truncated.wasm")
    assert caught.value.reason.startswith("not a valid module: unexpected end-of-file")


def test_only_a_first_start_compiles_early_and_then_every_tool_file_of_the_folders(tmp_path: Path) -> None:
    folder = tmp_path / "extensions"
    folder.mkdir()
    for name in ("echo.wasm", "args.wasm"):
        shutil.copy(FIXTURE_WASM / name, folder / name)
    (folder / "notes.txt").write_text("not a tool", encoding="utf-8")
    data = tmp_path / "data"
    settings = load_settings(None, extensions=[folder], data_dir=data)
    assert is_first_start(data)
    early = compile_early(settings)
    assert early is not None
    assert {early.take(path, sha) is not None for path, sha in _sha256s(folder)} == {True}
    # Described before (the description cache's index) or compiled before: not a first start.
    (data / "descriptions").mkdir(parents=True)
    (data / "descriptions" / "index").write_bytes(b"")
    assert not is_first_start(data) and compile_early(settings) is None
    shutil.rmtree(data / "descriptions")
    (data / "modules").mkdir()
    (data / "modules" / "a-b.cwasm").write_bytes(b"")
    assert not is_first_start(data)
    # Cranelift up front (quick_compile off): nothing compiles early for a baseline compiler.
    shutil.rmtree(data / "modules")
    off = load_settings(None, extensions=[folder], data_dir=data, discovery={"quick_compile": False})
    assert is_first_start(data) and compile_early(off) is None


def _sha256s(folder: Path) -> list[tuple[Path, str]]:
    return [(path, hashlib.sha256(path.read_bytes()).hexdigest()) for path in sorted(folder.glob("*.wasm"))]


def test_the_bundled_tools_compile_early_before_larger_ones_of_the_users(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Largest first over every folder: a user's folder of large tools (an outside probe: 32 of
    them, 123 MB) took the whole budget, and the bundled tools compiled late, missing from a
    client's first listing. Here a stand-in bundled folder holds a small module, the user's
    folder files that each take nearly the whole budget."""
    import toolbay.first_start as first_start
    from toolbay.wasm.early import EARLY_BYTES

    bundled, mine = tmp_path / "bundled", tmp_path / "mine"
    bundled.mkdir()
    mine.mkdir()
    shutil.copy(FIXTURE_WASM / "trap.wasm", bundled / "trap.wasm")
    for number in range(2):
        with (mine / f"large{number}.wasm").open("wb") as large:
            large.truncate(EARLY_BYTES - 1024)  # no module: its compile fails at once, after its turn
    monkeypatch.setattr(first_start, "BUNDLED_EXTENSIONS", bundled)
    settings = load_settings(None, extensions=[mine, bundled], data_dir=tmp_path / "data")
    early = compile_early(settings)
    assert early is not None
    [(path, sha)] = _sha256s(bundled)
    assert early.take(path, sha) is not None


# --- begun before the settings are read (toolbay.first_start.guess_before_settings) ---

def _no_toolbay_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in [name for name in os.environ if name.upper().startswith("TOOLBAY_")]:
        monkeypatch.delenv(variable)


@pytest.mark.parametrize("given", [
    {},  # everything by default: the bundled tools, the data folder under XDG_DATA_HOME
    {"extensions": ["mine", "~/more"], "data_dir": "data", "workspace": ".", "transport": "stdio"},
    {"extensions": ["mine", "./mine/", "other"], "data_dir": "data"},  # one folder named twice
])
def test_a_serve_configured_only_on_its_command_line_is_guessed_before_its_settings_are_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: dict[str, Any]) -> None:
    monkeypatch.chdir(tmp_path)
    _no_toolbay_variables(monkeypatch)
    monkeypatch.setenv("TOOLBAY_LOG_LEVEL", "debug")  # no setting the compiles depend on
    guess = guess_before_settings(given)
    assert guess is not None and guess.compiles is None
    # As serve reads them: the same options, as the command line gave them.
    assert guess.holds_for(load_settings(None, **given))


@pytest.mark.parametrize(("given", "variable"), [
    ({"config": Path("other.toml")}, None),
    ({}, "toolbay.toml"),  # the configuration file read from the current folder
    ({"transport": "http"}, None),
    ({}, "TOOLBAY_SANDBOX__FUEL=100000"),  # fuel changes the compiled code
    ({}, "toolbay_jobs__max_concurrent=2"),  # the pool's size too; names are read in any case
    ({}, "TOOLBAY_DISCOVERY__QUICK_COMPILE=false"),
    ({}, "TOOLBAY_DATA_DIR=elsewhere"),
    ({}, 'TOOLBAY_EXTENSIONS=["elsewhere"]'),
    ({}, "TOOLBAY_TRANSPORT=http"),  # no fork then
    ({}, 'TOOLBAY_JOBS={"drain_s": 0}'),
])
def test_a_setting_the_compiles_depend_on_that_may_come_from_elsewhere_leaves_them_to_the_settings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: dict[str, Any], variable: str | None) -> None:
    monkeypatch.chdir(tmp_path)
    _no_toolbay_variables(monkeypatch)
    if variable == "toolbay.toml":
        (tmp_path / "toolbay.toml").write_text("", encoding="utf-8")
    elif variable is not None:
        name, _, value = variable.partition("=")
        monkeypatch.setenv(name, value)
    assert guess_before_settings(given) is None


def test_compiles_begun_on_a_guess_the_settings_belie_are_let_go_and_made_again_as_they_say(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _no_toolbay_variables(monkeypatch)
    folder = tmp_path / "extensions"
    folder.mkdir()
    shutil.copy(FIXTURE_WASM / "echo.wasm", folder / "echo.wasm")
    [(path, sha)] = _sha256s(folder)
    options = {"extensions": [str(folder)], "data_dir": str(tmp_path / "data")}
    guess = guess_before_settings(options)
    assert guess is not None
    started = guess.begin()
    assert started.compiles is not None
    # The same settings: the compiles go on, and the runtime takes what they made.
    assert compile_early(load_settings(None, **options), started) is started.compiles
    # Fuel, set some other way than the guess could see (here: passed in), changes the code.
    started = guess.begin()
    fuelled = load_settings(None, **options, sandbox={"fuel": 100_000})
    assert not started.holds_for(fuelled)
    again = compile_early(fuelled, started)
    assert again is not None and again is not started.compiles
    assert again.compiler.options == baseline_compiler(True, runtime_sizing(fuelled)[1]).options
    assert started.compiles is not None and started.compiles.take(path, sha) is None  # let go
    assert again.take(path, sha) is not None
    # Described before: no first start, whatever the guess.
    (tmp_path / "data" / "descriptions").mkdir(parents=True)
    (tmp_path / "data" / "descriptions" / "index").write_bytes(b"")
    assert guess.begin().compiles is None and compile_early(load_settings(None, **options), guess.begin()) is None


def test_a_data_folder_that_cannot_be_read_before_the_settings_leaves_the_compiles_to_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As root (CI), permissions cannot be denied to the test: the stat that fails is raised here.
    import toolbay.first_start as first_start

    monkeypatch.chdir(tmp_path)
    _no_toolbay_variables(monkeypatch)
    guess = guess_before_settings({"data_dir": str(tmp_path / "data")})
    assert guess is not None

    def unreadable(data_dir: Path) -> bool:
        raise PermissionError(13, "Permission denied", str(data_dir))

    monkeypatch.setattr(first_start, "is_first_start", unreadable)
    assert guess.begin().compiles is None


def test_a_first_start_is_told_without_loading_the_description_cache() -> None:
    """``serve`` tells a first start (no description index) before it forks and begins the
    compiles: the index's name came from ``toolbay.description_cache``, whose imports (tempfile,
    shutil, the compression modules: 20 modules, 5 to 24 ms) then came before every compile."""
    import subprocess
    import sys

    probe = "import sys, toolbay.first_start; print('toolbay.description_cache' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    assert shown.split() == ["False"]
