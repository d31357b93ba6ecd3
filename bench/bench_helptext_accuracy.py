"""How often the describer reads a program as the program's own parser defines it.

    python bench/bench_helptext_accuracy.py [--misses] [--against REF]

Prints the figures over all truth-backed cases, then the headline figures per dialect.

Scored only over the corpus cases that have truth from outside the describer
(``truth.json`` / ``truth-sub-*.json``: argparse and click objects walked by
``tests/helptext/tools/truth.py``, commander/yargs/argp/getopt/Go-flag programs' own
framework objects via ``tests/helptext/tools/framework_truth.py``, fixture tools' own
declarations, sources read by hand). The ``regression-lock.json`` files are the describer's own past reading and
are not used here. ``--misses`` lists every field read wrong. ``--against REF``
(a git revision, e.g. ``main``) scores that revision's describer on the same corpus
and truth in the same run, for a before/after figure. The programs of
``tests/helptext/corpus-round3`` (added after the goals were set) are scored apart, after.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if "--parser-root" in sys.argv:  # another revision's describer, scored with this corpus
    sys.path.insert(0, sys.argv[sys.argv.index("--parser-root") + 1])

import toolbay.helptext  # noqa: E402
from bench.revision_tree import unpack_revision  # noqa: E402
from tests.helptext.corpus_cases import CORPUS_ROUND3, program_folders  # noqa: E402
from tests.helptext.truth_score import report, report_per_dialect, score_corpus, truth_cases  # noqa: E402


def other_revision(ref: str) -> str:
    """The report of revision ``ref``'s describer, run in a child process on this corpus."""
    with tempfile.TemporaryDirectory() as tmp:
        root = unpack_revision(ref, Path(tmp))
        done = subprocess.run([sys.executable, __file__, "--parser-root", str(root)], check=True,
                              capture_output=True, text=True)
    return done.stdout.split("accuracy (truth-backed cases only):\n", 1)[1]


def main(argv: list[str]) -> None:
    if "--against" in argv:
        ref = argv[argv.index("--against") + 1]
        print(f"describer of {ref}, same corpus and truth:")
        print(other_revision(ref))
    score = score_corpus()
    cases = truth_cases()
    programs = Counter(f.parent.name for f in program_folders() if f.parent.name != "special")
    backed = Counter(c.folder.parent.name for c in cases)
    print(f"corpus: {sum(programs.values())} real programs; "
          f"{len({c.folder for c in cases})} of them with truth from their own definition, "
          f"{len(cases)} help texts scored")
    for dialect in sorted(programs):
        print(f"  {dialect:10} {programs[dialect]:3} programs, {backed[dialect]:3} truth-backed help texts")
    print("accuracy (truth-backed cases only):")
    print(f"  (describer read from {Path(toolbay.helptext.__file__).parent})")
    print(report(score))
    print("per dialect:")
    print(report_per_dialect())
    round3 = score_corpus(CORPUS_ROUND3)
    print(f"corpus-round3 ({len({c.folder for c in truth_cases(CORPUS_ROUND3)})} programs added with truth after the "
          f"goals were set; not in the figures above):")
    print(report(round3))
    print(report_per_dialect(CORPUS_ROUND3))
    if "--misses" in argv:
        print("misses:")
        for miss in score.misses:
            print("  " + miss)
        print("misses in corpus-round3:")
        for miss in round3.misses:
            print("  " + miss)


if __name__ == "__main__":
    main(sys.argv[1:])
