"""Choices written in prose are read as an enum; lists of examples never are."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolbay.helptext import build_tool_schema, describe_help

_value = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9).filter(
    lambda w: w not in ("or", "and", "etc", "more", "others", "one", "of", "is", "be"))
_values = st.lists(_value, min_size=2, max_size=6, unique=True)


def _or_list(values: list[str], quote: str = "") -> str:
    quoted = [f"{quote}{v}{quote}" for v in values]
    return ", ".join(quoted[:-1]) + f", or {quoted[-1]}"


# Each form a real tool prints; ``{}`` receives the values.
CHOICE_FORMS = {
    "one of:": lambda v: f"Output format. One of: {', '.join(v)}",
    "one of (a, b)": lambda v: f"Output format. One of: ({', '.join(v)})",
    "one of (a|b)": lambda v: f"compression mode, one of ({'|'.join(v)})",
    "allowed values": lambda v: f"How to print. Allowed values: {', '.join(v)}.",
    "possible values inline": lambda v: f"Set the unit. Possible values: {', '.join(v)}.",
    "choices are quoted": lambda v: "output a snippet, choices are " + ", ".join(f'"{x}"' for x in v),
    "VALUE is 'a', 'b', or 'c'": lambda v: f"use markers; WHEN is {_or_list(v, chr(39))}",
    "starred default": lambda v: f"Specify the mode (*{v[0]}*, {', '.join(v[1:])}).",
    "bracketed list": lambda v: f"Override the target [{', '.join(v)}]",
    "bracketed list, then its default": lambda v: f"Which mechanism to use [{', '.join(v)}]. (default: {v[0]})",
    "MODE (a, b or c)": lambda v: f"Print the script for MODE ({', '.join(v[:-1])}, or {v[-1]}) and exit",
    "(a, b, or c) after prose": lambda v: f"How to handle multi-architecture images ({_or_list(v)})",
    "choices are a (note), b (note)": lambda v: "The level. Choices are " + _or_list([f"{x} ({k}%)" for k, x in
                                                                                     enumerate(v)]) + ".",
    'one of "a" (note), "b"/"c"': lambda v: f'Quotes: one of "{v[0]}" (the first), '
                                            + "/".join(f'"{x}"' for x in v[1:]) + '. (default: "x")',
    "(a/b/c) at the end": lambda v: f"Traceback print mode ({'/'.join(v)})",
}
EXAMPLE_FORMS = {
    "e.g.": lambda v: f"Output format, e.g. {', '.join(v)}",
    "such as": lambda v: f"A format such as {', '.join(v)}",
    "for example": lambda v: f"The format, for example {_or_list(v)}",
    "etc.": lambda v: f"One of: {', '.join(v)}, etc.",
    "ellipsis": lambda v: f"Allowed values: {', '.join(v)}, ...",
    "default list": lambda v: f"Header names [{','.join(v)}]",
    "two kinds, (a or b)": lambda v: f"Where to listen ({v[0]} or {v[1]})",
    "(e.g. a/b) at the end": lambda v: f"The folder (e.g. {'/'.join(v)})",
    "a/b in the middle": lambda v: f"Read ({'/'.join(v)}) from the file given",
}


def _help(description: str) -> bytes:
    return (f"Usage: tool [OPTIONS]\n\nOptions:\n  -m, --mode <MODE>  {description}\n"
            "  -h, --help         Print help\n").encode()


def _mode(description: str):
    desc = describe_help(_help(description))
    return next(o for o in desc.options if o.long == "--mode"), desc


@settings(max_examples=30, deadline=None)
@given(_values, st.sampled_from(sorted(CHOICE_FORMS)))
def test_each_prose_choices_form_becomes_an_enum_of_exactly_its_values(values, form):
    option, desc = _mode(CHOICE_FORMS[form](values))
    assert list(option.choices) == values, form
    assert build_tool_schema(desc).input_schema["properties"]["mode"]["enum"] == values


@settings(max_examples=30, deadline=None)
@given(_values, st.sampled_from(sorted(EXAMPLE_FORMS)))
def test_lists_of_examples_never_become_an_enum(values, form):
    option, desc = _mode(EXAMPLE_FORMS[form](values))
    assert option.choices == ()
    assert "enum" not in build_tool_schema(desc).input_schema["properties"]["mode"]


@pytest.mark.parametrize(("said", "choices"), [
    # hf's --volume: the list is the TYPE part's; every real value was refused by the enum
    ("Mount a volume. Format: hf://[TYPE/]SOURCE:/MOUNT_PATH[:ro|:rw]. TYPE is one of: models, datasets, spaces.",
     ()),
    ("Where to connect, as HOST:PORT/PROTO. PROTO must be 'tcp', 'udp' or 'sctp'.", ()),
    # The value's own name is the list's subject: its values
    ("When to colour, WHEN is one of: always, never, auto.", ("always", "never", "auto")),
    ("MODE is 'fast' or 'slow'. TYPE: the kind of run.", ("fast", "slow")),
])
def test_a_list_said_of_one_part_of_a_compound_value_is_no_choices(said: str, choices: tuple[str, ...]) -> None:
    option, _ = _mode(said)
    assert option.choices == choices


def test_a_starred_value_is_the_default():
    option, _ = _mode("Specify the mode (*auto*, never, always).")
    assert option.default == "auto"


def test_a_flag_without_a_value_gets_no_choices_from_prose():
    desc = describe_help(b"Usage: tool [OPTIONS]\n\nOptions:\n  -q, --quiet  Quiet. One of: a, b\n")
    assert desc.options[0].takes_value is False and desc.options[0].choices == ()


def test_a_positional_no_list_describes_is_described_by_the_text_s_sentence_about_it() -> None:
    """cobra lists no positionals; the command's text says what they are. A name that reads
    like a path (PATH, not FILE) is one only when that sentence speaks of files."""
    help_text = (b"Print the value found at PATH in the document read from FILE.\n\n"
                 b"PATH is a sequence of keys separated by dots, as in items.0.name.\n"
                 b"FILE is read line by line; - reads standard input.\n\n"
                 b"Usage:\n  kit get PATH FILE [flags]\n\n"
                 b"Flags:\n  -h, --help   help for get\n")
    path, file = describe_help(help_text).positionals
    assert (path.description, path.type) == ("PATH is a sequence of keys separated by dots, as in items.0.name.",
                                              "string")
    # a FILE is a file, whatever its sentence says
    assert (file.description, file.type) == ("FILE is read line by line; - reads standard input.", "path")
    # the schema a model sees
    properties = build_tool_schema(describe_help(help_text)).input_schema["properties"]
    assert "format" not in properties["path"] and properties["file"]["format"] == "path"


@pytest.mark.parametrize(("said", "kind"), [
    ("path of the object to list (default: the whole document)", "string"),
    ("dot-separated path to the field to print", "string"),
    ("path to the config file", "path"),
    ("path to the SSH key", "path"),
    ("where the repository is", "path"),
])
def test_a_pflag_path_option_is_a_file_s_place_unless_it_speaks_of_a_document_s_insides(said: str, kind: str) -> None:
    """pflag prints the type ("--path string"), so the option's name decides; a --path into a
    JSON document ("path of the object to list") is no file."""
    help_text = f"Usage:\n  kit keys [flags]\n\nFlags:\n  -h, --help          help\n  --path string   {said}\n"
    [option] = [o for o in describe_help(help_text.encode()).options if o.long == "--path"]
    assert option.type == kind


def test_words_whose_first_letter_in_parentheses_is_the_value_give_their_letters():
    """pip's --exists-action takes s, i, w, b or a: its help writes them "(s)witch, (i)gnore, ..."."""
    option, _desc = _mode("Default action when a path already exists: (s)witch, (i)gnore, (w)ipe, (b)ackup, (a)bort.")
    assert option.choices == ("s", "i", "w", "b", "a")
    option, _desc = _mode("What to do: (s)witch or (i)gnore")  # two words: not read as a list of values
    assert option.choices == ()
