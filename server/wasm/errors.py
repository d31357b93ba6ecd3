"""Errors from wasmtime, translated into toolbay's terms in exactly this one place.

    wasmtime.ExitTrap       the guest called proc_exit(n)       -> Ending.exit_code = n
    wasmtime.Trap           a real trap (unreachable, stack...)  -> Ending.trap = short reason
    wasmtime.WasmtimeError  anything else (invalid exit status,
                            an epoch callback that stopped it,
                            instantiation over the memory limit) -> Ending.trap = short reason
    (while loading)         any of the above                     -> WasmRejected(path, one line)

A stop the runtime asked for (timeout, cancellation) is known before the error arrives;
it takes precedence over whatever wasmtime says, because wasmtime only sees "interrupted".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import wasmtime

from toolbay.errors import WasmRejected

# Every exception class wasmtime-py raises, most specific first. A test checks that this
# covers every exception class the package exports.
MAPPED_EXCEPTIONS: tuple[type[BaseException], ...] = (wasmtime.ExitTrap, wasmtime.Trap, wasmtime.WasmtimeError)

_TRAP_REASONS: dict[wasmtime.TrapCode, str] = {
    wasmtime.TrapCode.STACK_OVERFLOW: "stack overflow",
    wasmtime.TrapCode.MEMORY_OUT_OF_BOUNDS: "wasm trap: out-of-bounds memory access",
    wasmtime.TrapCode.HEAP_MISALIGNED: "wasm trap: misaligned memory access",
    wasmtime.TrapCode.TABLE_OUT_OF_BOUNDS: "wasm trap: out-of-bounds table access",
    wasmtime.TrapCode.INDIRECT_CALL_TO_NULL: "wasm trap: indirect call to null",
    wasmtime.TrapCode.BAD_SIGNATURE: "wasm trap: indirect call signature mismatch",
    wasmtime.TrapCode.INTEGER_OVERFLOW: "wasm trap: integer overflow",
    wasmtime.TrapCode.INTEGER_DIVISION_BY_ZERO: "wasm trap: integer division by zero",
    wasmtime.TrapCode.BAD_CONVERSION_TO_INTEGER: "wasm trap: invalid conversion to integer",
    wasmtime.TrapCode.UNREACHABLE: "wasm trap: unreachable",
    wasmtime.TrapCode.INTERRUPT: "interrupted",
    wasmtime.TrapCode.OUT_OF_FUEL: "out of fuel",
}


@dataclass(slots=True)
class Ending:
    """How the guest stopped, filled in by ``map_wasmtime_errors``. Nothing raised: exit 0."""

    exit_code: int | None = 0
    trap: str | None = None

    def fail(self, reason: str) -> None:
        self.exit_code = None
        self.trap = reason


def _caused_by(message: str) -> str:
    """The last 'Caused by' line of a wasmtime message (the backtrace before it is noise)."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if "Caused by:" in lines:
        tail = lines[lines.index("Caused by:") + 1:]
        if tail:
            return tail[-1]
    return lines[0] if lines else "unknown error"


def trap_reason(error: wasmtime.Trap) -> str:
    code = error.trap_code
    if code in _TRAP_REASONS:
        return _TRAP_REASONS[code]
    return f"wasm trap: {_caused_by(error.message).removeprefix('wasm trap: ')}"


# WASI lets a program exit with 0..125 only; a larger status (git's 129 for a usage error) is
# refused by wasmtime as an error, though the program ended as it meant to and its output is whole.
INVALID_EXIT_STATUS = "exited with an invalid status (outside 0..125)"


def error_reason(error: BaseException) -> str:
    text = _caused_by(str(error))
    if "exit status outside" in text:
        return INVALID_EXIT_STATUS
    if "memory minimum size" in text or "exceeds memory limits" in text:
        return "needs more memory at start than the memory limit allows"
    if "stack overflow" in text or "call stack exhausted" in text:
        return "stack overflow"
    if "Cannot allocate memory" in text:
        # A guest's memory is address space reserved whole (about 4 GiB, then used as it grows):
        # under a low ``ulimit -v`` every guest failed so, with nothing to say why.
        return (f"wasm error: {text}: the system refused the address space a guest's memory reserves (about 5 GB "
                f"for each guest running at once; see ulimit -v)")
    return f"wasm error: {text}"


@contextmanager
def map_wasmtime_errors(ending: Ending) -> Iterator[Ending]:
    """Runs guest code; records how it ended on ``ending`` instead of raising.

    Tracebacks are dropped: a caught wasmtime exception's frames hold the Store alive
    (a reference cycle) until the garbage collector runs.
    """
    try:
        yield ending
    except wasmtime.ExitTrap as error:
        ending.exit_code, ending.trap = error.code, None
        error.__traceback__ = None
    except wasmtime.Trap as error:
        ending.fail(trap_reason(error))
        error.__traceback__ = None
    except wasmtime.WasmtimeError as error:
        ending.fail(error_reason(error))
        error.__traceback__ = None


@contextmanager
def map_load_errors(path: str, stage: str = "not a valid module") -> Iterator[None]:
    """Compiling or linking a module: any wasmtime failure becomes a one-line ``WasmRejected``."""
    try:
        yield
    except MAPPED_EXCEPTIONS as error:
        reason = _caused_by(str(error))
        error.__traceback__ = None
        raise WasmRejected(path, f"{stage}: {reason}") from None
