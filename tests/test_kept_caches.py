"""What the suite keeps between runs stays the size of what it uses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import drop_bytecode_of_removed_sources


def _import_from(folder: Path, module: str, prefix: Path) -> None:
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix), "PYTHONPATH": str(folder)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True, env=env, timeout=60)


def test_bytecode_of_a_removed_source_goes_and_the_rest_stays(tmp_path: Path) -> None:
    prefix = tmp_path / "bytecode"
    kept, gone = tmp_path / "kept", tmp_path / "gone" / "deep"
    for folder in (kept, gone):
        folder.mkdir(parents=True)
        (folder / "module.py").write_text("VALUE = 1\n")
        _import_from(folder, "module", prefix)
    mirror = prefix / tmp_path.relative_to("/")  # the standard library's bytecode is there too
    assert sorted(path.parent.name for path in mirror.rglob("*.pyc")) == ["deep", "kept"]
    standard_library = len(list(prefix.rglob("*.pyc"))) - 2
    (mirror / "gone" / "deep" / f"module.{sys.implementation.cache_tag}.sre").write_bytes(b"patterns")
    (gone / "module.py").unlink()

    assert drop_bytecode_of_removed_sources(prefix) == 2

    assert [path.parent.name for path in mirror.rglob("*.pyc")] == ["kept"]
    assert len(list(prefix.rglob("*.pyc"))) == standard_library + 1
    assert not (prefix / gone.relative_to("/")).parent.exists()  # the emptied folders went too
    assert prefix.is_dir()


def test_the_compiled_code_toolbay_keeps_beside_its_bytecode_stays_while_its_source_is_there(tmp_path: Path) -> None:
    # Each file is named after the module that keeps it: the suite's pruning of its bytecode folder
    # (drop_bytecode_of_removed_sources) drops what is kept for a source that is gone, and a file
    # named after no source would go at every run's start, its code compiled again.
    prefix = tmp_path / "bytecode"
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    script = ("from toolbay.internals.dataclass_code import keep_compiled_code\nkeep_compiled_code()\n"
              "from toolbay.internals.sre_code import keep_literal_patterns\nkeep_literal_patterns()\n"
              "import toolbay.redaction\nimport toolbay.helptext.describe\nimport tomllib")
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=60)
    kept = sorted(path.name.split(".")[0] for path in prefix.rglob("*") if path.suffix in (".sre", ".code"))
    assert kept == ["dataclass_code", "kept", "kept_patterns", "sre_code"]
    drop_bytecode_of_removed_sources(prefix)
    assert sorted(path.name.split(".")[0] for path in prefix.rglob("*") if path.suffix in (".sre", ".code")) == kept
