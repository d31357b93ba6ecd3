"""Helps of a framework no toolchain here builds: swift-argument-parser (Swift, which compiles
to WASI). The texts are the library's own: the math example's helps as swift-argument-parser's
tests expect them (Tests/ArgumentParserExampleTests/MathExampleTests.swift, Apache-2.0 with the
Runtime Library Exception). The truth is the declarations beside them (Examples/math/Math.swift),
restated in each test.
"""

from __future__ import annotations

from toolbay.helptext import build_tool_schema, describe_help

MATH = """OVERVIEW: A utility for performing maths.

USAGE: math <subcommand>

OPTIONS:
  --version               Show the version.
  -h, --help              Show help information.

SUBCOMMANDS:
  add (default)           Print the sum of the values.
  multiply, mul           Print the product of the values.
  stats                   Calculate descriptive statistics.

  See 'math help <subcommand>' for detailed help.
"""

MATH_ADD = """OVERVIEW: Print the sum of the values.

USAGE: math add [--hex-output] [<values> ...]

ARGUMENTS:
  <values>                A group of integers to operate on.

OPTIONS:
  -x, --hex-output        Use hexadecimal notation for the result.
  --version               Show the version.
  -h, --help              Show help information.
"""

MATH_STATS_AVERAGE = """OVERVIEW: Print the average of the values.

USAGE: math stats average [--kind <kind>] [<values> ...]

ARGUMENTS:
  <values>                A group of floating-point values to operate on.

OPTIONS:
  --kind <kind>           The kind of average to provide. (values: mean,
                          median, mode; default: mean)
  --version               Show the version.
  -h, --help              Show help information.
"""


def test_swift_argument_parser_s_overview_is_the_about_and_its_subcommands_are_read() -> None:
    # abstract: "A utility for performing maths."; subcommands: [Add, Multiply (aliases: ["mul"]), Statistics]
    desc = describe_help(MATH.encode())
    assert desc.about == "A utility for performing maths."
    assert [(s.name, s.description) for s in desc.subcommands] == [
        ("add", "Print the sum of the values."), ("multiply", "Print the product of the values."),
        ("stats", "Calculate descriptive statistics.")]


def test_swift_argument_parser_s_values_and_default_note_gives_an_enum_with_its_default() -> None:
    # enum Kind: String, CaseIterable { case mean, median, mode }; @Option var kind: Kind = .mean;
    # @Argument var values: [Double] = []
    desc = describe_help(MATH_STATS_AVERAGE.encode())
    assert desc.about == "Print the average of the values."
    (kind,) = [o for o in desc.options if o.long == "--kind"]
    assert (kind.takes_value, kind.choices, kind.default, kind.required) == (True, ("mean", "median", "mode"),
                                                                            "mean", False)
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("values", False, True)]
    schema = build_tool_schema(desc)
    assert schema.input_schema["properties"]["kind"]["enum"] == ["mean", "median", "mode"]
    assert schema.to_argv({"kind": "median", "values": [1.5, 2]}) == ["--kind", "median", "1.5", "2"]


def test_swift_argument_parser_s_flag_and_variadic_argument() -> None:
    # @Flag(name: "--hex-output -x") var hexadecimalOutput = false; @Argument var values: [Int] = []
    desc = describe_help(MATH_ADD.encode())
    schema = build_tool_schema(desc)
    assert schema.to_argv({"hex_output": True, "values": [1, 2, 3]}) == ["--hex-output", "1", "2", "3"]

