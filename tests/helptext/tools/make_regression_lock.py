"""Writes ``regression-lock.json`` beside each corpus program from the parser's current reading.

A lock is not truth: it records what the describer read when someone last checked
the reading by eye (``review.py``), so an unintended change shows in the tests.
Accuracy is measured against ``truth*.json`` only (``bench/bench_helptext_accuracy.py``).

    python tests/helptext/tools/make_regression_lock.py dialect/program [...]

(a name is looked up in corpus/ and in corpus-round3/)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.helptext.corpus_cases import CORPUS, CORPUS_ROUND3, observed  # noqa: E402


def main(names: list[str]) -> None:
    for name in names:
        for folder in sorted([*CORPUS.glob(name), *CORPUS_ROUND3.glob(name)]):
            document = observed(folder)
            (folder / "regression-lock.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
            print("wrote", folder / "regression-lock.json")


if __name__ == "__main__":
    main(sys.argv[1:])
