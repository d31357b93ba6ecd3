"""Arbitrary option tables, printed the way each library prints them, are read back unchanged."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from toolbay.helptext import describe_help


@dataclass(frozen=True)
class Opt:
    long: str
    short: str | None
    value: bool
    choices: tuple[str, ...]
    default: str | None
    required: bool
    words: str


_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)


@st.composite
def option_tables(draw):
    # Not a name every rendering gives its own help option ("--help", "-h"): a table holding it
    # is no help text a parser would print (argparse refuses the clash), and found once, the
    # example is replayed by every later run.
    longs = draw(st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=10).map(
        lambda s: s[:2] + "-" + s[2:] if len(s) > 5 else s).filter(lambda name: name != "help"),
        min_size=1, max_size=8, unique=True))
    shorts = iter(draw(st.permutations("abcdefgijklmnopqrstuwxyz")))
    table = []
    for name in longs:
        value = draw(st.booleans())
        choices = tuple(draw(st.lists(_word, min_size=2, max_size=4, unique=True))) if value and draw(
            st.booleans()) else ()
        default = (choices[0] if choices else draw(st.one_of(st.none(), _word))) if value else None
        table.append(Opt(
            long=name, short=f"-{next(shorts)}" if draw(st.booleans()) else None,
            value=value, choices=choices,
            default=default, required=value and default is None and draw(st.booleans()),
            words=" ".join(draw(st.lists(_word, min_size=1, max_size=12))),
        ))
    return table


def _names(o: Opt, sep: str = ", ") -> str:
    return f"{o.short}{sep}--{o.long}" if o.short else f"    --{o.long}"


def render_clap(table: list[Opt]) -> str:
    req = " ".join(f"--{o.long} <V>" for o in table if o.required)
    lines = [f"Usage: prog [OPTIONS] {req}".rstrip(), "", "Options:"]
    for o in table:
        head = _names(o) + (" <V>" if o.value else "")
        notes = (f" [default: {o.default}]" if o.default else "") + (
            f" [possible values: {', '.join(o.choices)}]" if o.choices else "")
        lines.append(f"  {head:<32}  {o.words}{notes}")
    lines.append("  -h, --help                          Print help")
    return "\n".join(lines) + "\n"


def render_argparse(table: list[Opt]) -> str:
    def meta(o: Opt) -> str:
        return "{" + ",".join(o.choices) + "}" if o.choices else "V"

    def in_usage(o: Opt) -> str:
        return f"--{o.long} {meta(o)}" if o.required else f"[--{o.long}{' ' + meta(o) if o.value else ''}]"

    usage = " ".join(in_usage(o) for o in table)
    lines = [f"usage: prog [-h] {usage}", "", "options:",
             "  -h, --help            show this help message and exit"]
    for o in table:
        m = f" {meta(o)}" if o.value else ""
        head = f"{o.short}{m}, --{o.long}{m}" if o.short else f"--{o.long}{m}"
        notes = f" (default: {o.default})" if o.default else ""
        if len(head) > 20:
            lines += [f"  {head}", f"                        {o.words}{notes}"]
        else:
            lines.append(f"  {head:<20}  {o.words}{notes}")
    return "\n".join(lines) + "\n"


def render_click(table: list[Opt]) -> str:
    lines = ["Usage: prog [OPTIONS]", "", "Options:"]
    for o in table:
        metavar = ("[" + "|".join(o.choices) + "]") if o.choices else "TEXT"
        head = (f"{o.short}, --{o.long}" if o.short else f"--{o.long}") + (f" {metavar}" if o.value else "")
        extras = ([f"default: {o.default}"] if o.default else []) + (["required"] if o.required else [])
        notes = f"  [{'; '.join(extras)}]" if extras else ""
        lines.append(f"  {head:<30}  {o.words}{notes}")
    lines.append("  --help                          Show this message and exit.")
    return "\n".join(lines) + "\n"


def render_cobra(table: list[Opt]) -> str:
    lines = ["Usage:", "  prog [flags]", "", "Flags:"]
    for o in table:
        names = f"-{o.short[1]}, --{o.long}" if o.short else f"    --{o.long}"
        head = names + (" string" if o.value else "")
        notes = f' (default "{o.default}")' if o.default else ""
        lines.append(f"  {head:<30}   {o.words}{notes}")
    lines.append("  -h, --help                         help for prog")
    return "\n".join(lines) + "\n"


def render_gnu(table: list[Opt]) -> str:
    lines = ["Usage: prog [OPTION]... [FILE]...", "Do things to FILEs.", ""]
    for o in table:
        head = _names(o) + ("=VALUE" if o.value else "")
        lines.append(f"  {head:<30}  {o.words}")
    lines.append("      --help     display this help and exit")
    return "\n".join(lines) + "\n"


def render_goflag(table: list[Opt]) -> str:
    lines = ["Usage of prog:"]
    for o in table:
        lines.append(f"  -{o.long.replace('-', '')}" + (" string" if o.value else ""))
        notes = f' (default "{o.default}")' if o.default else ""
        lines.append(f"    \t{o.words}{notes}")
    return "\n".join(lines) + "\n"



def _check(table: list[Opt], text: str, *, choices=True, required=True, default=True, dialect=None):
    desc = describe_help(text.encode())
    if dialect:
        assert desc.dialect == dialect
    read = {(o.long or o.short): o for o in desc.options}
    for o in table:
        got = read[f"--{o.long}"]
        assert got.short == o.short
        assert got.takes_value == o.value
        assert got.description.startswith(o.words)
        if choices:
            assert got.choices == o.choices
        if required:
            assert got.required == o.required
        if default and o.default:
            assert got.default == o.default


@settings(max_examples=40, deadline=None)
@given(option_tables())
def test_clap_tables_round_trip(table):
    _check(table, render_clap(table), dialect="clap")


@settings(max_examples=40, deadline=None)
@given(option_tables())
def test_argparse_tables_round_trip(table):
    _check(table, render_argparse(table), dialect="argparse")


@settings(max_examples=40, deadline=None)
@given(option_tables())
def test_click_tables_round_trip(table):
    _check(table, render_click(table), dialect="click")


@settings(max_examples=40, deadline=None)
@given(option_tables())
def test_cobra_tables_round_trip(table):
    _check(table, render_cobra(table), choices=False, required=False, dialect="cobra")


@settings(max_examples=40, deadline=None)
@given(option_tables())
def test_gnu_tables_round_trip(table):
    _check(table, render_gnu(table), choices=False, required=False, default=False, dialect="gnu")


@settings(max_examples=40, deadline=None)
@given(option_tables())
def test_go_flag_tables_round_trip(table):
    desc = describe_help(render_goflag(table).encode())
    assert desc.dialect == "goflag"
    read = {o.long or o.short: o for o in desc.options}
    for o in table:
        got = read["-" + o.long.replace("-", "")]
        assert got.takes_value == o.value
        assert got.default == o.default
