"""Scores the describer against truth taken from the programs' own definitions.

A corpus program folder may hold ``truth.json`` (for ``long.txt``/``short.txt``) and
``truth-sub-<x>.json`` (for ``sub-<x>.txt``), written by ``tools/truth.py`` from the
program's parser objects or by hand from its source, never from the describer's
output. Only those cases are scored; ``regression-lock.json`` files are not truth.

A truth item may name facts its framework's help never prints (``"unprinted": ["choices"]``:
kingpin defines an enum but prints no values; ``"required"``, ``"repeatable"``: urfave/cli v2
prints neither): those are counted apart, not scored, since no
reading of the help can find them.

Types are compared as the schema uses them: ``path`` counts as ``string`` and an
enum as the type of its values (choices are scored on their own).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolbay.errors import NotHelpError
from toolbay.helptext import HelpDescription, describe_help
from toolbay.helptext.usage import positional_key

CORPUS = Path(__file__).resolve().parent / "corpus"
_HELPISH = {"--help", "-h", "--version", "-V", "-help", "--help-all", "-?"}


@dataclass(frozen=True, slots=True)
class TruthCase:
    folder: Path
    text: str  # "long.txt" or "sub-x.txt"
    truth_file: Path

    @property
    def label(self) -> str:
        return f"{self.folder.parent.name}/{self.folder.name}/{self.text}"

    def describe(self) -> HelpDescription | None:
        try:
            if self.text == "long.txt":
                short = self.folder / "short.txt"
                return describe_help((self.folder / "long.txt").read_bytes(),
                                     short.read_bytes() if short.exists() else None)
            return describe_help((self.folder / self.text).read_bytes())
        except NotHelpError:
            return None


def truth_cases(corpus: Path = CORPUS) -> list[TruthCase]:
    cases = []
    for truth in sorted(corpus.glob("*/*/truth*.json")):
        text = "long.txt" if truth.name == "truth.json" else truth.name[len("truth-"):-len(".json")] + ".txt"
        cases.append(TruthCase(truth.parent, text, truth))
    return cases


@dataclass(slots=True)
class Score:
    counts: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    dialects: Counter[str] = field(default_factory=Counter)

    def add(self, key: str, right: bool, total: int = 1) -> None:
        self.counts[key + ":total"] += total
        self.counts[key + ":right"] += int(right) if total == 1 else 0

    def share(self, key: str) -> tuple[int, int]:
        return self.counts[key + ":right"], self.counts[key + ":total"]


def _schema_type(kind: str) -> str:
    return "string" if kind in ("path", "enum") else kind


def _accepts(read: str, defined: str | None) -> bool:
    """A schema type refuses no value of the defined type: "number" takes integers, "string" all."""
    return defined is None or read == defined or read == "string" or (read, defined) == ("number", "integer")


def score_case(case: TruthCase, score: Score) -> None:
    truth = json.loads(case.truth_file.read_text())
    if isinstance(truth, list):  # an older truth file: options only
        truth = {"options": truth}
    desc = case.describe()
    score.dialects[case.folder.parent.name] += 1
    options = desc.options if desc else ()
    by_name = {name: opt for opt in options for name in (opt.long, opt.short, opt.negation) if name}
    matched: set[int] = set()
    for item in truth.get("options", []):
        names = item["names"]
        opt = next((by_name[n] for n in names if n in by_name), None)
        score.counts["options:total"] += 1
        if opt is None:
            score.misses.append(f"{case.label}: option {names} not found")
            continue
        matched.add(id(opt))
        wrong = []
        unprinted = set(item.get("unprinted", ()))
        checks = {
            "takes_value": opt.takes_value == item["takes_value"],
            "required": "required" in unprinted or opt.required == item["required"],
            "repeatable": "repeatable" in unprinted or opt.repeatable == item.get("repeatable", opt.repeatable),
        }
        if item["takes_value"]:
            checks["type"] = _schema_type(opt.type) == item.get("type", _schema_type(opt.type))
            score.add("type accepts every defined value", _accepts(_schema_type(opt.type), item.get("type")))
        score.counts["facts no help prints"] += len(unprinted)
        defined_choices = [] if "choices" in unprinted else item["choices"]
        if item["takes_value"] and (defined_choices or opt.choices):
            checks["choices"] = sorted(opt.choices) == sorted(defined_choices)
        if defined_choices:
            score.add("choice lists exact", checks.get("choices", False))
        if opt.default is not None and item["takes_value"]:
            score.add("defaults found right", opt.default == item.get("default"))
        if item.get("default") is not None and item["takes_value"]:
            score.add("defaults found", opt.default is not None)
        for key, ok in checks.items():
            score.add(f"field {key}", ok)
            if not ok:
                mine = getattr(opt, key)
                wrong.append(f"{key}: read {mine!r}, defined {item.get(key)!r}")
        fully = all(checks[k] for k in ("takes_value", "required")) and checks.get("choices", True)
        score.add("options fully right", fully)
        score.add("options fully right incl. repeatable and type", fully and all(checks.values()))
        score.counts["options:matched"] += 1
        if wrong:
            score.misses.append(f"{case.label}: {names[-1]}: " + "; ".join(wrong))
    relevant = [o for o in options if o.key not in _HELPISH and o.long not in _HELPISH]
    extra = [o.key for o in relevant if id(o) not in matched]
    score.counts["options that exist:right"] += len(relevant) - len(extra)
    score.counts["options that exist:total"] += len(relevant)
    for name in extra:
        score.misses.append(f"{case.label}: option {name} read but not defined")
    if "positionals" in truth:  # optparse defines none: the program takes them itself, unrecorded
        _score_positionals(case, truth, desc, score)
    if "subcommands" in truth:  # optparse holds no subcommands: a program dispatches them itself
        _score_subcommands(case, truth, desc, score)


def _score_positionals(case: TruthCase, truth: dict[str, Any], desc: HelpDescription | None,
                       score: Score) -> None:
    mine = {positional_key(p.name): p for p in (desc.positionals if desc else ())}
    found = 0
    for item in truth.get("positionals", []):
        pos = mine.pop(positional_key(item["name"]), None)
        if pos is None and item["choices"]:  # argparse prints a choices positional as its choices
            key = next((k for k, p in mine.items() if sorted(p.choices) == sorted(item["choices"])), None)
            pos = mine.pop(key) if key else None
        if pos is None:
            score.add("positionals fully right", False)
            score.misses.append(f"{case.label}: positional {item['name']} not found")
            continue
        found += 1
        ok = (pos.required == item["required"] and pos.variadic == item["variadic"]
              and sorted(pos.choices) == sorted(item["choices"]))
        if "type" in item and not item["choices"]:
            score.add("positional type", _schema_type(getattr(pos, "type", "string")) == item["type"])
        score.add("positionals fully right", ok)
        if not ok:
            score.misses.append(f"{case.label}: positional {item['name']}: read required={pos.required} "
                                f"variadic={pos.variadic} choices={list(pos.choices)}, defined {item}")
    commands = set(truth.get("subcommands", []))
    for key, pos in list(mine.items()):
        offered = _form_words(pos) if getattr(pos, "form", False) else set(pos.choices)
        if commands and offered == commands:
            # docopt's command words, given as one positional with the commands as choices, or
            # with the usage's forms as choices (each its words and arguments in order)
            del mine[key]
            continue
        score.misses.append(f"{case.label}: positional {key} read but not defined")
    score.counts["positionals that exist:right"] += found
    score.counts["positionals that exist:total"] += found + len(mine)


def _score_subcommands(case: TruthCase, truth: dict[str, Any], desc: HelpDescription | None,
                       score: Score) -> None:
    mine = {s.name for s in (desc.subcommands if desc else ())}
    for name in truth.get("subcommands", []):
        score.add("subcommands found", name in mine)
        if name not in mine:
            score.misses.append(f"{case.label}: subcommand {name} not found")
    defined = set(truth.get("subcommands", []))
    score.counts["subcommands that exist:right"] += len(mine & defined)
    score.counts["subcommands that exist:total"] += len(mine)
    for name in sorted(mine - defined):
        score.misses.append(f"{case.label}: subcommand {name} read but not defined")


REPORTED = (
    "options fully right", "options fully right incl. repeatable and type", "field takes_value",
    "field required", "field choices", "field repeatable", "field type", "type accepts every defined value",
    "positional type", "choice lists exact",
    "defaults found", "defaults found right", "options that exist", "positionals fully right",
    "positionals that exist", "subcommands found", "subcommands that exist",
)


def score_corpus(corpus: Path = CORPUS, dialect: str | None = None) -> Score:
    """The score over every truth-backed case, or over one dialect's."""
    score = Score()
    for case in truth_cases(corpus):
        if dialect is None or case.folder.parent.name == dialect:
            score_case(case, score)
    return score


PER_DIALECT = ("options fully right", "choice lists exact", "positionals fully right", "positionals that exist",
               "subcommands found")


def report_per_dialect(corpus: Path = CORPUS) -> str:
    """The headline figures for each dialect, as right/total (a dash where nothing is defined)."""
    dialects = sorted({case.folder.parent.name for case in truth_cases(corpus)})
    lines = ["  " + f"{'dialect':10}" + "".join(f"{key:>26}" for key in PER_DIALECT)]
    for dialect in dialects:
        score = score_corpus(corpus, dialect)
        cells = []
        for key in PER_DIALECT:
            right, total = score.share(key)
            cells.append(f"{100 * right / total:5.1f}% ({right}/{total})" if total else "-")
        lines.append("  " + f"{dialect:10}" + "".join(f"{cell:>26}" for cell in cells))
    return "\n".join(lines)


def report(score: Score) -> str:
    lines = []
    for key in REPORTED:
        right, total = score.share(key)
        share = f"{100 * right / total:5.1f}%" if total else "   - "
        lines.append(f"  {key:48} {share}  ({right}/{total})")
    found, total = score.counts["options:matched"], score.counts["options:total"]
    lines.append(f"  {'options defined and found':48} {100 * found / max(1, total):5.1f}%  ({found}/{total})")
    return "\n".join(lines)


def _form_words(pos: Any) -> set[str]:
    """The first command word of each usage form a positional offers ("ship <name> move <x>":
    ship), as docopt's truth names its commands."""
    return {form.split()[0] for form in pos.choices if form}
