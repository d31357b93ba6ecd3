"""Clikt (Kotlin, which builds for WASI) writes a choice as its value in parentheses,
"--opt=(g1|g2)", and an optional one as "--bar[=(c1|c2)]": it was a plain string. The texts are
those Clikt's own tests expect (ajalt/clikt, test/src/commonTest/kotlin/com/github/ajalt/clikt/
output/PlaintextHelpFormatterTest.kt, Apache-2.0), against the options the tests declare,
restated in each test.
"""

from __future__ import annotations

from toolbay.helptext import build_tool_schema, describe_help

CHOICE_GROUP = """Usage: c [<options>]

G1:
  --opt1=<text>

G2:
  --opt2=<text>

Options:
  --opt=(g1|g2)  select group
"""

OPTIONAL_VALUES = """Usage: prog [<options>]

Options:
  -f, --foo[=<text>]  option one
  --bar[=(c1|c2)]     option two
  --baz[=<int>...]    option three
"""


def test_a_choice_in_parentheses_is_a_choice() -> None:
    # option(help = "select group").groupChoice("g1" to G1(), "g2" to G2())
    desc = describe_help(CHOICE_GROUP.encode())
    (opt,) = [o for o in desc.options if o.long == "--opt"]
    assert (opt.takes_value, opt.choices) == (True, ("g1", "g2"))
    schema = build_tool_schema(desc)
    assert schema.input_schema["properties"]["opt"]["enum"] == ["g1", "g2"]
    assert schema.to_argv({"opt": "g2", "opt1": "x"}) == ["--opt1=x", "--opt=g2"]


def test_an_optional_choice_in_parentheses_may_go_alone() -> None:
    # option("--foo", "-f").optionalValue("d1"); option("--bar").choice("c1", "c2").optionalValue("d2");
    # option("--baz").int().varargValues(min = 0)
    desc = describe_help(OPTIONAL_VALUES.encode())
    got = {o.long: (o.value_optional, o.choices, o.type, o.repeatable) for o in desc.options}
    assert got["--bar"] == (True, ("c1", "c2"), "enum", False)
    assert got["--foo"][:1] == (True,) and got["--baz"][2] == "integer"
    assert build_tool_schema(desc).to_argv({"bar": "c2", "foo": ""}) == ["--foo", "--bar=c2"]
