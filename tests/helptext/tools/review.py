"""Prints what the parser reads from each corpus program, compactly, for review by eye.

    python tests/helptext/tools/review.py [dialect[/program]]   (in corpus/ and corpus-round3/)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from toolbay.errors import NotHelpError  # noqa: E402
from toolbay.helptext import describe_help  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
CORPUS_ROUND3 = CORPUS.parent / "corpus-round3"


def show(folder: Path) -> None:
    short = folder / "short.txt"
    try:
        short_bytes = short.read_bytes() if short.exists() else None
        desc = describe_help((folder / "long.txt").read_bytes(), short_bytes)
    except NotHelpError as exc:
        print(f"== {folder.relative_to(folder.parents[1])}: NOT HELP: {exc.reason}")
        return
    print(f"== {folder.relative_to(folder.parents[1])} [{desc.dialect}] name={desc.name} version={desc.version}")
    print(f"   about={desc.about[:90]!r}")
    for o in desc.options:
        flags = []
        if o.takes_value:
            flags.append(f"={o.value_name}:{o.type}")
        if o.required:
            flags.append("REQ")
        if o.repeatable:
            flags.append("REP")
        if o.default is not None:
            flags.append(f"def={o.default}")
        if o.choices:
            flags.append(f"choices={list(o.choices)}")
        if o.negation:
            flags.append(f"neg={o.negation}")
        print(f"   {o.short or '':4} {o.long or '':28} {' '.join(flags)} | {o.description[:50]!r}")
    for p in desc.positionals:
        print(f"   POS {p.name} req={p.required} var={p.variadic} {list(p.choices) or ''}")
    for s in desc.subcommands:
        print(f"   SUB {s.name}: {s.description[:60]!r}")


if __name__ == "__main__":
    pattern = sys.argv[1] if len(sys.argv) > 1 else "*/*"
    glob = pattern if "/" in pattern else f"{pattern}/*"
    for folder in sorted([*CORPUS.glob(glob), *CORPUS_ROUND3.glob(glob)]):
        if (folder / "long.txt").exists():
            show(folder)
