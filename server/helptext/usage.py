"""What the usage line says that the option list does not: which options and
positionals are required, and which positionals repeat.

An option or positional is required only when it stands outside brackets and
groups in every usage alternative that names any argument ("rg --type-list" needs
no PATTERN, so PATTERN is optional even though "rg [OPTIONS] PATTERN" shows it bare).
"""

from __future__ import annotations

import itertools
import re

from .brackets import outside_brackets
from .heads import tokens_of
from .kept import compiled
from .model import UsageForm
from .translations import OPTION_WORDS

_PLACEHOLDERS = {"options", "option", "flags", "flag", "opts", "global options", "global flags",
                 "option...", "options...", "--", "-", "...", "|", "global-options", "global_options",
                 "optionen", "opciones", "option(s)", "options(s)", "flag(s)", "switches", *OPTION_WORDS}
_COMMAND_WORDS = {"command", "commands", "subcommand", "cmd", "command...", "sub-command"}
_HELPISH = {"-h", "--help", "-V", "--version", "-help", "-?", "help", "--help-all", "-v"}


# Plain classes, filled in as the usage is read (see ``model``'s note on speed).
class UsagePositional:
    __slots__ = ("name", "required", "variadic", "choices", "default")

    def __init__(self, name: str, required: bool, variadic: bool, choices: tuple[str, ...] = (),
                 default: str | None = None) -> None:
        self.name = name
        self.required = required
        self.variadic = variadic
        self.choices = choices
        self.default = default


class UsageFacts:
    __slots__ = ("program", "required_flags", "positionals", "mentions_command", "command_words", "option_values",
                 "exclusive", "together", "positional_forms", "words_after_options", "repeated_flags", "repeated_alone",
                 "operand_words", "listed_operands", "forms_read", "command_path")

    def __init__(self) -> None:
        self.program: str | None = None
        self.required_flags: set[str] = set()
        # Each flag the usage names, in order, with the value it shows ("-d delim", "--price
        # <price>", "--depth=N" as "=N") or None: the only word on options of a help that lists none
        # (BSD's "usage: cut [-nrv] [-d delim] file ..."), or whose list prints no values (argh).
        self.option_values: dict[str, str | None] = {}
        self.positionals: list[UsagePositional] = []
        self.mentions_command = False
        # The first plain word of each alternative ("naval_fate ship new <name>"): docopt's commands.
        self.command_words: list[str] = []
        # Of each alternative, the plain word its options are followed by, where its other
        # positionals are written as arguments ("kvs [-v] get KEY": "get"), else None: the
        # command words of forms that write the program's options first.
        self.words_after_options: list[str | None] = []
        # Flags written as alternatives of one group ("[-v | -q]", "(--moored | --drifting)"), each
        # with the number of usage forms that require it (in parentheses, outside any brackets),
        # then, once every form is read, whether all of them do.
        self.exclusive: dict[tuple[str, ...], int] = {}
        # Each usage form's flags named outside any group of alternatives ("prog -a -b --merge"):
        # two of a group named so in one form are no alternatives.
        self.together: list[set[str]] = []
        # Where the usage's forms take different positionals, or in another order ("seq LAST",
        # "seq FIRST LAST", "seq FIRST INCREMENT LAST"): each form; empty where one order fits all.
        self.positional_forms: list[UsageForm] = []
        # Flags of a group the usage repeats: "[-t <tag>]..." (argtable2), "[-e PATTERN | -f FILE]...".
        self.repeated_flags: set[str] = set()
        # Of those, a flag repeated alone: "[-v]..." (bpaf's, argtable2's counter).
        self.repeated_alone: set[str] = set()
        # Plain words some form writes where no flag comes before them: operands, never a flag's
        # value in another form (e2image's "device" in "-I device image-file").
        self.operand_words: set[str] = set()
        # The operands the help's own list names (``positional_key``): a "<cmd>" among them is an
        # operand, not a subcommand's place (kingpin's "run [<flags>] <cmd> [<args>...]").
        self.listed_operands: frozenset[str] = frozenset()
        # Every plain word the first usage form writes after the program ("prog repo remote"):
        # the command path of a group's help.
        self.command_path: tuple[str, ...] = ()
        # Each form's operands (``positional_key``), up to its command's place if it names one,
        # and whether it does: where the help lists commands, those before the place are the
        # program's own (picocli's "<src> [<dest>...] [COMMAND]"); a form that names no place
        # may be a listed command's ("apt-cache [options] show pkg1") or the command itself
        # (argparse's "{init,run} ..."), and says nothing of the program's own.
        self.forms_read: list[tuple[list[str], bool]] = []


_PROSE_USAGE = compiled(r"^\S+\s+-\s+[A-Z][a-z]+\s+[a-z][^\[\]<>{}|]*$")


def positional_key(name: str) -> str:
    # "+FORMAT" (date's, read after a "+") is the "format" a list names
    return re.sub(r"[<>\[\]{}.]", "", name).strip().lower().replace("-", "_").removeprefix("+")


def _split_forms(alternatives: list[str]) -> list[str]:
    """Usage forms printed one after another without "or:" ("coreutils cp [OPTION]... SOURCE DEST
    coreutils cp [OPTION]... SOURCE... DIRECTORY"), joined when the lines were read: one each."""
    out: list[str] = []
    for alt in alternatives:
        words = alt.split()
        program = words[0] if words else ""
        starts = [k for k, w in enumerate(words) if k and w == program and not words[k - 1].startswith("|")]
        if not program or not starts or program.startswith(("[", "<", "-")):
            out.append(alt)
            continue
        bounds = [0, *starts, len(words)]
        out.extend(" ".join(words[a:b]) for a, b in itertools.pairwise(bounds))
    return out


def read_usage(alternatives: list[str], value_flags: set[str], *, literal_words: bool = False,
               remainder_dots: bool = False, commands_listed: bool = True, values_here: bool = False,
               clusters: bool = False, listed_operands: frozenset[str] = frozenset()) -> UsageFacts:
    """``literal_words``: bare lowercase words are literal command words, never positionals
    (docopt writes positionals as <x> or X: "naval_fate ship <name> move <x> <y>").
    ``commands_listed``: the help lists subcommands; when it does not, a COMMAND in capitals is
    a program to run (``timeout DURATION COMMAND [ARG]...``, ``xargs [OPTION]... COMMAND``).
    ``remainder_dots``: a "..." standing alone is a positional of its own that takes the rest,
    none of it required (argparse's REMAINDER; "X [X ...]" and "[X ...]" are its other repeats)."""
    facts = UsageFacts()
    facts.listed_operands = listed_operands
    per_alt: list[tuple[set[str], list[UsagePositional]]] = []
    for alt in _split_forms(alternatives):
        words = [w for w in tokens_of(alt) if w != ","]
        facts.operand_words.update(word.strip("[]").rstrip(".") for before, word in itertools.pairwise(words)
                                   if not before.startswith("-"))
    for alt in _split_forms(alternatives):
        alt = alt.replace("…", "...")  # translations write "[FICHIER]…", "КАТАЛОГ…"
        alt = re.sub(r",\s*\.\.\.", " ...", alt)  # "[PATTERN, ...]" repeats as "[PATTERN ...]" does
        words = tokens_of(alt.replace(" | ", " | "))
        words = [w for w in words if w != ","]
        words = words[:1] + _without_prose(words[1:])
        if not words:
            continue
        if facts.program is None:
            # "python -m json.tool"; "your-application | digraph [command]", piped into the program
            if len(words) > 2 and words[1] in ("-m", "|"):
                words = words[2:]
            facts.program = words[0].rsplit("/", 1)[-1]
        elif facts.program in words and words[0].rsplit("/", 1)[-1] != facts.program:
            words = words[words.index(facts.program):]  # "command | rg [OPTIONS] PATTERN"
        elif len(words) > 2 and words[1] == "-m":
            words = words[2:]
        if _PROSE_USAGE.match(alt):
            continue  # "qr - Convert stdin to a QR Code.": a sentence about the program, no synopsis
        before = len(facts.command_words)
        flags, positionals, command = _read_alternative(words[1:], value_flags, facts, literal_words,
                                                        remainder_dots, commands_listed, values_here, clusters)
        if not facts.command_path:
            facts.command_path = tuple(facts.command_words[before:])
        del facts.command_words[before + 1:]  # only the first word names a subcommand
        facts.mentions_command = facts.mentions_command or command
        # GNU's "or:  sleep OPTION" / "or:  timeout [OPTION]" is the form of --help and --version.
        helpish = not positionals and (set(_bare(w) for w in words[1:]) <= _HELPISH | {"|"}
                                       or words[1:] in (["OPTION"], ["[OPTION]"]))
        if not helpish:
            facts.forms_read.append(([positional_key(p.name) for p in positionals], command))
            per_alt.append((flags, positionals))
            facts.words_after_options.append(_word_after_options(positionals))
    if not per_alt:
        return facts
    facts.exclusive = {group: int(forms >= len(per_alt)) for group, forms in facts.exclusive.items()
                       if not any(len(set(group) & named) > 1 for named in facts.together)}
    facts.required_flags = set.intersection(*(flags for flags, _ in per_alt))
    merged: dict[str, UsagePositional] = {}
    for _flags, positionals in per_alt:
        for pos in positionals:
            key = positional_key(pos.name)
            if key in merged:
                merged[key].variadic = merged[key].variadic or pos.variadic
            else:
                merged[key] = UsagePositional(pos.name, pos.required, pos.variadic, pos.choices, pos.default)
    for key, pos in merged.items():
        pos.required = all(
            any(positional_key(p.name) == key and p.required for p in positionals)
            for _flags, positionals in per_alt
        )
    facts.positionals = list(merged.values())
    forms = list(dict.fromkeys(UsageForm(tuple((positional_key(p.name), p.required) for p in positionals),
                                         tuple(sorted(flags)))
                               for flags, positionals in per_alt))
    order = [positional_key(p.name) for p in facts.positionals]
    if len({form.positionals for form in forms}) > 1 and \
            not all(_in_order([key for key, _ in form.positionals], order) for form in forms):
        facts.positional_forms = forms
    return facts


# A sentence that ends a usage line, one space after its arguments: "[INPUT FILE] [OUTPUT FILE]
# Thumbnail images" (GLib's summary), "--help Print this help message." (readtags). Sentences two
# spaces or more away, or on a line of their own, are the layout's (``layout._without_description``).
_SENTENCE_START = compiled(r"[A-Z][a-z]+[.:;]?")
_LOWER_WORD = compiled(r"[a-z][a-z'’-]*[.:;]?")
_PLAIN = compiled(r"[A-Za-z.][\w.'’-]*[.:;]?")
# Where a usage sends the program's output or takes its input: "... > Packages" (dpkg-scanpackages).
_REDIRECTS = frozenset({">", ">>", "<", "2>", "&>", "2>&1"})


def _without_prose(words: list[str]) -> list[str]:
    """A usage form's words (after the program's name) up to a redirection, or up to a sentence
    that ends it: in the run of plain words that ends the form, a capitalised word followed by
    a lowercase one ("Thumbnail images"). Words in capitals ("SOURCE DEST"), brackets or angle
    brackets never start one."""
    for index, word in enumerate(words):
        if word in _REDIRECTS:
            words = words[:index]
            break
    start = len(words)  # where the run of plain words that ends the form starts
    while start > 0 and _PLAIN.fullmatch(words[start - 1]):
        start -= 1
    for offset in range(start, len(words) - 1):
        if _SENTENCE_START.fullmatch(words[offset]) and _LOWER_WORD.fullmatch(words[offset + 1]):
            return words[:offset]
    return words


def _word_after_options(positionals: list[UsagePositional]) -> str | None:
    """The first positional of a form when it is a plain word outside brackets and every other
    is written as an argument ("KEY", "<key>"); None otherwise ("cmp [-l] file1 file2": lowercase
    names of arguments, as BSD's usages write them)."""
    if not positionals:
        return None
    first, *others = positionals
    plain = FORM_WORD.fullmatch(first.name) is not None
    if not plain or not first.required or first.variadic or first.choices or \
            any(FORM_WORD.fullmatch(other.name) for other in others):
        return None
    return first.name


def _in_order(keys: list[str], order: list[str]) -> bool:
    """Whether ``keys`` are a prefix of ``order`` (every form giving the first ones, in order, is
    what passing the positionals in the merged order does)."""
    return keys == order[:len(keys)]


def _bare(word: str) -> str:
    return word.strip("[]()").split("=")[0]


def _read_alternative(words: list[str], value_flags: set[str], facts: UsageFacts,
                      literal_words: bool = False, remainder_dots: bool = False,
                      commands_listed: bool = True, values_here: bool = False,
                      clusters: bool = False) -> tuple[set[str], list[UsagePositional], bool]:
    words = list(words)  # a nested bracket is put back to be read next
    flags: set[str] = set()
    positionals: list[UsagePositional] = []
    command = False
    named_alone: set[str] = set()  # flags named outside any group of alternatives
    facts.together.append(named_alone)
    leading = True  # plain words right after the program are its subcommand path ("gh pr create")
    bare_before = False  # the word before was a positional outside brackets
    k = 0
    while k < len(words):
        # binutils' "file(s)", "[addr(s)]", "<option(s)>": as many as given, "file..."
        word = words[k].replace("(s)", "...")
        k += 1
        lower = word.lower()
        after_bare, bare_before = bare_before, False
        if remainder_dots and word == "...":
            before = {positional_key(p.name) for p in positionals}
            named = before | {positional_key(w) for w in words}
            if after_bare and not (before <= facts.listed_operands and facts.listed_operands - named):
                # "app ...": one positional whose metavar is "app ..." (nargs=PARSER); where the
                # list names the usage's and one more, "..." is that one, the rest
                # (nargs=REMAINDER: "run [-h] program ..." over "program" and "args"), and
                # "program" stays one required word.
                positionals[-1].required, positionals[-1].variadic = False, True
            else:  # "[progname] ...", or "..." after the options: the rest, under no name
                positionals.append(UsagePositional("...", False, True))
            continue
        if word.startswith("...") and positionals and not word.strip("."):
            positionals[-1].variadic = True  # "SRC ..."
            continue
        if lower in _PLACEHOLDERS or lower.strip("[]<>.") in _PLACEHOLDERS:
            leading = False
            continue
        if lower.strip("[]<>{}.") in _COMMAND_WORDS and (commands_listed or not word.strip("[]<>{}.").isupper()) \
                and (commands_listed or not (word.startswith("[") and "..." in word)) \
                and positional_key(word) not in facts.listed_operands:  # argh's "[command...]", kingpin's "<cmd>"
            command = True
            if k >= 2 and words[k - 2] == "|" and positionals:
                positionals.pop()  # gcloud's "GROUP | COMMAND": the other word of the command's place
            operands_after = [w for w in words[k:] if not w.startswith(("-", "[-", "|"))]
            if operands_after and all(positional_key(w) in facts.listed_operands for w in operands_after):
                # The program's own, listed under its arguments: commander's "[options] [command]
                # <src> [dest...]" of a program that runs without a subcommand too.
                leading = False
                continue
            break  # what follows belongs to the subcommand
        if word.startswith("-") and len(word) > 1:
            leading = False
            flag, written = _flag_and_value(word.rstrip("."))
            name = flag or word.split("=")[0].rstrip(".")
            flags.add(name)
            named_alone.add(name)
            # "=" kept: how to pass it; "[=WHEN]": a value it may go without
            value = written if flag else "=" + word.split("=", 1)[1] if "=" in word else None
            if value is None and k < len(words) and (name in value_flags or (values_here and (
                    _shown_value(words[k]) or (_bsd_value(words, k) and words[k] not in facts.operand_words)))):
                value = words[k]
                k += 1  # its value
            facts.option_values.setdefault(name, value)
            if k < len(words) and words[k] == "...":
                k += 1  # docopt's "-s FILE ...": the option given again, a value each time
                facts.repeated_flags.add(name)
                if value is None:
                    facts.repeated_alone.add(name)
            continue
        # "{-c | -x}": a choice of options that must be made, as "(-c | -x)" (BSD manuals write it
        # so), and clap's required group "<--lib|--bin <NAME>>"
        if word.startswith(("[", "(")) or (word.startswith("{") and word[1:].lstrip().startswith("-")) or \
                (word.startswith("<-") and word.endswith(">") and "|" in word):
            leading = False
            inner = word[1:].rsplit(_CLOSING[word[0]], 1)[0].strip()
            if word[0] == "[" and (after := _AFTER_DASHES.fullmatch(inner)) is not None:
                # "[-- CMD...]", "[-- <ARG>...]": operands the program takes after a lone "--"
                # (the schema passes them there), whatever their names; not an option "--".
                name = after.group(1).split()[0].rstrip(".")
                positionals.append(UsagePositional(name, False, bool(re.search(r"\.\.\.?$|\s\.\.\.", inner))))
                continue
            if word[0] == "[" and (operands := _STDIN_OR.fullmatch(inner)) is not None:
                inner = operands.group(1) or operands.group(2)  # zstd's "[INPUT... | -]": "-" is standard input
            elif word[0] == "[" and _SPACED_OPERANDS.fullmatch(inner):
                inner = re.sub(r"\s*\|\s*", "|", inner)  # pstree's "[ PID | USER ]", as "[PID|USER]"
            if inner.startswith("-"):
                # FreeBSD ln's "[-s [-F] | -L | -P]": a flag nested in its own brackets is one more
                # flag of the group (-s, with -F or not), not a word to drop with the rest of it.
                inner = _NESTED_FLAG.sub(r"\1", inner)
                _read_option_group(inner, facts, values_here, clusters, value_flags)
                if (inside := _REPEATED_INSIDE.fullmatch(inner)) is not None:
                    # docopt's "[-e FILE ...]", "[-v ...]": the option again, not its value's words
                    facts.repeated_flags.add(inside.group(1))
                    if inside.group(2) is None:
                        facts.repeated_alone.add(inside.group(1))
                if word.endswith("...") or (k < len(words) and words[k].startswith("...")):
                    facts.repeated_flags.update(flag for side in inner.split() if side.startswith("-")
                                                and (flag := _flag_and_value(side)[0]) is not None)
                    if _ONE_FLAG.fullmatch(inner) and word.endswith("..."):  # not argparse's lone "..." after it
                        facts.repeated_alone.add(inner)
                if "|" not in inner:
                    named_alone.update(w.split("=", 1)[0] for w in inner.split() if w.startswith("-"))
                # "[-e PATTERN | -f FILE]..." (or "] ...") repeats: each time either, so both at once.
                elif (group := _exclusive_flags(inner)) is not None and not word.endswith("...") \
                        and not (k < len(words) and words[k].startswith("...")):
                    required = word[0] in "({<"
                    facts.exclusive[group] = facts.exclusive.get(group, 0) + required
                continue
            if inner == "..." and positionals:  # pytest: "[file_or_dir] [file_or_dir] [...]"
                positionals[-1].variadic = True
                continue
            dots = word.endswith("...")
            if word[0] == "[" and _CHOICE_LIST.fullmatch(inner):  # argparse "[{get,set}]": optional
                choices = tuple(c.strip() for c in inner[1:-1].split(",") if c.strip())
                positionals.append(UsagePositional(inner, False, dots, choices))
            elif word[0] == "[" and _single_positional(inner):
                name = inner.rstrip(".").strip()
                # "[FILE]...", "[FILE...]", "[FILE ...]", yargs' "[spec..]", cac's "[...others]"
                variadic = dots or inner.rstrip(">").endswith("..") or bool(re.search(r"\s\.\.\.|\.\.\.\]$", inner)) \
                    or inner.lstrip("<").startswith("...")
                name = name.split(" ")[0].rstrip(".").replace("<...", "<").lstrip(".")
                default = None
                if not variadic and (with_default := _OPERAND_WITH_DEFAULT.fullmatch(inner.strip())) is not None:
                    # plumbum's "[destination_path=.]": the operand, and what it is when left out
                    name, default = with_default.group(1), with_default.group(2)
                # uvx's "[COMMAND]": the tool it runs; argh's "[command...]" where no command is listed
                listed = positional_key(name) in facts.listed_operands
                if _operand_word(name.strip("<>"), commands_listed) or listed or (
                        variadic and not commands_listed and name.lower().strip("<>") in _COMMAND_WORDS):
                    positionals.append(UsagePositional(name, False, variadic, default=default))
                elif name.lower().strip("<>") in _COMMAND_WORDS:
                    command = True
                    break
            elif word[0] == "[" and (nested := _NESTED.fullmatch(inner)) is not None \
                    and _single_positional(nested.group(1)) and _operand_word(nested.group(1), commands_listed):
                # "[host [port]]", gdb's "[executable-file [core-file or process-id]]", nice's
                # "[COMMAND [ARG]...]": each optional, the inner one read next as a bracket of its own
                positionals.append(UsagePositional(nested.group(1).rstrip("."), False, False))
                words.insert(k, f"[{nested.group(2)}]{nested.group(3) or ''}")
            elif word[0] == "[" and (nested := _OPERANDS_THEN_NESTED.fullmatch(inner)) is not None \
                    and _operand_word(nested.group(1).split()[0].strip("<>"), commands_listed):
                # System.CommandLine's "[<b> <c> [<d> [<e>]]]": operands optional together, then
                # the inner bracket read next as a bracket of its own
                positionals.extend(UsagePositional(name, False, False) for name in nested.group(1).split())
                words.insert(k, f"[{nested.group(2)}]{nested.group(3) or ''}")
            elif word[0] == "[" and (mixed := _OPTIONS_AND_OPERANDS.fullmatch(inner)) is not None:
                # bzip2's "[flags and input files in any order]": the options, and operands
                # the words name, as many as given
                positionals.append(UsagePositional(mixed.group(1), False, True))
            elif word[0] == "[" and _ALTERNATIVE_NAMES.fullmatch(inner):
                positionals.append(UsagePositional(inner, False, False))  # "[core-file or process-id]"
            elif word[0] == "[" and _PLAIN_WORDS.fullmatch(inner) \
                    and not set(inner.lower().split()) & (_PLACEHOLDERS | _COMMAND_WORDS):
                # "[mangled names]" (c++filt), "[zipfile list]" (zip): operands that words describe,
                # as many as given; one operand or two, the words cannot say, and in order they
                # reach the program as given either way.
                positionals.append(UsagePositional(inner, False, True))
            elif word[0] == "[" and inner.split()[-1].upper() in ("OPTIONS", "FLAGS", "SWITCHES") \
                    and not inner.startswith("-"):
                continue  # tyro's "[TRAIN OPTIONS]", plumbum's "[SWITCHES]": options, no operand
            elif word[0] == "[" and _REPEATED_THEN_ONE.fullmatch(inner) \
                    and _operand_word(inner.split()[0].strip("<>."), commands_listed):
                # "[SRC... DST]": operands given together or not at all, each repeated as written
                # (the sources, then the one destination); no operand was read of it.
                positionals.extend(UsagePositional(name.rstrip(".").strip(), False, name.endswith("..."))
                                   for name in inner.replace(" ...", "...").split())
            elif word[0] == "[" and (_OPERAND_WORDS.fullmatch(inner) or _OPERAND_FORMS.fullmatch(inner)):
                # "[INPUT FILE]", "[MAJOR MINOR]", "[COMMAND ARGS...]", who's "[ FILE | ARG1 ARG2 ]":
                # one operand named in words, or several; the words cannot say which, and in
                # order they reach the program as given either way.
                first = inner.split()[0].strip("<>")
                if not _operand_word(first, commands_listed):
                    command = True
                    break
                name = " or ".join(" ".join(side.split()) for side in alternatives_of(inner.replace("...", "")))
                positionals.append(UsagePositional(name.replace("<", "").replace(">", ""), False, True))
            continue
        if word.startswith("{") and "," in word:
            leading = False
            inner = word[1:].split("}", 1)[0]
            choices = tuple(c.strip() for c in inner.split(",") if c.strip())
            positionals.append(UsagePositional(word.rstrip("."), True, word.endswith("..."), choices))
            continue
        if word in ("|", "...") or word.startswith("..."):
            if word.startswith("...") and positionals:
                positionals[-1].variadic = True
            continue
        word = word.strip("{}") if word.startswith("{") else word  # typer writes "{title}"
        if _OPERAND_CHOICE.fullmatch(word):
            # hardlink's "<directory>|<file> ...": one operand, either of the two kinds
            leading = False
            name = " or ".join(part.strip("<>") for part in word.rstrip(".").split("|"))
            positionals.append(UsagePositional(name, True, word.endswith("...")))
            bare_before = True
            continue
        if (either := _OPERAND_OR_FLAGGED.fullmatch(word)) is not None:
            # dpkg-shlibdeps' "<executable>|-e<executable>": the operand, or the same after a flag
            leading = False
            positionals.append(UsagePositional(either.group(1), True, False))
            bare_before = True
            continue
        if word.startswith("<") and ("|" in word or word.startswith("<-")):
            leading = False
            continue  # a choice between flags or values: "<--build|--clear>"
        plain = re.fullmatch(r"[a-z][a-z0-9_-]*", word) is not None
        if plain and k < len(words) and words[k].lower() == f"[{word}-options]":
            # go-flags: "synk [OPTIONS] push [push-OPTIONS] [SOURCE]": the subcommand, its options
            # after it; after the program's options, where a plain word is otherwise an operand.
            facts.command_words.append(word)
            k += 1
            leading = False
            continue
        if leading and plain:
            facts.command_words.append(word)
        if (leading or literal_words) and plain:
            continue
        leading = False
        # "FILE...", and commander's "<files...>"; "file[.zip]" and "MODE[,MODE]..." are named
        # by what comes before their brackets
        name = word.split("[", 1)[0] if "[" in word and not word.startswith("<") else word
        spread = word.startswith("<...")  # cac's "<...files>": the dots before the name
        positionals.append(UsagePositional(name.rstrip(".").replace("<...", "<"), True,
                                           spread or word.endswith(("...", "...>"))))
        bare_before = True
    return flags, positionals, command


_CLOSING = {"[": "]", "(": ")", "{": "}", "<": ">"}


def _bsd_value(words: list[str], k: int) -> bool:
    """A plain word after a flag outside brackets that BSD's usages write as its value ("cut -b
    list [-n] [file ...]", "-d delim"): a lower-case name, with an operand still to come after it
    in the form (where nothing follows, "prog -v file" is a switch and its operand)."""
    word = words[k]
    if not _BSD_VALUE.fullmatch(word):
        return False
    # Looked for among the next few words only: a form writes its operands soon after its options,
    # and looking to the end from each flag grew with the square of a long usage.
    return any(not later.lstrip("[").startswith("-") and later not in ("|", "...")
               for later in words[k + 1:k + 1 + _OPERAND_WITHIN])


_BSD_VALUE = compiled(r"[a-z][a-z0-9_]*")
_OPERAND_WITHIN = 12


def _shown_value(word: str) -> bool:
    """A word a usage writes as a flag's value: "<price>", "<tag...>" (not "<-x|--y>")."""
    return word.startswith("<") and not word.startswith("<-") and "|" not in word


_VALUE_WORD = compiled(r"<[^<>|\s]+>(?:\.\.\.)?|[A-Za-z][\w.-]*|\{[^{}\s]+\}")


def _read_option_group(inner: str, facts: UsageFacts, values_here: bool, clusters: bool,
                       value_flags: set[str]) -> None:
    """The options of one bracket group: "-v", "-nrv" (with ``clusters``), "-d delim",
    "--shelf <shelf>", "--depth=N", "--color[=WHEN]", "-a | -b"; anything else ("[-x [-y]]") is
    left unread. Where the list shows the options, only the values of those it says take one
    are kept ("-s {name|size}": its choices, when the list names none). "-t dsa | rsa | ed25519"
    (ssh-keygen) is one option whose value is one of those words."""
    sides = alternatives_of(inner)
    first = tokens_of(sides[0])
    if len(sides) > 1 and len(first) == 2 and all(_BARE_VALUE.fullmatch(side.strip()) for side in sides[1:]):
        inner = f"{first[0]} {{{'|'.join([first[1], *(side.strip() for side in sides[1:])])}}}"
        sides = [inner]
    for alternative in sides:
        words = tokens_of(alternative)
        if not words:
            continue
        if len(words) > 1 and (values_here or clusters) and all(_SWITCH_ALONE.fullmatch(word) for word in words):
            # "-s -F" (of "[-s [-F] | -L | -P]"): switches side by side, each a flag of its own.
            for word in words:
                facts.option_values.setdefault(word, None)
            continue
        flag, value = _flag_and_value(words[0])
        if flag is None or len(words) > 2:
            continue
        if not (values_here or clusters):
            if flag in value_flags and len(words) == 2 and _VALUE_WORD.fullmatch(words[1]):
                facts.option_values.setdefault(flag, words[1])
            elif flag in value_flags and value is not None:
                facts.option_values.setdefault(flag, value)
            continue
        if len(words) == 2:
            if value is not None or not _VALUE_WORD.fullmatch(words[1]) or words[1].startswith("-"):
                continue
            value = words[1]
        if clusters and value is None and flag[1] != "-" and len(flag) > 2 and flag[1:].isalnum():
            for letter in flag[1:]:
                facts.option_values.setdefault("-" + letter, None)
        else:
            facts.option_values.setdefault(flag, value)


# A form's command word and its arguments ("<name>...", "[<x>]", "FILE"), as usage_forms keeps them.
FORM_WORD = compiled(r"[a-z][a-z0-9_-]*")
FORM_ARGUMENT = compiled(r"(\[)?(<[^<>\s]+>|[A-Z][A-Z0-9_-]*)(\.\.\.)?(\])?(\.\.\.)?")
_FORM_CHOICE = compiled(r"\(([a-z][a-z0-9_-]*(?:\s*\|\s*[a-z][a-z0-9_-]*)+)\)")


# Where a usage form writes its options, when that is after its first word (``usage_forms``).
OPTIONS_HERE = "[options]"


def usage_forms(alternatives: list[str], arguments: set[str]) -> tuple[str, ...]:
    """docopt's usage forms as templates of command words and arguments ("ship <name> move <x>
    <y>"), options left out (they are properties of their own), a choice of words written out
    as one form each ("mine (set|remove) <x>": "mine set <x>", "mine remove <x>"), a form of
    arguments alone too ("<file>"); () when a form holds anything else (nested groups): the
    words alone are offered then. ``arguments``: the positionals' keys, which every <name> must be.
    A form that writes its options' place after its first word ("app migrate [flags] VERSION")
    keeps it as ``OPTIONS_HERE`` ("[options]"): a program that reads its command's options after
    the command (Go's flag package, a flag set each) takes them only there."""
    forms: list[str] = []
    for alternative in _split_forms(alternatives):
        words = tokens_of(alternative.replace("…", "..."))[1:]  # the program's name first
        kept: list[list[str]] = [[]]
        for word in words:
            bare = word.lower().strip("[]")
            if bare in _PLACEHOLDERS and bare not in ("--", "-", "...", "|"):  # "[options]", "[flags]"
                if kept[0] and OPTIONS_HERE not in kept[0]:
                    kept = [form + [OPTIONS_HERE] for form in kept]
                continue
            if word.startswith(("-", "[-", "(-")) or word.lower() in ("[--]", "--", "|"):
                continue  # an option, a group of options
            if FORM_WORD.fullmatch(word):
                kept = [form + [word] for form in kept]
            elif (choice := _FORM_CHOICE.fullmatch(word)) is not None:
                kept = [form + [option.strip()] for form in kept for option in choice.group(1).split("|")]
            elif (argument := FORM_ARGUMENT.fullmatch(word)) is not None \
                    and bool(argument.group(1)) == bool(argument.group(4)) \
                    and positional_key(argument.group(2)) in arguments:
                kept = [form + [word] for form in kept]
            else:
                return ()
        # A form of arguments alone ("<file>", "<repo> clone to <dir>") is one too: the program's
        # main form beside its commands; one of options alone ("-h | --help") is not.
        forms.extend(" ".join(form) for form in kept if form)
    return tuple(dict.fromkeys(forms))


def _exclusive_flags(inner: str) -> tuple[str, ...] | None:
    """The flags of "-a | --interactive | --patch" or "-F <file> | -m <msg>", one a side, in
    order; None when a side is anything else ("(-c | -C) <commit> | --fixup ...", "-x [-y]")."""
    if "|" not in inner:
        return None
    flags: list[str] = []
    for alternative in alternatives_of(inner):
        words = tokens_of(alternative)
        if not words or len(words) > 2:
            return None
        flag, _value = _flag_and_value(words[0])
        if flag is None or (len(words) == 2 and not _VALUE_WORD.fullmatch(words[1])):
            return None
        flags.append(flag)
    return tuple(dict.fromkeys(flags)) if len(set(flags)) > 1 else None


def alternatives_of(inner: str) -> list[str]:
    """The sides of "a | b" in a usage group, split only where no bracket is open: "--color[=WHEN]
    | --no-color", "-s {name|size} | -S" (the choices of a value are not alternatives)."""
    sides: list[str] = []
    start = 0
    for index, ch in outside_brackets(inner):
        if ch == "|":
            sides.append(inner[start:index])
            start = index + 1
    sides.append(inner[start:])
    return sides


# "--depth=N", "--color[=WHEN]" (an optional value), "-n[NUM]": the flag and how its value is written.
_FLAG_WITH_VALUE = compiled(r"(--?[A-Za-z0-9][\w-]*)(=\S+|\[=?[^\[\]\s]+\])?")


def _flag_and_value(word: str) -> tuple[str | None, str | None]:
    """A usage word's flag and its value as the word writes it ("=N", "[=WHEN]"), or (None, None)
    when the word is no flag."""
    found = _FLAG_WITH_VALUE.fullmatch(word)
    if found is None:
        return None, None
    return found.group(1), found.group(2)


# Placeholders between bars with spaces in a bracket: "[ PID | USER ]" (pstree).
# A bracket of operands after a lone "--": "[-- CMD...]", "[-- <ARG>...]", "[-- ARG ...]".
_AFTER_DASHES = compiled(r"--\s+((?:<[^<>\s]+>|[A-Za-z_][\w-]*)(?:\s*\.\.\.)?)")
# A switch written alone, a letter or a long name: "-F", "--force" (not cpan's "-OPTIONS").
_SWITCH_ALONE = compiled(r"-[A-Za-z0-9]|--[a-z][a-z0-9-]*")
# A flag (and its value) in brackets of its own inside a group: "[-F]" of "[-s [-F] | -L | -P]".
_NESTED_FLAG = compiled(r"\[(-[^\[\]|]*)\]")
# One flag alone, a short or a long name, no value: "-v", "--verbose".
_ONE_FLAG = compiled(r"--?[A-Za-z0-9][\w-]*")
_SPACED_OPERANDS = compiled(r"(?:<[\w-]+>|[A-Z][A-Z0-9_]*)(?:\s+\|\s+(?:<[\w-]+>|[A-Z][A-Z0-9_]*))+")
# Placeholders in angle brackets between bars, no flag among them: "<directory>|<file>" (hardlink).
_OPERAND_CHOICE = compiled(r"<[a-z][\w-]*>(?:\|<[a-z][\w-]*>)+(?:\.\.\.)?", re.IGNORECASE)
# An operand, or the same value after a flag: "<executable>|-e<executable>".
_OPERAND_OR_FLAGGED = compiled(r"<([\w-]+)>\|-\w+=?<\1>")
# A side of "-t dsa | ecdsa | rsa" after the first: a word that is no flag and no placeholder.
_BARE_VALUE = compiled(r"[a-z0-9][\w.+-]*")
_CHOICE_LIST = compiled(r"\{[^{}\s,]+(?:,[^{}\s,]+)+\}")
# Operands or "-" for standard input, either way round: "[INPUT... | -]", "[- | FILE...]".
_STDIN_OR = compiled(r"([^\s|-][^\s|]*)\s*\|\s*-|-\s*\|\s*([^\s|-][^\s|]*)")
# An operand, then a bracket inside the bracket: "[host [port]]", "[COMMAND [ARG]...]".
_NESTED = compiled(r"([^\s\[\]]+)\s+\[(.+)\](\.\.\.)?")
# One operand named as either of two things: "[core-file or process-id]".
_ALTERNATIVE_NAMES = compiled(r"[a-z][\w-]* or [a-z][\w-]*")
# The options and operands in one bracket, in words: "[flags and input files in any order]".
_OPTIONS_AND_OPERANDS = compiled(r"(?:flags|options|switches) and ([a-z][\w-]*(?: [a-z][\w-]*){0,2}?)"
                                 r"(?: in any order)?")
# Two or three placeholders in one bracket: "[MAN DATABASE]", "[COMMAND ARGS...]", "[<src> <dst>]".
_PLACEHOLDER = r"(?:<[\w-]+>|[A-Z][A-Z0-9_-]*)"
_OPERAND_WORDS = compiled(rf"{_PLACEHOLDER}(?:\s+{_PLACEHOLDER}){{1,2}}(?:\s?\.\.\.)?")
# An optional operand and its default, as plumbum writes them (a Python parameter's name):
# "[destination_path=.]"; not env's "[NAME=VALUE]...", a form of value in capitals.
_OPERAND_WITH_DEFAULT = compiled(r"([a-z_][a-z0-9_]*)=([^\s=\[\]<>.][^\s=\[\]<>]*|\.)")
# One option and perhaps its value, then "..." inside the brackets: docopt's "[-e FILE ...]".
_REPEATED_INSIDE = compiled(r"(-[\w-]+)(\s+[^\s|.\[\]-][^\s|\[\]]*)?\s*\.\.\.")
# Operands, one repeated before the last, which is not: "[SRC... DST]", "[<src>... <dest>]".
_REPEATED_THEN_ONE = compiled(rf"(?:{_PLACEHOLDER}(?: ?\.\.\.)?\s+)*{_PLACEHOLDER} ?\.\.\.\s+"
                              rf"(?:{_PLACEHOLDER}(?: ?\.\.\.)?\s+)*{_PLACEHOLDER}")
# Operands, then a bracket inside the bracket: "[<b> <c> [<d> [<e>]]]" (System.CommandLine).
_OPERANDS_THEN_NESTED = compiled(rf"({_PLACEHOLDER}(?:\s+{_PLACEHOLDER}){{1,3}})\s+\[(.+)\](\.\.\.)?")
# Sides of placeholders between bars, one of them several: "[ FILE | ARG1 ARG2 ]" (who).
_OPERAND_FORMS = compiled(rf"{_PLACEHOLDER}(?:\s+{_PLACEHOLDER})*(?:\s+\|\s+{_PLACEHOLDER}(?:\s+{_PLACEHOLDER})*)+")
# Two or three lowercase words in one bracket, none a conjunction: "[mangled names]".
_PLAIN_WORDS = compiled(r"(?!.*\b(?:or|and|to)\b)[a-z][\w-]*(?: [a-z][\w-]*){1,2}")


def _operand_word(word: str, commands_listed: bool) -> bool:
    """``word`` names an operand: no placeholder for the options, and no subcommand's place,
    but a COMMAND to run in capitals where the help lists no subcommands (nice, env, chroot)."""
    lower = word.lower()
    return lower not in _PLACEHOLDERS and (lower not in _COMMAND_WORDS or (not commands_listed and word.isupper()))


def _single_positional(inner: str) -> bool:
    if not inner or inner.startswith("-") or ("|" in inner and "-" in inner):
        return False
    # "[PATH ...]", "[FILE]...", "[<path>...]", "[infile]", "[FILE|DIR ...]", "[fichier-d'entrée]",
    # date's "[+FORMAT]" (read after a "+", which the schema adds: ``schema._prefix``);
    # not "[--foo FOO]", "[-a | -b]" or "[a [b]]"
    if re.fullmatch(r"\+?<?[\w.:/='’|-]+>?(?:\.\.\.|\s\.\.\.?|\s\[?<?[\w.-]+>?\s?\.\.\.\]?)?", inner) is None:
        return False
    # "[FILE [FILE ...]]" is one operand, repeated; "[<name> [<extra>...]]" (cleo) two, the second
    # optional within the first, read as ``_NESTED``: it was lost, then listed as required.
    # "[command [argument ...]]" (ssh) stays one: the command and its arguments, as many as given.
    names = re.fullmatch(r"\+?<?([\w.:/='’|-]+)>?\s\[<?([\w.-]+)>?\s?\.\.\.\]", inner)
    return names is None or names.group(1).lower() in (names.group(2).lower(), *_COMMAND_WORDS)
