"""A usage line in another language than English ("Aufruf:", "Utilisation :", "Использование:")
is read as "Usage:" is: its positionals, required ones included, reach the schema, and the line
stays out of the description."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolbay.helptext import build_tool_schema, describe_help

LOCALISED = Path(__file__).resolve().parent / "localised"
CAPTURES = sorted(p for p in LOCALISED.glob("*/*.txt") if p.stem != "C")


def _shape(path: Path) -> list[tuple[bool, bool]]:
    return [(p.required, p.variadic) for p in describe_help(path.read_bytes()).positionals]


@pytest.mark.parametrize("path", CAPTURES, ids=[f"{p.parent.name}-{p.stem}" for p in CAPTURES])
def test_a_translated_gnu_help_has_the_positionals_of_the_untranslated_one(path):
    desc = describe_help(path.read_bytes())
    assert [(p.required, p.variadic) for p in desc.positionals] == _shape(path.parent / "C.txt")
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    heading, after_colon = (part.strip() for part in re.split(r"[:：]", first, maxsplit=1))
    assert after_colon not in desc.about + desc.description
    assert not desc.about.startswith(heading)


def test_every_form_of_a_translated_usage_counts_whatever_its_or_is_called():
    # cp: "Aufruf: cp ...", then "  oder: cp ...", "         ou : cp ...", "または: cp ..." at
    # the margin, "　或：cp ..." after an ideographic space.
    for path in sorted((LOCALISED / "cp").glob("*.txt")):
        assert len(describe_help(path.read_bytes()).usage.split("\n")) == 3, path.stem


@pytest.mark.parametrize("heading", [
    "Usage:", "Aufruf:", "Verwendung:", "Utilisation :", "Uso:", "Modo de empleo:", "Использование:",
    "Użycie:", "Składnia:", "Gebruik:", "Användning:", "Kullanım:", "Χρήση:", "用法：", "使用法:",
])
def test_a_required_positional_after_a_translated_usage_heading_is_required(heading):
    text = f"{heading} zaehler [OPTION]... DATEI...\nZählt die Zeilen jeder DATEI.\n\n" \
           "  -l, --lines   nur Zeilen zählen\n      --help    diese Hilfe anzeigen und beenden\n"
    desc = describe_help(text.encode())
    schema = build_tool_schema(desc).input_schema
    assert schema["required"] == ["datei"]
    assert schema["properties"]["datei"]["type"] == "array"
    assert desc.about == "Zählt die Zeilen jeder DATEI."


def test_a_man_page_synopsis_is_the_usage():
    text = b"""NAME
       zaehler - count lines

SYNOPSIS
       zaehler [OPTION]... FILE...

OPTIONS
       -l, --lines
              print the newline counts
"""
    desc = describe_help(text)
    assert desc.usage == "zaehler [OPTION]... FILE..."
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("FILE", True, True)]
