"""Another git revision's package, unpacked so that a child process imports it instead of
this checkout's: the before/after benchmarks score or time both in the same run.

The checkout is installed editable, and the editable finder comes after the path finder,
so a ``toolbay`` folder first on ``sys.path`` wins. The repository keeps ``server/`` and
``handlers/`` (installed as ``toolbay`` and ``toolbay.handlers``): they are laid out as the
installed package is. ``server/`` stays too, for revisions from before the rename.
"""

from __future__ import annotations

import shutil
import subprocess
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
