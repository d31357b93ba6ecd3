"""The values a run is described and answered with. Plain data, no wasmtime in sight."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MiB = 1024 * 1024
KiB = 1024


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """What one call may consume. Every field comes from the configuration."""

    timeout_s: float = 10.0
    memory_mb: int = 256
    stdout_limit_bytes: int = 1 * MiB
    stderr_limit_bytes: int = 64 * KiB
    # Instructions budget (wasmtime fuel units); None means no budget.
    fuel: int | None = None

    def __post_init__(self) -> None:
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        if self.memory_mb <= 0:
            raise ValueError("memory_mb must be positive")
        if self.stdout_limit_bytes < 0 or self.stderr_limit_bytes < 0:
            raise ValueError("output limits must not be negative")
        if self.fuel is not None and self.fuel <= 0:
            raise ValueError("fuel must be positive when set")

    @property
    def memory_bytes(self) -> int:
        return self.memory_mb * MiB


@dataclass(frozen=True, slots=True)
class Preopen:
    """A host folder the guest may see, at ``guest_path``."""

    host_path: Path
    guest_path: str
    writable: bool


@dataclass(frozen=True, slots=True)
class RunRequest:
    """One run of a module's ``_start``: argv[0] is the tool's name."""

    argv: list[str]
    stdin: bytes | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    preopens: Sequence[Preopen] = ()
    limits: SandboxLimits = SandboxLimits()
    # Hears the guest's progress lines (``server.wasm.progress``) as they are written, on the
    # thread that drains its output: the newest report of each chunk, never the same one twice.
    on_progress: Callable[[Any], None] | None = None


@dataclass(frozen=True, slots=True)
class RunResult:
    """How a run ended. ``trap`` is a short human reason when the guest did not exit by itself."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    trap: str | None
    duration_s: float
    # CPU time of the thread that ran the guest: unlike ``duration_s``, not inflated by waits
    # for the interpreter lock or for a processor.
    cpu_s: float = 0.0
    # Time the guest slept (``poll_oneoff``): with ``cpu_s``, the time the run itself took.
    waited_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.trap is None and self.exit_code == 0
