"""A description as an MCP ``inputSchema``, and the way back from arguments to argv.

The argv rendering is chosen so no value is misread: options as the help writes them,
"--name value" or "--name=value", "-n 5" or "-n5" (always the latter for a value starting with
"-", which then stays a value; and "-n5" where the help shows no value's place, as for an
optional value), Go's flag package as "-name=value", positionals in order after
"--" when one of them starts with "-". A switch that is on by default is said false
as its program's parser takes it (click's "--no-x", Go's "-x=false", yargs' "--no-x");
where the parser takes no false, the schema says so rather than offer one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence

from .kept import compiled
from .model import HELP_FLAGS, HelpDescription, OptionSpec, PositionalSpec, UsageForm
from .notes import then_sentence
from .records import TYPE_CHECKING, NamedTuple
from .usage import FORM_ARGUMENT, FORM_WORD, OPTIONS_HERE, positional_key

if TYPE_CHECKING:
    from typing import Any, Literal

    ParamKind = Literal["flag", "count", "value", "values", "list", "groups", "positional", "positionals", "form",
                        "json_list", "comma_list"]

RESERVED = {"stdin"}
# Where an option of so many words keeps its "--" after it all the same: clap's num_args, as the
# built programs of tests/helptext/test_rust_and_zig_helps.py were run with it.
_COUNTED_VALUES_THEN_DASHES = frozenset({"clap"})  # the wasm handler adds its own optional "stdin" property


class Param(NamedTuple):
    """How one schema property turns back into argv."""

    name: str
    kind: ParamKind
    flag: str | None = None
    negation: str | None = None
    attached: Literal["long", "spaced", "short", "go", "apart"] = "long"
    required: bool = False
    # The flag may stand alone ("--color[=WHEN]"): an empty value gives it so.
    bare: bool = False
    # Given alone, the flag would take the word after it for its value ("--label [<LABEL>]").
    takes_next: bool = False
    # Each time given, it takes words up to the next flag (clap's "--features <FEATURES>...",
    # num_args 1..): given last, it would take the positionals after it too.
    greedy: bool = False
    # A "list" of so many words after the flag ("--size W H", jq's "--arg a v"): they end by
    # their count, not at the next flag or "--" (jq 1.6 refuses "--").
    exact: bool = False
    # The program's own option on a subcommand's tool: before the subcommand path; or, with
    # ``after_words``, a subcommand's above the tool's own: after that many words of the path.
    leading: bool = False
    after_words: int = 0
    # A positional the usage writes after "--" (clap's last: "prog [OPTIONS] -- <COMMAND>..."):
    # the program takes it only so.
    after_dashes: bool = False
    # A "form" (docopt's usage forms): each argument's key in a form, and the property it is.
    slots: tuple[tuple[str, str], ...] = ()
    # A positional's value is read after this ("+" of date's "+%Y"): added when a value lacks it.
    prefix: str = ""


class Argv(list[str]):
    """Arguments after the program name: the first ``leading`` go before the subcommand path,
    and ``within`` names those after them that go inside it: (how many of the path's words
    before them, how many of them), in order. The rest go after the path."""

    leading = 0
    within: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, placed: Mapping[int, list[str]], rest: Sequence[str] = ()) -> Argv:
        """``rest`` after the words ``placed`` puts at depths of the subcommand path (0: before it)."""
        deeper = sorted((depth, words) for depth, words in placed.items() if depth > 0)
        argv = cls([*placed.get(0, []), *(word for _, words in deeper for word in words), *rest])
        argv.leading = len(placed.get(0, []))
        argv.within = tuple((depth, len(words)) for depth, words in deeper)
        return argv

    def around(self, path: Sequence[str]) -> list[str]:
        """The arguments with the subcommand path's words put where they go."""
        placed = list(self[:self.leading])
        at, done = self.leading, 0
        for words_before, count in self.within:
            placed += path[done:words_before]
            placed += self[at:at + count]
            at, done = at + count, max(done, words_before)
        return [*placed, *path[done:], *self[at:]]


class ToolSchema(NamedTuple):
    input_schema: dict[str, Any]
    params: tuple[Param, ...]
    # The usage's forms (``HelpDescription.positional_forms``) by property names: each form's
    # positionals with whether it requires them, in its order, and the options it requires;
    # empty where one order fits all.
    positional_forms: tuple[UsageForm, ...] = ()
    # The program takes no operand after "--" (yargs binds none there) and reads every word
    # starting with "-" as an option wherever it is; it takes options after the operands too.
    no_operands_after_dashes: bool = False

    def to_argv(self, arguments: Mapping[str, Any]) -> Argv:
        """The argv after the program name (and subcommand path, but for its first ``leading``
        words, which go before it). Raises ``ValueError``."""
        known = {p.name: p for p in self.params}
        unknown = sorted(set(arguments) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise ValueError(f"Unknown argument {unknown[0]!r}; the arguments are: {names}.")
        items = sum(len(value) for value in arguments.values() if isinstance(value, list))
        if items > MAX_LIST_ITEMS:
            # Each item is a word or two of the command line, made in the server's memory and on
            # its event loop: 800,000 of them took seconds of it and hundreds of MB (an outside check).
            raise ValueError(f"the arguments' lists hold {items:,} items in all, more than a command line takes "
                             f"here ({MAX_LIST_ITEMS:,}): give fewer, or pass many values through a file or stdin.")
        argv: list[str] = []
        # A "list" option's words go after every other option: dpkg's "--show [<pattern>...]"
        # takes every word after it, a flag too ("--show bash --showformat=..." shows no package).
        lists: list[str] = []
        # The options of the program (0) and of the subcommands above (their depth), where each reads them.
        inside: dict[int, list[tuple[Param, list[str]]]] = {}
        positionals: list[str] = []
        # Those the usage writes after "--" (clap's last: "<PACKAGE> [-- <EXTRA>...]"): the
        # program takes every word after "--" as theirs, so the others go before it.
        after_dashes: list[str] = []
        missing_earlier: str | None = None
        open_list = False  # a "list" option's values end only at the next flag, or at "--"
        alone: set[str] = set()  # flags given without the value they may take
        last_greedy = False  # the last option given takes words up to the next flag
        by_form = any(param.kind == "form" for param in self.params)
        in_form_order = self._form_order(arguments) if self.positional_forms else None
        for param in self.params:
            value = arguments.get(param.name)
            if param.kind == "form":
                if value is None:
                    raise ValueError(f"The argument {param.name!r} is required.")
                positionals.extend(_form_words(param, value, arguments))
                continue
            if (by_form or in_form_order is not None) and param.kind in ("positional", "positionals"):
                continue  # where the chosen form writes it
            if param.kind in ("positional", "positionals"):
                if value is None or value == []:
                    if param.required:
                        raise ValueError(f"The argument {param.name!r} is required.")
                    if not param.after_dashes:
                        missing_earlier = missing_earlier or param.name
                    continue
                if missing_earlier and not param.after_dashes:  # those after "--" are found by it, not by place
                    raise ValueError(f"{param.name!r} cannot be given without {missing_earlier!r}: "
                                     "positional arguments are passed in order.")
                (after_dashes if param.after_dashes else positionals).extend(_positional_words(param, value))
                continue
            if value is None:
                if param.required:
                    raise ValueError(f"The argument {param.name!r} is required.")
                continue
            if param.leading:
                inside.setdefault(param.after_words, []).append((param, _render_option(param, value)))
                continue
            words = _render_option(param, value)
            open_ended = param.kind == "list" and not param.exact
            (lists if open_ended else argv).extend(words)
            open_list = open_list or open_ended
            if param.kind != "list" and words:
                last_greedy = param.greedy
            if param.takes_next and param.flag is not None and words == [param.flag]:
                alone.add(param.flag)
        argv += lists
        # A flag given without its optional value ("--label", of "--label [<LABEL>]") would take
        # the word after it for that value: a positional, unless "--" ends the options first.
        open_list = open_list or (bool(argv) and (argv[-1] in alone or last_greedy))
        if in_form_order is not None:
            for param in in_form_order:
                (after_dashes if param.after_dashes else positionals).extend(
                    _positional_words(param, arguments[param.name]))
        # Not before a usage form's words: docopt takes "--" only where its usage writes it, and a
        # value starting with "-" in a form's place is read as that argument (it is no option there).
        hyphened = any(p.startswith("-") for p in positionals)
        if hyphened and not by_form and any(param.after_dashes for param in self.params):
            # "--" would not keep it an operand: this program takes every word after "--" for the
            # operands its usage writes there ("[-- ARG...]"), so "-- x -3" gave x to ARG.
            dashed = next(p for p in positionals if p.startswith("-"))
            raise ValueError(f"the value {dashed!r} would be read as an option: this program takes the words "
                             "after '--' for other arguments, so an operand before them cannot start with '-'.")
        if positionals and not by_form and self.no_operands_after_dashes:
            # A negative number is an operand to yargs, as it is written ("-5").
            option_like = [p for p in positionals if p.startswith("-") and not _NEGATIVE_NUMBER.fullmatch(p)]
            if option_like:
                raise ValueError(f"the value {option_like[0]!r} would be read as an option: this program reads every "
                                 "word starting with '-' (but a number) as one, and takes no operand after '--'.")
            if open_list:
                # Given after "--" the operands were lost (the program's default taken, with no
                # error); before the options, no option's words can take them.
                argv, positionals = [*positionals, *argv], []
        elif positionals and not by_form and (open_list or hyphened):
            if after_dashes and not hyphened:
                # Only "--" ends a list option's values, and every word after it would be taken
                # for the positionals the usage writes there: the others go before the options.
                argv, positionals = [*positionals, *argv], []
            argv.append("--")
            positionals += after_dashes  # one "--" serves both
        elif after_dashes:
            positionals += ["--", *after_dashes]
        if _OPTIONS_SLOT in positionals:  # the chosen form writes its options after its first word
            at = positionals.index(_OPTIONS_SLOT)
            positionals[at:at + 1], argv = argv, []
        return Argv.of({depth: _before_a_command_word(given) for depth, given in inside.items()},
                       [*argv, *positionals])

    def _form_order(self, arguments: Mapping[str, Any]) -> list[Param]:
        """The positionals given, in the order of the first usage form that takes them all and
        needs no other. Raises ``ValueError`` naming the forms when none does."""
        positional = {p.name: p for p in self.params if p.kind in ("positional", "positionals")}
        given = {name for name in positional if arguments.get(name) not in (None, [])}
        for form in self.positional_forms:
            names = [name for name, _required in form.positionals]
            if given <= set(names) and all(name in given for name, required in form.positionals if required) \
                    and all(arguments.get(option) not in (None, [], False) for option in form.flags):
                return [positional[name] for name in names if name in given]
        forms = "; ".join(_form_text(form) for form in self.positional_forms)
        raise ValueError(f"The positional arguments go together as the usage's forms allow: {forms} "
                         f"(given: {', '.join(sorted(given)) or 'none'}).")


def _positional_words(param: Param, value: Any) -> list[str]:
    """The words of one positional's value (a list of them for one that takes several)."""
    items = value if param.kind == "positionals" else [value]
    if not isinstance(items, list):
        raise ValueError(f"{param.name!r} must be a list of values.")
    words = [_scalar(param.name, item) for item in items]
    return [word if word.startswith(param.prefix) else param.prefix + word for word in words]


def _form_text(form: UsageForm, quote: str = "") -> str:
    """A form as a call gives it: "first last", "regexp [path]" (its options first)."""
    words = [f"{quote}{name}{quote}" for name in form.flags]
    words += [f"{quote}{name}{quote}" if needed else f"[{quote}{name}{quote}]" for name, needed in form.positionals]
    return " ".join(words) or "none"


# Where a form's words leave the options' place: no value can be it (a NUL is refused in every value).
_OPTIONS_SLOT = "\0options"


def _form_words(param: Param, form: Any, arguments: Mapping[str, Any]) -> list[str]:
    """The words of the usage form chosen, each argument in its place: "ship <name> move <x>
    <y>" with name, x and y gives "ship Guardian move 3 4"."""
    slots = dict(param.slots)
    if not isinstance(form, str):
        raise ValueError(f"{param.name!r} must be one of the usage's forms, as a string.")
    words: list[str] = []
    used: set[str] = set()
    for token in form.split():
        if token == OPTIONS_HERE:
            words.append(_OPTIONS_SLOT)
            continue
        argument = None if FORM_WORD.fullmatch(token) else FORM_ARGUMENT.fullmatch(token)
        if argument is None:
            words.append(token)
            continue
        name = slots.get(positional_key(argument.group(2)))
        if name is None:
            raise ValueError(f"{param.name!r} must be one of the usage's forms: {form!r} is not.")
        used.add(name)
        value = arguments.get(name)
        if value is None or value == []:
            if argument.group(1):  # "[<x>]": may be left out
                continue
            raise ValueError(f"The form {form!r} needs {name!r}.")
        items = value if isinstance(value, list) else [value]
        if len(items) > 1 and not (argument.group(3) or argument.group(5)):
            raise ValueError(f"{name!r} is one value in the form {form!r}.")
        words.extend(_scalar(name, item) for item in items)
    unused = [name for name in slots.values() if name not in used and arguments.get(name) not in (None, [])]
    if unused:
        raise ValueError(f"{unused[0]!r} is not an argument of the form {form!r}.")
    return words


def _before_a_command_word(given: list[tuple[Param, list[str]]]) -> list[str]:
    """The words of options given before a subcommand's word, in an order that ends every
    option's values before that word: one taking words up to the next flag (argparse's
    nargs="+": "--tags a b run"; clap's num_args(1..), given once a value: "--tags a --tags b
    run"), or a flag given alone that would take the word after it for its value (nargs="?":
    "--color run"), took the command word. Such options go first, so that another option ends
    them; the last of them, where no other follows, has its values written after "=" (argparse's
    one value; clap's each, "--tags=a --tags=b", as clap takes one value a flag so written), and
    where none can, the call is refused saying why."""
    def is_open(param: Param, words: list[str]) -> bool:
        return (param.kind == "list" and bool(words)) or (param.takes_next and words == [param.flag]) \
            or (param.greedy and bool(words))

    def closed(param: Param, words: list[str]) -> list[str] | None:
        flag = param.flag or ""
        if param.kind == "list":
            return [f"{flag}={words[1]}"] if len(words) == 2 and flag.startswith("--") else None
        if param.greedy and (values := _greedy_values(flag, words)) is not None:
            # clap and yargs take a flag written with "=" to one value, a short one too ("-x=e1").
            return [f"{flag}={value}" for value in values]
        return None

    open_ones = [(param, words) for param, words in given if is_open(param, words)]
    # Only options that write words end another's values (a switch given false writes none).
    others = [(param, words) for param, words in given if words and not is_open(param, words)]
    if open_ones and not others:
        last = next((k for k in range(len(open_ones) - 1, -1, -1) if closed(*open_ones[k]) is not None), None)
        if last is None:
            param, words = open_ones[-1]
            several = param.kind == "list" or param.greedy
            what = "its values" if several and len(words) > 1 else "a value" if len(words) > 1 else "the word after it"
            raise ValueError(f"{param.name!r}, given right before the subcommand's word, would take that word as "
                             f"{'one of ' if what == 'its values' else ''}{what}: give it one value, or another "
                             "option of the same command with it.")
        param, words = open_ones.pop(last)
        others = [(param, closed(param, words) or words)]
    return [word for _, words in (*open_ones, *others) for word in words]


def _greedy_values(flag: str, words: list[str]) -> list[str] | None:
    """The values ``words`` give ``flag``, each time one, as ``_render_option`` writes them
    ("--tags a", "--tags=-a", "-x-a"), or None for words of another shape."""
    values: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word == flag and at + 1 < len(words):
            values.append(words[at + 1])
            at += 2
        elif word.startswith(flag + "="):
            values.append(word[len(flag) + 1:])
            at += 1
        elif _SHORT.fullmatch(flag) and word.startswith(flag) and len(word) > len(flag):
            values.append(word[len(flag):])
            at += 1
        else:
            return None
    return values


def _render_option(param: Param, value: Any) -> list[str]:
    assert param.flag is not None
    if param.kind == "flag":
        if not isinstance(value, bool):
            raise ValueError(f"{param.name!r} is a switch: give true or false, not {value!r}.")
        if value:
            return [param.flag]
        return [param.negation] if param.negation else []
    if param.kind == "count":
        if isinstance(value, bool):
            return [param.flag] if value else []
        value = _whole(value)
        if not isinstance(value, int) or not 0 <= value <= MAX_FLAG_COUNT:
            raise ValueError(f"{param.name!r} counts how often the flag is given: give a whole number from 0 to "
                             f"{MAX_FLAG_COUNT}.")
        return [param.flag] * value
    if param.kind == "groups":
        if not isinstance(value, list) or not all(isinstance(group, list) for group in value):
            raise ValueError(f"{param.name!r} takes a list of lists of values.")
        return [word for group in value for word in (param.flag, *_dashless(param.name, group))]
    if param.kind in ("json_list", "comma_list"):
        if not isinstance(value, list):
            raise ValueError(f"{param.name!r} takes a list of values.")
        texts = [_scalar(param.name, item) for item in value]
        if param.kind == "comma_list" and any("," in text for text in texts):
            raise ValueError(f"{param.name!r} takes its values joined by commas in one word: a value cannot hold one.")
        # JSON's list, which the YAML jsonargparse reads takes as it is: each item a string, quoted.
        word = json.dumps(texts, ensure_ascii=False) if param.kind == "json_list" else ",".join(texts)
        if param.flag.startswith("--"):
            return [f"{param.flag}={word}"]
        # "-s-a,b": apart, a word starting with "-" is read as an option (argparse).
        return [param.flag + word] if word.startswith("-") else [param.flag, word]
    items = value if param.kind in ("values", "list") else [value]
    if not isinstance(items, list):
        raise ValueError(f"{param.name!r} takes a list of values.")
    if param.kind == "list":
        # "--exclude a b": each value a word of its own after the one flag ("--exclude=a" takes one).
        if not items:
            return [param.flag] if param.bare else []  # "--show" alone: the values may be left out
        return [param.flag, *_dashless(param.name, items)]
    out: list[str] = []
    for item in items:
        text = _scalar(param.name, item)
        if param.bare and text == "":
            out.append(param.flag)  # "--color" alone: what the program does without a value
            continue
        if param.attached == "short":
            out.extend([param.flag, text] if text == "" else [param.flag + text])
        elif param.attached == "apart":
            out.extend([param.flag, text])
        elif param.attached == "spaced" and not text.startswith("-"):
            out.extend([param.flag, text])  # as the help writes it; "-5" after "=", or it reads as a flag
        elif param.attached == "spaced" and _SHORT.fullmatch(param.flag):
            out.append(param.flag + text)  # "-n-5": getopt's way for a short option's value
        elif param.attached == "spaced" and _SINGLE_DASH_LONG.fullmatch(param.flag):
            # "-rotate -90": ImageMagick's and ffmpeg's kind of parser takes the next word whatever
            # it is, and refuses "-rotate=-90" (Go's flag package takes either).
            out.extend([param.flag, text])
        else:
            out.append(f"{param.flag}={text}")
    return out


def _dashless(name: str, items: list[Any]) -> list[str]:
    """The words of several values after one flag, none of which may look like an option."""
    texts = [_scalar(name, item) for item in items]
    dashed = next((text for text in texts if text.startswith("-") and not _NUMBER.fullmatch(text)), None)
    if dashed is not None:
        raise ValueError(f"{name!r}: the value {dashed!r} would be read as an option; "
                         "values of this option cannot start with '-'.")
    return texts


_NUMBER = compiled(r"-\d+(?:\.\d+)?")
_SHORT = compiled(r"-[^-]")
_SINGLE_DASH_LONG = compiled(r"-[A-Za-z][\w-]+")


def _whole(value: Any) -> Any:
    """2.0 as 2: JSON Schema counts it an integer, and a program asked for a whole number
    refuses "2.0"; a program asked for any number takes "2" as well."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _scalar(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(_whole(value))
    raise ValueError(f"{name!r} takes a single text or number, not {type(value).__name__}.")


_NOT_IN_A_NAME = compiled(r"[^A-Za-z0-9_]+")
_SIGN_IN_A_VALUE_NAME = compiled(r"[^\w\s-]")
_WHOLE_NUMBER = compiled(r"[+-]?\d+")
_VALUE_SHAPED = compiled(r"[<\[{A-Z]")


def _is_help_option(opt: OptionSpec) -> bool:
    if opt.long in HELP_FLAGS:
        # Not one that needs a value written as one: towncrier's "--version TEXT  Render the news
        # fragments using given version" is its release's version, dropped with --version's name.
        # (ICU's "-V or --version" reads as a value "or", a word in small letters: help still.)
        return not (opt.takes_value and not opt.value_optional and _VALUE_SHAPED.search(opt.value_name or ""))
    return opt.long is None and opt.short in ("-h", "-?") and "help" in opt.description.lower()


def property_name(raw: str) -> str:
    name = _NOT_IN_A_NAME.sub("_", raw.lstrip("-<[{").rstrip(".>]}")).strip("_")
    if not name:
        name = "value"
    if name[0].isdigit():
        name = "flag_" + name
    return name[:60]


def build_tool_schema(desc: HelpDescription) -> ToolSchema:
    properties: dict[str, Any] = {}
    required: list[str] = []
    params: list[Param] = []
    used: set[str] = set(RESERVED)
    # The next number to try after each base taken: a help listing one name many times numbers
    # them in one pass, not by counting up from 2 for each (18,743 "a": 29 s).
    next_number: dict[str, int] = {}
    go = desc.dialect == "goflag"

    def claim(base: str, suffix: str) -> str:
        name = base if base not in used else f"{base}_{suffix}"
        n = next_number.get(base, 2)
        while name in used:
            name, n = f"{base}_{n}", n + 1
        next_number[base] = n
        used.add(name)
        return name

    named: dict[str, str] = {}  # each option's key: its property
    for opt in desc.options:
        if _is_help_option(opt):
            continue
        flag = opt.long or opt.short
        assert flag is not None
        # "-5" for "-NUM": named "num", as the help names the number (a flag "-" has no name).
        name = claim(property_name((opt.value_name or "num").lower()) if flag == "-" else property_name(flag), "option")
        named[opt.key] = name
        off = opt.negation or _said_off(opt, flag, desc.dialect)
        prop, kind = _option_property(opt, off, go_duration=_is_go_duration(opt, desc.dialect))
        properties[name] = prop
        if opt.required:
            required.append(name)
        attached: Literal["long", "spaced", "short", "go", "apart"] = "go" if go else (
            "apart" if desc.dialect in _ONLY_APART
            else "long" if opt.long and desc.dialect in _ONLY_AFTER_EQUALS
            else "spaced" if opt.value_spaced and (not opt.value_optional or desc.dialect in _OPTIONAL_VALUE_APART)
            else "long" if opt.long else "short")
        bare = opt.value_optional and kind in ("value", "list")
        if kind == "flag" and desc.dialect in _SWITCH_WITH_ITS_VALUE:
            flag, off = f"{opt.long or flag}=True", f"{opt.long or flag}=False"
        params.append(Param(name, kind, flag, off, attached, opt.required, bare=bare,
                            takes_next=bare and opt.value_spaced, leading=opt.before_command,
                            after_words=opt.after_words if opt.before_command else 0,
                            greedy=kind == "values" and desc.dialect in _VALUES_UP_TO_A_FLAG,
                            exact=kind == "list" and opt.values_per_flag > 1 and not opt.repeatable
                            and desc.dialect not in _COUNTED_VALUES_THEN_DASHES))
    for opt in desc.options:
        if opt.exclusive_with and opt.key in named:
            _say_exclusive(properties[named[opt.key]], opt, named)
    after_dashes = _named_after_dashes(desc.usage)
    slots: list[tuple[str, str]] = []
    for pos in desc.positionals:
        name = claim(property_name(pos.name.lower()), "arg")
        properties[name] = _positional_property(pos)
        pos_kind: ParamKind = "form" if pos.form else "positionals" if pos.variadic else "positional"
        if pos.required:
            required.append(name)
        if not pos.form:
            slots.append((positional_key(pos.name), name))
        params.append(Param(name, pos_kind, required=pos.required,
                            after_dashes=positional_key(pos.name) in after_dashes, prefix=_prefix(pos)))
    # A form's arguments are the positionals after it, by their keys.
    params = [param._replace(slots=tuple(slots)) if param.kind == "form" else param for param in params]
    by_key = dict(slots)
    by_flag = {flag: named[opt.key] for opt in desc.options if opt.key in named
               for flag in (opt.long, opt.short) if flag}
    # A form that names an option the list does not have ("--help") is for no call.
    forms = tuple(UsageForm(_once_each((by_key[key], needed) for key, needed in form.positionals),
                            tuple(by_flag[flag] for flag in form.flags))
                  for form in desc.positional_forms
                  if all(key in by_key for key, _needed in form.positionals) and all(f in by_flag for f in form.flags))
    if len(forms) > 1:
        _say_forms(properties, forms)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return ToolSchema(schema, tuple(params), forms if len(forms) > 1 else (),
                      no_operands_after_dashes=desc.dialect in _NO_OPERANDS_AFTER_DASHES)


def _once_each(positionals: Iterable[tuple[str, bool]]) -> tuple[tuple[str, bool], ...]:
    """A form's positionals by property, each once, where its first is, needed if any of its
    words is: rsync's "SRC [SRC]... DEST" names ``src`` twice, and its sources were passed twice
    ("rsync a/ a/ b")."""
    needed: dict[str, bool] = {}
    for name, required in positionals:
        needed[name] = needed.get(name, False) or required
    return tuple(needed.items())


def _say_forms(properties: dict[str, Any], forms: tuple[UsageForm, ...]) -> None:
    """Says in each positional's description which others it goes with, as the usage's forms
    allow ("seq LAST", "seq FIRST LAST", ...): JSON Schema could say it only with ``oneOf``,
    which model providers refuse in a tool's input schema."""
    written = "; ".join(_form_text(form, "'") for form in forms)
    said = f"The positional arguments go together as one of: {written}."
    for name in dict.fromkeys(name for form in forms for name, _needed in form.positionals):
        _say(properties[name], said)


def _say_exclusive(prop: dict[str, Any], opt: OptionSpec, named: Mapping[str, str]) -> None:
    """Says in the option's description which others the usage offers it as an alternative
    to, by their property names (JSON Schema could say it only with a top-level ``not`` or
    ``oneOf``, which model providers refuse in a tool's input schema)."""
    others = [named[key] for key in opt.exclusive_with if key in named]
    if not others:
        return
    # As the usage says it, no more: programs take some pairs their usage writes as alternatives
    # (git branch -r -a), so the call is not refused for them; the program decides.
    said = f"The usage offers it as an alternative to {_listed(others)}."
    if opt.one_required:
        said += f" It asks for one of {_listed([named[opt.key], *others])}."
    _say(prop, said)


def _say(prop: dict[str, Any], sentence: str) -> None:
    """Adds ``sentence`` to the property's description, after a full stop."""
    text = prop.get("description", "").rstrip()
    prop["description"] = then_sentence(text if not text or text.endswith((".", "!", "?")) else text + ".", sentence)


def _listed(names: list[str]) -> str:
    quoted = [f"'{name}'" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _named_after_dashes(usage: str) -> set[str]:
    """The positionals a usage line writes after a lone "--", bracketed or not ("-- <ARGS>...",
    clap's "[-- <ARGS>...]")."""
    named: set[str] = set()
    for line in usage.splitlines():
        words = [word.lstrip("[(") for word in line.split()]
        if "--" in words:
            named.update(positional_key(word) for word in words[words.index("--") + 1:])
    return named


# Where an option given again ("<FEATURES>...") may take several words each time, up to the
# next flag: clap's num_args(1..), written so as Append is in clap 3, and yargs' arrays.
# Positionals after the last of them go after "--", which clap takes either way (yargs, which
# binds nothing there, takes them before the options).
_VALUES_UP_TO_A_FLAG = frozenset({"clap", "yargs"})
# As yargs-parser tells a negative number from a flag (/^-([0-9]+(\.[0-9]+)?|\.[0-9]+)$/): not
# "-1e-07" or "-5.", whose words it reads as flags, losing the value with no error.
_NEGATIVE_NUMBER = compiled(r"-(?:\d+(?:\.\d+)?|\.\d+)")
# Parsers that bind no operand given after "--" (yargs leaves it in argv._, and the command's
# positional keeps its default).
_NO_OPERANDS_AFTER_DASHES = frozenset({"yargs"})
# Where a value is only ever the next word, whatever it starts with: argh refuses "--level=-3".
_ONLY_APART = frozenset({"argh"})
# Where a value is always given after "=": go-arg prints a list ("--id ID", an []int) as it
# prints one value, and a list takes every word up to the next flag, a subcommand's name too
# ("--id 7 fetch": "fetch" is no int); "--id=7" is one value, of either.
_ONLY_AFTER_EQUALS = frozenset({"goarg"})
# Where a value that may be left out is given as a word of its own ("--help-command-list file"):
# getopt takes one only after "=", clap, argparse and click either way, CMake only apart.
_OPTIONAL_VALUE_APART = frozenset({"cmake"})
# Where a switch is written with its value, "--verbose=True" and "--verbose=False": Fire gives
# a bare "--verbose" the next word as its value ("--verbose a.png" made verbose "a.png"), and
# refuses "--noverbose" for a parameter that may also be passed by position.
_SWITCH_WITH_ITS_VALUE = frozenset({"fire"})
# pflag's slice types split every value on commas ("--tag a,b" gives two tags).
_COMMA_SPLIT = {"strings", "stringslice", "ints", "intslice", "uintslice", "floatslice", "boolslice",
                "durationslice", "ipslice"}
_JSON_TYPES = {"integer": "integer", "number": "number", "boolean": "boolean"}


def _value_schema(opt_type: str, choices: tuple[str, ...], value_name: str | None) -> dict[str, Any]:
    if choices:
        return {"type": "string", "enum": list(choices)}
    schema: dict[str, Any] = {"type": _JSON_TYPES.get(opt_type, "string")}
    if opt_type == "path":
        schema["format"] = "path"
    return schema


# Bounds stated in the text: "(0-9)", "(1..=64)", "from 0 to 5". Only for numbers.
_RANGE = compiled(r"\((-?\d+(?:\.\d+)?)\s*(?:-|–|\.\.=?|to)\s*(-?\d+(?:\.\d+)?)\)"
                    r"|\bfrom (-?\d+(?:\.\d+)?) to (-?\d+(?:\.\d+)?)\b")
# click's IntRange and FloatRange: "[1<=x<=10]", "[0<=x<1]", "[x>=1]", "[x<=100]"; after the
# default in one bracket: "[default: 3; 1<=x<=5]".
_CLICK_RANGE = compiled(r"(?:\[|;\s)(?:(-?\d+(?:\.\d+)?)(<=?)x(?:(<=?)(-?\d+(?:\.\d+)?))?"
                        r"|x(>=?|<=?)(-?\d+(?:\.\d+)?))\]")


def _click_bounds(found: re.Match[str], cast: Any) -> dict[str, int | float]:
    low, low_op, high_op, high, lone_op, lone = found.groups()
    bounds: dict[str, int | float] = {}
    if lone is not None:
        low, low_op, high, high_op = (lone, lone_op.replace(">", "<"), None, None) if lone_op.startswith(">") \
            else (None, None, lone, lone_op)
    if low is not None:
        bounds["minimum" if low_op == "<=" else "exclusiveMinimum"] = cast(float(low))
    if high is not None:
        bounds["maximum" if high_op == "<=" else "exclusiveMaximum"] = cast(float(high))
    return bounds


def _bounds(text: str, kind: str) -> dict[str, int | float]:
    if kind not in ("integer", "number"):
        return {}
    cast = int if kind == "integer" else (lambda x: int(x) if x.is_integer() else x)
    if (clicked := _CLICK_RANGE.search(text)) is not None:
        return _click_bounds(clicked, cast)
    found = _RANGE.search(text)
    if not found:
        return {}
    low, high = (float(g) for g in found.groups() if g is not None)
    if low > high:
        return {}
    return {"minimum": cast(low), "maximum": cast(high)}


def _said_off(opt: OptionSpec, flag: str, dialect: str) -> str | None:
    """The word that turns off a switch that is on by default, where the help prints none but
    the program's parser takes one: Go's flag package (urfave/cli's), pflag (cobra), go-arg,
    kong, CLI11 and cxxopts read "-color=false" or "--color=false",
    yargs "--no-color" (its boolean-negation, on unless a program turns it off). Elsewhere
    (getopt, argparse's store_true, clap's SetTrue, commander) a switch has no "false"."""
    if opt.takes_value or opt.repeatable or opt.default != "true":
        return None  # off by default, or not known to be on: leaving the flag out says false
    if dialect in _FALSE_AFTER_EQUALS:
        return f"{flag}=false"
    if dialect == "yargs" and opt.long is not None and opt.long.startswith("--"):
        return "--no-" + opt.long[2:]
    return None


# Their parsers read a switch's value after "=": Go's flag (and urfave/cli, built on it), pflag
# (cobra), go-arg, kong, CLI11, cxxopts.
_FALSE_AFTER_EQUALS = frozenset({"goflag", "urfave", "cobra", "goarg", "kong", "cli11", "cxxopts"})
# How many items all the lists of one call may hold: each becomes a word or two of the command
# line (the kernel takes 2 MiB of them, and a program rarely gets a thousand).
MAX_LIST_ITEMS = 32_768
# How often a counted flag ("-vvv") may be given: far past any program's levels. The words are
# made in the server's memory: unbounded, a count of ten million took gigabytes (an outside check).
MAX_FLAG_COUNT = 100
# A switch on by default that its flag cannot turn off: false can only leave the flag out.
_NO_FALSE = "Passing false does not turn it off; it only leaves the flag out."


# Go's time.ParseDuration: "5s", "1m30s", "1.5h", "-300ms", or "0" alone.
GO_DURATION_PATTERN = r"^[-+]?(?:0|(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$"
_GO_DURATION_SAID = "A Go duration: numbers with units (ns, us, ms, s, m, h), as 5s, 1m30s or 300ms."
# Where "duration" is the value's Go type as the parser prints it (pflag's "--timeout duration",
# the flag package's "-wait duration"), not a name the author chose.
_GO_TYPED_DIALECTS = frozenset({"cobra", "goflag"})


# A duration written in a help's text: "5m", "1y5m7d2h".
_A_DURATION_SAID = compiled(r"(?<![\w.])(?:\d+(?:\.\d+)?[a-zA-Zµμ]+)+(?![\w.])")


def _is_go_duration(opt: OptionSpec, dialect: str) -> bool:
    """Not where the help writes one Go refuses: a pflag value of a program's own type may print
    "duration" as well (restic's --keep-within takes "1y5m7d2h", years and days)."""
    return dialect in _GO_TYPED_DIALECTS and opt.type == "string" and not opt.choices \
        and (opt.value_name or "").lower() == "duration" \
        and all(re.fullmatch(GO_DURATION_PATTERN, said) for said in _A_DURATION_SAID.findall(opt.description))


def _option_property(opt: OptionSpec, off: str | None = None, *,
                     go_duration: bool = False) -> tuple[dict[str, Any], ParamKind]:
    """``off``: the word that says false to a switch (its negation), if the program takes one;
    ``go_duration``: the value is a Go duration, which takes a unit ("5s"), where a number of
    seconds ("5") is refused."""
    text = opt.description
    if not opt.takes_value:
        if opt.repeatable:
            how_often = then_sentence(text, "Number of times to give the flag.")
            prop = {"type": "integer", "minimum": 0, "maximum": MAX_FLAG_COUNT, "description": how_often}
            return prop, "count"
        prop = {"type": "boolean", "description": text}
        if opt.default == "true" and off is None:
            # "default": true would offer false as the way to turn it off, and false, rendered
            # as nothing, would leave it on: the model is told instead.
            prop["description"] = then_sentence(text, _NO_FALSE)
        elif opt.default in ("true", "false"):
            prop["default"] = opt.default == "true"
        return prop, "flag"
    value = _value_schema(opt.type, opt.choices, opt.value_name)
    value.update(_bounds(text, value["type"]) if not opt.choices else {})
    if opt.value_name and not opt.choices and _SIGN_IN_A_VALUE_NAME.search(opt.value_name):
        # A value name that shows a format ("KEY=VALUE", "HH:MM") says something; "ALG" does not.
        text = then_sentence(text, f"Format: {opt.value_name}.")
    if (opt.value_name or "").lower() in _COMMA_SPLIT:
        text = then_sentence(text, "Each item may itself hold several values separated by commas.")
    if go_duration:
        value["pattern"] = GO_DURATION_PATTERN
        text = then_sentence(text, _GO_DURATION_SAID)
    default = _typed_default(opt.default, value)
    if opt.one_word_list == "json":
        return {"type": "array", "items": {"type": "string"}, "description": text}, "json_list"
    if opt.one_word_list:
        return {"type": "array", "items": {"type": "string"}, "description": text}, "comma_list"
    if opt.values_at_once and opt.value_optional:
        # "--show [<pattern>...]", argparse's nargs="*": the flag may go alone
        said = then_sentence(text, "An empty list ([]) gives the flag alone, without a value.")
        return {"type": "array", "items": value, "description": said}, "list"
    if opt.values_at_once:
        return {"type": "array", "items": value, "minItems": 1, "description": text}, "list"
    if opt.values_per_flag > 1 and opt.repeatable:
        # click's "--param <TEXT TEXT>...": so many words after the flag, the flag given again for more.
        count = opt.values_per_flag
        said = then_sentence(text, f"Each item is a list of {count} values, in order: "
                           f"{', '.join((opt.value_name or '').split())}; each item gives the option again.")
        group = {"type": "array", "items": {"type": "string"}, "minItems": count, "maxItems": count}
        return {"type": "array", "items": group, "description": said}, "groups"
    if opt.values_per_flag > 1 and not opt.repeatable:
        # "--size <W> <H>", argparse's nargs=2 "--pair KEY VALUE": so many words after the one flag.
        count = opt.values_per_flag
        names = (opt.value_name or "").split()
        said = then_sentence(text, f"Give {count} values, in order: {', '.join(names)}.")
        # One value's form each time ("--mode {a,b} {a,b}", "--size INT INT"): each item is such
        # a value, its choices and type with it; names of their own ("W H") say nothing of either.
        item = {key: part for key, part in value.items() if key != "description"} if len(set(names)) == 1 \
            else {"type": "string"}
        return {"type": "array", "items": item, "minItems": count, "maxItems": count,
                "description": said}, "list"
    if opt.repeatable:
        prop = {"type": "array", "items": value, "description": text}
        return prop, "values"
    prop = dict(value)
    prop["description"] = text
    if opt.value_optional:
        # "--backup[=CONTROL]": the flag alone means something of its own (GNU: the default control).
        choices = prop.get("enum")
        if isinstance(choices, list):
            prop["enum"] = [*choices, ""]
        alone = 'An empty value ("") gives the flag alone, without a value.'
        if prop.get("type") == "string":
            prop["description"] = then_sentence(text, alone)
        elif prop.get("type") in ("integer", "number"):
            # "--header[=N]", "--checkpoint[=NUMBER]": a number, or "" for the flag alone, which a
            # number's type refused (the flag alone could not be given).
            number = {key: value for key, value in prop.items() if key != "description"}
            prop = {"anyOf": [number, {"const": ""}], "description": then_sentence(text, alone)}
    if default is not None:
        prop["default"] = default
    return prop, "value"


def _prefix(pos: PositionalSpec) -> str:
    """What the program reads a positional's value after: date's "[+FORMAT]" ("+%Y")."""
    return "+" if pos.name.startswith("+") and len(pos.name) > 1 else ""


def _positional_property(pos: PositionalSpec) -> dict[str, Any]:
    # A FILE or DIR positional is a path as an option's value is: the sandbox maps a host path
    # given for it into the workspace (textkit's FILE... refused the absolute paths models send).
    value = _value_schema(pos.type, (), None)
    if pos.choices:
        value = {"type": "string", "enum": list(pos.choices)}
    else:
        value.update(_bounds(pos.description, value["type"]))
    text = pos.description or pos.name
    if prefix := _prefix(pos):
        text += f" (the program reads it after {prefix!r}, added when the value lacks it)"
    default = _typed_default(pos.default, value)
    if pos.variadic:
        prop: dict[str, Any] = {"type": "array", "items": value, "description": text}
        if pos.required:
            prop["minItems"] = 1
        if default is not None and not pos.required:
            prop["default"] = [default]
        return prop
    if default is not None and not pos.required:
        return {**value, "description": text, "default": default}
    return {**value, "description": text}


def _typed_default(default: str | None, value: dict[str, Any]) -> Any:
    if default is None:
        return None
    kind = value.get("type")
    if "enum" in value:
        if default in value["enum"]:
            return default
        # clap 2's "[default: stable] [possible values: Stable, Beta, Nightly]" (an enum that
        # takes either case): the default is the choice of that name, as the list spells it.
        wanted = default.casefold()
        same = [choice for choice in value["enum"] if isinstance(choice, str) and choice.casefold() == wanted]
        return same[0] if len(same) == 1 else None
    try:
        if kind == "integer":
            return int(default)
        if kind == "number":
            # "[default: 4]" is the number 4, not 4.0 (which a program taking an integer refuses).
            return int(default) if _WHOLE_NUMBER.fullmatch(default.strip()) else float(default)
    except ValueError:
        return None
    return default if kind == "string" else None



