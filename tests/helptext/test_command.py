"""``toolbay parse-help`` prints the description as JSON, or refuses non-help with status 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

from toolbay.helptext import HELP_BYTES_READ
from toolbay.helptext.command import run_parse_help

CORPUS = Path(__file__).parent / "corpus"


def test_parse_help_prints_the_description_with_its_input_schema():
    out, err = io.StringIO(), io.StringIO()
    folder = CORPUS / "special" / "keywords"
    assert run_parse_help(folder / "long.txt", None, out, err) == 0
    document = json.loads(out.getvalue())
    assert document["keywords"] == ["count", "words", "lines"]
    assert document["permission_level"] == "read"
    assert document["background"] is True
    assert document["options"][1]["choices"] == ["all", "lines", "words"]
    assert document["input_schema"]["type"] == "object"


def test_parse_help_reads_the_short_form_too():
    out, err = io.StringIO(), io.StringIO()
    folder = CORPUS / "clap" / "ripgrep"
    assert run_parse_help(folder / "long.txt", folder / "short.txt", out, err) == 0
    assert json.loads(out.getvalue())["version"] == "13.0.0"
    assert err.getvalue() == ""


def test_a_short_form_that_is_not_help_is_said_to_be_left_out():
    """`cp -h` says "invalid option", `ls -h` lists files: the short form adds nothing then, and
    parse-help said nothing of it, where the long form alone is refused as not help."""
    out, err = io.StringIO(), io.StringIO()
    folder = CORPUS / "gnu" / "cp"
    assert run_parse_help(folder / "long.txt", folder / "short.txt", out, err) == 0
    alone, _ = io.StringIO(), io.StringIO()
    assert run_parse_help(folder / "long.txt", None, alone, io.StringIO()) == 0
    assert out.getvalue() == alone.getvalue()  # described from the long form alone
    said = err.getvalue()
    assert said.startswith("toolbay: note: the --short text is not help (") and "invalid option" in said, said
    assert said.endswith("; described from the long one alone\n") and said.count("\n") == 1


def test_parse_help_exits_2_with_the_reason_for_non_help():
    out, err = io.StringIO(), io.StringIO()
    assert run_parse_help(CORPUS / "special" / "banner" / "long.txt", None, out, err) == 2
    assert out.getvalue() == ""
    assert err.getvalue().startswith("toolbay: not help: no usage line") and err.getvalue().count("\n") == 1


def test_a_help_file_longer_than_the_server_reads_is_described_from_its_first_mib(tmp_path: Path):
    """An 11 MB help took 28.6 s and 1.1 GB to parse; the server reads 1 MiB of a help run.
    parse-help now reads as much, up to the last whole line, and says so."""
    # Most of the first MiB is a long description, which parses in a fraction of the time options take;
    # the options that follow run on past the cut, so the last whole line kept is an option's.
    lines = ["Usage: big [OPTIONS]", ""]
    lines += ["A big tool that says a great deal about itself before its options. " * 12] * 1_200 + ["", "Options:"]
    lines += [f"  --option-{n} <VALUE>  Sets option {n} to VALUE and says so in a long line" for n in range(20_000)]
    long = tmp_path / "long.txt"
    long.write_text("\n".join(lines) + "\n")
    assert long.stat().st_size > 2 * HELP_BYTES_READ
    out, err = io.StringIO(), io.StringIO()
    assert run_parse_help(long, None, out, err) == 0
    names = [option["long"] for option in json.loads(out.getvalue())["options"]]
    kept = long.read_bytes()[:HELP_BYTES_READ]
    last_whole = kept[:kept.rfind(b"\n")].decode().splitlines()[-1].split()[0]
    assert names[0] == "--option-0" and names[-1] == last_whole  # every whole line read, nothing past
    said = err.getvalue()
    assert said.startswith(f"toolbay: note: {long} is longer than 1 MiB; only its first ") and said.count("\n") == 1


def test_a_help_of_one_long_line_is_cut_between_characters(tmp_path: Path):
    """With no line end in the first MiB, the cut fell inside "é" and the UTF-8 text was said
    to have decode errors (a re-check)."""
    long = tmp_path / "long.txt"
    long.write_text("Usage: big " + "é" * 600_000, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert run_parse_help(long, None, out, err) == 0
    document = json.loads(out.getvalue())
    assert document["encoding"] == "utf-8" and document["decode_errors"] is False
