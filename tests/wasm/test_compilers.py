"""The baseline compiler's settings: what makes its code quick to compile is what it carries."""

from __future__ import annotations

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
