"""System.CommandLine (.NET, which builds for WASI) writes its help in a form of its own:
"Description:" over what the program does, "(REQUIRED)" after an option's names and value, an
enum's cases as its value ("<Read|ReadWrite|Write>"), and one-dash aliases of several letters
before the long name ("-troea, --the-root-option-enum-arg"). The text is the library's own:
the help its tests approve (dotnet/command-line-api, src/System.CommandLine.Tests/Help/Approvals/
HelpBuilderTests.Help_layout_has_not_changed.approved.txt, MIT), kept byte for byte (but its
byte-order mark) in ``framework_texts/``. The truth is the command its test declares
(HelpBuilderTests.Approval.cs), restated below.
"""

from __future__ import annotations

from pathlib import Path

from toolbay.helptext import build_tool_schema, describe_help

HELP = (Path(__file__).resolve().parent / "framework_texts" / "system-commandline-approved.txt").read_bytes()


def test_system_commandline_s_description_required_marks_and_enum_cases_are_read() -> None:
    # new Command("the-root-command", "Test description"); Option<bool>("--the-root-option-no-arg",
    # "-trna") { Required = true }; Option<string>("--the-root-option-no-default-arg", "-tronda")
    # { HelpName = "the-root-option-arg-no-default-arg", Required = true }; Option<FileAccess>
    # ("--the-root-option-enum-arg", "-troea") { DefaultValueFactory = FileAccess.Read };
    # Option<FileAccess>("--the-root-option-required-enum-arg", "-trorea") { Read, Required = true }
    desc = describe_help(HELP)
    assert desc.about == "Test description"
    got = {o.long: (o.short, o.takes_value, o.required, o.choices, o.default) for o in desc.options}
    enum = ("Read", "ReadWrite", "Write")
    assert got == {
        "--the-root-option-no-arg": ("-trna", False, True, (), None),
        "--the-root-option-no-description-default-arg": (
            "-trondda", True, False, (), "the-root-option--no-description-default-arg-value"),
        "--the-root-option-no-default-arg": ("-tronda", True, True, (), None),
        "--the-root-option-default-arg": ("-troda", True, False, (), "the-root-option-arg-value"),
        "--the-root-option-enum-arg": ("-troea", True, False, enum, "Read"),
        "--the-root-option-required-enum-arg": ("-trorea", True, True, enum, "Read"),
        "--the-root-option-multi-line-description": ("-tromld", False, False, (), None),
    }
    schema = build_tool_schema(desc)
    assert schema.input_schema["properties"]["the_root_option_enum_arg"]["enum"] == list(enum)
    assert {"the_root_option_no_arg", "the_root_option_no_default_arg",
            "the_root_option_required_enum_arg"} <= set(schema.input_schema["required"])


def test_system_commandline_s_operands_nested_in_brackets_and_its_enum_operand() -> None:
    # new Argument<string>("the-root-arg-no-description-no-default") (required); Arguments with a
    # DefaultValueFactory (optional); new Argument<FileAccess>("the-root-arg-enum-default") with
    # DefaultValueFactory = FileAccess.Read. The usage nests them, "[<b> <c> [<d> [<e>]]]", and lists
    # the enum operand by its cases, "<Read|ReadWrite|Write>": all were required, the last named by
    # its cases. ("the-root-arg-no-default" has no default but stands in the optional group the
    # usage prints: the usage is what is read.)
    desc = describe_help(HELP)
    got = {p.name: (p.required, p.default, p.choices) for p in desc.positionals}
    assert got["the-root-arg-no-description-no-default"] == (True, None, ())
    assert got["the-root-arg-no-description-default"][:2] == (False, "the-root-arg-no-description-default-value")
    assert got["the-root-arg"][:2] == (False, "the-root-arg-one-value")
    assert got["the-root-arg-enum-default"] == (False, "Read", ("Read", "ReadWrite", "Write"))
    schema = build_tool_schema(desc)
    assert schema.to_argv({"the_root_arg_no_description_no_default": "a", "the_root_arg_no_description_default": "b",
                           "the_root_arg_no_default": "c", "the_root_arg": "d", "the_root_arg_enum_default": "Write",
                           "the_root_option_no_arg": True, "the_root_option_no_default_arg": "x",
                           "the_root_option_required_enum_arg": "Read"})[-5:] == ["a", "b", "c", "d", "Write"]
