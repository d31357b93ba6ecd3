"""The shape of a help text: usage lines, headed sections, and indented entries.

Every dialect prints the same skeleton (a heading, then entries whose description
sits in a column to the right and wraps below), so this is shared; dialects only
differ in the words they use. Everything here is a single pass over the lines.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from .brackets import outside_brackets
from .kept import compiled
from .records import TYPE_CHECKING, NamedTuple
from .translations import OR_WORDS, USAGE_WORDS

if TYPE_CHECKING:
    from typing import Literal

    SectionKind = Literal["usage", "options", "positionals", "commands", "text", "untitled"]

StartTest = Callable[[str], bool]

_HEADING_COLON = compiled(r"^[A-Za-z][\w /&()'.,+-]{0,48}:$")
_HEADING_CAPS = compiled(r"^[A-Z][A-Z0-9 /&_-]{1,40}$")
# A few words before a colon at the start of a line: "Usage:", "Utilisation :", "用法：",
# "Modo de empleo:", Go's "Usage of prog:". Whether they say "usage" is looked up in
# USAGE_WORDS: one pattern naming all the translations took ten times as long on every line.
_LINE_HEAD = compiled(r"^\s{0,4}([^\s:：-][^:：\n]{0,24}?)(?: of ([^:]*))?\s*[:：]\s*(.*)$")
_USAGE_WORD_SET = frozenset(USAGE_WORDS)
_OR_WORD_SET = frozenset(OR_WORDS)
# The start of a further usage form: "  or:  cp [OPTION]... SOURCE... DIRECTORY", "  oder: cp ...".
_OR_HEAD = compiled(r"^([^:：]{1,12}?)\s*[:：]\s*")
# A flag at the start of an entry: "-a", "--all", "-?", typer's required star "* --name".
FLAG_START = compiled(r"^(?:\*\s+)?(?:-{1,2}[A-Za-z0-9?#@_]|--\[no-?\])")

# Headings of prose, matched at the start of a word: "Reporting bugs" and "Examples" are prose,
# pytest's option groups "Reporting" and "test session debugging and configuration" are not.
# Short words must end there: tar's "Informative output" and iconv's "Information" list options.
_TEXT_TITLE = compiled(r"\b(?:example|environment|exit status|learn more|see also|notes?\b|description|author|bug|"
                         r"feedback|help topic|more info|alias(?:es)?\b|copyright|license|homepage|documentation|"
                         r"returns?\b|exit code|tips?\b|hints?\b|info\b)")


class Section(NamedTuple):
    title: str
    kind: SectionKind
    lines: list[str]  # filled as the text is read


class HelpEntry(NamedTuple):
    """One item of a list: its head ("-n, --lines NUM") and its description lines."""

    head: str
    description: list[str]
    indent: int
    # The head's line had no gap of two spaces: what it says after the names may be the
    # description, one space on (valgrind's "--max-stackframe=<number> assume stack switch ...").
    gapless: bool = False


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def usage_line(line: str) -> tuple[str | None, str] | None:
    """For a usage line ("Usage: ls [OPTION]...", "Aufruf: ls ...", "Usage of prog:"): the
    program named after "of" (Go) and the text after the colon."""
    found = _LINE_HEAD.match(line) if ":" in line or "：" in line else None
    if found is None or _words(found.group(1)) not in _USAGE_WORD_SET:
        heading = _USAGE_HEADING_BESIDE.match(line) if "USAGE" in line else None
        return None if heading is None else (None, heading.group(1))
    return found.group(2), found.group(3)


# citty's usage beside its heading, without a colon: "USAGE citty1 add [OPTIONS] <NAME> [URL]"
# (it was no usage: the operands' order and which are optional were lost). A program's name,
# in small letters, then brackets or an option: not a heading such as "USAGE NOTES", nor a line in
# capitals ("USAGE OF THIS TOOL IS AT YOUR OWN RISK - see <https://...>").
_USAGE_HEADING_BESIDE = compiled(r"^\s{0,4}USAGE[ \t]+([a-z0-9][\w./-]*[ \t][^\n]*?[\[<-][^\n]*)$")


def _further_form(line: str) -> int | None:
    """Where the next usage form starts in a line that opens with "or:" (in any language), or None."""
    found = _OR_HEAD.match(line)
    return found.end() if found is not None and _words(found.group(1)) in _OR_WORD_SET else None


def _further_form_without_colon(line: str, program: str) -> int | None:
    """Where the next usage form starts in a line that opens with "or" and no colon, then the
    program's name: rsync's "  or   rsync [OPTION]... SRC [SRC]... [USER@]HOST:DEST" (its "or"
    was read as an operand every form needed, and "rsync SRC DEST" could not be asked for)."""
    word, _, rest = line.partition(" ")
    rest = rest.lstrip()
    if word.lower() not in _OR_WORD_SET or rest.split(" ", 1)[0] != program:
        return None
    return len(line) - len(rest)


# A heading about using the program rather than its usage line: "Usage notes", "Usage examples".
_ABOUT_USE = compiled(r"^usage\b.*\b(?:notes?|examples?|tips?|information|info|details|hints?)\b")


def section_kind(title: str) -> SectionKind:
    lower = title.lower()
    if (lower.startswith("usage") or _words(lower) in _USAGE_WORD_SET) and not _ABOUT_USE.search(lower):
        return "usage"  # "SYNOPSIS", "Aufruf"; not "USAGE NOTES", which is prose
    if "command" in lower or lower == "topics":  # oclif lists its topics (commands of commands) apart
        return "commands"
    if "positional" in lower or lower in ("args", "arguments", "argument", "positionals", "parameters"):
        return "positionals"
    if _TEXT_TITLE.search(lower) and not re.search(r"\b(?:options|flags)$", lower):  # not "Environment options"
        return "text"
    return "options"


# A sentence that introduces a list of commands, as git's "These are common Git commands used in
# various situations:" does: a heading, however long.
_COMMANDS_INTRODUCED = compiled(r"^(?:these are|the following|the most|here are|available|common)\b.*\bcommands\b.*:$",
                                re.IGNORECASE)


# A title between rules: tree's "  ------- Listing options -------" (read as the usage's next
# line, its words were an operand every call needed).
_BANNER = compiled(r"[-=]{3,}[ \t]+(\S(?:.*\S)?)[ \t]+[-=]{3,}")


def heading_title(line: str) -> str | None:
    """The title if ``line`` is a section heading ("Options:", "FLAGS", "Global Flags:")."""
    if indent_of(line) > 3:
        return None
    content = line.strip()
    if (banner := _BANNER.fullmatch(content)) is not None:
        return banner.group(1)
    if not content or content.startswith("-"):
        return None
    if (_HEADING_COLON.match(content) and len(content.split()) <= 6) or \
            (len(content) <= 100 and _COMMANDS_INTRODUCED.match(content)):
        return content[:-1].strip()
    if indent_of(line) == 0 and _HEADING_CAPS.match(content) and len(content.split()) <= 4 \
            and any(c.isalpha() for c in content):
        return content
    return None


_BOX_BOTTOM = compiled(r"^\s*[╰└+][─\-]+[╯┘+]\s*$")


def _box_title(line: str) -> str | None:
    """The title of a panel's top border ("╭─ Options ──────╮"), "" where it has none; None for
    a line that is not one. Read by trimming, where a pattern shared a run of spaces in the
    border out between the title and the border's ends in every way (cubic: 2,000 spaces 28 s)."""
    border = line.strip()
    if len(border) < 3 or border[0] not in "╭┌+" or border[1] not in "─-" or border[-1] not in "╮┐+":
        return None
    return border[1:-1].strip("─-").strip()


def unbox(lines: list[str]) -> list[str]:
    """Turns rich panels (typer) into plain headed sections, keeping inner indentation."""
    if not any(line.lstrip().startswith(("╭", "│", "┌")) for line in lines):
        return lines
    out: list[str] = []
    for line in lines:
        title = _box_title(line)
        if title is not None and ("╭" in line or "┌" in line):
            out.append(f"{title or 'Options'}:")
            continue
        if _BOX_BOTTOM.match(line) and ("╰" in line or "└" in line):
            out.append("")
            continue
        stripped = line.lstrip()
        if stripped.startswith(("│", "┃")):
            inner = stripped[1:]
            if inner.rstrip().endswith(("│", "┃")):
                inner = inner.rstrip()[:-1]
            # typer marks required parameters with a star; "[required]" in the text says it too.
            out.append(" " + re.sub(r"^(\s*)\*(?=\s)", r"\1 ", inner.rstrip()))
            continue
        out.append(line)
    return out


class Layout(NamedTuple):
    usage: list[str]  # one string per usage alternative, continuation lines joined
    sections: list[Section]


# An option entry written whole in brackets, its names apart by "|" (binutils' c++filt:
# "  [-n|--no-strip-underscore]  Do not ignore ...", "  [-s|--format {none,auto}]").
_BRACKETED_ENTRY = compiled(r"( +)[\[\]](-[^\s|\[\]]+)\|(--[^\s|\[\]]+)( [^\[\]]+)?\]((?:\s{2,}\S.*)?)")


def _unbracketed(line: str) -> str:
    """An entry written in brackets as a plain one: "  -n, --no-strip-underscore  Do not ..."."""
    found = _BRACKETED_ENTRY.fullmatch(line)
    if found is None:
        return line
    indent, short, long, value, rest = found.groups()
    head = f"{indent}{short}, {long}{value or ''}"
    if not rest:
        return head
    described_at = len(line) - len(rest.lstrip())  # kept, for the lines that continue it
    return head + " " * max(2, described_at - len(head)) + rest.lstrip()


def split_sections(text: str) -> Layout:
    lines = [_unbracketed(line) for line in unbox(text.split("\n"))]
    usage: list[str] = []
    sections: list[Section] = [Section("", "untitled", [])]
    marks: list[tuple[int, int]] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        found = usage_line(line)
        if found is not None and not FLAG_START.match(line.strip()):
            i = _read_usage(lines, i, found, usage)
            sections.append(Section("", "untitled", []))
            continue
        if not usage and (trailing := _usage_after_sentence(line)) is not None:
            # "This is the GNU debugger.  Usage:" over the forms (gdb; zip after its version)
            sections[-1].lines.append(trailing)
            i = _read_usage_after_sentence(lines, i + 1, usage)
            sections.append(Section("", "untitled", []))
            continue
        title = heading_title(line) or _plain_title(lines, i)
        underlined = title is None and (title := _underlined_title(lines, i)) is not None
        if underlined:
            i += 1  # past its underline
        if title is None and _heading_shaped(lines, i):
            if not marks:  # once, at the first line shaped like a bare heading: most helps have none
                marks.append(_option_and_heading_marks(lines))
            title = _bare_heading(lines, i, *marks[0])
        if title is not None and i > 0 and _continues_sentence(lines[i - 1], line, title):
            title = None  # "...for example '-foo',\nuse one of these commands:" is prose
        if title is not None:
            kind = section_kind(title)
            if kind == "usage" and underlined and not indent_of(_next_line_with_text(lines, i + 1)):
                kind = "text"  # a document's "Usage" over prose (nbstripout's epilog), not a synopsis
            if kind == "usage" and usage and _next_line_with_text(lines, i + 1).startswith("$ "):
                kind = "text"  # an example after its prompt under a second "Usage", the usage read already
            sections.append(Section(title, kind, []))
            if kind == "usage":
                i = _read_usage_block(lines, i + 1, usage)
                sections.append(Section("", "untitled", []))
                continue
        else:
            sections[-1].lines.append(line)
        i += 1
    kept = [_options_if_listed(s) for s in sections if s.title or any(x.strip() for x in s.lines)]
    return Layout(usage, kept)


_BARE_HEADING = compiled(r"^[A-Za-z][\w /&()\[\],'+-]{0,64}$")
# Titles a help may write as a word alone, capitalised, over lines indented deeper (Node's meow:
# "  Usage", "    $ nanoid [options]", "  Options", ...).
_PLAIN_TITLES = frozenset({"usage", "options", "examples", "commands", "arguments", "flags", "description",
                           "available commands"})  # sade's


def _plain_title(lines: list[str], i: int) -> str | None:
    """The title of a heading written as one of those words alone, over lines indented deeper,
    after a blank line or not (cmake: "Usage", a blank line, "  cmake [options] <path-to-source>")."""
    content = lines[i].strip()
    if content.lower() not in _PLAIN_TITLES or not content[0].isupper() or indent_of(lines[i]) > 3:
        return None
    following = _next_line_with_text(lines, i + 1)
    if following and content.lower() == "usage" and following.startswith("$ "):
        return content  # clipanion's form after a prompt, at the margin
    return content if following and indent_of(following) > indent_of(lines[i]) else None


# A line drawn across a help ("=====", "-----", "*****"): under a title, as reStructuredText
# writes headings (docutils' "Usage" over "====="), or between parts (binaryen's tools).
DRAWN_LINE = compiled(r"([=*_~#+-])\1{2,}")


def _underlined_title(lines: list[str], i: int) -> str | None:
    """A title over a line of "=" or "-" about as long as itself (docutils' tools)."""
    content = lines[i].strip()
    if not content or indent_of(lines[i]) > 3 or i + 1 >= len(lines) or len(content.split()) > 6 \
            or content.startswith("-"):
        return None
    under = lines[i + 1].strip()
    underlined = DRAWN_LINE.fullmatch(under) is not None and under[0] in "=-" and abs(len(under) - len(content)) <= 2
    return content.rstrip(":") if underlined else None


def _next_line_with_text(lines: list[str], i: int) -> str:
    """The first line from ``i`` on that is not blank ("" if none is)."""
    return next((line for line in lines[i:] if line.strip()), "")


def _without_description(form: str) -> str:
    """A usage form without the sentence a help writes beside it, two spaces or more away
    ("yaml cst      Parse the CST of a YAML stream", "rarp -d <hostname>    delete entry from
    cache."), or after " - " in GLib's way."""
    for gap in itertools.islice(_GAP.finditer(form), _GAPS_TRIED):
        if _is_prose(form[gap.end():]):
            return form[:gap.start()]
    return _without_summary(form)


def _without_summary(form: str) -> str:
    """A usage form without the summary GLib's GOption writes after it, past " - " (the one
    given to ``g_option_context_new``: "gopt2 [OPTION…] - test tree model performance"): its
    words were read as four operands every call had to give. Only after GOption's own
    "[OPTION…]": elsewhere a lone "-" is standard input."""
    head, dash, summary = form.partition(" - ")
    if dash and _GOPTION_OPTIONS.search(head) and summary.strip() and not _USAGE_MARKS.search(summary):
        return head.rstrip()
    return form


# "…" in a UTF-8 locale, "?" in C's (which a guest without LANG runs in), "..." in older GLib.
_GOPTION_OPTIONS = compiled(r"\[OPTION(?:…|\.\.\.|\?)\]")
_USAGE_MARKS = compiled(r"[\[\]<>{}|]|(?<!\S)-")


_GAP = compiled(r"\s{2,}")
# A form's gaps looked at for a description after them: a long synopsis aligns its groups with
# a few, and a description comes after the first few.
_GAPS_TRIED = 8


def _without_prompt(form: str) -> str:
    """A usage form without the shell's prompt it is written after ("$ vite [root]", as Node's
    cac and meow print theirs)."""
    return form[2:].lstrip() if form.startswith("$ ") else form


def _bare_heading(lines: list[str], i: int, first_option: int, last_heading: int) -> str | None:
    """A heading written without a colon or capitals, as git's option groups are ("Commit
    message options"): a line ``_heading_shaped``, with options listed before it or another
    heading after it (git config's first group, "Config file location", comes before any
    option). The words under a usage line, over the options of a text with no other heading,
    are the program's own ("Inspect compiler options"). ``first_option`` and ``last_heading``:
    where the first indented option and the last heading of any kind are (see
    ``_option_and_heading_marks``), found once for the text, not once for each line."""
    return lines[i].rstrip() if first_option < i or last_heading > i + 1 else None


def _option_and_heading_marks(lines: list[str]) -> tuple[int, int]:
    """(the index of the first indented option line, or past the end; the index of the last
    heading of options, with a colon, in capitals or bare, or -1)."""
    first_option = next((j for j, line in enumerate(lines) if _is_option_line(line)), len(lines))
    # Headings of options only: an "Examples:" or "Commands:" after the options says nothing of
    # the words over them ("Count words in files" stays the program's about).
    last_heading = next((j for j in range(len(lines) - 1, -1, -1)
                         if _heading_shaped(lines, j) or (heading_title(lines[j]) is not None and j + 1 < len(lines)
                                                          and _is_option_line(lines[j + 1]))), -1)
    return first_option, last_heading


def _is_option_line(line: str) -> bool:
    return bool(indent_of(line)) and FLAG_START.match(line.strip()) is not None


def _heading_shaped(lines: list[str], i: int) -> bool:
    """A few words alone at the margin after a blank line, an option indented right under them."""
    line = lines[i]
    if i == 0 or indent_of(line) or i + 1 >= len(lines) or lines[i - 1].strip():
        return False
    content = line.rstrip()
    following = lines[i + 1]
    return bool(_BARE_HEADING.match(content)) and len(content.split()) <= 8 and bool(indent_of(following)) \
        and bool(FLAG_START.match(following.strip()))


def _continues_sentence(previous: str, line: str, title: str) -> bool:
    """A lower-case "heading" right under a line of prose at its indent that has not ended
    (a comma, or a word) goes on with that sentence."""
    before = previous.rstrip()
    return (title[:1].islower() and bool(before) and indent_of(previous) == indent_of(line)
            and (before[-1] in ",;" or before[-1].isalpha()) and usage_line(previous) is None)


def _options_if_listed(section: Section) -> Section:
    """A section titled as prose whose entries are options is an option list all the same
    (a heading that names no kind, such as "Output:", already is one)."""
    if section.kind != "text":
        return section
    entries = [line for line in section.lines if line.strip()]
    if not entries:
        return section
    outer = min(indent_of(line) for line in entries)
    heads = [line for line in entries if indent_of(line) == outer]
    flags = sum(1 for line in heads if FLAG_START.match(line.strip()) and split_head(line.strip())[1])
    if flags >= 2 and 2 * flags > len(heads):
        return Section(section.title, "options", section.lines)
    return section


def _read_usage(lines: list[str], i: int, found: tuple[str | None, str], usage: list[str]) -> int:
    program, rest = found[0], found[1].strip()
    if program is not None:  # Go's "Usage of prog:"
        # A custom flag.Usage often keeps the header and writes the synopsis under it
        # ("  prog [flags] INPUT..."): its operands are the tool's positionals.
        name, forms = program.strip(), []
        while i + 1 < len(lines) and indent_of(lines[i + 1]) > 0 and lines[i + 1].split()[:1] == [name]:
            i += 1
            forms.append(lines[i].split(" # ", 1)[0].strip())  # "files... # Must be a single package"
        usage.extend(forms or [name])
        return i + 1
    if not rest:
        return _read_usage_block(lines, i + 1, usage)
    base = indent_of(lines[i])
    current = _without_description(_without_prompt(rest))
    # Where the program's name starts, and the name: among forms written one under another, a
    # form of another program at that column ("usage: ln ..." and "       ln ...", then
    # "       link source_file target_file": FreeBSD's ln and link share a manual) is no part
    # of this program's usage.
    program_name = current.split()[0] if current.split() else ""
    program_column = lines[i].find(program_name) if program_name else -1
    forms_aligned = False  # a further form written under the first, the program's name at that column
    i += 1
    while i < len(lines) and lines[i].strip():
        more = lines[i].strip()
        if program_column > base and indent_of(lines[i]) == program_column:
            if more.split()[0] == program_name:
                forms_aligned = True
            elif forms_aligned and _OTHER_PROGRAM.match(more):  # not an operand wrapped there (badblocks' "device")
                i += 1
                continue
        # A further form may start at the margin ("または: cp ...") or after an ideographic
        # space ("　或：cp ..."), which is no indent to indent_of.
        further = _further_form(more)
        if further is None and program_name:
            further = _further_form_without_colon(more, program_name)
        wrapped = indent_of(lines[i]) <= base and _BRACKETED_ONLY.match(more) is not None
        if further is None and not wrapped and (indent_of(lines[i]) <= base or heading_title(lines[i]) is not None):
            break
        if further is not None:
            usage.append(current)
            current = more[further:].strip()
        elif FLAG_START.match(more) and (indent_of(lines[i]) <= base + 4 or _described(more)):
            break  # an option list right under the usage line (no blank line between)
        elif _is_prose(more):
            break  # prose right under the usage line ("Default action is to extract ...")
        elif _COLUMN_COLON.match(more):
            break  # args4j's list right under the usage line: " DIR      : directory to search"
        else:
            current += " " + _without_description(more)
        i += 1
    usage.append(current)
    return i


# An item, a gap, then a colon before what it is: args4j's lists ("DIR    : directory to search").
_COLUMN_COLON = compiled(r"\S+(?: \S+)*?\s{2,}:\s+\S")
# A form of a program named by a plain word, its operands after it ("link source_file target_file").
_OTHER_PROGRAM = compiled(r"[a-z][a-z0-9_-]*\s+\S")
# The rest of a usage line wrapped to the margin: bracketed words only ("[fichier-d'entrée]...",
# sed in French, whose translation is longer than the line).
_BRACKETED_ONLY = compiled(r"^[\[{<][^\s\[\]{}<>]+[\]}>](?:\.\.\.|…)?(?:\s+[\[{<][^\s\[\]{}<>]+[\]}>](?:\.\.\.|…)?)*$")
_PLAIN_WORD = compiled(r"[A-Za-z][a-z]*[,.;:]?$")


def _described(line: str) -> bool:
    """An option followed by words of a description, as curl prints its list ("--anyauth
    Pick any authentication method", one space apart), rather than by more usage."""
    head, description = split_head(line)
    if description:
        return True
    words = line.split()[1:]
    if words and (words[0].startswith(("<", "[", "{")) or words[0].isupper()):
        words = words[1:]  # the option's value
    return len(words) >= 2 and all(_PLAIN_WORD.match(word) for word in words[:2])


def _is_sentence(line: str) -> bool:
    """A line of prose: a capitalised word, then mostly lower-case words."""
    words = line.split()
    if len(words) < 4 or not (words[0][:1].isupper() and words[0][1:].islower() and words[0].isalpha()):
        return False
    return sum(1 for word in words[1:6] if word.rstrip(",.;:").isalpha() and word.islower()) >= 3


# A word of prose: no bracket, angle bracket, brace or leading dash, which a synopsis writes.
# (Its last marks exclude "." so that no two parts can take the same dots: a word of many dots
# and a mark would be tried every way, a quadratic time.)
_PROSE_WORD = compiled(r"\(?[\w.'’/]+(?:-[\w.'’/]+)*[,;:!?)]*")
_FUNCTION_WORDS = frozenset({"a", "an", "the", "to", "of", "for", "and", "or", "in", "on", "from", "with", "this",
                             "that", "all", "its", "by", "into", "is"})


def _is_lowercase_sentence(line: str) -> bool:
    """A line of prose that starts in lower case, as a description under or beside a usage
    form often does ("the default action is to encrypt ...", "to connect to running process
    and print ...", "read convrtrs.txt and create ..."): a lower-case word, then words of prose
    with a function word among them, or ending in a full stop ("display program version.").
    "file1 file2", "source_file ... target_dir" are no prose."""
    words = line.split()
    if len(words) < 2 or not words[0].isalpha() or not words[0].islower() \
            or not all(_PROSE_WORD.fullmatch(word) for word in words):
        return False
    full_stop = words[-1].endswith(".") and not words[-1].endswith("..")
    return full_stop or (len(words) >= 3 and any(word.rstrip(",.;:!?").lower() in _FUNCTION_WORDS
                                                 for word in words[1:]))


def _is_prose(line: str) -> bool:
    return _is_sentence(line.strip()) or _is_lowercase_sentence(line)


_SENTENCE_THEN_WORD = compiled(r"(\S.*?[.!])\s+(\w+)\s*[:：]\s*")


def _usage_after_sentence(line: str) -> str | None:
    """The sentence of a first line that ends its sentence with "Usage:", at the margin."""
    found = _SENTENCE_THEN_WORD.fullmatch(line) if not indent_of(line) else None
    return found.group(1) if found is not None and _words(found.group(2)) in _USAGE_WORD_SET else None


def _read_usage_after_sentence(lines: list[str], i: int, usage: list[str]) -> int:
    """The forms under a sentence that ends in "Usage:": indented lines as under a heading, or
    the one line at the margin (zip's, whose indented lines after it are prose)."""
    k = i
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k < len(lines) and not indent_of(lines[k]):
        usage.append(_without_description(_without_prompt(lines[k].strip())))
        return k + 1
    return _read_usage_block(lines, i, usage)


def _read_usage_block(lines: list[str], i: int, usage: list[str]) -> int:
    """Usage alternatives on their own indented lines under a "Usage:" / "USAGE" heading."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    base = None
    # A form after a shell's prompt may start at the margin (clipanion: "$ clip1 remote add <name> <url>").
    while i < len(lines) and lines[i].strip() \
            and (indent_of(lines[i]) > 0 or _further_form(lines[i].strip()) is not None or lines[i].startswith("$ ")):
        line = lines[i]
        content = line.strip()
        further = _further_form(content)
        if base is None or indent_of(line) <= base or further is not None:
            base = indent_of(line) if base is None else base
            usage.append(_without_description(_without_prompt(content[further:].strip() if further is not None
                                                              else content)))
        elif not _is_prose(content):  # not what a form does ("to connect to running process and ...", jmap)
            usage[-1] += " " + _without_description(content)
        i += 1
    return i


_COLON_SEPARATED = compiled(r"(-\S+(?: \w+)?)\s+:\s+(.*)")
# Shell scripts' "-n: show what would be done", "-d DIR: copy into DIR": a colon ends the head.
_COLON_AFTER = compiled(r"(-{1,2}[A-Za-z0-9?][\w-]*(?: (?:[A-Z][\w-]*|<[\w-]+>|\[[\w-]+\]))?):\s+(\S.*)")


def split_head(content: str) -> tuple[str, str]:
    """Splits "-n, --lines NUM   print NUM lines" at the first gap of two spaces outside brackets
    (not one after a comma: ucf's "-h,     --help     print this message");
    Python's own "-c cmd : program passed in as string", and "-n: show what ..." at the colon."""
    if (colon := _COLON_SEPARATED.fullmatch(content) or _COLON_AFTER.fullmatch(content)) is not None:
        return colon.group(1), colon.group(2)
    last = ""  # the last character before k that is not a space, brackets' insides included
    read_to = 0  # how far the head has been read for it (each part once: linear)
    for k, ch in outside_brackets(content):
        if ch == " " and content.startswith(" ", k + 1):
            last = content[read_to:k].rstrip(" ")[-1:] or last
            read_to = k
            if last != ",":
                return content[:k], content[k:].strip()
    return content, ""


# A name in a column of its own after an option's head, with its value if any, followed by a
# gap or the line's end: "--head LINES   Display…", "--strip=NUM  Strip ...", "--list".
NAME_COLUMN = compiled(r"(--?[\w-]+(?:=\S+| (?:[A-Z][\w,.-]*|<[^<>]*>))?)(?:\s{2,}|$)")


# An option that starts a table's second column: "... only changed files  -u   update: ...".
_SECOND_OPTION = compiled(r"(?<=\s)-{1,2}[A-Za-z0-9@?][\w-]*(?=(\s+)\S)")
# Rows that start a second option at one column before a table counts as two columns.
_TABLE_ROWS = 3


def _one_option_a_row(lines: list[str]) -> list[str]:
    """Lines with each row of a two-column option table (Info-ZIP's zip and unzip print
    ``-f   freshen: ...   -u   update: ...``) made two rows, the second at the first's indent.
    A column counts where at least ``_TABLE_ROWS`` option rows start an option there, two spaces
    or more after their text and before its own; where the text fills the column ("(-FF try
    harder) -D") or the name does ("-aa treat ALL files as text"), one space is enough."""
    columns: dict[int, int] = {}
    for line in lines:
        if FLAG_START.match(line.lstrip()):
            for column in _second_option_columns(line, least_gap=2):
                columns[column] = columns.get(column, 0) + 1
    table = {column for column, rows in columns.items() if rows >= _TABLE_ROWS}
    if not table:
        return lines
    rows: list[str] = []
    for line in lines:
        split = min((c for c in _second_option_columns(line, least_gap=1) if c in table), default=None) \
            if FLAG_START.match(line.lstrip()) else None
        if split is None:
            rows.append(line)
        else:
            rows.extend((line[:split].rstrip(), " " * indent_of(line) + line[split:]))
    return rows


def _second_option_columns(line: str, least_gap: int) -> list[int]:
    """Columns past the row's own option and text at which an option starts, ``least_gap``
    spaces or more after text and before what it says (the name filling its column aside)."""
    start = indent_of(line)
    head_end = line.find(" ", start)
    found = []
    said = False  # whether words so far say what the row's own option does
    read_to = head_end  # how far the row has been read for those words (each part once: linear)
    for match in _SECOND_OPTION.finditer(line, head_end if head_end > 0 else len(line)):
        column = match.start()
        gap_start = column
        while gap_start > 0 and line[gap_start - 1].isspace():
            gap_start -= 1
        # What the row's own option does, in words: less's "-e  -E  ....  --quit-at-eof" is one
        # option spelt three ways, not two options.
        if not said:
            said = any(not word.startswith("-") and sum(ch.isalpha() for ch in word) >= 2
                       for word in line[read_to:column].split())
            read_to = column
        if column - gap_start >= least_gap and said and len(match.group(1)) >= least_gap:
            found.append(column)
    return found


def read_entries(lines: list[str], is_start: StartTest) -> tuple[list[HelpEntry], list[str]]:
    """Groups lines into entries and loose prose.

    An entry continues while lines are indented deeper than its head and, once its
    description column is known, until a new head starts left of that column (cobra
    and clap print short-less options further right than the others). Two-column option
    tables are read a row an option (``_one_option_a_row``).
    """
    lines = _one_option_a_row(lines)
    entries: list[HelpEntry] = []
    prose: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            prose.append("")
            i += 1
            continue
        if not is_start(line):
            prose.append(line.strip())
            i += 1
            continue
        base = indent_of(line)
        head, first = split_head(line.strip())
        names = head
        # A head that ends in a comma goes on on the next line ("--color[=WHEN]," then
        # "--colour[=WHEN]  use markers ...", grep's): one option under both names, where the first
        # was read as an option of its own with no description and no choices.
        while not first and head.endswith(",") and i + 1 < n and indent_of(lines[i + 1]) == base \
                and is_start(lines[i + 1]):
            i += 1
            line = lines[i]
            names, first = split_head(line.strip())
            head = f"{head} {names}"
        desc_col = (line.index(first, base + len(names)) if first else None)
        # "-h  --head LINES   Display…" (rich's panels), "-c  --format=FORMAT   use ..." (stat):
        # the long name is a column of the head, so the description starts further right, and
        # "    --rst" below is a new option; where the long name ends the line ("-l    --list",
        # jdeprscan), where the description starts is not known yet.
        if first and (column := NAME_COLUMN.match(first)):
            desc_col = (desc_col or 0) + column.end() if column.end() < len(first) else None
        description = [first] if first else []
        i += 1
        while i < n:
            nxt = lines[i]
            if not nxt.strip():
                k = i
                while k < n and not lines[k].strip():
                    k += 1
                deeper = k < n and indent_of(lines[k]) > base + 2
                if deeper and _continues(lines[k], base, desc_col, is_start):
                    description.extend([""] * (k - i))
                    i = k
                    continue
                break
            if not _continues(nxt, base, desc_col, is_start):
                break
            if desc_col is None:
                desc_col = indent_of(nxt)
            description.append(nxt.strip())
            i += 1
        entries.append(HelpEntry(head, description, base, gapless=not first))
    return entries, prose


def _continues(line: str, base: int, desc_col: int | None, is_start: StartTest) -> bool:
    ind = indent_of(line)
    if ind <= base or heading_title(line) is not None:
        return False
    if is_start(line):
        limit = desc_col if desc_col is not None else base + 7
        return ind >= limit
    return True

