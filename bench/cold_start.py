"""Cold start as a client sees it: process start → the first complete ``tools/list``.

Each round starts ``python -m toolbay serve`` over stdio on the bundled folder with an empty
data folder, once with the settings of today (``quick_compile``: Winch first, Cranelift in the
background) and once compiling everything with Cranelift up front (the compiler settings
before), in alternating order. It speaks raw JSON-RPC over the pipes (initialize, then
``tools/list``; if that listing lacks bundled tools, it waits for ``list_changed`` and lists
again) and reports the time to the first listing that holds every bundled tool, whether
that was the first listing, and the CPU time the server process had used by then (Linux:
``/proc``; on a busy machine that is the steadier figure).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Today's settings are the defaults (a variable of [discovery] would keep the server from
# beginning its compiles before it reads its settings: toolbay.first_start).
SETTINGS: dict[str, dict[str, str]] = {
    "new (Winch first, Cranelift in background)": {},
    "before (Cranelift up front)": {"TOOLBAY_DISCOVERY__QUICK_COMPILE": "false"},
}


@dataclass(slots=True)
class ColdStart:
    seconds: float
    cpu_s: float
    first_listing_complete: bool
    tools: int


def cpu_time_of(pid: int) -> float:
    """User + system CPU seconds used so far by the process and every process below it (0 where
    /proc is missing). A stdio ``serve`` forks at once and its child is the server
    (``toolbay.detach``): the parent alone holds only the imports before the fork. The
    server starts processes of its own from its worker threads (a Python tool module's
    describing, in a process that has ended by the first listing): a process's children are
    listed under the thread that started it, and those it has waited for count in its
    ``cutime``/``cstime``, so both are read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return 0.0
    own = sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime, stime, cutime, cstime
    return own + sum(cpu_time_of(int(child)) for task in tasks for child in _children_of(task))


def _children_of(task: Path) -> list[str]:
    try:
        return (task / "children").read_text().split()
    except OSError:
        return []  # the thread has ended meanwhile


def _send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def _answer(process: subprocess.Popen[bytes], request_id: int) -> tuple[dict[str, object], bool]:
    """The response to ``request_id``, and whether a ``tools/list_changed`` came before it."""
    assert process.stdout is not None
    changed = False
    while line := process.stdout.readline():
        message = json.loads(line)
        if message.get("id") == request_id:
            return message, changed
        changed |= message.get("method") == "notifications/tools/list_changed"
    raise RuntimeError("the server closed its output")


def handshake(process: subprocess.Popen[bytes]) -> None:
    """``initialize`` (request id 0), its answer, then ``notifications/initialized``."""
    _send(process, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
    _answer(process, 0)
    _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})


def _wait_for_change(process: subprocess.Popen[bytes]) -> None:
    assert process.stdout is not None
    while line := process.stdout.readline():
        if json.loads(line).get("method") == "notifications/tools/list_changed":
            return
    raise RuntimeError("the server closed its output")


def python_as_installed() -> dict[str, str]:
    """The environment of the measured processes: Python caching compiled bytecode, as it does
    by default (in a temporary folder, so the checkout stays clean), even where this shell sets
    PYTHONDONTWRITEBYTECODE: else every start compiles toolbay and its libraries from source,
    which no installed server does after its first start."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.environ.get("PYTHONPYCACHEPREFIX") or _BYTECODE.name
    return env


_BYTECODE = tempfile.TemporaryDirectory(prefix="toolbay-bench-bytecode-")


def cold_start(extensions: Path, expected: set[str], env: dict[str, str]) -> ColdStart:
    with tempfile.TemporaryDirectory(prefix="toolbay-cold-") as data:
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "toolbay", "serve", "--extensions", str(extensions), "--data-dir", data],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={**python_as_installed(), **env}, cwd=data,
        )
        try:
            handshake(process)
            first = True
            request_id = 1
            while True:
                _send(process, {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})
                answer, changed_meanwhile = _answer(process, request_id)
                names = {tool["name"] for tool in answer["result"]["tools"]}  # type: ignore[index]
                if expected <= names:
                    return ColdStart(time.perf_counter() - started, cpu_time_of(process.pid), first, len(names))
                if not changed_meanwhile:
                    _wait_for_change(process)
                first = False
                request_id += 1
        finally:
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def bundled_tool_names(extensions: Path) -> set[str]:
    with tempfile.TemporaryDirectory(prefix="toolbay-cold-names-") as data:
        listed = subprocess.run(
            [sys.executable, "-m", "toolbay", "list", "--json", "--extensions", str(extensions), "--data-dir", data],
            check=True, capture_output=True, text=True, env=python_as_installed(),
        )
    return {tool["name"] for tool in json.loads(listed.stdout)["tools"]}


def run(extensions: Path, rounds: int, label: str) -> bool:
    expected = bundled_tool_names(extensions)
    print(f"{label}. cold start of the bundled tools ({len(expected)} tools), process start → first complete "
          f"tools/list, empty data folder, {rounds} rounds; bytecode cached as Python does by default "
          f"(this shell {'sets' if os.environ.get('PYTHONDONTWRITEBYTECODE') else 'does not set'} "
          "PYTHONDONTWRITEBYTECODE)")
    samples: dict[str, list[ColdStart]] = {name: [] for name in SETTINGS}
    names = list(SETTINGS)
    # Listing the names above compiled only the CLI's modules: the server's (the MCP SDK's) are
    # compiled to bytecode by a first start, which would fall on round 1's first server alone.
    warm_up = cold_start(extensions, expected, SETTINGS[names[1]])
    print(f"   warm-up start, not counted (Python compiles the server's modules to bytecode): "
          f"{warm_up.seconds:.2f} s, CPU {warm_up.cpu_s:.2f} s")
    all_first = True
    for number in range(rounds):
        order = names if number % 2 == 0 else names[::-1]
        for name in order:
            samples[name].append(cold_start(extensions, expected, SETTINGS[name]))
        new, before = (samples[name][-1] for name in names)
        all_first &= new.first_listing_complete
        print(f"   round {number + 1}: wall new {new.seconds:6.2f} s, before {before.seconds:6.2f} s, ratio "
              f"{new.seconds / before.seconds:.2f}x | CPU new {new.cpu_s:6.2f} s, before {before.cpu_s:6.2f} s, "
              f"ratio {new.cpu_s / before.cpu_s:.2f}x | first listing complete: new "
              f"{'yes' if new.first_listing_complete else 'NO'}, before "
              f"{'yes' if before.first_listing_complete else 'no'}")
    ratios = {}
    for figure in ("seconds", "cpu_s"):
        new_times = [getattr(s, figure) for s in samples[names[0]]]
        before_times = [getattr(s, figure) for s in samples[names[1]]]
        kind = "wall" if figure == "seconds" else "CPU "
        for name, times in ((names[0], new_times), (names[1], before_times)):
            print(f"   {kind} {name:44s} min {min(times):6.2f} s  median {statistics.median(times):6.2f} s")
        ratios[figure] = (min(new_times) / min(before_times),
                          statistics.median(new_times) / statistics.median(before_times))
        print(f"   {kind} ratio min {ratios[figure][0]:.2f}x, median {ratios[figure][1]:.2f}x (goal <= 0.3x)")
    met = ratios["seconds"][1] <= 0.3 and all_first
    print(f"   every bundled tool in the first listing (new): {'yes' if all_first else 'NO'}; "
          f"{'met' if met else 'MISSED'}\n")
    return met
