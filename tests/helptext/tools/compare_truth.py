"""Compares corpus ``expected.json`` files with the programs' own parser definitions.

    python compare_truth.py <corpus folder> <truth.json>

Prints each option whose takes-value, required or choices differ, and the share fully right.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def compare(expected: dict, truth: list[dict]) -> tuple[int, int, list[str]]:
    by_name = {}
    for opt in expected.get("options", []):
        for name in (opt["long"], opt["short"]):
            if name:
                by_name[name] = opt
    right, problems = 0, []
    for item in truth:
        opt = next((by_name[n] for n in item["names"] if n in by_name), None)
        if opt is None:
            problems.append(f"missing {item['names']}")
            continue
        wrong = []
        if opt["takes_value"] != item["takes_value"]:
            wrong.append(f"takes_value {opt['takes_value']} != {item['takes_value']}")
        if opt["required"] != item["required"]:
            wrong.append(f"required {opt['required']} != {item['required']}")
        if item["takes_value"] and sorted(opt["choices"]) != sorted(item["choices"]):
            wrong.append(f"choices {opt['choices']} != {item['choices']}")
        if wrong:
            problems.append(f"{item['names']}: {'; '.join(wrong)}")
        else:
            right += 1
    return right, len(truth), problems


if __name__ == "__main__":
    folder, truth_file = Path(sys.argv[1]), Path(sys.argv[2])
    right, total, problems = compare(json.loads((folder / "expected.json").read_text()),
                                     json.loads(truth_file.read_text()))
    print(f"{folder.name}: {right}/{total} fully right")
    for p in problems:
        print("  ", p)
