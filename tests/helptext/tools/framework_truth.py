"""Builds the small programs of ``tests/helptext/truth_programs`` and writes their help
texts and truth into the corpus: truth for the frameworks whose programs cannot be asked
from Python (commander, yargs, GNU argp and getopt_long, Go's flag package), and for absl,
whose flags no parser object of ``truth.py`` holds.

    python tests/helptext/tools/framework_truth.py [DIALECT ...]

Each program's help is printed by its framework (commander, yargs, argp, flag) or, for the
getopt_long one, written by hand as GNU tools write theirs; its truth is dumped by the same
framework objects the program parses with (``node/truth.js``), or by the program itself from
the tables it hands to the parser (``TOOLBAY_TRUTH=1``): never from the describer.

Needs node with ``npm ci`` done once in ``truth_programs/node`` (commander and yargs, pinned
by its package-lock.json: the only step that reaches a registry), a C compiler with glibc
(argp), Go (nothing fetched), and a Python with absl-py (``ABSL_PYTHON``, else this one).
The tests need none of these: they read the texts and
truth written here. The regression locks are then written with ``make_regression_lock.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE.parent / "truth_programs"
CORPUS = HERE.parent / "corpus"
NODE = os.environ.get("NODE", shutil.which("node") or "node")
# As capture.py runs real programs: a fixed width, no colour.
ENV = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb", "LANG": "C.UTF-8"}


@dataclass(frozen=True)
class Program:
    dialect: str
    name: str
    command: list[str]  # how to run it, once built
    truth: list[str]  # how to dump its truth; the subcommand is appended
    subcommands: list[str] = field(default_factory=list)
    short: bool = True  # "-h" asks for help (in argp and getopt tools it may be an option)
    help: str = "--help"  # the long help (absl's --helpfull lists every module's flags)
    cwd: Path | None = None  # where it runs (absl heads its flags with the script's path as run)


def run(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> bytes:
    done = subprocess.run(argv, capture_output=True, env=env or ENV, timeout=60, stdin=subprocess.DEVNULL, cwd=cwd)
    return done.stdout if done.stdout.strip() else done.stderr


def build(bin_dir: Path) -> list[Program]:
    node = PROGRAMS / "node"
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O1", "-o", str(bin_dir / "archiver"), str(PROGRAMS / "argp" / "archiver.c")], check=True)
    subprocess.run([cc, "-O1", "-o", str(bin_dir / "linecut"), str(PROGRAMS / "getopt" / "linecut.c")], check=True)
    subprocess.run(["go", "build", "-o", str(bin_dir / "thumbnailer"), "."], check=True, cwd=PROGRAMS / "goflag",
                   env={**os.environ, "GOPROXY": "off", "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"})
    truth_js = [NODE, str(node / "truth.js")]
    return [
        Program("commander", "imgtool", [NODE, str(node / "imgtool.js")], [*truth_js, "commander", "imgtool.js"],
                ["resize", "convert", "info"]),
        Program("commander", "minify", [NODE, str(node / "minify.js")], [*truth_js, "commander", "minify.js"]),
        Program("yargs", "deployer", [NODE, str(node / "deployer.js")], [*truth_js, "yargs", "deployer.js"],
                ["deploy", "rollback", "status"]),
        Program("gnu", "archiver", [str(bin_dir / "archiver")], [str(bin_dir / "archiver")], short=False),
        Program("gnu", "linecut", [str(bin_dir / "linecut")], [str(bin_dir / "linecut")], short=False),
        Program("goflag", "thumbnailer", [str(bin_dir / "thumbnailer")], [str(bin_dir / "thumbnailer")]),
        *absl_programs(),
    ]


def absl_programs() -> list[Program]:
    """absl's programs print their help, and their truth from absl's flag objects (``absl_truth.py``)."""
    python = os.environ.get("ABSL_PYTHON", sys.executable)
    folder = PROGRAMS / "absl"
    shelf, thumbs = [python, "shelf.py"], [python, "thumbs.py"]
    return [Program("absl", "shelf", shelf, shelf, short=False, cwd=folder),
            Program("absl", "thumbs", thumbs, thumbs, short=False, help="--helpfull", cwd=folder)]


def write(program: Program) -> None:
    folder = CORPUS / program.dialect / program.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "long.txt").write_bytes(run([*program.command, program.help], cwd=program.cwd))
    if program.short:
        (folder / "short.txt").write_bytes(run([*program.command, "-h"], cwd=program.cwd))
    truth_env = {**ENV, "TOOLBAY_TRUTH": "1"}
    (folder / "truth.json").write_bytes(run(program.truth, truth_env, program.cwd))
    for sub in program.subcommands:
        (folder / f"sub-{sub}.txt").write_bytes(run([*program.command, sub, "--help"], cwd=program.cwd))
        (folder / f"truth-sub-{sub}.json").write_bytes(run([*program.truth, sub], truth_env, program.cwd))
    for path in folder.glob("truth*.json"):
        json.loads(path.read_text())  # a dump that is not JSON is a broken program: stop here
    print("wrote", folder)


def main() -> None:
    """Writes every program's folder, or those of the dialects named (``absl`` alone needs none
    of the other toolchains)."""
    dialects = set(sys.argv[1:])
    if dialects == {"absl"}:
        for program in absl_programs():
            write(program)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for program in build(Path(tmp)):
            if not dialects or program.dialect in dialects:
                write(program)


if __name__ == "__main__":
    main()
