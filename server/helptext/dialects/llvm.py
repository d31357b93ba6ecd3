"""LLVM's CommandLine library (llc, opt, llvm-as, FileCheck and every llvm-* tool).

Its help heads the text with "OVERVIEW:" and "USAGE: prog [options] ...", lists options by
category ("Generic Options:") as "  --name=<value>   - what it does", a dash between the two,
and an enum's values each on a line of its own below it ("    =asm   -   Emit an assembly
file"). A long name may fill its column, leaving one space before the dash: the dash, not the
spaces, ends the head. The values below an option are its choices. An alias (``cl::alias``)
shows no value and says "Alias for -check-prefix ...": it takes what the option it stands for
takes (FileCheck's ``--check-prefixes=FOO,BAR``).
"""

from __future__ import annotations

from ..engine import parse_text
from ..kept import compiled
from ..model import HelpDescription, OptionSpec
from .base import Dialect, mark

_ENTRY = compiled(r"^(  -{1,2}[^\s=<]+(?:=<[^>]*>| <[^>]+>)?) +- (.*)$")
_OVERVIEW = "OVERVIEW: "
_CHOICE = compiled(r"^ {4}=(\S*) +- {1,3}(.*)$")
_ALIAS = compiled(r"^Alias for --?([\w-]+)")


class Llvm(Dialect):
    name = "llvm"
    marks = (
        mark(r"^OVERVIEW: \S", 2.0),
        mark(r"^USAGE: \S+ \[(?:options|subcommand)\]", 1.0),
        mark(r"^Generic Options:$", 3.0),
        mark(r"^  -{1,2}[\w-]+(?:=<[^>\n]*>)? +- \S(?:[^\n]*\n){1,3}  -{1,2}[\w-]+(?:=<[^>\n]*>)? +- \S", 3.0),
        mark(r"^ {4}=[\w.-]+ +- {1,3}\S", 2.0),
    )
    min_score = 5.0

    def parse(self, text: str) -> HelpDescription:
        lines: list[str] = []
        choices: dict[str, list[tuple[str, str]]] = {}
        head = ""
        for line in text.splitlines():
            if line.startswith(_OVERVIEW):  # what the program does, said as any other help says it
                lines.append(line[len(_OVERVIEW):])
            elif (entry := _ENTRY.match(line)) is not None:
                head = entry[1].strip().split("=", 1)[0].split(" ", 1)[0]
                lines.append(f"{entry[1]}    {entry[2]}")
            elif (choice := _CHOICE.match(line)) is not None and head:
                choices.setdefault(head, []).append((choice[1], choice[2].strip()))
            else:
                lines.append(line)
        described = parse_text("\n".join(lines), self.rules, self.name)
        options = [_with_choices(o, choices) for o in described.options]
        by_name = {name.lstrip("-"): option for option in options for name in (option.long, option.short) if name}
        return described._replace(options=tuple(_as_its_target(o, by_name) for o in options))


def _with_choices(option: OptionSpec, choices: dict[str, list[tuple[str, str]]]) -> OptionSpec:
    listed = choices.get(option.long or "") or choices.get(option.short or "")
    if not listed or not option.takes_value:
        return option
    said = "; ".join(f"{value or '(empty)'}: {meaning}" for value, meaning in listed)
    return option._replace(choices=tuple(value for value, _ in listed), type="enum",
                           description=f"{option.description} ({said})" if option.description else said)


def _as_its_target(option: OptionSpec, by_name: dict[str, OptionSpec]) -> OptionSpec:
    alias = _ALIAS.match(option.description) if not option.takes_value else None
    target = by_name.get(alias[1]) if alias is not None else None
    if target is None or not target.takes_value:
        return option
    return option._replace(takes_value=True, value_name=target.value_name, type=target.type, choices=target.choices,
                           value_optional=target.value_optional, value_spaced=target.value_spaced)
