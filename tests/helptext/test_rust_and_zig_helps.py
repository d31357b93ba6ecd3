"""Rust's argh and gumdrop, and Zig's zig-clap, whose programs the suite does not build (rustc and
zig would cost a fresh clone's first run tens of seconds): the help in argh's README (google/argh,
BSD-3-Clause) against the declarations beside it (``GoUp``), and the helps of
``truth_programs/argh/main.rs`` and ``truth_programs/gumdrop/main.rs``, built once with Debian's
rustc 1.63, argh 0.1.9 and gumdrop 0.8.1, and of ``truth_programs/zigclap/resize.zig`` (zig 0.16.0,
zig-clap 0.12.0), kept in ``framework_texts/`` (gumdrop's usage names the program as it was run,
written ``./resize`` here). Their truth is their declarations, restated in each test; the argvs
asserted are those the built programs parsed back to the call's values when the texts were kept.
clap's helps are those of ``truth_programs/clap/rk.rs`` (``rk build --help``) and ``rk2.rs``
(``--help``), built for wasm32-wasi with Debian's rustc 1.63 and clap 4.0.32 and called through
toolbay's server: each program printed what it parsed. go-flags' help is that of
``truth_programs/goflagsrest/main.go`` built for wasip1, which took the argv asserted.
"""

from __future__ import annotations

from pathlib import Path

from toolbay.helptext import build_tool_schema, describe_help

TEXTS = Path(__file__).resolve().parent / "framework_texts"
CORPUS = Path(__file__).resolve().parent / "corpus"

ARGH_GO_UP = """Usage: cmdname [-j] --height <height> [--pilot-nickname <pilot-nickname>]

Reach new heights.

Options:
  -j, --jump        whether or not to jump
  --height          how high to go
  --pilot-nickname  an optional nickname for the pilot
  --help, help      display usage information
"""


def test_argh_s_help_command_beside_its_help_flag_leaves_the_values_to_the_usage() -> None:
    # #[argh(switch, short = 'j')] jump: bool; #[argh(option)] height: usize;
    # #[argh(option)] pilot_nickname: Option<String>. argh lists no option's value, and writes its
    # help as "--help, help" (its help command): that was taken for a value, so the list seemed
    # to show values, the usage was not read for them, and "height" became a required operand.
    desc = describe_help(ARGH_GO_UP.encode())
    got = {o.long: (o.short, o.takes_value, o.required) for o in desc.options if o.long != "--help"}
    assert got == {"--jump": ("-j", False, False), "--height": (None, True, True),
                   "--pilot-nickname": (None, True, False)}
    assert desc.positionals == ()
    schema = build_tool_schema(desc)
    assert schema.input_schema["required"] == ["height"]
    assert schema.to_argv({"height": 5, "jump": True, "pilot_nickname": "Wes"}) == [
        "--jump", "--height", "5", "--pilot-nickname", "Wes"]


def test_argh_s_own_help_gives_each_value_and_repeat_its_usage_writes() -> None:
    # output: String (option, -o, default "out.png"); width: u32 (option, -w, default 640);
    # scale: Option<f64>; verbose (switch, -v); retries: u32 (option, required); tag: Vec<String>
    # (option, -t, repeatable: "[-t <tag...>]"); inputs: Vec<String> (positional, any number).
    desc = describe_help((TEXTS / "argh-0.1.9-resize.txt").read_bytes())
    got = {o.long: (o.short, o.takes_value, o.required, o.repeatable) for o in desc.options if o.long != "--help"}
    assert got == {"--output": ("-o", True, False, False), "--width": ("-w", True, False, False),
                   "--scale": (None, True, False, False), "--verbose": ("-v", False, False, False),
                   "--retries": (None, True, True, False), "--tag": ("-t", True, False, True)}
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("inputs", False, True)]
    argv = build_tool_schema(desc).to_argv({"output": "o.png", "width": 3, "scale": 1.5, "verbose": True,
                                            "retries": 2, "tag": ["a", "b"], "inputs": ["x.png", "y.png"]})
    assert argv == ["--output", "o.png", "--width", "3", "--scale", "1.5", "--verbose", "--retries", "2",
                    "--tag", "a", "--tag", "b", "x.png", "y.png"]


def test_gumdrop_s_help_gives_each_option_its_value_and_default() -> None:
    # help: bool; output: String (meta "FILE", default "out.png"); width: u32 (default 640);
    # scale: Option<f64> (no_short); verbose: bool; retries: u32 (no_short); tag: Vec<String>;
    # inputs: Vec<String> (free)
    desc = describe_help((TEXTS / "gumdrop-0.8.1-resize.txt").read_bytes())
    assert desc.about == "Resizes images to fit a box."
    got = {o.long: (o.short, o.takes_value, o.default) for o in desc.options if o.long != "--help"}
    assert got == {"--output": ("-o", True, "out.png"), "--width": ("-w", True, "640"), "--scale": (None, True, None),
                   "--verbose": ("-v", False, None), "--retries": (None, True, None), "--tag": ("-t", True, None)}
    # gumdrop's usage names no operand ("Usage: ./resize [OPTIONS]"), so nothing says it is needed
    # (a free Vec is none or more; that it is several, the help does not say either)
    assert [(p.name, p.required) for p in desc.positionals] == [("inputs", False)]
    argv = build_tool_schema(desc).to_argv({"output": "o.png", "width": 3, "verbose": True, "retries": 2,
                                            "tag": "a", "inputs": "x.png"})
    assert argv == ["--output", "o.png", "--width", "3", "--verbose", "--retries", "2", "--tag", "a", "x.png"]


def test_zig_clap_s_help_alone_gives_its_options_typed_and_its_operands() -> None:
    # zig-clap 0.12.0 (Hejsil/zig-clap 8d97efa, MIT), truth_programs/zigclap/resize.zig built with
    # zig 0.16.0: "-w, --width <usize>", "--scale <f64>", "-t, --tag <str>...", "<str>...". Its help
    # has no usage line, and each operand is listed as "<str>..." among the options: the operand
    # was lost, and "usize" was text. The same program built for wasm32-wasi and served by toolbay
    # took the argv asserted here.
    desc = describe_help((TEXTS / "zig-clap-0.12.0-resize.txt").read_bytes())
    got = {o.long: (o.short, o.type, o.repeatable) for o in desc.options if o.long != "--help"}
    assert got == {"--output": ("-o", "string", False), "--width": ("-w", "integer", False),
                   "--scale": (None, "number", False), "--verbose": ("-v", "boolean", False),
                   "--retries": (None, "integer", False), "--tag": ("-t", "string", True)}
    assert [(p.name, p.variadic) for p in desc.positionals] == [("str", True)]
    argv = build_tool_schema(desc).to_argv({"output": "o.png", "width": 3, "verbose": True, "retries": 2,
                                            "tag": ["a", "b"], "str": ["x.png"]})
    assert argv == ["--output", "o.png", "--width", "3", "--verbose", "--retries", "2", "--tag", "a", "--tag", "b",
                    "x.png"]


def test_clap_s_last_positional_goes_after_dashes_and_the_positionals_before_it_do_not() -> None:
    # rk.rs: package: String; #[arg(last = true)] extra: Vec<String>, so the usage ends
    # "<PACKAGE> [-- <EXTRA>...]". Every word after "--" is EXTRA's: "-- pkg -O2 x" (all of them
    # after one "--") left PACKAGE missing, and "pkg plain" (no "--") was refused.
    schema = build_tool_schema(describe_help((TEXTS / "clap-4.0.32-rk-build.txt").read_bytes()))
    assert schema.to_argv({"package": "pkg", "extra": ["plain"], "bin": "m"}) == ["--bin", "m", "pkg", "--", "plain"]
    # --size <W> <H> (num_args = 2) goes last and takes words up to the next flag or "--": the
    # package goes before the options, where no option's values can take it.
    argv = schema.to_argv({"package": "pkg", "extra": ["-O2", "x"], "lib": True, "size": [3, 4]})
    assert argv == ["pkg", "--lib", "--size", "3", "4", "--", "-O2", "x"]


def test_clap_s_required_group_in_angle_brackets_is_one_of_two_required() -> None:
    # rk.rs: ArgGroup::new("kind").required(true).args(["lib", "bin"]), which clap writes in the
    # usage as "<--lib|--bin <NAME>>"; "(--lib | --bin <NAME>)" was read so, this was not.
    desc = describe_help((TEXTS / "clap-4.0.32-rk-build.txt").read_bytes())
    grouped = {o.long: (o.exclusive_with, o.one_required) for o in desc.options if o.long in ("--lib", "--bin")}
    assert grouped == {"--lib": (("--bin",), True), "--bin": (("--lib",), True)}


def test_clap_s_optional_value_given_alone_does_not_take_the_positional_after_it() -> None:
    # rk2.rs: #[arg(long, num_args = 0..=1, default_missing_value = "auto")] label, written
    # "--label [<LABEL>]": "--label circle" gave the label "circle" and left <SHAPE> missing.
    schema = build_tool_schema(describe_help((TEXTS / "clap-4.0.32-rk2-long.txt").read_bytes()))
    assert schema.to_argv({"name": "n", "label": "", "shape": "circle"}) == ["--name", "n", "--label", "--", "circle"]
    assert schema.to_argv({"name": "n", "label": "", "width": 2.5, "shape": "square"}) == \
        ["--name", "n", "--label", "--width", "2.5", "square"]  # a flag after it ends it


def test_clap_s_option_of_several_values_given_last_ends_before_the_positionals() -> None:
    # rk2.rs: #[arg(long, num_args = 1..=3, value_name = "PT")] points: Vec<i32>, written
    # "--points <PT>...": each time given it takes words up to the next flag, so "--points 2
    # circle" gave the points 1, 2 and "circle" (refused: not a number) and no <SHAPE>.
    schema = build_tool_schema(describe_help((TEXTS / "clap-4.0.32-rk2-long.txt").read_bytes()))
    argv = schema.to_argv({"name": "n", "points": ["1", "2"], "shape": "circle"})
    assert argv == ["--name", "n", "--points", "1", "--points", "2", "--", "circle"]


def test_go_flags_operands_the_usage_names_after_the_listed_ones_can_be_given() -> None:
    # truth_programs/goflagsrest: `positional-args:"yes"` with Input, Output and Rest []string;
    # go-flags lists INPUT and OUTPUT under "Arguments:" and names REST only in its usage
    # ("gfl [OPTIONS] INPUT OUTPUT REST..."): REST was dropped, and no call could pass it.
    desc = describe_help((TEXTS / "go-flags-gfl.txt").read_bytes())
    assert [(p.name, p.variadic) for p in desc.positionals] == [("INPUT", False), ("OUTPUT", False), ("REST", True)]
    argv = build_tool_schema(desc).to_argv({"input": "a", "output": "b", "rest": ["c", "d"], "name": "x"})
    assert argv == ["--name=x", "a", "b", "c", "d"]


def test_gumdrops_option_of_two_values_takes_two_words() -> None:
    # truth_programs/gumdropsub: #[options(meta = "W H")] size: Option<(u32, u32)>, written
    # "-s, --size W H": read as one value "W H", a call could only send "3 4", which gumdrop
    # refused ("invalid digit found in string"). The built program took the argv asserted.
    schema = build_tool_schema(describe_help((TEXTS / "gumdrop-0.8.1-gd-resize.txt").read_bytes()))
    assert schema.input_schema["properties"]["size"]["minItems"] == 2
    # Two words and no more: no "--" is needed after them (jq 1.6, whose "--arg a v" is read so
    # too, refuses one).
    assert schema.to_argv({"image": "i.png", "size": ["3", "4"]}) == ["--size", "3", "4", "i.png"]


def test_argh_takes_a_value_starting_with_a_dash_as_the_next_word() -> None:
    # corpus/argh/ah-add (truth_programs/arghsub): argh takes an option's value only as the next
    # word, and refused "--level=-3" ("Unrecognized argument"), as negative numbers were given;
    # the built program took the argv asserted.
    schema = build_tool_schema(describe_help((CORPUS / "argh" / "ah-add" / "long.txt").read_bytes()))
    argv = schema.to_argv({"level": "-3", "tag": ["-x", "b"], "paths": ["p"]})
    assert argv == ["--level", "-3", "--tag", "-x", "--tag", "b", "p"]
