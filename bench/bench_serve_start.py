"""A warm server's start: processor time to its first answers, this checkout against a revision.

    python bench/bench_serve_start.py --against REF [--rounds R]

Each round starts ``toolbay serve`` over stdio on the bundled tools, with their descriptions
cached by an earlier start (what a user's second start, and every test's server, is), and
measures the process and its children until it has answered ``initialize``, a ``tools/list``
and one call of ``textkit_count``: CPU time (``/proc``, steadier than wall time on a busy
machine) and wall time. The same for the toolbay of git revision REF, unpacked beside
(``revision_tree``), alternating with it (each first in every other round), so that both see
the same machine. Prints every
round, the minimum and the median of each, and the ratio of medians (this / REF).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from cold_start import _answer, _send, cpu_time_of, handshake, python_as_installed  # noqa: E402
from revision_tree import in_turn, report_against, unpack_revision  # noqa: E402

EXTENSIONS = ROOT / "extensions"
# Named for both: the unpacked revision has no bundled role folder of its own, and without
# it would serve three tools fewer and do less work.
AGENTS = ROOT / "agents"


def start_once(python_path: Path, data: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one start to its first three answers."""
    env = {**python_as_installed(), "PYTHONPATH": str(python_path), "TOOLBAY_AGENTS": json.dumps([str(AGENTS)])}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolbay", "serve", "--extensions", str(EXTENSIONS), "--data-dir", str(data)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=data,
    )
    try:
        handshake(process)
        _send(process, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        listing, _ = _answer(process, 1)
        tools = {tool["name"] for tool in listing["result"]["tools"]}  # type: ignore[index]
        assert "textkit_count" in tools and "agent_json_reviewer" in tools, sorted(tools)
        _send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "textkit_count", "arguments": {"stdin": "one two\n"}}})
        answer, _ = _answer(process, 2)
        assert not answer["result"].get("isError"), answer  # type: ignore[union-attr]
        wall = time.perf_counter() - started
        cpu = cpu_time_of(process.pid)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(30)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", required=True, metavar="REF", help="git revision to compare with")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolbay-bench-serve-start-") as temp:
        base = Path(temp)
        (base / "other").mkdir()
        other_tree = unpack_revision(args.against, base / "other")
        runs = {"this": (ROOT, base / "this-data"), args.against: (other_tree, base / "other-data")}
        for path, data in runs.values():
            data.mkdir()
            start_once(path, data)  # describes the tools and caches bytecode: later starts are warm
        seen: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        print(f"warm start to initialize + tools/list + one call, this checkout vs {args.against}")
        for round_number in range(1, args.rounds + 1):
            for name in in_turn(list(runs), round_number - 1):
                path, data = runs[name]
                seen[name].append(start_once(path, data))
            print(f"round {round_number:2d}: " + ", ".join(
                f"{name}: {seen[name][-1][0] * 1000:5.0f} ms CPU {seen[name][-1][1] * 1000:5.0f} ms wall"
                for name in runs), flush=True)
        report_against(seen, args.against, scale=1000, unit="ms")


if __name__ == "__main__":
    main()
