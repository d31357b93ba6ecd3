"""The baseline compiler's settings: what makes its code quick to compile is what it carries."""

from __future__ import annotations

import subprocess
import sys

import pytest
import wasmtime

from tests.conftest import BUNDLED_EXTENSIONS
from toolbay.internals.wasmtime_capi import set_compiler, set_register_allocator
from toolbay.wasm.compilers import BASELINE, baseline_compiler


def test_baseline_code_carries_no_native_unwind_information() -> None:
    # Unwind tables for native unwinders were a tenth of the Go tool's baseline compile; traps
    # and wasm backtraces do without them (the trap tests run on baseline code: test_runner).
    data = (BUNDLED_EXTENSIONS / "hashsum.wasm").read_bytes()
    config = wasmtime.Config()
    config.epoch_interruption = True
    config.consume_fuel = False
    set_compiler(config, BASELINE)
    config.cranelift_opt_level = "none"
    set_register_allocator(config, "single_pass")
    with_unwind_information = wasmtime.Module(wasmtime.Engine(config), data).serialize()
    baseline = wasmtime.Module(baseline_compiler(False, 1).engine, data).serialize()
    assert len(baseline) < len(with_unwind_information)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")
def test_a_baseline_compile_keeps_to_the_thread_that_asks_for_it() -> None:
    # On a first start the server's own imports run beside the bundled tools' compiles: wasmtime's
    # compile threads (one a core) took the cores from them, and cost the Go tool's compile 15 %
    # more processor time. A fresh process: wasmtime's thread pool, once started, stays.
    program = (
        "import os, sys, wasmtime\n"
        "from toolbay.wasm.compilers import baseline_compiler\n"
        "compiler = baseline_compiler(False, 2)\n"
        "before = len(os.listdir('/proc/self/task'))\n"
        "wasmtime.Module(compiler.engine, open(sys.argv[1], 'rb').read())\n"
        "print(len(os.listdir('/proc/self/task')) - before)\n"
    )
    ran = subprocess.run([sys.executable, "-c", program, str(BUNDLED_EXTENSIONS / "textkit.wasm")],
                         capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "0", ran.stdout
