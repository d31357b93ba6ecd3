"""Values of Go programs' flags typed as Go's parsers take them: a value named in backquotes
by its name, and a duration with its unit ("5s")."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from toolbay.helptext import build_tool_schema, describe_help

# Go's flag package prints a name given in backquotes in the usage ("number of `lines`") as
# the value's name, and the default as Go formats it: "10" for an int, "1.5" for a float64.
GO_FLAG_HELP = ("Usage of tail:\n"
                "  -lines lines\n    \tlines to show (default 10)\n"
                "  -n `count`\n    \tnumber of lines (default 10)\n"
                "  -width WIDTH\n    \tcolumns (default 80)\n"
                "  -scale factor\n    \tscale factor (default 1.5)\n"
                "  -gain float\n    \tgain (default 2)\n"
                "  -wait duration\n    \thow long to wait (default 5s)\n")
PFLAG_HELP = ("Tail files.\n\nUsage:\n  tail [flags]\n\nFlags:\n"
              "  -h, --help               help for tail\n"
              "      --timeout duration   how long to wait (default 5s)\n"
              "      --keep duration      keep snapshots newer than duration (eg. 1y5m7d2h)\n")


def _properties(text: str) -> dict[str, Any]:
    properties: dict[str, Any] = build_tool_schema(describe_help(text.encode())).input_schema["properties"]
    return properties


def test_a_go_flag_value_named_in_backquotes_is_typed_by_its_name_and_a_whole_default_stays_a_number() -> None:
    """A name printed with its backquotes ("`count`") hid it from the describer: the value was a
    string. A whole default alone says no more than "a number": Go prints a float64's 2.0 as "2",
    as it prints an int's 2, and an integer would refuse 2.5 to a float flag."""
    properties = _properties(GO_FLAG_HELP)
    assert {name: (properties[name]["type"], properties[name]["default"])
            for name in ("lines", "n", "width", "scale", "gain")} == {
        "n": ("integer", 10),  # a count, by its name
        "lines": ("number", 10), "width": ("number", 80), "gain": ("number", 2),
        "scale": ("number", 1.5),
    }
    assert "`" not in properties["n"]["description"]


@pytest.mark.parametrize("text", [GO_FLAG_HELP, PFLAG_HELP])
def test_a_go_duration_says_it_takes_a_unit_and_refuses_a_bare_number(text: str) -> None:
    """A duration was a plain string: "5" (seconds, a model's first guess) reached the program,
    which refused it ("missing unit in duration")."""
    properties = _properties(text)
    duration = properties["wait" if "wait" in properties else "timeout"]
    assert duration["type"] == "string" and "5s, 1m30s" in duration["description"], duration
    for taken in ("5s", "1m30s", "1.5h", "300ms", "0"):
        jsonschema.validate(taken, duration)
    for refused in ("5", "five seconds", "1d"):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(refused, duration)


def test_a_duration_of_a_programs_own_type_is_left_as_it_is_written() -> None:
    """pflag prints the type a value names itself: restic's own "duration" takes years and days."""
    keep = _properties(PFLAG_HELP)["keep"]
    assert "pattern" not in keep and "Go duration" not in keep["description"], keep
    jsonschema.validate("1y5m7d2h", keep)
