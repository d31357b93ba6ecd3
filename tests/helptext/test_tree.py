"""Subcommands become one described tool per leaf, found by running their help."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from toolbay.errors import NotHelpError
from toolbay.helptext import HelpRun, build_tool_schema, describe_tree

CORPUS = Path(__file__).parent / "corpus"
FRAMEWORK_TEXTS = Path(__file__).parent / "framework_texts"


def runner_over(folder: Path, on_stderr: bool = False):
    calls: list[list[str]] = []

    def run(argv: list[str]) -> HelpRun:
        calls.append(argv)
        words = argv[:-1]
        name = "long.txt" if not words else f"sub-{'_'.join(words)}.txt"
        if argv == ["-h"]:
            name = "short.txt" if (folder / "short.txt").exists() else "long.txt"
        path = folder / name
        data = path.read_bytes() if path.exists() else b"error: unrecognized subcommand\n"
        return HelpRun(b"", data, 2) if on_stderr else HelpRun(data, b"", 0)

    run.calls = calls  # type: ignore[attr-defined]
    return run


def test_a_tool_without_subcommands_is_one_leaf_named_as_given():
    tree = describe_tree(runner_over(CORPUS / "clap" / "ripgrep"), "rg")
    assert [(c.tool_name, c.path) for c in tree] == [("rg", ())]
    assert tree.skipped == []


def test_each_leaf_subcommand_is_described_by_its_own_help():
    tree = describe_tree(runner_over(CORPUS / "commander" / "strutil"), "strutil")
    assert [c.tool_name for c in tree] == ["strutil_split", "strutil_join"]
    split = tree[0].description
    assert [p.name for p in split.positionals] == ["string"]
    assert {o.long for o in split.options} >= {"--first", "--separator", "--mode", "--output"}


def test_nested_subcommands_are_named_by_their_path_and_broken_ones_are_reported():
    tree = describe_tree(runner_over(CORPUS / "cobra" / "gh"), "gh", max_depth=2)
    names = {c.tool_name for c in tree}
    assert {"gh_pr_create", "gh_pr_list", "gh_issue_list"} <= names
    assert "gh_completion" not in names and not any(n.endswith("_help") for n in names)
    assert any(s.path == ("auth",) for s in tree.skipped)


def test_help_printed_on_stderr_is_read():
    tree = describe_tree(runner_over(CORPUS / "goflag" / "greet", on_stderr=True), "greet")
    assert {o.long for o in tree[0].description.options} >= {"-name", "-loud"}


def test_help_on_stderr_beside_a_banner_on_stdout_is_read_for_the_root_and_its_subcommands():
    """An old-style program prints its banner on stdout and its usage on stderr: the banner alone
    was read, as no help, and the program served no tool."""
    strutil = CORPUS / "commander" / "strutil"

    def run(argv: list[str]) -> HelpRun:
        words = argv[:-1]
        name = "long.txt" if not words else f"sub-{'_'.join(words)}.txt"
        return HelpRun(b"strutil 1.0 (c) ACME\n", (strutil / name).read_bytes(), 0)

    tree = describe_tree(run, "strutil")
    assert [c.tool_name for c in tree] == [c.tool_name for c in describe_tree(runner_over(strutil), "strutil")]
    assert len(tree) > 1 and tree.skipped == []
    with pytest.raises(NotHelpError, match="strutil 1.0"):  # a banner with nothing on stderr is still no help
        describe_tree(lambda argv: HelpRun(b"strutil 1.0 (c) ACME\n", b"", 0), "strutil")


def test_a_subcommand_that_takes_no_help_flag_is_read_through_the_roots_help_command():
    """"hsub get --help" is an unknown option to it; "hsub help get" prints the help. Only the
    first was asked, so a program whose subcommands explain themselves that way served no tool."""
    root = b"Usage: hsub <command> [args]\n\nCommands:\n  get    Fetch a key\n  put    Store a key\n" \
           b"  help   Show help for a command\n"
    helps = {"get": b"Usage: hsub get [-q] KEY\n\nOptions:\n  -q, --quiet  say less\n",
             "put": b"Usage: hsub put KEY VALUE\n\nOptions:\n  -f, --force  overwrite\n"}

    def run(argv: list[str]) -> HelpRun:
        if argv in (["--help"], ["-h"]):
            return HelpRun(root, b"", 0)
        if argv[0] == "help" and argv[1:] and argv[1] in helps:
            return HelpRun(helps[argv[1]], b"", 0)
        return HelpRun(b"", f"hsub: unknown option {argv[-1]}\n".encode(), 2)

    tree = describe_tree(run, "hsub")
    got = {c.tool_name: [p.name for p in c.description.positionals] for c in tree}
    assert got == {"hsub_get": ["KEY"], "hsub_put": ["KEY", "VALUE"]} and tree.skipped == []
    # Without a help command in the root's list, "help SUB" is not tried.
    no_help_command = root.replace(b"  help   Show help for a command\n", b"")
    tree = describe_tree(lambda argv: HelpRun(no_help_command, b"", 0) if argv in (["--help"], ["-h"])
                         else run(argv), "hsub")
    assert list(tree) == [] and [s.path for s in tree.skipped] == [("get",), ("put",)]


def test_a_root_that_is_not_help_raises_not_help():
    with pytest.raises(NotHelpError):
        describe_tree(lambda argv: HelpRun(b"hello world\n", b"", 0), "hello")


def test_a_program_answering_every_subcommand_with_its_root_help_does_not_recurse_forever():
    root = (CORPUS / "cobra" / "hugo" / "long.txt").read_bytes()
    tree = describe_tree(lambda argv: HelpRun(root, b"", 0), "hugo", max_depth=3, time_budget_s=5)
    # The commands are then words of one program (as in docopt), which is the one tool.
    assert [(c.tool_name, c.path) for c in tree] == [("hugo", ())]
    assert tree.skipped == []


def test_docopt_forms_are_a_choice_of_the_first_positional_of_one_tool():
    root = (CORPUS / "docopt" / "naval_fate" / "long.txt").read_bytes()
    # docopt prints the whole document for "--help" after any command words.
    tree = describe_tree(lambda argv: HelpRun(root, b"", 0), "naval_fate")
    [command] = tree
    first = command.description.positionals[0]
    assert (first.name, first.choices[0], first.required, first.form) == ("command", "ship new <name>...", True, True)


def _runner(texts: dict[tuple[str, ...], bytes]):
    def run(argv: list[str]) -> HelpRun:
        return HelpRun(texts.get(tuple(argv[:-1]), b"error: no such command\n"), b"", 0)
    return run


_ROOT = (b"Text tools. Keywords: text, grep PermissionLevel: read\n\nUsage: kit <COMMAND>\n\n"
         b"Commands:\n  count  Count lines\n  wipe   Remove files\n  help   Print help\n\n"
         b"Options:\n  -h, --help  Print help information\n")


def test_conventions_in_the_root_help_hold_for_subcommands_that_do_not_say_their_own():
    count = b"Count lines\n\nUsage: kit count [FILE]\n\nOptions:\n  -h, --help  Print help information\n"
    wipe = (b"Remove files\nPermissionLevel: write\nKeywords: delete\n\nUsage: kit wipe <PATH>\n\n"
            b"Options:\n  -h, --help  Print help information\n")
    tree = describe_tree(_runner({(): _ROOT, ("count",): count, ("wipe",): wipe}), "kit")
    by_name = {c.tool_name: c.description for c in tree}
    assert by_name["kit_count"].keywords == ("text", "grep")
    assert by_name["kit_count"].permission_level == "read"
    assert by_name["kit_wipe"].keywords == ("delete",)
    assert by_name["kit_wipe"].permission_level == "write"


def test_a_subcommand_whose_help_run_was_stopped_is_skipped_saying_so_even_when_its_output_looks_like_help():
    folder = CORPUS / "commander" / "strutil"
    honest = runner_over(folder)

    def run(argv: list[str]) -> HelpRun:
        answer = honest(argv)
        if argv[:1] == ["join"]:  # prints a good start, then is stopped
            return HelpRun(answer.stdout, b"", None, stopped="timed out after 3 s")
        return answer

    tree = describe_tree(run, "strutil")
    assert [c.tool_name for c in tree] == ["strutil_split"]
    assert [(s.path, s.reason) for s in tree.skipped] == [(("join",), "its --help did not end: timed out after 3 s")]


def test_a_root_whose_help_runs_were_both_stopped_is_no_help():
    long = (CORPUS / "commander" / "strutil" / "long.txt").read_bytes()
    with pytest.raises(NotHelpError, match="^its --help did not end: timed out after 3 s$"):
        describe_tree(lambda argv: HelpRun(long, b"", None, stopped="timed out after 3 s"), "strutil")


@pytest.mark.parametrize(("folder", "name"), [("cobra/gh", "gh"), ("commander/strutil", "strutil"),
                                              ("clap/ripgrep", "rg")])
def test_reading_help_on_several_threads_describes_the_same_tree(folder: str, name: str) -> None:
    one_at_a_time = describe_tree(runner_over(CORPUS / folder), name, max_depth=2)
    at_once = describe_tree(runner_over(CORPUS / folder), name, max_depth=2, workers=4)
    assert list(at_once) == list(one_at_a_time)
    assert at_once.skipped == one_at_a_time.skipped


def test_with_workers_a_commands_subcommands_help_runs_at_once() -> None:
    """A Go program's runtime takes tens of milliseconds to start, for each of its runs: a cold
    start waited on eight of them, one after the other."""
    run = runner_over(CORPUS / "commander" / "strutil")
    # Each subcommand's help waits for the other's to have begun: one at a time, neither could.
    both_begun = threading.Barrier(2, timeout=60)

    def meeting(argv: list[str]) -> HelpRun:
        if argv in (["split", "--help"], ["join", "--help"]):
            both_begun.wait()
        return run(argv)

    tree = describe_tree(meeting, "strutil", workers=2)
    assert [c.tool_name for c in tree] == ["strutil_split", "strutil_join"]


def test_with_workers_the_time_budget_still_bounds_the_subcommands_read() -> None:
    tree = describe_tree(runner_over(CORPUS / "cobra" / "gh"), "gh", max_depth=2, time_budget_s=0, workers=4)
    assert list(tree) == []
    assert {s.reason for s in tree.skipped} == {"time budget for reading help used up"}


def test_the_programs_own_options_are_offered_on_its_subcommands_tools_before_the_subcommand():
    # argparse (as click, urfave/cli and argh) lists "--config" only in the program's help, and
    # takes it only before the subcommand: "tool --config c.toml push": unreachable from a tool.
    texts = {
        (): b"usage: tool [-h] [--config CONFIG] {push,pull} ...\n\npositional arguments:\n  {push,pull}\n"
            b"    push  send\n    pull  fetch\n\noptions:\n  -h, --help       show this help message and exit\n"
            b"  --config CONFIG  the settings file\n",
        ("push",): b"usage: tool push [-h] [--force] TARGET\n\npositional arguments:\n  TARGET\n\noptions:\n"
                   b"  -h, --help  show this help message and exit\n  --force     overwrite\n",
        ("pull",): b"usage: tool pull [-h] [--config CONFIG]\n\noptions:\n"
                   b"  -h, --help  show this help message and exit\n  --config CONFIG  its own settings file\n",
    }

    def run(argv: list[str]) -> HelpRun:
        return HelpRun(texts[tuple(a for a in argv if not a.startswith("-"))], b"", 0)

    tools = {command.tool_name: command.description for command in describe_tree(run, "tool")}
    pushing = build_tool_schema(tools["tool_push"])
    argv = pushing.to_argv({"config": "c.toml", "force": True, "target": "t"})
    assert (argv[:argv.leading], argv[argv.leading:]) == (["--config", "c.toml"], ["--force", "t"])
    # A subcommand that lists an option of that name takes it as its own, after the subcommand.
    pulling = build_tool_schema(tools["tool_pull"]).to_argv({"config": "p.toml"})
    assert (pulling.leading, list(pulling)) == (0, ["--config", "p.toml"])


def test_a_subcommand_keeps_what_the_program_requires_and_is_said_to_do_what_the_list_says():
    # truth_programs/goargsub (go-arg): Store string `arg:"--store,required"` on the program, and
    # commands get and set ("get a key"). Each subcommand's tool offered --store as optional, and
    # the program refused every call without it ("--store is required"); and each was described
    # by the program's own description, which go-arg prints again in a command's help.
    tree = {command.path: command for command in describe_tree(
        runner_over(Path(__file__).parent / "framework_texts" / "go-arg-ga"), "ga")}
    assert set(tree) == {("get",), ("set",)}
    get = tree[("get",)].description
    assert get.about == "get a key" and tree[("set",)].description.about == "set a key"
    assert "store" in build_tool_schema(get).input_schema["required"]


@pytest.mark.parametrize(("folder", "required", "nested_call", "nested_argv"), [
    # clap 4.0.32 (derive): a required `--profile` on the program, `fetch`, and `remote add` with
    # its own `-t/--track`. `c4 remote --help` writes "c4 --profile <PROFILE> remote <COMMAND>";
    # `c4 remote add --help` does not name --profile at all.
    ("clap-4.0.32-c4", "profile", {"profile": "p", "name": "origin", "url": "u", "track": "t"},
     ["--profile", "p", "remote", "add", "--track", "t", "origin", "u"]),
    # structopt 0.3 on clap 2: a required `--name` and a repeatable `-t/--tag` on the program, and
    # `remote add` whose `-t` is `--track`: "so --name <name> fetch [FLAGS] <remote>". `--tag`
    # takes words up to the next flag, so it goes first: a structopt 0.3.26 program of these
    # options refused "so --name N --tag T remote add ..." ("Found argument '--track' which
    # wasn't expected") and printed `Opt { name: "N", tag: ["T"], cmd: Some(Remote(Add {
    # track: Some("x"), name: "origin", url: "u" })) }` for the argv here.
    ("structopt-0.3-clap-2-so", "name", {"name": "N", "name_arg": "origin", "url": "u", "tag": ["T"], "track": "x"},
     ["--tag", "T", "--name", "N", "remote", "add", "--track", "x", "origin", "u"]),
])
def test_the_programs_required_option_written_before_a_subcommands_word_is_given_there_at_every_depth(
        folder: str, required: str, nested_call: dict[str, object], nested_argv: list[str]):
    """clap writes the program's required options before the subcommand in a subcommand's usage:
    they were read as the subcommand's own, given after its word (clap: "Found argument '--name'
    which wasn't expected"), and lost a level further down, where every call was refused for
    lack of them. And a program's option whose short name a subcommand uses for its own was
    dropped whole; it keeps its long name."""
    tools = {command.tool_name: build_tool_schema(command.description)
             for command in describe_tree(runner_over(FRAMEWORK_TEXTS / folder), "p")}
    fetch = tools["p_fetch"].to_argv({required: "x", "remote": "origin"})
    assert fetch[:fetch.leading] == [f"--{required}", "x"] and "fetch" not in fetch[:fetch.leading]
    adding = tools["p_remote_add"]
    assert required in adding.input_schema["required"]
    argv = adding.to_argv(nested_call)
    assert [*argv[:argv.leading], "remote", "add", *argv[argv.leading:]] == nested_argv, list(argv)


@pytest.mark.parametrize(("folder", "tools"), [
    # truth_programs/sade: prog.command('remote add <name> <url>') beside 'build <src> [dest]';
    # "sade1 remote --help" says "Invalid command: remote".
    ("sade-1.8-sade1", {"p_build": ["src"], "p_remote_add": ["name", "url"]}),
    # truth_programs/oclif/ocl3 (@oclif/core 4.14, topicSeparator " "): the topic "remote" holds
    # one command, which its help lists as "remote add"; "ocl remote remote --help" is an error.
    ("oclif-core-4.14-ocl3", {"p_remote_add": ["mode", "name"], "p_ra": ["mode", "name"]}),
    # The same without the alias: the program's help lists its topic alone ("TOPICS"), and was
    # no help; then the topic, listing "remote add", was taken for its program's help said again.
    ("oclif-core-4.14-ocl", {"p_remote_add": ["mode", "name"]}),
    # truth_programs/sade/sade2.js: 'remote <name>' and 'remote add <name> <url>' both: the first
    # word of the second is a command of its own, and "remote add" was taken for it again.
    ("sade-1.8-sade2", {"p_remote": ["name"], "p_remote_add": ["name", "url"]}),
])
def test_a_command_listed_by_several_words_alone_is_run_by_all_of_them_when_its_first_is_no_command(
        folder: str, tools: dict[str, list[str]]):
    """Only where two listed commands shared their first word was a command of several words run
    by all of them: alone, its first word was the command, whose help was an error, and the
    command was lost (sade), or the topic ran itself again (oclif)."""
    tree = describe_tree(runner_over(FRAMEWORK_TEXTS / folder), "p")
    described = {command.tool_name: build_tool_schema(command.description).input_schema for command in tree}
    assert {name: schema.get("required") for name, schema in described.items()} == tools
    assert ("remote", "add") in {command.path for command in tree}
    # sade's "Description" heading is a heading, not the start of what the command does
    assert all(not command.description.about.startswith("Description") for command in tree)


def test_a_docopt_program_answering_a_command_words_help_with_its_usage_is_one_tool():
    # Rust's docopt 1.1.1 (shipdoc, built for WebAssembly) answers "shipdoc ship --help" with
    # "Invalid arguments." and its usage on stderr, exit 1: that was read as the help of a tool
    # shipdoc_ship (and shipdoc_mine), whose every call put "ship" before the form's own "ship".
    root = (FRAMEWORK_TEXTS / "docopt-rs-1.1.1-shipdoc.txt").read_bytes()
    refusal = (FRAMEWORK_TEXTS / "docopt-rs-1.1.1-shipdoc-ship-help.txt").read_bytes()

    def run(argv: list[str]) -> HelpRun:
        return HelpRun(root, b"", 0) if len(argv) == 1 else HelpRun(b"", refusal, 1)

    [command] = describe_tree(run, "shipdoc")
    assert command.path == () and command.tool_name == "shipdoc"
    argv = build_tool_schema(command.description).to_argv(
        {"command": "ship <name> move <x> <y>", "name": ["Titanic"], "x": "1", "y": "2", "speed": 15})
    assert argv == ["--speed=15", "ship", "Titanic", "move", "1", "2"]
    # A command word whose help is no help at all leaves the forms' tool too.
    [alone] = describe_tree(lambda argv: HelpRun(root, b"", 0) if len(argv) == 1 else HelpRun(b"", b"", 1), "shipdoc")
    assert alone.path == ()


def test_a_subcommand_under_the_programs_usage_line_with_options_of_its_own_is_a_tool():
    # Some programs print one usage line for every command: a command whose help lists options
    # the program's does not is a command of its own, not the program's usage said again.
    root = b"Usage: box [OPTIONS] COMMAND\n\nCommands:\n  pack  Pack files\n  list  List files\n\n" \
           b"Options:\n  -h, --help  Show help\n"
    pack = b"Usage: box [OPTIONS] COMMAND\n\nPack files.\n\nOptions:\n  -l, --level N  Compression level\n" \
           b"  -h, --help  Show help\n"
    tree = describe_tree(lambda argv: HelpRun(root if len(argv) == 1 else pack if argv[0] == "pack" else root,
                                              b"", 0), "box")
    assert [command.path for command in tree] == [("pack",)]


def test_a_long_programs_tools_are_named_within_64_characters_and_keep_their_commands_words():
    """A 60-character file's subcommands were served as tools of 64 to 69 characters, which
    model APIs refuse (an outside check): the program's name is cut, the command's words kept."""
    tree = describe_tree(runner_over(CORPUS / "commander" / "strutil"), "p" * 60)
    names = [command.tool_name for command in tree]
    assert names and all(len(name) <= 64 for name in names) and len(set(names)) == len(names)
    assert [name.rpartition("_")[2] for name in names] == ["split", "join"]
