"""Writes ``expected.json`` beside each corpus program from the parser's current reading.

Run it only after checking the reading by eye (``review.py``) or against the program's
own parser (``argparse_truth.py``, ``click_truth.py``): the file records what is right,
not what the parser happens to say.

    python tests/helptext/tools/make_expected.py dialect/program [...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.helptext.corpus_cases import CORPUS, observed  # noqa: E402


def main(names: list[str]) -> None:
    for name in names:
        for folder in sorted(CORPUS.glob(name)):
            document = observed(folder)
            (folder / "expected.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
            print("wrote", folder / "expected.json")


if __name__ == "__main__":
    main(sys.argv[1:])
