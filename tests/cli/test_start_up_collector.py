"""A server's start runs its imports with Python's cyclic collector paused, then freezes what
they made and serves with the collector on (``toolbay.start_up_collector``).

Checked in a real ``toolbay serve`` process over stdio: a client lists the bundled tools and
goes; the process then reports how its collector ran. Paused for nothing, the imports alone
would have set it off hundreds of times; left paused, the server would never free a cycle.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT, as_if_run_before

# Runs the ``toolbay`` command's own entry point, counting the collections that start after it
# is called and before the imports' objects are frozen (the entry point pauses the collector
# first thing), and says on stderr how the collector stands at the end.
SERVE_AND_REPORT = """
import gc, json, os, sys, time
if os.environ.get("HOLD_SDK_IMPORT_UNTIL"):
    import importlib.machinery
    class Held:  # holds up the MCP SDK's import, on serve's thread, until the file exists
        # Held in the loader, not in find_spec: Python 3.11 calls finders holding the global
        # import lock, and waiting there would stop every import of every thread.
        def __init__(self, loader):
            self.loader = loader
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if name != "mcp.server.sse":
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            spec.loader = cls(spec.loader)
            return spec
        def create_module(self, spec):
            return self.loader.create_module(spec)
        def exec_module(self, module):
            while not os.path.exists(os.environ["HOLD_SDK_IMPORT_UNTIL"]):
                time.sleep(0.02)
            self.loader.exec_module(module)
    sys.meta_path.insert(0, Held)
before_freeze, entered = [], []
gc.callbacks.append(lambda phase, info: before_freeze.append(info["generation"])
                    if phase == "start" and entered and gc.get_freeze_count() == 0 else None)
from toolbay.entry import main
sys.argv = ["toolbay", *sys.argv[1:]]
entered.append(True)
try:
    main()
except SystemExit:
    pass
sys.stderr.write("COLLECTOR " + json.dumps({"enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
                                            "collections_before_freeze": len(before_freeze)}) + "\\n")
"""


def test_a_server_starts_with_the_collector_paused_and_serves_with_it_on(tmp_path: Path, shared_data_dir: Path) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ]
    # No jobs to outlive the client: the server does not fork away from it (toolbay.detach).
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "TOOLBAY_JOBS__DRAIN_S": "0"}
    done = subprocess.run(
        [sys.executable, "-c", SERVE_AND_REPORT, "serve", "--data-dir",
         str(as_if_run_before(tmp_path / "data", shared_data_dir))],
        input="".join(json.dumps(m) + "\n" for m in messages), capture_output=True, text=True,
        env=env, cwd=tmp_path, timeout=120, check=False,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    listing = next(a for a in answers if a.get("id") == 1)
    assert any(tool["name"] == "textkit_count" for tool in listing["result"]["tools"]), done.stderr

    report = next(line for line in done.stderr.splitlines() if line.startswith("COLLECTOR "))
    collector = json.loads(report.removeprefix("COLLECTOR "))
    assert collector["enabled"], "the collector stayed off after the start: no cycle would ever be freed"
    assert collector["frozen"] > 50_000, "the imports' objects were not moved out of the collector's reach"
    # None while the imports ran, nor on resuming: what they made is frozen as it is.
    assert collector["collections_before_freeze"] == 0, collector


def test_a_server_that_stops_at_once_ends_only_after_its_imports_with_the_collector_on(tmp_path: Path,
                                                                                     shared_data_dir: Path) -> None:
    """An unreachable Redis stops ``serve`` within seconds, while the MCP SDK may still be being
    imported on its thread (here it is held up). Ending the process then left that thread
    holding an import lock, which a finaliser run at the interpreter's shutdown (redis's
    connection pool imports) waited for for ever: ``serve`` now returns once the import is done.
    The import is let go only after the server has said it cannot reach Redis."""
    release = tmp_path / "release-the-import"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "TOOLBAY_CLUSTER__REDIS": "redis://127.0.0.1:1/0",
           "HOLD_SDK_IMPORT_UNTIL": str(release)}
    server = subprocess.Popen(
        [sys.executable, "-c", SERVE_AND_REPORT, "serve", "--transport", "http", "--port", "0",
         "--data-dir", str(as_if_run_before(tmp_path / "data", shared_data_dir))],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )
    assert server.stderr is not None
    said = []
    try:
        for line in server.stderr:
            said.append(line)
            if "cannot reach" in line:
                break
        release.touch()
        said.append(server.communicate(timeout=90)[1])  # hung for ever before
    finally:
        server.kill()
    stderr = "".join(said)
    assert "toolbay: [cluster] redis: cannot reach redis://127.0.0.1:1/0" in stderr
    report = next(line for line in stderr.splitlines() if line.startswith("COLLECTOR "))
    collector = json.loads(report.removeprefix("COLLECTOR "))
    assert collector["enabled"] and collector["frozen"] > 50_000, collector


def test_a_tool_called_from_the_command_line_runs_with_the_imports_frozen_and_the_collector_on(
        tmp_path: Path, shared_data_dir: Path) -> None:
    """``toolbay call`` paused the collector for nothing: its imports set it off about 150 times
    (0.78 s of processor time per call here, 0.55 s paused). The call itself, which may run long,
    runs with it on."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", SERVE_AND_REPORT, "call", "textkit_count", "--stdin", "--data-dir",
         str(as_if_run_before(tmp_path / "data", shared_data_dir))],
        input="one two three\n", capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False)
    assert done.stdout.split() == ["1", "3", "14", "14"], done.stderr
    report = next(line for line in done.stderr.splitlines() if line.startswith("COLLECTOR "))
    collector = json.loads(report.removeprefix("COLLECTOR "))
    assert collector["enabled"] and collector["frozen"] > 50_000, collector
    assert collector["collections_before_freeze"] == 0, collector
