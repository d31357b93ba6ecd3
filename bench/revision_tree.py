"""Another git revision's package, unpacked so that a child process imports it instead of
this checkout's: the before/after benchmarks score or time both in the same run.

The checkout is installed editable, and the editable finder comes after the path finder,
so a ``toolbay`` folder first on ``sys.path`` wins. The repository keeps ``server/`` and
``handlers/`` (installed as ``toolbay`` and ``toolbay.handlers``): they are laid out as the
installed package is. ``server/`` stays too, for revisions from before the rename.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def unpack_revision(ref: str, into: Path) -> Path:
    """Unpacks ``ref``'s package into ``into`` and returns the folder to put first on sys.path."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "server", "handlers"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    shutil.copytree(into / "server", into / "toolbay")
    if (into / "handlers").is_dir():
        shutil.copytree(into / "handlers", into / "toolbay" / "handlers", dirs_exist_ok=True)
    return into


def in_turn(names: Sequence[str], round_index: int) -> list[str]:
    """``names`` in order in even rounds and reversed in odd ones, so that neither always starts
    on a machine the other has just warmed."""
    return list(names) if round_index % 2 == 0 else list(names)[::-1]


def report_against(samples: Mapping[str, Sequence[tuple[float, float]]], against: str, *,
                   scale: float = 1.0, unit: str = "s", indent: str = "") -> None:
    """Prints each run's CPU and wall time, minimum and median, then the ratio of medians of
    "this" to ``against``. ``samples``: (CPU seconds, wall seconds) a round, by run name;
    ``scale`` and ``unit``: how the figures are shown (1000 and "ms" for milliseconds)."""
    medians = {}
    for name, rows in samples.items():
        cpus, walls = [row[0] * scale for row in rows], [row[1] * scale for row in rows]
        medians[name] = (statistics.median(cpus), statistics.median(walls))
        print(f"{indent}{name:>12}: CPU min {min(cpus):6.2f} median {medians[name][0]:6.2f} {unit} | "
              f"wall min {min(walls):6.2f} median {medians[name][1]:6.2f} {unit}")
    this, other = medians["this"], medians[against]
    print(f"{indent}ratio of medians, this / {against}: CPU {this[0] / other[0]:.2f}x, wall {this[1] / other[1]:.2f}x")
