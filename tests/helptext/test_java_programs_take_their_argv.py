"""Java (picocli, JCommander, Apache Commons CLI): the argv a schema builds, read by the frameworks
themselves.

``truth_programs/<framework>/Resize.java`` is compiled here against Debian's jar of the
framework (skipped where javac or the jar is missing), described from the ``--help`` it prints
now, and called through the schema's argv with a value for every option; it prints what its
framework parsed. picocli's help has no heading over its list, which follows what the command
does (read as generic help, the positional's line became part of that text), says a default on
a line of its own ("Default: out.png"), and marks a repeatable option only in its usage
("[-t=<tags>]..."). JCommander prints no value's name at all (read as generic help, every
option was a switch) and takes a value only as the next word ("--width 640"). Commons CLI writes
"-o,--output <FILE>" (no space after the comma) and names an unnamed value "<arg>".
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import KEPT_BETWEEN_RUNS
from toolbay.helptext import build_tool_schema, describe_help

PROGRAMS = Path(__file__).resolve().parent / "truth_programs"
PICOCLI = Path("/usr/share/java/picocli.jar")
JCOMMANDER = Path("/usr/share/java/jcommander.jar")
COMMONS_CLI = Path("/usr/share/java/commons-cli.jar")


def _program(framework: str, jar: Path, package: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Runs the framework's program, compiled once and kept between runs (compiled again when
    its source changes)."""
    if shutil.which("javac") is None or shutil.which("java") is None or not jar.exists():
        pytest.skip(f"javac and {framework} (Debian's {package}) are not installed here")
    source = PROGRAMS / framework / "Resize.java"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    folder = (KEPT_BETWEEN_RUNS or Path(tempfile.gettempdir())) / "truth-programs" / f"{framework}-{digest}"
    if not (folder / "Resize.class").exists():
        partial = folder.with_suffix(f".{os.getpid()}")
        partial.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-cp", str(jar), "-d", str(partial), str(source)], check=True, timeout=300,
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        partial.replace(folder)

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["java", "-cp", f"{jar}{os.pathsep}{folder}", "Resize", *argv], capture_output=True,
                              text=True, timeout=120)

    return run


def test_a_call_reaches_a_picocli_program_with_every_value_it_gives() -> None:
    java = _program("picocli", PICOCLI, "libpicocli-java")
    described = describe_help(java("--help").stdout.encode())
    assert described.dialect == "picocli"
    assert described.about == "Resizes images to fit a box."
    assert [command.name for command in described.subcommands] == ["info"]
    schema = build_tool_schema(described)
    properties = schema.input_schema["properties"]
    assert properties["inputs"]["type"] == "array" and "inputs" in schema.input_schema["required"]
    assert properties["mode"]["enum"] == ["fit", "fill", "crop"] and properties["output"]["default"] == "out.png"
    assert properties["tag"]["type"] == "array" and "retries" in schema.input_schema["required"]
    # arity = "2", "--box=<box> <box>": two words after each flag (read as one value, "--box=3 4" was
    # refused); an array option, given again for more, as its usage's "..." says.
    assert (properties["box"]["items"]["minItems"], properties["box"]["items"]["maxItems"]) == (2, 2)
    argv = schema.to_argv({"output": "o.png", "width": 3, "scale": 1.5, "verbose": True, "mode": "crop",
                           "retries": 2, "tag": ["a", "b"], "color": True, "box": [["3", "4"]],
                           "inputs": ["x.png", "y.png"]})
    done = java(*argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["output=o.png", "width=3", "scale=1.5", "verbose=true", "mode=crop", "retries=2",
                                   "tags=[a,", "b]", "color=true", "box=[3,", "4]", "inputs=[x.png,", "y.png]"]


def test_a_call_reaches_a_jcommander_program_with_every_value_it_gives() -> None:
    java = _program("jcommander", JCOMMANDER, "libjcommander-java")
    described = describe_help(java("--help", "--retries", "1").stdout.encode())
    assert described.dialect == "jcommander"
    schema = build_tool_schema(described)
    properties = schema.input_schema["properties"]
    assert properties["verbose"]["type"] == "boolean" and properties["output"]["default"] == "out.png"
    assert properties["tag"]["type"] == "array" and "retries" in schema.input_schema["required"]
    argv = schema.to_argv({"output": "o.png", "width": 3, "verbose": True, "retries": 2, "tag": ["a", "b"],
                           "images_to_resize": ["x.png", "y.png"]})
    done = java(*argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["output=o.png", "width=3", "verbose=true", "retries=2", "tags=[a,", "b]",
                                   "inputs=[x.png,", "y.png]"]


def test_a_call_reaches_a_commons_cli_program_with_every_value_it_gives() -> None:
    java = _program("commonscli", COMMONS_CLI, "libcommons-cli-java")
    described = describe_help(java("--help").stdout.encode())
    assert described.about == "Resizes images to fit a box."
    schema = build_tool_schema(described)
    properties = schema.input_schema["properties"]
    assert properties["width"]["type"] == "integer" and properties["output"]["format"] == "path"
    assert properties["verbose"]["type"] == "boolean" and schema.input_schema["required"] == ["image"]
    argv = schema.to_argv({"output": "o.png", "width": 3, "scale": 1.5, "verbose": True, "retries": 2, "tag": "a",
                           "image": ["x.png", "y.png"]})
    done = java(*argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["output=o.png", "width=3", "scale=1.5", "verbose=true", "retries=2", "tags=1",
                                   "input=x.png", "input=y.png"]
