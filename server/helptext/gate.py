"""Is this a help text at all? Each refusal is one line a person can act on.

Help has structure: a usage line, an option entry, or a list heading. A banner,
a log line, an error message or random bytes has none of it (or says "error").
"""

from __future__ import annotations

import re
import unicodedata

from toolbay.errors import NotHelpError

from .kept import compiled
from .model import HelpDescription
from .translations import USAGE_WORDS, alternation

# A line's indent is read as "[^\S\n]*", not "\s*", which would run on across empty lines,
# from each of them to the end of their run: quadratic in a help with thousands of them.
_STRUCTURE = compiled(
    rf"^\s{{0,4}}(?:{alternation(USAGE_WORDS)})(?: of \S+)?\s*[:：]"
    r"|^[^\S\n]*(?:\*\s+)?-{1,2}[A-Za-z0-9?][\w-]*(?:[ =,\[<]\S*)*(?:\s{2,}\S|$)"
    r"|^\s{0,3}(?:options|flags|commands|arguments|available commands|positional arguments|subcommands|synopsis"
    r"|topics)"
    r"\s*:?\s*$"
    r"|^[^\S\n]*[╭┌]─ (?:Options|Arguments|Commands)",
    re.IGNORECASE | re.MULTILINE,
)
# A line of "ls -l": a file's type and permissions ("-rwxr-xr-x", "-rw-r--r--."), its link count,
# which opens like an option and its value ("-rwxr-xr-x  1 root root ...").
_LISTED_FILE = compiled(r"[^\S\n]*-[r-][w-][xsS-][r-][w-][xsS-][r-][w-][xtT-][.+@]?\s+\d")
_ERROR_LINE = compiled(r"^(?:error|fatal|panic)(?:\[\w+\])?:", re.IGNORECASE | re.MULTILINE)
_MAX_ODD_SHARE = 0.05
# The arguments a help run gives a program, as a program that echoes them prints them back.
_HELP_FLAGS = frozenset({"-h", "--help", "-help", "-?", "help"})
_COMMAND_WORD = compiled(r"[A-Za-z0-9][\w.-]*")


def check_text(text: str, had_errors: bool) -> None:
    """Raises ``NotHelpError`` for text that cannot be help, before any parsing."""
    content = text.strip()
    if not content:
        raise NotHelpError("the output is empty")
    words = content.split()
    # "help" without a dash after more than one word is prose ("not a help"), not arguments.
    if len(words) <= 4 and "\n" not in content and words[-1] in _HELP_FLAGS \
            and (words[-1].startswith("-") or len(words) <= 2) \
            and all(_COMMAND_WORD.fullmatch(word) for word in words[:-1]):
        # "echo --help" prints "--help": read as help, it was a tool of one option, -h.
        raise NotHelpError(f"it printed back the arguments it was given ({content[:80]!r}): it echoes them, "
                           "it has no help to read")
    sample = content[:20000]
    odd = sum(1 for ch in sample if _is_odd(ch))
    if odd / max(1, len(sample)) > _MAX_ODD_SHARE:
        raise NotHelpError("the output is binary data, not text")
    structure = next((found for found in _STRUCTURE.finditer(content) if not _LISTED_FILE.match(found.group(0))), None)
    if structure is None:
        first = content.split("\n", 1)[0][:80]
        if _STRUCTURE.search(content):  # only lines of a listing of files, read as options
            raise NotHelpError(f"the output is a listing of files (ls -l) (output starts {first!r})")
        raise NotHelpError(f"no usage line, option list or command list found (output starts {first!r})")


def check_description(text: str, desc: HelpDescription) -> None:
    """After parsing: an error message that merely quotes the usage line is not help."""
    error = _ERROR_LINE.search(text)
    if error and len(desc.options) <= 1 and not desc.subcommands:
        line = text[error.start():].split("\n", 1)[0][:100]
        raise NotHelpError(f"the program printed an error, not help: {line}")
    if not (desc.options or desc.subcommands or desc.positionals or desc.usage):
        raise NotHelpError("no usage line, option list or command list found")


def _is_odd(ch: str) -> bool:
    if ch in "\n ":
        return False
    if ch == "\ufffd":
        return True
    category = unicodedata.category(ch)
    return category in ("Cc", "Cf", "Co", "Cn", "Cs")
