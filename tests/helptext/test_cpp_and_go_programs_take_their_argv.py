"""C++ (CLI11, cxxopts, gflags, Boost.Program_options), C (argtable2) and Go (kong, go-arg, go-flags,
cobra, urfave/cli) programs: the argv a schema builds, read by the frameworks themselves.

The programs of ``truth_programs/<framework>`` are built here (where g++ with the library's
headers, or Go with its sources as Debian packages them, is installed; skipped elsewhere),
described from the ``--help`` they print now, and called through the schema's argv with a
value for every option: each prints what its framework parsed, which must be the call's
values. CLI11 joins the default, the allowed values and REQUIRED to a value's type
(``TEXT:{fit,fill,crop}=fit``, ``INT REQUIRED``); a repeated CLI11 option takes every word up
to the next flag, so positionals must come after ``--``. kong writes a default where a
value's name would be (``--output="out.png"``) and a list as ``--tag=TAG,...``. A switch on
by default is turned off as ``--color=false`` (go-arg and cxxopts refuse ``--no-color``), and
gflags' as ``-nocolor``. gflags writes "-width (Width of the box) type: int32 default: 640";
Boost "-l [ --level ] [=arg(=1)] (=0)", whose value, which may be left out, goes after "=".
pflag writes a counter as "-v, --verbose count"; urfave/cli lists a command of a category under
the category's name ("   queries:"); kong lists a group's commands by their whole path. Those
programs print what they parsed as JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import KEPT_BETWEEN_RUNS
from toolbay.helptext import build_tool_schema, describe_help
from toolbay.helptext.tree import HelpRun, describe_tree

PROGRAMS = Path(__file__).resolve().parent / "truth_programs"
CLI11_HEADER = Path("/usr/include/CLI/CLI.hpp")
CXXOPTS_HEADER = Path("/usr/include/cxxopts.hpp")
GFLAGS_HEADER = Path("/usr/include/gflags/gflags.h")
BOOST_HEADER = Path("/usr/include/boost/program_options.hpp")
ARGTABLE2_HEADER = Path("/usr/include/argtable2.h")
GO_SOURCES = Path("/usr/share/gocode/src/github.com")


def _kept(source: Path, build: Callable[[Path], None]) -> Path:
    """The program built from ``source`` by ``build(output)``, kept between runs beside the
    tests' other caches (built again when its source changes)."""
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    folder = (KEPT_BETWEEN_RUNS or Path(tempfile.gettempdir())) / "truth-programs"
    binary = folder / f"{source.parent.name}-{digest}"
    if not binary.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = binary.with_suffix(f".{os.getpid()}")
        build(partial)
        partial.replace(binary)  # whole or not at all, were two test processes to build it at once
    return binary


def _cpp(framework: str, header: Path, package: str, libraries: tuple[str, ...] = ()) -> Path:
    if shutil.which("g++") is None or not header.exists():
        pytest.skip(f"g++ and {framework}'s headers (Debian's {package}) are not installed here")
    source = PROGRAMS / framework / "resize.cpp"
    return _kept(source, lambda output: _run(["g++", "-std=c++17", "-O0", str(source), "-o", str(output), *libraries],
                                             source.parent))


def _c(framework: str, header: Path, package: str, libraries: tuple[str, ...] = ()) -> Path:
    if shutil.which("gcc") is None or not header.exists():
        pytest.skip(f"gcc and {framework}'s headers (Debian's {package}) are not installed here")
    source = PROGRAMS / framework / "resize.c"
    return _kept(source, lambda output: _run(["gcc", "-O0", str(source), "-o", str(output), *libraries],
                                             source.parent))


def _go(framework: str, sources: str, package: str) -> Path:
    if shutil.which("go") is None or not (GO_SOURCES / sources).is_dir():
        pytest.skip(f"Go and {framework}'s sources (Debian's {package}) are not installed here")
    source = PROGRAMS / framework / "main.go"

    def build(output: Path) -> None:
        with tempfile.TemporaryDirectory() as gopath:
            # Debian's Go packages are sources for GOPATH mode: nothing is fetched. The folder is
            # the program's name, which go-arg prints in its usage.
            folder = Path(gopath) / "src" / "resize"
            folder.mkdir(parents=True)
            shutil.copy(source, folder / "main.go")
            _run(["go", "build", "-o", str(output), "."], folder,
                 {**os.environ, "GOPATH": f"{gopath}:/usr/share/gocode", "GO111MODULE": "off", "GOFLAGS": "",
                  "GOCACHE": str(Path(gopath) / "cache"), "CGO_ENABLED": "0"})

    return _kept(source, build)


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    subprocess.run(argv, check=True, cwd=cwd, env=env, timeout=300, capture_output=True)


def _schema(program: Path, dialect: str) -> Any:
    described = describe_help(subprocess.run([program, "--help"], capture_output=True, timeout=60).stdout)
    assert described.dialect == dialect
    return build_tool_schema(described)


CALL = {"output": "o.png", "width": 3, "scale": 1.5, "verbose": True, "mode": "crop", "retries": 2,
        "tag": ["a", "b"], "inputs": ["x.png", "y.png"]}


def test_a_call_reaches_a_cli11_program_with_every_value_it_gives() -> None:
    program = _cpp("cli11", CLI11_HEADER, "libcli11-dev")
    schema = _schema(program, "cli11")
    properties = schema.input_schema["properties"]
    assert properties["mode"]["enum"] == ["fit", "fill", "crop"] and properties["mode"]["default"] == "fit"
    assert properties["width"]["type"] == "integer" and properties["width"]["default"] == 640
    assert "retries" in schema.input_schema["required"]
    done = subprocess.run([program, *schema.to_argv(CALL)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["output=o.png", "width=3", "scale=1.5", "verbose=1", "mode=crop", "retries=2",
                                   "tags=2", "level=0", "inputs=2"]


def test_a_call_reaches_a_kong_program_with_every_value_it_gives() -> None:
    program = _go("kong", "alecthomas/kong", "golang-github-alecthomas-kong-dev")
    schema = _schema(program, "kong")
    properties = schema.input_schema["properties"]
    assert properties["output"]["default"] == "out.png" and properties["mode"]["default"] == "fit"
    assert properties["tag"]["type"] == "array" and properties["scale"]["type"] == "number"
    done = subprocess.run([program, *schema.to_argv({**CALL, "mode": "fill"})], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("{Output:o.png Width:3 Scale:1.5 Verbose:true Mode:fill Retries:2 Tag:[a b] "
                                   "Inputs:[x.png y.png]}")


def test_a_call_reaches_a_go_flags_program_with_every_value_it_gives() -> None:
    """jessevdk/go-flags names no value ("-w, --width=   Width ... (default: 640)"), so the
    default gives its type, and lists its operands as "INPUT:   Images to resize"."""
    program = _go("goflags", "jessevdk/go-flags", "golang-github-jessevdk-go-flags-dev")
    schema = build_tool_schema(describe_help(subprocess.run([program, "--help"], capture_output=True,
                                                            timeout=60).stdout))
    properties = schema.input_schema["properties"]
    assert properties["mode"]["enum"] == ["fit", "fill", "crop"] and properties["mode"]["default"] == "fit"
    assert properties["width"]["type"] in ("integer", "number") and properties["width"]["default"] == 640
    assert schema.input_schema["required"] == ["input"]
    call = {**CALL, "tag": "a", "input": CALL["inputs"]}
    del call["inputs"]
    done = subprocess.run([program, *schema.to_argv(call)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("{Output:o.png Width:3 Scale:1.5 Verbose:true Mode:crop Retries:2 Tag:[a] "
                                   "Args:{Inputs:[x.png y.png]}}")


def test_a_call_reaches_an_argtable2_program_and_repeats_what_its_usage_repeats() -> None:
    """argtable2 (C) writes "[-t <tag>]..." for an option that may be given several times and
    lists it as "-t, --tag=<tag>": only the usage says it repeats, so a call could give one tag."""
    program = _c("argtable2", ARGTABLE2_HEADER, "libargtable2-dev", ("-largtable2",))
    schema = build_tool_schema(describe_help(subprocess.run([program, "--help"], capture_output=True,
                                                            timeout=60).stdout))
    properties = schema.input_schema["properties"]
    assert properties["tag"]["type"] == "array" and properties["width"]["type"] == "integer"
    assert schema.input_schema["required"] == ["retries", "image"]
    call = {**CALL, "image": CALL["inputs"]}
    del call["inputs"], call["mode"]
    done = subprocess.run([program, *schema.to_argv(call)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("output=o.png width=3 scale=1.5 verbose=1 retries=2 tags=2 tag=a tag=b "
                                   "input=x.png input=y.png")


def test_a_call_reaches_a_go_arg_program_and_turns_its_switch_off_as_go_arg_takes_it() -> None:
    program = _go("goarg", "alexflint/go-arg", "golang-github-alexflint-go-arg-dev")
    schema = _schema(program, "goarg")
    assert schema.input_schema["properties"]["color"]["default"] is True
    call = {"output": "o.png", "width": 3, "scale": 1.5, "verbose": True, "color": False, "retries": 2, "tag": "a",
            "inputs": ["x.png", "y.png"]}
    argv = schema.to_argv(call)
    assert "--color=false" in argv
    done = subprocess.run([program, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("{Output:o.png Width:3 Scale:1.5 Verbose:true Color:false Retries:2 Tag:[a] "
                                   "Inputs:[x.png y.png]}")


def test_a_call_reaches_a_cxxopts_program_and_turns_its_switch_off_as_cxxopts_takes_it() -> None:
    program = _cpp("cxxopts", CXXOPTS_HEADER, "libcxxopts-dev")
    schema = _schema(program, "cxxopts")
    properties = schema.input_schema["properties"]
    assert properties["color"]["default"] is True and properties["width"]["default"] == 640
    argv = schema.to_argv({"output": "o.png", "width": 3, "verbose": True, "mode": "crop", "tag": "a",
                           "color": False, "image": ["x.png", "y.png"]})
    assert "--color=false" in argv
    done = subprocess.run([program, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["output=o.png", "width=3", "verbose=1", "mode=crop", "color=0", "tags=1"]


def test_a_call_reaches_a_gflags_program_with_every_value_it_gives() -> None:
    program = _cpp("gflags", GFLAGS_HEADER, "libgflags-dev", ("-lgflags",))
    # --help lists gflags' own flags too (--flagfile, --helpmatch, ...), each read as what it is.
    schema = _schema(program, "gflags")
    properties = schema.input_schema["properties"]
    assert properties["width"]["type"] == "integer" and properties["width"]["default"] == 640
    assert properties["color"]["default"] is True and properties["helpmatch"]["type"] == "string"
    argv = schema.to_argv({"output": "o.png", "width": 3, "scale": 1.5, "verbose": True, "color": False, "retries": 2,
                           "level": 1, "image": ["x.png", "y.png"]})
    assert "-nocolor" in argv
    done = subprocess.run([program, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["output=o.png", "width=3", "scale=1.5", "verbose=1", "color=0", "retries=2",
                                   "level=1", "args=2"]


def test_a_call_reaches_a_boost_program_options_program_with_every_value_it_gives() -> None:
    # Boost's headers are 138 MB installed: CI does not install them, and this test skips there.
    program = _cpp("boost", BOOST_HEADER, "libboost-program-options-dev", ("-lboost_program_options",))
    schema = _schema(program, "boost")
    properties = schema.input_schema["properties"]
    assert properties["output"]["default"] == "out.png" and properties["width"]["default"] == 640
    argv = schema.to_argv({"output": "o.png", "width": 3, "scale": 1.5, "verbose": True, "retries": 2, "level": 3,
                           "tag": "a", "image": ["x.png", "y.png"]})
    assert "--level=3" in argv  # a value that may be left out goes after "=", where no operand can be taken for it
    done = subprocess.run([program, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["output=o.png", "width=3", "scale=1.5", "verbose=1", "retries=2", "level=3",
                                   "tags=1", "inputs=2"]


def _help_runner(program: Path) -> Callable[[list[str]], HelpRun]:
    """Runs ``program`` with a help argv, as the server runs a tool's (for ``describe_tree``)."""

    def run_help(argv: list[str]) -> HelpRun:
        done = subprocess.run([program, *argv], capture_output=True, timeout=60)
        return HelpRun(done.stdout, done.stderr, done.returncode)

    return run_help


def _run_sub(program: Path, path: list[str], argv: list[str]) -> dict[str, Any]:
    """What the program parsed from its subcommand ``path`` called with a schema's ``argv``."""
    leading = getattr(argv, "leading", 0)
    done = subprocess.run([program, *argv[:leading], *path, *argv[leading:]], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def test_a_cobra_counter_is_given_once_a_count_and_takes_no_operand() -> None:
    # deploy.Flags().CountP("verbose", "v", "Verbosity"), listed "-v, --verbose count": read as a
    # value, "--verbose 3" left "3" an operand too many ("accepts 2 arg(s), received 3").
    program = _go("cobra", "spf13/cobra", "golang-github-spf13-cobra-dev")
    described = describe_help(subprocess.run([program, "deploy", "--help"], capture_output=True, timeout=60).stdout)
    assert described.dialect == "cobra"
    schema = build_tool_schema(described)
    assert schema.input_schema["properties"]["verbose"]["type"] == "integer"
    parsed = _run_sub(program, ["deploy"], schema.to_argv({"service": "web", "env_arg": "prod", "image": "img:1",
                                                           "verbose": 3, "replicas": 2, "tail": -5}))
    assert parsed["args"] == ["web", "prod"]
    assert {name: parsed["flags"][name]["value"] for name in ("verbose", "replicas", "tail", "image")} == \
        {"verbose": "3", "replicas": "2", "tail": "-5", "image": "img:1"}


def test_a_cobra_flag_whose_value_may_be_left_off_takes_it_after_equals_and_a_list_type_is_a_list() -> None:
    # logs.Flags().String("color", ...) with NoOptDefVal "always", listed '--color string[="always"]':
    # "--color never" left "never" an operand (the color "always", the pod "never"). And pflag's
    # "--shard int32Slice" was one string, whose default "[]" pflag refuses.
    program = _go("cobra", "spf13/cobra", "golang-github-spf13-cobra-dev")
    described = describe_help(subprocess.run([program, "logs", "--help"], capture_output=True, timeout=60).stdout)
    schema = build_tool_schema(described)
    assert schema.input_schema["properties"]["shard"]["type"] == "array"
    parsed = _run_sub(program, ["logs"], schema.to_argv({"pod": "web", "color": "never", "shard": ["1", "2"]}))
    assert parsed["args"] == ["web"]
    assert (parsed["flags"]["color"]["value"], parsed["flags"]["shard"]["value"]) == ("never", "[1,2]")
    alone = _run_sub(program, ["logs"], schema.to_argv({"pod": "web", "color": ""}))
    assert (alone["args"], alone["flags"]["color"]["value"]) == (["web"], "always")


def test_an_urfave_command_listed_under_its_category_is_a_command_of_its_own() -> None:
    # Command{Name: "track", Category: "queries"}: the category's name was taken for a command
    # (whose help is "No help topic for 'queries'"), and track was lost.
    program = _go("urfave", "urfave/cli/v2", "golang-github-urfave-cli-v2-dev")
    described = describe_help(subprocess.run([program, "--help"], capture_output=True, timeout=60).stdout)
    assert described.dialect == "urfave"
    assert [command.name for command in described.subcommands] == ["send", "help", "track"]
    track = describe_help(subprocess.run([program, "track", "--help"], capture_output=True, timeout=60).stdout)
    parsed = _run_sub(program, ["track"], build_tool_schema(track).to_argv({"id": ["a", "b"], "watch": True}))
    assert parsed["args"] == ["a", "b"] and parsed["flags"]["watch"] is True


def test_an_urfave_switch_on_by_default_is_turned_off_after_equals() -> None:
    # BoolFlag{Name: "signature", Value: true}: urfave/cli reads flags with Go's flag package,
    # which takes "--signature=false"; the schema said false could only leave the flag out.
    program = _go("urfave", "urfave/cli/v2", "golang-github-urfave-cli-v2-dev")
    send = build_tool_schema(describe_help(
        subprocess.run([program, "send", "--help"], capture_output=True, timeout=60).stdout))
    assert send.input_schema["properties"]["signature"]["default"] is True
    parsed = _run_sub(program, ["send"], send.to_argv({"address": "home", "carrier": "dhl", "signature": False}))
    assert parsed["flags"]["signature"] is False and parsed["args"] == ["home"]


def test_kongs_commands_nested_in_groups_are_each_a_tool_that_takes_its_arguments() -> None:
    # Command db, its command migrate, and migrate's up and down: "kg db --help" lists them by
    # their whole path ("db migrate up <steps> [<dir>]"), which was read as a command "db" under
    # "db", whose help is an error: db's tools were lost.
    program = _go("kongtree", "alecthomas/kong", "golang-github-alecthomas-kong-dev")

    tree = {command.path: command for command in describe_tree(_help_runner(program), "kg")}
    assert set(tree) == {("rm",), ("ls",), ("db", "migrate", "up"), ("db", "migrate", "down")}, tree.keys()
    up = build_tool_schema(tree[("db", "migrate", "up")].description)
    done = subprocess.run([program, "db", "migrate", "up", *up.to_argv({"steps": 3, "dir": "m"})],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    parsed = json.loads(done.stdout)
    assert parsed["command"] == "db migrate up <steps> <dir>"
    assert parsed["cli"]["Db"]["Migrate"]["Up"] == {"Steps": 3, "Dir": "m"}
    # A counter, "-v, --verbose=INT  More output (repeatable).": read as a list of counts, and
    # "--verbose=1 --verbose=1" counted 1 (each sets it), not 2.
    ls = build_tool_schema(tree[("ls",)].description)
    done = subprocess.run([program, "ls", *ls.to_argv({"verbose": 2, "limit": 5})], capture_output=True, text=True,
                          timeout=60)
    assert json.loads(done.stdout)["cli"]["Ls"]["Verbose"] == 2, (done.stdout, done.stderr)
    # An optional operand of several words, listed "[<notes> ...]": its description was lost.
    down = build_tool_schema(tree[("db", "migrate", "down")].description)
    assert down.input_schema["properties"]["notes"]["description"] == "Notes to record."
    done = subprocess.run([program, "db", "migrate", "down", *down.to_argv({"all": True, "notes": ["a b", "c"]})],
                          capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout)["cli"]["Db"]["Migrate"]["Down"] == {"All": True, "Notes": ["a b", "c"]}


def test_kingpins_nested_command_is_a_tool_and_its_counter_is_given_again() -> None:
    # db.Command("migrate"): "kp db --help" lists it under "Subcommands:" by its whole path
    # ("db migrate [<flags>]"), which was not read, and db itself became a tool that cannot run
    # ("must select a subcommand of 'db'"). Flag("verbose").Counter(), written "-v, --verbose ...",
    # was an array of values: its value went to the next positional.
    program = _go("kingpin", "alecthomas/kingpin", "golang-gopkg-alecthomas-kingpin.v2-dev")

    tree = {command.path: command for command in describe_tree(_help_runner(program), "kp")}
    assert set(tree) == {("register",), ("post",), ("run",), ("db", "migrate")}, tree.keys()
    migrate = build_tool_schema(tree[("db", "migrate")].description)
    assert migrate.input_schema["properties"]["verbose"]["type"] == "integer"
    parsed = _run_sub(program, ["db", "migrate"], migrate.to_argv({"steps": 3, "verbose": 2}))
    assert (parsed["cmd"], parsed["steps"], parsed["verbose"]) == ("db migrate", 3, 2)
    # "run [<flags>] <cmd> [<args>...]", its list writing "[<args>]": an operand named "cmd" was
    # taken for a subcommand's place, so the usage's "..." went unread and args was one string.
    run = build_tool_schema(tree[("run",)].description)
    assert run.input_schema["properties"]["args"]["type"] == "array"
    parsed = _run_sub(program, ["run"], run.to_argv({"cmd": "ls", "args": ["-l", "docs"]}))
    assert (parsed["run_cmd"], parsed["run_args"]) == ("ls", ["-l", "docs"])


def test_operands_a_usage_line_alone_writes_after_dashes_are_given_there_and_nothing_else_is() -> None:
    # "Usage: run [flags] SRC [EXTRA...] [-- CMD...]" and no list of operands: CMD was dropped
    # (no call could give it), and an operand starting with "-" was protected by a "--" that
    # made it one of CMD's words.
    program = _go("pflagdash", "spf13/pflag", "golang-github-spf13-pflag-dev")
    schema = _schema(program, "cobra")
    assert [name for name in schema.input_schema["properties"] if name != "verbose"] == ["src", "extra", "cmd"]
    for given, parsed in (({"src": "s", "cmd": ["ls", "-l"]}, (["s", "ls", "-l"], 1)),
                          ({"src": "s", "extra": ["e"], "cmd": ["ls"], "verbose": 2}, (["s", "e", "ls"], 2)),
                          ({"src": "s", "extra": ["e"]}, (["s", "e"], -1))):
        done = subprocess.run([program, *schema.to_argv(given)], capture_output=True, text=True, timeout=60)
        out = json.loads(done.stdout)
        assert (out["args"], out["at_dash"]) == parsed, given
        assert out["verbose"] == given.get("verbose", 0)
    with pytest.raises(ValueError, match="would be read as an option"):
        schema.to_argv({"src": "-s", "cmd": ["ls"]})


def test_flaggys_flags_whose_help_shows_no_value_take_the_values_their_defaults_and_notes_say() -> None:
    # flaggy prints no value placeholder ("-w --workers   Number of worker threads (default: 4)"):
    # every flag was a switch, and a slice "said repeatable" a counter, so "--filter" took the next
    # flag for its value and no value could ever be given; "[source] ... (Required)" was optional.
    program = _go("flaggy", "integrii/flaggy", "golang-github-integrii-flaggy-dev")
    tree = {command.path: command for command in describe_tree(_help_runner(program), "flgy")}
    assert set(tree) == {("resize",), ("tag",)}, tree.keys()
    resize = build_tool_schema(tree[("resize",)].description)
    assert resize.input_schema["required"] == ["source"]
    parsed = _run_sub(program, ["resize"], resize.to_argv(
        {"source": "a.png", "dest": "b.png", "width": 800, "scale": 0.5, "filter": "nearest", "keep_aspect": True,
         "workers": 2}))
    assert {key: parsed[key] for key in ("source", "dest", "width", "scale", "filter", "keep_aspect", "workers")} == {
        "source": "a.png", "dest": "b.png", "width": 800, "scale": 0.5, "filter": "nearest", "keep_aspect": True,
        "workers": 2}
    tag = build_tool_schema(tree[("tag",)].description)
    parsed = _run_sub(program, ["tag"], tag.to_argv({"file": "f.png", "tag": ["sea", "sky"], "id": ["3", "4"],
                                                     "ttl": "5s"}))
    assert (parsed["file"], parsed["tags"], parsed["ids"], parsed["ttl"]) == ("f.png", ["sea", "sky"], [3, 4], "5s")


def test_a_go_arg_list_before_a_subcommand_takes_its_value_not_the_subcommands_name() -> None:
    # IDs []int `arg:"--id"`, printed "[--id ID]" as a single value is: "--id 7 get k" gave "get"
    # to the list ("parsing \"get\": invalid syntax"), so every call giving an id failed.
    program = _go("goargsub", "alexflint/go-arg", "golang-github-alexflint-go-arg-dev")
    tree = {command.path: command for command in describe_tree(_help_runner(program), "ga")}
    get = build_tool_schema(tree[("get",)].description)
    parsed = _run_sub(program, ["get"], get.to_argv({"store": "s.db", "id": "7", "key": "k", "workers": 2}))
    assert (parsed["IDs"], parsed["Store"], parsed["Workers"], parsed["Get"]["Key"]) == ([7], "s.db", 2, "k")
