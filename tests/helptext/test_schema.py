"""The input schema names what a model can pass; argv says it back exactly."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from toolbay.helptext import HelpDescription, OptionSpec, PositionalSpec, build_tool_schema, describe_help

CLAP = b"""Usage: tool [OPTIONS] --block-size <SIZE> <INPUT> [EXTRA]...

Arguments:
  <INPUT>     The input
  [EXTRA]...  More inputs

Options:
      --block-size <SIZE>  Block size
  -n <N>                   How many [default: 3]
  -m, --mode <MODE>        Mode [default: fast] [possible values: fast, slow]
  -v, --verbose...         More output
  -e, --exclude <GLOB>     Skip GLOB (can be repeated)
      --stdin              Read from stdin
  -h, --help               Print help
"""


@pytest.fixture
def schema():
    return build_tool_schema(describe_help(CLAP))


def test_properties_are_named_for_models_and_typed(schema):
    props = schema.input_schema["properties"]
    assert set(props) == {"block_size", "n", "mode", "verbose", "exclude", "stdin_option", "input", "extra"}
    assert props["n"] == {"type": "integer", "description": "How many [default: 3]", "default": 3}
    assert props["mode"]["enum"] == ["fast", "slow"]
    assert props["exclude"]["type"] == "array"
    assert props["verbose"]["type"] == "integer"
    assert props["extra"]["type"] == "array"


def test_required_options_and_positionals_are_listed(schema):
    assert schema.input_schema["required"] == ["block_size", "input"]
    assert schema.input_schema["additionalProperties"] is False


def test_argv_writes_values_as_the_help_does(schema):
    # clap writes "--exclude <GLOB>" and "-n <N>": the value a word of its own (argh and many
    # parsers written by hand take no "=" and nothing joined); a value starting with "-" after
    # "=" or joined to a short name, or it would read as a flag.
    argv = schema.to_argv({"block_size": "-1", "n": 5, "verbose": 2, "exclude": ["a", "b"], "input": "x"})
    # "--" after an option given again, last: clap's "<X>..." (num_args 1..) takes words up to the
    # next flag, and would take the positional too.
    assert argv == ["--block-size=-1", "-n", "5", "--verbose", "--verbose", "--exclude", "a", "--exclude", "b", "--",
                    "x"]
    assert schema.to_argv({"block_size": "1", "n": -5, "input": "x"}) == ["--block-size", "1", "-n-5", "x"]


def test_a_short_value_the_help_joins_to_its_name_stays_joined():
    # "-n<num>", "-O[LEVEL]": no word of its own, as the help writes them.
    schema = build_tool_schema(describe_help(
        b"Usage: tool [options] [file]\n  -n<num>       how many\n  -O[LEVEL]     optimise\n"
        b"  -o FILE       where to write\n"))
    argv = schema.to_argv({"n": 3, "O": "2", "o": "out"})
    assert argv == ["-n3", "-O2", "-o", "out"]


def test_argv_keeps_the_equals_sign_where_the_help_writes_one():
    # GNU: "-m, --message=MSG"; "-o FILE, --output=FILE" as well (one name with "=" is enough).
    schema = build_tool_schema(describe_help(
        b"Usage: tool [OPTION]... FILE\n\nOptions:\n  -m, --message=MSG     the message\n"
        b"  -o FILE, --output=FILE  where to write\n      --color[=WHEN]    colour\n"))
    assert schema.to_argv({"message": "hi", "output": "o.txt", "color": "auto", "file": "f"}) == [
        "--message=hi", "--output=o.txt", "--color=auto", "f"]


def test_whole_numbers_written_as_floats_reach_the_program_as_whole_numbers(schema):
    # JSON Schema counts 2.0 an integer, so validation lets it through; "-n2.0" a program refuses.
    argv = schema.to_argv({"block_size": 4096.0, "n": 5.0, "verbose": 2.0, "input": 1.5, "extra": [3.0, 0.25]})
    assert argv == ["--block-size", "4096", "-n", "5", "--verbose", "--verbose", "1.5", "3", "0.25"]


def test_positionals_starting_with_a_dash_come_after_a_double_dash(schema):
    assert schema.to_argv({"block_size": "1", "input": "-weird", "extra": ["b"]}) == \
        ["--block-size", "1", "--", "-weird", "b"]


def test_unknown_or_wrongly_typed_arguments_are_refused_with_a_sentence(schema):
    with pytest.raises(ValueError, match="Unknown argument 'nope'"):
        schema.to_argv({"nope": 1, "block_size": "1", "input": "x"})
    with pytest.raises(ValueError, match="switch"):
        schema.to_argv({"stdin_option": "yes", "block_size": "1", "input": "x"})


def test_a_negatable_switch_says_false_with_its_negation():
    desc = HelpDescription(options=(OptionSpec(long="--color", negation="--no-color"),), dialect="click")
    schema = build_tool_schema(desc)
    assert schema.to_argv({"color": False}) == ["--no-color"]
    assert schema.to_argv({"color": True}) == ["--color"]


def test_go_flag_options_take_single_dash_equals_values():
    options = (OptionSpec(long="-name", takes_value=True, type="string"),
               OptionSpec(short="-n", takes_value=True, type="integer"))
    desc = HelpDescription(options=options, dialect="goflag")
    assert build_tool_schema(desc).to_argv({"name": "-x", "n": 2}) == ["-name=-x", "-n=2"]


def test_a_later_positional_cannot_be_given_without_the_earlier_one():
    positionals = (PositionalSpec("in", required=False), PositionalSpec("out", required=False))
    desc = HelpDescription(positionals=positionals)
    with pytest.raises(ValueError, match="in order"):
        build_tool_schema(desc).to_argv({"out": "o"})


def test_descriptions_round_trip_through_dicts():
    desc = describe_help(CLAP)
    assert HelpDescription.from_dict(desc.to_dict()) == desc


CORPUS = Path(__file__).resolve().parent / "corpus"


def _corpus_schema(folder: str):
    return build_tool_schema(describe_help((CORPUS / folder / "long.txt").read_bytes()))


@pytest.mark.parametrize(("folder", "name", "on", "off"), [
    ("goflag/present", "play", "-play", "-play=false"),  # Go's flag package: "(default true)"
    ("goflag/godoc", "links", "-links", "-links=false"),
    ("cobra/task", "color", "--color", "--color=false"),  # pflag: "-c, --color ... (default true)"
])
def test_a_go_switch_that_is_on_by_default_is_turned_off_with_equals_false(folder, name, on, off):
    schema = _corpus_schema(folder)
    assert schema.input_schema["properties"][name]["default"] is True
    given = {k: "x" for k in schema.input_schema.get("required", [])}  # godoc's usage shows -http=…
    rest = schema.to_argv(given)
    assert sorted(schema.to_argv({**given, name: False})) == sorted([off, *rest])
    assert sorted(schema.to_argv({**given, name: True})) == sorted([on, *rest])


def test_a_go_switch_that_is_off_by_default_still_says_false_by_leaving_the_flag_out():
    schema = _corpus_schema("goflag/present")
    assert schema.to_argv({"notes": False}) == []
    assert schema.to_argv({"notes": True}) == ["-notes"]


# yargs 17.7.2's own help for `.option("color", {alias: "c", type: "boolean", default: true})`;
# the program reads "--no-color" (and "--color=false") as false, also under .strict().
YARGS_ON_BY_DEFAULT = b"""paint [options] <file>

Options:
      --help     Show help                                             [boolean]
      --version  Show version number                                   [boolean]
  -c, --color    colour the output                     [boolean] [default: true]
  -v, --verbose  say more                                              [boolean]
"""


def test_a_yargs_switch_that_is_on_by_default_is_turned_off_with_its_no_form():
    schema = build_tool_schema(describe_help(YARGS_ON_BY_DEFAULT))
    assert schema.input_schema["properties"]["color"]["default"] is True
    assert schema.to_argv({"color": False, "file": "a"}) == ["--no-color", "a"]
    assert schema.to_argv({"verbose": False, "file": "a"}) == ["a"]


def test_a_switch_on_by_default_that_nothing_turns_off_offers_no_false():
    # argparse's store_true with default True ("--symlinks", virtualenv): false is passed as
    # nothing, so the schema does not offer it as the way to turn the setting off.
    schema = _corpus_schema("argparse/virtualenv")
    prop = schema.input_schema["properties"]["symlinks"]
    assert "default" not in prop
    assert "Passing false does not turn it off; it only leaves the flag out." in prop["description"]
    assert schema.to_argv({"symlinks": False, "dest": "d"}) == ["d"]


def test_a_positional_the_usage_writes_after_a_double_dash_is_always_passed_after_one():
    # clap's last = true: "exec --all ls" is refused ("Found argument 'ls' which wasn't expected").
    schema = build_tool_schema(describe_help(
        b"Usage: run exec [OPTIONS] -- <COMMAND>...\n\nArguments:\n  <COMMAND>...  the command\n\n"
        b"Options:\n      --all  every agent\n  -h, --help  Print help\n"))
    assert schema.to_argv({"command": ["ls", "/tmp"], "all": True}) == ["--all", "--", "ls", "/tmp"]
    assert build_tool_schema(describe_help(CLAP)).to_argv({"block_size": "1", "input": "x"}) == \
        ["--block-size", "1", "x"]  # elsewhere "--" only where a value needs it


def test_an_option_taking_several_values_at_once_is_a_list_of_that_many():
    # clap's num_args = 2 ("--size <W> <H>") and argparse's nargs=2 ("--pair KEY VALUE") were one
    # string ("3 4"), which the program refused as one value of two; "<COMMIT HASH>" is one value.
    clap = build_tool_schema(describe_help(
        b"Usage: r [OPTIONS]\n\nOptions:\n      --size <W> <H>        the size\n"
        b"      --commit <COMMIT HASH>  the commit\n  -h, --help  Print help\n"))
    properties = clap.input_schema["properties"]
    assert properties["size"]["minItems"] == properties["size"]["maxItems"] == 2
    assert properties["commit"]["type"] == "string"
    assert clap.to_argv({"size": [3, 4], "commit": "abc"}) == ["--commit", "abc", "--size", "3", "4"]
    argparse = build_tool_schema(describe_help(
        b"usage: conv [-h] [--pair KEY VALUE]\n\noptions:\n  -h, --help        show this help message and exit\n"
        b"  --pair KEY VALUE  a pair\n"))
    assert argparse.to_argv({"pair": ["k", "v"]}) == ["--pair", "k", "v"]


def test_an_option_whose_value_may_be_left_out_can_be_given_alone():
    # "--backup[=CONTROL]" alone makes numbered or simple backups as the program decides; with
    # choices only ("--color[=WHEN]"), no value the schema took could send the flag alone.
    schema = build_tool_schema(describe_help(
        b"Usage: cp [OPTION]... SOURCE DEST\n\nOptions:\n      --backup[=CONTROL]  make a backup\n"
        b"      --color[=WHEN]  colorize; WHEN is one of: always, never, auto\n"))
    assert "" in schema.input_schema["properties"]["color"]["enum"]
    assert schema.to_argv({"backup": "", "color": "", "source": "a", "dest": "b"}) == ["--backup", "--color", "a", "b"]
    assert schema.to_argv({"backup": "t", "source": "a", "dest": "b"}) == ["--backup=t", "a", "b"]


SEQ = b"""Usage: seq [OPTION]... LAST
  or:  seq [OPTION]... FIRST LAST
  or:  seq [OPTION]... FIRST INCREMENT LAST
Print numbers from FIRST to LAST, in steps of INCREMENT.

  -s, --separator=STRING   use STRING to separate numbers (default: \\n)
  -w, --equal-width        equalize width by padding with leading zeroes
      --help        display this help and exit
"""

MV = b"""Usage: mv [OPTION]... [-T] SOURCE DEST
  or:  mv [OPTION]... SOURCE... DIRECTORY
  or:  mv [OPTION]... -t DIRECTORY SOURCE...
Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.

  -f, --force                  do not prompt before overwriting
  -t, --target-directory=DIRECTORY  move all SOURCE arguments into DIRECTORY
  -T, --no-target-directory    treat DEST as a normal file
      --help        display this help and exit
"""


def test_positionals_go_in_the_order_of_the_usage_form_that_takes_them():
    """Each usage form its own positionals: "seq FIRST LAST" was passed as "seq LAST FIRST" (the
    order the forms first named them in), which prints nothing; "mv SOURCE... DIRECTORY" was
    refused for want of DEST; "mv -t DIRECTORY SOURCE..." needs its option."""
    seq = build_tool_schema(describe_help(SEQ))
    assert seq.to_argv({"last": 10}) == ["10"]
    assert seq.to_argv({"first": 1, "last": 10}) == ["1", "10"]
    assert seq.to_argv({"first": 1, "increment": 2, "last": 10}) == ["1", "2", "10"]
    with pytest.raises(ValueError, match=r"go together as the usage's forms allow: "
                                         r"last; first last; first increment last \(given: first, increment\)"):
        seq.to_argv({"first": 1, "increment": 2})
    # The model is told which go together.
    assert seq.input_schema["properties"]["first"]["description"].endswith(
        "The positional arguments go together as one of: 'last'; 'first' 'last'; 'first' 'increment' 'last'.")
    mv = build_tool_schema(describe_help(MV))
    assert mv.to_argv({"source": ["a"], "dest": "b"}) == ["a", "b"]
    assert mv.to_argv({"source": ["a", "b"], "directory": "d"}) == ["a", "b", "d"]
    assert mv.to_argv({"source": ["a", "b"], "target_directory": "d"}) == ["--target-directory=d", "a", "b"]
    with pytest.raises(ValueError, match=r"\(given: source\)"):
        mv.to_argv({"source": ["a"]})  # no form takes a source alone without -t
    # One order that fits every form is left as it was: "tr STRING1 [STRING2]".
    tr = describe_help(b"Usage: tr [OPTION]... STRING1 [STRING2]\n  or:  tr -d STRING1\n\n  -d  delete\n")
    assert tr.positional_forms == ()


def test_usage_forms_survive_the_description_cache_shape():
    described = describe_help(MV)
    assert described.positional_forms
    assert HelpDescription.from_dict(described.to_dict()) == described


@pytest.mark.skipif(shutil.which("seq") is None or shutil.which("mv") is None, reason="needs GNU seq and mv")
def test_the_forms_read_from_gnu_seqs_and_mvs_own_help_run_them_as_asked(tmp_path: Path):
    """The truth is the programs': their own help read, the call's argv run by them."""
    def run(program: str, arguments: dict) -> str:
        help_text = subprocess.run([program, "--help"], capture_output=True, check=True,
                                   env={"LC_ALL": "C", "PATH": os.environ["PATH"]}).stdout
        argv = build_tool_schema(describe_help(help_text)).to_argv(arguments)
        return subprocess.run([program, *argv], capture_output=True, text=True, check=True, cwd=tmp_path).stdout

    assert run("seq", {"first": 2, "last": 4}).split() == ["2", "3", "4"]
    assert run("seq", {"first": 1, "increment": 3, "last": 10}).split() == ["1", "4", "7", "10"]
    for name in ("a", "b"):
        (tmp_path / name).write_text(name)
    (tmp_path / "into").mkdir()
    run("mv", {"source": ["a", "b"], "directory": "into"})
    assert sorted(p.name for p in (tmp_path / "into").iterdir()) == ["a", "b"]


def test_usage_forms_led_by_their_own_words_keep_the_words_where_no_commands_are_listed():
    """"usage: kvs get KEY / kvs set KEY VALUE" (a hand-written usage, a Go program dispatching
    on its first word): the words were dropped, so every call ran "kvs KEY"."""
    kvs = build_tool_schema(describe_help(b"usage: kvs get KEY\n       kvs set KEY VALUE\n       kvs del KEY\n"))
    assert kvs.input_schema["properties"]["command"]["enum"] == ["get KEY", "set KEY VALUE", "del KEY"]
    assert kvs.to_argv({"command": "set KEY VALUE", "key": "a", "value": "b"}) == ["set", "a", "b"]
    assert kvs.to_argv({"command": "del KEY", "key": "a"}) == ["del", "a"]
    go = build_tool_schema(describe_help(b"Usage:\n  app serve [flags]\n  app migrate [flags] VERSION\n\nFlags:\n"
                                         b"  -port int\n    \tport to listen on (default 8080)\n"))
    # Its options' place is after the command word: a Go program reading each command's flags
    # with a flag set of its own takes them only there.
    assert go.input_schema["properties"]["command"]["enum"] == ["serve [options]", "migrate [options] VERSION"]
    migrate = {"command": "migrate [options] VERSION", "version": "3", "port": 9}
    assert go.to_argv(migrate) == ["migrate", "-port=9", "3"]
    assert go.to_argv({"command": "serve [options]"}) == ["serve"]
    # "[--]" is the end of the options, not their place.
    ended = describe_help(b"usage: prog run [--] <file>...\n       prog list\n\n  -v  verbose\n")
    assert ended.positionals[0].choices == ("run <file>...", "list")
    # A form of arguments alone says no command for sure: left as it was.
    mixed = describe_help(b"usage: conv INPUT\n       conv list\n")
    assert [p.name for p in mixed.positionals] == ["INPUT"]


def test_usage_forms_whose_words_follow_the_options_keep_the_words():
    """"usage: kvs [-v] get KEY / kvs [-v] set KEY VALUE": the words after the options were read
    as positionals named "get" and "set", which a call filled with its values."""
    kvs = build_tool_schema(describe_help(b"usage: kvs [-v] get KEY\n       kvs [-v] set KEY VALUE\n\n"
                                          b"options:\n  -v  say more\n"))
    assert set(kvs.input_schema["properties"]) == {"command", "key", "value", "v"}
    assert kvs.input_schema["properties"]["command"]["enum"] == ["get KEY", "set KEY VALUE"]
    assert kvs.to_argv({"command": "set KEY VALUE", "key": "a", "value": "b", "v": True}) == ["-v", "set", "a", "b"]
    # Lowercase names of arguments, as BSD's usages write them, stay positionals: in a form that
    # has more than one, in one the help lists, or where every form begins with the same one.
    for usage in (b"usage: cmp [-l | -s] file1 file2\n       cmp [-l | -s] dir1 dir2\n",
                  b"usage: tool [-v] src DEST\n       tool [-v] dir DEST\n\narguments:\n  src   the source\n"
                  b"  dir   a folder\n  DEST  where to\n",
                  b"usage: mv [-f | -i] source target\n       mv [-f | -i] source DIRECTORY\n"):
        assert "command" not in build_tool_schema(describe_help(usage)).input_schema["properties"], usage


def test_a_counted_flag_is_given_at_most_a_hundred_times() -> None:
    """A count had no maximum, and its words were made in the server's memory: ten million took
    gigabytes, and 10**12 failed as an internal error (an outside check)."""
    schema = build_tool_schema(describe_help(
        b"Usage: cnote [OPTIONS] WORD\n\nOptions:\n  -v, --verbose  print more (repeat for more)\n"
        b"  -h, --help     show this help\n"))
    verbose = schema.input_schema["properties"]["verbose"]
    assert (verbose["type"], verbose["minimum"], verbose["maximum"]) == ("integer", 0, 100)
    assert list(schema.to_argv({"verbose": 3, "word": "w"})) == ["--verbose"] * 3 + ["w"]
    for too_many in (101, 10**12):
        with pytest.raises(ValueError, match="give a whole number from 0 to 100"):
            schema.to_argv({"verbose": too_many, "word": "w"})


def test_the_lists_of_one_call_hold_at_most_32768_items() -> None:
    """800,000 items of one list became as many words, made on the server's event loop: seconds
    of it and hundreds of MB a call (an outside check)."""
    schema = build_tool_schema(describe_help(
        b"Usage: count [OPTIONS] [FILE]...\n\nOptions:\n  -w, --words  count words\n  -h, --help   show this help\n"))
    assert len(schema.to_argv({"file": ["a"] * 32_768})) == 32_768
    with pytest.raises(ValueError, match=r"hold 800,000 items in all, more than a command line takes here \(32,768\)"):
        schema.to_argv({"file": ["a"] * 800_000})
