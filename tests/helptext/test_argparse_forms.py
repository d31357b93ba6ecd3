"""argparse forms read as argparse defines them: each help text is printed by a real
``argparse.ArgumentParser`` and the reading is checked against the parser's own actions."""

from __future__ import annotations

import argparse

import pytest

from toolbay.helptext import build_tool_schema, describe_help


def _positionals(parser: argparse.ArgumentParser) -> list[tuple[str, bool, bool]]:
    """(name, required, variadic) of each positional as the parser defines it."""
    out = []
    for action in parser._actions:
        if action.option_strings:
            continue
        required = action.nargs not in ("?", "*", argparse.REMAINDER)
        variadic = action.nargs in ("*", "+", argparse.REMAINDER)
        out.append((action.dest, required, variadic))
    return out


def _read(parser: argparse.ArgumentParser) -> list[tuple[str, bool, bool]]:
    desc = describe_help(parser.format_help().encode())
    return [(p.name.split()[0], p.required, p.variadic) for p in desc.positionals]


def _parser(prog: str) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=prog)


def test_a_lone_remainder_after_an_optional_positional_is_a_positional_of_its_own():
    parser = _parser("trace")
    parser.add_argument("-c", "--count", action="store_true")
    parser.add_argument("progname", nargs="?", help="file to run as main program")
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help="arguments to the program")
    assert _read(parser) == _positionals(parser) == [("progname", False, False), ("arguments", False, True)]


def test_a_remainder_with_its_own_metavar_is_optional_and_takes_the_rest():
    parser = _parser("runner")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("app", nargs=argparse.REMAINDER, metavar="app ...", help="the app and its arguments")
    assert _read(parser) == _positionals(parser) == [("app", False, True)]


def test_an_optional_choice_positional_is_not_required():
    parser = _parser("keys")
    parser.add_argument("operation", nargs="?", choices=["get", "set", "del"])
    parser.add_argument("service", nargs="?")
    desc = describe_help(parser.format_help().encode())
    assert [(p.required, p.choices) for p in desc.positionals] == [(False, ("get", "set", "del")), (False, ())]


def test_a_positional_listed_under_another_name_than_in_the_usage_takes_its_repeat_from_the_usage():
    parser = argparse.ArgumentParser(prog="fmt", usage="%(prog)s [OPTIONS] FILE [FILE ...]")
    parser.add_argument("filename", nargs="+", help="file(s) to format")
    parser.add_argument("-o", "--outfile", metavar="FILE")
    assert _read(parser) == _positionals(parser) == [("filename", True, True)]


def test_a_positional_in_an_argument_group_is_found_with_its_description():
    parser = _parser("auto")
    general = parser.add_argument_group("General options")
    general.add_argument("-f", "--file", help="the file to read")
    general.add_argument("posargs", nargs=argparse.REMAINDER, help="Arguments passed through to the session.")
    desc = describe_help(parser.format_help().encode())
    assert _read(parser) == _positionals(parser) == [("posargs", False, True)]
    assert desc.positionals[0].description == "Arguments passed through to the session."
    assert [o.long for o in desc.options if o.long != "--help"] == ["--file"]


def test_a_choice_list_of_one_value_is_an_enum_of_that_value():
    parser = _parser("venv")
    parser.add_argument("--discovery", choices=["builtin"], default="builtin")
    parser.add_argument("--name", metavar="{NAME}")
    options = {o.long: o for o in describe_help(parser.format_help().encode()).options}
    assert options["--discovery"].choices == ("builtin",)
    assert options["--name"].choices == ()


def test_optparse_dots_after_a_bracketed_argument_still_repeat_it():
    desc = describe_help(b"Usage: prof.py [-o output_file_path] [-m module | scriptfile] [arg] ...\n\n"
                         b"Options:\n  -h, --help            show this help message and exit\n"
                         b"  -o OUTFILE, --outfile=OUTFILE\n                        Save stats to <outfile>\n")
    assert [(p.name, p.required, p.variadic) for p in desc.positionals][-1] == ("arg", False, True)


def test_subparsers_with_a_metavar_list_their_commands_under_it():
    """add_subparsers(metavar="<command>"): the usage says "<command> ...", the listing names the
    metavar alone on a line and the commands one step under it, aliases in parentheses."""
    parser = argparse.ArgumentParser(prog="sbom", description="Makes a bill of materials.")
    commands = parser.add_subparsers(metavar="<command>")
    commands.add_parser("environment", aliases=["env", "venv"], help="From an environment")
    commands.add_parser("requirements", help="From requirements")
    commands.add_parser("poetry", help="From a Poetry project")
    desc = describe_help(parser.format_help().encode())
    assert [s.name for s in desc.subcommands] == ["environment", "requirements", "poetry"]
    assert desc.positionals == ()


def test_subparsers_of_one_command_are_a_command_and_a_choice_of_one_stays_a_value():
    """"{launch}" was read as a positional taking the word "launch": the command's own options
    were never offered (bm25's "mcp launch"). Made by argparse itself, as the truth."""
    parser = argparse.ArgumentParser(prog="bm25 mcp")
    commands = parser.add_subparsers(help="MCP actions")
    commands.add_parser("launch", help="Launch the MCP server")
    desc = describe_help(parser.format_help().encode())
    assert [s.name for s in desc.subcommands] == ["launch"] and desc.positionals == ()
    single = argparse.ArgumentParser(prog="pick")
    single.add_argument("mode", choices=["fast"], help="how to run")
    desc = describe_help(single.format_help().encode())
    assert desc.subcommands == () and [p.choices for p in desc.positionals] == [("fast",)]


def test_several_values_after_one_flag_reach_the_program_as_its_parser_reads_them():
    """``--exclude PAT [PAT ...]`` (nargs="+") took one value; given twice, argparse keeps the
    last list only. The argv built from the schema is parsed by the program's own parser."""
    from toolbay.helptext import build_tool_schema

    parser = _parser("lint")
    parser.add_argument("--exclude", nargs="+", help="patterns to skip")
    parser.add_argument("--level", choices=["low", "high"], nargs="+", help="levels")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("paths", nargs="*", help="files to check")
    schema = build_tool_schema(describe_help(parser.format_help().encode()))
    exclude = schema.input_schema["properties"]["exclude"]
    assert (exclude["type"], exclude["minItems"]) == ("array", 1)
    assert schema.input_schema["properties"]["level"]["items"] == {"type": "string", "enum": ["low", "high"]}
    argv = schema.to_argv({"exclude": ["*.tmp", "build"], "level": ["low", "high"], "quiet": True,
                           "paths": ["a.py", "b.py"]})
    parsed = parser.parse_args(argv)
    assert (parsed.exclude, parsed.level, parsed.quiet, parsed.paths) == (
        ["*.tmp", "build"], ["low", "high"], True, ["a.py", "b.py"])
    # Without positionals after it, no "--" is needed.
    assert parser.parse_args(schema.to_argv({"exclude": ["x"]})).exclude == ["x"]


def _exclusive_truth(parser: argparse.ArgumentParser) -> dict[str, tuple[set[str], bool]]:
    """Each option's key (its long flag, else its short) with the options its parser's
    mutually exclusive groups forbid beside it, and whether its group is required."""
    def key(action: argparse.Action) -> str:
        return next((s for s in action.option_strings if s.startswith("--")), action.option_strings[0])

    truth: dict[str, tuple[set[str], bool]] = {}
    for group in parser._mutually_exclusive_groups:
        keys = [key(action) for action in group._group_actions]
        for own in keys:
            truth[own] = ({other for other in keys if other != own}, group.required)
    return truth


def test_mutually_exclusive_groups_are_read_as_the_parser_defines_them():
    parsers = []
    verbosity = _parser("talk")
    loudness = verbosity.add_mutually_exclusive_group()
    loudness.add_argument("-v", "--verbose", action="store_true", help="say more")
    loudness.add_argument("-q", "--quiet", action="store_true", help="say less")
    output = verbosity.add_mutually_exclusive_group(required=True)
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--yaml", action="store_true", help="print YAML")
    output.add_argument("--table", metavar="COLUMNS", help="print a table of COLUMNS")
    verbosity.add_argument("--limit", type=int, default=5, help="at most this many")
    parsers.append(verbosity)
    sources = _parser("fetch")
    source = sources.add_mutually_exclusive_group()
    source.add_argument("-u", metavar="URL", help="from a URL")
    source.add_argument("-f", metavar="FILE", help="from a file")
    sources.add_argument("name", help="what to fetch")
    parsers.append(sources)
    for parser in parsers:
        desc = describe_help(parser.format_help().encode())
        read = {o.key: (set(o.exclusive_with), o.one_required) for o in desc.options if o.exclusive_with}
        assert read == _exclusive_truth(parser), parser.format_help()


def test_a_two_dash_name_after_a_one_dash_name_of_several_letters_is_the_option_s_name():
    """autoflake, flynt, nox, wget, Maven and shfmt write "-cd, --check-diff", "-nv, --no-verbose":
    the option went by its first name, so the model saw properties called "cd" and "nv". The
    two-dash name is the one to go by; the other stays the option's second name, which the usage
    may write in a group of alternatives ("[--check | -cd]"). The truth is argparse itself: it
    parses the argv built for ``check_diff`` and ``line_length``."""
    parser = _parser("autoflake")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="return error code if changes are needed")
    group.add_argument("-cd", "--check-diff", action="store_true", help="also display file diffs")
    parser.add_argument("-ll", "--line-length", type=int, default=88, help="the line length limit")
    desc = describe_help(parser.format_help().encode())
    named = {o.long: o.short for o in desc.options}
    assert named["--check-diff"] == "-cd" and named["--line-length"] == "-ll"
    (check,) = [o for o in desc.options if o.long == "--check"]
    assert check.exclusive_with == ("--check-diff",)
    schema = build_tool_schema(desc)
    assert {"check_diff", "line_length"} <= set(schema.input_schema["properties"])
    parsed = parser.parse_args(schema.to_argv({"check_diff": True, "line_length": 100}))
    assert (parsed.check_diff, parsed.check, parsed.line_length) == (True, False, 100)


def test_nargs_n_with_the_default_metavar_takes_n_words_after_its_flag():
    """argparse writes nargs=2 with its default metavar as "--pair PAIR PAIR": read as one value,
    "--pair 1 2" could not be built, and the program refused what was ("--pair '1 2'")."""
    parser = _parser("shapes")
    parser.add_argument("--pair", nargs=2, help="two words")
    parser.add_argument("-r", "--range", nargs=2, type=int, help="from and to")
    parser.add_argument("--xy", nargs=3, metavar="xy", help="a point")
    parser.add_argument("--size", nargs=2, metavar=("W", "H"), help="width and height")
    parser.add_argument("--name", help="a name")
    parser.add_argument("--mode", nargs=2, choices=["a", "b"], help="two modes")  # "--mode {a,b} {a,b}"
    desc = describe_help(parser.format_help().encode())
    truth = {action.option_strings[-1]: action.nargs for action in parser._actions if isinstance(action.nargs, int)
             and action.nargs > 0}
    assert {o.long: o.values_per_flag for o in desc.options if o.long in truth} == truth
    assert next(o for o in desc.options if o.long == "--name").values_per_flag == 1
    schema = build_tool_schema(desc)
    assert schema.input_schema["properties"]["mode"]["items"]["enum"] == ["a", "b"]  # was ["a", "b} {a"]
    argv = schema.to_argv({"pair": ["a", "b"], "range": ["1", "2"], "xy": ["x", "y", "z"],
                           "size": ["3", "4"], "name": "n", "mode": ["b", "a"]})
    parsed = parser.parse_args(argv)
    assert (parsed.pair, parsed.range, parsed.xy, parsed.size, parsed.name, parsed.mode) == (
        ["a", "b"], [1, 2], ["x", "y", "z"], ["3", "4"], "n", ["b", "a"])


def test_a_remark_in_parentheses_after_a_switch_in_the_description_is_no_value():
    """isympy's description documents its switches as a manual does, "-a, --auto-symbols
    (requires at least IPython 0.11)" on a line of its own: the remark was read as the value
    the switch takes, and a call's "--auto-symbols VALUE" left VALUE an argument too many."""
    parser = argparse.ArgumentParser(prog="isympy", formatter_class=argparse.RawDescriptionHelpFormatter,
                                     usage="isympy [options] -- [ipython options]",
                                     description="Python shell for SymPy.\n\nCOMMAND LINE OPTIONS\n"
                                                 "--------------------\n\n"
                                                 "-a, --auto-symbols (requires at least IPython 0.11)\n\n"
                                                 "    Automatically create missing symbols.\n\n"
                                                 "-D, --debug\n\n    Enable debugging output.\n")
    parser.add_argument("-a", "--auto-symbols", action="store_true", help="automatically construct missing symbols")
    parser.add_argument("-D", "--debug", action="store_true", help="enable debugging output")
    desc = describe_help(parser.format_help().encode())
    options = {o.long: o for o in desc.options}
    assert not options["--auto-symbols"].takes_value and not options["--debug"].takes_value
    assert parser.parse_args(build_tool_schema(desc).to_argv({"auto_symbols": True})).auto_symbols is True


def test_a_remainder_after_a_required_positional_is_the_rest_and_the_positional_one_word():
    """``run [-h] program ...`` over "program" and "args" (nargs=REMAINDER) was read as "program"
    repeated and optional, and "args" one required word: running a program alone was refused
    ("The argument 'args' is required"; an outside check). Each argv built is parsed by the
    parser itself."""
    parser = _parser("run")
    parser.add_argument("program", help="program to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    assert _read(parser) == _positionals(parser) == [("program", True, False), ("args", False, True)]
    schema = build_tool_schema(describe_help(parser.format_help().encode()))
    for given in ({"program": "ls"}, {"program": "python3", "args": ["-V"]},
                  {"program": "echo", "args": ["a b", "--x", "-y"]}):
        parsed = vars(parser.parse_args(schema.to_argv(given)))
        assert parsed == {"args": [], **given}, (given, list(schema.to_argv(given)))


def test_an_option_of_several_words_before_a_subcommands_word_does_not_take_that_word():
    """argparse's nargs="+" option given before a subcommand ("--tags a b run w") took the
    command's word for one of its values, and every such call was refused (a re-check). It goes
    before the program's other options, which end its values; alone, one value is written after
    "=", and more are refused saying why. Each argv is parsed by the parser itself."""
    from toolbay.helptext import HelpRun, describe_tree

    parser = _parser("x")
    parser.add_argument("--tags", nargs="+")
    parser.add_argument("--url")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run it")
    run.add_argument("what")
    helps = {(): parser.format_help(), ("run",): run.format_help()}
    [command] = describe_tree(lambda argv: HelpRun(helps[tuple(argv[:-1])].encode(), b"", 0), "x")
    schema = build_tool_schema(command.description)
    for given in ({"what": "w", "tags": ["a", "b"], "url": "u"}, {"what": "w", "tags": ["a"]}):
        argv = schema.to_argv(given).around(list(command.path))
        assert vars(parser.parse_args(argv)) == {"url": None, **given, "command": "run"}, argv
    with pytest.raises(ValueError, match="'tags', given right before the subcommand's word, would take that word"):
        schema.to_argv({"what": "w", "tags": ["a", "b"]})
