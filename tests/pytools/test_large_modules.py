"""A tool module larger than a pipe holds reaches its worker whole, however slowly it starts.

The module's text goes to the worker in its first message. Written with a deadline and tried
again, the rest of it was never sent: Python's ``communicate`` goes on writing only when given
the input again, so a module over 64 KB whose worker took more than a tenth of a second to
start reading (a busy machine) waited out the describe timeout and was skipped, and the skip
was remembered until the file changed (an outside check's finding: 2 starts in 5).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from toolbay.pytools.describe import describe_module
from toolbay.pytools.workers import WorkerSpec

TOOLS = '''
def get_tool_schemas():
    return [{"name": "big_echo", "description": "Says it back", "input_schema": {"type": "object"}}]


def dispatch(name, arguments):
    return "ok"
'''


def test_a_module_larger_than_a_pipe_is_described_when_its_worker_is_slow_to_start(tmp_path: Path) -> None:
    module = tmp_path / "big.py"
    module.write_text(("# " + "x" * 98 + "\n") * 3000 + TOOLS, encoding="utf-8")  # 300 KB
    # The worker's Python, started half a second late: as on a machine busy with other work.
    slow_python = tmp_path / "slow-python"
    slow_python.write_text(f'#!/bin/sh\nsleep 0.5\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    slow_python.chmod(0o755)
    spec = WorkerSpec(path=str(module), module="big", python=str(slow_python), source=module.read_text("utf-8"))
    # A stop event makes the describing poll (every 0.1 s), as discovery's does.
    description, _ = describe_module(spec, timeout_s=20, stop=threading.Event())
    assert [schema["name"] for schema in description["schemas"]] == ["big_echo"]
