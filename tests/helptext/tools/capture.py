"""Captures a real program's help into the corpus: raw bytes of ``-h`` and ``--help``.

    python tests/helptext/tools/capture.py <dialect> <name> -- <command...> [:: <sub> ...]

writes ``corpus/<dialect>/<name>/{short.txt,long.txt}`` and, for each subcommand
given after ``::``, ``sub-<sub>.txt`` from ``<command> <sub> --help``. Help printed
on stderr (Go's flag package, getopt) is taken when stdout is empty, as the server does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def run(argv: list[str]) -> bytes:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb", "LANG": "C.UTF-8"}
    done = subprocess.run(argv, capture_output=True, env=env, timeout=30, stdin=subprocess.DEVNULL)
    return done.stdout if done.stdout.strip() else done.stderr


def main(args: list[str]) -> None:
    dialect, name = args[0], args[1]
    rest = args[args.index("--") + 1:]
    command, subs = (rest[: rest.index("::")], rest[rest.index("::") + 1:]) if "::" in rest else (rest, [])
    folder = CORPUS / dialect / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "short.txt").write_bytes(run([*command, "-h"]))
    (folder / "long.txt").write_bytes(run([*command, "--help"]))
    for sub in subs:
        words = sub.split("/")
        (folder / f"sub-{'_'.join(words)}.txt").write_bytes(run([*command, *words, "--help"]))


if __name__ == "__main__":
    main(sys.argv[1:])
