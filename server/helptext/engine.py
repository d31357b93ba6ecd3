"""Turns laid-out help text into a ``HelpDescription``; dialects call it with their rules.

Entries are read under every heading that can hold them and also where no heading
is printed at all (GNU tools list options right after their prose), so an unknown
layout still yields its "-x, --long VALUE" lines.
"""

from __future__ import annotations

import os
import re
from collections import Counter

from .heads import Head, parse_head
from .kept import compiled
from .layout import (
    DRAWN_LINE,
    FLAG_START,
    HelpEntry,
    Section,
    indent_of,
    read_entries,
    split_sections,
    usage_line,
)
from .model import HELP_FLAGS, HelpDescription, OptionSpec, PositionalSpec, SubcommandSpec, UsageForm
from .notes import (
    is_repeat_type,
    names_kinds,
    read_notes,
    split_choices,
    strip_brackets,
    then_sentence,
    value_choices,
    value_type,
)
from .places import AMBIGUOUS_PATH_NAMES, inside_a_document, speaks_of_files
from .records import TYPE_CHECKING, NamedTuple
from .usage import FORM_WORD, UsageFacts, positional_key, read_usage, usage_forms

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .model import ValueType


class Rules(NamedTuple):
    """What a dialect changes in the shared reading."""

    single_dash_long: bool = False  # Go's flag package: "-name" is a long option
    commands_prefixed: bool = False  # yargs lists "prog serve" rather than "serve" (and a group's by its path)
    commands_by_path: bool = False  # kingpin and kong list a group's commands by its path: "db migrate"
    value_from_type_note: bool = False  # yargs says "[string]" after the description instead of a metavar
    bare_usage_first: bool = False  # yargs prints the usage line without "Usage:"
    angle_choices: bool = False  # typer's rich help writes choices as "<low|high>"
    columns: bool = False  # typer's rich help puts names, negation and type in columns
    commands_from_usage: bool = False  # docopt lists commands only in its usage patterns
    remainder_dots: bool = False  # argparse: a lone "..." in the usage is REMAINDER, a positional
    default_as_value_name: bool = False  # kingpin: "--retries=3" shows the default, not a name
    value_names_untyped: bool = False  # picocli names a value after its field ("<width>"): no type
    nargs_dots: bool = False  # click: "INTEGER..." is nargs=N after one flag, "<TEXT FLOAT>..." a tuple
    author_after_version: bool = False  # clap 2 and 3: "name version", then the author's line, then the about
    value_from_default: bool = False  # flaggy shows no value: a default but true or false says one is taken
    counter_takes_count: bool = False  # kong: a counter is "--verbose=INT", its count given after "=" once
    counter_from_zero: bool = False  # argparse, clap, typer (cyclopts): a switch whose default is 0 counts
    values_unshown: bool = False  # no option of the help shows a value (meow, sade): a default may say one


# "tool 1.2", "GNU Wget 1.21.3", "gpg (GnuPG) 2.2.40", "Zstandard CLI (64-bit) v1.5.4", cac's "vite/8.4.1"
_VERSION_LINE = compiled(r"^([\w.+-]+(?: [\w.+-]+)?(?: \([\w .+-]+\))?)(?:\s+(?:version\s+)?v?|/v?)"
                         r"(\d+(?:\.\d+)+[\w.+~-]*)\b")
# A person's name as an author line writes it: "Ann Example", "Jo Lee, Sam Vo", "A. B. Smith & C. Doe".
_PERSON = compiled(r"[A-Z][\w'.-]*\.?(?: [A-Z][\w'.-]*){1,3}(?:(?:, | and | & )[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){1,3})*")
_AUTHOR = compiled(r"<[^<>\s]+@[^<>\s]+>|^(?:written by|authors?:|copyright|\(c\))|\bcopyright (?:\(c\)|©)"
                   r"|^(?-i:by [A-Z][a-z]+ [A-Z][a-z]+)", re.IGNORECASE)  # "..., by Yann Collet", not "By default"
# "*** Zstandard CLI (64-bit) v1.5.4, by Yann Collet ***": the stars frame the line
_FRAMED = compiled(r"^([*=#~-]{2,})\s*(.*?)\s*\1$")
_FRAMED_AT_MOST = 300
# A help option's names: what it shows as a value (argh's "--help, help") says nothing of the others.
_HELP_NAMES = frozenset({"--help", "-h", "-help", "-?"})
# swift-argument-parser's (and LLVM's) "OVERVIEW: Print the sum of the values.": a label, not the about's.
_OVERVIEW = compiled(r"^OVERVIEW:\s+")
_SPACES = compiled(r" {3,}")
_ITEM = compiled(r"^\S+(?: \S+)?\s{2,}\S")
# What a version line may go on with that says nothing about the program: a build's note
# ("apt 2.6.1 (amd64)"), a date ("HAProxy version 2.6.12 2026/10/17 - https://...", "UnZip 6.00
# of 20 April 2009, by Debian.").
_BUILD_NOTE = compiled(r"\([^()]*\)")
_DATED = compiled(r"(?:of |built |released |from |\()?(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"
                  r"|\d{1,2}(?:st|nd|rd|th)? [A-Z][a-z]+,? \d{4}|[A-Z][a-z]+ \d{1,2}(?:st|nd|rd|th)?,? \d{4})\b")
# GNU's note on how its options are written, which the schema says for it (mv's goes on with
# what is the program's own: "If you specify more than one of -i, -f, -n, ...")
_GNU_MANDATORY_NOTE = compiled(r"mandatory arguments to long options are mandatory for short options too\.?\s*",
                               re.IGNORECASE)
_PROSE_NOISE = compiled(r"^(?:use \"|run '|for more information|try '|see '|to get started"
                        # the complaint before a usage that -h was not an option: "cut: illegal option -- h",
                        # ssh-keygen's "unknown option -- -"
                        r"|(?:\S+: )?(?:unrecognized|unknown|invalid|illegal) option\b"
                        # Python's warning as the program starts: "/path/jsonschema:4: DeprecationWarning: ..."
                        r"|\S+:\d+: \w+(?:Warning|Error): "
                        # a hint printed before the help (hf's "Hint: The `hf-cli` skill is not installed"),
                        # curl's note that its help is a short one
                        r"|hint: |tip: |this is not the full help"
                        # the trailers of GNU's and procps' helps, when nothing else is prose (gprof, ps)
                        r"|report bugs to\b|for more details see\b)", re.IGNORECASE)
# An option's entry the list did not take ("-:, --next  Make next URL ...", "-[mM][-]module  execute ..."):
# no program's about starts with a flag.
_OPTION_LIKE = compiled(r"-[^\s\d-]\S*(?: \S+)?\s{2,}\S")
_NAME_DASH_ABOUT = compiled(r"([\w.+-]+)(?: [-–—]|:) (\S.*)")  # "jq - ...", "yaml: A command-line YAML processor"
# A line of facts, "Label: value", as GnuPG prints its home and algorithms above its usage.
_FIELD_LINE = compiled(r"[A-Z][\w/-]*(?: [\w/-]+){0,2}:(?:\s+(\S.*))?")
# A grammar's rule, as iproute2's help writes its words: "where  OBJECT := { address | link | route }".
_GRAMMAR_RULE = compiled(r"(?:where\s+)?[A-Z][A-Z0-9_-]*\s*:=")
_GRAMMAR_CHOICES = compiled(r"^[ \t]*(?:where\s+)?([A-Z][A-Z0-9_-]*)\s*:=\s*\{([^{}]*)\}", re.MULTILINE)
# A line of two columns ("npm install <foo>  add the <foo> dependency"): a gap of two spaces or
# more not after a sentence's end (two spaces after a full stop is a typist's habit).
_TABLE_LINE = compiled(r"\S.*?[^\s.!?]\s{2,}\S.*")
_BARE_VERSION = compiled(r"v?(\d+(?:\.\d+)+[\w.+~-]*)\b")
# Tried from the start of a run of spaces only: a match from inside one is found from its start
# (first) all the same, and trying each space of a long run against the end was quadratic.
_VERSION_NOTE = compiled(r"(?<!\s)\s*[\[(]version\s+v?(\d[\w.+~-]*)[\])]\s*$", re.IGNORECASE)
_COMMAND_NAME = compiled(r"[a-z][\w.-]*")
_SYNOPSIS_WORD = compiled(r"<[^<>]+>|\[[^\[\]]+\]|\{[^{}]+\}|[A-Z][A-Z0-9_]*|\.\.\.")


def _says_usage(text: str) -> bool:
    """Whether a line of ``text`` is a usage line or heading ("Usage:", "Aufruf: ..."): a help
    whose first line is its title, not yargs' bare usage ("yaml: A command-line YAML processor")."""
    return any(usage_line(line) is not None for line in text.split("\n"))


def _is_synopsis(paragraph: str, name: str | None) -> bool:
    """The program's name and placeholders alone ("npm <command>"): a usage line without its
    heading, which says nothing about the program."""
    words = paragraph.split()
    return len(words) > 1 and _names_the_program(words[0], name) and all(
        _SYNOPSIS_WORD.fullmatch(word) for word in words[1:])


def _names_the_program(word: str, name: str | None) -> bool:
    """Whether ``word`` is the program's name, or, where the usage gave none, a command's."""
    return word.lower() == name.lower() if name is not None else _COMMAND_NAME.fullmatch(word) is not None


def _is_option_start(line: str) -> bool:
    return FLAG_START.match(line.lstrip()) is not None


# An operand alone on its line in a list of options: "<file>...", "<A>" (zig-clap).
_OPERAND_ALONE = compiled(r"<[\w-]+>(?:\.\.\.)?")


def _is_option_or_operand_start(line: str) -> bool:
    return _is_option_start(line) or _OPERAND_ALONE.fullmatch(line.strip()) is not None


def parse_text(text: str, rules: Rules, dialect: str) -> HelpDescription:
    if rules.bare_usage_first:
        stripped = text.lstrip("\n")
        if stripped and not stripped.lower().startswith("usage") and not stripped[0].isspace() \
                and not _says_usage(stripped):
            text = "Usage: " + stripped
    layout = split_sections(text)
    option_entries: list[HelpEntry] = []
    positional_entries: list[HelpEntry] = []
    command_entries: list[HelpEntry] = []
    prose: list[list[str]] = []
    stray: list[HelpEntry] = []
    in_untitled: set[int] = set()  # positions in option_entries
    operand_flags: set[str] = set()  # operands also given by a flag, listed as that flag
    metavars = _words_before_dots(" ".join(layout.usage))
    for section in layout.sections:
        before = len(option_entries)
        _collect(section, option_entries, positional_entries, command_entries, prose, stray, metavars, operand_flags)
        if section.kind == "untitled":
            in_untitled.update(range(before, len(option_entries)))

    # cac lists its default command by its operands ("[...files]  Do things", vite's "[root]"),
    # as its usage writes them ("$ vite [root]"): those are the program's own, not a command
    # named "[root]". Not a default command named so (systemd-analyze's "[time]"), nor ar's
    # modifiers ("[a] [b] [D]"), which no usage writes so.
    usage_words = set(" ".join(layout.usage).split())
    operands_as_commands = [e for e in command_entries if _OPERAND_AS_COMMAND.fullmatch(e.head.strip())
                            and e.head.strip() in usage_words]
    if operands_as_commands:
        command_entries = [e for e in command_entries if e not in operands_as_commands]
        positional_entries += operands_as_commands
    # A default command the usage does not write is a command under its name: systemd-analyze's
    # "[time]" (it was lost); not ar's modifiers, a letter each ("[a]", "[D]").
    command_entries = [e._replace(head=e.head.strip().strip("[]"))
                       if _DEFAULT_COMMAND.fullmatch(e.head.strip()) else e for e in command_entries]
    # bzip2's "-1 .. -9  set block size": a digit written after the dash, as "-NUM" is (below);
    # not an option "-1" taking ".." (its --fast and --best stay).
    digit_ranges = [e for e in option_entries if _DIGIT_FLAG_RANGE.fullmatch(e.head.strip())]
    option_entries = [e for e in option_entries if not _DIGIT_FLAG_RANGE.fullmatch(e.head.strip())]
    options = _merge_duplicates([_option(e, rules) for e in option_entries], in_untitled)
    if not rules.value_from_default and not rules.counter_from_zero and options \
            and not any(o.takes_value for o in options):
        # No option shows a value: a default may be the only sign that one takes one (Rules.values_unshown).
        unshown = rules._replace(values_unshown=True)
        options = _merge_duplicates([_option(e, unshown) for e in option_entries], in_untitled)
    numbers = [_number_flag(o) for o in options if (o.long or o.short) and _placeholder_flag(o)]
    numbers += [_digit_range_flag(e) for e in digit_ranges[:1]]
    options = _paired_negations([o for o in options if (o.long or o.short) and not _placeholder_flag(o)])
    # Its number, written after the dash ("-5", "-19"), once: one property a help's "-NUM" or
    # "-#" or "-0 ... -9" stands for (xz's and zstd's compression level had no other option).
    options += numbers[:1]
    value_flags = {name for o in options if o.takes_value for name in (o.long, o.short) if name}
    # A list that shows no option's value (argh), or no list at all (BSD's "usage: cut [-nrv]
    # [-d delim] file ..."): what options take is read from the usage. argh lists its help as
    # "--help, help" (the word is its help command), which shows no value either.
    values_here = value_flags <= _HELP_NAMES
    facts = read_usage(layout.usage, value_flags, literal_words=rules.commands_from_usage,
                       # argparse's REMAINDER; a usage with no option list is not argparse's (it
                       # lists -h at least): "file ..." there is one file or more (BSD)
                       remainder_dots=rules.remainder_dots and bool(options),
                       # entries of a commands section that name none ("$ redis-benchmark -r 10000 ...",
                       # examples) list no command: a COMMAND in capitals is then a command to run
                       commands_listed=bool(_subcommands(command_entries, rules, None)),
                       values_here=values_here, clusters=not options and not rules.single_dash_long,
                       listed_operands=frozenset(positional_key(_listed_name(_listed_head(entry)))
                                                 for entry in positional_entries))
    if operand_flags:
        # Given here by its flag: not an operand of the usage's for a listed one to pair with; nor
        # cyclopts' "[ARGS]" for such operands where no other is listed ("TARGET --target").
        facts.positionals = [p for p in facts.positionals if p.name.strip("<>[].") not in operand_flags
                             and (positional_entries or p.name.strip("<>[].") != "ARGS")]
    # A help that lists no option writes "-q|--quiet" in its usage for one option under two
    # names, which nothing here can tell from two options: its groups are not read as alternatives.
    listed = bool(options)
    if not options:
        options = _help_names_joined([_usage_option(flag, raw) for flag, raw in facts.option_values.items()], facts)
    elif values_here:
        options = [_valued_from_usage(o, facts) for o in options]
    else:
        options = [_choices_from_usage(o, facts) for o in options]
    if listed:
        # An option the list leaves out that the usage writes with its value (zip's "[-b path]"),
        # under a name of its own: not a cluster ("-vnD") or names joined by a bar ("-h|-V").
        named = {name for o in options for name in (o.long, o.short, o.negation) if name}
        options += [_usage_option(flag, raw) for flag, raw in facts.option_values.items()
                    if flag not in named and raw and _ONE_NAME.fullmatch(flag)]
    positional_entries += _named_in_usage(stray, positional_entries, facts) if layout.usage else [
        # no usage to ask (zig-clap's help alone): an operand listed as "<A>" is one
        entry for entry in stray if _OPERAND_ALONE.fullmatch(entry.head)]
    options = [_require_from_usage(o, facts) for o in options]
    if facts.repeated_flags:
        # A value given again, or a switch repeated alone ("[-v]...": a counter, -vv).
        options = [o._replace(repeatable=True) if not o.repeatable and (
            o.takes_value and {o.long, o.short} & facts.repeated_flags
            or not o.takes_value and {o.long, o.short} & facts.repeated_alone) else o for o in options]
    if facts.exclusive and listed:
        options = _exclusive_from_usage(options, facts)
    elif facts.exclusive:
        # No list: "-q|--quiet" may be one option under two names; "[-w | -d delim]", letters
        # alone, are two options (BSD's usage lines: the alternatives were said nowhere).
        options = _exclusive_from_usage(options, facts, letters_only=True)
    name, version, about, description = _texts(prose, facts, author_after_version=rules.author_after_version)
    subcommands = _subcommands(command_entries, rules, facts.program, facts.command_path)
    if subcommands and facts.mentions_command:
        # cloup's commands in sections of their own titles ("Maintenance:" over "db  Database
        # operations."), beside a "Commands" one: the words the usage's COMMAND takes, no operands.
        named = {positional_key(p.name) for p in facts.positionals}
        known = {command.name for command in subcommands}
        subcommands += [command for command in _subcommands(
            [entry for entry in stray if entry.description and _COMMAND_WORD.fullmatch(entry.head.strip())
             and positional_key(entry.head.strip()) not in named], rules, facts.program) if command.name not in known]
    positional_forms: tuple[UsageForm, ...] = ()
    if rules.commands_from_usage and not subcommands and facts.command_words:
        # docopt: the commands are words of one grammar, not separate programs with their own
        # help, so the program stays one tool whose first positional picks the command.
        words = tuple(dict.fromkeys(facts.command_words))
        subcommands = [SubcommandSpec(w) for w in words]
        forms, rest = _usage_forms_and_the_rest(layout.usage, positional_entries, facts)
        if forms:
            # Each form whole: "ship new <name>..." and "ship <name> move <x> <y>" share their
            # first word, and the words after it and between the arguments are the command too.
            positionals = [PositionalSpec("command", True, False, _FORM_TEXT, forms, form=True), *rest]
        else:
            positionals = [PositionalSpec("command", True, False, "The command to run.", words), *rest]
    elif not subcommands and (len(set(facts.command_words)) > 1 or _words_after_options(facts, positional_entries)) \
            and (led := _forms_led_by_words(layout.usage, positional_entries, facts)) is not None:
        # A usage of forms each led by its own word ("kvs get KEY", "kvs set KEY VALUE", or
        # after the options: "kvs [-v] get KEY") and no list of commands: the words were left
        # out, or taken for positionals, so every call ran "kvs KEY". Read as docopt's: one
        # tool whose first argument is the form, written out.
        positionals = led
    else:
        positionals = _positionals(positional_entries, facts, bool(subcommands), type_column=rules.columns)
        known = {positional_key(p.name) for p in positionals}
        if not subcommands and all(key in known for form in facts.positional_forms for key, _ in form.positionals):
            positional_forms = tuple(facts.positional_forms)
    # The first paragraph too: cobra's usual one-paragraph Long ("Create a widget called NAME.
    # NAME is the widget's name.") is read as what the command is about.
    # One sentence ends where the about does, full stop or not ("Select lines" then "MODE is
    # ..."): joined without one, "MODE" was no sentence's subject.
    prose_text = " ".join(text if text.endswith((".", "!", "?", ":")) else text + "."
                          for text in (about, description) if text)
    sentences = _sentences_by_subject(prose_text)
    positionals = [_described_in_prose(pos, sentences) for pos in positionals]
    if (rules_of := _grammar_choices(text)):
        positionals = [pos._replace(choices=rules_of[pos.name], type="enum")
                       if not pos.choices and pos.name in rules_of else pos for pos in positionals]
    return HelpDescription(
        name=name, version=version, about=about, description=description,
        options=tuple(options), positionals=tuple(positionals), subcommands=tuple(subcommands),
        dialect=dialect, positional_forms=positional_forms, usage="\n".join(layout.usage),
    )


# A command in brackets, the one run when none is named: "[time]".
_DEFAULT_COMMAND = compiled(r"\[[a-z][\w-]+\]")
# One operand in brackets, "[...files]", "<root>", "[dir]": no command's name.
_OPERAND_AS_COMMAND = compiled(r"\[(?:\.\.\.)?[\w-]+(?:\.\.\.)?\]|<(?:\.\.\.)?[\w-]+(?:\.\.\.)?>")


def _words_after_options(facts: UsageFacts, entries: list[HelpEntry]) -> bool:
    """Whether every usage form writes a word after its options, not all the same, none of them
    a positional the help lists ("cp [-R] source target" lists none; "tool [-v] src dst" may)."""
    words = facts.words_after_options
    if len(words) < 2 or None in words or len(set(words)) < 2:
        return False
    listed = {positional_key(_listed_name(entry.head.split()[0])) for entry in entries if entry.head.split()}
    return not any(positional_key(word) in listed for word in words if word)


def _forms_led_by_words(usage: list[str], entries: list[HelpEntry], facts: UsageFacts) -> list[PositionalSpec] | None:
    """The form positional and the others, where every usage form reads as words and arguments
    ("get KEY", "set KEY VALUE") and begins with a word; None otherwise (a form of arguments
    alone, or one that holds anything else), as the usage then says no command for sure."""
    forms, rest = _usage_forms_and_the_rest(usage, entries, facts)
    words = {positional_key(word) for word in facts.words_after_options if word}
    rest = [positional for positional in rest if positional_key(positional.name) not in words]
    if not forms or not all(FORM_WORD.fullmatch(form.split()[0]) for form in forms):
        return None
    # A form of the program's name alone ("yaml" beside "yaml cst") runs it without a command.
    alone = any(len(form.split()) == 1 for form in usage)
    return [PositionalSpec("command", not alone, False, _FORM_TEXT, forms, form=True), *rest]


def _usage_forms_and_the_rest(usage: list[str], entries: list[HelpEntry],
                              facts: UsageFacts) -> tuple[tuple[str, ...], list[PositionalSpec]]:
    """The usage's forms written out (``usage_forms``) and the positionals they place, none of
    them required (which a form needs is the form's to say)."""
    rest = [p._replace(required=False) for p in _positionals(entries, facts, False)]
    return usage_forms(usage, {positional_key(p.name) for p in rest}), rest


_FORM_TEXT = ("The usage form to run, as the program's usage writes it: its words are passed as written, "
              "each <name> as the argument of that name, in that order (<name>... takes a list).")


def _exclusive_from_usage(options: list[OptionSpec], facts: UsageFacts, *,
                          letters_only: bool = False) -> list[OptionSpec]:
    """Options the usage writes as alternatives of one group ("[-a | --interactive | --patch]"),
    each with the others of its groups, and whether a group is one the usage requires
    ("(--moored | --drifting)"): what their descriptions say (the program decides the call).
    ``letters_only``: only groups whose every flag is one letter after one dash."""
    key_of = {name: option.key for option in options for name in (option.long, option.short) if name}
    excluded: dict[str, dict[str, None]] = {}
    one_required: set[str] = set()
    for group, required in facts.exclusive.items():
        if letters_only and not all(_ONE_LETTER_FLAG.fullmatch(flag) for flag in group):
            continue
        keys = list(dict.fromkeys(key_of[flag] for flag in group if flag in key_of))
        if len(keys) < 2:  # "[-h | --help]": one option under two names
            continue
        for key in keys:
            excluded.setdefault(key, {}).update(dict.fromkeys(other for other in keys if other != key))
            if required:
                one_required.add(key)
    return [option._replace(exclusive_with=tuple(excluded[option.key]), one_required=option.key in one_required)
            if option.key in excluded else option for option in options]


_ONE_LETTER_FLAG = compiled(r"-[A-Za-z0-9]")
# How much deeper than a list's short names a long name alone may start ("-s, --sign" over
# "    --clear-sign").
_ALIGNED_LONG_NAME = 6


def _among_other_things(lines: list[str], loose: list[str], entries: list[HelpEntry]) -> bool:
    """Whether a section's option-like entries, none a long name set apart from its description,
    are outnumbered by items of another kind among them (cut's "N-M  from N'th to M'th" beside
    "-M  from first to M'th"; not gettext's operands "def.po   translations" over
    "-D, --directory=DIRECTORY   add ..."; stat's "--terse is equivalent to ..." is prose). Items
    after the last option are a table of their own, not counted: lscpu's options are followed
    by its columns ("BOGOMIPS  crude measurement of CPU speed"), under a heading too long to be
    read as one."""
    if any("--" in entry.head and not entry.gapless for entry in entries):
        return False  # an option with a long name and a description beside it
    last = max((k for k, line in enumerate(lines) if _is_option_start(line)), default=-1)
    before = {line.strip() for line in lines[:last]}
    return sum(1 for line in loose if _ITEM.match(line) and line in before) > len(entries)


# clap's and cyclopts' note of a counter's default.
_BRACKETED_ZERO = compiled(r"\[default:\s*0\]")
# Choices in braces written with a space after each comma.
_SPACED_BRACES = compiled(r"\{[\w.+-]+(?:, [\w.+-]+)+\}")
# A counter's uses written out as its names: cleo's "-v|vv|vvv, --verbose".
_VERBOSITY_TIERS = compiled(r"(-([A-Za-z]))\|\2\2\|\2\2\2(,\s*--[\w-]+)?")
# The words of a command of several (see ``_subcommands``).
_COMMAND_WORD = compiled(r"[a-z][a-z0-9-]*")
_MOST_COMMAND_WORDS = 3
# An operand's name, then the flag that gives it by name (cyclopts): "SERVICE --service".
_OPERAND_OR_FLAG = compiled(r"([A-Z][A-Z0-9_-]*)\s+(--[a-z0-9][\w-]*)")
# argparse's subparsers named in braces: "{start,stop}".
_BRACED_COMMANDS = compiled(r"\{([a-z][\w-]*(?:,[a-z][\w-]*)+)\}")
# What argparse-like helps write over a subparser's commands instead of a command.
_SUBPARSER_NOTES = frozenset({"(required)", "(optional)"})
# A bullet before a command's name (tyro's "• train     Train a model."), kept as wide in spaces.
_BULLET = compiled(r"^(\s*)[•◦▪‣](\s+)")


def _unbulleted(line: str) -> str:
    return _BULLET.sub(lambda found: found.group(1) + " " + found.group(2), line, count=1)


def _collect(section: Section, options: list[HelpEntry], positionals: list[HelpEntry], commands: list[HelpEntry],
             prose: list[list[str]], stray: list[HelpEntry], metavars: frozenset[str] = frozenset(),
             operand_flags: set[str] | None = None) -> None:
    """``stray``: "name   text" lines among options, positionals if the usage names them (argparse
    lists a positional under the argument group it was added to). ``operand_flags`` hears the
    names of operands that are also given by a flag (cyclopts' "SERVICE --service")."""
    if section.kind == "text":
        if _ABOUT_TITLE.fullmatch(section.title.strip()):
            prose.append(section.lines)  # System.CommandLine: "Description:" over what the program does
        return
    if section.kind in ("positionals", "commands") and (split := _subparser_block(section.lines, metavars)):
        # argparse subparsers: "{a,b,c}" then the commands indented under it are subcommands,
        # whether the heading says "positional arguments" or a custom group title.
        before, block = split
        _collect(Section(section.title, "commands", block), options, positionals, commands, prose, stray, metavars)
        if section.kind == "positionals" and any(x.strip() for x in before):
            _collect(Section(section.title, "positionals", before), options, positionals, commands, prose, stray,
                     metavars, operand_flags)
        return
    if section.kind == "positionals":
        base = _list_indent(section.lines)
        entries, _ = read_entries(section.lines, lambda line: base <= indent_of(line) <= base + 1)
        for entry in entries:
            if FLAG_START.match(entry.head):
                options.append(entry)
            elif re.fullmatch(r"\S+(?: \.\.\.\]?)?", entry.head.strip()):  # a name ("app ...", kong's "[<a> ...]")
                positionals.append(entry)
            elif (both := _OPERAND_OR_FLAG.fullmatch(entry.head.strip())) is not None \
                    and both.group(1).lower().replace("_", "-") == both.group(2).lstrip("-").lower():
                # cyclopts: "SERVICE --service   Service name. [required]" is given by its place or
                # by its flag; by the flag, a call says which it gives whatever else it gives.
                options.append(entry._replace(head=f"{both.group(2)} {both.group(1)}"))
                if operand_flags is not None:
                    operand_flags.add(both.group(1))
        return
    if section.kind == "commands":
        # argparse's "{a,b}" line; "(required)" over a required subparser's commands (jsonargparse,
        # tyro), which set the list's indent and took the commands for its description.
        lines = [_unbulleted(x) for x in section.lines
                 if not x.strip().startswith("{") and x.strip() not in _SUBPARSER_NOTES]
        if not any(x.strip() for x in lines):
            # Only "{start,stop}", with no line for each (simple-parsing's subparsers, helped by
            # none): the braces name the commands.
            braced = [found for x in section.lines if (found := _BRACED_COMMANDS.fullmatch(x.strip()))]
            commands.extend(HelpEntry(word, [], 0) for found in braced[:1] for word in found.group(1).split(","))
            return
        # git groups its commands under titles at the margin ("start a working area (see also:
        # git help tutorial)"), each over its commands indented: those titles are no commands.
        lines = _without_group_titles(lines)
        base = _list_indent(lines)

        def starts_entry(line: str) -> bool:
            # gpg lists its commands as options, the long-only ones aligned under the long names
            # (" -s, --sign   make ..." then "     --clear-sign   make ..."): each an entry too
            return base <= indent_of(line) <= base + 1 or (
                indent_of(line) <= base + _ALIGNED_LONG_NAME and _is_option_start(line))

        entries, _ = read_entries(lines, starts_entry)
        commands.extend(e for e in entries if not FLAG_START.match(e.head))
        # pylint's argparse group "Commands" holds options ("--list-msgs") that act as commands
        options.extend(e for e in entries if FLAG_START.match(e.head))
        return
    lines = _prose_rejoined(section.lines) if section.kind == "untitled" else section.lines
    entries, loose = read_entries(lines, _is_option_or_operand_start)
    # zig-clap lists its operands among its options, "<file>..." over what they are: the usage
    # says whether they are the program's (``_named_in_usage``)
    stray.extend(entry for entry in entries if not FLAG_START.match(entry.head))
    entries = [entry for entry in entries if FLAG_START.match(entry.head)]
    # argparse subparsers under a custom group title: "{a,b}" then indented names.
    if section.kind == "options" and section.title and not entries \
            and (split := _subparser_block(section.lines, metavars)):
        _collect(Section(section.title, "commands", split[1]), options, positionals, commands, prose, stray, metavars)
        return
    if section.title and _among_other_things(lines, loose, entries):
        if section.kind == "options" and not entries:
            # Perhaps commands under a title of their own (cloup's "Maintenance:" over "db  Database
            # operations."): kept aside, taken only where the help lists commands (``_subcommands``).
            stray.extend(HelpEntry(found.group(1), [found.group(2)], 0) for x in loose if (found := _STRAY.match(x)))
        return  # a list of other things ("N-M  from N'th to M'th") in which "-M" is not an option
    options.extend(entries)
    if section.kind == "untitled":
        prose.append(loose)
    elif section.kind == "options":
        stray.extend(HelpEntry(found.group(1), [found.group(2)], 0) for x in loose if (found := _STRAY.match(x)))


_STRAY = compiled(r"^([a-z_][\w-]*)\s{2,}(\S.*)$")
# A section that says what the program does, as its about would.
_ABOUT_TITLE = compiled(r"(?:description|overview|about):?", re.IGNORECASE)
# A flag that a wrapped sentence put at the start of a line: "... kept as written unless" /
# "--sort-keys is given. Fails if ...": a lower-case word follows it, with no column gap.
_FLAG_IN_PROSE = compiled(r"^-{1,2}[A-Za-z][\w-]* [a-z]")


def _prose_rejoined(lines: list[str]) -> list[str]:
    """The lines, with each wrapped sentence line that starts with a flag joined to the line
    before it, so that it is read as prose, not as an option."""
    out: list[str] = []
    for line in lines:
        text = line.strip()
        before = out[-1].rstrip() if out else ""
        # Or inside a code span the line before opened ("passed to `hf repos create" / "--template
        # ...` to create"): whatever follows the flag.
        in_code = before.count("`") % 2 == 1 and text.startswith("-")
        if (before and not before.endswith((".", ":", "!", "?")) and not _is_option_start(before)
                and indent_of(line) == indent_of(before) and (_FLAG_IN_PROSE.match(text) or in_code)
                and "  " not in text):
            out[-1] = f"{before} {text}"
            continue
        out.append(line)
    return out


def _named_in_usage(stray: list[HelpEntry], listed: list[HelpEntry], facts: UsageFacts) -> list[HelpEntry]:
    """The stray entries that are positionals: named in the usage, or as many as the usage's
    unnamed "..." positionals that no listed positional stands for."""
    named = {positional_key(p.name) for p in facts.positionals}
    kept = [e for e in stray if positional_key(e.head) in named]
    unnamed = sum(1 for p in facts.positionals if p.name == "...")
    rest = [e for e in stray if e not in kept]
    if unnamed and len(rest) == unnamed - sum(1 for e in listed if positional_key(e.head) not in named):
        kept += rest
    return kept


# "{a,b}", or "{a}" for a subparsers action of one command (its line under it is what makes it one).
_CHOICE_LINE = compiled(r"^\{[^{}\s]+\}")


# A word the usage writes before " ...": argparse's subparsers metavar ("<command> ...").
_WORD_BEFORE_DOTS = compiled(r"(?<!\S)(\S+) \.\.\.(?!\S)")


def _words_before_dots(usage: str) -> frozenset[str]:
    return frozenset(_WORD_BEFORE_DOTS.findall(usage))


def _subparser_block(lines: list[str], metavars: frozenset[str] = frozenset()) -> tuple[list[str], list[str]] | None:
    """Splits an argparse subparsers listing: the lines before "{a,b}" and the entries under it.

    With a metavar ("<command>" alone on its line, "<command> ..." in the usage: ``metavars``,
    as argparse prints a subparsers action), the names are the words indented one step under it."""
    for k, line in enumerate(lines):
        found = _CHOICE_LINE.match(line.strip())
        token = line.strip()
        metavar = not found and token in metavars
        if not found and not metavar:
            continue
        level = indent_of(line)
        block = []
        for nxt in lines[k + 1:]:
            if nxt.strip() and indent_of(nxt) <= level:
                break
            block.append(nxt)
        if found:
            names = {n.strip() for n in found.group(0)[1:-1].split(",")}
        else:
            step = min((indent_of(x) for x in block if x.strip()), default=0)
            names = {x.split()[0] for x in block if x.strip() and indent_of(x) == step}
            if step > level + 4 or len(names) < 2:
                continue
        # The choices listed one per line are commands, not values (a "help" line may come first).
        first = next((j for j, x in enumerate(block) if x.strip() and x.split()[0] in names), None)
        if first is not None:
            return lines[:k], block[first:]
    return None


_COMMAND_ITEM = compiled(r"^\s*[A-Za-z0-9][\w.:+-]*\s{2,}\S")


def _without_group_titles(lines: list[str]) -> list[str]:
    """``lines`` without the titles of groups of commands: lines at the margin, after a blank
    line or first, right over an indented "name  description" item; kept as they are when
    any item stands at the margin itself."""
    if any(_COMMAND_ITEM.match(line) for line in lines if indent_of(line) == 0):
        return lines
    titles = {i for i, line in enumerate(lines)
              if line.strip() and indent_of(line) == 0 and (i == 0 or not lines[i - 1].strip())
              and i + 1 < len(lines) and indent_of(lines[i + 1]) > 0 and _COMMAND_ITEM.match(lines[i + 1])}
    return [line for i, line in enumerate(lines) if i not in titles] if titles else lines


def _list_indent(lines: list[str]) -> int:
    """The indent of a list's items: its first line's. A note at the left margin after it is not an item."""
    first = next((x for x in lines if x.strip()), "")
    return max(1, indent_of(first)) if first else 1


# typer prints a type's bounds beside it ("<int range> [0<=x<=9]"): they go to the description,
# where click's own ("INTEGER RANGE  ...  [0<=x<=9]") are read.
# (A type "FLOAT RANGE" only with its range after it, "[0<=x<=600]": click shows a counter as
# "INTEGER RANGE" alone, bump-my-version's "-v  INTEGER RANGE  ... Can specify several times".)
# A metavar of several words joined by "=", ":", "/", "@", "|", "," or "..", or a part of it in
# brackets ("KEY=VAL", "HOST[:PORT]", "USER@HOST", "N..M"), is one column: rich-click's
# "--define  -D  KEY=VAL  Define a variable." was a switch. In lower or mixed case joined by "/",
# "|" or "," ("on|off", "src/dst") only where a description follows it: alone on its line such a
# word may begin a description ("Deprecated/removed" over "level.").
_COLUMN = compiled(r"^(-{1,2}[\w-]+(?: (?:[A-Z][\w,.-]*|<[^<>]*>))?|<[^<>]*>(?:\.\.\.)?"
                   r"|[A-Z][A-Z0-9_-]*(?:\[?(?:[=:/@|,]|\.\.)[A-Z0-9][A-Z0-9_-]*\]?)+"
                   r"|[A-Za-z][\w-]*(?:\[?(?:[=:@]|\.\.)[A-Za-z0-9][\w-]*\]?)+"
                   r"|[A-Za-z][\w-]*(?:[/|,][A-Za-z0-9][\w-]*)+(?=\s{2,}\S)"
                   r"|[A-Z][A-Z0-9_-]*(?: RANGE(?= \[(?:-?[\d.]+<=?x|x[<>]=?)))?"
                   # Not a note in brackets: typer's "--output-dir  -o  <dir>  [required]", with no help
                   # text, took "[required]" for its value's column, and the option was optional.
                   r"|\[(?!(?i:required\]|default:|env var:|deprecated\]))[^\]]*\])"
                   r"(?: (\[(?:-?[\d.]+<=?x|x[<>]=?)[^\]]*\]))?(?:\s{2,}|$)")
_CHOICES_PIECE = compiled(r"^([\w.|-]+)(?:\s{2,}|$)")


def _wrapped_choices(description: list[str]) -> tuple[str, list[str]] | None:
    """rich-click: "[auto|esp32|esp32s  Target chip" over "3|esp32c3]": a choices column wrapped
    inside its width (even within a word) continues on the next lines, left of their description."""
    first = _CHOICES_PIECE.match(description[0][1:]) if description[0].startswith("[") else None
    if first is None or "|" not in first.group(1):
        return None
    column, rest = "[" + first.group(1), [description[0][1 + first.end():]]
    for line in description[1:5]:
        piece = _CHOICES_PIECE.match(line) or re.match(r"^([\w.|-]*\])(?:\s{2,}|$)", line)
        if piece is None:
            return None
        column += piece.group(1)
        rest.append(line[piece.end():])
        if column.endswith("]"):
            if "]" in column[:-1]:
                return None
            return column, [x for x in rest if x] + description[len(rest):]
    return None


def _absorb_columns(entry: HelpEntry) -> HelpEntry:
    """typer: "--done  --no-done  <bool>  Mark as done": the head spans several columns."""
    head, description = entry.head, list(entry.description)
    while description:
        if found := _COLUMN.match(description[0]):
            head += " " + found.group(1)
            description[0] = description[0][found.end():]
            if found.group(2):
                description[0] = f"{description[0]}  {found.group(2)}".lstrip()
            if not description[0]:
                description.pop(0)
            if found.group(2):
                break  # the range closes the value's column: what follows is the description
        elif wrapped := _wrapped_choices(description):
            head += " " + wrapped[0]
            description = wrapped[1]
        else:
            break
    return HelpEntry(head, description, entry.indent)


# GNU patch's, bc's, stat's and zip's way: a short name, then its long name in a column of its own
# ("-p NUM  --strip=NUM  Strip NUM ...", "-c  --format=FORMAT   use ...", "-q  --quiet   quiet ...").
# gawk's too, its values in small letters or joined: "-f progfile  --file=progfile", "-d[file]
# --dump-variables[=file]", "-v var=val  --assign=var=val" (only the short names were kept).
_SHORT_HEAD = compiled(r"-[A-Za-z0-9?](?:\[[^\]\s]+\]| (?:[A-Z][\w-]*|<[^<>]*>|[a-z][\w=.-]*|'[^']*'))?")
# The long name's column after such a head: "--strip=NUM", "--dump-variables[=file]".
_LONG_COLUMN = compiled(r"(--[\w-]+(?:=\S+|\[=[^\]\s]+\]| (?:[A-Z][\w,.-]*|<[^<>]*>))?)(?:\s{2,}|$)")


def _absorb_long_column(entry: HelpEntry) -> HelpEntry:
    """"-p NUM" with "--strip=NUM  Strip NUM ..." beside it: one option, named both ways (or
    more: patch's "-s  --quiet  --silent")."""
    if not (entry.description and _SHORT_HEAD.fullmatch(entry.head.strip())):
        return entry
    head, first = entry.head.strip(), entry.description[0]
    while (found := _LONG_COLUMN.match(first)):  # not less's "-e  -E"
        head, first = f"{head}, {found.group(1)}", first[found.end():]
    if head == entry.head.strip():
        return entry
    return HelpEntry(head, ([first] if first else []) + entry.description[1:], entry.indent)


def _option(entry: HelpEntry, rules: Rules) -> OptionSpec:
    entry = _absorb_columns(entry) if rules.columns else _absorb_long_column(entry)
    if "{" in entry.head:
        # plumbum's "--mode VALUE:{copy, link, move}": the choices are one word of the head.
        entry = entry._replace(head=_SPACED_BRACES.sub(lambda found: found.group(0).replace(", ", ","), entry.head))
    if (tiers := _VERBOSITY_TIERS.fullmatch(entry.head.strip())) is not None:
        # cleo's "-v|vv|vvv, --verbose": a counter whose uses are written out (it was lost whole).
        counter = _option_read(entry._replace(head=tiers.group(1) + tiers.group(3)), rules)
        return counter._replace(repeatable=True)
    if "#" in entry.head:
        # zstd's "-T#", "--memory=#", "--long[=#]": "#" is a number written in the flag's place.
        entry = entry._replace(head=_NUMBER_MARK.sub(r"\1<num>", entry.head))
    templated = _default_in_head(entry.head.strip())
    if templated is not None:
        return _option_with_default_in_head(entry, rules, *templated)
    return _option_read(entry, rules)


# A "#" for a number right after a short option's letter or after "=" ("-T#", "--memory=#").
_NUMBER_MARK = compiled(r"(?<![\w-])(-[A-Za-z]|--[a-z][\w-]*\[?=)#(?=[\],\s]|$)")


def _default_in_head(head: str) -> tuple[str, str] | None:
    r"""kubectl's help: "-A, --all-namespaces=false:" then the description on the next line, tab
    indented; the value after "=" is the default, and its form says the kind. The head up to
    the last "=" that follows a long name in the head's last word, and the value after it up to
    the final ":", as ``(.*--[\w-]+)=(\S*):`` would match it whole; read once from the right,
    where the pattern tried each "=" of a long last word against the word's end again."""
    if not head.endswith(":") or "\n" in head:
        return None
    word_start = len(head) - 1
    while word_start > 0 and not head[word_start - 1].isspace():
        word_start -= 1
    name_end = len(head) - 1  # the "=" sought is before this
    while (equals := head.rfind("=", word_start, name_end)) >= 0:
        name_start = equals
        while name_start > 0 and _is_name_character(head[name_start - 1]):
            name_start -= 1
        # "--" and at least one character of the name after it
        if equals - name_start >= 3 and "--" in head[name_start:equals - 1]:
            return head[:equals], head[equals + 1:-1]
        name_end = name_start
    return None


def _is_name_character(ch: str) -> bool:
    return ch.isalnum() or ch in "_-"


_ONE_NAME = compiled(r"-[A-Za-z0-9]|--[a-z][\w-]+")
# The flag of a number written right after the dash (``_number_flag``): "-" then the number.
NUMBER_FLAG = "-"
_DIGIT_FLAG_RANGE = compiled(r"-\d\s*(?:\.\.\.?|…|-|to)\s*-\d")


def _number_flag(option: OptionSpec) -> OptionSpec:
    """The option "-NUM" or "-#" stands for: a number written right after the dash."""
    return OptionSpec(short=NUMBER_FLAG, takes_value=True, type="integer", value_name="NUM",
                      description=option.description)


def _digit_range_flag(entry: HelpEntry) -> OptionSpec:
    """The option "-0 ... -9" stands for: one digit written right after the dash."""
    low, high = (int(found) for found in re.findall(r"\d", entry.head)[:2])
    return OptionSpec(short=NUMBER_FLAG, takes_value=True, type="enum", value_name="NUM",
                      choices=tuple(str(digit) for digit in range(low, high + 1)),
                      description=" ".join(line.strip() for line in entry.description if line.strip()))


def _placeholder_flag(option: OptionSpec) -> bool:
    """GNU's "-NUM  same as --context=NUM", zstd's "-#  Desired compression level, where `#`
    is a number": a number written after the dash, not an option named NUM or # (grep, head,
    tail, diff, zstd; each refuses the name as written)."""
    names = [name for name in (option.long, option.short) if name]
    return len(names) == 1 and not names[0].startswith("--") and (
        names[0] == "-#" or (len(names[0]) > 3 and names[0][1:].isalpha() and names[0][1:].isupper()))


def _option_with_default_in_head(entry: HelpEntry, rules: Rules, head: str, default: str) -> OptionSpec:
    option = _option_read(entry._replace(head=head), rules)  # read as a switch, then given its value
    if default in ("true", "false"):
        return option._replace(default=default)
    if re.fullmatch(r"-?\d+", default):
        return option._replace(takes_value=True, type="integer", default=default, value_name="int")
    if default.startswith("[") and default.endswith("]"):
        return option._replace(takes_value=True, type="string", default=None, value_name="value", repeatable=True)
    value = default.strip("'\"")
    return option._replace(takes_value=True, type="string", default=value or None, value_name="string")


# Words after an option's names and value, one space apart, that make a description rather than
# more value: at least this many, three of them in a run.
_PROSE_WORDS = 3
# Tried from a word's start only, its first letter found once (atomic): tried from each letter of
# a long word, each ran on to the word's end again (quadratic). The same words are found.
_THREE_WORDS = compiled(r"(?<![\w'-])(?>[\w'-]*?[A-Za-z])[\w'-]*+[.,;:]? [A-Za-z][\w'-]*+ [A-Za-z]")


def _reads_as_prose(head: str, rest: str) -> bool:
    """Words ``head`` leaves over (``rest``) that start a description: a run of words one space
    apart, and no other name among them (pod2text's "-m width, --left-margin=width" names the
    option again; gold's "--unresolved-symbols ignore-all,report-all,..." lists its values)."""
    words = rest.split()
    if words and not words[0].startswith("-") and _CJK_SENTENCE.search(words[0]):
        return True  # Chinese and Japanese write a sentence with no spaces (a value's name is a word)
    if len(words) < _PROSE_WORDS or any(word.startswith("-") for word in words):
        return False
    return _THREE_WORDS.search(head[max(0, head.find(words[0])):]) is not None


# A run of Han, kana or Hangul too long for a value's name ("ファイル", "文件名"), or with a
# sentence's punctuation: dos2unix's Japanese "-R, --replace-symlink シンボリックリンクを変換後の
# 対象ファイルに置換する", one space after the name, read as the option's value.
# Hiragana among three of them or more is Japanese grammar ("静かにする"), which no value's name
# has ("ファイル名" is katakana and kanji alone; a re-check).
_CJK_SENTENCE = compiled(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{7}|[\u3001\u3002\uff0c\uff1a\uff1b]"
                         r"|(?=[\u3040-\u30ff\u3400-\u9fff]{3})[\u30a0-\u30ff\u3400-\u9fff]*[\u3041-\u309f]")


def _option_read(entry: HelpEntry, rules: Rules) -> OptionSpec:
    words = [w for w in entry.head.replace(",", " ").split() if not w.startswith(("-", "*", "/"))]
    # A head apart from its description ("--exclude-libs lib,lib ...  Exclude ...", or alone on its
    # line: "--python-version x.y") is names and value to its end; unless, with no gap on its line,
    # what follows the value reads as a sentence (valgrind's "--max-stackframe=<number> assume stack
    # switch for SP changes larger", continued below).
    lenient = bool(entry.description) or len(words) <= 1
    head: Head | None = None
    if lenient and entry.gapless:
        head = parse_head(entry.head, single_dash_long=rules.single_dash_long, type_column=rules.columns)
        if not _reads_as_prose(entry.head, head.rest):
            head = None
    if head is None:
        head = parse_head(entry.head, single_dash_long=rules.single_dash_long, lenient=lenient,
                          type_column=rules.columns)
    description_lines = ([head.rest] if head.rest else []) + entry.description
    notes = read_notes(description_lines)
    raw = head.value
    # One value's form written again for each word the flag takes: argparse's nargs=2 "--pair
    # PAIR PAIR" and "--mode {a,b} {a,b}" (read whole, its choices were "a" and "b} {a"),
    # picocli's "<size> <size>", tyro's "INT INT". Read once, taken that many times.
    value_words = raw.split() if raw else []
    copies = len(value_words) if len(set(value_words)) == 1 else 1
    if copies > 1:
        raw = value_words[0]
    takes_value = raw is not None
    if rules.value_from_type_note and not takes_value:
        takes_value = bool(notes.choices) or (notes.yargs_type is not None
                                               and notes.yargs_type not in ("boolean", "count"))
        # An option yargs was given no type for, with a default no switch has ("--port  Set port
        # [default: 3000]", json-server): yargs takes the word after it as its value.
        takes_value = takes_value or (notes.yargs_type is None and notes.default is not None
                                      and not notes.default_said and notes.default.lower() not in ("true", "false"))
    if rules.values_unshown and not takes_value and head.longs and not notes.repeatable \
            and notes.default is not None and not notes.default_said and _names_a_value(notes.default):
        # In a help that shows no option's value (meow's, sade's), an option whose default only a
        # value can have ("--width, -w   Target width in pixels (default: 800)") takes one,
        # written apart, as every parser takes it. (A help that shows values elsewhere means a
        # switch by it: node's "--tls-max-v1.2  set default TLS maximum to TLSv1.2 (default:
        # TLSv1.3)".)
        raw = head.longs[0].lstrip("-").upper()
        takes_value = True
    if rules.value_from_default and not takes_value and head.longs and (notes.repeatable or (
            notes.default is not None and not notes.default_said and notes.default.lower() not in ("true", "false"))):
        # flaggy's "-w --workers   Number of worker threads (default: 4)", and a slice said to be
        # given again ("-t --tag   Tag to add (repeatable)"): a value, named as the flag, given
        # after "=" ("--tag sea" in a command named tag is refused by flaggy; "--tag=sea" is not).
        raw = head.longs[0].lstrip("-").upper()
        takes_value = head.equals = True
    at_once = _SEVERAL_AT_ONCE.fullmatch(raw.strip()) if raw else None
    several_at_once = at_once is not None
    if at_once is not None:
        # the value itself, typed and named as one
        raw = at_once.group(1) or at_once.group(2) or at_once.group(3) or at_once.group("nested")
    tuple_types: list[str] = []
    nargs = _CLICK_NARGS.fullmatch(raw.strip()) if raw and not several_at_once else None
    if rules.columns and nargs is not None and not nargs.group(1):
        nargs = None  # rich-click's panels show click's tuple ("<TEXT TEXT>..."); "TEXT..." is typer's own
    if (rules.nargs_dots or rules.columns) and nargs is not None:
        # click writes "..." after the value of an option taking several words after its one flag
        # (nargs=2: "INTEGER..."; a tuple type: "<TEXT FLOAT>..."), not of one given again: click
        # refuses "--origin 1 --origin 2" for "--origin 1 2" (a repeated option shows no mark).
        if nargs.group(1):
            tuple_types = nargs.group(1).split()
        else:
            raw, several_at_once = nargs.group(2), True
    choices = (value_choices(raw, angle=rules.angle_choices) or _unmarked_choices(raw, notes.default)) if raw else ()
    value_name = None
    if raw:
        value_name = ",".join(choices) if choices and raw.startswith("{") else strip_brackets(raw)
    # Prose choices only for a single value ("-H NAME TYPE" takes two: the list is about one).
    # optionator's "--fix-type Array  ... (directive, problem, suggestion)": items of one
    # comma-separated value, not its only values ("problem,suggestion" is one).
    single = takes_value and " " not in (raw or "").strip() and raw != "Array"
    choices = choices or notes.choices or (notes.prose_choices if single else ())
    if not takes_value:
        kind = "boolean"
    elif choices:
        kind = "enum"
    elif rules.value_from_type_note and notes.yargs_type == "number":
        kind = "number"
    else:
        kind = value_type(value_name, raw)
        if kind in ("integer", "number") and _names_a_word_value(join_description(description_lines), value_name):
            kind = "string"  # "-j N  … 'auto' uses every core": a number type would refuse "auto"
        elif kind == "string" and (value_name or "").lower() in _GENERIC_VALUE_NAMES and head.longs:
            # pflag prints the type, not a name ("--file string"): the option's name says what it is,
            # but a --path whose description speaks of a document's insides and of no file ("path
            # of the object to list") is a path into that document, not a file's place.
            kind = value_type(head.longs[0].lstrip("-"), None)
            if kind == "path" and inside_a_document(head.longs[0], join_description(description_lines)):
                kind = "string"
    if takes_value and not choices and notes.noted_type in ("integer", "number", "path") \
            and kind in ("string", "number"):
        kind = notes.noted_type  # jsonargparse's "--quality QUALITY   ... (type: int, default: 85)"
    default = notes.default if notes.default is not None else (notes.prose_default if choices else None)
    if head.value_optional and notes.default_said and default == notes.default:
        # ctest's "--show-only[=format] ... Defaults to 'human'": the value the flag alone stands
        # for, which a client filling in defaults would send, turning the option on (a re-check).
        default = None
    if default is None and choices and (last := _LAST_BRACKETED.search(join_description(description_lines))) \
            and last.group(1) in choices:
        default = last.group(1)  # valgrind: "--leak-check=no|summary|full  search for memory leaks at exit?  [summary]"
    if rules.default_as_value_name and head.equals and raw and not _VALUE_NAME.fullmatch(raw) \
            and (default is None or default == raw.strip('"')):  # kong's "--limit=100  ... (default: 100)"
        # kingpin writes a flag's default where its value's name would be: "--retries=3",
        # '--server="127.0.0.1"', "--color=auto" (a name is in capitals: "--image=IMAGE").
        default = raw.strip('"')
        value_name = (head.longs[0] if head.longs else "value").lstrip("-").upper()
        kind = "string" if choices else _type_from_default(default)
    # A name in capitals (argparse's metavar), urfave's bare "value" or a field's name (picocli's
    # "<width>") says nothing of the type; the default then does ("--width WIDTH (default 2)").
    bare = raw.strip("<>[]") if raw else ""
    # go-flags names no value at all ("-w, --width=   Width ... (default: 640)")
    # A plain lower-case name ("-w width", "-j jobs": hand-written C, BSD) says no more than one
    # in capitals; words that name a kind of text ("-o file") are typed before this.
    if kind == "string" and default is not None and raw is not None and bare.lower() not in _TEXT_TYPE_NAMES and (
            rules.value_names_untyped or bare.isupper() or bare in _UNTYPED_VALUE_NAMES or not bare
            or _PLAIN_LOWER_NAME.fullmatch(bare)):
        kind = _type_from_default(default)
    if kind in ("integer", "number") and default is not None and not _is_number(default, kind) \
            and _default_is_a_value(default) and (value_name or "").lower() not in _TYPE_WORDS:
        # The default is a value the program takes: "localhost:8000" for <IP:PORT>, "auto" for
        # N, "10s" for SECONDS; "1.0" for tail's N. The type must take it, and whatever else is
        # like it (a default of several words is prose: "wait forever").
        kind = "number" if _is_number(default, "number") else "string"
    if kind in ("integer", "number") and (value_name or "").lower() not in _TYPE_WORDS \
            and _WITH_A_UNIT.search(join_description(description_lines)):
        # A number that may carry a unit: hexyl's "-n, --length <N>  ... The N argument can also
        # include a unit" refused "4KiB"; GNU's "SIZE may have a multiplier suffix".
        kind = "string"
    # A switch whose default is 0 counts its uses (argparse's action="count" shows "-v, --verbose
    # more output (default: 0)"; -vv is 2): its other switches' defaults are true or false. Not in
    # a hand-written help, whose option shown without a value may take one all the same
    # (redis-benchmark's "--precision   Number of decimal places ... (default 0)"): outside
    # argparse, only as clap and cyclopts write it, "[default: 0]".
    counted = rules.counter_from_zero and not takes_value and default is not None and default.strip() == "0" \
        and (rules.remainder_dots or _BRACKETED_ZERO.search(join_description(description_lines)) is not None)
    if counted:
        default = None
    if kind == "boolean" and default is not None:
        default = _flag_default(default, head.longs[0] if head.longs else None,
                                head.negations[0] if head.negations else None)
    # "--ignore <dirs>...  Ignore extra directories, each separated by a comma" (pipreqs, docopt):
    # the dots are the list one value holds; given twice, docopt refused it.
    marked = head.repeat_marker and not (takes_value and _COMMAS_IN_ONE.search(join_description(description_lines)))
    repeatable = marked or notes.repeatable or is_repeat_type(raw) or counted or (
        not takes_value and _own_letter_doubled(head.shorts, join_description(description_lines)))
    if takes_value and default == "[]":
        # An empty list for a default: argparse's action="append" (and nargs="*", whose words come at
        # once) shows "(default: [])"; it is given again for more, and "[]" is no value to give.
        # Not a value that is itself a list (pylint's "--ignore-paths <pattern>[,<pattern>...]",
        # "List of decorators ..."): given again, the last one counts.
        default = None
        if not several_at_once and "," not in (raw or "") and not _A_LIST_IN_ONE.search(
                join_description(description_lines)):
            repeatable = True
    if rules.counter_takes_count and repeatable and not head.repeat_marker and not is_repeat_type(raw) \
            and kind == "integer":
        # kong's counter, "-v, --verbose=INT  Verbosity (repeatable)": "--verbose=2" is a count of
        # 2, and "--verbose=1 --verbose=1" a count of 1 (each sets it): one count, not a list.
        repeatable = False
    if copies > 1:
        per_flag = copies
        value_name = " ".join([value_name] * copies) if value_name else value_name
    else:
        per_flag = _values_per_flag(raw, rules, entry.head, join_description(description_lines)) \
            if takes_value and not several_at_once else 1
    if tuple_types:
        # Given again for more (a tuple option is mostly ``multiple=True``, and click keeps the
        # last of one that is not): each time its words, one per type.
        repeatable, per_flag, value_name = True, len(tuple_types), " ".join(tuple_types)
        kind = value_type(tuple_types[0], tuple_types[0]) if len(set(tuple_types)) == 1 else "string"
    elif rules.nargs_dots and several_at_once:
        repeatable = False
    if rules.columns and raw and (items := _TYPER_TUPLE.fullmatch(raw.strip())):
        # typer's tuple: "<int,int>..." is two values after one flag (typer refuses the flag given
        # twice, one value each), not a repeated option.
        parts = items.group(1).split(",")
        repeatable, per_flag, value_name = False, len(parts), " ".join(parts)
        kind = value_type(parts[0], f"<{parts[0]}>") if len(set(parts)) == 1 else "string"
    option = OptionSpec(
        long=head.longs[0] if head.longs else None,
        short=head.shorts[0] if head.shorts else _one_dash_name(head),
        takes_value=takes_value,
        value_name=value_name or None,
        type=kind,  # type: ignore[arg-type]
        default=default,
        choices=choices if takes_value else (),
        required=head.required_marker or notes.required,
        repeatable=repeatable,
        description=_with_alone(_SEPARATOR_DASH.sub("", join_description(description_lines), count=1), head.alone),
        negation=head.negations[0] if head.negations else None,
        value_optional=head.value_optional and takes_value,
        values_at_once=several_at_once,
        # An optional value written apart ("--label [<LABEL>]": clap's, argparse's nargs="?") is
        # a word of its own too, which the flag given alone would take from what follows it;
        # Boost's "--level [=arg(=1)]" is after "=".
        value_spaced=raw is not None and (
            not head.equals and not (head.value_optional and raw.lstrip("[").startswith("=")) if head.longs
            else not head.value_optional and _value_apart(entry.head, head.shorts)),
        values_per_flag=per_flag,
    )
    if head.value and (_LIST_IN_ONE_WORD.fullmatch(head.value.strip()) or _ITEMS_IN_ONE_WORD.search(entry.head)):
        # "--skip [NAME,...]": the list is one value, its items joined by commas; given again, the
        # flag's last value replaced the others. jsonargparse's "--label [ITEM,...]" (its note says
        # "type: List[...]") reads the word as YAML, a JSON list: "--label=a" alone was refused
        # ("Expected a list").
        written = "json" if _TYPED_LIST.search(option.description) else ","
        return option._replace(one_word_list=written, repeatable=False, value_optional=False, value_spaced=False,
                               value_name=None)
    return option


# A list written as one value in brackets: "[NAME,...]", jsonargparse's "[ITEM,...]".
_LIST_IN_ONE_WORD = compiled(r"\[[A-Z][A-Z0-9_]*,\.\.\.\]")
# Or as its first items joined by commas: coverage's "--include=PAT1,PAT2,..." (optparse keeps the
# last of the flag given again: "--include=a/* --include=b/*" reported b/ alone). Not kong's
# "--tag=TAG,...", one name: kong takes the flag again as well as the items joined.
_ITEMS_IN_ONE_WORD = compiled(r"[=\s]<?[A-Za-z][\w-]*(?:,[A-Za-z][\w-]*)+,(?:\.\.\.|…)>?(?=\s|$)")
# jsonargparse's note of a collection's type: "(type: List[str], default: [])", "Optional[List[int]]",
# "Sequence[str]", "Set[int]", "Tuple[str, ...]".
_TYPED_LIST = compiled(r"\btype: (?:Optional\[)?(?:List|list|Sequence|MutableSequence|Set|set|FrozenSet|frozenset|"
                       r"Tuple|tuple|Iterable|Collection)\[")


def _names_a_value(default: str) -> bool:
    """A default that only a value can have: a number or a word that is no yes or no (meow's
    "(default: 800)", sade's "(default db.json)"), not a switch's "(default: off)"."""
    word = default.strip().strip("\"'`").lower()
    return bool(word) and word not in _SWITCH_DEFAULTS and " " not in word


# What a switch's default is said to be.
_SWITCH_DEFAULTS = frozenset({"true", "false", "yes", "no", "on", "off", "enabled", "disabled", "none", "null",
                              "unset", "set", "y", "n", "t", "f", "nil", "enable", "disable", "[]", "{}"})


def _with_alone(description: str, alone: str | None) -> str:
    """``description``, saying what the flag given without its value stands for, where the
    help says (pflag's '--mirror string[="fetch"]': the flag alone is a mirror for fetching)."""
    return then_sentence(description, f"Given alone, the flag means {alone}.") if alone else description


def _unmarked_choices(raw: str, default: str | None) -> tuple[str, ...]:
    """Choices a value shows without a framework's brackets for them: values bare between bars
    (valgrind's "--leak-check=no|summary|full", popt's "--mode=fit|fill|crop", systemd's
    "--json=pretty|short|off"), not kinds of value (setpriv's "uid|user", readelf's "number|name")
    or a range ("0-60|force|poke"); and an enum's cases as System.CommandLine writes them,
    "<Read|ReadWrite|Write>" (a value named as kinds, "<file|dir>", "<HOST|IP>", commander's
    "<boolean|null>" whose default is null, is no choice unless its default is one)."""
    # The same in angle brackets (commons-cli's "--codec <mp3|ogg|flac>"): lower-case words that
    # name no kind of value.
    bare = raw[1:-1] if raw[:1] == "<" and raw[-1:] == ">" else raw
    if (unbracketed := _BARE_CHOICES.fullmatch(bare)) is not None:
        words = unbracketed.group(0).split("|")
        if not names_kinds(words) and not any(_RANGE.fullmatch(word) for word in words):
            return tuple(words)
    angled = value_choices(raw, angle=True)
    if angled and (default in angled and default.lower() not in _UNSET_DEFAULTS
                   or all(_ENUM_CASE.fullmatch(case) for case in angled)):
        return angled
    return ()


def _one_dash_name(head: Head) -> str | None:
    """A one-dash name of several letters beside the two-dash one ("-cd, --check-diff"): the
    option's other name, which a usage may write ("[--check | -cd]")."""
    if not head.longs or not head.longs[0].startswith("--"):
        return None
    return next((name for name in head.longs[1:] if name[1] != "-"), None)


def _value_apart(head: str, shorts: list[str]) -> bool:
    """Whether a short name's value is written as a word of its own ("-s <socket>", "-n NUM"),
    not joined to it ("-n5", "-Idirectory"): parsers written by hand take it only so (redis-
    benchmark's "-s" reads the next word), and getopt, argparse and clap take either."""
    return bool(shorts) and shorts[0] in head.replace(",", " ").split()


_VALUE_NAME = compiled(r"[A-Z][A-Z0-9_-]*(?:\.\.\.)?")
# Values written bare between bars, in lower case: "yes|no", "pretty|short|off".
_BARE_CHOICES = compiled(r"[a-z0-9][\w.+-]*(?:\|[a-z0-9][\w.+-]*)+")
# Words that name a kind of value rather than being one.
_RANGE = compiled(r"\d+-\d+")
# A value that is a list of several itself: "List of decorators ...", "comma-separated".
def _own_letter_doubled(shorts: list[str], text: str) -> bool:
    """Whether a switch's description writes its own letter doubled: alacritty's "-q  Reduces the
    level of verbosity (the min level is -qq)", tcpdump's "-n ... -nn also ...": it counts."""
    letters = [short[1] for short in shorts if len(short) == 2 and short[0] == "-" and short[1].isalpha()]
    for letter in letters:
        if re.search(rf"(?<![\w-])-{letter}{letter}+(?![\w-])", text) is None:
            continue
        # ... as more of the same: a level, or three of it; not zip's "-F  fix zipfile (-FF try
        # harder)", a mode of its own that "-F -F" is not (a re-check)
        if re.search(rf"(?<![\w-])-{letter}{{3}}(?![\w-])", text) or _MORE_OF_IT.search(text) \
                or re.search(rf"(?i)\b(?:use|with|give|pass|specify)\s+-{letter}{letter}+(?![\w-])", text):
            return True
    return False


_MORE_OF_IT = compiled(r"(?i)\blevel|verbos|quiet|\bmore\b|\bless\b|increase|decrease|\btwice\b|\balso\b|\bdebug")


# Values written in one, between commas: "comma-separated", "separated by commas", "each separated by a comma".
_COMMAS_IN_ONE = compiled(r"(?i)\bcomma[- ]separated\b|\bseparated by (?:a )?commas?\b")
_A_LIST_IN_ONE = compiled(r"(?i)\blist of\b|\bcomma\b|\bseparated by\b|-separated\b")
# A description ending in one of the option's choices in brackets: its default.
_LAST_BRACKETED = compiled(r"\[([\w.+-]+)\]\s*$")
# An enum case as .NET names one: "Read", "ReadWrite" (not "FILE", nor "file").
_ENUM_CASE = compiled(r"(?:[A-Z][a-z0-9]+)+")
# A dash between an option and what it does (LLVM's "--adce   - Aggressive Dead Code Elimination",
# savelog's, pod2html's): no part of the description.
_SEPARATOR_DASH = compiled(r"^-(?:\s+|$)")

# click's value of several words after one flag: a tuple's types ("<TEXT FLOAT>..."), or one
# type taken nargs times ("INTEGER...", "FLOAT RANGE...").
_CLICK_NARGS = compiled(r"<([A-Z]+(?: [A-Z]+)+)>\.\.\.|([A-Z][A-Z ]*)\.\.\.")
# typer's tuple option in its type column: "<int,int>...", "<str,float>...".
_TYPER_TUPLE = compiled(r"<(\w+(?:,\w+)+)>\.\.\.")
_SEVERAL_ANGLED = compiled(r"(?:<[^<>\s]+>\s+){1,3}<[^<>\s]+>")
_SEVERAL_WORDS = compiled(r"[A-Za-z_][\w-]*(?: [A-Za-z_][\w-]*){1,3}")
# A word may begin with an optional part in brackets: yt-dlp's "--print-to-file [WHEN:]TEMPLATE FILE"
# (optparse's nargs=2: read as one, the call's next word was taken for the file).
_CAPITALS_WORD = r"(?:\[[A-Z][A-Z0-9_]*:\])?[A-Z][A-Z0-9_]*"
_SEVERAL_CAPITALS = compiled(rf"{_CAPITALS_WORD}(?: {_CAPITALS_WORD}){{1,3}}")
_SEVERAL_SHORT_NAMES = compiled(r"[a-z][a-z0-9_]{0,11}(?: [a-z][a-z0-9_]{0,11}){1,2}")


def _values_per_flag(raw: str | None, rules: Rules, head: str = "", description: str = "") -> int:
    """How many words one flag takes: "<W> <H>" is two (clap), "<COMMIT HASH>" one; argparse
    writes nargs=2 as "W H" (its metavars), where other parsers' "INTEGER RANGE" is one type."""
    text = (raw or "").strip()
    if _SEVERAL_SHORT_NAMES.fullmatch(text) and text in head and len(set(text.split())) == len(text.split()) \
            and all(re.search(rf"[$<]{word}\b", description) for word in text.split()):
        # Names in small letters that the description says again as values: jq's "--arg a v  set
        # variable $a to value <v>" (one word, "--arg x '$x'" made jq print null: "$x" was the value).
        return len(text.split())
    if _SEVERAL_ANGLED.fullmatch(text) or (rules.remainder_dots and _SEVERAL_WORDS.fullmatch(text)):
        return len(text.split())
    # Metavars in capitals, each a name of its own, written so in the head ("-s, --size W H",
    # gumdrop's; sqlite3's "-pagecache SIZE N"), but not click's types of one value ("INTEGER
    # RANGE"), nor a list in one word read apart ("--show=A,B,C", "INT|FLOAT").
    if _SEVERAL_CAPITALS.fullmatch(text) and text in head and not text.endswith(" RANGE") \
            and len(set(text.split())) > 1:
        return len(text.split())
    return 1


_UNTYPED_VALUE_NAMES = frozenset({"value", "val", "arg"})
_PLAIN_LOWER_NAME = compiled(r"[a-z][a-z_]*")  # cxxopts and boost name every value "arg"

# Value names that only say "some text" (pflag prints the type: "--file string").
_GENERIC_VALUE_NAMES = frozenset({"string", "str", "text", "value", "val"})
# Of those, the names a framework prints for its text type (click's TEXT, typer's <str>,
# pflag's string): a default that looks like a number does not make the value one (click's
# "--target-version TEXT  [default: 3.10]" was a number, and 3.10 was passed as 3.1).
_TEXT_TYPE_NAMES = frozenset({"string", "str", "text"})
# A value said to take a unit or a suffix after its number ("can also include a unit", "may have
# a multiplier suffix", "with an optional suffix", "units: K, M, G").
_WITH_A_UNIT = compiled(r"(?i)\b(?:(?:include|have|take|accept|with|allow)s? (?:an? )?(?:optional )?"
                        r"(?:unit|(?:multiplier |size |time )?suffix)|units?:)")

# argparse's nargs="+": "W [W ...]" (one or more values after the flag), its choices too.
# argparse's nargs="+" and nargs="*"; dpkg's "--show [<pattern>...]" (words after the flag, or none)
# "X [X ...]" (argparse's nargs="+"), "[X ...]" (nargs="*"; "[X [X ...]]" before Python 3.9, as
# tyro still writes it), "[<x>...]".
_SEVERAL_AT_ONCE = compiled(r"(\S+) \[\1 \.\.\.\]|\[(\S+) \.\.\.\]|\[(<[^<>\s]+>)\.\.\.\]"
                            r"|\[(?P<nested>\S+) \[(?P=nested) \.\.\.\]\]")


# A quoted lower-case word the text gives as a value: "'auto' uses the number of CPU cores",
# "Defaults to 'auto'", "N or 'max'"; not one quoted in an example ("children of 'dir'").
_WORD_VALUE = compiled(r"""(?:\b(?:or|to|default:?|value|be|is)\s+(['"`])([a-z][a-z_-]*)\1"""
                         r"""|(['"`])([a-z][a-z_-]*)\3\s+(?:uses|means|sets|selects|picks|lets|stands|for)\b)""")


def _names_a_word_value(description: str, value_name: str | None) -> bool:
    own = (value_name or "").strip("<>[]").lower()
    return any((found.group(2) or found.group(4)) != own for found in _WORD_VALUE.finditer(description))


def _flag_default(default: str, long: str | None, negation: str | None) -> str | None:
    """A flag's default as "true" or "false": click's "--force / --no-force [default: no-force]"
    names the form that is on; None for anything else."""
    word = default.strip().lower()
    if word in ("true", "yes", "on") or (long is not None and word == long.lstrip("-").lower()):
        return "true"
    if word in ("false", "no", "off") or (negation is not None and word == negation.lstrip("-").lower()):
        return "false"
    return None


# What a parser prints for an option given no default (argparse's "%(default)s" of None), and
# the words a help uses for a limit that is not set ("(default: unlimited)" for restic's int).
_UNSET_DEFAULTS = frozenset({"none", "null", "nil", "", "infinite", "infinity", "unlimited", "forever", "never"})
# Value names that are the parser's own type (pflag's "--limit int"): the type is said outright.
_TYPE_WORDS = frozenset({"int", "integer", "uint", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                         "uint64", "float", "float32", "float64", "double", "number", "num"})


def _default_is_a_value(default: str) -> bool:
    """A default written as a value could be passed ("localhost:8000", "auto", "10s"), not one
    that says there is none, names an environment variable, or is prose ("wait forever")."""
    text = default.strip()
    return text.lower() not in _UNSET_DEFAULTS and not text.startswith("$") and " " not in text


def _is_number(text: str, kind: str) -> bool:
    """Whether ``text`` (a default as printed, quotes aside) is a value of ``kind``."""
    pattern = r"[+-]?\d+" if kind == "integer" else r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
    return re.fullmatch(pattern, text.strip().strip("'\"")) is not None


def _type_from_default(default: str) -> ValueType:
    """argparse prints a metavar, not a type: "--width WIDTH (default 2)" takes a number. A
    default is the only evidence then, and "3" does not say that 2.5 is refused: the wider
    type is taken (a value name such as N or COUNT has already said integer)."""
    return "number" if re.fullmatch(r"-?(?:\d+\.?\d*|\.\d+)", default) else "string"


def join_description(lines: list[str]) -> str:
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(_SPACES.sub(" ", line.strip()))  # yargs pads notes into a right column
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs)


def _paired_negations(options: list[OptionSpec]) -> list[OptionSpec]:
    """A switch ``--x`` said to be on by default ("--cache  use the cache (default)") and a switch
    ``--no-x`` listed apart ("--no-cache  do not use it") are one option, on by default, whose
    false is ``--no-x``: false left both out, and the program kept its default. (Where neither
    says which is the default, both stay, as the help lists them.)"""
    at = {o.long: k for k, o in enumerate(options) if o.long and not o.takes_value and o.negation is None}
    paired: dict[int, int] = {}
    for k, option in enumerate(options):
        if option.long is None or option.takes_value or option.negation is not None \
                or not option.long.startswith("--") or option.long.startswith("--no-"):
            continue
        off = at.get("--no-" + option.long[2:])
        if off is not None and _SAID_DEFAULT.search(option.description):
            paired[k] = off
    if not paired:
        return options
    gone = set(paired.values())
    out = []
    for k, option in enumerate(options):
        if k in gone:
            continue
        if k in paired:
            option = option._replace(negation=options[paired[k]].long, default="true")
        out.append(option)
    return out


# "(default)" or "[default]" ending a switch's description: the switch is on unless turned off.
_SAID_DEFAULT = compiled(r"[(\[]default[)\]]\s*\.?\s*$", re.IGNORECASE)


def _merge_duplicates(options: list[OptionSpec], in_untitled: set[int]) -> list[OptionSpec]:
    """The same option printed twice (a tool listing it under two headings) counts once, as
    first printed; but one first met in untitled text ("unless\n--sort-keys is given." in a
    program's description, wrapped to start a line) takes what a later list of options says."""
    seen: dict[str, int] = {}
    out: list[OptionSpec] = []
    from_untitled: list[bool] = []
    for position, opt in enumerate(options):
        keys = [k for k in (opt.long, opt.short) if k]
        index = next((seen[k] for k in keys if k in seen), None)
        if index is None:
            for k in keys:
                seen[k] = len(out)
            out.append(opt)
            from_untitled.append(position in in_untitled)
        elif from_untitled[index] and position not in in_untitled:
            out[index], from_untitled[index] = opt, False
            for k in keys:
                seen[k] = index
        elif from_untitled[index] == (position in in_untitled) \
                and (forms := _forms_of_one_option(out[index], opt)) is not None:
            # Both from the list, or both from a help with no headings (GNU's): not an entry of
            # the list and a flag in prose ("--delimiter (-d) option. Setting it is optional.")
            out[index] = forms
    return out


# Words that go on with a sentence whose subject is a flag ("--text and --file cannot be used
# together"), where an entry's description would begin.
# Not "do": msgfmt's "-k, --keyword   do not to use default keywords" is the flag alone, listed.
_SENTENCE_GOES_ON = frozenset({"and", "or", "nor", "is", "are", "was", "were", "can", "cannot", "must", "may",
                               "will", "should", "overrides", "implies", "takes", "has", "have", "does"})
# The same, in Japanese and Chinese: a particle after the flag ("-f/--file が指定されない場合", pg_dumpall),
# or the word for option ("--quoting-style オプションに対する有効な引数", tar; "选项"), a re-check.
_CJK_GOES_ON = compiled(r"[がはをにのとでもへや]|オプション|选项|選項|参数|參數")
# A value written as itself in an option's entry ("--format=gzip"), not a placeholder for one.
_WRITTEN_VALUE = compiled(r"[a-z0-9][\w.+-]*")


def _forms_of_one_option(first: OptionSpec, then: OptionSpec) -> OptionSpec | None:
    """One long option listed in several forms, one per entry, as GNU tools do: "--time" over
    "--time=WORD" is a value that may be left out (du); "--format=zstd" over "--format=gzip"
    are its values (zstd). None for the same form printed again (under two headings)."""
    if first.long is None or first.long != then.long:
        return None
    said = first.description if not then.description or then.description in first.description \
        else then.description if not first.description \
        else f"{first.description}{'' if first.description.endswith(('.', ';', ':')) else ';'} {then.description}"
    if first.takes_value != then.takes_value:
        valued = first if first.takes_value else then
        if valued.value_spaced or valued.value_optional:
            return None  # not "--time=WORD" (ctest's "--repeat until-pass:<n>" forms are of another kind)
        bare = then if valued is first else first
        if bare.description.split(" ", 1)[0] in _SENTENCE_GOES_ON or _CJK_GOES_ON.match(bare.description):
            # A sentence of the help's prose that starts a line with the flag: hashsum's "--text
            # and --file cannot be used together." made --text's value one that may be left out
            # (and the sentence lost its subject).
            sentence, own = f"{bare.long} {bare.description}", valued.description
            return valued._replace(description=f"{own}{'' if own.endswith(('.', ';', ':')) else '.'} {sentence}"
                                   if own else sentence)
        return valued._replace(value_optional=True, short=first.short or then.short, description=said)
    # Its values so far: the one its first form writes, or those the forms before gave it.
    values = [*(first.choices if first.type == "enum" and first.value_name is None else (first.value_name,)),
              *(then.choices if then.type == "enum" and then.value_name is None else (then.value_name,))]
    if first.takes_value and then.takes_value and len(set(values)) > 1 and not first.value_optional \
            and all(value and _WRITTEN_VALUE.fullmatch(value) for value in values):
        choices = tuple(dict.fromkeys(values))
        return first._replace(type="enum", choices=choices, value_name=None, short=first.short or then.short,
                              description=said)
    return None


def _usage_option(flag: str, raw: str | None) -> OptionSpec:
    """An option the usage alone names ("-d delim", "[-v]"), as its words say it."""
    long = flag if flag.startswith("--") or len(flag) > 2 else None
    option = OptionSpec(long=long, short=None if long else flag)
    return _with_usage_value(option, raw) if raw is not None else option


def _help_names_joined(options: list[OptionSpec], facts: UsageFacts) -> list[OptionSpec]:
    """Of options the usage alone names, a letter and a help or version option written as the two
    alternatives of a group ("[-h | --help]", "[-v | --version]", git's) as one option of both
    names: the letter alone was an option of its own, and the tool had parameters "h" and "v",
    where the long name is never one (``schema``)."""
    joined: dict[str, str] = {}  # each letter: the long name it is
    for group in facts.exclusive:
        if len(group) != 2:
            continue
        letter, long = sorted(group, key=len)
        if long in HELP_FLAGS and len(letter) == 2 and letter[0] == "-" and letter[1] != "-" \
                and facts.option_values.get(letter) is None and facts.option_values.get(long) is None:
            joined[letter] = long
    if not joined:
        return options
    letter_of = {long: letter for letter, long in joined.items()}
    return [option._replace(short=letter_of[option.long]) if option.long in letter_of else option
            for option in options if option.short not in joined]


def _valued_from_usage(opt: OptionSpec, facts: UsageFacts) -> OptionSpec:
    """A listed switch the usage gives a value ("--price <price>"): argh lists no values."""
    raw = _usage_value(opt, facts)
    return opt if raw is None or opt.takes_value else _with_usage_value(opt, raw)


def _usage_value(opt: OptionSpec, facts: UsageFacts) -> str | None:
    """The value the usage writes after the option, by either of its names ("<price>", "=N")."""
    return next((facts.option_values[name] for name in (opt.long, opt.short) if name in facts.option_values), None)


def _with_usage_value(opt: OptionSpec, raw: str) -> OptionSpec:
    optional = raw.startswith("[") and raw.endswith("]") and not raw.startswith("[{")  # "--color[=WHEN]"
    raw = raw[1:-1] if optional else raw
    equals = raw.startswith("=")
    raw = raw.removeprefix("=")
    value_name = strip_brackets(raw.removesuffix("...")) or None
    choices = value_choices(raw) if raw.startswith("{") else ()
    kind = "enum" if choices else value_type(value_name, raw)
    return opt._replace(takes_value=True, value_name=value_name, type=kind, choices=choices,  # type: ignore[arg-type]
                        repeatable=opt.repeatable or raw.endswith(("...", "...>")), value_optional=optional,
                        # a usage writes a short option's value as a word of its own: "[-d delim]"
                        value_spaced=not equals and not optional)


def _choices_from_usage(opt: OptionSpec, facts: UsageFacts) -> OptionSpec:
    """A listed option whose entry names no choices, where the usage writes them as its value
    ("[-s {name|size|time}]" beside "-s, --sort WORD")."""
    if not opt.takes_value or opt.choices or "}|" in (opt.value_name or ""):
        # tyro's "{None}|PATH": a choice or any path, which the usage's "[--config {None}|PATH]",
        # read as alternatives, cut to "{None}": every path was refused.
        return opt
    raw = (_usage_value(opt, facts) or "").removeprefix("=")
    choices = value_choices(raw) if raw.startswith("{") else ()
    return opt._replace(choices=choices, type="enum") if choices else opt


def _require_from_usage(opt: OptionSpec, facts: UsageFacts) -> OptionSpec:
    if opt.required or not facts.required_flags:
        return opt
    named = any(name and name in facts.required_flags for name in (opt.long, opt.short))
    # A bare boolean in usage is an example, not a requirement.
    return opt._replace(required=True) if named and opt.takes_value else opt



def _texts(prose: list[list[str]], facts: UsageFacts, *,
           author_after_version: bool = False) -> tuple[str | None, str | None, str, str]:
    name = facts.program
    version = None
    paragraphs: list[str] = []
    # Paragraphs of "Label: value" lines or of two columns (their lines kept as lines): none is
    # the about; those before it follow it in the description.
    listings: set[int] = set()
    for block in prose:
        current: list[str] = []
        for line in block + [""]:
            if line.strip() and DRAWN_LINE.fullmatch(line.strip()) is None:  # a rule ("=====") ends a paragraph
                current.append(line)
                continue
            if author_after_version and current and not paragraphs and len(current) >= 3 \
                    and _PERSON.fullmatch(current[1].strip()) \
                    and (header := _VERSION_LINE.match(current[0].strip())) is not None \
                    and not current[0].strip()[header.end():].strip():
                # clap 2 and 3, structopt: "imgconv 3.1.0", its author ("Ann Example", no address
                # to tell it by), then the about: the author's name began the description.
                del current[1]
            if current:
                listed = _fields(current) or _GRAMMAR_RULE.match(current[0].strip()) is not None or (
                    len(current) >= 2 and all(_TABLE_LINE.fullmatch(x.strip()) for x in current))
                # Their lines stay lines: joined, the columns run into each other.
                paragraphs.append(("\n" if listed else " ").join(line.strip() for line in current))
                if listed:
                    listings.add(len(paragraphs) - 1)
            current = []
    kept: list[str] = []
    put_off: list[str] = []
    for i, paragraph in enumerate(paragraphs):
        if i in listings and not kept:
            put_off.append(paragraph)
            continue
        # A frame is a title's ("*** Zstandard CLI ... ***"): tried on a long paragraph of stars,
        # every length of its first run would be tried against every end (8,000 "*": 27 s)
        if len(paragraph) <= _FRAMED_AT_MOST and (framed := _FRAMED.match(paragraph)) is not None:
            paragraph = framed.group(2)
        paragraph = _OVERVIEW.sub("", paragraph, count=1)
        if i == 0 or version is None:
            found = _VERSION_LINE.match(paragraph)
            if found and (i == 0 or len(paragraph.split()) <= 3):
                version = found.group(2)
                name = name or found.group(1).split()[0]
                # "GNU Wget 1.21.3, a non-interactive network retriever.": what follows the comma;
                # "apt 2.6.1 (amd64)": a build's note, nothing about the program
                rest = paragraph[found.end():].lstrip(",;:-–— ").strip()
                if not rest or _AUTHOR.search(rest) or _BUILD_NOTE.fullmatch(rest) or _DATED.match(rest):
                    continue
                paragraph = rest
        if len(paragraph) < 120 and _AUTHOR.search(paragraph):  # a short line only: no search of long ones
            continue
        paragraph = _GNU_MANDATORY_NOTE.sub("", paragraph).strip()
        if not paragraph or _PROSE_NOISE.match(paragraph) or _OPTION_LIKE.match(paragraph):
            continue
        if not kept:
            named = _NAME_DASH_ABOUT.match(paragraph)
            # "name: words" only where a usage named the program: else "warning: ..." would name it.
            if named is not None and _names_the_program(named.group(1), name) \
                    and (name is not None or paragraph[len(named.group(1))] != ":"):
                # "jq - commandline JSON processor [version 1.6]", as a manual's NAME line
                name, paragraph = name or named.group(1), named.group(2)
                if (noted := _VERSION_NOTE.search(paragraph)) is not None:
                    version, paragraph = version or noted.group(1), paragraph[:noted.start()].strip()
                elif (bare := _BARE_VERSION.match(paragraph)) is not None:
                    version = version or bare.group(1)  # "bumpversion: v1.0.1 (using Python v3.11.7)"
                    continue
            elif _is_synopsis(paragraph, name):
                continue  # npm's "npm <command>" over its usage
        kept.append(paragraph)
    about = _first_sentence(kept[0]) if kept else ""
    if kept and not about.endswith("…"):
        # The model reads about and description together: do not say the about line twice. A
        # shortened about ("…") leaves its paragraph whole in the description.
        kept[0] = kept[0][len(about):].strip()
    kept[1:1] = put_off
    description = "\n\n".join(k for k in kept if k)
    return name, version, about, description


def _fields(lines: list[str]) -> bool:
    """Whether a paragraph's lines are facts, not prose: "Label: value" lines (any further line
    indented under the one before), two or more, or one whose value is one word ("Home:
    /root/.gnupg", "Supported algorithms:", "Pubkey: RSA, ELG, DSA")."""
    margin = indent_of(lines[0])
    labelled = [found for line in lines if indent_of(line) <= margin
                and (found := _FIELD_LINE.fullmatch(line.strip())) is not None]
    if len(labelled) != sum(indent_of(line) <= margin for line in lines):
        return False
    return len(labelled) >= 2 or len((labelled[0].group(1) or "").split()) == 1


def _first_sentence(paragraph: str) -> str:
    if len(paragraph) <= 160:
        return paragraph
    found = re.search(r"[.!?](?=\s+[A-Z(])", paragraph)
    if not found or found.end() > 300:
        # The next sentence may start with a lower-case word ("... naming style. upper, lower
        # and title work ..."): a stop after a whole word (not "e.g.") ends this one.
        found = re.search(r"(?<=[a-z]{3})[.!?](?=\s)", paragraph)
    if found and found.end() <= 300:
        return paragraph[: found.end()]
    return paragraph[:160].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"  # at a word's end


def _is_sentence(head: str) -> bool:
    """"When no COMMAND is specified, gitlint defaults to 'gitlint lint'.": a note under the
    list at the commands' indent, a capitalised sentence with no column gap, not a command."""
    words = head.split()
    return len(words) >= 4 and words[0].istitle() and head.rstrip().endswith((".", ":")) and "  " not in head


# A line of a list of commands written as words and commas ("access, adduser, audit, bugs,").
_COMMA_LIST = compiled(r"[A-Za-z0-9][\w.:+-]*(?:,\s*[A-Za-z0-9][\w.:+-]*)*,?")


def _comma_lists(entries: list[HelpEntry]) -> list[HelpEntry]:
    """The entries with each list of commands written as words and commas, wrapped over lines
    without descriptions (npm's "All commands:"), made one entry per command; the entries of
    such lines that name fewer than three are left as they are ("ls, list" is one command)."""
    out: list[HelpEntry] = []
    run: list[HelpEntry] = []

    def flush() -> None:
        names = [name.strip() for entry in run for name in entry.head.split(",") if name.strip()]
        if len(names) >= 3 and any("," in entry.head for entry in run):
            out.extend(HelpEntry(name, [], run[0].indent) for name in names)
        else:
            out.extend(run)
        run.clear()

    for entry in entries:
        if not entry.description and _COMMA_LIST.fullmatch(entry.head.strip()) and \
                (run or "," in entry.head):
            run.append(entry)
            continue
        flush()
        out.append(entry)
    flush()
    return out


def _subcommands(entries: list[HelpEntry], rules: Rules, program: str | None,
                 path: Sequence[str] = ()) -> list[SubcommandSpec]:
    """``path``: the command words the usage writes after the program (a group's own)."""
    out: list[SubcommandSpec] = []
    seen: set[str] = set()
    listed = _comma_lists(entries)

    def words_of(entry: HelpEntry) -> list[str]:
        words = entry.head.split()
        by_path = rules.commands_by_path
        if rules.commands_prefixed and program and len(words) > 1 and words[0] == program:
            words, by_path = words[1:], True
        # A group lists its commands by the whole path (yargs' "prog repo --help" lists "prog repo
        # add <name>", kingpin's and kong's "kp db --help" "db migrate <name>"): each was read as
        # the group again, and its commands were lost.
        if by_path and path and len(words) > len(path) and words[:len(path)] == list(path):
            words = words[len(path):]
        return words

    firsts = Counter(words[0] for entry in listed if entry.description and 1 < len(words := words_of(entry))
                     <= _MOST_COMMAND_WORDS and all(_COMMAND_WORD.fullmatch(word) for word in words))
    # Or where the first word is a command of its own too (sade: "remote" and "remote add").
    alone = {words[0] for entry in listed if entry.description and len(words := words_of(entry)) == 1}
    several_words = any(count > 1 for count in firsts.values()) or bool(alone & set(firsts))
    for entry in listed:
        words = words_of(entry)
        if not words or (not entry.description and _is_sentence(entry.head)):
            continue
        if several_words and entry.description and 1 < len(words) <= _MOST_COMMAND_WORDS \
                and all(_COMMAND_WORD.fullmatch(word) for word in words):
            # A command of several words, its description apart (cliff's "server create  Create a
            # new server", cleo's "cache clear", oclif's "app list"): one command, run by all its
            # words; its first word alone is no command (cleo: 'The command "cache" does not exist').
            # Only in a list where two such commands share their first word: elsewhere a second
            # word is the command's operand (xdriinfo's "driver screen", xauth's "source filename").
            if program and os.path.basename(program).endswith(words[0]):
                words = words[1:]  # gprofng's "gprofng collect app": the program's own name first
            name = " ".join(words)
            if name not in seen:
                seen.add(name)
                out.append(SubcommandSpec(name, join_description(entry.description)))
            continue
        # click marks the default command "query*"; gh writes "issue:"; knex names "migrate:make"
        name = re.split(r"[,|]", words[0])[0].strip().rstrip(":").rstrip("*")
        name = name.split(":")[0] if ":" in name and not re.fullmatch(r"\w[\w-]*(?::\w[\w-]*)+", name) else name
        if not re.fullmatch(r"[A-Za-z0-9][\w.:+-]*", name) or name in seen:
            continue
        rest = " ".join(words[1:])
        description = join_description(entry.description)
        if rest and not re.match(r"^[\[<(]|^[A-Z_]+\b|^\.\.\.", rest) and not description:
            description = rest  # one space between name and description
        seen.add(name)
        spelled = " ".join(words) if name == words[0] and entry.description \
            and 1 < len(words) <= _MOST_COMMAND_WORDS and all(_COMMAND_WORD.fullmatch(word) for word in words) else ""
        out.append(SubcommandSpec(name, description, spelled))
    return out


def _positionals(entries: list[HelpEntry], facts: UsageFacts, has_commands: bool,
                 type_column: bool = False) -> list[PositionalSpec]:
    """``type_column``: each operand's type is printed in a column after its name (typer's rich
    panels: "source  <path>  folder to read")."""
    usage_by_key = {positional_key(p.name): p for p in facts.positionals}
    heads = [_listed_head(entry) for entry in entries]
    found = [usage_by_key.pop(positional_key(_listed_name(head)), None) for head in heads]
    # Listed under another name than the usage's ("filename" for "FILE [FILE ...]"; argparse's
    # REMAINDER shown as a bare "..."): the ones left on both sides pair up in order.
    left = [k for k, pos in enumerate(found) if pos is None]
    if left and len(left) == len(usage_by_key):
        for k, pos in zip(left, list(usage_by_key.values()), strict=True):
            found[k] = pos
        usage_by_key.clear()
    out: list[PositionalSpec] = []
    # A usage that names no operand ("Usage: resize [OPTIONS]", gumdrop's) does not say the listed
    # ones are needed: only a note does ("[required]").
    unsaid = facts.program is not None and not facts.positionals and not facts.mentions_command
    for entry, head, from_usage in zip(entries, heads, found, strict=True):
        choices: tuple[str, ...] = ()
        if head.startswith("{"):
            choices = tuple(c.strip() for c in head.strip("{}.").split(",") if c.strip())
        name = _listed_name(head)
        if from_usage is not None and not choices and (cases := value_choices(head, angle=True)) \
                and all(_ENUM_CASE.fullmatch(case) for case in cases):
            # System.CommandLine lists an enum operand by its cases, "<Read|ReadWrite|Write>", which
            # its usage names "<the-root-arg-enum-default>"
            name, choices = _display_name(from_usage.name), cases
        if from_usage is not None and from_usage.name.startswith("+") and not name.startswith("+"):
            name = "+" + name  # uutils' date lists "[format]" for its usage's "[+FORMAT]..."
        variadic = head.endswith("...") or (from_usage.variadic if from_usage else False) \
            or bool(entry.description and _REPEATED_VALUE_COLUMN.match(entry.description[0]))
        lines, typed = list(entry.description), None
        if type_column and lines and (column := _TYPE_COLUMN.match(lines[0])):
            # Its type, not its description's first words: "<int>" made "index" a string.
            typed = value_type(column.group(1), f"<{column.group(1)}>")
            lines[0] = lines[0][column.end():]
            lines = [line for line in lines if line] if not lines[0] else lines
        text = join_description(lines)
        notes = read_notes(lines)
        required = from_usage.required if from_usage is not None else \
            notes.required if unsaid else not head.startswith("[")
        # flaggy writes every operand in brackets, "[source]", and says "(Required)" of the ones that are.
        required = required or notes.required
        choices = choices or notes.choices  # clap: "[possible values: a, b]"
        kind = _positional_type(name, text, choices)
        if typed is not None and typed != "string" and not choices:
            kind = typed  # type: ignore[assignment]
        default = notes.default if notes.default is not None else from_usage.default if from_usage else None
        out.append(PositionalSpec(_display_name(name), required, variadic, text, choices, kind, default))
    # A usage that names the command ("[COMMAND]") names before it the program's own operands:
    # picocli's "<src> [<dest>...] [COMMAND]", which list none of them apart, lost them all. Only
    # those: another form's words are a listed command's ("apt-cache [options] show pkg1").
    if has_commands and not entries:
        own = {key for keys, command in facts.forms_read if command for key in keys}
        usage_by_key = {key: pos for key, pos in usage_by_key.items() if key in own}
    if entries or (has_commands and not usage_by_key):
        # A listed positional is named as its parser knows it ("paths"); the usage line may call
        # it something else ("[FILE]..."): the list is the whole truth, the usage no second one.
        # But for the one the usage ends with, a list of operands after every listed one, each found
        # in it by name: go-flags lists only its fixed operands ("INPUT OUTPUT REST...", REST
        # unlisted), and the rest could not be passed.
        order = [positional_key(p.name) for p in facts.positionals]
        matched = [order.index(positional_key(p.name)) for p in found if p is not None]
        rest = list(usage_by_key.values())
        if has_commands or not entries or None in found or not matched or len(rest) != 1 \
                or not rest[0].variadic or order.index(positional_key(rest[0].name)) != max(matched) + 1 \
                or positional_key(rest[0].name).endswith(("flag", "flags", "option", "options")):
            return out  # gcloud's "[GCLOUD_WIDE_FLAG ...]" stands for flags
    for pos in usage_by_key.values():
        if pos.name == "..." and out:  # no list names the rest: "[arg] ..." repeats arg (optparse)
            out[-1] = out[-1]._replace(variadic=True)
            continue
        if pos.name.startswith("{"):
            choices = pos.choices
            out.append(PositionalSpec(pos.name, pos.required, pos.variadic, "", choices))
        elif _display_name(strip_brackets(pos.name)):
            name = _display_name(strip_brackets(pos.name))
            out.append(PositionalSpec(name, pos.required, pos.variadic, "", (), _positional_type(name, "", ()),
                                      pos.default))
    return out


# typer's rich panels: an operand's type ("<int>", "<path>", "<list[str]>") in a column of its own.
_TYPE_COLUMN = compiled(r"^<([^<>\s]+)>(?:\.\.\.)?(?:\s{2,}|$)")
# typer's rich panels: "ADDR-FILENAME  <address> <filename>...  [required]": the value column repeats.
_VALUE_WORD = r"(?:<[^<>]+>|[A-Z][A-Z0-9_-]*)"
_REPEATED_VALUE_COLUMN = compiled(rf"^{_VALUE_WORD}(?: {_VALUE_WORD})*\.\.\.(?:\s{{2,}}|$)")


# A sentence that says what a word in capitals is: "PATH is a sequence of object keys ...",
# at the text's start or after a sentence's or a clause's end. Looked ahead for, so that
# every start is tried, as a search for one name would try it.
_SUBJECT_SAYS = compiled(r"(?:^|(?<=[.!?:]\s))(?=((\S+)\s+(?:is|are|must|may|can|names?|gives?)\s))")
_SENTENCE_END = compiled(r"[.!?](?=\s|$)")


def _sentences_by_subject(prose: str) -> dict[str, str]:
    """Each word that opens a sentence saying what it is, with the first such sentence (to its
    end: a ".", "!" or "?" before a space or the text's end). Read once for all positionals,
    each sentence's end found once however many subjects it holds: a search per positional
    was a pass over the text for each, quadratic in a help naming thousands of them."""
    sentences: dict[str, str] = {}
    found_from = found_end = -1  # the last end found, and where its search began
    for subject in _SUBJECT_SAYS.finditer(prose):
        word, said_from = subject.group(2), subject.end(1)
        if word in sentences:
            continue
        if not found_from <= said_from <= found_end:
            end = _SENTENCE_END.search(prose, said_from)
            if end is None:
                break  # no sentence ends after this one's subject, so none after a later one's
            found_from, found_end = said_from, end.start()
        sentences[word] = prose[subject.start():found_end + 1]
    return sentences


def _described_in_prose(pos: PositionalSpec, sentences: dict[str, str]) -> PositionalSpec:
    """A positional that no list describes, described by a sentence of the command's text that
    begins with its name in capitals ("PATH is a sequence of object keys ...": cobra lists no
    positionals, so the text is where their meaning is). A PATH, a path by its name alone, is a
    plain string when that sentence speaks of no file or folder."""
    if pos.description or not re.fullmatch(r"[A-Za-z][\w-]*", pos.name):
        return pos
    sentence = sentences.get(pos.name.upper())
    if sentence is None:
        return pos
    kind = pos.type
    if kind == "path" and pos.name.lower() in AMBIGUOUS_PATH_NAMES and not speaks_of_files(sentence.split(None, 1)[1]):
        kind = "string"
    return pos._replace(description=sentence, type=kind)




def _grammar_choices(text: str) -> dict[str, tuple[str, ...]]:
    """The words a grammar's rules offer for a name, where each is a plain word
    ("where  OBJECT := { address | addrlabel | link }", as iproute2's programs write them);
    not a rule of options or of nested choices ("OPTIONS := { -V[ersion] | -f { inet | link } }")."""
    found: dict[str, tuple[str, ...]] = {}
    for rule in _GRAMMAR_CHOICES.finditer(text):
        words = split_choices(rule.group(2))
        if len(words) >= 2 and all(_COMMAND_NAME.fullmatch(word) for word in words) and len(set(words)) == len(words):
            found.setdefault(rule.group(1), words)
    return found


def _listed_head(entry: HelpEntry) -> str:
    """The operand a list entry names, its first word; kong's "[<body> ...]" as "[<body>]...":
    the dots of a bracketed operand written apart are still its own."""
    words = _SPACED_DOTS.sub("]...", entry.head).split()
    return words[0] if words else entry.head


_SPACED_DOTS = compiled(r"(?<=[>\w])\s+\.\.\.\]")


def _listed_name(head: str) -> str:
    # go-flags lists its positionals as "INPUT:    Images to resize"
    head = head.removesuffix(":") if len(head) > 1 else head
    return head.rstrip(".") if head.startswith("{") else strip_brackets(head.rstrip("."))


def _positional_type(name: str, description: str, choices: tuple[str, ...]) -> ValueType:
    if choices:
        return "enum"
    kind: ValueType = value_type(name, name)  # type: ignore[assignment]
    if kind == "string":
        default = read_notes([description]).default if description else None
        kind = _type_from_default(default) if default is not None else kind
    return kind


def _display_name(name: str) -> str:
    bare = name.strip("<>[]")
    # JavaScript's spread, "[...files]" (cac), names "files" as "files..." does.
    return (bare[3:] if bare.startswith("...") and len(bare) > 3 else bare).rstrip(".")
