"""CMake's own help (cmake, ctest, cpack, ccmake: cmDocumentationFormatter).

Each option is written ``  SPEC = what it does``: the spec padded to a column, then ``= ``
(straight after the spec when it fills the column, on the next line when it is longer), its
text wrapped below the column. A spec names every spelling of the option, comma-separated
(``-h,-H,--help,-help,-usage,/?``, Windows' ``/?`` among them), and its value as CMake's
parser takes it: ``-S <path-to-source>``, ``--list-presets[=<type>]``, ``--help-full
[<file>]`` (an optional word after it), ``--log-level=<ERROR|WARNING|...>`` (the values it
accepts). An option written once per value (``-Werror=dev``, ``-Werror=deprecated``) is one
option with those values. Read as generic help, the ``=`` began every description and a long
spec swallowed words of its text.
"""

from __future__ import annotations

from ..engine import parse_text
from ..kept import compiled
from ..model import HelpDescription, OptionSpec
from .base import Dialect, mark

# "  SPEC    = text", "  SPEC= text" (a spec that fills its column), and a spec alone on its line.
_ENTRY = compiled(r"^  (-\S(?:.*?\S)?) *= (.*)$")
_SPEC_ALONE = compiled(r"^  (-\S(?:.*\S)?)\s*$")
_TEXT_BELOW = compiled(r"^ {20,}= (.*)$")
# One spelling: its name (Windows' "/V" too, which may carry the value), then how its value is
# written, if it takes one: " <v>", "=<v>", " v"; "[=<v>]", "[=v]", " [<v>]", " [v]" (optional).
_FORM = compiled(r"^(-{1,2}[A-Za-z][\w-]*|/\S)(.*)$")
_NEXT_FORM = compiled(r",\s*(?=[-/])")
_REQUIRED = compiled(r"^(?: |=)(<[^>]+>\S*|[a-z][\w-]*(?= |$))")
_OPTIONAL = compiled(r"^(?: \[<?([^\]>]+)>?\]|\[=<?([\w|-]+)>?\]|\[<([^>]+)>\])")
_LITERAL = compiled(r"^=([a-z][\w-]*)$")
_TEXT_GOES_ON = compiled(r"^ {20,}\S")


class Cmake(Dialect):
    name = "cmake"
    marks = (
        mark(r"^Usage\n\n  (?:cmake|ctest|cpack|ccmake) ", 2.0),
        # The first "= " of a line is enough (atomic): trying each of them again would be quadratic.
        mark(r"^  -\S(?>[^\n]*?= \S)(?:[^\n]*\n){1,3}  -\S[^\n]*?= \S", 3.0),
        mark(r"^ {31}= \S", 2.0),
        mark(r"^  -h,-H,--help,-help,-usage,/\? *= ", 2.0),
    )
    min_score = 5.0

    def parse(self, text: str) -> HelpDescription:
        lines: list[str] = []
        values: dict[str, list[str]] = {}  # a name written once per value: those values
        spaced: set[str] = set()  # names whose optional value is the next word
        source = text.splitlines()
        index = 0
        while index < len(source):
            line = source[index]
            entry = _ENTRY.match(line)
            below = _TEXT_BELOW.match(source[index + 1]) if index + 1 < len(source) else None
            alone = _SPEC_ALONE.match(line) if entry is None and below is not None else None
            if entry is not None:
                spec, said = entry[1], entry[2]
            elif alone is not None and below is not None:
                spec, said = alone[1], below[1]
                index += 1
            else:
                lines.append(line)
                index += 1
                continue
            head = _head(spec.strip(), values, spaced)
            index += 1
            if head is None:  # nothing of its own to read: its text goes with it
                while index < len(source) and _TEXT_GOES_ON.match(source[index]):
                    index += 1
                continue
            lines.append(f"  {head}    {said}")
        described = parse_text("\n".join(lines), self.rules, self.name)
        return described._replace(options=tuple(_as_written(o, values, spaced) for o in described.options))


def _head(spec: str, values: dict[str, list[str]], spaced: set[str]) -> str | None:
    """The spec as a head the engine reads (``-C, --build-config <cfg>``); None for a second
    line of an option written once per value (its value joins the first's), or for a spec
    with Windows' spellings alone."""
    names: list[str] = []
    value = ""
    for form in _NEXT_FORM.split(spec):
        found = _FORM.match(form.strip())
        if found is None:
            continue
        name, rest = found[1], found[2]
        if not name.startswith("/"):  # Windows' spellings (/?, /V) are left out
            names.append(name)
        if value:
            continue
        if (literal := _LITERAL.match(rest)) is not None:
            seen = values.setdefault(name, [])
            seen.append(literal[1])
            if len(seen) > 1:
                return None
            value = f"=<{name.lstrip('-')}>"
        elif (required := _REQUIRED.match(rest)) is not None:
            value = rest[0] + _value(required[1])  # "=" where CMake takes the value only joined to it
        elif (optional := _OPTIONAL.match(rest)) is not None:
            value = f"[={_value(optional[1] or optional[2] or optional[3])}]"
            if rest.startswith(" "):
                spaced.update(names)
    if not names:
        return None
    # One letter after one dash, then the long spellings: the engine keeps a short and a long name.
    names.sort(key=lambda name: (not (len(name) == 2 and name[1] != "-"), not name.startswith("--")))
    return ", ".join(names) + value


def _value(written: str) -> str:
    """A value as the engine reads it: "<ERROR|WARNING|...>" (and "[0|1]") is the list of the
    values CMake accepts; "<var>[:<type>]=<value>" one value, named by all of it; "<file>[;<file>]"
    (a list in one word) by its first name."""
    bare = written.replace("<", "").replace(">", "")
    bare = bare.split("[,", 1)[0].split("[;", 1)[0]
    if bare.startswith("[") and bare.endswith("]"):  # ctest's "<[error|ignore]>"
        bare = bare[1:-1]
    if "|" in bare and " " not in bare:
        return "{" + ",".join(bare.split("|")) + "}"
    return f"<{bare}>"


def _as_written(option: OptionSpec, values: dict[str, list[str]], spaced: set[str]) -> OptionSpec:
    names = [name for name in (option.long, option.short) if name]
    listed = next((values[name] for name in names if name in values), None)
    if listed is not None:
        option = option._replace(choices=tuple(listed), type="enum", value_optional=False, value_spaced=False)
    if any(name in spaced for name in names):
        option = option._replace(value_spaced=True)
    return option
