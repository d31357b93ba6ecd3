"""cpack's truth, asked of cpack itself (writes corpus/cmake/cpack/truth.json's content to stdout).

    python tests/helptext/tools/cpack_truth.py > tests/helptext/corpus/cmake/cpack/truth.json

Each option of its help is given alone, in an empty temporary folder: "Invalid value used
with" (or "Argument "" to") means cpack takes a value for it. Each help option is then given
a file name: it takes one when it writes that file. The value's type is as its help names it.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

SOURCE = ("asked of cpack 3.25.1 itself (tests/helptext/tools/cpack_truth.py): each option of its help given "
          "alone: 'Invalid value used with' means it takes a value; each help option given a file name: it takes "
          "one when it writes that file; types as its help names the value")
PATH_VALUES = {"file", "configFile", "packageDirectory"}


def takes_value(name: str, folder: Path) -> bool:
    alone = subprocess.run(["cpack", name], capture_output=True, text=True, timeout=30, cwd=folder, check=False)
    said = alone.stdout + alone.stderr
    if f"Invalid value used with {name}" in said or f'Argument "" to {name}' in said:
        return True
    if not (name.startswith("--help") or name == "--version"):
        return False
    written = folder / "value.txt"
    subprocess.run(["cpack", name, str(written)], capture_output=True, timeout=30, cwd=folder, check=False)
    return written.exists()


def main() -> None:
    help_text = subprocess.run(["cpack", "--help"], capture_output=True, text=True, check=True).stdout
    options = []
    with tempfile.TemporaryDirectory() as temp:
        for spec in re.findall(r"^  (-\S.*?)(?: *= |\s*$)", help_text, re.MULTILINE):
            names = list(dict.fromkeys(re.findall(r"(?:^|,)(-{1,2}[A-Za-z][\w-]*)", spec)))
            if not names:
                continue
            takes = takes_value(names[0], Path(temp))
            first = re.search(r"<(\w+)>", spec)
            kind = ("path" if first and first[1] in PATH_VALUES else "string") if takes else "boolean"
            options.append({"names": names, "takes_value": takes, "required": False, "choices": [],
                            "repeatable": False, "type": kind, "default": None})
    print(json.dumps({"source": SOURCE, "options": options}, indent=1))


if __name__ == "__main__":
    main()
