"""How fast the command answers: ``toolbay parse-help`` against ``python -c pass``.

    python bench/bench_cli.py [--rounds R] [--installed]

Each round runs ``python -c pass`` (Python's own start, the reference) and ``toolbay
parse-help --long FILE`` on a real help text, alternating, and takes the wall time and the
CPU time of each child process (``getrusage``: steadier than wall time on a busy machine),
all with Python caching compiled bytecode as it does by default (``cold_start.python_as_installed``).
It also runs ``toolbay --help``. Goal: parse-help <= 3x Python's start. ``--commands`` also
times, with no goal, ``toolbay list --json``, ``call textkit_count``, ``search`` and ``jobs list``
on the bundled tools with a warm data folder (described by the unmeasured first run of each):
what a user's command, and each of the test suite's, costs before it does its work.

Both run in this environment: in a checkout, the editable install whose start hook (mapping
``server/`` to ``toolbay``) every Python start here pays, the reference included.
``--installed`` builds the wheel with uv, installs it in a new virtual environment and
measures there, where Python starts without that hook: the figure a user of the wheel sees.
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from cold_start import python_as_installed  # noqa: E402

HELP_TEXT = ROOT / "tests" / "helptext" / "corpus"


def _toolbay(python: str) -> list[str]:
    script = Path(python).parent / "toolbay"
    return [str(script)] if script.exists() else [python, "-m", "toolbay"]


@contextlib.contextmanager
def installed_wheel() -> Iterator[str]:
    """The Python of a new virtual environment with the wheel built from this checkout
    (built from a copy: setuptools leaves build/ and *.egg-info/ beside its sources)."""
    uv = shutil.which("uv")
    if uv is None:
        raise SystemExit("--installed needs uv (pip install uv)")
    with tempfile.TemporaryDirectory(prefix="toolbay-bench-wheel-") as folder:
        work = Path(folder)
        shutil.copytree(ROOT, work / "source", ignore=shutil.ignore_patterns(
            ".git", ".venv", ".ci", "build", "*.egg-info", "__pycache__", "tests", "bench", "tools-src"))
        quiet = {"check": True, "capture_output": True}
        subprocess.run([uv, "build", "--wheel", "--out-dir", str(work / "dist"), str(work / "source")], **quiet)
        subprocess.run([uv, "venv", "--python", sys.executable, str(work / "venv")], **quiet)
        python = str(work / "venv" / "bin" / "python")
        (wheel,) = (work / "dist").glob("toolbay-*.whl")
        subprocess.run([uv, "pip", "install", "--python", python, str(wheel)], **quiet)
        yield python


def _help_file() -> Path:
    found = sorted(HELP_TEXT.rglob("long.txt"))
    if not found:
        raise SystemExit(f"no help texts under {HELP_TEXT}")
    return found[0]


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=python_as_installed())
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--installed", action="store_true", help="measure a wheel installed in a new environment")
    parser.add_argument("--commands", action="store_true",
                        help="also list, call, search and jobs list on the bundled tools, with a warm data folder")
    args = parser.parse_args()
    if not args.installed:
        return measure(sys.executable, args.rounds, args.commands)
    with installed_wheel() as python:
        print(f"in a new virtual environment with the wheel installed ({python})")
        return measure(python, args.rounds, args.commands)


def measure(python: str, rounds: int, commands_too: bool = False) -> int:
    with tempfile.TemporaryDirectory(prefix="toolbay-bench-cli-data-") as data:
        return _measure(python, rounds, commands_too, data)


def _measure(python: str, rounds: int, commands_too: bool, data: str) -> int:
    toolbay = _toolbay(python)
    commands = {
        "python -c pass": [python, "-c", "pass"],
        "toolbay parse-help": [*toolbay, "parse-help", "--long", str(_help_file())],
        "toolbay --help": [*toolbay, "--help"],
    }
    if commands_too:
        folders = ["--extensions", str(ROOT / "extensions"), "--data-dir", data]
        commands.update({
            "toolbay list --json": [*toolbay, "list", "--json", *folders],
            "toolbay call": [*toolbay, "call", "textkit_count", "--args", '{"stdin": "one two"}', *folders],
            "toolbay search": [*toolbay, "search", "count words", *folders],
            "toolbay jobs list": [*toolbay, "jobs", "list", "--data-dir", data],
        })
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for argv in commands.values():  # once each, unmeasured: file caches warm
        timed(argv)
    for number in range(rounds):
        for name, argv in commands.items():
            samples[name].append(timed(argv))
        reference = samples["python -c pass"][-1]
        print(f"round {number + 1:2d}: " + ", ".join(
            f"{name} {wall * 1000:5.0f} ms wall ({wall / reference[0]:4.1f}x) {cpu * 1000:4.0f} ms CPU "
            f"({cpu / reference[1]:4.1f}x)" if reference[1] else f"{name} {wall * 1000:5.0f} ms"
            for name, (wall, cpu) in ((n, samples[n][-1]) for n in commands if n != "python -c pass")))
    reference = samples["python -c pass"]
    met = True
    for name in commands:
        walls = [wall for wall, _ in samples[name]]
        cpus = [cpu for _, cpu in samples[name]]
        line = (f"{name:20s} wall min {min(walls) * 1000:5.0f} ms median {statistics.median(walls) * 1000:5.0f} ms"
                f" | CPU min {min(cpus) * 1000:4.0f} ms median {statistics.median(cpus) * 1000:4.0f} ms")
        if name != "python -c pass":
            wall_ratio = statistics.median(walls) / statistics.median(w for w, _ in reference)
            cpu_ratio = statistics.median(cpus) / max(statistics.median(c for _, c in reference), 1e-9)
            line += f" | ratio median wall {wall_ratio:.1f}x, CPU {cpu_ratio:.1f}x"
            if name == "toolbay parse-help":
                met = wall_ratio <= 3.0
                line += f" (goal <= 3x: {'met' if met else 'MISSED'})"
        print(line)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
