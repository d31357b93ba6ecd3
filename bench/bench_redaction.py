"""Redaction on hostile text: ``redact_text`` must take time in proportion to a text's length,
whatever its shape, because it reads every call's arguments for the audit log and every text
that describes a tool.

    python bench/bench_redaction.py [--rounds 5] [--kb 64]

Each shape (a value no quote closes after a secret's name, a YAML list under one, a run of
dotted names, a quoted value of many words, many names with "=", keys in full-width letters
or with accents apart, read again as keys read, and ordinary prose as the reference) is
redacted at ``--kb`` and at four times that. Printed per shape: every round's time at both
sizes, the minimum and the median, the time per MB against the reference measured in the same
run, and how the time grew with the size (4x the text: 4x the time when it is linear; a shape
that backtracked over every split of a value grew 16x).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toolbay.redaction import redact_text  # noqa: E402

PROSE = "The tool reads a file from the workspace and prints its lines, counted, to standard output. "

# Each shape, as a function of a length in characters.
SHAPES: dict[str, Callable[[int], str]] = {
    "prose (reference)": lambda n: (PROSE * (n // len(PROSE) + 1))[:n],
    "unclosed quoted value": lambda n: 'password: "' + "a " * (n // 2),
    "unclosed, capitals": lambda n: 'token="' + "A " * (n // 2),
    "quoted value of many words": lambda n: 'password: "' + "a " * (n // 2) + '"',
    "YAML list under a secret": lambda n: "passwords:\n" + "  - abc123x\n" * (n // 12),
    "dotted names": lambda n: "a.password" * (n // 10) + ": x1y2z3",
    "names with =": lambda n: 'password="a b ' * (n // 14),
    "backquoted names": lambda n: "`token=` " * (n // 9),
    "a chain of assignments": lambda n: "a=" * (n // 2),
    # Each "mysql" was followed to the end of its line for a glued "-p" (20 s at 108 KB).
    "mysql named often": lambda n: "Connects with mysql and runs queries. " * (n // 38) + " -p",
    "mysql, many options, -p": lambda n: "mysql " + "-x " * (n // 3) + " -pS3cret",
    "a secret's value in code, unclosed": lambda n: 'os.environ["DB_PASSWORD"] = "' + "a b\\' " * (n // 6),
    "setters of secrets": lambda n: 'set("x", "password", "y z\' 1") ' * (n // 30),
    # Read again as keys read (full-width letters folded, accents apart taken out), each key found
    # put back in the text as written: many of them, and CJK text with its full-width punctuation.
    "full-width keys in CJK text": lambda n: "密钥：ＡＫＩＡＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ，勿外传。" * (n // 28),
    "CJK prose, full-width punctuation": lambda n: "工具读取文件（ｆｉｌｅ），并输出：行数。" * (n // 19),
    # Chinese prose as most is written, its full-width signs among Chinese words only: not read again.
    "CJK prose, its own signs only": lambda n: "工具读取文件（默认），并输出：行数。" * (n // 17),
    "accents apart inside a key": lambda n: "ghp_" + "a\u0301" * (n // 2),
}


def seconds(text: str) -> float:
    started = time.process_time()
    redact_text(text)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--kb", type=int, default=64)
    args = parser.parse_args()
    small = args.kb * 1024
    print(f"redact_text, CPU time, {args.rounds} rounds, at {args.kb} KB and {4 * args.kb} KB")
    reference_per_mb = None
    worst_growth = 0.0
    for name, shape in SHAPES.items():
        texts = (shape(small), shape(4 * small))
        rounds = [(seconds(texts[0]), seconds(texts[1])) for _ in range(args.rounds)]
        print(f"  {name}")
        for number, (at_small, at_large) in enumerate(rounds, 1):
            print(f"    round {number}: {at_small * 1000:8.1f} ms, {at_large * 1000:8.1f} ms")
        smalls, larges = [r[0] for r in rounds], [r[1] for r in rounds]
        per_mb = statistics.median(larges) / (len(texts[1]) / 1e6)
        growth = statistics.median(larges) / max(statistics.median(smalls), 1e-9)
        reference_per_mb = reference_per_mb or per_mb
        worst_growth = max(worst_growth, growth)
        print(f"    min {min(smalls) * 1000:.1f} / {min(larges) * 1000:.1f} ms, median "
              f"{statistics.median(smalls) * 1000:.1f} / {statistics.median(larges) * 1000:.1f} ms; "
              f"{per_mb * 1000:.0f} ms per MB ({per_mb / reference_per_mb:.1f}x prose); "
              f"4x the text took {growth:.1f}x the time")
    print(f"the largest growth for 4x the text: {worst_growth:.1f}x (linear: 4x; goal: under 6x)")


if __name__ == "__main__":
    main()
