"""Forms of help text that real programs print, each read as its program means it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from toolbay.helptext import build_tool_schema, describe_help


def _describe(text: str):
    return describe_help(text.encode())


def test_commands_listed_under_several_headings_are_all_subcommands():
    desc = _describe("Work with GitHub.\n\nUSAGE\n  gh <command> <subcommand> [flags]\n\nCORE COMMANDS\n"
                     "  issue:      Manage issues\n  pr:         Manage pull requests\n\n"
                     "ADDITIONAL COMMANDS\n  alias:      Create command shortcuts\n\nFLAGS\n"
                     "  --help      Show help for command\n")
    assert [s.name for s in desc.subcommands] == ["issue", "pr", "alias"]


def test_argparse_subparsers_are_subcommands_not_a_positional():
    desc = _describe("usage: kit [-h] {pack,unpack} ...\n\npositional arguments:\n  {pack,unpack}\n"
                     "    pack      Pack it\n    unpack    Unpack it\n\noptions:\n"
                     "  -h, --help  show this help message and exit\n")
    assert [s.name for s in desc.subcommands] == ["pack", "unpack"]
    assert desc.positionals == ()


def test_angle_brackets_are_required_square_brackets_optional_and_dots_repeat():
    desc = _describe("Usage: copy [OPTIONS] <SOURCE> <DEST> [EXTRA]...\n\nOptions:\n"
                     "  -v, --verbose  Talk more\n")
    got = [(p.name, p.required, p.variadic) for p in desc.positionals]
    assert got == [("SOURCE", True, False), ("DEST", True, False), ("EXTRA", False, True)]


@pytest.mark.parametrize("usage", ["mycp [OPTIONS] [SRC... DST]", "mycp [options] [<src>... <dst>]",
                                   "mycp [OPTIONS] [SRC ... DST]"])
def test_repeated_operands_then_one_in_a_bracket_are_each_optional(usage: str):
    """They gave no operand at all, so no call could name a file (an outside check). Given, they
    reach the program in the order written: sources, then the destination (docopt reads every
    one of them as a source, its own greedy reading of its own usage)."""
    desc = _describe(f"Usage: {usage}\n\nCopies files.\n\nOptions:\n  -r, --recursive  Copy folders\n")
    got = [(p.name.strip("<>").lower(), p.required, p.variadic) for p in desc.positionals]
    assert got == [("src", False, True), ("dst", False, False)]


def test_positionals_in_several_usage_forms_are_required_only_when_every_form_needs_them():
    desc = _describe("Usage: cp [OPTION]... SOURCE DEST\n  or:  cp [OPTION]... SOURCE... DIRECTORY\n\n"
                     "  -f, --force   do not prompt\n")
    got = {p.name: p.required for p in desc.positionals}
    assert got["SOURCE"] is True and got["DEST"] is False and got["DIRECTORY"] is False


def test_prose_after_the_usage_line_does_not_become_positionals():
    desc = _describe("Usage: tool [flags] FILE\n\nTool reads FILE and writes Results Somewhere Else.\n\n"
                     "Flags:\n  -o, --out string   where to write\n")
    assert [p.name for p in desc.positionals] == ["FILE"]


@pytest.mark.parametrize(("name", "operands"), [("gopt2", []), ("gopt", ["file", "src", "dst"]),
                                               # in the C locale (a guest with no LANG), "[OPTION?]"
                                               ("gopt2-C-locale", [])])
def test_the_summary_glib_writes_after_its_usage_is_no_operands(name: str, operands: list[str]):
    # truth_programs/goption: g_option_context_new("- test tree model performance") (GLib's own
    # documented idiom) and ("SRC [DST] - copy things") with G_OPTION_REMAINING "FILE…": the
    # summary's words were required operands, every call had to give four junk words.
    text = (Path(__file__).parent / "framework_texts" / f"goption-glib-2.74-{name}.txt").read_bytes()
    properties = build_tool_schema(describe_help(text)).input_schema["properties"]
    assert [key for key in properties if key not in ("verbose", "count", "output", "ratio", "tag", "no_color",
                                                      "big", "name", "stdin")] == operands
    # Elsewhere a lone "-" after the options is standard input, not a summary.
    stdin = _describe("Usage: tool [OPTION]... - FILE\n\nOptions:\n  -v, --verbose  Talk more\n")
    assert [p.name for p in stdin.positionals][-1] == "FILE"


def test_an_optional_operand_nested_in_another_is_optional_and_takes_its_dots():
    # truth_programs/cleo (cleo 2.1): argument("name", optional=True), argument("extra",
    # optional=True, multiple=True): "greet [options] [--] [<name> [<extra>...]]" was read as
    # "[FILE [FILE ...]]" (one operand, repeated), and extra, listed below, became required.
    text = (Path(__file__).parent / "framework_texts" / "cleo-2.1-cl1-greet.txt").read_bytes()
    assert [(p.name, p.required, p.variadic) for p in describe_help(text).positionals] == [
        ("name", False, False), ("extra", False, True)]
    repeated = _describe("Usage: x [FILE [FILE...]]\n\nOptions:\n  -v  verbose\n")
    assert [(p.name, p.required, p.variadic) for p in repeated.positionals] == [("FILE", False, True)]


def test_a_usage_beside_its_capital_heading_without_a_colon_is_the_usage():
    # truth_programs/citty (citty 0.2.2): name required, url not, --token required: its usage
    # "USAGE citty1 add [OPTIONS] <NAME> [URL] --token=<token>" was not read, and URL, listed
    # below, became required.
    text = (Path(__file__).parent / "framework_texts" / "citty-0.2.2-citty1-add.txt").read_bytes()
    schema = build_tool_schema(describe_help(text)).input_schema
    assert sorted(schema["required"]) == ["name", "token"] and "url" in schema["properties"]
    assert _describe("USAGE NOTES\n\nOptions:\n  -v  verbose\n").usage == ""


def test_a_usage_after_a_prompt_at_the_margin_under_its_heading_is_the_usage():
    # truth_programs/clipanion (clipanion 3.2.1): name = Option.String(), url = Option.String(),
    # both required: "Usage", a blank line, "$ clip1 remote add <name> <url>" at the margin
    # was not read, and the tool took neither.
    text = (Path(__file__).parent / "framework_texts" / "clipanion-3.2.1-clip1-remote-add.txt").read_bytes()
    assert build_tool_schema(describe_help(text)).input_schema["required"] == ["name", "url"]


def test_a_command_and_its_arguments_in_nested_brackets_stay_one_list():
    # OpenSSH 9.2's `ssh -h` ends "destination [command [argument ...]]": the command and its
    # arguments, as many as given. Read as two operands, the command word was taken for a
    # subcommand's placeholder and dropped: no call could give one.
    desc = _describe("usage: ssh [-46] [-p port] destination [command [argument ...]]\n")
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [
        ("destination", True, False), ("command", False, True)]


@pytest.mark.parametrize("text", [
    # a licence line in capitals, above the usage
    "USAGE OF THIS TOOL IS AT YOUR OWN RISK - see <https://example.org/license>\n\nUsage: prog [-v] FILE\n\n"
    "Options:\n  -v, --verbose  be verbose\n",
    # prose under a heading about using the program
    "prog - convert files\n\nUSAGE\n  prog [-v] FILE\n\nUSAGE NOTES\n  FILE may be - for standard input.\n\n"
    "Options:\n  -v, --verbose  be verbose\n",
    # an example after its prompt under a second "Usage"
    "Usage: prog [-v] FILE\n\nOptions:\n  -v, --verbose  be verbose\n\nUsage\n\n$ prog -v notes.txt\n",
])
def test_prose_and_examples_headed_usage_are_no_usage_forms(text: str):
    desc = _describe(text)
    assert desc.usage == "prog [-v] FILE"
    assert [(p.name, p.required) for p in desc.positionals] == [("FILE", True)]


def test_a_pflag_boolean_written_with_its_optional_false_takes_no_value():
    desc = _describe("Usage:\n  kit [flags]\n\nFlags:\n      --dry-run[=false]   only print\n"
                     "  -h, --help   help for kit\n")
    option = desc.options[0]
    assert option.long == "--dry-run" and option.takes_value is False
    assert build_tool_schema(desc).input_schema["properties"]["dry_run"]["type"] == "boolean"


def test_the_about_line_is_not_repeated_at_the_start_of_the_description():
    desc = _describe("Counts the lines of a file. Empty lines count too.\n\nUsage: wc [OPTIONS] [FILE]\n\n"
                     "Options:\n  -q, --quiet  Quiet\n")
    assert desc.about == "Counts the lines of a file. Empty lines count too."
    assert not desc.description.startswith(desc.about)


def test_descriptions_do_not_end_in_the_value_name_but_keep_a_format():
    desc = _describe("Usage: x [OPTIONS]\n\nOptions:\n  -a, --alg <ALG>        Hash algorithm\n"
                     "  -e, --env <KEY=VALUE>  Set a variable\n")
    props = build_tool_schema(desc).input_schema["properties"]
    assert props["alg"]["description"] == "Hash algorithm"
    assert props["env"]["description"] == "Set a variable. Format: KEY=VALUE."  # a sentence of its own


def test_a_default_alone_makes_a_number_but_a_value_name_can_say_integer():
    desc = _describe("usage: x [-h] [--wait WAIT] [--tries N]\n\noptions:\n"
                     "  --wait WAIT  seconds to wait (default: 3)\n  --tries N    attempts (default: 3)\n")
    props = build_tool_schema(desc).input_schema["properties"]
    assert props["wait"]["type"] == "number" and props["tries"]["type"] == "integer"


def test_pflag_slice_values_are_said_to_split_on_commas():
    desc = _describe("Usage:\n  kit [flags]\n\nFlags:\n  -t, --tags strings   Tags to add\n")
    prop = build_tool_schema(desc).input_schema["properties"]["tags"]
    assert prop["type"] == "array" and "commas" in prop["description"]


def test_positionals_from_short_and_long_help_are_merged_by_name():
    long = b"Usage: t [OPTIONS] <FILE>\n\nArguments:\n  <FILE>\n          \n\nOptions:\n  -q  Quiet\n"
    short = b"Usage: t [OPTIONS] <FILE>\n\nArguments:\n  <FILE>  The file to read\n\nOptions:\n  -q  Quiet\n"
    desc = describe_help(long, short)
    assert [(p.name, p.description) for p in desc.positionals] == [("FILE", "The file to read")]


def test_a_switch_and_its_negation_written_without_spaces_are_one_boolean():
    desc = _describe("Usage: bump [OPTIONS]\n\nOptions:\n  --commit/--no-commit   Commit the change\n"
                     "  --tag TEXT             Tag name\n")
    option = next(o for o in desc.options if o.long == "--commit")
    assert (option.takes_value, option.negation) == (False, "--no-commit")
    assert build_tool_schema(desc).input_schema["properties"]["commit"]["type"] == "boolean"


def test_rich_panels_with_short_and_long_names_in_columns_and_short_less_options_below():
    """rich-click's panels: "-h  --head LINES" (no comma between the names, the value after
    the long one), and options without a short name indented to the long names' column."""
    rows = [("-p  --print", "Print console markup."), ("    --rst", "Display restructured text."),
            ("-h  --head LINES", "Display first LINES of the file."),
            ("    --rule-char CHARACTER", "Use CHARACTER for the rule."),
            ("-d  --padding TOP,RIGHT", "Padding around output."), ("    --help", "Show this message and exit.")]
    width = 60
    body = "".join(f"│  {names:28s}{text:{width - 30}s}│\n" for names, text in rows)
    desc = _describe(f"Usage: rich [OPTIONS] PATH\n\n╭─ Options {'─' * (width - 10)}╮\n{body}╰{'─' * width}╯\n")
    got = [(o.short, o.long, o.takes_value, o.description) for o in desc.options]
    assert got == [("-p", "--print", False, "Print console markup."),
                   (None, "--rst", False, "Display restructured text."),
                   ("-h", "--head", True, "Display first LINES of the file."),
                   (None, "--rule-char", True, "Use CHARACTER for the rule."),
                   ("-d", "--padding", True, "Padding around output."),
                   (None, "--help", False, "Show this message and exit.")]


def test_rich_click_long_then_short_then_a_choices_column_wrapped_inside_its_width():
    """rich-click's panels: "--chip  -c  [auto|esp32|esp32s" with "3|esp32c3]" under it: the
    choices column wraps within its width, even inside a word, left of the description's
    continuation; a hyphenated value name ("SERIAL-PORT") is a column of the head too."""
    rows = [("--chip   -c  [auto|esp32|esp32s", "Target chip type."), ("             3|esp32c3]", ""),
            ("--port   -p  SERIAL-PORT", "Serial port device."),
            ("--after  -a  [hard-reset|no-reset|no", "Which reset to perform after"),
            ("             -reset-stub]", "operation is finished."),
            ("--trace  -t", "Enable trace-level output.")]
    width = 76
    body = "".join(f"│ {names:40s}{text:{width - 41}s}│\n" for names, text in rows)
    desc = _describe(f"Usage: esptool [OPTIONS] COMMAND\n\n╭─ Options {'─' * (width - 10)}╮\n{body}"
                     f"╰{'─' * width}╯\n")
    got = [(o.long, o.short, o.takes_value, o.choices, o.description) for o in desc.options]
    assert got == [("--chip", "-c", True, ("auto", "esp32", "esp32s3", "esp32c3"), "Target chip type."),
                   ("--port", "-p", True, (), "Serial port device."),
                   ("--after", "-a", True, ("hard-reset", "no-reset", "no-reset-stub"),
                    "Which reset to perform after operation is finished."),
                   ("--trace", "-t", False, (), "Enable trace-level output.")]


def test_a_value_list_that_names_a_kind_of_value_is_not_a_closed_enum():
    """"{keep,no,INTEGER}" takes any integer too; "[PATH|URI]" names two kinds of value; a list
    ending in "..." is open. Real choices in capitals ("{JSON,XML}") stay choices."""
    desc = _describe("usage: fmt [-h] [--wrap {keep,no,INTEGER}] [--schema [PATH|URI]] [--of {JSON,XML}]\n\n"
                     "options:\n  --wrap {keep,no,INTEGER}\n                        wrap mode\n"
                     "  --schema [PATH|URI]   the schema\n  --skip {*|FORMAT,FORMAT,...}\n"
                     "                        formats to skip\n  --of {JSON,XML}       output format\n")
    got = {o.long: (o.takes_value, o.choices) for o in desc.options}
    assert got == {"--wrap": (True, ()), "--schema": (True, ()), "--skip": (True, ()),
                   "--of": (True, ("JSON", "XML"))}


def test_a_usage_line_that_is_a_sentence_about_the_program_names_no_positionals():
    desc = _describe("Usage: qr - Convert stdin (or the first argument) to a QR Code.\n\n"
                     "Options:\n  -h, --help   show this help message and exit\n  --factory=FACTORY  the factory\n")
    assert desc.positionals == ()
    assert [o.long for o in desc.options] == ["--help", "--factory"]


def test_a_bracketed_name_then_comma_and_dots_is_an_optional_repeated_positional():
    desc = _describe("usage: apidoc [OPTIONS] -o <OUTPUT_PATH> <MODULE_PATH> [EXCLUDE_PATTERN, ...]\n\n"
                     "positional arguments:\n  module_path      the package\n"
                     "  exclude_pattern  patterns to leave out\n\noptions:\n  -o OUTPUT_PATH   where to write\n")
    got = [(p.name, p.required, p.variadic) for p in desc.positionals]
    assert got == [("module_path", True, False), ("exclude_pattern", False, True)]


def test_a_rich_arguments_panel_value_column_ending_in_dots_repeats():
    width = 70
    row = f"│ *  {'ADDR-FILENAME':15s}{'<address> <filename>...':26s}{'[required]':{width - 45}s}│\n"
    desc = _describe(f"Usage: esptool write-flash [OPTIONS] <address> <filename>...\n\n"
                     f"╭─ Arguments {'─' * (width - 12)}╮\n{row}╰{'─' * width}╯\n")
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("ADDR-FILENAME", True, True)]


def test_a_value_named_boolean_outside_a_type_column_is_still_a_value():
    """commander's "--compact <boolean>" takes "true" or "false"; only typer's type column
    prints "<bool>" for a switch."""
    desc = _describe("Usage: obfuscate <inputPath> [options]\n\nOptions:\n"
                     "  --compact <boolean>   Disable one line output code compacting\n"
                     "  -o, --output <path>   Output path\n  -h, --help            display help for command\n")
    option = next(o for o in desc.options if o.long == "--compact")
    assert option.takes_value is True


def test_command_names_with_a_colon_inside_are_whole_names():
    """knex: "migrate:make [options] <name>"; gh's "issue:" ends its name with the colon."""
    desc = _describe("Usage: knex [options] [command]\n\nCommands:\n  init [options]          Create a knexfile.\n"
                     "  migrate:make <name>     Create a named migration file.\n"
                     "  seed:run [options]      Run seed files.\n")
    assert [s.name for s in desc.subcommands] == ["init", "migrate:make", "seed:run"]


@pytest.mark.parametrize(("options", "repeatable"), [
    # "multiple times" in what an option does does not make it repeatable.
    ("  --multipass            Pass over SVGs multiple times to ensure all\n"
     "                         optimizations are applied\n"
     "  -e, --exclude <glob>   Exclude files. This option can be used multiple times.\n"
     "  -v, --verbose          Talk more; use the flag multiple times for more.\n",
     {"--multipass": False, "--exclude": True, "--verbose": True}),
    # A counter, so a model may give it twice: read as a plain switch, only one -v could be passed.
    ("  -v, --verbose   more output (repeat for more)\n"
     "  -d, --debug     debug output (-dd for even more)\n"
     "  -r, --repeat    repeat the last command\n"
     "  -q, --quiet     less output; repeat to be quieter still\n",
     {"--verbose": True, "--debug": True, "--repeat": False, "--quiet": True}),
    # Read from pytest's, hf's, ensurepip's and compileall's helps: each was a single value.
    ("  --ignore=path    Ignore path during collection (multi-allowed)\n"
     "  --include PAT    Include files matching pattern (can specify multiple).\n"
     "  --expose PORT    Expose a port. Repeat the flag for multiple ports.\n"
     "  --label KV       Only show jobs with the given label. Repeat to require several labels.\n"
     "  --status S       Only show jobs with the given status. Comma-separated or repeated.\n"
     "  --noisy          Enable verbose output; pass multiple times to increase verbosity.\n"
     "  --loud           Give more output. Option is additive, and can be used up to 3 times.\n"
     "  --very           When given twice, print even more.\n"
     "  --quietly        output only error messages; -qq will suppress the error messages as well.\n"
     "  --again          repeat the last command\n"
     "  --uniq           drop repeated lines, one of each kept\n"
     # what the option does, not how it is given (re-check of this session's fix)
     "  --count N        Repeat the argument N times on the page.\n"
     "  --width COLS     Width of the page. Repeat to fill is off by default.\n"
     # as needed, and to do more (the second re-check: both were lost by a narrower reading)
     "  --exclude PAT    Skip files matching PAT. Repeat this option as needed.\n"
     "  --verbose        Print more. Repeat to print even more.\n"
     "  --char CHAR      Fill character; repeat to fill the whole width with it.\n"
     "  --loop           Repeat to make a seamless loop.\n",
     {"--ignore": True, "--include": True, "--expose": True, "--label": True, "--status": True, "--noisy": True,
      "--loud": True, "--very": True, "--quietly": True, "--again": False, "--uniq": False, "--count": False,
      "--width": False, "--exclude": True, "--verbose": True, "--char": False, "--loop": False}),
])
def test_an_option_is_repeatable_where_its_text_says_it_is_given_again(
        options: str, repeatable: dict[str, bool]) -> None:
    desc = _describe(f"Usage: tool [options]\n\nOptions:\n{options}")
    assert {o.long: o.repeatable for o in desc.options} == repeatable


def test_a_sentence_under_the_commands_at_their_indent_is_not_a_command():
    desc = _describe("Usage: gitlint [OPTIONS] COMMAND [ARGS]...\n\nCommands:\n"
                     "  install-hook     Install gitlint as a git commit-msg hook.\n"
                     "  lint             Lints a git repository [default command]\n\n"
                     "  When no COMMAND is specified, gitlint defaults to 'gitlint lint'.\n")
    assert [s.name for s in desc.subcommands] == ["install-hook", "lint"]


def test_option_groups_named_like_prose_headings_still_hold_options():
    """argparse groups "Reporting" (pytest), "test session debugging and configuration" and
    "Environment options" (nox) list options; "Reporting bugs" and "Environment variables" are prose."""
    desc = _describe("usage: t [options]\n\nReporting:\n  --durations=N         Show N slowest durations\n\n"
                     "test session debugging and configuration:\n  -c FILE, --config-file=FILE\n"
                     "                        Load configuration from FILE\n\nEnvironment options:\n"
                     "  --envdir ENVDIR       Directory for the environments\n\nEnvironment variables:\n"
                     "  CI                    When set, runs as in CI\n\nReporting bugs:\n"
                     "  -- see the issue tracker at https://example.org\n")
    assert [o.long for o in desc.options] == ["--durations", "--config-file", "--envdir"]


def test_options_listed_under_a_commands_heading_are_options():
    """pylint's argparse group "Commands" and just's "Commands:" list flags that act as commands."""
    desc = _describe("usage: pylint [options]\n\nCommands:\n"
                     "  Options which are actually commands. Options in this group are mutually exclusive.\n\n"
                     "  --rcfile RCFILE       Specify a configuration file to load.\n"
                     "  --list-msgs           Display a list of all pylint's messages.\n")
    assert [(o.long, o.takes_value) for o in desc.options] == [("--rcfile", True), ("--list-msgs", False)]
    assert desc.subcommands == ()


def test_bracketed_dots_after_a_positional_repeat_it():
    desc = _describe("usage: pytest [options] [file_or_dir] [file_or_dir] [...]\n\npositional arguments:\n"
                     "  file_or_dir\n\noptions:\n  -x, --exitfirst       Exit instantly on first error\n")
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("file_or_dir", False, True)]


def test_a_number_whose_text_names_a_word_value_is_not_typed_as_a_number():
    """"-j N … 'auto' uses every core": typing it integer would refuse "auto"; plain N stays integer."""
    desc = _describe("usage: build [-h] [-j N] [-n N]\n\noptions:\n"
                     "  -j N, --jobs N   run with N processes. 'auto' uses the number of CPU cores\n"
                     "  -n N, --count N  stop after N files\n")
    schema = build_tool_schema(desc).input_schema["properties"]
    assert schema["jobs"]["type"] == "string"
    assert schema["count"]["type"] == "integer"


def test_an_option_named_in_the_description_takes_its_words_from_the_list_of_options():
    # cobra wraps the description wherever it falls: here a line starts with "--sort-keys".
    desc = _describe("Pretty-print a JSON document.\n\nKey order is kept exactly as written unless\n"
                     "--sort-keys is given. Fails if the input is not valid JSON.\n\nUsage:\n  kit fmt [flags]\n\n"
                     "Flags:\n      --compact     print on one line\n"
                     "      --sort-keys   sort object keys alphabetically\n")
    assert [(o.long, o.description) for o in desc.options] == [
        ("--compact", "print on one line"), ("--sort-keys", "sort object keys alphabetically")]


def test_click_ranges_become_bounds_and_its_flag_pair_default_says_which_form_is_on():
    desc = _describe("Usage: deploy [OPTIONS]\n\nOptions:\n"
                     "  --replicas INTEGER RANGE  Number of replicas.  [1<=x<=10]\n"
                     "  --ratio FLOAT RANGE       Share kept.  [0<=x<1]\n"
                     "  --port INTEGER RANGE      Port.  [x>=1024]\n"
                     "  --force / --no-force      Skip confirmation.  [default: no-force]\n"
                     "  --cache / --no-cache      Use the cache.  [default: cache]\n"
                     "  --help                    Show this message and exit.\n")
    properties = build_tool_schema(desc).input_schema["properties"]
    assert {k: v for k, v in properties["replicas"].items() if k != "description"} == {
        "type": "integer", "minimum": 1, "maximum": 10}
    assert (properties["ratio"]["minimum"], properties["ratio"]["exclusiveMaximum"]) == (0, 1)
    assert properties["port"]["minimum"] == 1024 and "maximum" not in properties["port"]
    assert properties["force"]["default"] is False and properties["cache"]["default"] is True


def test_a_positional_default_is_the_schema_default_and_whole_number_defaults_stay_whole():
    desc = _describe("Usage: rg [OPTIONS] [PATH]...\n\nArguments:\n"
                     "  [PATH]...  Files or folders to search [default: .]\n\nOptions:\n"
                     "  -j, --threads <NUM>  Worker threads [default: 4]\n"
                     "  -h, --help           Print help\n")
    schema = build_tool_schema(desc).input_schema["properties"]
    assert schema["path"]["default"] == ["."]
    # 4.0 is refused by a program that parses an integer (clap's usize).
    assert schema["threads"]["default"] == 4 and isinstance(schema["threads"]["default"], int)


def test_a_long_first_sentence_is_cut_at_a_word_and_no_letter_is_lost():
    """textkit case's description read "... each line as an ident…" then "fier (words ...":
    the cut dropped the letter the ellipsis stood in for."""
    text = ("Convert text to another letter case or naming style. upper, lower and title work on the "
            "whole text; snake, kebab, camel and pascal convert each line as an identifier (words are "
            "split on spaces).\n\nUsage: case [OPTIONS]\n\nOptions:\n  -h, --help  Print help\n")
    desc = _describe(text)
    assert desc.about == "Convert text to another letter case or naming style."
    assert "each line as an identifier (words are split on spaces)." in desc.description
    unbroken = _describe(("word " * 60).strip() + "\n\nUsage: w [OPTIONS]\n\nOptions:\n  -h, --help  Print help\n")
    assert unbroken.about.endswith("word…") and "word " * 59 in unbroken.description


def test_a_flag_that_a_wrapped_sentence_puts_first_on_a_line_stays_in_the_sentence():
    """jsonkit fmt's description stopped at "unless": the next line, "--sort-keys is given.", was read
    as an option."""
    text = ("Pretty-print a JSON document.\n\nReads the document and prints it re-formatted. Key order is kept"
            " unless\n--sort-keys is given. Fails if the input is not JSON.\n\nUsage:\n  fmt [flags]\n\n"
            "Flags:\n      --sort-keys   sort object keys\n  -h, --help        help for fmt\n")
    desc = _describe(text)
    assert desc.description.endswith("Key order is kept unless --sort-keys is given. Fails if the input is not JSON.")
    assert [o.long for o in desc.options if o.long == "--sort-keys"] == ["--sort-keys"]
    assert next(o for o in desc.options if o.long == "--sort-keys").description == "sort object keys"


def test_a_flag_inside_a_code_span_a_wrapped_line_opened_stays_in_the_sentence():
    """hf spaces templates offered a --template switch it does not have: "passed to `hf repos create"
    wrapped before "--template ...` to create a new Space", and the line was read as an option."""
    text = ("Usage: hf spaces templates [OPTIONS]\n\n  List the available Space templates.\n\n"
            "  The `repo_id` of a template can be passed to `hf repos create\n"
            "  --template ...` to create a new Space from that template.\n\n"
            "Options:\n  --token TEXT  A User Access Token.\n  -h, --help    Show this message and exit.\n")
    desc = _describe(text)
    assert [o.long for o in desc.options] == ["--token", "--help"]
    assert desc.description.endswith("passed to `hf repos create --template ...` to create a new Space from that "
                                     "template.")


def test_a_default_written_as_words_about_the_value_is_no_default():
    """jsonkit keys offered "the whole document" as the default of --path, which a client that
    fills in defaults would send; a quoted or one-word default is kept."""
    desc = _describe("Usage: keys [flags]\n\nFlags:\n"
                     "      --path string   where to look (default: the whole document)\n"
                     "      --dir string    folder (default: current directory)\n"
                     "      --name string   a name (default \"the end\")\n"
                     "      --mode string   how (default: all)\n"
                     "  -h, --help          help for keys\n")
    defaults = {o.long: o.default for o in desc.options}
    assert defaults["--path"] is None and defaults["--dir"] is None
    assert defaults["--name"] == "the end" and defaults["--mode"] == "all"
    assert "default" not in build_tool_schema(desc).input_schema["properties"]["path"]


def test_a_pflag_value_named_only_by_its_type_is_a_path_when_the_option_names_a_file():
    desc = _describe("Usage:\n  kit keys [flags]\n\nFlags:\n      --file string   document read from this file\n"
                     "      --cache-dir string   where to keep things\n      --input string   inline text\n"
                     "  -h, --help          help for keys\n")
    types = {o.long: o.type for o in desc.options}
    assert types["--file"] == "path" and types["--cache-dir"] == "path" and types["--input"] == "string"


# The forms below were found by running real programs (GNU tar, iconv, curl, unzip, rm,
# timeout, xargs, pylint, python3) and checking what each accepts; excerpts of their help.

def test_an_option_list_under_a_heading_that_reads_like_prose_is_still_read():
    # tar: " Informative output:"; iconv: " Information:". A heading of prose stays prose.
    desc = _describe("Usage: tar [OPTION...] [FILE]...\n\n Informative output:\n\n"
                     "      --full-time            print file time to its full resolution\n"
                     "  -v, --verbose              verbosely list files processed\n\n"
                     " Information:\n\n  -l, --list                 list all known coded character sets\n\n"
                     "Notes:\n  Use --full-time with --verbose for the exact times.\n")
    assert {o.long for o in desc.options} == {"--full-time", "--verbose", "--list"}


@pytest.mark.parametrize(("text", "positionals", "options"), [
    # curl --help all: no blank line, one space between an option's value and its description.
    ("Usage: curl [options...] <url>\n"
     "     --abstract-unix-socket <path> Connect via abstract Unix domain socket\n"
     "     --anyauth            Pick any authentication method\n"
     " -a, --append             Append to target file when uploading\n",
     [("url", True)], {"--abstract-unix-socket", "--anyauth", "--append"}),
    # unzip: the sentence under the synopsis made 19 required positionals of its words.
    ("Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]\n"
     "  Default action is to extract files in list, except those in xlist, to exdir;\n"
     "  file[.zip] may be a wildcard.\n\n"
     "  -p  extract files to pipe, no messages\n",
     [("file", True), ("list", False)], None),
])
def test_what_follows_the_usage_line_at_once_is_not_more_usage(
        text: str, positionals: list[tuple[str, bool]], options: set[str] | None) -> None:
    desc = _describe(text)
    assert [(p.name, p.required) for p in desc.positionals] == positionals
    assert options is None or {o.long for o in desc.options} == options


def test_a_word_with_brackets_inside_is_named_by_what_comes_before_them():
    chmod = _describe("Usage: chmod [OPTION]... MODE[,MODE]... FILE...\n\n"
                      "  -R, --recursive        change files and directories recursively\n")
    assert [(p.name, p.variadic) for p in chmod.positionals] == [("MODE", True), ("FILE", True)]


def test_a_sentence_ending_in_commands_colon_is_no_list_of_subcommands():
    # rm: "...for example '-foo',\nuse one of these commands:\n  rm -- -foo" are examples of rm.
    desc = _describe("Usage: rm [OPTION]... [FILE]...\nRemove (unlink) the FILE(s).\n\n"
                     "  -f, --force           ignore nonexistent files and arguments, never prompt\n\n"
                     "To remove a file whose name starts with a '-', for example '-foo',\n"
                     "use one of these commands:\n  rm -- -foo\n\n  rm ./-foo\n")
    assert desc.subcommands == ()
    assert [(p.name, p.variadic) for p in desc.positionals] == [("FILE", True)]


def test_a_command_to_run_is_a_positional_when_the_help_lists_no_subcommands():
    # timeout and xargs run the COMMAND they are given; without it neither can be called.
    timeout = _describe("Usage: timeout [OPTION] DURATION COMMAND [ARG]...\n  or:  timeout [OPTION]\n"
                        "Start COMMAND, and kill it if still running after DURATION.\n\n"
                        "  -s, --signal=SIGNAL   specify the signal to be sent on timeout\n")
    assert [p.name for p in timeout.positionals] == ["DURATION", "COMMAND", "ARG"]
    xargs = _describe("Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...\n"
                      "Run COMMAND with arguments INITIAL-ARGS and more arguments read from input.\n\n"
                      "  -0, --null                   items are separated by a null, not whitespace\n")
    assert [(p.name, p.required) for p in xargs.positionals][0] == ("COMMAND", True)
    assert build_tool_schema(xargs).input_schema["required"] == ["command"]


def test_a_value_named_as_a_choice_of_words_is_no_number():
    # pylint: "--persistent <y or n>" refuses 1 ("Invalid yn value") and takes n.
    desc = _describe("usage: pylint [options]\n\noptions:\n"
                     "  --persistent <y or n>\n                        Pickle collected data. (default: True)\n")
    assert build_tool_schema(desc).input_schema["properties"]["persistent"]["type"] == "string"


def test_pythons_own_colon_separated_options_take_their_values():
    desc = _describe("usage: python3 [option] ... [-c cmd | -m mod | file | -] [arg] ...\n"
                     "Options (and corresponding environment variables):\n"
                     "-b     : issue warnings about str(bytes_instance), str(bytearray_instance)\n"
                     "         and comparing bytes/bytearray with str. (-bb: issue errors)\n"
                     "-c cmd : program passed in as string (terminates option list)\n"
                     "-m mod : run library module as a script (terminates option list)\n")
    got = {o.short: (o.takes_value, o.description[:7]) for o in desc.options}
    assert got == {"-b": (False, "issue w"), "-c": (True, "program"), "-m": (True, "run lib")}


def test_a_possible_value_whose_words_wrap_does_not_end_the_list():
    # ruff check --color: "auto" wraps onto a second line; ruff accepts always and never too.
    desc = _describe("Usage: ruff check [OPTIONS]\n\nOptions:\n      --color <WHEN>\n"
                     "          Control when colored output is used\n\n          Possible values:\n"
                     "          - auto:   Use color when the output is a terminal unless overridden by\n"
                     "            the environment\n          - always: Always use color\n"
                     "          - never:  Never use color\n\n  -h, --help\n          Print help\n")
    assert {o.long: o.choices for o in desc.options}["--color"] == ("auto", "always", "never")


def test_a_list_whose_last_item_begins_a_phrase_names_kinds_of_value_not_values():
    # yt-dlp --xff: "One of "default" (...), "never", an IP block in CIDR notation, or a country
    # code": yt-dlp takes "US", which an enum of default, never and "an" refused.
    desc = _describe("Usage: yt-dlp [OPTIONS] URL\n\nOptions:\n"
                     "    --xff VALUE                     How to fake X-Forwarded-For HTTP header to\n"
                     "                                    try bypassing geographic restriction. One of\n"
                     "                                    \"default\" (only when known to be useful),\n"
                     "                                    \"never\", an IP block in CIDR notation, or a\n"
                     "                                    two-letter ISO 3166-2 country code\n")
    assert {o.long: o.choices for o in desc.options}["--xff"] == ()


def test_kubectls_default_after_the_name_says_the_kind_of_each_option():
    # kubectl get: "-A, --all-namespaces=false:" is a switch (pflag refuses a value for it);
    # "--chunk-size=500:" an integer, "--since=0s:" a string, each with its default.
    desc = _describe("Usage:\n  kubectl get [(-o|--output=)json|yaml] [flags] [options]\n\nOptions:\n"
                     "    -A, --all-namespaces=false:\n\tIf present, list the requested object(s) across all "
                     "namespaces.\n\n    --chunk-size=500:\n\tReturn large lists in chunks rather than all at once.\n\n"
                     "    --since=0s:\n\tOnly return logs newer than a relative duration like 5s, 2m, or 3h.\n\n"
                     "    -f, --filename=[]:\n\tFilename, directory, or URL to files identifying the resource.\n")
    got = {o.long: (o.takes_value, o.type, o.default, o.repeatable) for o in desc.options}
    assert got == {"--all-namespaces": (False, "boolean", "false", False),
                   "--chunk-size": (True, "integer", "500", False),
                   "--since": (True, "string", "0s", False), "--filename": (True, "string", None, True)}
    properties = build_tool_schema(desc).input_schema["properties"]
    assert properties["all_namespaces"]["type"] == "boolean" and properties["chunk_size"]["default"] == 500


def test_a_number_written_after_the_dash_is_no_option_named_num():
    # grep: "-NUM  same as --context=NUM" is grep -3, not a switch -NUM (grep refuses "-NUM"): a
    # number written after the dash, offered as "num" (zstd's and xz's level had no other way).
    desc = _describe("Usage: grep [OPTION]... PATTERNS [FILE]...\n\nContext control:\n"
                     "  -C, --context=NUM         print NUM lines of output context\n"
                     "  -NUM                      same as --context=NUM\n"
                     "  -I                        equivalent to --binary-files=without-match\n")
    assert [(o.short, o.long) for o in desc.options] == [("-C", "--context"), ("-I", None), ("-", None)]
    schema = build_tool_schema(desc)
    assert schema.input_schema["properties"]["num"]["type"] == "integer"
    assert schema.to_argv({"num": 3, "patterns": "x"}) == ["-3", "x"]


def test_several_values_after_one_flag_and_an_option_said_to_repeat_are_lists():
    # pre-commit run: "--files [FILES ...]" (argparse nargs="*"); mypy --exclude: "may be
    # specified more than once".
    desc = _describe("usage: tool [-h] [--files [FILES ...]] [--exclude PATTERN]\n\noptions:\n"
                     "  --files [FILES ...]   Specific filenames to run hooks on.\n"
                     "  --exclude PATTERN     A regular expression of files to skip. May be specified\n"
                     "                        more than once.\n")
    got = {o.long: (o.values_at_once, o.repeatable) for o in desc.options}
    assert got == {"--files": (True, False), "--exclude": (False, True)}
    schema = build_tool_schema(desc)
    # the list's words after every other option: they run to the next flag, or for some parsers to the end
    assert schema.to_argv({"files": ["a.py", "b.py"], "exclude": ["x", "y"]}) == [
        "--exclude", "x", "--exclude", "y", "--files", "a.py", "b.py"]


def test_go_flag_usage_of_prog_with_the_synopsis_on_the_next_line_keeps_its_operands():
    """A custom flag.Usage that keeps Go's own header and writes the synopsis under it: the
    operands were lost, and the synopsis was read as what the program is about."""
    desc = _describe("Usage of wrap:\n  wrap [flags] INPUT...\n\nWraps each INPUT file.\n\n"
                     "  -width int\n        wrap width in columns (default 80)\n")
    assert [(p.name, p.variadic) for p in desc.positionals] == [("INPUT", True)]
    assert desc.about != "wrap [flags] INPUT..."
    schema = build_tool_schema(desc).input_schema["properties"]
    assert schema["input"]["type"] == "array" and schema["width"]["type"] == "integer"
    # Go's own usage, the header alone, still serves the flags.
    bare = _describe("Usage of wrap:\n  -width int\n        wrap width in columns (default 80)\n")
    assert bare.positionals == () and [o.long for o in bare.options] == ["-width"]


def test_a_positional_is_described_by_its_sentence_in_the_first_paragraph_too():
    """cobra's usual one-paragraph Long: the sentences were read only after a blank line, so a
    command written in one paragraph gave its positionals no description."""
    desc = _describe("Create a widget called NAME from the given FILEs. NAME is the widget's name. FILE is a "
                     "JSON file in the workspace.\n\nUsage:\n  kit create NAME [FILE...] [flags]\n\nFlags:\n"
                     "  -h, --help   help for create\n")
    described = {p.name: p.description for p in desc.positionals}
    assert described == {"NAME": "NAME is the widget's name.", "FILE": "FILE is a JSON file in the workspace."}


def test_a_help_that_is_only_a_bsd_usage_line_gives_its_options_and_operands():
    # BSD's getopt programs print one line to stderr, after a complaint about -h: every option
    # was lost, "file ..." was optional, and the complaint was what the tool was about.
    desc = _describe("cut: illegal option -- h\nusage: cut [-nrv] [-d delim] [-k field] [-o file] file ...\n")
    got = {(o.short or o.long): (o.takes_value, o.value_name) for o in desc.options}
    assert got == {"-n": (False, None), "-r": (False, None), "-v": (False, None),
                   "-d": (True, "delim"), "-k": (True, "field"), "-o": (True, "file")}
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("file", True, True)]
    assert desc.about == ""
    schema = build_tool_schema(desc)
    assert schema.input_schema["properties"]["file"]["minItems"] == 1
    assert schema.to_argv({"n": True, "d": ",", "file": ["a"]}) == ["-n", "-d", ",", "a"]


def test_options_whose_values_only_the_usage_shows_take_them_as_the_usage_says():
    # argh lists "--price  price per item" with no value: the usage line says it takes one, is
    # required, and that --tag repeats; argh refuses "--price=2.5".
    desc = _describe("Usage: shop add <name> [-n <count>] --price <price> [-t <tag...>] [--fragile]\n\n"
                     "Add an item.\n\nPositional Arguments:\n  name              the item's name\n\n"
                     "Options:\n  -n, --count       how many to add\n  --price           price per item\n"
                     "  -t, --tag         a tag for the item (repeatable)\n  --fragile         mark as fragile\n"
                     "  --help            display usage information\n")
    got = {o.long: (o.takes_value, o.required, o.repeatable) for o in desc.options}
    assert got == {"--count": (True, False, False), "--price": (True, True, False), "--tag": (True, False, True),
                   "--fragile": (False, False, False), "--help": (False, False, False)}
    assert [(p.name, p.required) for p in desc.positionals] == [("name", True)]
    schema = build_tool_schema(desc)
    assert schema.to_argv({"name": "bolt", "price": "2.5", "count": 3, "tag": ["a", "b"]}) == [
        "--count", "3", "--price", "2.5", "--tag", "a", "--tag", "b", "bolt"]
    removing = _describe("Usage: shop remove [<names...>] [-f]\n\nPositional Arguments:\n"
                         "  names             items to remove\n\nOptions:\n  -f, --force       even if in use\n")
    assert [(p.name, p.required, p.variadic) for p in removing.positionals] == [("names", False, True)]


def test_option_groups_headed_without_a_colon_are_headings_not_the_programs_description():
    """git's parse-options prints its groups as bare words at the margin ("Commit message
    options"): they were read as the program's about and description."""
    desc = _describe("usage: git commit [-a | --interactive] [--] [<pathspec>...]\n\n"
                     "    -q, --quiet           suppress summary after successful commit\n\n"
                     "Commit message options\n"
                     "    -F, --file <file>     read message from file\n"
                     "    -m, --message <message>\n                          commit message\n\n"
                     "Commit contents options\n"
                     "    -a, --all             commit all changed files\n")
    assert (desc.about, desc.description) == ("", "")
    assert [o.long for o in desc.options] == ["--quiet", "--file", "--message", "--all"]
    # The words that open a help are its description, and so is a line with a blank line
    # under it, or one that neither names options nor follows any.
    for text in ("Count words in files\n    -w, --words  count words\n",
                 "Usage: wc [-w] FILE\n\nCount words in files\n\n  -w, --words  count words\n",
                 "Usage: wc [-w] FILE\n\nCount words in files\n  -w, --words  count words\n",
                 "usage: cc-opts [-v] FILE\n\nInspect compiler options\n  -v, --verbose  say more\n",
                 # A heading after the options that heads no options says nothing of the words over them.
                 "usage: wc [-w] FILE\n\nCount words in files\n  -w, --words  count words\n\nExamples:\n  wc -w a\n"):
        assert _describe(text).about in ("Count words in files", "Inspect compiler options"), text


def test_a_version_line_gives_what_follows_it_as_the_about_and_gnu_option_notes_are_no_description():
    """Outside re-checks: wget's about was ", a non-interactive network retriever." and apt-get's
    "(amd64)"; GNU's "Mandatory arguments to long options ..." was every coreutil's description."""
    wget = _describe("GNU Wget 1.21.3, a non-interactive network retriever.\nUsage: wget [OPTION]... [URL]...\n\n"
                     "Mandatory arguments to long options are mandatory for short options too.\n\n"
                     "Startup:\n  -V,  --version           display the version of Wget and exit\n")
    assert (wget.name, wget.version, wget.about, wget.description) == (
        "wget", "1.21.3", "a non-interactive network retriever.", "")
    apt = _describe("apt 2.6.1 (amd64)\nUsage: apt-get [options] command\n\n"
                    "apt-get is a command line interface for retrieval of packages.\n\n"
                    "Most used commands:\n  update - Retrieve new lists of packages\n")
    assert (apt.version, apt.about) == ("2.6.1", "apt-get is a command line interface for retrieval of packages.")
    for banner in ("UnZip 6.00 of 20 April 2009, by Debian. Original by Info-ZIP.",
                   "HAProxy version 2.6.12-1+deb12u4 2026/10/17 - https://haproxy.org/"):
        dated = _describe(banner + "\n\nUsage: unzip [-Z] file[.zip]\n\nExtracts the files of an archive.\n")
        assert (dated.version, dated.about) in (("6.00", "Extracts the files of an archive."),
                                                ("2.6.12-1+deb12u4", "Extracts the files of an archive.")), banner
    mv = _describe("Usage: mv [OPTION]... SOURCE DEST\nRename SOURCE to DEST.\n\n"
                   "Mandatory arguments to long options are mandatory for short options too.\n"
                   "  -f, --force      do not prompt before overwriting\n\n"
                   "Mandatory arguments to long options are mandatory for short options too. If you specify more "
                   "than one of -i, -f, -n, only the final one takes effect.\n")
    assert mv.about == "Rename SOURCE to DEST."
    assert mv.description == "If you specify more than one of -i, -f, -n, only the final one takes effect."


def test_a_name_line_a_complaint_a_synopsis_or_a_stray_option_entry_is_no_about():
    """Found trying this machine's programs: jq's "jq - commandline JSON processor [version 1.6]",
    ssh-keygen's "unknown option -- -" (BSD getopt's complaint at --help, without the program's
    name), npm's "npm <command>" and curl's "-:, --next  Make next URL ..." were abouts."""
    jq = _describe("jq - commandline JSON processor [version 1.6]\n\n"
                   "Usage:\tjq [options] <jq filter> [file...]\n\n"
                   "jq is a tool for processing JSON inputs.\n\n  -c   compact instead of pretty-printed output;\n")
    assert (jq.name, jq.version, jq.about, jq.description) == (
        "jq", "1.6", "commandline JSON processor", "jq is a tool for processing JSON inputs.")
    # A line of another name and a dash is a sentence like any other.
    other = _describe("Usage: cw [FILE]\n\nwc - but for code: counts what matters\n\n  -l  lines\n")
    assert other.about == "wc - but for code: counts what matters"
    # Without a usage to name the program, a capitalised word before a dash names none.
    note = _describe("Note - this tool is experimental.\n\nOptions:\n  -v, --verbose  say more\n")
    assert (note.name, note.about) == (None, "Note - this tool is experimental.")
    keygen = _describe("unknown option -- -\nusage: ssh-keygen [-q] [-b bits] [-t dsa | ecdsa | ed25519 | rsa]\n"
                       "       ssh-keygen -p [-f keyfile]\n")
    assert keygen.about == ""
    kind = next(o for o in keygen.options if o.short == "-t")
    assert (kind.type, kind.choices) == ("enum", ("dsa", "ecdsa", "ed25519", "rsa"))
    assert not kind.exclusive_with
    npm = _describe("npm <command>\n\nManage the packages of a project.\n\n"
                    "Options:\n  -l, --long  display usage info for all commands\n")
    assert npm.about == "Manage the packages of a project."
    curl = _describe("Usage: curl [options...] <url>\n -:, --next               Make next URL use its separate set of "
                     "options\n     --abstract-unix-socket <path> Connect via abstract Unix domain socket\n"
                     " -a, --append             Append to target file when uploading\n")
    assert curl.about == "" and "--append" in {o.long for o in curl.options}


def test_warnings_framed_banners_and_option_placeholders_with_a_plural_are_no_part_of_a_description():
    """From this machine's programs: jsonschema's CLI starts with Python's DeprecationWarning,
    zstd frames its banner in stars, gpg names its package in parentheses, readelf's usage
    writes "<option(s)>" (which was a required positional named "option(s)")."""
    warned = _describe("/venv/bin/jsonschema:4: DeprecationWarning: The jsonschema CLI is deprecated.\n"
                       "  from jsonschema.cli import main\nusage: jsonschema [-h] [-i INSTANCES] schema\n\n"
                       "JSON Schema Validation CLI\n\noptions:\n  -i INSTANCES  an instance\n")
    assert warned.about == "JSON Schema Validation CLI" and "Warning" not in warned.description
    zstd = _describe("*** Zstandard CLI (64-bit) v1.5.4, by Yann Collet ***\n\n"
                     "Compress or decompress the INPUT file(s).\n\nUsage: zstd [OPTIONS...] [INPUT... | -]\n\n"
                     "  -d, --decompress  Perform decompression.\n")
    assert (zstd.version, zstd.about) == ("1.5.4", "Compress or decompress the INPUT file(s).")
    gpg = _describe("gpg (GnuPG) 2.2.40\nlibgcrypt 1.10.1\nCopyright (C) 2022 g10 Code GmbH\n\n"
                    "Syntax: gpg [options] [files]\nSign, check, encrypt or decrypt.\n\n"
                    "Options:\n -a, --armor   create ascii armored output\n")
    assert gpg.version == "2.2.40" and "Copyright" not in gpg.about + gpg.description
    readelf = _describe("Usage: readelf <option(s)> elf-file(s)\n Display the contents of ELF files\n"
                        " Options are:\n  -a --all               Equivalent to: -h -l -S -s -r -d -V -A -I\n")
    assert [(p.name, p.variadic) for p in readelf.positionals] == [("elf-file", True)]  # as many as given


def test_commands_grouped_under_titles_after_a_sentence_that_introduces_them_are_subcommands():
    """git's help: a long sentence ending in a colon heads its commands, grouped under titles at
    the margin; none was read (no subcommand, the groups as the description)."""
    desc = _describe("usage: git [-v | --version] [-h | --help] [-C <path>]\n           <command> [<args>]\n\n"
                     "These are common Git commands used in various situations:\n\n"
                     "start a working area (see also: git help tutorial)\n"
                     "   clone     Clone a repository into a new directory\n"
                     "   init      Create an empty Git repository or reinitialize an existing one\n\n"
                     "work on the current change (see also: git help everyday)\n"
                     "   add       Add file contents to the index\n"
                     "   mv        Move or rename a file, a directory, or a symlink\n\n"
                     "'git help -a' and 'git help -g' list available subcommands and some\n"
                     "concept guides.\n")
    assert [(s.name, s.description) for s in desc.subcommands] == [
        ("clone", "Clone a repository into a new directory"),
        ("init", "Create an empty Git repository or reinitialize an existing one"),
        ("add", "Add file contents to the index"), ("mv", "Move or rename a file, a directory, or a symlink")]
    # A long line with a colon that introduces no commands stays prose.
    prose = _describe("Usage: wc [-l] FILE\n\nCounts the lines of each FILE and prints them one per line:\n"
                      "  -l  lines only\n")
    assert prose.about == "Counts the lines of each FILE and prints them one per line:"


def test_help_and_version_written_with_their_letters_in_a_usage_alone_are_no_parameters():
    """git's "[-v | --version] [-h | --help]", in a help that lists no option: --version and
    --help were left out of the tool, their letters not, and the tool had parameters "h" and "v"
    (found by an outside check)."""
    desc = _describe("usage: git [-v | --version] [-h | --help] [-C <path>] [-p | --paginate | -P | --no-pager]\n"
                     "           <command> [<args>]\n\n"
                     "These are common Git commands used in various situations:\n\n"
                     "start a working area (see also: git help tutorial)\n"
                     "   clone     Clone a repository into a new directory\n"
                     "   init      Create an empty Git repository or reinitialize an existing one\n")
    assert {(o.long, o.short) for o in desc.options} >= {("--version", "-v"), ("--help", "-h")}
    properties = build_tool_schema(desc).input_schema["properties"]
    assert {"h", "v", "help", "version"}.isdisjoint(properties), list(properties)
    assert {"C", "p", "paginate", "P", "no_pager"} <= set(properties)  # other alternatives stay two options
    docopt = _describe("Naval Fate.\n\nUsage:\n  naval_fate ship new <name>...\n  naval_fate (-h | --help)\n"
                       "  naval_fate -V | --version\n")
    assert "h" not in build_tool_schema(docopt).input_schema["properties"]


def test_options_written_as_alternatives_in_the_usage_exclude_each_other_and_the_schema_says_so():
    desc = _describe("usage: git commit [-a | --interactive | --patch] [-F <file> | -m <msg>] [-h | --help]\n"
                     "                  [(-c | -C | --squash) <commit> | --fixup <commit>] [--] [<pathspec>...]\n\n"
                     "    -F, --file <file>     read message from file\n"
                     "    -m, --message <message>\n                          commit message\n"
                     "    -c, --reedit-message <commit>\n                          reuse and edit message\n"
                     "    -C, --reuse-message <commit>\n                          reuse message\n"
                     "    -a, --all             commit all changed files\n"
                     "    --interactive         interactively add files\n"
                     "    -p, --patch           interactively add changes\n"
                     "    -h, --help            show help\n")
    excluded = {o.key: (set(o.exclusive_with), o.one_required) for o in desc.options if o.exclusive_with}
    assert excluded == {"--all": ({"--interactive", "--patch"}, False),
                        "--interactive": ({"--all", "--patch"}, False), "--patch": ({"--all", "--interactive"}, False),
                        "--file": ({"--message"}, False), "--message": ({"--file"}, False)}
    properties = build_tool_schema(desc).input_schema["properties"]
    assert properties["all"]["description"] == \
        "commit all changed files. The usage offers it as an alternative to 'interactive' or 'patch'."
    assert properties["message"]["description"] == "commit message. The usage offers it as an alternative to 'file'."
    assert "alternative" not in properties["reedit_message"]["description"]  # a group of more than flags: unread


def test_alternatives_with_an_optional_value_or_choices_as_the_value_are_alternatives_too():
    """An outside re-check's "[--color[=WHEN] | --no-color]" was read as no group: the optional
    value's brackets (and a value's "{a|b}", whose bar is no alternative) hid its sides."""
    desc = _describe("Usage: lsx [-a | -A] [--color[=WHEN] | --no-color] [-s {name|size|time} | -S] [FILE]...\n\n"
                     "Options:\n"
                     "  -a, --all            do not ignore entries starting with .\n"
                     "  -A, --almost-all     do not list implied . and ..\n"
                     "      --color[=WHEN]   colorize the output; WHEN can be 'always', 'auto', or 'never'\n"
                     "      --no-color       never colorize\n"
                     "  -s, --sort WORD      sort by WORD instead of name\n"
                     "  -S                   sort by file size, largest first\n")
    excluded = {o.key: set(o.exclusive_with) for o in desc.options}
    assert excluded == {"--all": {"--almost-all"}, "--almost-all": {"--all"}, "--color": {"--no-color"},
                        "--no-color": {"--color"}, "--sort": {"-S"}, "-S": {"--sort"}}
    # The choices the usage writes as the value, where the option's entry names none.
    sort = next(o for o in desc.options if o.long == "--sort")
    assert (sort.type, sort.choices) == ("enum", ("name", "size", "time"))
    schema = build_tool_schema(desc).input_schema["properties"]
    assert schema["sort"]["enum"] == ["name", "size", "time"]
    # Where the entry names its own choices, they stand.
    listed = _describe("usage: fmtx [-f {json,yaml}]\n\n  -f {json,yaml,toml}  output format\n")
    assert listed.options[0].choices == ("json", "yaml", "toml")


def test_a_choice_of_options_in_braces_must_be_made_and_is_no_positional():
    """"tarx {-c | -x | -t}" (as BSD manuals write it) was read as a required positional named
    "-c | -x | -t", which no call could give."""
    desc = _describe("usage: tarx {-c | -x | -t} [-v] [-f ARCHIVE] [FILE ...]\n\n"
                     "options:\n  -c, --create   create a new archive\n  -x, --extract  extract files\n"
                     "  -t, --list     list the contents\n  -v, --verbose  say more\n"
                     "  -f ARCHIVE, --file ARCHIVE\n                 the archive\n")
    assert [p.name for p in desc.positionals] == ["FILE"]
    assert {o.key: (set(o.exclusive_with), o.one_required) for o in desc.options if o.exclusive_with} == {
        "--create": ({"--extract", "--list"}, True), "--extract": ({"--create", "--list"}, True),
        "--list": ({"--create", "--extract"}, True)}
    # A usage with no option list: the options are read from the braces too.
    bare = _describe("usage: tarx {-c | -x} [-f archive] file ...\n")
    assert {o.short for o in bare.options} >= {"-c", "-x", "-f"}
    assert [p.name for p in bare.positionals] == ["file"]


def test_a_group_in_parentheses_needs_one_of_its_options_where_every_usage_form_has_it():
    docopt = _describe("Usage:\n  naval_fate ship <name> move <x> <y> (--moored | --drifting)\n"
                       "  naval_fate ship shoot <x> <y> (--moored | --drifting)\n\nOptions:\n"
                       "  --moored    Moored (anchored) mine.\n  --drifting  Drifting mine.\n")
    assert {o.key: o.one_required for o in docopt.options} == {"--moored": True, "--drifting": True}
    assert build_tool_schema(docopt).input_schema["properties"]["moored"]["description"] == \
        "Moored (anchored) mine. The usage offers it as an alternative to 'drifting'. It asks for one of 'moored' " \
        "or 'drifting'."
    one_form = _describe("Usage:\n  mines set (--moored | --drifting)\n  mines list\n\nOptions:\n"
                         "  --moored    Moored mine.\n  --drifting  Drifting mine.\n")
    assert [(o.key, o.exclusive_with, o.one_required) for o in one_form.options] == [
        ("--moored", ("--drifting",), False), ("--drifting", ("--moored",), False)]


def test_a_number_type_takes_the_default_the_help_prints_or_the_option_is_text():
    """A value named like a number (PORT, N, SECONDS) whose default is no number takes text:
    mkdocs' <IP:PORT> defaults to localhost:8000, and an integer type refused it."""
    desc = _describe("Usage: serve [OPTIONS]\n\nOptions:\n"
                     "  -a, --dev-addr <IP:PORT>  Address to serve on (default: localhost:8000)\n"
                     "  --bind HOST:PORT          Where to listen\n"
                     "  -j, --jobs N              Jobs at once (default: auto)\n"
                     "  -s, --sleep-interval N    Seconds between checks (default: 1.0)\n"
                     "  --retries N               Tries (default: 3)\n"
                     "  --rate N                  Rate limit (default: unlimited)\n"
                     "  --timeout SECONDS         Give up after (default: wait forever)\n")
    types = {o.long: o.type for o in desc.options}
    assert types == {"--dev-addr": "string", "--bind": "string", "--jobs": "string", "--sleep-interval": "number",
                     "--retries": "integer", "--rate": "integer", "--timeout": "number"}
    # pflag prints the type itself: its int stays an integer whatever the default says.
    pflag = _describe("Usage:\n  restic [flags]\n\nFlags:\n"
                      "      --limit-upload int   limits uploads in KiB/s (default: unlimited)\n"
                      "      --pack-size int      pack size in MiB (default: $RESTIC_PACK_SIZE)\n")
    assert {o.long: o.type for o in pflag.options} == {"--limit-upload": "integer", "--pack-size": "integer"}


def test_alternatives_that_repeat_that_another_form_gives_together_or_that_name_one_option_twice_are_not_read():
    """What an outside re-check found read as alternatives: a group that repeats (each time
    either), one whose options another usage form gives together, and git stash's usage-only
    "-q|--quiet" (one option under two names, where no option list says so)."""
    repeated = _describe("usage: find [-e PATTERN | -f FILE]... [-i] FILE\n\n"
                         "  -e PATTERN  a pattern\n  -f FILE     patterns from FILE\n  -i          ignore case\n")
    spaced = _describe("usage: find [-e PATTERN | -f FILE] ... [-i] FILE\n\n"
                       "  -e PATTERN  a pattern\n  -f FILE     patterns from FILE\n  -i          ignore case\n")
    together = _describe("usage: merge [-a | -b] <file>\n       merge -a -b --both <file>\n\n"
                         "  -a      take ours\n  -b      take theirs\n  --both  take both\n")
    usage_only = _describe("usage: stash push [-p|--patch] [-q|--quiet] [-u|--include-untracked] [-m <message>]\n")
    for desc in (repeated, spaced, together, usage_only):
        assert [o.key for o in desc.options if o.exclusive_with or o.one_required] == [], desc.usage


_GNUPG_PROGRAMS = ("gpg", "gpgv", "gpgsm", "gpgconf", "gpg-agent", "dirmngr", "gpg-connect-agent")


def test_gnupg_programs_usage_follows_syntax_and_their_facts_are_no_about():
    """GnuPG's programs write their usage after "Syntax:" and their about on the line under it,
    some after lines of facts ("Home: /root/.gnupg", the algorithms): the usage was lost and
    "Home: /root/.gnupg" was gpg's about. Read from each program of the family installed here,
    and from gpg's help as printed by 2.2.40."""
    import shutil
    import subprocess

    printed = {"gpg": "gpg (GnuPG) 2.2.40\nCopyright (C) 2022 g10 Code GmbH\n\nHome: /root/.gnupg\n"
                      "Supported algorithms:\nPubkey: RSA, ELG, DSA\nCipher: IDEA, 3DES, CAST5, BLOWFISH,\n"
                      "        CAMELLIA128, CAMELLIA192\nHash: SHA1, RIPEMD160, SHA256\n\n"
                      "Syntax: gpg [options] [files]\nSign, check, encrypt or decrypt\n\n"
                      "Commands:\n \n -s, --sign          make a signature\n"}
    for program in _GNUPG_PROGRAMS:
        if (path := shutil.which(program)) is not None:
            printed[f"{program} (installed)"] = subprocess.run(
                [path, "--help"], capture_output=True, text=True, timeout=30, env={"LANG": "C"}).stdout
    for label, text in printed.items():
        lines = text.splitlines()
        syntax = next(k for k, line in enumerate(lines) if line.startswith("Syntax: "))
        described = _describe(text)
        assert described.usage == lines[syntax].removeprefix("Syntax: "), label
        assert described.about.startswith(lines[syntax + 1]) and "Home:" not in described.about, label


def test_a_list_of_commands_written_with_commas_names_every_command_and_a_table_is_no_about():
    """npm 9's help: a table of examples under "Usage:" was its about (two columns run into one
    sentence), and of its 72 commands, listed with commas over 11 lines, only the first word of
    each line was a command. Each table line stays a line in the description."""
    npm = (b"npm <command>\n\nUsage:\n\nnpm install        install all the dependencies in your project\n"
           b"npm install <foo>  add the <foo> dependency to your project\n"
           b"npm test           run this project's tests\n\n"
           b"All commands:\n\n    access, adduser, audit, bugs, cache, ci,\n    completion, config, dedupe,\n"
           b"    view, whoami\n\nSpecify configs in the ini-formatted file:\n    /root/.npmrc\n")
    described = _describe(npm.decode())
    assert [s.name for s in described.subcommands] == [
        "access", "adduser", "audit", "bugs", "cache", "ci", "completion", "config", "dedupe", "view", "whoami"]
    assert described.about == ""
    assert "npm install <foo>  add the <foo> dependency to your project\nnpm test" in described.description
    # Aliases with a description, and one line of two names, are what they were.
    aliases = _describe("Usage: tool COMMAND\n\nCommands:\n  rm, remove   Remove a thing\n  ls, list\n")
    assert [s.name for s in aliases.subcommands] == ["rm", "ls"]


def test_a_grammar_rule_gives_its_name_choices_and_hints_before_a_help_are_no_about():
    """iproute2's ip writes its objects as a grammar's rule under its usage ("where  OBJECT := {
    address | ... }"): that rule was its about, and OBJECT took any text. hf prints a hint before
    its help, curl a note that its help is a short one: neither is what the program does."""
    ip = _describe("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n       ip [ -force ] -batch filename\n"
                   "where  OBJECT := { address | addrlabel | link |\n                   route | rule }\n"
                   "       OPTIONS := { -V[ersion] | -s[tatistics] | -f[amily] { inet | inet6 } }\n")
    assert ip.about == "" and "OBJECT := { address" in ip.description
    obj = next(p for p in ip.positionals if p.name == "OBJECT")
    assert (obj.choices, obj.type) == (("address", "addrlabel", "link", "route", "rule"), "enum")
    hf = _describe("Hint: The `hf-cli` skill is not installed. Run `hf skills add -g` to teach your AI agents.\n"
                   "Usage: hf [OPTIONS] [COMMAND] [ARGS]...\n\n  Hugging Face Hub CLI\n\n"
                   "Options:\n  --skills  Print the SKILL.md\n\nCommands:\n  auth  Manage authentication\n")
    assert hf.about == "Hugging Face Hub CLI" and "Hint" not in hf.description
    curl = _describe("Usage: curl [options...] <url>\n -d, --data <data>   HTTP POST data\n\n"
                     "This is not the full help, this menu is stripped into categories.\n"
                     "Use \"--help category\" to get an overview of all categories.\n")
    assert curl.about == ""


def test_node_and_document_styles_of_help_are_read_as_written():
    """Help texts of this machine's programs that were misread: cac (vite) opens with "vite/8.4.1"
    and writes its usage after a shell prompt (the program was named "$"); meow (nanoid) titles
    its sections with a word alone ("  Usage", "  Options"; the usage was the about); binaryen's
    tools open with a line of "=" (the about); docutils underlines its titles ("Usage" over
    "=====": no usage was found); hf's "Examples" lines were two subcommands, "Read" and "https"."""
    vite = _describe("vite/8.4.1\n\nUsage:\n  $ vite [root]\n\nCommands:\n  [root]           start dev server\n"
                     "  build [root]     build for production\n\nOptions:\n  --host [host]  specify hostname\n")
    assert (vite.name, vite.version, vite.about, vite.usage) == ("vite", "8.4.1", "", "vite [root]")
    nanoid = _describe("\n  Usage\n    $ nanoid [options]\n\n  Options\n    -s, --size       Generated ID size\n"
                       "    -h, --help       Show this help\n\n  Examples\n    $ nanoid --s 15\n    S9sBF77U6sDB8Yg\n")
    assert (nanoid.name, nanoid.usage, nanoid.about) == ("nanoid", "nanoid [options]", "")
    assert [o.long for o in nanoid.options] == ["--size", "--help"]
    wasm_opt = _describe("=" * 80 + "\nwasm-opt INFILE\n\nRead, write, and optimize files.\n\n"
                         "Options:\n  --output,-o   Output file\n")
    assert wasm_opt.about == "Read, write, and optimize files."
    rst = _describe("Usage\n=====\n  rst2html [options] [<source> [<destination>]]\n\nGenerate HTML documents.\n\n"
                    "Options\n=======\nGeneral Docutils Options\n------------------------\n"
                    "--title=TITLE           Specify the document title as metadata.\n")
    assert (rst.usage, rst.about) == ("rst2html [options] [<source> [<destination>]]", "Generate HTML documents.")
    assert "--title" in {o.long for o in rst.options}
    hf = _describe("Usage: hf [OPTIONS] COMMAND [ARGS]...\n\nCommands:\n  auth    Manage authentication\n\n"
                   "Examples\n  $ hf auth login\n  Read the documentation at\n  https://huggingface.co/docs\n")
    assert [s.name for s in hf.subcommands] == ["auth"]


def test_a_title_line_over_a_usage_of_described_forms_is_the_about():
    """The yaml package's CLI: its first line "yaml: A command-line YAML processor" was taken for
    a bare usage line (yargs prints one; this help looks like yargs' by its "--help, -h"), and
    its usage forms, each with a sentence beside it, gave 21 positionals named by their words."""
    yaml = _describe("yaml: A command-line YAML processor and inspector\n\n"
                     "Reads stdin and writes output to stdout and errors & warnings to stderr.\n\nUsage:\n"
                     "  yaml          Process a YAML stream, outputting it as YAML\n"
                     "  yaml cst      Parse the CST of a YAML stream\n  yaml valid    Validate a YAML stream, "
                     "returning 0 on success\n\nOptions:\n  --help, -h    Show this message.\n"
                     "  --json, -j    Output JSON.\n  --merge, -m   Enable support for merge keys.\n")
    assert (yaml.name, yaml.about) == ("yaml", "A command-line YAML processor and inspector")
    assert [(p.name, p.required, p.choices) for p in yaml.positionals] == [("command", False, ("cst", "valid"))]
    # "name: version" is a version, not an about (bumpversion).
    bump = _describe("bumpversion: v1.0.1 (using Python v3.11.7)\n\nusage: bumpversion [-h] [--list] part\n\n"
                     "options:\n  --list  List machine readable information\n")
    assert (bump.version, bump.about) == ("1.0.1", "")
    # Where no usage names the program, "word: words" names none.
    assert _describe("warning: the cache is stale\n\nOptions:\n  -v, --verbose  Say more\n").name != "warning"


def test_a_title_word_over_a_blank_line_and_help_trailers_are_read_as_such():
    """cmake writes "Usage", a blank line, then its forms indented (its about was "Usage" and it
    had no usage); gprof's about was its "Report bugs to <...>", ps's "For more details see ps(1)."."""
    cmake = _describe("Usage\n\n  cmake [options] <path-to-source>\n  cmake [options] <path-to-existing-build>\n\n"
                      "Specify a source directory to (re-)generate a build system for it.\n\n"
                      "Options\n  -S <path-to-source>          = Explicitly specify a source directory.\n")
    assert cmake.usage == "cmake [options] <path-to-source>\ncmake [options] <path-to-existing-build>"
    assert cmake.about.startswith("Specify a source directory")
    gprof = _describe("Usage: gprof [-[abcDhilLrsTvwxyz]] [image-file] [[profile-file] [...]]\n\n"
                      "Report bugs to <https://sourceware.org/bugzilla/>\n")
    ps = _describe("\nUsage:\n ps [options]\n\n Try 'ps --help <simple|list|output|threads|misc|all>'\n\n"
                   "For more details see ps(1).\n")
    assert (gprof.about, ps.about) == ("", "")


def test_an_operand_the_usage_also_offers_after_a_flag_is_required():
    # dpkg-shlibdeps: "<executable>|-e<executable>", the operand or the same after -e
    desc = describe_help(b"Usage: dpkg-shlibdeps [<option>...] <executable>|-e<executable> [<option>...]\n\n"
                         b"Positional arguments:\n  executable    the binary to scan\n\n"
                         b"Options:\n  -e<executable>           list an executable\n  -v  be verbose\n")
    assert [(p.name, p.required) for p in desc.positionals] == [("executable", True)]
    # and a usage that names no operand at all leaves a listed one optional (gumdrop's "[OPTIONS]")
    free = describe_help(b"Usage: resize [OPTIONS]\n\nPositional arguments:\n  inputs   images to resize\n\n"
                         b"Optional arguments:\n  -h, --help  print help message\n")
    assert [(p.name, p.required) for p in free.positionals] == [("inputs", False)]


def test_bsd_usages_write_an_options_value_unbracketed_and_it_is_one():
    # FreeBSD's cut(1) usage, its help whole: "-b list" read as a switch -b and a required
    # operand "list", so a call passed the list as an operand and the program got no -b value.
    # A word a form writes as an operand stays one (e2image's "-I device image-file").
    desc = _describe("usage: cut -b list [-n] [file ...]\n       cut -c list [file ...]\n"
                     "       cut -f list [-s] [-w | -d delim] [file ...]\n")
    assert {o.short: (o.takes_value, o.value_name) for o in desc.options if o.takes_value} == {
        "-b": (True, "list"), "-c": (True, "list"), "-f": (True, "list"), "-d": (True, "delim")}
    assert [(p.name, p.variadic) for p in desc.positionals] == [("file", True)]
    e2image = _describe("Usage: e2image [ -r|-Q ] [ -f ] [ -b superblock ] [ -B blocksize ] device image-file\n"
                        "       e2image -I device image-file\n")
    assert {o.short: o.takes_value for o in e2image.options}["-I"] is False
    assert [p.name for p in e2image.positionals] == ["device", "image-file"]


HANDWRITTEN = Path(__file__).parent / "framework_texts" / "handwritten"


def test_names_in_parentheses_or_after_a_slash_are_the_options_other_names_not_its_value():
    # Helps written by hand (truth_programs/handwritten, C, built for wasm32-wasi): "--strip (-s)"
    # was an option taking the value "-s", so nothing could turn it on; "--output-format FMT (-f)"
    # took "FMT (-f)" for its value's name; "-m/--mode MODE" was a switch whose "negation" was
    # --mode, so its value went to the first operand. A trailing "[png|jpeg|webp]" is a choice list.
    cvt = describe_help((HANDWRITTEN / "cvt.txt").read_bytes())
    got = {o.long: (o.short, o.takes_value, o.value_name, o.choices) for o in cvt.options if o.long != "--help"}
    assert got["--strip"] == ("-s", False, None, ())
    assert got["--output-format"] == ("-f", True, "FMT", ("png", "jpeg", "webp"))
    assert got["--quality"][:3] == ("-q", True, "Q")
    slash = describe_help((HANDWRITTEN / "slash.txt").read_bytes())
    named = {o.short: (o.long, o.takes_value, o.negation) for o in slash.options}
    assert named["-m"] == ("--mode", True, None) and named["-q"] == ("--quiet", False, None)
    assert named["-d"] == ("--debug", False, None)
    argv = build_tool_schema(slash).to_argv({"mode": "copy", "src": "a", "dst": "b"})
    assert argv == ["--mode", "copy", "a", "b"]


def test_a_plain_lowercase_value_name_with_a_number_for_default_is_a_number():
    # Hand-written C and BSD helps name values in lower case: "-w width ... (default: 72)" was a
    # string, and a call giving 80 was refused ("expected string, got 80").
    desc = _describe("Usage: fmtcat [-w width] [-j jobs] [-o outfile] [-s sep] infile\n\n"
                     "  -w width    wrap lines at width columns (default: 72)\n"
                     "  -j jobs     parallel jobs (default: 4)\n"
                     "  -o outfile  where to write\n"
                     "  -s sep      separator (default: none)\n")
    assert {o.short: o.type for o in desc.options} == {"-w": "number", "-j": "number", "-o": "path", "-s": "string"}


def test_a_positionals_sentence_after_an_about_without_a_full_stop_describes_it():
    # "Select lines" then "MODE is the mode to use.": joined without a full stop, MODE was no
    # sentence's subject and the positional was described as "MODE".
    desc = _describe("Usage: sel [-v] MODE\n\nSelect lines\n\nMODE is the mode to use.\n\n"
                     "Options:\n  -v  be verbose\n")
    assert [(p.name, p.description) for p in desc.positionals] == [("MODE", "MODE is the mode to use.")]


def test_a_value_with_optional_parts_is_no_value_that_may_be_left_out():
    # curl's "-x, --proxy [protocol://]host[:port]": read as a value that may be left out, it was
    # written "--proxy=localhost:1", which curl refuses ("option --proxy=localhost:1: is unknown").
    desc = _describe("Usage: curl [options...] <url>\n"
                     " -x, --proxy [protocol://]host[:port] Use this proxy\n"
                     " -s, --subdir [dir]  subdirectory, or none\n")
    got = {o.long: o.value_optional for o in desc.options}
    assert got == {"--proxy": False, "--subdir": True}
    assert build_tool_schema(desc).to_argv({"proxy": "localhost:1", "url": "x"}) == ["--proxy", "localhost:1", "x"]


def test_names_that_go_on_on_the_next_line_after_a_comma_are_one_option():
    # GNU grep: "--color[=WHEN]," then "--colour[=WHEN]  use markers ...": --color was an option of
    # its own, with no description and no choices.
    desc = _describe("Usage: grep [OPTION]... PATTERNS [FILE]...\n\nOutput control:\n"
                     "      --color[=WHEN],\n"
                     "      --colour[=WHEN]       use markers to highlight the matching strings;\n"
                     "                            WHEN is 'always', 'never', or 'auto'\n"
                     "  -U, --binary              do not strip CR characters at EOL (MSDOS/Windows)\n")
    got = {o.long: (o.choices, bool(o.description)) for o in desc.options}
    assert got == {"--color": (("always", "never", "auto"), True), "--binary": ((), True)}


def test_click_bounds_printed_with_the_default_in_one_bracket_are_bounds_too():
    # click prints "[default: 3; 1<=x<=5]" for an IntRange shown with its default: the bounds
    # were lost (only a bracket of its own, "[1<=x<=5]", was read). The help is click's own.
    import click

    @click.command()
    @click.option("--level", type=click.IntRange(1, 5), default=3, show_default=True, help="Level.")
    @click.option("--ratio", type=click.FloatRange(0, 1, max_open=True), default=0.5, show_default=True,
                  help="Share kept.")
    def tool(level: int, ratio: float) -> None:
        """Import photos."""

    shown = tool.get_help(click.Context(tool, info_name="tool"))
    assert "[default: 3; 1<=x<=5]" in shown
    properties = build_tool_schema(_describe(shown)).input_schema["properties"]
    assert (properties["level"]["minimum"], properties["level"]["maximum"], properties["level"]["default"]) == (1, 5, 3)
    assert (properties["ratio"]["minimum"], properties["ratio"]["exclusiveMaximum"]) == (0, 1)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curls_value_names_end_at_their_angle_bracket_and_its_descriptions_start_after_them():
    # curl leaves one space between a value and what the option does: "--ciphers <list of
    # ciphers> SSL ciphers to use" was read as the value "<list of ciphers> SSL", described as
    # "ciphers to use" (28 options of curl's). The truth is the line itself, read apart.
    shown = subprocess.run(["curl", "--help", "all"], capture_output=True, text=True, check=False).stdout
    lines = [found for line in shown.splitlines()
             if (found := re.match(r"^\s+(?:-\S, )?(--[\w.-]+) <([^<>]+)> +(\S.*)$", line))]
    assert len(lines) > 100, shown[:500]
    options = {option.long: option for option in _describe(shown).options}
    wrong = [(name, options[name].value_name, options[name].description) for name, value, text in
             (found.groups() for found in lines) if name in options
             and (options[name].value_name not in value or options[name].description != text.strip())]
    assert wrong == []


def test_a_click_date_time_takes_its_value_whatever_formats_it_prints():
    # click prints a DateTime's formats in brackets, "[%Y-%m-%d]": read as a value that may be
    # left out, whose call with "" gave "--day --", which click refuses. The help is click's own.
    import click

    @click.command()
    @click.option("--day", type=click.DateTime(formats=["%Y-%m-%d"]), help="Day.")
    @click.option("--when", type=click.DateTime(), help="When.")
    def tool(day: object, when: object) -> None:
        """Plan."""

    described = _describe(tool.get_help(click.Context(tool, info_name="tool")))
    assert [(o.long, o.takes_value, o.value_optional) for o in described.options if o.long != "--help"] == [
        ("--day", True, False), ("--when", True, False)]


def test_go_flags_names_a_subcommand_after_the_programs_options_and_its_operands_after_its_own():
    # go-flags 1.4.0's help of "synk push" (framework_texts/): "synk [OPTIONS] push [push-OPTIONS]
    # [SOURCE] [PATH...]". "push" and "push-OPTIONS" were read as operands, "push" required, so
    # no call could be made without one, and one made with it ran "synk push ... push", whose
    # SOURCE was "push". The program declares the operands SOURCE and PATH (a list).
    text = (Path(__file__).parent / "framework_texts" / "go-flags-1.4.0-synk-push.txt").read_text(encoding="utf-8")
    described = _describe(text)
    assert [(p.name, p.variadic) for p in described.positionals] == [("SOURCE", False), ("PATH", True)]
    schema = build_tool_schema(described)
    assert schema.to_argv({"source": "./src", "path": ["a", "b"], "remote": "origin"}) == [
        "--remote=origin", "./src", "a", "b"]


def test_an_option_of_two_words_given_again_gives_both_words_each_time():
    # hyperfine's "-L, --parameter-list <VAR> <VALUES>", "can be specified multiple times": each
    # time a name and its values ("-L compiler gcc,clang"); it was given one word at a time
    # ("-L compiler -L gcc,clang"), which hyperfine refuses.
    text = (Path(__file__).parent / "corpus" / "clap" / "hyperfine" / "long.txt").read_bytes()
    schema = build_tool_schema(describe_help(text))
    argv = schema.to_argv({"command": ["{cc} -O2 main.c"],
                           "parameter_list": [["cc", "gcc,clang"], ["level", "1,2"]]})
    assert argv[:6] == ["--parameter-list", "cc", "gcc,clang", "--parameter-list", "level", "1,2"]
    with pytest.raises(ValueError, match="list of lists"):
        schema.to_argv({"command": ["x"], "parameter_list": ["cc", "gcc"]})


def test_a_switch_repeated_alone_in_the_usage_or_said_to_be_given_again_is_a_counter():
    # bpaf's layout: "[-v]..." in the usage; "give it again for less" in the description. Either was
    # read as a switch (true or false), so "-v -v" could not be asked for.
    help_text = """Resize an image

Usage: resize [-v]... [-q] -w=PX [--tag=TAG]... <INPUT>

Available positional items:
    <INPUT>              Image to read

Available options:
    -v, --verbose        More output
    -q, --quiet          Less output, give it again for less
    -w, --width=PX       Width in pixels
        --tag=TAG        Tag to attach
    -h, --help           Prints help information
"""
    schema = build_tool_schema(describe_help(help_text.encode()))
    assert schema.input_schema["properties"]["verbose"]["type"] == "integer"
    assert schema.input_schema["properties"]["quiet"]["type"] == "integer"
    argv = schema.to_argv({"verbose": 2, "width": 5, "tag": ["a", "b"], "input": "in.png"})
    assert argv == ["--verbose", "--verbose", "--width=5", "--tag=a", "--tag=b", "--", "in.png"]
    said = help_text.replace("More output", "More output, give again for more").replace("[-v]...", "[-v]")
    assert build_tool_schema(describe_help(said.encode())).input_schema["properties"]["verbose"]["type"] == "integer"
    # argparse's lone "..." after the last switch is its remainder, not a repeat of that switch.
    argparse_like = "usage: nox [-h] [--forcecolor]\n           ...\n\noptions:\n  --forcecolor  Force color.\n"
    assert build_tool_schema(describe_help(argparse_like.encode())).input_schema["properties"]["forcecolor"][
        "type"] == "boolean"


def test_operands_after_dashes_in_a_hand_written_usage_and_arghs_command_operand_are_arguments():
    texts = Path(__file__).parent / "framework_texts"
    # A lexopt program's help, written by hand: "calc [OPTION]... EXPR [NUMBER]... [-- ARG...]".
    # ARG was dropped, and "-3" for NUMBER went after a "--" that made it one of ARG's words.
    calc = build_tool_schema(describe_help((texts / "lexopt-0.2.0-calc.txt").read_bytes()))
    assert calc.to_argv({"expr": "x*2", "number": [1, 2], "arg": ["a", "-b"]}) == ["x*2", "1", "2", "--", "a", "-b"]
    assert calc.to_argv({"expr": "x", "arg": ["a"]}) == ["x", "--", "a"]
    with pytest.raises(ValueError, match="'-3' would be read as an option"):
        calc.to_argv({"expr": "x", "number": [-3]})
    # argh's "taskr run --id <id> [command...]" with no command listed: the words to run, dropped.
    taskr = build_tool_schema(describe_help((texts / "argh-0.1.9-taskr-run.txt").read_bytes()))
    assert taskr.input_schema["properties"]["command"]["type"] == "array"
    assert taskr.to_argv({"id": "7", "command": ["echo", "hi"]}) == ["--id", "7", "echo", "hi"]


def test_an_authors_name_between_the_version_and_the_about_is_no_part_of_the_description():
    # clap 3 prints "imgconv 3.1.0", the author, then the about: an author with no address
    # ("Ann Example") began the tool's description.
    text = (Path(__file__).parent / "framework_texts" / "clap-3.2.23-imgconv.txt").read_bytes()
    described = describe_help(text)
    assert (described.version, described.about) == ("3.1.0", "Convert and resize images (clap 3 derive)")
    assert "Ann Example" not in described.description
    # Elsewhere an about of two lines is still two lines of about.
    two = describe_help(b"tool 1.0\nResize Images\nQuickly and well.\n\nusage: tool [-h]\n\n"
                        b"options:\n  -h, --help  show this help message and exit\n")
    assert two.dialect == "argparse" and "Resize Images" in (two.about or "") + two.description


def test_a_default_spelt_in_another_case_than_its_choice_is_that_choice():
    # structopt over clap 2: "[default: stable]  [possible values: Stable, Beta, Nightly]": the
    # schema had the choices and no default.
    text = (Path(__file__).parent / "framework_texts" / "structopt-0.3.26-pkgmgr-install.txt").read_bytes()
    channel = build_tool_schema(describe_help(text)).input_schema["properties"]["channel"]
    assert (channel["enum"], channel["default"]) == (["Stable", "Beta", "Nightly"], "Stable")


def test_letters_a_usage_line_alone_offers_as_alternatives_are_said_to_be():
    # FreeBSD cut's usage, with no list of options: "[-w | -d delim]" was said nowhere (a call
    # giving both was refused by the program with nothing in its schema to tell why).
    text = (Path(__file__).parent / "framework_texts" / "handwritten" / "bsd-cut-usage-only.txt").read_bytes()
    properties = build_tool_schema(describe_help(text)).input_schema["properties"]
    assert "alternative to 'd'" in properties["w"]["description"]
    assert "alternative to 'w'" in properties["d"]["description"]
    # "-q|--quiet" with no list may be one option under two names: not read as alternatives.
    both = build_tool_schema(describe_help(b"usage: tool [-q|--quiet] file\n")).input_schema["properties"]
    assert not any("alternative" in prop.get("description", "") for prop in both.values())


def test_a_flag_nested_in_a_group_and_another_programs_form_under_the_usage():
    # FreeBSD's ln: "[-s [-F] | -L | -P]" lost -s and -F; "link source_file target_file", the
    # form of link (which shares ln's manual), under ln's own forms was read as more of ln's.
    text = (Path(__file__).parent / "framework_texts" / "handwritten" / "freebsd-ln-usage.txt").read_bytes()
    described = describe_help(text)
    assert {option.short for option in described.options} >= {"-s", "-F", "-L", "-P", "-f", "-i"}
    assert [positional.name for positional in described.positionals] == ["source_file", "target_file", "target_dir"]
    schema = build_tool_schema(described)
    assert schema.to_argv({"s": True, "F": True, "source_file": ["a"], "target_file": "b"}) == ["-s", "-F", "a", "b"]


def test_a_single_dash_long_options_value_starting_with_a_dash_goes_apart_and_defaults_in_german_are_read():
    # An ImageMagick-style help in German ("-rotate GRAD  ... (Standard: 0)"): "-rotate=-90" was
    # written, which such parsers refuse ("-rotate -90" they take), and no default was read.
    text = (Path(__file__).parent / "framework_texts" / "handwritten" / "imagemagick-style-de.txt").read_bytes()
    schema = build_tool_schema(describe_help(text))
    assert schema.to_argv({"rotate": -90, "label": "-x", "eingabe": "a.png", "ausgabe": "b.png"})[:4] == [
        "-rotate", "-90", "-label", "-x"]
    assert (schema.input_schema["properties"]["quality"]["default"],
            schema.input_schema["properties"]["format"]["default"]) == (85, "png")
    assert "hilfe" not in schema.input_schema["properties"]  # "-h, --hilfe  diese Hilfe anzeigen": its help


def test_a_kong_default_written_as_the_value_and_again_in_the_description_types_the_value():
    # kong's "--limit=100  Maximum rows (default: 100).": the description's note hid that the
    # "value name" was the default, so the value was named "100" and typed as any text.
    text = (Path(__file__).parent / "framework_texts" / "kong-0.7.1-kng2.txt").read_bytes()
    properties = build_tool_schema(describe_help(text)).input_schema["properties"]
    assert (properties["limit"]["type"], properties["limit"]["default"]) == ("number", 100)
    assert (properties["level"]["enum"], properties["level"]["default"]) == (["debug", "info", "warn"], "info")


def test_what_a_pflag_flag_given_alone_stands_for_is_said():
    # cobra's "--mirror string[=\"fetch\"]": the flag alone is a mirror for fetching; the schema
    # said only that "" gives the flag alone, not what that means.
    text = (Path(__file__).parent / "framework_texts" / "cobra-1.6.1-cbr-remote-add.txt").read_bytes()
    mirror = build_tool_schema(describe_help(text)).input_schema["properties"]["mirror"]
    assert 'Given alone, the flag means "fetch".' in mirror["description"]


def test_choices_between_bars_in_an_angle_placeholder_or_in_parentheses_are_choices_and_kinds_of_value_are_not():
    """commons-cli's "--codec <mp3|ogg|flac>", argp's "(tar|zip|cpio)" and popt's "(tcp|udp)" were
    any text: a model could give a value the program refuses. "<date|dur>" (fd) and a format's
    "[(user|uid)]" name kinds of value, not values."""
    help_text = (
        "usage: convert [options] FILE\n"
        " -c,--codec <mp3|ogg|flac>   output codec\n"
        " -F, --format=FMT           Archive format (tar|zip|cpio)\n"
        " -m, --mode=MODE            protocol (tcp|udp) (default: \"tcp\")\n"
        "     --changed <date|dur>   Filter by modification time\n"
        " -o, --owner <user:group>   Format: [(user|uid)][:(group|gid)]\n"
        "     --level=N              Level (for example (fast|slow))\n"
    )
    options = {o.long: o for o in _describe(help_text).options}
    assert options["--codec"].choices == ("mp3", "ogg", "flac")
    assert options["--format"].choices == ("tar", "zip", "cpio")
    assert (options["--mode"].choices, options["--mode"].default) == (("tcp", "udp"), "tcp")
    assert options["--changed"].choices == () and options["--owner"].choices == ()
    assert options["--level"].choices == ()


def test_argparse_count_and_append_shown_with_their_defaults_are_given_again_as_argparse_takes_them():
    """ArgumentDefaultsHelpFormatter shows "(default: 0)" for action="count" and "(default: [])" for
    action="append": the first was a switch given once, the second one value whose default was
    the text "[]". Checked with argparse's own parse of the arguments the schema makes."""
    import argparse
    import contextlib
    import io

    parser = argparse.ArgumentParser(prog="fmt", formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more output")
    parser.add_argument("-I", "--include", action="append", default=[], help="include files matching GLOB",
                        metavar="GLOB")
    parser.add_argument("--tags", nargs="*", default=[], help="tags to add")
    parser.add_argument("--ignore", default=[], metavar="<pattern>[,<pattern>...]", help="patterns to skip")
    parser.add_argument("-q", "--quiet", action="store_true", help="no output")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    description = describe_help(shown.getvalue().encode())
    options = {o.long: o for o in description.options}
    assert options["--include"].default is None and options["--tags"].default is None
    assert not options["--ignore"].repeatable and not options["--quiet"].repeatable  # a list in one value
    schema = build_tool_schema(description)
    argv = schema.to_argv({"verbose": 2, "include": ["*.png", "*.jpg"], "tags": ["a", "b"], "quiet": True})
    parsed = parser.parse_args(list(getattr(argv, "args", argv)))
    assert (parsed.verbose, parsed.include, parsed.tags, parsed.quiet) == (2, ["*.png", "*.jpg"], ["a", "b"], True)


# Captured from programs written with jsonargparse, tyro and sade: a required subparser's commands under
# "(required)", tyro's bulleted commands in a panel, and sade's "Available Commands" heading.
CAPTURED = Path(__file__).parent / "captured"


@pytest.mark.parametrize(("text", "commands"), [
    ("jsonargparse-required-subcommands.txt", ["convert", "info"]),
    ("tyro-subcommand-panel.txt", ["train", "evaluate"]),
    ("sade-available-commands.txt", ["migrate", "seed", "remote"]),
])
def test_commands_under_a_required_note_bullets_or_an_available_commands_heading_are_subcommands(
        text: str, commands: list[str]) -> None:
    """Each was read as no command at all (sade) or as one required operand "{train,evaluate}",
    so a call giving "train" was refused by the command it needs options of."""
    description = describe_help((CAPTURED / text).read_bytes())
    assert [command.name for command in description.subcommands] == commands
    assert not [p for p in description.positionals if p.name.startswith("{")]


def test_in_a_help_that_shows_no_value_a_default_only_a_value_can_have_says_the_option_takes_one():
    """meow and sade show no option's value: "--width, -w   Target width in pixels (default:
    800)" was a switch, and a call giving a width ate the input file for it. A help that shows
    values elsewhere keeps a switch whose description names a default (node's "--tls-max-v1.2
    set default TLS maximum to TLSv1.2 (default: TLSv1.3)")."""
    options = {o.long: o for o in describe_help((CAPTURED / "meow-values-unshown.txt").read_bytes()).options}
    assert [(o.takes_value, o.default) for o in (options["--width"], options["--quality"], options["--format"])] \
        == [(True, "800"), (True, "80"), (True, "jpg")]
    assert not options["--overwrite"].takes_value and not options["--out"].takes_value  # no default said
    sade = {o.long: o for o in describe_help((CAPTURED / "sade-available-commands.txt").read_bytes()).options}
    assert sade["--config"].takes_value and not sade["--verbose"].takes_value  # "(default false)"
    node_like = _describe("Usage: node [options]\n\nOptions:\n  --port <n>      port to use\n"
                          "  --tls-max-v1.2  set default TLS maximum to TLSv1.2 (default: TLSv1.3)\n")
    assert not {o.long: o for o in node_like.options}["--tls-max-v1.2"].takes_value


def test_a_type_noted_as_jsonargparse_writes_it_types_the_value_and_its_default_is_read():
    """"--quality QUALITY   output quality 1-100 (type: int, default: 85)" was any text with no
    default: jsonargparse refuses "2.5" and "high" for it. Also popt's "--max-conn=LONG" (a long
    integer) and commons-cli's "add a tag; may repeat"."""
    options = {o.long: o for o in describe_help((CAPTURED / "jsonargparse-typed-notes.txt").read_bytes()).options}
    assert [(options[name].type, options[name].default) for name in ("--quality", "--scale", "--fmt", "--sizes")] \
        == [("integer", "85"), ("number", "1.0"), ("enum", "png"), ("string", None)]  # "default: null" is none
    popt = {o.long: o for o in describe_help((CAPTURED / "popt-long-and-choices.txt").read_bytes()).options}
    assert popt["--max-conn"].type == "integer" and popt["--mode"].choices == ("tcp", "udp")
    commons = {o.long: o for o in describe_help((CAPTURED / "commons-cli-may-repeat.txt").read_bytes()).options}
    assert commons["--tag"].repeatable and not commons["--codec"].repeatable


def test_an_operand_cyclopts_also_takes_by_its_flag_is_that_flag_and_the_other_operands_keep_their_place():
    """"*  SERVICE --service   Service name. [required]" was dropped, and the listed HOSTS took
    the usage's SERVICE place: a call giving hosts ["h1"] gave the service h1 and no host."""
    description = describe_help((CAPTURED / "cyclopts-operand-or-flag.txt").read_bytes())
    service = next(o for o in description.options if o.long == "--service")
    assert service.takes_value and service.required
    assert [(p.name, p.required, p.variadic) for p in description.positionals] == [("HOSTS", False, True)]
    argv = build_tool_schema(description).to_argv({"service": "web", "token": "t", "hosts": ["h1", "h2"]})
    words = list(getattr(argv, "args", argv))
    assert words[words.index("--service") + 1] == "web" and words[-2:] == ["h1", "h2"]


def test_an_args4j_list_right_under_the_usage_line_is_no_part_of_the_usage():
    """" DIR      : directory to search" under "Usage: grep4j [options] DIR [FILES...]" was read
    as more usage: four required operands (":", "directory", "to", "search") and FILES required."""
    description = describe_help((CAPTURED / "args4j-list-under-usage.txt").read_bytes())
    assert [(p.name, p.required, p.variadic) for p in description.positionals] == [("DIR", True, False),
                                                                                    ("FILES", False, True)]
    assert {o.long for o in description.options} >= {"--color", "--regexp", "--max-count"}


def test_cacs_spread_operands_take_several_words_and_cyclopts_args_placeholder_is_no_operand():
    """cac writes a variadic operand with its dots first, "[...others]" and "<...files>": it was
    one word ("a b" reached the program as one). cyclopts writes "[ARGS]" for operands it lists
    with their flags ("TARGET --target"): it was an operand of its own."""
    cac = describe_help((CAPTURED / "cac-spread-operand.txt").read_bytes())
    assert [(p.name, p.required, p.variadic) for p in cac.positionals] == [("entry", True, False),
                                                                          ("others", False, True)]
    required = _describe("Usage:\n  $ cac_srv lint <...files>\n\nOptions:\n  --fix   Fix problems\n")
    assert [(p.name, p.required, p.variadic) for p in required.positionals] == [("files", True, True)]
    migrate = describe_help((CAPTURED / "cyclopts-args-placeholder.txt").read_bytes())
    assert migrate.positionals == () and "--target" in {o.long for o in migrate.options}


def test_a_cyclopts_counter_shown_with_its_default_of_0_is_given_again():
    """cyclopts' "--verbose -v   Verbosity. [default: 0]" (count=True) was a switch given once;
    -vv is 2 to it. A hand-written "(default 0)" after an option shown without a value is not
    (redis-benchmark's --precision takes a number)."""
    migrate = describe_help((CAPTURED / "cyclopts-args-placeholder.txt").read_bytes())
    assert {o.long: o.repeatable for o in migrate.options} == {"--target": False, "--verbose": True, "--fake": False}


def test_tyros_options_placeholder_is_no_operand_and_its_list_value_comes_at_once():
    """"usage: ty_train.py train [-h] [TRAIN OPTIONS]" made "TRAIN OPTIONS" an operand, which a call
    then gave (exit 2); "--tags [STR [STR ...]]" (nargs="*" as Python before 3.9 wrote it, and tyro
    still does) was one optional word."""
    description = describe_help((CAPTURED / "tyro-options-placeholder.txt").read_bytes())
    tags = next(o for o in description.options if o.long == "--tags")
    assert description.positionals == () and tags.values_at_once


def test_commands_of_several_words_are_run_by_all_their_words():
    """cliff lists "server create  Create a new server" and "server list": read as one command
    "server" with the first one's description, whose help ("stackctl server --help") lists the
    matches instead. A list where no two such commands share their first word keeps reading the
    second word as an operand (xdriinfo's "driver screen")."""
    from toolbay.helptext.tree import HelpRun, describe_tree

    folder = CAPTURED / "cliff"
    asked: list[tuple[str, ...]] = []

    def run_help(argv: list[str]) -> HelpRun:
        words = tuple(word for word in argv if not word.startswith("-"))
        asked.append(words)
        help_file = folder / ("_".join(("stackctl", *words)) + ".txt")
        return HelpRun(help_file.read_bytes() if help_file.exists() else b"unknown command", b"", 0)

    tree = describe_tree(run_help, "stackctl")
    assert sorted(command.path for command in tree) == [("server", "create"), ("server", "list"),
                                                        ("volume", "delete")]
    assert ("server",) not in asked and ("volume",) not in asked
    operand = _describe("usage: xdriinfo [-display dpy] [command]\n\ncommands:\n"
                        "  nscreens               print the number of screens on display\n"
                        "  driver screen          print the DRI driver name of screen\n")
    assert [command.name for command in operand.subcommands] == ["nscreens", "driver"]


def test_rich_clicks_range_type_and_tuple_columns_take_their_values_as_click_parses_them():
    """"--timeout   FLOAT RANGE [0<=x<=600]" was a switch (its type column of two words with its
    range), and "--label   <TEXT TEXT>..." one word a flag: click then took the service for the
    label's second word. The captured help is rich-click's for these options; click parses the
    arguments the schema makes."""
    import click

    @click.command()
    @click.option("--env", type=click.Choice(["dev", "staging", "prod"]), required=True)
    @click.option("--timeout", type=click.FloatRange(0, 600), default=60.0)
    @click.option("--label", type=(str, str), multiple=True)
    @click.argument("service")
    def up(env: str, timeout: float, label: tuple[tuple[str, str], ...], service: str) -> None:
        """Roll out a service."""

    description = describe_help((CAPTURED / "rich-click-range-and-tuple.txt").read_bytes())
    argv = build_tool_schema(description).to_argv(
        {"env": "dev", "timeout": 2.5, "label": [["team", "ops"], ["tier", "web"]], "service": "api"})
    parsed = up.make_context("up", list(getattr(argv, "args", argv))).params
    assert parsed == {"env": "dev", "timeout": 2.5, "label": (("team", "ops"), ("tier", "web")), "service": "api"}


@pytest.mark.parametrize(("help_file", "option", "repeatable", "required"), [
    ("cleo-multiple-values.txt", "--extras", True, False),  # "(multiple values allowed)"
    ("cliff/stackctl_server_create.txt", "--property", True, False),  # "(repeat option to set multiple values)"
    ("plumbum-switches-required.txt", "--message", False, True),  # "sets the commit message; required"
])
def test_repeatable_and_required_as_cleo_cliff_and_plumbum_say_them(
        help_file: str, option: str, repeatable: bool, required: bool) -> None:
    """Each was a single optional value: the program takes -E a -E b as two, or refuses to run
    without -m ("Switch -m/--message is mandatory")."""
    found = {o.long: o for o in describe_help((CAPTURED / help_file).read_bytes()).options}[option]
    assert (found.repeatable, found.required) == (repeatable, required)


def test_plumbums_switches_placeholder_is_no_operand_and_oclifs_topics_are_commands():
    """"Usage: geet commit [SWITCHES] paths..." made SWITCHES a required operand before the
    others; oclif lists commands that have commands of their own under "TOPICS"."""
    commit = describe_help((CAPTURED / "plumbum-switches-required.txt").read_bytes())
    assert [p.name for p in commit.positionals] == ["paths"]
    topics = describe_help((CAPTURED / "oclif-topics.txt").read_bytes())
    assert [command.name for command in topics.subcommands] == ["app", "deploy"]


def test_cleos_verbosity_tiers_are_one_counter():
    """"-v|vv|vvv, --verbose  Increase the verbosity of messages" was lost whole: a call could not
    ask for more output, and -vvv is what cleo takes."""
    options = {o.long: o for o in describe_help((CAPTURED / "cleo-multiple-values.txt").read_bytes()).options}
    verbose = options["--verbose"]
    assert (verbose.short, verbose.takes_value, verbose.repeatable) == ("-v", False, True)


def test_cloups_command_sections_are_commands_and_oclifs_options_note_gives_choices():
    """cloup's "Maintenance:" over "db  Database operations." (beside "Other commands:") was
    dropped; oclif's "(required) Region to deploy to <options: us-east-1|eu-west-1>" gave no
    choices (the program refuses any other region)."""
    cloup = describe_help((CAPTURED / "cloup-command-sections.txt").read_bytes())
    assert [command.name for command in cloup.subcommands] == ["up", "db"] and cloup.positionals == ()
    oclif = {o.long: o for o in describe_help((CAPTURED / "oclif-options-note.txt").read_bytes()).options}
    assert oclif["--region"].choices == ("us-east-1", "eu-west-1") and oclif["--region"].required


def test_subparsers_named_only_in_braces_under_a_command_heading_are_commands():
    """simple-parsing's "command:" over "{start,stop}" and nothing else: the commands were one
    required operand taking several words, and start and stop were never described."""
    description = describe_help((CAPTURED / "simple-parsing-braced-commands.txt").read_bytes())
    assert [command.name for command in description.subcommands] == ["start", "stop"]
    assert description.positionals == ()


def test_plumbums_typed_values_choices_and_defaults_are_read():
    """plumbum writes a value as its name, a colon and its type ("VALUE:int",
    "VALUE:{copy, link, move}") and its default as "; the default is 4096": the types were text,
    the choices made the option a switch, and no default was read."""
    described = describe_help((CAPTURED / "plumbum-typed-values.txt").read_bytes())
    options = {o.long or o.short: o for o in described.options}
    assert (options["--block-size"].type, options["--block-size"].default) == ("integer", "4096")
    assert (options["--mode"].takes_value, options["--mode"].choices, options["--mode"].default) == (
        True, ("copy", "link", "move"), "copy")
    assert options["--ratio"].type == "number" and options["--backup-dir"].type == "path"
    assert options["--completions"].choices == ("bash", "fish")


def test_a_commander_program_with_commands_and_arguments_of_its_own_keeps_its_arguments():
    """commander 14's help of ``.argument('<src>').argument('[dest...]')`` beside a command
    ``serve``: the words after "[command]" were taken for the command's, and the listed ones
    read as two required single values, so a call without ``dest`` was refused."""
    desc = _describe("Usage: cmdprog [options] [command] <src> [dest...]\n\nDo things\n\nArguments:\n"
                     "  src                    source file\n  dest                   destinations\n\n"
                     "Options:\n  -n, --name <name>      a name\n  -h, --help             display help for command\n\n"
                     "Commands:\n  serve [options] <dir>  serve a folder\n")
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("src", True, False),
                                                                            ("dest", False, True)]
    assert [command.name for command in desc.subcommands] == ["serve"]
    schema = build_tool_schema(desc)
    assert schema.to_argv({"src": "a"}) == ["a"]
    assert schema.to_argv({"src": "a", "dest": ["b", "c"], "name": "n"})[-3:] == ["a", "b", "c"]


def test_a_usage_piped_into_the_program_names_the_program_after_the_pipe():
    desc = _describe("Usage: your-application | digraph [command]\n\nThe support commands are:\n"
                     "\tnodes\n\t\tthe set of all nodes\n\tdegree\n\t\tthe in-degree and out-degree of each node\n")
    assert desc.name == "digraph" and desc.positionals == ()


def test_cacs_default_command_listed_by_its_operands_is_the_programs_own_operands():
    """cac (vite's parser) lists the default command of ``cli.command('[...files]')`` among the
    commands by its operands: "[...files]" was no command and no operand, and no file could be
    passed. The program (cac 6) parses "--count 2 a b" as files ["a", "b"]."""
    desc = _describe("cacprog/1.0.0\n\nUsage:\n  $ cacprog [...files]\n\nCommands:\n  [...files]   Do things\n"
                     "  serve <dir>  serve a folder\n\nFor more info, run any command with the `--help` flag:\n"
                     "  $ cacprog --help\n  $ cacprog serve --help\n\nOptions:\n"
                     "  -c, --count <n>    how many (default: 3)\n  -h, --help         Display this message \n")
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("files", False, True)]
    assert [command.name for command in desc.subcommands] == ["serve"]
    assert build_tool_schema(desc).to_argv({"files": ["a", "b"], "count": 2}) == ["--count", "2", "a", "b"]


@pytest.mark.parametrize("text", ["apt-cache-forms-of-a-command.txt", "systemd-analyze-default-command.txt"])
def test_a_listed_commands_words_are_no_operands_of_the_program(text: str) -> None:
    """apt-cache's second form, "apt-cache [options] show pkg1 [pkg2 ...]", is its show
    command's, and systemd-analyze's "[time]" its default command: both were taken for the
    program's own operands (show, pkg1, pkg2; time) once operands before a usage's command
    place were kept (picocli's "<src> [<dest>...] [COMMAND]")."""
    description = describe_help((CAPTURED / text).read_bytes())
    assert description.subcommands and description.positionals == ()
    if text.startswith("systemd-analyze"):  # and "[time]" is the command time (it was lost whole)
        assert [command.name for command in description.subcommands][:2] == ["time", "blame"]


def test_a_usage_whose_command_place_has_another_name_beside_it_gains_no_operand() -> None:
    """gcloud's "gcloud GROUP | COMMAND" (its help as the installed gcloud prints it): GROUP
    was a required operand of every call."""
    desc = describe_help((CAPTURED / "gcloud-group-or-command.txt").read_bytes())
    assert desc.positionals == () and "init" in [command.name for command in desc.subcommands]


def test_a_list_in_one_word_is_named_by_its_item_and_a_flag_listed_alone_keeps_its_value_optional() -> None:
    """lnstat's "-k --keys k,k,k,..." was named "k k k" once a value name written again counted
    as a second value; msgfmt lists "-k, --keyword" alone ("do not to use default keywords")
    below "--keyword=WORD": the value may be left out, which a sentence starting with a flag
    ("--text and --file cannot be used together") does not say."""
    lnstat = {o.long: o for o in describe_help((CAPTURED / "lnstat-list-in-one-word.txt").read_bytes()).options}
    # One word of keys joined by commas (lnstat.c splits its optarg at ","), not "k k k" nor the flag again.
    assert (lnstat["--keys"].one_word_list, lnstat["--keys"].values_per_flag) == (",", 1)
    for said in ("takes precedence over --binary.", "has no effect with --binary.", "does nothing alone."):
        text = _describe(f"Usage: tool [OPTION] FILE\n\n  --text=MODE   read in MODE\n  --binary      read bytes\n\n"
                         f"--text {said}\n")
        (option,) = [o for o in text.options if o.long == "--text"]
        assert option.takes_value and not option.value_optional, said
    msgfmt = _describe("Usage: msgfmt [OPTION] filename.po ...\n\nInput file interpretation:\n"
                       "  -kWORD, --keyword=WORD      look for WORD as an additional keyword\n"
                       "  -k, --keyword               do not to use default keywords\n")
    (keyword,) = [o for o in msgfmt.options if o.long == "--keyword"]
    assert keyword.takes_value and keyword.value_optional


def test_a_rich_click_metavar_with_an_equals_sign_is_the_options_value():
    """rich-click's table: "--define  -D  KEY=VAL  Define a variable." was read as a switch, so
    its value could never be given, and "--define --size 3 4" made click refuse the call ("Got
    unexpected extra arguments (3 4)"; an outside check). ``truth_programs/richclick/rich_build.py``
    (its help: ``framework_texts/rich-click-1.9.9-build.txt``), run with the argv built here,
    printed {"ratio": 0.2, "define": ["A=1"], "size": [3, 4], "shout": false, "level": 5}."""
    text = (Path(__file__).parent / "framework_texts" / "rich-click-1.9.9-build.txt").read_bytes()
    schema = build_tool_schema(describe_help(text))
    assert schema.input_schema["properties"]["define"]["type"] == "string"
    assert list(schema.to_argv({"define": "A=1", "size": [[3, 4]], "shout": False, "ratio": 0.2})) == [
        "--ratio", "0.2", "--define", "A=1", "--size", "3", "4", "--no-shout"]


def test_a_choice_or_a_value_is_no_list_of_choices():
    """tyro's Optional[Path] option, "--config {None}|PATH", was an enum of "None" alone: the
    usage's "[--config {None}|PATH]", read as alternatives, gave its choices, so every path was
    refused (an outside check). tyro 1.0.17's program (``framework_texts/tyro-1.0.17-config.txt``)
    run with "--config /etc/x.conf x" printed {"name": "x", "urls": [], "config": "/etc/x.conf"}."""
    text = (Path(__file__).parent / "framework_texts" / "tyro-1.0.17-config.txt").read_bytes()
    schema = build_tool_schema(describe_help(text))
    assert "enum" not in schema.input_schema["properties"]["config"]
    assert list(schema.to_argv({"str": "x", "config": "/etc/x.conf"})) == ["--config", "/etc/x.conf", "x"]


def test_a_list_written_as_one_value_in_brackets_is_given_as_one_word():
    """jsonargparse's List[str] option, "--label [ITEM,...], --label+ [ITEM,...]", was given once
    per item ("--label=a1 --label=b2"), which jsonargparse refuses ("Expected a <class 'list'>. Got
    value: a1"; an outside check). Its program (jsonargparse 4.53.0, ``framework_texts/
    jsonargparse-4.53.0-jl.txt``) run with the word built here printed {"label": ["a1", "b 2", "-x"]}."""
    text = (Path(__file__).parent / "framework_texts" / "jsonargparse-4.53.0-jl.txt").read_bytes()
    schema = build_tool_schema(describe_help(text))
    assert schema.input_schema["properties"]["label"]["type"] == "array"
    assert list(schema.to_argv({"label": ["a1", "b 2", "-x"]})) == ['--label=["a1", "b 2", "-x"]']
    assert list(schema.to_argv({"label": []})) == ["--label=[]"]


def test_a_list_written_name_comma_dots_is_given_as_one_word_joined_by_commas():
    """A re-check of d08d8a3e: argparse's "--skip [NAME,...]  names to skip, comma separated" was
    given a JSON list, which the program took as the text '["a", "b"]'; run with the word built
    here, argparse parses "a,b", which its program splits."""
    import argparse

    parser = argparse.ArgumentParser(prog="ap6")
    parser.add_argument("--skip", metavar="[NAME,...]", help="names to skip, comma separated")
    schema = build_tool_schema(describe_help(parser.format_help().encode()))
    assert vars(parser.parse_args(schema.to_argv({"skip": ["a", "b"]}))) == {"skip": "a,b"}
    with pytest.raises(ValueError, match="joined by commas in one word"):
        schema.to_argv({"skip": ["a,b"]})


def test_rich_click_metavars_of_any_shape_are_values():
    """A re-check of b551b271: "key=value", "HOST[:PORT]", "N..M", "USER@HOST", "K=V,K=V"
    were still read as switches in rich-click's table (``truth_programs/richclick/metavars.py``,
    its help ``framework_texts/rich-click-1.9.9-metavars.txt``), so "--a1 t" took the operand."""
    text = (Path(__file__).parent / "framework_texts" / "rich-click-1.9.9-metavars.txt").read_bytes()
    properties = build_tool_schema(describe_help(text)).input_schema["properties"]
    assert {name: properties[name]["type"] for name in properties if name.startswith("a")} == {
        f"a{n}": "string" for n in range(1, 9)}


def test_a_description_word_with_a_slash_is_no_metavar():
    """A re-check of d89cf589: typer 0.29.2's "--a  <int range> [1<=x<=9]  Deprecated/removed
    level." took "Deprecated/removed" for part of the value's name, and the integer with its bounds
    became a string (``framework_texts/typer-0.29.2-ranges.txt``, from a typer program of six
    options: int ranges, a str, a float range, a bool)."""
    text = (Path(__file__).parent / "framework_texts" / "typer-0.29.2-ranges.txt").read_bytes()
    properties = build_tool_schema(describe_help(text)).input_schema["properties"]
    assert [properties[name]["type"] for name in "abcdef"] == ["integer"] * 3 + ["string", "number", "boolean"]
    assert properties["a"]["minimum"] == 1 and properties["a"]["description"].startswith("Deprecated/removed")
    assert properties["f"]["description"] == "Deprecated/removed: do not use."


def test_mixed_case_metavars_are_values_and_metavars_without_help_too():
    """A re-check of 78bb4136: rich-click's "on|off", "json,yaml", "src/dst", "Fast|Slow" and
    "Key/Value" were switches again (``{"b2": true}`` reached the program as b2="true"
    (``framework_texts/rich-click-1.9.9-mixed-metavars.txt``). A switch whose whole description
    is a word of capitals so joined ("I/O", "STDIN/STDOUT") or "x=1" reads as a value: the help
    cannot tell it from a metavar with no help after it, which the next re-check found made a
    switch again (``rich-click-1.9.9-no-help.txt``: "-D KEY=VAL" with no help); mixed-case words
    joined by "/", "|" or "," are values only where a description follows."""
    folder = Path(__file__).parent / "framework_texts"
    properties = build_tool_schema(describe_help(
        (folder / "rich-click-1.9.9-mixed-metavars.txt").read_bytes())).input_schema["properties"]
    assert {name: properties[name]["type"] for name in properties if name[0] in "bf"} == {
        **{f"b{n}": "string" for n in range(1, 9)}, "f1": "string", "f2": "string", "f3": "boolean",
        "f4": "boolean", "f5": "string", "f6": "string"}
    bare = build_tool_schema(describe_help((folder / "rich-click-1.9.9-no-help.txt").read_bytes()))
    assert {name: prop["type"] for name, prop in bare.input_schema["properties"].items()} == {
        "define": "string", "bind": "string", "pair": "string", "mode": "boolean", "span": "string",
        "verbose": "boolean", "target": "string"}


def test_jsonargparse_collections_of_every_kind_are_one_json_word():
    """A re-check of 78bb4136: Sequence[str], Set[str], Tuple[str, ...] and Iterable[int] were joined
    by commas, which jsonargparse refuses ("Expected a Sequence. Got value: a,b"); run with these
    words, jsonargparse 4.53.0 parsed each as given (``framework_texts/jsonargparse-4.53.0-collections.txt``)."""
    text = (Path(__file__).parent / "framework_texts" / "jsonargparse-4.53.0-collections.txt").read_bytes()
    schema = build_tool_schema(describe_help(text))
    for name in ("seq", "st", "tup", "it", "low", "nums"):
        assert list(schema.to_argv({name: ["1", "2"]})) == [f'--{name}=["1", "2"]'], name


def test_a_short_options_list_in_one_word_starting_with_a_dash_is_joined_to_its_flag():
    """A re-check of 78bb4136: "-s -a,b" made argparse say "argument -s: expected one argument"."""
    import argparse

    parser = argparse.ArgumentParser(prog="apc")
    parser.add_argument("-s", metavar="[NAME,...]", help="names to skip, comma separated")
    schema = build_tool_schema(describe_help(parser.format_help().encode()))
    assert vars(parser.parse_args(schema.to_argv({"s": ["-a", "b"]}))) == {"s": "-a,b"}


def test_a_version_option_that_needs_a_value_is_the_programs_own_not_a_help_option():
    """towncrier 26.9 ``build``: "--version TEXT" is the version its news is rendered for
    (``click.option("--version", "project_version", ...)``); it was dropped as --version's name."""
    desc = _describe("Usage: towncrier build [OPTIONS]\n\n  Build a combined news file from news fragments.\n\n"
                     "Options:\n  --draft             Render the news fragments to standard output.\n"
                     "  --version TEXT      Render the news fragments using given version.\n"
                     "  --help              Show this message and exit.\n")
    schema = build_tool_schema(desc)
    assert schema.input_schema["properties"]["version"]["type"] == "string"
    assert "help" not in schema.input_schema["properties"]
    assert schema.to_argv({"version": "1.2.3"}) == ["--version", "1.2.3"]
    plain = build_tool_schema(_describe("Usage: x [OPTIONS]\n\nOptions:\n  --version  Show the version and exit.\n"))
    assert "version" not in plain.input_schema["properties"]


@pytest.mark.parametrize(("head", "value_name"), [("--target-version TEXT", "TEXT"),
                                                  ("--python-target <str>", "<str>"),
                                                  ("--since string", "string")])
def test_a_value_the_framework_prints_as_text_stays_text_whatever_its_default_looks_like(head: str, value_name: str):
    """click's TEXT, typer's <str> and pflag's string are the framework's own type names: with a
    default of "3.10" the value was a number, and 3.10 was passed as "3.1" (strawberry
    ``upgrade --python-target <str> [default: 3.11]``)."""
    desc = _describe(f"Usage: x [OPTIONS]\n\nOptions:\n  {head:30s}Python version.  [default: 3.10]\n"
                     "  --width INTEGER               Width.  [default: 80]\n")
    properties = build_tool_schema(desc).input_schema["properties"]
    name = head.split()[0].lstrip("-").replace("-", "_")
    assert properties[name]["type"] == "string", value_name
    assert properties[name]["default"] == "3.10"
    assert properties["width"]["type"] == "integer"


def test_a_typer_option_with_no_help_text_keeps_its_required_note():
    """strawberry 0.341 ``codegen`` (typer 0.29): an option with no help has only "[required]"
    beside its type, which was read as its value's column ("<dir> [required]"), and the option
    was optional."""
    text = ("\n Usage: strawberry codegen [OPTIONS] [query]...\n\n Generate code from a query\n\n"
            "╭─ Options ────────────────────────────────────────────────────────────────────╮\n"
            "│ *  --schema              <str>        Python path to the schema file         │\n"
            "│                                       [required]                             │\n"
            "│ *  --output-dir  -o      <dir>        [required]                             │\n"
            "│ *  --plugins     -p      <list[str]>  [required]                             │\n"
            "│    --cli-plugin          <str>                                               │\n"
            "│    --help                <bool>       Show this message and exit.            │\n"
            "╰──────────────────────────────────────────────────────────────────────────────╯\n")
    schema = build_tool_schema(_describe(text)).input_schema
    assert sorted(schema["required"]) == ["output_dir", "plugins", "schema"]


def test_further_usage_forms_after_or_without_a_colon_and_an_operand_repeated_in_a_form():
    """rsync 3.5: "  or   rsync [OPTION]... ..." (no colon): its "or" was an operand every form
    needed, so "rsync SRC DEST" could not be asked for; and "SRC [SRC]..." named ``src`` twice in
    a form, so the sources were passed twice ("rsync a/ a/ b")."""
    desc = _describe("Usage: rsync [OPTION]... SRC [SRC]... DEST\n"
                     "  or   rsync [OPTION]... SRC [SRC]... [USER@]HOST:DEST\n"
                     "  or   rsync [OPTION]... [USER@]HOST:SRC [DEST]\n\n"
                     "Options\n -v, --verbose            increase verbosity\n"
                     " -a, --archive            archive mode is -rlptgoD (no -A,-X,-U,-N,-H)\n")
    schema = build_tool_schema(desc)
    assert "or" not in schema.input_schema["properties"]
    assert schema.to_argv({"archive": True, "src": ["a/"], "dest": "b"}) == ["--archive", "a/", "b"]
    assert schema.to_argv({"src": ["a/", "c/"], "dest": "b"}) == ["a/", "c/", "b"]


@pytest.mark.parametrize("value", ["<data|filename>", "<file|data>", "<expr|word>"])
def test_a_value_named_by_its_kinds_between_bars_is_no_choice(value: str):
    """curl 7.88: "-b, --cookie <data|filename>  Send cookies from string/file" took a cookie
    string or a file's name, and was offered the two words "data" and "filename" only."""
    desc = _describe(f"Usage: curl [options...] <url>\n -b, --cookie {value} Send cookies from string/file\n"
                     " -v, --verbose        Make the operation more talkative\n")
    cookie = build_tool_schema(desc).input_schema["properties"]["cookie"]
    assert "enum" not in cookie and cookie["type"] == "string"


def test_a_title_between_rules_is_a_heading_and_a_hash_is_a_numbers_place():
    """tree 2.1: "  ------- Listing options -------" under the usage was read as its next line, and
    its word "Listing" was an operand every call needed; "--filelimit # Do not descend dirs with
    more than # files in them." was a switch (tree took the next word for its number)."""
    desc = _describe("usage: tree [-adl] [-L level [-R]] [--filelimit #] [--] [directory ...]\n"
                     "  ------- Listing options -------\n"
                     "  -a            All files are listed.\n"
                     "  -L level      Descend only level directories deep.\n"
                     "  --filelimit # Do not descend dirs with more than # files in them.\n"
                     "  ------- File options -------\n"
                     "  -q            Print non-printable characters as '?'.\n")
    schema = build_tool_schema(desc)
    assert "required" not in schema.input_schema
    assert "listing" not in schema.input_schema["properties"]
    assert schema.input_schema["properties"]["filelimit"]["type"] == "integer"
    assert schema.to_argv({"filelimit": 5, "directory": ["x"]}) == ["--filelimit", "5", "x"]
    assert "q" in schema.input_schema["properties"]


@pytest.mark.parametrize("head", ["--include=PAT1,PAT2,...", "--include PAT1,PAT2,...", "--include <a,b,...>"])
def test_a_list_written_as_its_first_items_joined_by_commas_is_passed_as_one_word(head: str):
    """coverage 7.18's "--include=PAT1,PAT2,...": given twice ("--include=a/* --include=b/*"),
    optparse kept the last, and coverage reported b/ alone; "--include=a/*,b/*" reports both."""
    desc = _describe(f"Usage: coverage run [options] <pyfile> [program options]\n\nOptions:\n"
                     f"  {head:28s}Include only files whose paths match one of these patterns.\n")
    schema = build_tool_schema(desc)
    assert schema.input_schema["properties"]["include"]["type"] == "array"
    assert schema.to_argv({"include": ["a/*", "b/*"], "pyfile": "t.py"}) == ["--include=a/*,b/*", "t.py"]


JQ_HELP = ("Usage:\tjq [OPTIONS] FILTER [FILES...]\n\n"
           "Some of the options include:\n"
           "  -n               use `null` as the single input value;\n"
           "  -r               output raw strings, not JSON texts;\n"
           "  --arg a v        set variable $a to value <v>;\n"
           "  --argjson a v    set variable $a to JSON value <v>;\n"
           "  --slurpfile a f  set variable $a to an array of JSON texts read from <f>;\n")


def test_names_in_small_letters_that_the_description_says_again_are_so_many_words_after_the_flag():
    """jq 1.6: "--arg a v  set variable $a to value <v>" was one value, so a call gave
    "--arg x '$x'": jq took "$x" for the value, ran the filter ".", and printed null (exit 0).
    Two words after the flag, and no "--" after them (jq 1.6 refuses one)."""
    schema = build_tool_schema(_describe(JQ_HELP))
    arg = schema.input_schema["properties"]["arg"]
    assert (arg["type"], arg["minItems"], arg["maxItems"]) == ("array", 2, 2)
    argv = schema.to_argv({"n": True, "arg": ["x", "1"], "filter": "$x"})
    assert argv == ["-n", "--arg", "x", "1", "$x"]
    if shutil.which("jq") is not None:  # the program itself, where it is installed
        assert subprocess.run(["jq", *argv], capture_output=True, text=True, check=True).stdout == '"1"\n'
    # Not names the description does not say again: "-o file name" is one value of two words.
    plain = build_tool_schema(_describe("Usage: x [OPTIONS]\n\n  -o file name   where the output goes\n"))
    assert plain.input_schema["properties"]["o"]["type"] == "string"


def test_names_in_capitals_with_an_optional_part_in_brackets_are_so_many_words_after_the_flag():
    """yt-dlp 2026.11: "--print-to-file [WHEN:]TEMPLATE FILE" (optparse nargs=2, appended) was one
    value, so a call's URL after it was taken for the file ("You must provide at least one URL")."""
    desc = _describe("Usage: yt-dlp [OPTIONS] URL [URL...]\n\nOptions:\n\n  General Options:\n"
                     "    -h, --help                      Print this help text and exit\n"
                     "    --version                       Print program version and exit\n\n"
                     "  Verbosity and Simulation Options:\n"
                     "    --print-to-file [WHEN:]TEMPLATE FILE\n"
                     "                                    Append given template to the file. This option\n"
                     "                                    can be used multiple times\n"
                     "    --replace-in-metadata [WHEN:]FIELDS REGEX REPLACE\n"
                     "                                    Replace text in a metadata field\n")
    schema = build_tool_schema(desc)
    argv = schema.to_argv({"print_to_file": [["%(title)s", "t.txt"]], "url": ["U"]})
    assert argv == ["--print-to-file", "%(title)s", "t.txt", "U"]
    replace = schema.input_schema["properties"]["replace_in_metadata"]
    assert replace["minItems"] == replace["maxItems"] == 3
    assert schema.to_argv({"replace_in_metadata": ["title", "a", "b"], "url": ["U"]})[:4] == \
        ["--replace-in-metadata", "title", "a", "b"]


def test_a_number_said_to_take_a_unit_is_text():
    """hexyl 0.8: "-n, --length <N>  Only read N bytes from the input. The N argument can also
    include a unit with a decimal prefix (kB, MB, ..)": an integer refused "4KiB", which hexyl takes."""
    desc = _describe("Usage: hexyl [OPTIONS] [FILE]\n\nOptions:\n"
                     "    -n, --length <N>            Only read N bytes from the input. The N argument can also\n"
                     "                                include a unit with a decimal prefix (kB, MB, ..)\n"
                     "    -w, --width <N>             Number of columns.\n")
    properties = build_tool_schema(desc).input_schema["properties"]
    assert properties["length"]["type"] == "string"
    assert properties["width"]["type"] == "integer"


def test_gawks_table_of_short_names_then_long_names_in_a_column_keeps_both():
    """gawk 5.2: "\\t-f progfile\\t\\t--file=progfile" (values in small letters, or joined as in
    "-d[file]  --dump-variables[=file]"): twelve options kept only their short name, and their
    properties differed only by case ("d", "D")."""
    desc = _describe("Usage: gawk [POSIX or GNU style options] -f progfile [--] file ...\n"
                     "POSIX options:\t\tGNU long options: (standard)\n"
                     "\t-f progfile\t\t--file=progfile\n"
                     "\t-v var=val\t\t--assign=var=val\n"
                     "Short options:\t\tGNU long options: (extensions)\n"
                     "\t-d[file]\t\t--dump-variables[=file]\n"
                     "\t-D[file]\t\t--debug[=file]\n"
                     "\t-e 'program-text'\t--source='program-text'\n"
                     "\t-b\t\t\t--characters-as-bytes\n")
    named = {(o.short, o.long, o.takes_value, o.value_optional) for o in desc.options}
    assert named == {("-f", "--file", True, False), ("-v", "--assign", True, False),
                     ("-d", "--dump-variables", True, True), ("-D", "--debug", True, True),
                     ("-e", "--source", True, False), ("-b", "--characters-as-bytes", False, False)}


def test_icus_help_and_version_named_with_or_stay_help_options():
    """ICU's genrb and gencnval: "-V or --version  prints out version number and exits" reads as
    a value "or" (a word in small letters, no value's name): --version and --help were offered as
    text parameters once a help-named option with a value counted as the program's own."""
    desc = _describe("Usage: genrb [OPTIONS] [FILES]\n\nOptions:\n"
                     "\t-h or -? or --help       this usage text\n"
                     "\t-V or --version          prints out version number and exits\n"
                     "\t-c or --copyright        include copyright notice\n")
    properties = build_tool_schema(desc).input_schema["properties"]
    assert "help" not in properties and "version" not in properties


def test_a_typer_option_with_no_help_text_keeps_its_type_and_default():
    """typer 0.29: "--level  <int>  [default: 5]" with no help took "[default: 5]" for its
    value's column: a string with no default, which refused 7 sent as a number."""
    text = ("\n Usage: typerapp2.py [OPTIONS]\n\n"
            "╭─ Options ──────────────────────────────────────────────────────────╮\n"
            "│ --level                <int>    [default: 5]                       │\n"
            "│ --ratio                <float>  [default: 0.5]                     │\n"
            "│ --fmt                  <str>    [env var: APP_FMT] [default: json] │\n"
            "│ --help                 <bool>   Show this message and exit.        │\n"
            "╰────────────────────────────────────────────────────────────────────╯\n")
    properties = build_tool_schema(_describe(text)).input_schema["properties"]
    assert (properties["level"]["type"], properties["level"]["default"]) == ("integer", 5)
    assert (properties["ratio"]["type"], properties["ratio"]["default"]) == ("number", 0.5)
    assert properties["fmt"]["default"] == "json"


def test_two_words_one_of_which_may_name_a_kind_of_value_are_still_choices():
    """argparse's choices=["data", "schema"], metavar "<data|schema>": the program refuses any
    other word ("invalid choice"); "data" alone names a kind of value only beside another one."""
    desc = _describe("usage: dump [-h] [--what <data|schema>]\n\noptions:\n  -h, --help  show this help\n"
                     "  --what <data|schema>  what to dump\n")
    assert build_tool_schema(desc).input_schema["properties"]["what"]["enum"] == ["data", "schema"]


def _option(desc, long: str):
    return next(o for o in desc.options if o.long == long)


def test_a_default_said_in_words_is_read_and_prose_in_its_place_is_not():
    """radon's "(default to A)" gave the default "to A"; pyinstaller's "(default: first script's
    basename)" offered that phrase as a value; optparse's "... Default: 'Program: {args}'" at the
    end of a wrapped description was missed; "Defaults to empty/disabled." is no value."""
    desc = _describe("usage: tool [-h] [-n <str>] [-N NAME] [-t TEXT] [-r RE] [-j N]\n\noptions:\n"
                     "  -h, --help            show this help message and exit\n"
                     "  -n <str>, --min <str>\n                        The minimum rank (default to A).\n"
                     "  -N NAME, --name NAME  Name of the bundle (default: first script's\n"
                     "                        basename)\n"
                     "  -t TEXT, --title TEXT\n"
                     "                        Text shown on top. The placeholder '{args}' may\n"
                     "                        be used. Default: 'Program: {args}'\n"
                     "  -r RE, --ignore-regex RE\n"
                     "                        Skip what matches. Defaults to empty/disabled.\n"
                     "  -j N, --jobs N        Processes to run. Defaults to `1`.\n"
                     "  -O <str>, --output-file <str>\n                        The output file (default to stdout).\n")
    got = {o.long: o.default for o in desc.options}
    assert got == {"--help": None, "--min": "A", "--name": None, "--title": "Program: {args}",
                   "--ignore-regex": None, "--jobs": "1", "--output-file": None}


def test_a_default_said_in_a_sentence_does_not_make_a_switch_take_a_value():
    """mkdocs' "--color / --no-color  ... Default is auto." is a switch: a default in a sentence
    says what happens, it does not name a value the flag takes (click reads a value from a
    "[default: x]" note)."""
    desc = _describe("Usage: mkdocs serve [OPTIONS]\n\nOptions:\n"
                     "  --color / --no-color  Force enable or disable color. Default is auto.\n"
                     "  --help                Show this message and exit.\n")
    assert _option(desc, "--color").takes_value is False


def test_plain_words_in_parentheses_are_not_taken_for_the_only_values():
    """Read as choices for a while this session: such lists were as often short of what the
    program takes (exa's "-t" takes "changed" too, journalctl's "-o" "short-delta"), examples
    ("e.g., pdf"), kinds of value or units; an enum too narrow refuses calls (a re-check). Nor
    words between bars followed by "and/or" (fzf's --color takes "dark,fg:#ffffff")."""
    desc = _describe("Usage: tool [OPTIONS...] FILES...\n"
                     "  -t FIELD      --time=FIELD          timestamp to list (modified, accessed, created)\n"
                     "  -i INPUT      --input=INPUT         What to read (file, dir, url)\n"
                     "  -b BACKEND    --backend=BACKEND     Output format (e.g., pdf, epub3, html)\n"
                     "  -B SIZE       --buffer=SIZE         Buffer size with a unit suffix (k, m, g)\n"
                     "                --scheme=COLSPEC      Base scheme (dark|light|16|bw) and/or custom colors\n"
                     "                --help                Show this usage summary and exit\n")
    assert {o.long: o.choices for o in desc.options if o.long != "--help"} == {
        "--time": (), "--input": (), "--backend": (), "--buffer": (), "--scheme": ()}


def test_a_value_name_then_can_be_and_a_colon_lists_its_choices():
    desc = _describe("usage: jrnl [--format TYPE]\n\noptions:\n"
                     "  --format TYPE         Display entries in another format.\n"
                     "                        TYPE can be: boxed, dates, json, markdown,\n"
                     "                        or yaml.\n")
    assert _option(desc, "--format").choices == ("boxed", "dates", "json", "markdown", "yaml")


@pytest.mark.parametrize("said", ["Control log level. -vv for debug level.",
                                  "suppress warnings; specify twice to suppress errors too"])
def test_a_switch_said_to_be_given_twice_is_repeatable(said):
    desc = _describe(f"Usage: tool [OPTIONS]\n\nOptions:\n  -v, --verbose  {said}\n"
                     "  --help         Show this message and exit.\n")
    assert _option(desc, "--verbose").repeatable is True


def test_a_chinese_or_japanese_description_one_space_after_the_name_is_no_value():
    """dos2unix's Japanese help: "-R, --replace-symlink シンボリックリンクを..." (one space, the name
    filling its column) took the sentence for the option's value; the program refuses one."""
    desc = _describe("使用法: dos2unix [options] [file ...]\n"
                     " -F, --follow-symlink  シンボリックリンクを辿り、対象を変換する\n"
                     " -R, --replace-symlink シンボリックリンクを変換後の対象ファイルに置換する\n"
                     "                         (元の対象ファイルは変更されずそのまま残る)\n"
                     " -V, --version         バージョン番号を表示する\n")
    replace = _option(desc, "--replace-symlink")
    assert (replace.takes_value, replace.description.startswith("シンボリック")) == (False, True)
    # A line of prose that starts with an option's name is a sentence about it, not a second form
    # that made its value one to leave out (pg_dumpall's and tar's Japanese help, a re-check).
    prose = _describe("Usage: t [OPTION]... FILE\n  -f, --file=NAME        出力ファイル名\n"
                      "  -q, --quoting-style=STYLE  名前引用形式を設定\n\n"
                      "-f/--file が指定されない場合、SQLスクリプトは標準出力に書き出されます。\n"
                      "--quoting-style オプションに対する有効な引数:\n")
    assert [(o.long, o.takes_value, o.value_optional) for o in prose.options] == [
        ("--file", True, False), ("--quoting-style", True, False)]
    # A short one with hiragana in it is a sentence too; katakana and kanji alone name a value (a re-check).
    short = _describe("Usage: t [OPTION]...\n  -q, --quiet 静かにする\n  -f, --file ファイル名  読み込むファイル\n")
    assert [(o.long, o.takes_value, o.value_name) for o in short.options] == [
        ("--quiet", False, None), ("--file", True, "ファイル名")]


def test_an_option_followed_by_dots_in_a_docopt_usage_is_given_again():
    """pykwalify's "usage: pykwalify -d FILE -s FILE ... [-e FILE ...] [-v ...]": docopt gives
    -s and -e a list of files and -v a count; each was offered once."""
    desc = _describe("usage: pykwalify -d FILE -s FILE ... [-e FILE ...]\n       [-v ...] [-q]\n\n"
                     "optional arguments:\n"
                     "  -d FILE, --data-file FILE            the file to be tested\n"
                     "  -e FILE, --extension FILE            file containing python extension\n"
                     "  -s FILE, --schema-file FILE          schema definition file\n"
                     "  -q, --quiet                          suppress terminal output\n"
                     "  -v, --verbose                        verbose terminal output\n")
    got = {o.long: (o.takes_value, o.repeatable) for o in desc.options}
    assert got == {"--data-file": (True, False), "--extension": (True, True), "--schema-file": (True, True),
                   "--quiet": (False, False), "--verbose": (False, True)}


def test_an_optional_operand_written_with_its_default_is_named_without_it():
    """plumbum's "[destination_path=.]" was an operand named "destination_path=", its default lost."""
    desc = _describe("Usage:\n    copier update [SWITCHES] [destination_path=.]\n\nUpdate a subproject\n\n"
                     "Switches:\n    -q, --quiet                     Suppress status output\n")
    assert [(p.name, p.required, p.default) for p in desc.positionals] == [("destination_path", False, ".")]


def test_dots_after_a_value_said_to_hold_its_items_between_commas_are_not_a_repeat():
    """pipreqs (docopt): "--ignore <dirs>...  ... each separated by a comma" was offered as a list,
    given as --ignore a --ignore b, which docopt refuses; the one value holds the list."""
    desc = _describe("Usage:\n    pipreqs [options] [<path>]\n\nOptions:\n"
                     "    --use-local           Use ONLY local package info.\n"
                     "    --ignore <dirs>...    Ignore extra directories, each separated by a comma\n"
                     "    --tag <t>...          Tags to add\n")
    assert {o.long: (o.takes_value, o.repeatable) for o in desc.options} == {
        "--use-local": (False, False), "--ignore": (True, False), "--tag": (True, True)}


def test_a_yargs_option_with_no_type_and_a_default_no_switch_has_takes_a_value():
    """json-server's "-p, --port  Set port  [default: 3000]": yargs takes the next word as its
    value (port=4000); it was offered as a switch, its default dropped."""
    desc = _describe("json-server [options] <source>\n\nOptions:\n"
                     "  -c, --config                   Path to config file\n"
                     "                                                   [default: \"json-server.json\"]\n"
                     "  -p, --port                     Set port                        [default: 3000]\n"
                     "  -w, --watch                    Watch file(s)                         [boolean]\n"
                     "  -m, --middlewares              Paths to middleware files               [array]\n"
                     "  -h, --help                     Show help                             [boolean]\n")
    got = {o.long: (o.takes_value, o.default) for o in desc.options}
    assert got == {"--config": (True, "json-server.json"), "--port": (True, "3000"), "--watch": (False, None),
                   "--middlewares": (True, None), "--help": (False, None)}


def test_a_switch_whose_description_writes_its_own_letter_doubled_counts():
    """alacritty's "-q  Reduces the level of verbosity (the min level is -qq)": -qq is accepted,
    and the switch was offered once only."""
    desc = _describe("USAGE:\n    alacritty [OPTIONS]\n\nOPTIONS:\n"
                     "    -q\n            Reduces the level of verbosity (the min level is -qq)\n\n"
                     "    -v\n            Increases the level of verbosity (the max level is -vvv)\n\n"
                     "    -x\n            Exits at once (unlike -qq)\n\n"
                     "    -F\n            fix zipfile (-FF try harder)\n")
    # zip's -FF is a mode of its own, which "-F -F" is not (a re-check)
    assert {o.short: o.repeatable for o in desc.options} == {"-q": True, "-v": True, "-x": False, "-F": False}


def test_choices_after_available_and_between_bars_in_braces_are_read():
    """taze's "Available: default | major | minor" and gh's "Filter by state: {open|closed|all}":
    each program refuses any other word."""
    desc = _describe("Usage: tool [options]\n\nOptions:\n"
                     "  --mode <mode>        Update mode. Available: default | major | minor | patch\n"
                     "  -s, --state string   Filter by state: {open|closed|all} (default \"open\")\n"
                     "  --note <text>        Anything available to say\n")
    got = {o.long: o.choices for o in desc.options}
    assert got == {"--mode": ("default", "major", "minor", "patch"), "--state": ("open", "closed", "all"),
                   "--note": ()}
    # ss's "QUERY := {all|inet|tcp|udp}[,QUERY]" is a list of them ("tcp,udp"), not one (a re-check)
    listed = _describe("Usage: ss [ OPTIONS ]\n   -A, --query=QUERY, --socket=QUERY\n"
                       "       QUERY := {all|inet|tcp|udp}[,QUERY]\n")
    assert _option(listed, "--query").choices == ()


def test_noted_choices_after_can_be_and_unit_letters_and_an_optional_values_said_default():
    """Each from a re-check of this session's rules: numfmt's list stopped at its noted item
    (refusing "nearest"); unit letters were offered as the only values; ctest's said default of
    an optional value is what the flag alone means, not what leaving it out means."""
    desc = _describe("Usage: tool [OPTION]... [NUMBER]...\n\nOptions:\n"
                     "      --round=METHOD   use METHOD for rounding when scaling; METHOD can be:\n"
                     "                         up, down, from-zero (default), towards-zero, nearest\n"
                     "      --buffer=SIZE    Buffer size with a unit suffix (k, m, g)\n"
                     "      --show-only[=format]  Show what would run. Defaults to 'human'.\n")
    got = {o.long: (o.choices, o.default) for o in desc.options}
    assert got == {"--round": (("up", "down", "from-zero", "towards-zero", "nearest"), "from-zero"),
                   "--buffer": ((), None), "--show-only": ((), None)}


def test_optionators_list_types_defaults_and_either_choices_are_read():
    """eslint's help (optionator): "--ext [String]" is a list given again for more, its value
    needed; "Array" holds its items in one value; "- default: X" is the default; "either: a or
    b" its only values (an outside check: each was refused or misread)."""
    desc = _describe("eslint [options] file.js [file.js] [dir]\n\nBasic configuration:\n"
                     "  --ext [String]                   Specify additional file extensions to lint\n"
                     "  --fix-type Array                 Types of fixes to apply (directive, problem, suggestion)\n"
                     "  -f, --format String              Use a specific output format - default: stylish\n"
                     "  --cache-strategy String          Strategy to use - either: metadata or content - default: "
                     "metadata\n"
                     "  -h, --help                       Show help\n")
    got = {o.long: (o.takes_value, o.value_optional, o.repeatable, o.choices, o.default) for o in desc.options}
    assert got["--ext"] == (True, False, True, (), None)
    assert got["--fix-type"] == (True, False, False, (), None)
    assert got["--format"] == (True, False, False, (), "stylish")
    assert got["--cache-strategy"] == (True, False, False, ("metadata", "content"), "metadata")
