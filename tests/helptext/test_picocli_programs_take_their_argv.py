"""picocli (Java): the argv a schema builds, read by picocli itself.

``truth_programs/picocli/Resize.java`` is compiled here against Debian's picocli (skipped where
javac or ``libpicocli-java`` is missing), described from the ``--help`` it prints now, and
called through the schema's argv with a value for every option; it prints what picocli
parsed. picocli's help has no heading over its list, which follows what the command does (read
as generic help, the positional's line became part of that text), says a default on a line of
its own ("Default: out.png"), and marks a repeatable option only in its usage
("[-t=<tags>]...").
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.conftest import KEPT_BETWEEN_RUNS
from toolbay.helptext import build_tool_schema, describe_help

SOURCE = Path(__file__).resolve().parent / "truth_programs" / "picocli" / "Resize.java"
PICOCLI = Path("/usr/share/java/picocli.jar")


def _classes() -> Path:
    """The compiled program, kept between runs (compiled again when its source changes)."""
    if shutil.which("javac") is None or shutil.which("java") is None or not PICOCLI.exists():
        pytest.skip("javac and picocli (Debian's libpicocli-java) are not installed here")
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    folder = (KEPT_BETWEEN_RUNS or Path(tempfile.gettempdir())) / "truth-programs" / f"picocli-{digest}"
    if not (folder / "Resize.class").exists():
        partial = folder.with_suffix(f".{os.getpid()}")
        partial.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-cp", str(PICOCLI), "-d", str(partial), str(SOURCE)], check=True, timeout=300,
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        partial.replace(folder)
    return folder


def _java(classes: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["java", "-cp", f"{PICOCLI}{os.pathsep}{classes}", "Resize", *argv], capture_output=True,
                          text=True, timeout=120)


def test_a_call_reaches_a_picocli_program_with_every_value_it_gives() -> None:
    classes = _classes()
    described = describe_help(_java(classes, "--help").stdout.encode())
    assert described.dialect == "picocli"
    assert described.about == "Resizes images to fit a box."
    schema = build_tool_schema(described)
    properties = schema.input_schema["properties"]
    assert properties["mode"]["enum"] == ["fit", "fill", "crop"] and properties["output"]["default"] == "out.png"
    assert properties["tag"]["type"] == "array" and "retries" in schema.input_schema["required"]
    argv = schema.to_argv({"output": "o.png", "width": 3, "scale": 1.5, "verbose": True, "mode": "crop",
                           "retries": 2, "tag": ["a", "b"], "color": True, "inputs": ["x.png", "y.png"]})
    done = _java(classes, *argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["output=o.png", "width=3", "scale=1.5", "verbose=true", "mode=crop", "retries=2",
                                   "tags=[a,", "b]", "color=true", "inputs=[x.png,", "y.png]"]
