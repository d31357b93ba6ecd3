"""What an entry's description and value text say: default, choices, required, type.

The bracketed notes are each dialect's own ("[default: x]" clap/click, "(default "x")"
cobra/Go, "(default: x)" argparse/commander, "[possible values: a, b]" clap,
"[choices: ...]" yargs), but one tool may print several, so all are tried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DEFAULT = (
    re.compile(r"\[default(?:s)?\s*:\s*([^\]]*)\]", re.IGNORECASE),
    re.compile(r"\(default(?:s)?\s*:\s*((?:\"[^\"]*\"|[^)])*)\)", re.IGNORECASE),
    re.compile(r"\(default (?!is\b|for\b|if\b|when\b)(\"[^\"]*\"|\[[^\]]*\]|[^)]*)\)"),
    re.compile(r"\[default (\"[^\"]*\"|[^\]]*)\]"),
    re.compile(r"\(choices:[^)]*?,\s*default:\s*(\"[^\"]*\"|[^)]*)\)"),  # commander puts both in one note
)
_CHOICES = (
    re.compile(r"\[possible values\s*:\s*([^\]]*)\]", re.IGNORECASE),
    re.compile(r"\[choices\s*:\s*([^\]]*)\]", re.IGNORECASE),
    re.compile(r"\(choices\s*:\s*([^)]*)\)", re.IGNORECASE),
    re.compile(r"\{choices\s*:\s*([^}]*)\}", re.IGNORECASE),
)
_REQUIRED = re.compile(r"\[required\]|\(required\)|^required[.:]", re.IGNORECASE)
_REPEAT = re.compile(
    r"(?:can|may|could|should|must)\s+be\s+(?:used|given|specified|repeated|passed|provided|supplied)"
    r"(?:\s+\w+){0,3}\s+(?:multiple|several|many)\s+times"
    r"|(?:can|may)\s+be\s+repeated|\brepeatable\b|(?:multiple|several)\s+times\b"
    r"|\bthis\s+flag\s+can\s+be\s+repeated",
    re.IGNORECASE,
)
_YARGS_TYPE = re.compile(r"\[(boolean|string|number|array|count)\]")
_LIST_ITEM = re.compile(r"^[-*•]\s+([^\s:]+):?(?:\s|$)")

_INTEGER_WORDS = {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
                  "integer", "num", "number", "n", "count", "intslice", "ints", "uintslice",
                  "integer range", "port"}
_NUMBER_WORDS = {"float", "float32", "float64", "float range", "floatslice", "decimal", "ratio"}
_PATH_WORDS = {"path", "file", "filename", "dir", "directory", "filepath", "paths", "files", "dirs", "folder",
               "pathfile", "infile", "outfile", "file_path", "dir_path", "output_file"}
_REPEAT_TYPES = {"stringarray", "strings", "stringslice", "intslice", "ints", "uintslice", "floatslice",
                 "durationslice", "boolslice", "ipslice", "stringtostring", "stringtoint", "stringtoint64"}


@dataclass(frozen=True, slots=True)
class Notes:
    default: str | None
    choices: tuple[str, ...]
    required: bool
    repeatable: bool
    yargs_type: str | None


_CLICK_EXTRA = re.compile(r"\[([^\[\]]*;[^\[\]]*)\]")


def read_notes(lines: list[str]) -> Notes:
    text = " ".join(line.strip() for line in lines if line.strip())
    # click joins its notes in one bracket: "[env var: X; default: 3; required]".
    text = _CLICK_EXTRA.sub(lambda m: " ".join(f"[{part.strip()}]" for part in m.group(1).split(";")), text)
    default = None
    for pattern in _DEFAULT:
        found = pattern.search(text)
        if found:
            default = unquote(found.group(1).strip())
            if len(default.split()) > 3 and default[:1] not in "\"'":
                default = None  # prose in parentheses, not a value
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
    return Notes(
        default=default if default not in ("", "None") else None,  # typer prints "[default: None]"
        choices=choices,
        required=bool(_REQUIRED.search(text)),
        repeatable=bool(_REPEAT.search(text)) or "array" in yargs or "count" in yargs,
        yargs_type=yargs[-1] if yargs else None,
    )


def _listed_values(lines: list[str]) -> tuple[str, ...]:
    """clap's long help: "Possible values:" then one "- name: what it does" line each."""
    values: list[str] = []
    listing = False
    for line in lines:
        stripped = line.strip()
        if stripped.lower().rstrip(":") in ("possible values", "values", "choices"):
            listing = True
            continue
        if listing:
            item = _LIST_ITEM.match(stripped)
            if item:
                values.append(item.group(1))
            elif stripped and values and not line.startswith(" ") and not stripped.startswith("["):
                break
    return tuple(values)


def unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    return text


def split_choices(text: str) -> tuple[str, ...]:
    parts = re.split(r"\s*[,|]\s*", text.strip())
    return tuple(unquote(p) for p in parts if unquote(p))


def strip_brackets(value: str) -> str:
    value = value.strip()
    if re.fullmatch(r"(?:<[^<>]+>\s*)+\.{0,3}", value) and value.count("<") > 1:  # "<VAR> <MIN> <MAX>"
        return " ".join(re.findall(r"<([^<>]+)>", value))
    value = re.sub(r"\s*\[[^\]]*\.\.\.\]$", "", value)  # argparse "FOO [FOO ...]"
    value = value.rstrip(".").strip()
    while len(value) >= 2 and value[0] + value[-1] in ("<>", "[]", "()"):
        value = value[1:-1].strip().rstrip(".")
    return value.lstrip("=")


def value_choices(value: str, *, angle: bool = False) -> tuple[str, ...]:
    """Choices written in the value itself: argparse "{a,b}", click "[a|b|c]", "<a|b>"."""
    value = value.strip().rstrip(".")
    inner = None
    if value.startswith("{") and value.endswith("}"):
        inner = value[1:-1]
        return split_choices(inner) if "," in inner or "|" in inner else ()
    if (value[:1] == "[" or (angle and value[:1] == "<")) and value[-1:] in "]>" and "|" in value:
        inner = value[1:-1]
        parts = split_choices(inner)
        if all(re.fullmatch(r"[\w.+-]+", p) for p in parts):
            return parts
    return ()


def value_type(value_name: str | None, raw_value: str | None) -> str:
    word = (value_name or "").strip().lower().replace("-", "_")
    last = re.split(r"[\s/=:]+", word)[-1] if word else ""
    for candidate in (word, last):
        if candidate in _INTEGER_WORDS:
            return "integer"
        if candidate in _NUMBER_WORDS:
            return "number"
        if candidate in _PATH_WORDS or candidate.endswith(("_file", "_path", "_dir")):
            return "path"
    return "string"


def is_repeat_type(raw_value: str | None) -> bool:
    return raw_value is not None and raw_value.strip().lower() in _REPEAT_TYPES
