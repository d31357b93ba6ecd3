"""argh (Rust), whose help no toolchain here builds: the help in its README (google/argh,
BSD-3-Clause) against the declarations beside it (``GoUp``), restated in the test.
"""

from __future__ import annotations

from toolbay.helptext import build_tool_schema, describe_help

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
