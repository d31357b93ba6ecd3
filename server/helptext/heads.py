"""The head of an option entry: its names and the value it takes.

Covers every way the dialects write it: "-a, --all", "-f FILE, --file FILE",
"--color[=WHEN]", "-e, --regexp <PATTERN>...", "-L, --limit int", "--x / --no-x",
"-h --help", "* --name -n TEXT", "--[no-]color", "--opt {a,b}", "--c [a|b|c]".
"""

from __future__ import annotations

from .brackets import outside_brackets
from .kept import compiled
from .notes import TYPED_VALUE

_FLAG = compiled(r"^(-{1,2}[A-Za-z0-9?#@_][\w.?#@+-]*?)(\.\.\.)?(\[?=.*|\[.*|<.*)?$")
_NO_PREFIX = compiled(r"^--\[no-?\]([\w.-]+)(.*)$")


class Head:
    """Filled in as the head's words are read (a plain class: see ``model``'s note on speed)."""

    __slots__ = ("longs", "shorts", "negations", "value", "value_optional", "equals", "repeat_marker",
                 "required_marker", "rest", "alone")

    def __init__(self) -> None:
        self.longs: list[str] = []
        self.shorts: list[str] = []
        self.negations: list[str] = []
        self.value: str | None = None  # the raw value text as printed ("<PATTERN>...", "{a,b}", "int")
        self.value_optional = False
        self.equals = False  # a long name is printed with its value after "=" ("--message=MSG")
        self.repeat_marker = False
        self.required_marker = False
        self.rest = ""  # words that were not part of the head (single-space descriptions)
        self.alone: str | None = None  # what the flag given without its value stands for (pflag's '[="fetch"]')


def tokens_of(head: str) -> list[str]:
    """Splits on spaces and commas, keeping bracketed groups ("[HOST/]OWNER", "<A B>") whole."""
    out: list[str] = []
    start = 0
    for index, ch in outside_brackets(head):
        if ch == " " or ch == ",":
            if index > start:
                out.append(head[start:index])
            start = index + 1
            if ch == ",":
                out.append(",")
    if start < len(head):
        out.append(head[start:])
    return out


def _words_after(tokens: list[str]) -> str:
    """The words after an option's names and value, as the description they start: each comma
    back after its word ("SOCKS5 proxy, pass host name": it was "SOCKS5 proxy pass host name")."""
    return " ".join(tokens).replace(" ,", ",").lstrip(", ")


def parse_head(head: str, *, single_dash_long: bool = False, lenient: bool = False,
               type_column: bool = False) -> Head:
    """``lenient``: the head stood apart from its description, so every word after the
    names is part of the value ("--python-version x.y"); otherwise lowercase words
    after the names start a description written after a single space. ``type_column``: the
    head holds a type column (typer's rich panels), where "<bool>" marks a switch; elsewhere
    ("--compact <boolean>", commander) it names a value the option takes."""
    result = Head()
    # rich-click writes a switch and its negation without spaces: "--commit/--no-commit"
    tokens = [part for tok in tokens_of(head) for barred in _unbarred(_unparenthesized(tok))
              for part in _unslashed(barred)]
    negating = False
    values_done = False
    values: list[str] = []
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        k += 1
        after_comma = k >= 2 and tokens[k - 2] == ","
        if tok == ",":
            continue
        if tok == "*" and not (result.longs or result.shorts):
            result.required_marker = True
            continue
        if tok == "/":
            negating = True
            continue
        if tok == "|":  # alternatives inside one value: "USER[:PASS] | TOKEN"
            continue
        if tok.upper() == "(REQUIRED)" and (result.longs or result.shorts):
            result.required_marker = True  # System.CommandLine: "--name <name> (REQUIRED)"
            continue
        nomatch = _NO_PREFIX.match(tok)
        if nomatch:
            result.longs.append("--" + nomatch.group(1))
            result.negations.append("--no-" + nomatch.group(1))
            tok = "--" + nomatch.group(1) + nomatch.group(2)
            _attach(result, nomatch.group(2), values)
            continue
        match = _FLAG.match(tok)
        if match:
            values_done = values_done or bool(values)
            name, dots, attached = match.groups()
            if dots:
                result.repeat_marker = True
            if attached and attached.startswith(("=", "[=")):
                result.equals = True
            if negating or (result.longs and name == "--no-" + result.longs[0][2:]):
                result.negations.append(name)  # "--x / --no-x" (click) or "--x  --no-x" (typer)
            elif name.startswith("--") or (len(name) > 2 and single_dash_long):
                result.longs.append(name)
            elif len(name) == 2:
                result.shorts.append(name)
            else:
                result.longs.append(name)
            if not values_done and not (values and _same_value_again(values, (attached or "").lstrip("="))):
                _attach(result, attached or "", values)
            continue
        if not (result.longs or result.shorts):
            result.rest = _words_after(tokens[k - 1:])
            break
        if tok.startswith("(") and tok.endswith(")") and " " in tok and any(c.islower() for c in tok):
            # A remark in parentheses, not a value: isympy's "-a, --auto-symbols (requires at
            # least IPython 0.11)", a line of its own, made the switch take a value of that name.
            result.rest = _words_after(tokens[k - 1:])
            break
        ends_head = not _looks_like_value(tok) and not (values and tok.startswith("..."))
        if values and values[-1].endswith(">") and not tok.startswith(("<", "[", "{", "...", "=", "|")):
            # A value in angle brackets is whole: a bare word after it, one space apart, starts
            # the description (curl's "--ciphers <list of ciphers> SSL ciphers to use").
            ends_head = True
        if not lenient and ends_head:
            result.rest = _words_after(tokens[k - 1:])
            break
        if negating or values_done:
            continue  # the value repeated after another name ("-f FILE, --file FILE")
        # The same name again after one name is a second value: argparse writes nargs=2 with
        # its default metavar "--pair PAIR PAIR", picocli arity 2 "--size=<size> <size>"; not
        # after a comma, in a list written in one word ("-k --keys k,k,k,...").
        if not (after_comma and values and _same_value_again(values, tok)):
            values.append(tok)
    if type_column and values and values[0].lower() in ("<bool>", "<boolean>"):
        values = []  # typer's rich help prints "<bool>" in its type column for plain switches
    if values and result.value is None:
        _set_value(result, values)
    # System.CommandLine's "-trna, --the-root-option-no-arg": the name with two dashes is the one
    # to go by (the first long name is the option's), whichever the help writes first.
    result.longs.sort(key=lambda name: not name.startswith("--"))
    return result


_SLASHED = compiled(r"(--?\w[\w-]*)/(--?\w[\w-]*)")
# A short and a long name joined by a bar, as shell scripts and dpkg write them: "-h|--help",
# "-f|--showformat=<format>". Not names of one kind ("-rt|-RT <time>", halog's two options; size's
# "-A|-B|-G", each a --format of its own): there the bar may part options as well as name one.
_BARRED = compiled(r"(-[\w?]|--[\w?][\w-]*)\|(-[\w?]|--[\w?][\w-]*)([=\[<].*)?")


def _unbarred(tok: str) -> tuple[str, ...]:
    """"-h|--help" as "-h, --help": in a list of options, the names an option goes by (the long
    one keeps what is attached to it: "-c|--color=always|never")."""
    found = _BARRED.fullmatch(tok)
    if found is None or found.group(1).startswith("--") == found.group(2).startswith("--"):
        return (tok,)
    return found.group(1), ",", found.group(2) + (found.group(3) or "")


# Another name of the option in parentheses after its names and value: "--strip (-s)",
# "--output-format FMT (-f)", "-d (--debug)", "--size N (or -s N)"; taken for its value.
_PARENTHESIZED = compiled(r"\((?:or\s+)?(-{1,2}[A-Za-z?][\w-]*)(?:[ =]\S+)?\)")


def _unparenthesized(tok: str) -> str:
    found = _PARENTHESIZED.fullmatch(tok)
    return found[1] if found else tok


def _unslashed(tok: str) -> tuple[str, ...]:
    """click's "--shout/--no-shout" as a switch and its negation; a short and a long name
    ("-m/--mode MODE", written so by hand) as one option's two names, which took the long name
    for a negation and the option for a switch."""
    found = _SLASHED.fullmatch(tok)
    if found is None:
        return (tok,)
    first, second = found[1], found[2]
    if first.startswith("--") != second.startswith("--") and "--no-" not in (first, second)[second.startswith("--")]:
        return (first, second)
    return (first, "/", second)


def _attach(result: Head, attached: str, values: list[str]) -> None:
    if not attached:
        return
    if attached.lower() in ("[=false]", "[=true]"):
        return  # pflag's boolean "--flag[=false]": a switch, whose value may be spelled out
    if attached.startswith("[="):
        result.value_optional = True
        values.append(attached[2:].rstrip("]") if attached.endswith("]") else attached[2:])
    elif attached.startswith("["):
        result.value_optional = True
        values.append(attached)
    elif attached.startswith("="):
        values.append(attached[1:])
    else:
        values.append(attached)


def _same_value_again(values: list[str], tok: str) -> bool:
    # argparse repeats the metavar after each name ("-f FILE, --file FILE"), GNU may
    # write it twice differently ("-I[FMT], --iso-8601[=FMT]").
    return tok.strip("[]=<>") == values[0].strip("[]=<>")


_TYPE_WORDS = {
    "string", "strings", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32",
    "uint64", "float", "float32", "float64", "duration", "bool", "stringarray", "stringslice", "intslice",
    "ints", "uintslice", "floatslice", "durationslice", "stringtostring", "stringtoint", "bytes", "ip",
    "ipmask", "ipnet", "ipslice", "count", "value", "list", "text", "integer", "number", "path", "file",
    "filename", "dir", "directory", "choice", "boolean", "uuid", "date", "datetime", "url", "num",
}


def _looks_like_value(tok: str) -> bool:
    if tok[0] in "<[{(" or tok.startswith("="):
        return True
    bare = tok.rstrip(".")
    if not bare:
        return False
    if bare == "#":  # a number's place: tree's "--filelimit # Do not descend dirs with more than # files"
        return True
    if bare.lower() in _TYPE_WORDS or TYPED_VALUE.fullmatch(bare):  # plumbum's "VALUE:int"
        return True
    letters = [c for c in bare if c.isalpha()]
    # Metavars are written in capitals ("FILE", "N", "HOST/OWNER", "KEY=VALUE").
    return bool(letters) and all(c.isupper() for c in letters)


def _one_bracket(word: str) -> bool:
    """Whether the bracket ``word`` opens closes at its end: "[FILE]" is a value that may be left
    out; curl's "[protocol://]host[:port]" is a value with optional parts (given alone after
    "=", curl refused it)."""
    depth = 0
    for index, ch in enumerate(word):
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if depth == 0:
            return index == len(word) - 1
    return False


# pflag's flag whose value may be left off (cobra's NoOptDefVal): "--color string[=\"always\"]",
# its type, then the value the flag alone stands for. A value given goes after "=".
# (A type in lower case, apart from the name: systemd's "--setenv=NAME[=VALUE]" is one value.)
_TYPE_WITH_VALUE_ALONE = compiled(r"([a-z]\w*)\[=([^\[\]]*)\]")


# "[a|b]" (choices, not one optional value) and "%s" (a printf form, not a value's name).
_ALTERNATIVES_IN_BRACKETS = compiled(r"\[[^\]|]+\|[^\]]*\]")
_PRINTF_CONVERSION = compiled(r"%[A-Za-z]")
# optionator's list types: a type of its own in brackets, capitalised as it names them.
_OPTIONATOR_LIST = compiled(r"\[(?:String|Int|Number|Float|Boolean|Path|Object|RegExp|Date)\]")


def _set_value(result: Head, values: list[str]) -> None:
    if len(values) == 1 and not result.equals and (alone := _TYPE_WITH_VALUE_ALONE.fullmatch(values[0])) is not None:
        # "--color never" left "never" an operand (rc 0, the color "always"): "--color=never".
        result.value_optional = result.equals = True
        result.alone = alone.group(2) or None
        values = [alone.group(1)]
    text = " ".join(values)
    if text.endswith("...") or text.lower().startswith("<list["):
        result.repeat_marker = True
    if len(values) == 1 and _OPTIONATOR_LIST.fullmatch(values[0]):
        # optionator's (eslint's) "--ext [String]": a list of that type, given again for more
        # (--ext .js --ext .ts), its value needed ("Value for 'ext' of type '[String]' required").
        result.repeat_marker = True
        result.value = values[0][1:-1]
        return
    # click's DateTime prints its formats in brackets ("[%Y-%m-%d]"): the value is needed.
    if len(values) == 1 and values[0].startswith("[") and values[0].endswith("]") \
            and not _ALTERNATIVES_IN_BRACKETS.fullmatch(values[0]) and _one_bracket(values[0]) \
            and not _PRINTF_CONVERSION.search(values[0]):
        result.value_optional = True
    result.value = text
