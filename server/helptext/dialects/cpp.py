"""The help-text dialects of C and C++ programs: boost, cli11, cxxopts, gflags, llvm, cmake.

Each dialect is a class, what its library prints said above it. They share a module by
language because ``toolbay parse-help`` imports every dialect, and each module imported
cost it about 0.15 ms.
"""

from __future__ import annotations

from ..engine import parse_text
from ..kept import compiled
from ..model import HelpDescription, OptionSpec
from ..records import TYPE_CHECKING
from .base import Dialect, LineRewriter, entry_line, lines_under, mark

if TYPE_CHECKING:
    from ..model import ValueType

# Boost.Program_options (C++): "  -o [ --output ] arg (=out.png)  where to write".
#
# Boost writes an option's short name, its long name in spaced brackets, "arg" where it takes a
# value, "[=arg(=1)]" where the value may be left out (the flag alone then means 1), and its
# default as "(=out.png)"; the text follows in a column. Each head is rewritten as the engine
# reads any other ("-o, --output ARG", "[=ARG]"), its default as the note "[default: out.png]".
# A value that may be left out is written after "=" ("--level=3"), which no operand after it can
# be taken for (Boost gives such a flag the next word when it can).

_BOOST_ENTRY = compiled(r"^  (?:(-\w) \[ (--[\w-]+) \]|(--[\w-]+))( arg| \[=arg\(=[^)]*\)\])?"
                        r"( \(=[^)]*\))?(?=\s|$)(.*)$")


class Boost(LineRewriter):
    name = "boost"
    marks = (
        mark(r"^  -\w \[ --[\w-]+ \]", 4.0),
        mark(r"^  (?:-\w \[ )?--[\w-]+(?: \])? arg(?: \(=[^)\n]*\))?\s{2,}\S", 2.0),
        mark(r"\[=arg\(=[^)\n]*\)\]", 1.0),
    )
    min_score = 5.0

    @staticmethod
    def plain(line: str) -> str:
        found = _BOOST_ENTRY.match(line)
        if found is None:
            return line
        short, long, alone, value, default, rest = found.groups()
        names = f"{short}, {long}" if short else alone
        taken = "" if not value else " ARG" if value == " arg" else " [=ARG]"
        notes = [f"[default: {default.strip()[2:-1]}]"] if default else []
        return entry_line(f"  {names}{taken}", rest.strip(), notes)


# CLI11 (C++): "-o,--output TEXT=out.png", a type after the names and the value's notes joined to it.
#
# CLI11 writes an entry's names apart by commas without spaces, then the type of its value
# (TEXT, INT, FLOAT, ...) with what it knows of the value joined on: the default after "="
# (or in brackets, "TEXT [out.png]", as later releases print it), the allowed values after ":"
# ("TEXT:{fit,fill,crop}=fit"), a check ("INT:INT in [1 - 10]", "TEXT:FILE"), "..." for a value
# given several times (all after one flag, up to the next) and "REQUIRED". The head keeps its
# type; the rest becomes the notes the engine reads of every help ("[default: out.png]",
# "[possible values: fit, fill, crop]", "[required]").

# "  -o,--output TEXT=out.png ...  description": names, type, the type's notes, then the text.
_CLI11_ENTRY = compiled(r"^(  (?:-[^\s,]+,)*-[^\s,]+|  [a-z][\w-]*) ([A-Z][A-Z0-9_]*)"
                  r"((?::\{[^}]*\}|:[A-Z][^\s{}=:]*(?: in \[[^\]]*\])?|=\S+)*)( \[[^\]]*\])?"
                  r"( \.\.\.)?( REQUIRED)?(?=\s{2,}|$)(.*)$")
# One part of what is joined to the type: allowed values, a check, or the default.
_PART = compiled(r":\{([^}]*)\}|:[A-Z][^\s{}=:]*(?: in \[[^\]]*\])?|=(\S+)")


class Cli11(LineRewriter):
    name = "cli11"
    marks = (
        mark(r"^  -h,\s*--help\s+Print this help message and exit$", 6.0),
        mark(r"^Positionals:$", 1.0),
        mark(r"^  (?:-\w,)?--[\w-]+ (?:TEXT|INT|UINT|FLOAT|BOOLEAN)(?:[=:]\S+)?(?: \.\.\.)?(?: REQUIRED)?(?: |$)", 2.0),
    )

    @staticmethod
    def plain(line: str) -> str:
        return _plain(line)


def _plain(line: str) -> str:
    found = _CLI11_ENTRY.match(line)
    if found is None:
        return line
    names, kind, joined, bracketed, dots, required, rest = found.groups()
    notes = []
    for part in _PART.finditer(joined):
        if part[1] is not None:
            notes.append(f"[possible values: {', '.join(value.strip() for value in part[1].split(','))}]")
        elif part[2] is not None:
            notes.append(f"[default: {part[2]}]")
    if bracketed:  # the default as later releases print it: "TEXT [out.png]"
        notes.append(f"[default: {bracketed.strip()[1:-1]}]")
    if required:
        notes.append("[required]")
    # "TEXT ..." takes every word up to the next flag (as argparse's "TEXT [TEXT ...]"), so a
    # call's positionals must come after "--". A positional keeps its name alone: its usage says
    # whether it repeats, and its type word would be read as a second name.
    head = (f"{names} {kind}{f' [{kind} ...]' if dots else ''}" if names.lstrip().startswith("-") else names)
    return entry_line(head, rest.strip(), notes)


# cxxopts (C++): "  -o, --output arg  Where to write (default: out.png)" under "Usage:".
#
# cxxopts names every value "arg", says a default in parentheses after the text, and writes
# its usage as "prog [OPTION...] positional". A switch on by default ("(default: true)") is
# turned off as "--color=false", which cxxopts reads; it has no "--no-color".

class Cxxopts(Dialect):
    name = "cxxopts"
    marks = (
        mark(r"^  \S+ \[OPTION\.\.\.\]", 3.0),
        mark(r"^  (?:-\w, |    )--[\w-]+ arg(?:\s{2,}|$)", 2.0),
        mark(r"^  -\w, --[\w-]+\s{2,}\S[^\n]*\(default: (?:true|false)\)$", 1.0),
    )
    min_score = 5.0


# gflags (C++, Google's command-line flags): "-name (what it does) type: int32 default: 640".
#
# gflags lists its flags by the file that defines them ("  Flags from resize.cc:"), each as
# "    -name (text) type: T default: V" over as many lines as the text takes (the rest indented
# by six), and "currently: V" where a flag was given. Its types say what a value is: bool is a
# switch (turned off as "-noname", which gflags reads, as it does "-name=false"), int32 to
# uint64 integers, double a number. A flag's name takes one dash or two.

_GFLAGS_ENTRY = compiled(r"^    -([A-Za-z_][\w-]*) \(")
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
            if not _GFLAGS_ENTRY.match(lines[k]):
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


# LLVM's CommandLine library (llc, opt, llvm-as, FileCheck and every llvm-* tool).
#
# Its help heads the text with "OVERVIEW:" and "USAGE: prog [options] ...", lists options by
# category ("Generic Options:") as "  --name=<value>   - what it does", a dash between the two,
# and an enum's values each on a line of its own below it ("    =asm   -   Emit an assembly
# file"). A long name may fill its column, leaving one space before the dash: the dash, not the
# spaces, ends the head. The values below an option are its choices. An alias (``cl::alias``)
# shows no value and says "Alias for -check-prefix ...": it takes what the option it stands for
# takes (FileCheck's ``--check-prefixes=FOO,BAR``).

_LLVM_ENTRY = compiled(r"^(  -{1,2}[^\s=<]+(?:=<[^>]*>| <[^>]+>)?) +- (.*)$")
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
            elif (entry := _LLVM_ENTRY.match(line)) is not None:
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


# CMake's own help (cmake, ctest, cpack, ccmake: cmDocumentationFormatter).
#
# Each option is written ``  SPEC = what it does``: the spec padded to a column, then ``= ``
# (straight after the spec when it fills the column, on the next line when it is longer), its
# text wrapped below the column. A spec names every spelling of the option, comma-separated
# (``-h,-H,--help,-help,-usage,/?``, Windows' ``/?`` among them), and its value as CMake's
# parser takes it: ``-S <path-to-source>``, ``--list-presets[=<type>]``, ``--help-full
# [<file>]`` (an optional word after it), ``--log-level=<ERROR|WARNING|...>`` (the values it
# accepts). An option written once per value (``-Werror=dev``, ``-Werror=deprecated``) is one
# option with those values. Read as generic help, the ``=`` began every description and a long
# spec swallowed words of its text.

# "  SPEC    = text", "  SPEC= text" (a spec that fills its column), and a spec alone on its line.
_CMAKE_ENTRY = compiled(r"^  (-\S(?:.*?\S)?) *= (.*)$")
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
            entry = _CMAKE_ENTRY.match(line)
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
