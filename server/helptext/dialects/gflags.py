"""gflags (C++, Google's command-line flags): "-name (what it does) type: int32 default: 640".

gflags lists its flags by the file that defines them ("  Flags from resize.cc:"), each as
"    -name (text) type: T default: V" over as many lines as the text takes (the rest indented
by six), and "currently: V" where a flag was given. Its types say what a value is: bool is a
switch (turned off as "-noname", which gflags reads, as it does "-name=false"), int32 to
uint64 integers, double a number. A flag's name takes one dash or two.
"""

from __future__ import annotations

from ..engine import parse_text
from ..kept import compiled
from ..model import HelpDescription, OptionSpec
from ..records import TYPE_CHECKING
from .base import Dialect, lines_under, mark

if TYPE_CHECKING:
    from ..model import ValueType

_ENTRY = compiled(r"^    -([A-Za-z_][\w-]*) \(")
_MORE = compiled(r"^ {6}\S")
_MODULE = compiled(r"^  Flags from \S.*:$")
_READ = compiled(r"^-([\w-]+) \((.*)\) type: (\w+)(?: default: (.*?))?(?: currently: .*)?$")
_TYPES: dict[str, ValueType] = {"int32": "integer", "int64": "integer", "uint32": "integer", "uint64": "integer",
                                "double": "number", "string": "string"}


class Gflags(Dialect):
    name = "gflags"
    marks = (
        mark(r"^  Flags from \S[^\n]*:$", 4.0),
        mark(r"^    -\w+ \([^\n]*(?:\n {6}[^\n]*)*? type: (?:bool|int32|int64|uint32|uint64|double|string)\b", 3.0),
    )
    min_score = 5.0

    def parse(self, text: str) -> HelpDescription:
        lines = text.splitlines()
        options: list[OptionSpec] = []
        rest: list[str] = []
        k = 0
        while k < len(lines):
            if _MODULE.match(lines[k]):
                k += 1
                continue
            if not _ENTRY.match(lines[k]):
                rest.append(lines[k])
                k += 1
                continue
            more = lines_under(lines, k + 1, _MORE)
            found = _READ.match(" ".join(line.strip() for line in (lines[k], *more)))
            k += 1 + len(more)
            if found is not None:
                options.append(_option(*found.groups()))
        return parse_text("\n".join(rest), self.rules, self.name)._replace(options=tuple(options))


def _option(name: str, said: str, kind: str, default: str | None) -> OptionSpec:
    if default is not None and len(default) >= 2 and default[0] == default[-1] == '"':
        default = default[1:-1]
    if kind == "bool":
        return OptionSpec(long=f"-{name}", description=said, negation=f"-no{name}",
                          default=default if default in ("true", "false") else None)
    return OptionSpec(long=f"-{name}", takes_value=True, value_name=kind.upper(), type=_TYPES.get(kind, "string"),
                      default=default or None, description=said)
