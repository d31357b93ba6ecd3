"""How long describing help takes, against a reference measured in the same run.

    python bench/bench_helptext.py [--against REV]

The reference is the least any reader must do: read the file, decode it as UTF-8 and
split it into lines. ``--against REV`` also times revision REV's describer (unpacked from
git into a temporary folder, run in a child process) on the same texts in the same run, so
the per-text medians can be compared: the goal is within 1.5x of the earlier one. Goals:
a typical help text in well under 5 ms; a 1 MB text in well under a second.

Hostile texts: one option whose description repeats a note with no end ("(default: a" again and
again), or a list of choices ("one of: a, b "), or a usage line or an option's names repeating a
bracket, a value or a flag, at 20 KB and at 80 KB: work that grows with the text's length takes
about 4x as long at 80 KB, work that grows with its square about 16x. Goal:
at most 6x for every kind (the help of a WebAssembly tool is its author's to write, up to 1 MiB,
and the interpreter is held while a pattern runs).
"""

from __future__ import annotations

import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if "--parser-root" in sys.argv:  # another revision's describer, timed on this corpus
    sys.path.insert(0, sys.argv[sys.argv.index("--parser-root") + 1])

from bench.revision_tree import unpack_revision  # noqa: E402
from toolbay.errors import NotHelpError  # noqa: E402
from toolbay.helptext import build_tool_schema, describe_help  # noqa: E402

CORPUS = ROOT / "tests" / "helptext" / "corpus"


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median CPU seconds of ``repeat`` runs (CPU time: other work on a shared machine does not count)."""
    samples = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def reference(paths: list[Path]) -> None:
    for path in paths:
        path.read_bytes().decode("utf-8", errors="replace").splitlines()


def describe_all(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(NotHelpError):
            build_tool_schema(describe_help(path.read_bytes()))


# What a description may repeat: each kind of note, list of choices and example the reader looks for.
HOSTILE = (b"(default: a", b"[default: a", b"[possible values: a", b"(choices: a", b"[choices: a", b"(default a",
           b"(values: a", b"{choices: a", b"one of: a, b ", b"one of a, b. ", b"e.g. x, y ", b"(a, b, or c) ",
           b"[a, b] ", b"(x/y) ", b"WHEN is 'a', 'b' ", b"can be repeated ", b"(*a*, b) ", b"FOO (a, b) ",
           b"a.....", b'"x" ')
_OPTIONS = b"\n\nOptions:\n  -v  verbose\n"
_LIST = b"Usage: prog [options]\n\nOptions:\n  "
_KINGPIN = b"usage: prog [<flags>]\n\nFlags:\n  --help  Show context-sensitive help (also try --help-long).\n  "
# Elsewhere than in a description: in the usage line, in an option's names and value (what comes
# before the repeated part, the part, what comes after).
HOSTILE_ELSEWHERE = (
    (b"Usage: prog ", b"[", b"x" + _OPTIONS), (b"Usage: prog ", b"[a ", _OPTIONS),
    (b"Usage: prog ", b"<a ", _OPTIONS), (b"Usage: prog ", b"[-a] ", _OPTIONS), (b"Usage: prog ", b"FILE ", _OPTIONS),
    (_LIST + b"--x ", b"<a> ", b"  desc\n"), (_LIST, b"-a, ", b"--x  desc\n"), (_LIST + b"--x", b"[", b"  desc\n"),
    (_LIST + b"-a  ", b"says  -b ", b"\n"),  # a row of two options' columns, again and again
    (b"Usage: prog [options]\n", b"\n    ", _OPTIONS),  # indented empty lines (each dialect's marks)
    (b"Usage: prog [options]\n\n", b"-", _OPTIONS),  # a line of dashes (click's mark)
    (b"Usage: prog [options]\n\n", b"*", b" title *\n" + _OPTIONS),  # stars framing a title, or not
    (b"usage: prog [-h] a [a ...]\n\npositional arguments:", b"\n  a  b", b"\n"),  # one name listed again
    (b"A tool.\n", b"\n\t", _OPTIONS),  # lines of a tab before any usage (the test that a text is help)
    (_LIST + b"-e <t>,", b" ", b"--extract <t>  desc\n"),  # a gap after a comma (the head's end; CMake's mark)
    (b"", b"\n  <f>...\n  <f{a,{a,>...", b"Usage: x [OPTIONS] <N>\n" + _OPTIONS),  # operands, a long text
    (_KINGPIN + b"--tag", b"=", b"  desc\n"),  # a word of "=" (kingpin's repeated flags)
    (b"Usage: prog [options]\n\n", b"<", _OPTIONS),  # a paragraph of "<" (an author's address)
    (_LIST + b"--x", b"=--x", b"  desc\n"),  # a head of "=--x" (kubectl's default in the head)
    # tabs inside a list of choices and a value's brackets (each note's separators and brackets)
    (_LIST + b"--kind <k>   one of: a,", b"\t", b"b\n"), (_LIST + b"--kind <k>   (choices: a", b"\t", b"b)\n"),
    (_LIST + b"--kind <k>   [possible values: a", b"\t", b"b]\n"), (_LIST + b"--kind <k", b"\t", b"[x ...]>  desc\n"),
    # long runs of spaces after a note's or a list's opening words, a panel's corner, a convention word
    (_LIST + b"--kind <k>   Kind. One of", b" ", b"x\n"), (_LIST + b"--kind <k>   Kind [default:", b" ", b"x\n"),
    ("Usage: prog [OPTIONS]\n\n╭─".encode(), b" ", b"x\n" + _OPTIONS),
    (b"Usage: prog [options]\n\nText tools. Keywords:", b" ,", b"x\n" + _OPTIONS),
)


# Helps of the corpus repeated whole (an argparse one with subcommands, urfave/cli's, a generic one).
WHOLE_HELPS = ("argparse/add-trailing-comma", "urfave/gourf", "generic/digraph")


def hostile_growth() -> list[tuple[str, float, float]]:
    """For each kind, the time to describe a help repeating it to 20 KB and to 80 KB, and build its
    schema: in one option's description (``HOSTILE``) or elsewhere (``HOSTILE_ELSEWHERE``)."""
    kinds = [(snippet.decode(), _LIST + b"--kind <kind>   ", snippet, b"\n") for snippet in HOSTILE]
    kinds += [(f"{(before.decode().split() or [''])[-1]} {part.decode()}", before, part, after)
              for before, part, after in HOSTILE_ELSEWHERE]
    # whole helps again and again: many usage lines, sections and entries at once
    kinds += [(f"{name} whole", b"", (CORPUS / name / "long.txt").read_bytes(), b"") for name in WHOLE_HELPS]
    rows = []
    for label, before, part, after in kinds:
        texts = [before + part * (size // len(part)) + after for size in (20_000, 80_000)]
        small, large = (timed(lambda text=text: build_tool_schema(describe_help(text)), 3) for text in texts)
        rows.append((label, small, large))
    return rows


def one_megabyte() -> bytes:
    base = (CORPUS / "clap" / "ripgrep" / "long.txt").read_bytes()
    return (base * (1_000_000 // len(base) + 1))[:1_000_000]


def per_text_medians(paths: list[Path], rounds: int) -> list[float]:
    """Each round: the median over texts of one text's median time; a list of rounds."""
    out = []
    for _ in range(rounds):
        out.append(statistics.median(timed(lambda p=p: describe_all([p]), 5) for p in paths))
    return out


def other_revision(ref: str, rounds: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = unpack_revision(ref, Path(tmp))
        done = subprocess.run([sys.executable, __file__, "--parser-root", str(root), "--rounds-json", str(rounds)],
                              check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def compare(ref: str, paths: list[Path], rounds: int = 3) -> None:
    """Alternates this describer and ``ref``'s, round by round, so both see the same machine load."""
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(rounds):
        theirs.extend(other_revision(ref, 1))
        ours.extend(per_text_medians(paths, 1))
    ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
    print(f"per-text median vs {ref}, {rounds} rounds (ms): this "
          f"{', '.join(f'{x * 1000:.3f}' for x in ours)}; {ref[:10]} {', '.join(f'{x * 1000:.3f}' for x in theirs)}")
    print(f"  ratio this/{ref[:10]}: min {min(ratios):.2f}x, median {statistics.median(ratios):.2f}x "
          f"(goal: at most 1.5x)")


def main() -> None:
    paths = sorted(CORPUS.glob("*/*/long.txt"))
    if "--rounds-json" in sys.argv:
        print(json.dumps(per_text_medians(paths, int(sys.argv[sys.argv.index("--rounds-json") + 1]))))
        return
    if "--against" in sys.argv:
        compare(sys.argv[sys.argv.index("--against") + 1], paths)
    ref = timed(lambda: reference(paths), 20)
    ours = timed(lambda: describe_all(paths), 5)
    per_text = [timed(lambda p=p: describe_all([p]), 5) for p in paths]
    big = one_megabyte()
    big_path = Path("/tmp/toolbay-bench-1mb.txt")
    big_path.write_bytes(big)
    big_ref = timed(lambda: reference([big_path]), 5)
    big_ours = timed(lambda: describe_all([big_path]), 3)
    print(f"corpus: {len(paths)} texts, {sum(p.stat().st_size for p in paths) / 1024:.0f} KiB")
    print(f"  describe all: {ours * 1000:.1f} ms   reference: {ref * 1000:.2f} ms   ratio {ours / ref:.0f}x")
    print(f"  per text: median {statistics.median(per_text) * 1000:.2f} ms, "
          f"p90 {sorted(per_text)[int(len(per_text) * 0.9)] * 1000:.2f} ms, "
          f"max {max(per_text) * 1000:.2f} ms")
    print(f"1 MB text: describe {big_ours * 1000:.0f} ms   reference {big_ref * 1000:.2f} ms   "
          f"ratio {big_ours / big_ref:.0f}x")
    rows = hostile_growth()
    print("hostile helps, 80 KB against 20 KB of one thing repeated (goal: at most 6x each):")
    for snippet, small, large in rows:
        print(f"  {snippet!r:32} 20 KB {small * 1000:7.1f} ms   80 KB {large * 1000:7.1f} ms   "
              f"growth {large / small:4.1f}x")
    worst = max(rows, key=lambda row: row[2] / row[1])
    print(f"  worst growth {worst[2] / worst[1]:.1f}x ({worst[0]!r}), median "
          f"{statistics.median(large / small for _snippet, small, large in rows):.1f}x")


if __name__ == "__main__":
    main()
