"""What an entry's description and value text say: default, choices, required, type.

The bracketed notes are each dialect's own ("[default: x]" clap/click, "(default "x")"
cobra/Go, "(default: x)" argparse/commander, "[possible values: a, b]" clap,
"[choices: ...]" yargs), but one tool may print several, so all are tried.
"""

from __future__ import annotations

import re

from .kept import compiled
from .records import NamedTuple

# jsonargparse's "(type: int, default: 85)", clize's "(type: INT, default: 22)"
_TYPED_DEFAULT = compiled(r"\([^()]*?\btype:\s*[^()]*?,\s*default:\s*+((?:\"[^\"]*\"|[^()\"])*)\)", re.IGNORECASE)
# A sentence of its own that ends the text (optparse's "... the script name. Default:
# 'Program: {args}'", "Defaults to 10."): one word, or a quoted value. Tried last.
_SAID_DEFAULT = compiled(r"(?:^|[.;]\s)\s*Defaults?(?:\s+is|\s+to|\s*:)\s+(\"[^\"]*\"|'[^']*'|[^\s\"']\S*?)\.?\s*$")
# radon's "(default to A)": the value after "to" (and "(default to stdout)" no value to give)
_DEFAULT_TO = compiled(r"\(default to\s+(\"[^\"]*\"|\[[^\[\]]*\]|[^()]*)\)")
_DEFAULT = (
    compiled(r"\[default(?:s)?\s*:\s*+([^\[\]]*)\]", re.IGNORECASE),
    compiled(r"\(default(?:s)?\s*:\s*+((?:\"[^\"]*\"|[^()\"])*)\)", re.IGNORECASE),
    _DEFAULT_TO,
    compiled(r"\(default (?!is\b|for\b|if\b|when\b)(\"[^\"]*\"|\[[^\[\]]*\]|[^()]*)\)"),  # "(default 3)"
    compiled(r"\[default (\"[^\"]*\"|[^\[\]]*)\]"),
    compiled(r"\(choices:[^()]*?,\s*default:\s*+(\"[^\"]*\"|[^()]*)\)"),  # commander puts both in one note
    compiled(r"\(values:[^()]*?;\s*default:\s*+([^()]*)\)"),  # swift-argument-parser's, after a semicolon
    _TYPED_DEFAULT,
    compiled(r";\s*the default is (\S+?)\.?$"),  # plumbum's "block size in bytes; the default is 4096"
    # The same note in the help's own language: German, French, Spanish, Portuguese, Italian, Dutch.
    compiled(r"[(\[](?:Standard|Vorgabe|Voreinstellung|par d[ée]faut|d[ée]faut|por defecto|predeterminado|"
             r"padr[ãa]o|predefinito|standaard)\s*:\s*+((?:\"[^\"]*\"|[^()\[\]\"])*)[)\]]", re.IGNORECASE),
    _SAID_DEFAULT,
    compiled(r"\s-\s+default:\s*+(\S+)\s*$"),  # optionator's (eslint's) "... output format - default: stylish"
)
_CHOICES = (
    compiled(r"\[possible values\s*:\s*+([^\[\]]*)\]", re.IGNORECASE),
    compiled(r"\[choices\s*:\s*+([^\[\]]*)\]", re.IGNORECASE),
    compiled(r"\(choices\s*:\s*+([^()]*)\)", re.IGNORECASE),
    compiled(r"\{choices\s*:\s*+([^{}]*)\}", re.IGNORECASE),
    # swift-argument-parser: "(values: mean, median, mode; default: mean)"
    compiled(r"\(values\s*:\s*+([^();]*)[);]"),
    # oclif: "<options: us-east-1|eu-west-1>"
    compiled(r"<options:\s*+([^<>]*)>"),
)
# Every note's inside above stops at the next opening bracket of its kind, so that one search
# over a description is linear: a help repeating "(default: " with no ")" was read in a time
# quadratic in its length (80 KB in 21 s, the interpreter held all along). The spaces after a
# note's colon are taken whole ("\s*+"): its inside takes spaces too, and a note never closed
# would otherwise share out a long run of them between the two in every way (quadratic).
# Choices written in prose. An item is quoted, or one plain word; items are separated by
# commas, "or" or "|"; the list may sit in brackets. Lists of examples are not choices.
_ITEM = r"(?:\"[^\"\s]{1,40}\"|'[^'\s]{1,40}'|`[^`\s]{1,40}`|\*?[\w][\w.+/-]*\*?)"
_SEP = r"(?:\s*,\s*(?:or\s+|and\s+)?|\s+(?:or|and)\s+|\s*\|\s*|(?<=[\"'`])/(?=[\"'`]))"
_LIST = rf"[\(\[\{{]?\s*+{_ITEM}(?:{_SEP}{_ITEM})+\s*[\)\]\}}]?"
# After "one of" an item may carry a short note: "L (7%), M (15%, default), or H (30%)".
_NOTE = r"(?:\s+\([^()]{1,30}\))?"
_NOTED_LIST = rf"{_ITEM}{_NOTE}(?:{_SEP}{_ITEM}{_NOTE})+"
# "TYPE can be: boxed, calendar, ..., or yaml." (jrnl): a value name, a colon, then plain words,
# each perhaps with a note (numfmt's "METHOD can be: up, down, from-zero (default), nearest")
_CAN_BE = compiled(rf"\b[A-Z][A-Z_]+ (?:is|must be|can be|may be):\s*+({_NOTED_LIST}|{_LIST})")
_PROSE_CHOICES = (
    # "one of: a, b", "Allowed values: a, b", "choices are "x", "y"", "Output format. One of: (json, yaml)"
    # (and taze's "Available: default | major | minor", eslint's "either: metadata or content", a colon after it)
    compiled(rf"\b(?:(?:is |must be |be )?one of|choices are|choose from|(?:allowed|possible|valid|supported|"
               rf"accepted) values(?: are)?|available(?=\s*:)|either(?=\s*:))\s*+:?\s*+({_NOTED_LIST}|{_LIST})",
             re.IGNORECASE),
    # "WHEN is 'always', 'never', or 'auto'": a value name, then quoted items only
    compiled(rf"\b[A-Z][A-Z_]+ (?:is|must be|can be) ((?:\"[^\"]+\"|'[^']+'|`[^`]+`)(?:{_SEP}"
               rf"(?:\"[^\"]+\"|'[^']+'|`[^`]+`))+)"),
    # "(*auto*, never, always)": a parenthesised list with the default starred
    compiled(r"\((\*[\w.+-]+\*(?:,\s*[\w.+-]+)+|[\w.+-]+(?:,\s*[\w.+-]+)*,\s*\*[\w.+-]+\*"
               r"(?:,\s*[\w.+-]+)*)\)"),
    # the value name, then its values in parentheses, with a comma: "for SHELL (bash, zsh or fish)";
    # not "ADDRESS (hostname or IP)", which names kinds of value
    compiled(r"\b[A-Z][A-Z_]+ \(([\w.+-]+,\s*(?:or\s+)?[\w.+-]+(?:(?:\s*,\s*(?:or\s+)?|\s+or\s+)[\w.+-]+)*)\)"),
    # plain words in parentheses, the last after a comma and "or" ("(system, all, or index-only)",
    # "(tar, zip or cpio)"); "(hostname or IP)" names kinds of value as often as values
    compiled(r"\(((?:[a-z0-9][\w.+-]*,\s*)+or\s+[a-z0-9][\w.+-]*"
               r"|[a-z0-9][\w.+-]*(?:,\s*[a-z0-9][\w.+-]*)+\s+or\s+[a-z0-9][\w.+-]*)\)"),
    # a bracketed plain list at the end of the text: "[android, linux, osx]", "[tar|zip|cpio]",
    # perhaps before its default (pip: "[auto, on, off, raw] (default: auto)")
    # (not "[A,B]": a default list)
    compiled(r"\[([\w.+-]+(?:,\s+[\w.+-]+)+|[\w.+-]+(?:\|[\w.+-]+)+)\]\.?\s*(?:\(default[^()]*\)\.?\s*)?$"),
    # words between bars in braces, anywhere: gh's "Filter by state: {open|closed|all}"
    compiled(r"\{([\w.+-]+(?:\|[\w.+-]+)+)\}"),
    _CAN_BE,
    # Not plain words in parentheses with commas only ("Use color (auto, always, never)"): tried
    # (shellcheck refuses other words), such a list was as often short of what the program takes
    # (exa's "(modified, accessed, created)" takes "changed", journalctl's output modes "short-delta"),
    # and an enum too narrow refuses calls (a re-check).
)
# An item a list notes as the default: numfmt's "from-zero (default)".
_NOTED_DEFAULT = compiled(r"(\S+)\s+\(default\)")
# The lists whose items may each carry a short note in parentheses.
_NOTED = (_PROSE_CHOICES[0], _CAN_BE)
# Lowercase words between slashes in parentheses at the end of the text: pytest's "Traceback
# print mode (auto/long/short/line/native/no)", "(yes/no/auto)".
_SLASHED = compiled(r"\(([a-z0-9][\w.+-]*(?:/[a-z0-9][\w.+-]*)+)\)\.?\s*$")
# Lower-case words between bars in parentheses: "Archive format (tar|zip|cpio)", "protocol
# (tcp|udp) (default: tcp)" (argp, popt): bars join alternatives to be written as they are.
_PIPED = compiled(r"\(([a-z0-9][\w.+-]*(?:\|[a-z0-9][\w.+-]*)+)\)")
# A value written as its name, a colon and its type (plumbum), and what those types are.
TYPED_VALUE = compiled(r"[A-Z][A-Z0-9_]*:([A-Za-z][\w.]*|\{[^{}\s]+\})")
_PLUMBUM_TYPES = {"int": "integer", "float": "number", "str": "string", "existingdirectory": "path",
                  "existingfile": "path", "nonexistentpath": "path", "path": "path", "localpath": "path"}
# Words that name a kind of value rather than a value ("<file|dir>", "(date|dur)", "uid|user").
KIND_WORDS = frozenset({"number", "name", "uid", "gid", "user", "username", "group", "groupname", "id", "path",
                        "file", "dir", "directory", "host", "hostname", "ip", "port", "level", "ident", "string",
                        "int", "integer", "size", "count", "index", "pid", "url", "address", "addr", "value",
                        "date", "dur", "duration", "time", "timestamp", "seconds", "secs", "bytes", "text", "str",
                        "uri", "email", "regex", "pattern", "glob", "num", "float", "bool", "boolean", "list"})
# Words that name a kind of value too, but may also be a choice's ("--what <data|schema>"): a
# list is of kinds only when every word of it names one (curl's "--cookie <data|filename>": a
# cookie string or a file's name, offered as the two words only).
SOFT_KIND_WORDS = KIND_WORDS | {"data", "filename", "filepath", "pathname", "dirname", "folder", "content",
                                "contents", "expr", "expression", "char", "character", "word"}


def names_kinds(words: list[str]) -> bool:
    """Whether ``words`` (a value's alternatives) name kinds of value rather than values."""
    return any(word in KIND_WORDS for word in words) or all(word in SOFT_KIND_WORDS for word in words)
# Words whose first letter in parentheses is the value: pip's "(s)witch, (i)gnore, (w)ipe, (b)ackup, (a)bort".
_INITIALS = compiled(r"\([a-z]\)[a-z]+(?:\s*,\s*(?:or\s+)?\([a-z]\)[a-z]+){2,}")
_EXAMPLE_BEFORE = compiled(r"(?:e\.g\.|i\.e\.|for example|for instance|such as|like|including|e\.g,)"
                             r"[\s:,]*$", re.IGNORECASE)
# "'{type}' should be one of a, b": the list is about one part of a compound value.
_PART_BEFORE = compiled(r"[}>'\"`]\s+(?:\w+\s+){0,2}$")
# How much of the text before and after a list of choices says what the list is ("for example",
# "etc."): the longest of those phrases and a few words beside them.
_AROUND = 80
# ("(dark|light|16|bw) and/or custom colors": fzf takes "dark,fg:#ffffff" too)
# (and ss's "QUERY := {all|inet|tcp|...}[,QUERY]": a list of them, "tcp,udp")
_OPEN_AFTER = compiled(r"^\s*(?:,\s*)?(?:etc\b|\.\.\.|…|and so on|and more|or (?:any|other|more)\b|and/or\b|\[,)",
                         re.IGNORECASE)

# The last "item" began a phrase ("..., "never", an IP block in CIDR notation"): the list names
# kinds of value, not values.
# A capitalised word after it starts a sentence ("zenburn The ..." where paragraphs were joined).
_PHRASE_GOES_ON = compiled(r"^ +(?!(?:or|and|is|are|was|were|as|if|by|to|for)\b)(?:[a-z]{2,}|[A-Z]{2,}\b)")

# "[required]", "(required)", "Required: ...", and plumbum's "...; required" at the end
_REQUIRED = compiled(r"\[required\]|\(required\)|^required[.:]|;\s*required\.?$", re.IGNORECASE)
_REPEAT = compiled(
    r"(?:can|may|could|should|must)\s+be\s+(?:used|given|specified|repeated|passed|provided|supplied)"
    r"(?:\s+\w+){0,3}\s+(?:multiple|several|many)\s+times"
    r"|(?:can|may)\s+be\s+repeated|\brepeatable\b|;\s*(?:may|can)\s+repeat\b"
    # cleo's "(multiple values allowed)", cliff's "(repeat option to set multiple values)"
    r"|\(multiple values allowed\)|\(repeat (?:the )?option\b"
    r"|(?:can|may)\s+be\s+(?:used|given|specified|passed|provided|supplied)\s+more\s+than\s+once"
    # "use the argument multiple times", "specify multiple times"; not "pass over SVGs multiple times"
    r"|\b(?:use|used|using|specify|specified|specifying|give|given|giving|repeat|repeated|repeating|provide|"
    r"provided|supply|supplied)(?:\s+\S+){0,5}?\s+(?:multiple|several|many)\s+times\b"
    # "pass multiple times to increase verbosity"; not "Pass over SVGs multiple times"
    r"|\bpass(?:ed|ing)?\s+(?:it\s+|this\s+|the\s+(?:flag|option)\s+)?(?:multiple|several|many)\s+times\b"
    # pytest's "(multi-allowed)", "(can specify multiple)", "can be used up to 3 times", "When given twice"
    r"|\(multi[- ]?allowed\)|\((?:can|may)\s+(?:specify|give|pass|use)\s+(?:it\s+)?multiple(?:\s+times)?\)"
    r"|(?:can|may)\s+be\s+(?:used|given|specified|repeated|passed)\s+up\s+to\s+\w+\s+times"
    r"|\b(?:when|if)\s+(?:given|used|specified|passed|repeated)\s+(?:twice|two\s+times|more\s+than\s+once)\b"
    # "Repeat the flag for multiple ports", "Repeat this option as needed": an instruction, where
    # it begins; not "repeat the last command" (what it does)
    r"|(?:^|[.;(]\s*)repeat\s+(?:(?:the|this|that)\s+)?(?:flag|option|switch)\b"
    # "Repeat to require several labels", "; repeat to be quieter", "Repeat to print even more":
    # a verb of doing more of the same; not "repeat to fill the whole width", "Repeat to make a
    # seamless loop" (what the option does), "Repeat to fill is off by default" (a feature's name)
    r"|(?:^|[.;(]\s*)repeat\s+(?:it\s+)?to\s+(?:be|get|print|show|see|log|report|list|output|increase|decrease|raise|"
    r"lower|reduce|add|append|require|include|exclude|skip|ignore|select|search|allow|specify|set|pass|give|use|"
    r"enable|disable|hide|define|apply|mount|expose|forward|load|read|watch)\b(?!\s+(?:is|are|was|were|has|have)\b)"
    r"|(?:^|[.;(]\s*)repeat\s+(?:it\s+|(?:the|this)\s+(?:flag|option)\s+)?(?:as\s+(?:needed|often|many)|for\s+each)\b"
    r"|\b(?:comma|space)[- ]separated,?\s+or\s+repeated\b|\brepeated\s+or\s+(?:comma|space)[- ]separated\b"
    r"|\bthis\s+flag\s+can\s+be\s+repeated"
    # "more output (repeat for more)", "repeat to increase", "-vv for more", "-vvv for even more"
    r"|\brepeat(?:ed)?\s+(?:it\s+)?(?:for|to)\s+(?:more|increase|even\s+more)\b"
    # "more output, give again for more", "less output, give it again for less", "use it again to increase"
    r"|\b(?:give|use|pass|specify)\s+(?:it\s+)?again\s+(?:for|to)\s+(?:(?:even\s+)?(?:more|less|fewer)|increase|decrease)\b"
    # "-vv for debug level" (bumpver), "-vv gives more": the letter doubled, then what it does
    r"|(?<![\w-])-(?P<letter>[a-zA-Z])(?P=letter)+\s+(?:(?:for|gives?|is)\s+(?:more|even\s+more)\b|will\b"
    r"|for\s+(?:\w+\s+)?(?:debug|debugging|trace|tracing|verbose|quiet|silent|detailed|full)\b)"
    # "specify twice to suppress errors too" (lz4), "use twice for more", "give it twice"
    r"|\b(?:specify|give|use|pass|repeat)\s+(?:it\s+|this\s+|the\s+(?:flag|option)\s+)?twice\b",
    re.IGNORECASE,
)
_YARGS_TYPE = compiled(r"\[(boolean|string|number|array|count)\]")
_LIST_ITEM = compiled(r"^[-*•]\s+([^\s:]+):?(?:\s|$)")

_INTEGER_WORDS = {"int", "long", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
                  # kong names a Go type with a dash before its size: "INT-64", "UINT-8"
                  "int_8", "int_16", "int_32", "int_64", "uint_8", "uint_16", "uint_32", "uint_64",
                  "integer", "num", "n", "#", "count", "intslice", "ints", "uintslice", "integer range", "int range",
                  "int32slice", "int64slice", "uint32slice", "uint64slice",
                  "port",  # click's and typer's names of an IntRange
                  # Rust's and Zig's integer types, as clap and zig-clap name values by them ("<usize>")
                  "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128"}
_NUMBER_WORDS = {"float", "float32", "float64", "float_32", "float_64", "float range", "floatslice", "float32slice",
                 "float64slice", "decimal", "ratio",
                 "number", "f64", "f32", "double", "real", "seconds", "secs"}
_PATH_WORDS = {"path", "file", "filename", "dir", "directory", "filepath", "paths", "files", "dirs", "folder",
               "pathfile", "infile", "outfile", "file_path", "dir_path", "output_file"}
_REPEAT_TYPES = {"stringarray", "strings", "stringslice", "intslice", "ints", "uintslice", "floatslice",
                 "durationslice", "boolslice", "ipslice", "stringtostring", "stringtoint", "stringtoint64",
                 # pflag's other list types, as it names them ("--shard int32Slice", "--flags bools")
                 "bools", "int32slice", "int64slice", "uint32slice", "uint64slice", "float32slice", "float64slice",
                 "ipnetslice"}


class Notes(NamedTuple):
    default: str | None
    choices: tuple[str, ...]
    required: bool
    repeatable: bool
    yargs_type: str | None
    # Choices only prose states ("one of: a, b"): trusted for an option known to take a value.
    prose_choices: tuple[str, ...] = ()
    prose_default: str | None = None
    # The value's type as jsonargparse and clize note it, "(type: int, default: 85)": "integer",
    # "number", "boolean", "string" or "path", or None.
    noted_type: str | None = None
    # The default was said in a sentence ("Defaults to 10."), not in a note: it tells what a value
    # is, but not that a switch takes one (mkdocs' "--color / --no-color ... Default is auto").
    default_said: bool = False


_CLICK_EXTRA = compiled(r"\[([^\[\]]*;[^\[\]]*)\]")


# A default written as words about the value, not the value: "(default: the whole document)",
# "(default: current directory)". A client that fills in defaults would send them.
# "(default: first script's basename)", "(default: apply PyInstaller's icon)": said of something
_POSSESSIVE = compiled(r"\w['’]s$")
# What a sentence may say the default is that is no value to give: "Defaults to
# empty/disabled." (codespell), "Default is auto-detect." (mkdocs), "Defaults to autodetection."
# (A value with "$" or "<" is a variable or a placeholder: "Defaults: $TMPDIR/hugo_cache/".)
# "Defaults to STDOUT." (markdown): where the output goes, not a file's name. "Defaults to Tab."
# (cut): a character named, not written.
_SAID_NOT_GIVEN = frozenset({"empty", "disabled", "empty/disabled", "unset", "nothing", "auto-detect", "autodetect",
                             "autodetection", "auto-detection", "autodetected", "auto-detected", "stdout", "stdin",
                             "stderr", "tab", "space", "whitespace"})
_PROSE_START = frozenset({"the", "a", "an", "all", "every", "each", "current", "same", "your", "its"})


def then_sentence(text: str, sentence: str) -> str:
    """``text`` and a sentence of toolbay's after it, which starts a sentence of its own: a
    description without a full stop ran on into it ("... push or fetch An empty value ...")."""
    text = text.strip()
    if not text:
        return sentence
    return f"{text} {sentence}" if text[-1] in _SENTENCE_ENDS else f"{text}. {sentence}"


_SENTENCE_ENDS = frozenset(".!?:;。！？")


def read_notes(lines: list[str]) -> Notes:
    text = _unwrap_hyphens(lines)
    default = None
    said = False
    for pattern in _DEFAULT:
        found = pattern.search(text)
        if found:
            raw_default = found.group(1).strip()
            if pattern is _TYPED_DEFAULT and raw_default == "null":
                break  # jsonargparse's "(type: Optional[int], default: null)": Python's None, no value
            default = unquote(raw_default)
            words = default.split()
            worded = len(words) > 3 or (len(words) > 1 and (words[0].lower() in _PROSE_START
                                                            or any(_POSSESSIVE.search(w) for w in words)))
            if worded and raw_default[:1] not in "\"'`":
                default = None  # prose in parentheses ("the whole document"), not a value to send
            elif pattern in (_SAID_DEFAULT, _DEFAULT_TO) and (default.lower() in _SAID_NOT_GIVEN
                                                              or re.search(r"[<$]", default)):
                default = None  # "Defaults to empty/disabled.", "Default is auto-detect.": what happens
            said = pattern is _SAID_DEFAULT and default is not None
            break
    choices: tuple[str, ...] = ()
    for pattern in _CHOICES:
        found = pattern.search(text)
        if found:
            choices = split_choices(re.split(r",\s*default:", found.group(1))[0])
            break
    if not choices:
        choices = _listed_values(lines)
    yargs = _YARGS_TYPE.findall(text)
    prose, starred = prose_choices(text) if not choices else ((), None)
    return Notes(
        default=default if default not in ("", "None") else None,  # typer prints "[default: None]"
        choices=choices,
        required=bool(_REQUIRED.search(text)),
        repeatable=bool(_REPEAT.search(text)) or "array" in yargs or "count" in yargs,
        yargs_type=yargs[-1] if yargs else None,
        prose_choices=prose,
        prose_default=starred,
        noted_type=_noted_type(text),
        default_said=said,
    )


# "(type: int, default: 2)", "(required, type: str)", "(type: Optional[float], ...)": a Python type named.
_TYPE_NOTE = compiled(r"\((?:[^()]*?,\s*)?type:\s*(?:Optional\[)?([A-Za-z_]+)(?P<rest>[\],)])")
_NOTED_TYPES = {"int": "integer", "float": "number", "bool": "boolean", "str": "string", "path": "path",
                "path_fr": "path", "path_fc": "path", "path_dw": "path", "path_drw": "path"}


def _noted_type(text: str) -> str | None:
    found = _TYPE_NOTE.search(text)
    return _NOTED_TYPES.get(found.group(1).lower()) if found is not None else None


def _unwrap_hyphens(lines: list[str]) -> str:
    """Joins description lines, mending words that wrapped at a hyphen ("cyclonedx-" / "json"),
    with click's joined notes ("[env var: X; default: 3; required]") split into one each."""
    text = ""
    for line in (x.strip() for x in lines if x.strip()):
        text += line if text.endswith("-") and not text.endswith(" -") else (" " + line if text else line)
    return _CLICK_EXTRA.sub(lambda m: " ".join(f"[{part.strip()}]" for part in m.group(1).split(";")), text)


# A value that is itself a list of several: its allowed words are items, not values.
_SEVERAL_IN_ONE = compiled(r"(?i)\bcomma[- ]separated\b|\bseparated by commas\b")


def prose_choices(text: str) -> tuple[tuple[str, ...], str | None]:
    """The values a description lists as the only ones allowed, and the one starred as default.

    Lists that follow "e.g.", "such as" or "for example", or that end in "etc." or "...",
    are examples, not choices: an enum that is too narrow refuses valid calls. So are the
    values of a list the option takes ("Comma-separated list of ... Valid values: MAVEN, GO":
    "MAVEN,GO" is a value too).
    """
    choices, starred = _prose_choices(text)
    return ((), starred) if choices and _SEVERAL_IN_ONE.search(text) else (choices, starred)


# The name in capitals a list of choices is said of ("TYPE is one of: ..."), before it or at its start.
_SUBJECT_BEFORE = compiled(r"\b([A-Z][A-Z0-9_]+)\s+$")
_SUBJECT_FIRST = compiled(r"^([A-Z][A-Z0-9_]+)\s")


def _names_a_part(text: str, before: str, found: str) -> bool:
    """Whether the list is said of a name in capitals that the text writes as one part of a
    compound value: hf's "Format: hf://[TYPE/]SOURCE:/MOUNT_PATH[:ro|:rw]. TYPE is one of:
    models, datasets, ...", whose values are not the option's (each was refused)."""
    subject = _SUBJECT_FIRST.match(found) or _SUBJECT_BEFORE.search(before)
    if subject is None:
        return False
    word = re.escape(subject.group(1))
    return re.search(rf"[/:@.]{word}\b|\b{word}[/:@](?!\s)", text) is not None


def _prose_choices(text: str) -> tuple[tuple[str, ...], str | None]:
    for pattern in _PROSE_CHOICES:
        for found in pattern.finditer(text):
            # The words just before and after the list, not the whole text on either side: a text
            # of many lists was read in a time quadratic in its length.
            before = text[max(0, found.start() - _AROUND):found.start()]
            after = text[found.end():found.end() + _AROUND]
            if _EXAMPLE_BEFORE.search(before) or _PART_BEFORE.search(before) or _OPEN_AFTER.match(after) \
                    or not found.group(0).endswith(".") and _PHRASE_GOES_ON.match(after) \
                    or _names_a_part(text, before, found.group(0)):
                continue
            # Runs of spaces as one: the patterns below that start with "\s" would try each space of
            # a long run against what follows it (quadratic), and a choice is a word or two, not a layout.
            raw = " ".join(found.group(1).split())
            noted_default = _NOTED_DEFAULT.search(raw) if pattern in _NOTED else None
            raw = re.sub(r"\s+\([^()]*\)", "", raw) if pattern in _NOTED else raw  # each item's note
            raw = raw.strip("()[]{}").strip()
            items = [unquote(i.strip()) for i in re.split(_SEP, raw) if i.strip()]
            items = [i.rstrip(".") if i.strip(".") else i for i in items]  # "yaml." ends a sentence; "..." stays
            starred = next((i.strip("*") for i in items if len(i) > 2 and i[0] == i[-1] == "*"), None)
            if starred is None and noted_default is not None:
                starred = unquote(noted_default.group(1))  # "from-zero (default)"
            items = [i.strip("*") for i in items]
            if any(i.lower() in ("etc", "others", "more") for i in items):
                continue  # an open list
            if len(items) >= 2 and len(set(items)) == len(items) and all(items):
                return tuple(items), starred
    if (slashed := _SLASHED.search(text)) is not None \
            and not _EXAMPLE_BEFORE.search(text[max(0, slashed.start() - _AROUND):slashed.start()]):
        items = slashed.group(1).split("/")
        if len(set(items)) == len(items):
            return tuple(items), None
    for piped in _PIPED.finditer(text):
        # A format's parts ("[(user|uid)][:(group|gid)]") and kinds of value ("(date|dur)") are
        # no values to give as written.
        items = piped.group(1).split("|")
        if text[piped.start() - 1:piped.start()] not in ("[", ":") and text[piped.end():piped.end() + 1] != "]" \
                and not _OPEN_AFTER.match(text[piped.end():piped.end() + _AROUND]) \
                and not names_kinds(items) and len(set(items)) == len(items) \
                and not _EXAMPLE_BEFORE.search(text[max(0, piped.start() - _AROUND):piped.start()]):
            return tuple(items), None
    if (initials := _INITIALS.search(text)) is not None:
        letters = re.findall(r"\(([a-z])\)", initials.group(0))
        if len(set(letters)) == len(letters):
            return tuple(letters), None
    return (), None


def _listed_values(lines: list[str]) -> tuple[str, ...]:
    """clap's long help: "Possible values:" then one "- name: what it does" line each."""
    values: list[str] = []
    listing = False
    after_blank = False
    for line in lines:
        stripped = line.strip()
        if stripped.lower().rstrip(":") in ("possible values", "values", "choices"):
            listing = True
            continue
        if listing:
            item = _LIST_ITEM.match(stripped)
            if item:
                values.append(item.group(1))
            elif stripped and values and after_blank and not line.startswith(" ") and not stripped.startswith("["):
                break  # text after the list; a line right under an item is that item's wrapped words
        after_blank = not stripped
    return tuple(values)


def unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    return text


def split_choices(text: str) -> tuple[str, ...]:
    # Split at the bars and commas, then trimmed: the same parts as splitting at "\s*[,|]\s*",
    # which tried each space of a long run against its end (quadratic).
    parts = [part.strip() for part in re.split(r"[,|]", text.strip())]
    return tuple(unquote(p) for p in parts if unquote(p))


def strip_brackets(value: str) -> str:
    value = value.strip()
    if re.fullmatch(r"(?:<[^<>]+>\s*)+\.{0,3}", value) and value.count("<") > 1:  # "<VAR> <MIN> <MAX>"
        return " ".join(re.findall(r"<([^<>]+)>", value))
    # argparse's "FOO [FOO ...]": the last bracket, read from the right (a pattern tried each
    # space before it against the end again, quadratic in a run of spaces)
    if value.endswith("...]") and (opening := value.rfind("[")) >= 0 and "]" not in value[opening:-1]:
        value = value[:opening].rstrip()
    value = value.rstrip(".").strip()
    while len(value) >= 2 and value[0] + value[-1] in ("<>", "[]", "()"):
        value = value[1:-1].strip().rstrip(".")
    return value.lstrip("=")


_PLACEHOLDERS = {"INTEGER", "INT", "FLOAT", "NUMBER", "NUM", "TEXT", "STRING", "STR", "PATH", "FILE", "FILENAME",
                 "DIR", "DIRECTORY", "URI", "URL", "FORMAT"}


def _open_list(parts: tuple[str, ...]) -> bool:
    """"{keep,no,INTEGER}", "[PATH|URI]", "{*|FORMAT,FORMAT,...}": a list that names a kind of value
    (a type's or value's name in capitals, or "...") is not closed."""
    return any(p in _PLACEHOLDERS or p.endswith("...") or p == "…" for p in parts)


def value_choices(value: str, *, angle: bool = False) -> tuple[str, ...]:
    """Choices written in the value itself: argparse "{a,b}", click "[a|b|c]", Clikt "(a|b|c)", "<a|b>"; not a list
    that also names a kind of value ("{keep,no,INTEGER}"): that one takes more than its words."""
    parts = _value_choices(value, angle=angle)
    return () if _open_list(parts) else parts


def _value_choices(value: str, *, angle: bool = False) -> tuple[str, ...]:
    value = value.strip().rstrip(".")
    if (typed := TYPED_VALUE.fullmatch(value)) is not None and typed.group(1).startswith("{"):
        value = typed.group(1)  # plumbum's "VALUE:{copy,link,move}"
    if value.startswith("[{") and value.endswith("}]"):  # argparse's optional value "[{on,off}]"
        value = value[1:-1]
    inner = None
    if value.startswith("{") and value.endswith("}"):
        inner = value[1:-1]
        if "," in inner or "|" in inner:
            return split_choices(inner)
        # argparse prints a one-value choice list as "{builtin}"; "{NAME}" is a placeholder
        single = re.fullmatch(r"[\w.+-]+", inner) is not None and not inner.isupper()
        return (inner,) if single else ()
    # Clikt writes "(fit|fill|crop)"
    if (value[:1] in "[(" or (angle and value[:1] == "<")) and value[-1:] in "]>)" and "|" in value:
        inner = value[1:-1]
        parts = split_choices(inner)
        if all(re.fullmatch(r"[\w.+-]+", p) for p in parts):
            return parts
    return ()


def value_type(value_name: str | None, raw_value: str | None) -> str:
    if value_name and (typed := TYPED_VALUE.fullmatch(value_name.strip())) is not None:
        # plumbum names a value's type after its name: "VALUE:int", "VALUE:ExistingDirectory"
        return _PLUMBUM_TYPES.get(typed.group(1).lower(), "string")
    word = (value_name or "").strip().lower().replace("-", "_")
    if re.search(r"\s(?:or|and)\s", word):
        return "string"  # pylint's "<y or n>": a choice of words, whatever the last one is
    # Not at ":" or "=": "IP:PORT" and "KEY=N" are one value of text, whatever their last part is.
    last = re.split(r"[\s/]+", word)[-1] if word else ""
    for candidate in (word, last):
        if candidate in _INTEGER_WORDS:
            return "integer"
        if candidate in _NUMBER_WORDS:
            return "number"
        if candidate in _PATH_WORDS or candidate.endswith(("_file", "_path", "_dir")):
            return "path"
    return "string"


def is_repeat_type(raw_value: str | None) -> bool:
    """pflag's slice types, or a value name with dots inside its brackets: commander's variadic
    "--tag <tags...>" (not argparse's "FOO [FOO ...]", whose dots stand apart)."""
    if raw_value is None:
        return False
    raw = raw_value.strip()
    return raw.lower() in _REPEAT_TYPES or _DOTTED_VALUE.fullmatch(raw) is not None


_DOTTED_VALUE = compiled(r"[<\[][^\s<>\[\]]+\.\.\.[>\]]")
