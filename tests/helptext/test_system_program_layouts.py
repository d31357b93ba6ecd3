"""Helps as programs of a Debian system print them: Info-ZIP, gdb, binutils, zstd, uvx, and the
ways of writing options that GNU patch, stat, tar, run-parts, bzip2, lz4, dpkg, util-linux and
GnuPG use (each test says which it is about, and which installed program is its truth).

zip and unzip list two options a row (``-f   freshen: ...   -u   update: ...``): every
second option ran into the first's description. zip and gdb end a sentence with "Usage:" and
write the forms below it: they had no usage. zip's ``[zipfile list]`` and c++filt's
``[mangled names]`` are operands named in words: they had no positional, so a call could not
name a file. The helps are read from the installed programs where they are here, else as
zip 3.0, UnZip 6.00 and gdb 13 print them; the options a table prints are found apart from
the describer, each ``-x`` at the start of a row or after a gap of two spaces. Where a program
is installed, it is also the truth for what its schema builds: the argv a call makes is run.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolbay.helptext import build_tool_schema, describe_help
from toolbay.helptext.schema import ToolSchema

ZIP_HELP = """Copyright (c) 1990-2008 Info-ZIP - Type 'zip "-L"' for software license.
Zip 3.0 (July 5th 2008). Usage:
zip [-options] [-b path] [-t mmddyyyy] [-n suffixes] [zipfile list] [-xi list]
  The default action is to add or replace zipfile entries from list, which
  can include the special name - to compress standard input.
  If zipfile and list are omitted, zip compresses stdin to stdout.
  -f   freshen: only changed files  -u   update: only changed or new files
  -d   delete entries in zipfile    -m   move into zipfile (delete OS files)
  -r   recurse into directories     -j   junk (don't record) directory names
  -0   store only                   -l   convert LF to CR LF (-ll CR LF to LF)
  -1   compress faster              -9   compress better
  -q   quiet operation              -v   verbose operation/print version info
  -c   add one-line comments        -z   add zipfile comment
  -@   read names from stdin        -o   make zipfile as old as latest entry
  -x   exclude the following names  -i   include only the following names
  -F   fix zipfile (-FF try harder) -D   do not add directory entries
  -A   adjust self-extracting exe   -J   junk zipfile prefix (unzipsfx)
  -T   test zipfile integrity       -X   eXclude eXtra file attributes
  -y   store symbolic links as the link instead of the referenced file
  -e   encrypt                      -n   don't compress these suffixes
  -h2  show more help
"""

UNZIP_HELP = """UnZip 6.00 of 20 April 2009, by Debian. Original by Info-ZIP.

Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]
  Default action is to extract files in list, except those in xlist, to exdir;
  file[.zip] may be a wildcard.  -Z => ZipInfo mode ("unzip -Z" for usage).

  -p  extract files to pipe, no messages     -l  list files (short format)
  -f  freshen existing files, create none    -t  test compressed archive data
  -u  update files, create if necessary      -z  display archive comment only
  -v  list verbosely/show version info       -T  timestamp archive to latest
  -x  exclude files that follow (in xlist)   -d  extract files into exdir
modifiers:
  -n  never overwrite existing files         -q  quiet mode (-qq => quieter)
  -o  overwrite files WITHOUT prompting      -a  auto-convert any text files
  -j  junk paths (do not make directories)   -aa treat ALL files as text
  -U  use escapes for all non-ASCII Unicode  -UU ignore any Unicode fields
  -C  match filenames case-insensitively     -L  make (some) names lowercase
  -X  restore UID/GID info                   -V  retain VMS version numbers
  -K  keep setuid/setgid/tacky permissions   -M  pipe through "more" pager
See "unzip -hh" or unzip.txt for more help.  Examples:
  unzip data1 -x joe   => extract all files except joe from zipfile data1.zip
  unzip -p foo | more  => send contents of foo.zip via pipe into program more
  unzip -fo foo ReadMe => quietly replace existing ReadMe if archive file newer
"""

GDB_HELP = """This is the GNU debugger.  Usage:

    gdb [options] [executable-file [core-file or process-id]]
    gdb [options] --args executable-file [inferior-arguments ...]

Selection of debuggee and its files:

  --args             Arguments after executable-file are passed to inferior.
  --core=COREFILE    Analyze the core dump COREFILE.
  --exec=EXECFILE    Use EXECFILE as the executable.
"""

# An option a table row prints: at the row's start or two spaces after text, then a gap.
_PRINTED_OPTION = re.compile(r"(?:^ +|  +|(?<=\) ))(-[\w@]+) +\S")


def _help(program: str, flag: str, printed: str) -> str:
    """The installed program's help where it is Info-ZIP's, else ``printed``."""
    path = shutil.which(program)
    if path is not None:
        done = subprocess.run([path, flag], capture_output=True, check=False)
        text = done.stdout.decode(errors="replace")
        if "Info-ZIP" in text:
            return text
    return printed


def _installed_help(program: str, mark: str, otherwise: str) -> tuple[str, str]:
    """The installed ``program``'s path and ``--help`` when it prints ``mark``; else the test
    is skipped, saying ``otherwise``."""
    path = shutil.which(program)
    done = subprocess.run([path, "--help"], capture_output=True, text=True, check=False) if path else None
    text = done.stdout or done.stderr if done else ""  # pstree prints it as an error
    if path is None or mark not in text:
        pytest.skip(otherwise)
    return path, text


def _table_options(text: str) -> set[str]:
    """Every option the help's table rows print, read without the describer."""
    rows = [line for line in text.splitlines() if re.match(r" +-[\w@]+ +\S", line)]
    return {found for row in rows for found in _PRINTED_OPTION.findall(row)}


@pytest.mark.parametrize(("program", "flag", "printed", "described"), [
    ("zip", "-h", ZIP_HELP, {"-u": "update: only changed or new files", "-D": "do not add directory entries"}),
    ("unzip", "-h", UNZIP_HELP, {"-aa": "treat ALL files as text", "-L": "make (some) names lowercase",
                                 "-t": "test compressed archive data"}),
])
def test_each_row_of_a_two_column_option_table_gives_both_its_options(
        program: str, flag: str, printed: str, described: dict[str, str]) -> None:
    text = _help(program, flag, printed)
    desc = describe_help(text.encode())
    read = {option.short or option.long: option.description for option in desc.options}
    table = _table_options(text)
    assert table <= set(read)
    for only_in_usage in set(read) - table:  # zip's "[-b path] [-t mmddyyyy]", listed nowhere else
        assert re.search(rf"\[{re.escape(only_in_usage)} \w+\]", text), only_in_usage
    assert len(read) >= 22
    for option, description in described.items():
        assert read[option] == description


def test_a_row_of_one_option_spelt_several_ways_stays_one_entry() -> None:
    """less prints "-e  -E  ....  --quit-at-eof  --QUIT-AT-EOF": one option, spelt four ways."""
    text = ("Usage: less [options] [file]\n\nOPTIONS\n\n"
            "  -a  ........  --search-skip-screen\n                  Search skips current screen.\n"
            "  -e  -E  ....  --quit-at-eof  --QUIT-AT-EOF\n                  Quit at end of file.\n"
            "  -m  -M  ....  --long-prompt  --LONG-PROMPT\n                  Set prompt style.\n"
            "  -n  -N  ....  --line-numbers  --LINE-NUMBERS\n                  Don't use line numbers.\n"
            "  -q  -Q  ....  --quiet  --QUIET  --silent --SILENT\n                  Quiet the terminal bell.\n")
    heads = [option.short or option.long for option in describe_help(text.encode()).options]
    assert "--quit-at-eof" not in heads and "--long-prompt" not in heads
    assert {"-a", "-e", "-m", "-n", "-q"} <= set(heads)


def test_a_sentence_that_ends_in_usage_heads_the_forms_below_it() -> None:
    gdb = describe_help(GDB_HELP.encode())
    assert gdb.usage.splitlines() == ["gdb [options] [executable-file [core-file or process-id]]",
                                      "gdb [options] --args executable-file [inferior-arguments ...]"]
    assert gdb.about == "This is the GNU debugger."
    assert gdb.name == "gdb"
    # The bracket inside the bracket is a second operand, named as either of two things.
    assert [(p.name, p.required) for p in gdb.positionals][:2] == [("executable-file", False),
                                                                  ("core-file or process-id", False)]
    zip_ = describe_help(ZIP_HELP.encode())
    assert zip_.usage == "zip [-options] [-b path] [-t mmddyyyy] [-n suffixes] [zipfile list] [-xi list]"
    assert zip_.about.startswith("The default action is to add or replace zipfile entries")


def test_operands_named_in_words_in_one_bracket_take_as_many_as_given() -> None:
    cxxfilt = describe_help(b"Usage: c++filt [options] [mangled names]\nOptions are:\n"
                            b"  [-_|--strip-underscore]     Ignore first leading underscore\n")
    assert [(p.name, p.required, p.variadic) for p in cxxfilt.positionals] == [("mangled names", False, True)]
    # A choice between two names is one operand, not a list.
    either = describe_help(b"Usage: prog [options] [file or directory]\n\nOptions:\n  -v  Verbose\n")
    assert [(p.name, p.required, p.variadic) for p in either.positionals] == [("file or directory", False, False)]


def test_zip_called_through_its_schema_makes_the_archive_unzip_then_lists(tmp_path: Path) -> None:
    """The truth is the programs: the call's argv makes zip store the file, and unzip finds it."""
    if shutil.which("zip") is None or shutil.which("unzip") is None:
        pytest.skip("no zip and unzip here")
    schema = build_tool_schema(describe_help(_help("zip", "-h", ZIP_HELP).encode()))
    (tmp_path / "notes.txt").write_text("one two\n")
    argv = schema.to_argv({"zipfile_list": ["out.zip", "notes.txt"], "q": True})
    made = subprocess.run(["zip", *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert made.returncode == 0, (argv, made.stderr)
    listed = subprocess.run(["unzip", "-l", "out.zip"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert "notes.txt" in listed.stdout, listed.stdout


CXXFILT_HELP = """Usage: c++filt [options] [mangled names]
Options are:
  [-_|--strip-underscore]     Ignore first leading underscore
  [-n|--no-strip-underscore]  Do not ignore a leading underscore (default)
  [-p|--no-params]            Do not display function arguments
  [-i|--no-verbose]           Do not show implementation details (if any)
  [-R|--recurse-limit]        Enable a limit on recursion whilst demangling.  [Default]
  ]-r|--no-recurse-limit]     Disable a limit on recursion whilst demangling
  [-t|--types]                Also attempt to demangle type encodings
  [-s|--format {none,auto,gnu-v3,java,gnat,dlang,rust}]
  [@<file>]                   Read extra options from <file>
  [-h|--help]                 Display this information
  [-v|--version]              Show the version information
Demangled names are displayed to stdout.
"""


def test_option_entries_written_in_brackets_are_options_that_cpp_filt_takes() -> None:
    """binutils' c++filt writes each entry in brackets ("[-n|--no-strip-underscore]", one with a
    "]" typed for its "["): it had no option at all. The truth is c++filt itself, where it is
    here: every option its schema offers, passed as a call passes it, is taken (no
    "unrecognized option") and the name is still demangled."""
    path = shutil.which("c++filt")
    text = subprocess.run([path, "--help"], capture_output=True, text=True, check=False).stdout if path else ""
    text = text if "[-n|--no-strip-underscore]" in text else CXXFILT_HELP
    desc = describe_help(text.encode())
    names = {(option.short, option.long) for option in desc.options}
    assert {("-_", "--strip-underscore"), ("-n", "--no-strip-underscore"), ("-R", "--recurse-limit"),
            ("-s", "--format"), ("-t", "--types")} <= names
    # all but "[@<file>]", which names no option, and "-r --no-recurse-limit": the way to turn off
    # --recurse-limit, which its help says is the default ("[Default]")
    assert len(names) == 9
    [limit] = [option for option in desc.options if option.long == "--recurse-limit"]
    assert (limit.negation, limit.default) == ("--no-recurse-limit", "true")
    [format_] = [option for option in desc.options if option.long == "--format"]
    assert format_.takes_value and format_.choices == ("none", "auto", "gnu-v3", "java", "gnat", "dlang", "rust")
    if path is None:
        return
    schema = build_tool_schema(desc)
    properties = schema.input_schema["properties"]
    for name, prop in properties.items():
        if name in ("help", "version", "stdin", "mangled_names"):
            continue
        for value in [prop["enum"][1]] if "enum" in prop else [True, False] if "default" in prop else [True]:
            argv = schema.to_argv({name: value, "mangled_names": ["_Z3foov"]})
            run = subprocess.run([path, *argv], capture_output=True, text=True, check=False)
            assert run.returncode == 0 and "unrecognized" not in run.stderr, (argv, run.stderr)
            assert "foo" in run.stdout, (argv, run.stdout)


def test_binutils_operands_written_with_a_plural_s_take_as_many_as_given(tmp_path: Path) -> None:
    """binutils write "strings [option(s)] [file(s)]", "readelf <option(s)> elf-file(s)": strings,
    nm and size had no operand, objdump's was named "file(s)" and took one. The truth is
    strings itself, where it is here: both files a call names are read."""
    readelf = describe_help(b"Usage: readelf <option(s)> elf-file(s)\n Display information about ELF files\n"
                            b"  -a --all               Equivalent to: -h -l -S -s -r -d -V -A -I\n")
    assert [(p.name, p.required, p.variadic) for p in readelf.positionals] == [("elf-file", True, True)]
    path, text = _installed_help("strings", "[file(s)]", "no binutils strings here")
    desc = describe_help(text.encode())
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("file", False, True)]
    (tmp_path / "one.bin").write_bytes(b"\x00\x01first words here\x00\x02")
    (tmp_path / "two.bin").write_bytes(b"\x00\x01second words there\x00\x02")
    argv = build_tool_schema(desc).to_argv({"file": ["one.bin", "two.bin"]})
    run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0 and run.stdout.split("\n")[:2] == ["first words here", "second words there"], run


def test_operands_or_a_dash_for_standard_input_are_the_operands(tmp_path: Path) -> None:
    """zstd writes "zstd [OPTIONS...] [INPUT... | -] [-o OUTPUT]": the choice of "-" (standard
    input) hid its INPUT operands, so no call could name a file to compress. The truth is zstd,
    where it is here: each file a call names is compressed beside it."""
    either = describe_help(b"Usage: cat2 [- | FILE...]\n\nOptions:\n  -v  Verbose\n")
    assert [(p.name, p.required, p.variadic) for p in either.positionals] == [("FILE", False, True)]
    path = shutil.which("zstd")
    if path is None:
        pytest.skip("no zstd here")
    done = subprocess.run([path, "-h"], capture_output=True, text=True, check=False)
    desc = describe_help((done.stdout + done.stderr).encode())
    assert [(p.name, p.variadic) for p in desc.positionals] == [("INPUT", True)]
    for name in ("one.txt", "two.txt"):
        (tmp_path / name).write_text(f"{name} " * 100)
    argv = build_tool_schema(desc).to_argv({"input": ["one.txt", "two.txt"], "keep": True})
    run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, (argv, run.stderr)
    assert (tmp_path / "one.txt.zst").is_file() and (tmp_path / "two.txt.zst").is_file()


def _zstd_described(help_flag: str, folder: Path) -> tuple[str, ToolSchema]:
    """The installed zstd and the schema of its help (``-h`` short, ``-H`` long), with a file
    to compress in ``folder``; skips where zstd is not installed."""
    path = shutil.which("zstd")
    if path is None:
        pytest.skip("no zstd here")
    done = subprocess.run([path, help_flag], capture_output=True, text=True, check=False)
    (folder / "in.txt").write_text("words " * 100)
    return path, build_tool_schema(describe_help((done.stdout + done.stderr).encode()))


def test_every_switch_zstds_schema_offers_is_taken_by_zstd(tmp_path: Path) -> None:
    """zstd's "-#  Desired compression level, where `#` is a number" was a switch named
    "value" that wrote "-#", which zstd refuses ("Incorrect parameters"), as grep refuses
    "-NUM": a number written after the dash is no option. The truth is zstd: every switch of
    its schema, given with a file to compress, is taken."""
    path, schema = _zstd_described("-h", tmp_path)
    tried = 0
    for name, prop in schema.input_schema["properties"].items():
        if prop.get("type") != "boolean" or name in ("h", "help", "version", "decompress"):
            continue
        argv = schema.to_argv({name: True, "input": ["in.txt"], "force": True})
        run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
        assert "Incorrect parameter" not in run.stderr, (argv, run.stderr[:200])
        tried += 1
    assert tried >= 3


@pytest.mark.parametrize("given", [{"T": 2}, {"long": ""}, {"long": 24}, {"fast": 1}, {"B": 0}])
def test_a_number_written_as_hash_in_zstds_flags_is_a_number_zstd_takes(tmp_path: Path,
                                                                        given: dict[str, object]) -> None:
    """zstd writes "-T#", "-B#", "--long[=#]", "--fast[=#]": each was a switch that wrote the
    "#" itself ("-T#"), which zstd refuses, so threads, block size and window could not be set.
    The truth is zstd, run with each value a call gives."""
    path, schema = _zstd_described("-H", tmp_path)
    (name, value), = given.items()
    offered = schema.input_schema["properties"][name]
    assert "integer" in (offered.get("type"), *(kind.get("type") for kind in offered.get("anyOf", ())))
    argv = schema.to_argv({name: value, "input": ["in.txt"], "force": True, "stdout": True})
    assert "#" not in " ".join(argv)
    run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, check=False)
    assert run.returncode == 0 and run.stdout[:4] == b"\x28\xb5\x2f\xfd", (argv, run.stderr[:200])  # a frame


def test_a_command_to_run_in_capitals_in_brackets_is_an_operand_where_no_commands_are_listed() -> None:
    """uvx writes "uvx [OPTIONS] [COMMAND]" for the tool it runs, and lists no commands: the
    bracket was read as a subcommand's place, so no call could name a tool. Where the help
    lists its commands, "[COMMAND]" stays their place."""
    uvx = describe_help(b"Run a command provided by a Python package.\n\nUsage: uvx [OPTIONS] [COMMAND]\n\n"
                        b"Options:\n  --from <FROM>  Use the given package to provide the command\n"
                        b"  -h, --help     Display the concise help for this command\n")
    assert [(p.name, p.required) for p in uvx.positionals] == [("COMMAND", False)]
    build_tool_schema(uvx).to_argv({"command": "ruff"})  # a call can name the tool
    git = describe_help(b"Usage: gitlike [OPTIONS] [COMMAND]\n\nCommands:\n  init  Make a repository\n"
                        b"  log   Show the history\n\nOptions:\n  -v  Verbose\n")
    assert not git.positionals and [c.name for c in git.subcommands] == ["init", "log"]


def test_an_operand_of_either_kind_in_angle_brackets_takes_as_many_as_given(tmp_path: Path) -> None:
    """util-linux writes "hardlink [options] <directory>|<file> ...": the choice was read as
    one between flags and dropped, so no call could name what to link. The truth is hardlink,
    where it is here: both folders a call names are searched (a dry run finds the one link)."""
    flock = describe_help(b"Usage:\n flock [options] <file>|<directory> -c <command>\n\n"
                          b"Options:\n -s, --shared  get a shared lock\n")
    assert [(p.name, p.required, p.variadic) for p in flock.positionals] == [("file or directory", True, False)]
    path, text = _installed_help("hardlink", "<directory>|<file>", "no util-linux hardlink here")
    schema = build_tool_schema(describe_help(text.encode()))
    assert schema.input_schema["required"] == ["directory_or_file"]
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "same.txt").write_text("the same words in both folders\n")
        # hardlink links only files of the same modification time (unless --ignore-time): two
        # written a second apart on a busy machine were "Linked: 0 files".
        os.utime(tmp_path / folder / "same.txt", (1_700_000_000, 1_700_000_000))
    argv = schema.to_argv({"directory_or_file": ["one", "two"], "dry_run": True})
    run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, (argv, run.stderr)
    assert re.search(r"Files:\s+2\b", run.stdout) and re.search(r"Linked:\s+1 files", run.stdout), run.stdout


def test_operands_of_either_kind_between_spaced_bars_in_brackets_are_one_optional_operand() -> None:
    """psmisc writes "pstree ... [ PID | USER ]": with spaces around the bar the bracket was
    dropped, so no call could say whose tree to print. The truth is pstree, where it is here:
    given the pid of a process it started, it prints that process's tree."""
    path, text = _installed_help("pstree", "[ PID | USER ]", "no psmisc pstree here")
    desc = describe_help(text.encode())
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("PID|USER", False, False)]
    with subprocess.Popen(["sleep", "60"]) as child:
        try:
            argv = build_tool_schema(desc).to_argv({"pid_user": str(child.pid)})
            run = subprocess.run([path, *argv], capture_output=True, text=True, check=False)
        finally:
            child.kill()
    assert run.returncode == 0 and run.stdout.strip() == "sleep", (argv, run.stdout, run.stderr)


def test_a_long_name_in_a_column_beside_the_short_one_names_the_same_option(tmp_path: Path) -> None:
    """GNU patch, bc, stat and Info-ZIP's zipcloak write "-p NUM  --strip=NUM  Strip ...", the
    long name a column of its own: it was read as the start of the description, so the option
    was called "p", its description began "--strip=NUM", and the long name was lost. The truth
    is GNU patch, where it is here: the argv a call builds applies a patch, stripping a folder."""
    bc = describe_help(b"usage: bc [options] [file ...]\n  -h  --help         print this usage and exit\n"
                       b"  -q  --quiet        don't print initial banner\n")
    assert [(o.short, o.long, o.description) for o in bc.options] == [
        ("-h", "--help", "print this usage and exit"), ("-q", "--quiet", "don't print initial banner")]
    path, text = _installed_help("patch", "--strip=NUM", "no GNU patch here")
    schema = build_tool_schema(describe_help(text.encode()))
    properties = schema.input_schema["properties"]
    assert properties["strip"]["type"] == "integer"
    assert properties["strip"]["description"].startswith("Strip NUM leading components")
    assert {"input", "output", "dry_run", "forward"} <= set(properties)
    (tmp_path / "words.txt").write_text("one\ntwo\n")
    (tmp_path / "change.diff").write_text("--- a/words.txt\n+++ b/words.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n")
    argv = schema.to_argv({"strip": 1, "input": "change.diff", "output": "patched.txt"})
    run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, (argv, run.stdout, run.stderr)
    assert (tmp_path / "patched.txt").read_text() == "one\nthree\n"


def test_names_a_comma_and_several_spaces_apart_are_one_option() -> None:
    """ucf, ucfr and lcf write "-h,     --help          print this message" (the names aligned
    in columns): the gap after the comma was taken for the one before the description, so the
    option was "-h" alone and its description began "--help"."""
    ucf = describe_help(b"Usage: ucfr  [options] package_name path_for_configuration_file\nOptions:\n"
                        b"     -h,     --help          print this message\n"
                        b"     -n,     --no-action     Dry run. No action is actually taken.\n")
    assert [(o.short, o.long, o.description) for o in ucf.options] == [
        ("-h", "--help", "print this message"), ("-n", "--no-action", "Dry run. No action is actually taken.")]


def test_a_description_one_space_after_the_value_is_not_part_of_the_value(tmp_path: Path) -> None:
    """valgrind writes "--max-stackframe=<number> assume stack switch for SP changes larger",
    run-parts "--exit-on-error exit as soon as a script returns ...", one space apart and the rest
    on the next line: the words were read as the option's value, so run-parts' switch took a
    value it refuses and valgrind's value was named "<number> assume stack switch ...". The truth
    is run-parts, where it is here: the argv built with exit_on_error stops at a failing script."""
    valgrind = describe_help(b"usage: valgrind [options] prog-and-args\n\n  user options for all tools:\n"
                             b"    --max-stackframe=<number> assume stack switch for SP changes larger\n"
                             b"                              than <number> bytes [2000000]\n"
                             b"    --unresolved=ignore-all,report-all\n"
                             b"                              what to do with unresolved symbols\n")
    assert [(o.long, o.takes_value, o.description) for o in valgrind.options] == [
        ("--max-stackframe", True, "assume stack switch for SP changes larger than <number> bytes [2000000]"),
        ("--unresolved", True, "what to do with unresolved symbols")]  # a list of values is no sentence
    assert valgrind.options[0].value_name == "number"
    path, text = _installed_help("run-parts", "--exit-on-error exit", "no debianutils run-parts here")
    schema = build_tool_schema(describe_help(text.encode()))
    assert schema.input_schema["properties"]["exit_on_error"]["type"] == "boolean"
    (tmp_path / "scripts").mkdir()
    for name, body in (("10-fails", "exit 3"), ("20-speaks", "echo second ran")):
        script = tmp_path / "scripts" / name
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(0o755)
    runs = {stop: subprocess.run([path, *schema.to_argv({"exit_on_error": stop, "directory": "scripts"})],
                                 cwd=tmp_path, capture_output=True, text=True, check=False)
            for stop in (True, False)}
    assert "second ran" not in runs[True].stdout and runs[True].returncode != 0, runs[True]
    assert "second ran" in runs[False].stdout, runs[False]


def test_a_dash_between_an_option_and_what_it_does_is_not_part_of_the_description() -> None:
    """LLVM's tools write "--adce   - Aggressive Dead Code Elimination" (hundreds of options in
    opt and llc), savelog "-m mode   - chmod log files to mode": every description began with
    the dash. A dash that starts a value's words ("-1 for no limit") stays."""
    llvm = describe_help(b"OVERVIEW: llvm .bc -> .bc modular optimizer\n\nUSAGE: opt [options] <input bitcode file>\n\n"
                         b"OPTIONS:\n\nGeneral options:\n\n"
                         b"  --adce                    - Aggressive Dead Code Elimination\n"
                         b"  --threads=<int>           -\n"
                         b"  --limit=<int>             - -1 for no limit\n")
    assert [(o.long, o.description) for o in llvm.options] == [
        ("--adce", "Aggressive Dead Code Elimination"), ("--threads", ""), ("--limit", "-1 for no limit")]
    savelog = describe_help(b"Usage: savelog [-m mode] [-u user] file...\n"
                            b"\t-m mode\t   - chmod log files to mode\n\t-u user\t   - chown log files to user\n")
    assert [(o.short, o.description) for o in savelog.options] == [
        ("-m", "chmod log files to mode"), ("-u", "chown log files to user")]


def test_operands_named_in_words_beside_the_options_in_one_bracket_are_read(tmp_path: Path) -> None:
    """bzip2, bunzip2 and bzcat write "usage: bzip2 [flags and input files in any order]": the
    bracket was read as neither, so no call could name a file to compress. Now "input files",
    as many as given. The truth is bzip2, where it is here: the argv a call builds compresses
    the file it names, keeping it."""
    path, text = _installed_help("bzip2", "[flags and input files in any order]", "no bzip2 here")
    desc = describe_help(text.encode())
    assert [(p.name, p.required, p.variadic) for p in desc.positionals] == [("input files", False, True)]
    (tmp_path / "words.txt").write_text("words to squeeze\n" * 50)
    argv = build_tool_schema(desc).to_argv({"input_files": ["words.txt"], "keep": True})
    run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, (argv, run.stderr)
    unpacked = subprocess.run([path, "-dc", "words.txt.bz2"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert unpacked.stdout == (tmp_path / "words.txt").read_text() == "words to squeeze\n" * 50


def test_a_range_of_digit_flags_is_no_option_taking_a_value() -> None:
    """bzip2 writes "-1 .. -9   set block size to 100k .. 900k", savelog "-1 .. -9", streamzip
    "-0 ... -9": each was an option named "1" (or "0") taking the value "..", which the program
    would have read as a file name. Dropped, as GNU's "-NUM" is; bzip2's --fast and --best stay."""
    bzip2 = describe_help(b"usage: bzip2 [flags and input files in any order]\n\n"
                          b"   -k --keep           keep (don't delete) input files\n"
                          b"   -1 .. -9            set block size to 100k .. 900k\n"
                          b"   --fast              alias for -1\n   --best              alias for -9\n")
    assert [(o.short, o.long, o.takes_value) for o in bzip2.options] == [
        ("-k", "--keep", False), (None, "--fast", False), (None, "--best", False), ("-", None, True)]
    schema = build_tool_schema(bzip2)
    assert set(schema.input_schema["properties"]) == {"keep", "fast", "best", "num", "input_files"}
    # The digit itself, after the dash: "-9" (xz's "-0 ... -9" preset had no other option)
    assert schema.input_schema["properties"]["num"]["enum"] == [str(digit) for digit in range(1, 10)]
    assert schema.to_argv({"num": "9"}) == ["-9"]


@pytest.mark.parametrize(("program", "help_flag", "level"), [("xz", "--help", "9"), ("zstd", "-H", 19)])
def test_a_compression_level_written_after_the_dash_reaches_the_program(
        tmp_path: Path, program: str, help_flag: str, level: object) -> None:
    """xz's "-0 ... -9" and zstd's "-#" were dropped: no call could choose the level. The truth
    is the program, compressing with the level the call gives."""
    path = shutil.which(program)
    if path is None:
        pytest.skip(f"no {program} here")
    done = subprocess.run([path, help_flag], capture_output=True, check=False)
    schema = build_tool_schema(describe_help(done.stdout + done.stderr))
    argv = schema.to_argv({"num": level, "stdout": True})
    assert f"-{level}" in argv
    run = subprocess.run([path, *argv], input=b"words " * 1000, capture_output=True, check=False)
    assert run.returncode == 0 and len(run.stdout) < 1000, run.stderr


def test_a_short_and_a_long_name_joined_by_a_bar_name_one_option() -> None:
    """Shell scripts and dpkg write "-h|--help", "-f|--showformat=<format>": no option was read
    (a script's whole list gave an empty schema; dpkg-query lost --showformat). Names of one
    kind joined by a bar are left alone: there the bar may part options (halog's "-rt|-RT <time>"
    are two). The truth is dpkg-query, where it is here: the argv built with showformat prints
    each package so."""
    script = describe_help(b"Usage: deploy.sh [options] TARGET\n\nOptions:\n"
                           b"  -h|--help            Show this help\n"
                           b"  -o|--output FILE     Write the report to FILE\n"
                           b"  -c|--color=always|never  Colour the output\n")
    assert [(o.short, o.long, o.value_name) for o in script.options] == [
        ("-h", "--help", None), ("-o", "--output", "FILE"), ("-c", "--color", "always|never")]
    path, text = _installed_help("dpkg-query", "-f|--showformat=<format>", "no dpkg-query here")
    schema = build_tool_schema(describe_help(text.encode()))
    argv = schema.to_argv({"show": [], "showformat": "${Package}=${db:Status-Abbrev}\n"})
    run = subprocess.run([path, *argv], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "dpkg=ii \n" in run.stdout, (argv, run.stdout[:200], run.stderr)


def test_a_table_after_the_options_in_their_section_leaves_them_options() -> None:
    """util-linux's lscpu lists its options, then, in the same section under a heading too long
    to be read as one ("Available output columns for -e or -p:"), 25 columns: "BOGOMIPS  crude
    measurement ...". Outnumbered by those items, the whole section was taken for a list of
    other things and lscpu had no options. The truth is lscpu, where it is here: the argv built
    with json prints JSON."""
    path, text = _installed_help("lscpu", "Available output columns", "no util-linux lscpu here")
    schema = build_tool_schema(describe_help(text.encode()))
    assert {"all", "json", "extended", "parse", "sysroot", "hex"} <= set(schema.input_schema["properties"])
    run = subprocess.run([path, *schema.to_argv({"json": True})], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "lscpu" in json.loads(run.stdout), run.stderr


def test_options_listed_as_commands_are_each_read_however_they_are_indented() -> None:
    """GnuPG lists its commands as options, the long-only ones aligned under the long names
    (" -s, --sign   make a signature" then "     --clear-sign   make a clear text signature"),
    and just's list starts with the long-only ones: each line not at the first line's indent was
    read as more of the description above it, so gpg lost --clear-sign, --verify and 32 more,
    gpgconf -L/--list-dirs, and just -c/--command, -e/--edit, -l/--list and -s/--show. The truth
    is gpgconf, where it is here: the argv built with list_dirs prints its folders."""
    gpg = describe_help(b"Syntax: gpg [options] [files]\n\nCommands:\n \n"
                        b" -s, --sign                         make a signature\n"
                        b"     --clear-sign                   make a clear text signature\n"
                        b" -b, --detach-sign                  make a detached signature\n"
                        b"     --verify                       verify a signature\n")
    assert [(o.short, o.long, o.description) for o in gpg.options] == [
        ("-s", "--sign", "make a signature"), (None, "--clear-sign", "make a clear text signature"),
        ("-b", "--detach-sign", "make a detached signature"), (None, "--verify", "verify a signature")]
    path, text = _installed_help("gpgconf", "--list-dirs", "no GnuPG gpgconf here")
    schema = build_tool_schema(describe_help(text.encode()))
    run = subprocess.run([path, *schema.to_argv({"list_dirs": True})], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and re.search(r"^homedir:", run.stdout, re.MULTILINE), (run.stdout, run.stderr)
    # One without a description, and dpkg-source's, a value one space from what it does
    run = subprocess.run([path, *schema.to_argv({"show_versions": True})], capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0 and "GnuPG" in run.stdout, (run.stdout, run.stderr)
    dpkg_source = describe_help(b"Usage: dpkg-source [<option>...] <command>\n\nCommands:\n"
                                b"  -b, --build <dir>        build source package.\n"
                                b"      --print-format <dir> print the format to be used for the source package.\n"
                                b"      --commit [<dir> [<patch-name>]]\n"
                                b"                           store upstream changes in a new patch.\n")
    assert [(o.long, o.description) for o in dpkg_source.options] == [
        ("--build", "build source package."), ("--print-format", "print the format to be used for the source package."),
        ("--commit", "store upstream changes in a new patch.")]


def test_an_option_under_one_whose_long_name_stands_in_a_column_is_an_option(tmp_path: Path) -> None:
    """stat writes "-c  --format=FORMAT   use ..." and under it "      --printf=FORMAT   like
    --format ...", jdeprscan "-l    --list" and under it "        --release 7|8|...": the line
    under was read as more of the description above (whose words were taken to start where the
    long name does), so stat lost --printf and jdeprscan --release and --version. The truth is
    stat, where it is here: the argv built with printf prints the file's size as asked."""
    jdeprscan = describe_help(b"Usage: jdeprscan [options] {dir|jar|class} ...\n\noptions:\n"
                              b"        --for-removal\n  -l    --list\n        --release 7|8|9\n"
                              b"  -v    --verbose\n        --version\n")
    assert [(o.short, o.long) for o in jdeprscan.options] == [
        (None, "--for-removal"), ("-l", "--list"), (None, "--release"), ("-v", "--verbose"), (None, "--version")]
    path, text = _installed_help("stat", "--printf=FORMAT", "no GNU stat here")
    schema = build_tool_schema(describe_help(text.encode()))
    (tmp_path / "five.txt").write_text("12345")
    argv = schema.to_argv({"printf": "size=%s\\n", "file": ["five.txt"]})
    run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0 and run.stdout == "size=5\n", (argv, run.stdout, run.stderr)


def test_options_after_operands_listed_in_their_section_are_options(tmp_path: Path) -> None:
    """gettext's msgcmp lists its operands ("def.po   translations") over an option under one
    heading, GNU tar and ar options beside tables of other things: outnumbered by those items,
    the options were dropped with them (the rule for cut's "N-M  from N'th to M'th" beside
    "-M"), so msgcmp lost -D/--directory, tar --label, --posix, --pax-option and --old-archive.
    An option with a long name set apart from its description is an option whatever is beside
    it. The truth is GNU tar, where it is here: the argv built with label names the archive."""
    msgcmp = describe_help(b"Usage: msgcmp [OPTION] def.po ref.pot\n\nInput file location:\n"
                           b"  def.po                      translations\n"
                           b"  ref.pot                     references to the sources\n"
                           b"  -D, --directory=DIRECTORY   add DIRECTORY to list for input files search\n")
    assert [(o.short, o.long, o.value_name) for o in msgcmp.options] == [("-D", "--directory", "DIRECTORY")]
    path, text = _installed_help("tar", "--label=TEXT", "no GNU tar here")
    schema = build_tool_schema(describe_help(text.encode()))
    (tmp_path / "words.txt").write_text("words\n")
    argv = schema.to_argv({"create": True, "file": "weekly.tar", "label": "WEEKLY", "file_arg": ["words.txt"]})
    made = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert made.returncode == 0, (argv, made.stderr)
    listed = subprocess.run([path, "--test-label", "--file", "weekly.tar"], cwd=tmp_path, capture_output=True,
                            text=True, check=True)
    assert listed.stdout.strip() == "WEEKLY"


def test_a_colon_right_after_an_option_ends_its_names(tmp_path: Path) -> None:
    """Shell scripts and some C programs write "-n: show what would be done", "-D FILE: use FILE
    as dictionary" (lz4), "--favor-decSpeed: compressed files ...": options with no value were
    dropped, and a value was named "FILE:". The truth is lz4, where it is here: the argv built
    with D compresses with that dictionary, and decompressing with it gives the words back."""
    script = describe_help(b"Usage: backup.sh [OPTIONS] SOURCE\n\nOptions:\n  -n: show what would be copied\n"
                           b"  -d DIR: copy into DIR\n  --exclude PATTERN: skip files matching PATTERN\n")
    assert [(o.short, o.long, o.value_name, o.description) for o in script.options] == [
        ("-n", None, None, "show what would be copied"), ("-d", None, "DIR", "copy into DIR"),
        (None, "--exclude", "PATTERN", "skip files matching PATTERN")]
    path, text = _installed_help("lz4", "-D FILE: use FILE as dictionary", "no lz4 here")
    schema = build_tool_schema(describe_help(text.encode()))
    (tmp_path / "dictionary").write_bytes(b"the words the text shares with its dictionary " * 40)
    (tmp_path / "words.txt").write_bytes(b"the words the text shares with its dictionary, and more\n" * 20)
    argv = schema.to_argv({"D": "dictionary", "c": True})  # standard input to standard output
    words = (tmp_path / "words.txt").read_bytes()
    run = subprocess.run([path, *argv], cwd=tmp_path, input=words, capture_output=True, check=False)
    assert run.returncode == 0, (argv, run.stderr)
    (tmp_path / "words.lz4").write_bytes(run.stdout)
    back = subprocess.run([path, "-d", "-c", "-D", "dictionary", "words.lz4"], cwd=tmp_path, capture_output=True,
                          check=True)
    assert back.stdout == words


def test_an_option_only_the_usage_names_with_its_value_is_read_beside_the_list(tmp_path: Path) -> None:
    """zip's usage writes "[-b path] [-t mmddyyyy]", options its table does not list, as
    ssh-copy-id's "[-p port]": with a list of options, the usage's were not read at all, so no
    call could give them. One the usage writes with its value, under a name of its own (not a
    cluster such as "-vnD"), joins the list. The truth is zip, where it is here: the argv built
    with t (files dated from then) leaves out a file older than that date."""
    path, text = _installed_help("zip", "[-t mmddyyyy]", "no Info-ZIP zip here")
    schema = build_tool_schema(describe_help(text.encode()))
    assert schema.input_schema["properties"]["b"]["format"] == "path"
    for name, year in (("old.txt", 2001), ("new.txt", 2021)):
        (tmp_path / name).write_text(name)
        stamp = datetime.datetime(year, 6, 1).timestamp()
        os.utime(tmp_path / name, (stamp, stamp))
    argv = schema.to_argv({"t": "01012010", "zipfile_list": ["dated.zip", "old.txt", "new.txt"]})
    run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, (argv, run.stdout, run.stderr)
    with zipfile.ZipFile(tmp_path / "dated.zip") as archive:
        assert archive.namelist() == ["new.txt"]


def test_a_sentence_after_a_usage_form_is_no_operand(tmp_path: Path) -> None:
    """A usage form followed by what it does, as a sentence: GLib writes the program's summary
    on its usage line ("[OUTPUT FILE] Thumbnail images"), Info-ZIP's zipcloak, jmap and ICU's
    tools on the line under it in lower case ("the default action is to encrypt ..."), rarp
    beside each form ("rarp -V    display program version."), dpkg-scanpackages ends with a
    redirection ("> Packages"). Each word was a positional, most of them required, so a call had
    to give values for "Thumbnail" and "images". The truth is dpkg-scanpackages, where it is
    here: the argv built from its operand alone works."""
    zipcloak = describe_help(b"Usage:  zipcloak [-dq] [-b path] zipfile\n"
                             b"  the default action is to encrypt all unencrypted entries in the zip file\n\n"
                             b"  -d  --decrypt      decrypt encrypted entries\n")
    assert [(p.name, p.required) for p in zipcloak.positionals] == [("zipfile", True)]
    jmap = describe_help(b"Usage:\n    jmap [option] <pid>\n        to connect to running process and print stats\n"
                         b"    jmap -? -h --help\n        to print this help message\n")
    assert [p.name for p in jmap.positionals] == ["pid"]
    rarp = describe_help(b"Usage: rarp -a                               list entries in cache.\n"
                         b"       rarp -d <hostname>                    delete entry from cache.\n"
                         b"       rarp -V                               display program version.\n\n"
                         b"  -a  show all\n")
    assert rarp.positionals == ()
    assert [(o.short, o.value_name) for o in rarp.options] == [("-a", None), ("-d", "hostname")]
    path, text = _installed_help("gdk-pixbuf-thumbnailer", "Thumbnail images", "no gdk-pixbuf-thumbnailer here")
    schema = build_tool_schema(describe_help(text.encode()))
    assert not {"thumbnail", "images"} & set(schema.input_schema["properties"])
    assert not schema.input_schema.get("required")
    path, text = _installed_help("dpkg-scanpackages", "> Packages", "no dpkg-scanpackages here")
    schema = build_tool_schema(describe_help(text.encode()))
    assert schema.input_schema["required"] == ["binary_path"]
    (tmp_path / "pool").mkdir()
    argv = schema.to_argv({"binary_path": "pool"})
    run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "Wrote 0 entries" in run.stderr, (argv, run.stderr)



@contextlib.contextmanager
def _redis_server() -> Iterator[str]:
    """A redis-server of the test's own, listening on a Unix socket (no port to collide with)
    in a short temporary folder (a socket's path has at most 107 bytes): the socket's path,
    once the server answers on it."""
    server, client = shutil.which("redis-server"), shutil.which("redis-cli")
    if server is None or client is None:
        pytest.skip("no redis-server and redis-cli here")
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        socket = str(Path(folder) / "redis.sock")
        with subprocess.Popen([server, "--port", "0", "--unixsocket", socket, "--save", "", "--appendonly", "no"],
                              cwd=folder, stdout=subprocess.DEVNULL) as redis:
            try:
                while subprocess.run([client, "-s", socket, "ping"], capture_output=True, text=True,
                                     check=False).stdout.strip() != "PONG":
                    assert redis.poll() is None, "redis-server stopped"
                yield socket
            finally:
                redis.terminate()


def test_a_short_option_s_value_is_a_word_of_its_own_where_the_help_writes_it_so() -> None:
    """redis-benchmark writes "-s <socket>", "-n <requests>" and reads each value as the next
    word, by hand: the argv joined them to their names ("-s/tmp/redis.sock"), which it refused
    as unknown options, printing its help. Where a help writes a short name's value as a word
    of its own, the argv does too (getopt, argparse and clap take either; "-n5" stays where a
    help writes it so). The truth is redis-benchmark with a redis-server of its own, where
    both are here: the benchmark the argv asks for runs against it."""
    path, text = _installed_help("redis-benchmark", "-s <socket>", "no redis-benchmark here")
    schema = build_tool_schema(describe_help(text.encode()))
    with _redis_server() as socket:
        argv = schema.to_argv({"s": socket, "n": 1, "t": "ping", "q": True})
        run = subprocess.run([path, *argv], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "PING_INLINE" in run.stdout, (argv, run.stdout[-300:], run.stderr)


def test_several_placeholders_in_one_bracket_are_operands_in_order(tmp_path: Path) -> None:
    """"[INPUT FILE] [OUTPUT FILE]" (GLib's gdk-pixbuf-thumbnailer), "[MAN DATABASE]" (accessdb),
    "[MAJOR MINOR]" (mknod), "[ FILE | ARG1 ARG2 ]" (who), "[<fd> ..]" (peekfd): several words
    in one bracket were no operand at all, so no call could name the image to thumbnail. Each
    is one optional operand taking the words' values in order (one operand named in two words,
    or two: the words cannot say, and the program gets the values in order either way). The
    truth is gdk-pixbuf-thumbnailer, where it is here: the argv writes the thumbnail asked for."""
    mknod = describe_help(b"Usage: mknod [OPTION]... NAME TYPE [MAJOR MINOR]\n\n"
                          b"  -m, --mode=MODE  set file permission bits\n")
    assert [(p.name, p.required, p.variadic) for p in mknod.positionals] == [
        ("NAME", True, False), ("TYPE", True, False), ("MAJOR MINOR", False, True)]
    who = describe_help(b"Usage: who [OPTION]... [ FILE | ARG1 ARG2 ]\n\n  -a, --all  same as -b -d\n")
    assert [(p.name, p.required, p.variadic) for p in who.positionals] == [("FILE or ARG1 ARG2", False, True)]
    peekfd = describe_help(b"Usage: peekfd [-8] [-n] <pid> [<fd> ..]\n    -8, --eight-bit-clean  output 8 bit\n")
    assert [(p.name, p.variadic) for p in peekfd.positionals] == [("pid", False), ("fd", True)]
    path, text = _installed_help("gdk-pixbuf-thumbnailer", "[INPUT FILE] [OUTPUT FILE]",
                                 "no gdk-pixbuf-thumbnailer here")
    schema = build_tool_schema(describe_help(text.encode()))
    (tmp_path / "in.png").write_bytes(_png(48, 48))
    argv = schema.to_argv({"input_file": ["in.png"], "output_file": ["out.png"]})
    run = subprocess.run([path, *argv], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, (argv, run.stderr)
    assert (tmp_path / "out.png").read_bytes().startswith(b"\x89PNG")


def _png(width: int, height: int) -> bytes:
    """A small RGB PNG image, a gradient."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (x * 5 % 256, y * 5 % 256, 128))
                    for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def test_a_command_to_run_in_capitals_is_an_operand_where_the_help_lists_no_command() -> None:
    """redis-benchmark writes "[OPTIONS] [COMMAND ARGS...]" and, under "Examples:", command
    lines ("$ redis-benchmark -r 10000 -n 10000 lpush mylist __rand_int__"), which were taken
    for a list of subcommands: COMMAND was then a subcommand's place, and no call could name
    the Redis command to benchmark. Entries that name no subcommand list none. The truth is
    redis-benchmark with a redis-server of its own, where both are here: the command the argv
    names is run against the server."""
    path, text = _installed_help("redis-benchmark", "[COMMAND ARGS...]", "no redis-benchmark here")
    schema = build_tool_schema(describe_help(text.encode()))
    assert schema.input_schema["properties"]["command"]["type"] == "array"
    with _redis_server() as socket:
        argv = schema.to_argv({"s": socket, "n": 1, "command": ["SET", "toolbay-key", "from the argv"]})
        run = subprocess.run([path, *argv], capture_output=True, text=True, check=False)
        assert run.returncode == 0, (argv, run.stderr)
        got = subprocess.run([shutil.which("redis-cli") or "redis-cli", "-s", socket, "GET", "toolbay-key"],
                             capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "from the argv"


def test_an_operand_read_after_a_plus_gets_its_plus() -> None:
    """GNU and uutils date write "date [OPTION]... [+FORMAT]": the bracket was no operand (a "+"
    is no name's letter), so no call could say how to print the date. It is one, whose value
    the program reads after a "+", which the argv adds when a value lacks it; uutils lists it
    as "[format]", the same operand. The truth is GNU date, where it is here: the argv prints
    the date asked for in the format asked for, with the "+" written or not."""
    uutils = describe_help(b"Usage: coreutils date [OPTION]... [+FORMAT]...\n\nArguments:\n  [format]  \n\n"
                           b"Options:\n  -u, --utc  print or set Coordinated Universal Time (UTC)\n")
    assert [p.name for p in uutils.positionals] == ["+format"]
    path, text = _installed_help("date", "[+FORMAT]", "no date writing [+FORMAT] here")
    schema = build_tool_schema(describe_help(text.encode()))
    for written in ("%Y/%m/%d", "+%Y/%m/%d"):
        argv = schema.to_argv({"date": "2020-02-03 04:05", "utc": True, "format": written})
        run = subprocess.run([path, *argv], capture_output=True, text=True, check=False)
        assert run.returncode == 0 and run.stdout == "2020/02/03\n", (argv, run.stdout, run.stderr)


def test_an_option_followed_by_its_own_words_takes_them_after_the_one_flag() -> None:
    """dpkg writes its actions as options over words of their own, "-W, --show [<pattern>...]",
    "-s, --status [<package>...]": the value was passed as "--show=bash", which dpkg-query refuses
    ("--show option does not take a value"). Such an option takes a list, each word after the
    one flag ("--show bash dpkg"), and goes alone for an empty list. The truth is dpkg-query,
    where it is here: it shows the two packages the argv names, and every package for the flag
    alone."""
    path, text = _installed_help("dpkg-query", "--show [<pattern>...]", "no dpkg-query here")
    schema = build_tool_schema(describe_help(text.encode()))
    assert schema.input_schema["properties"]["show"]["type"] == "array"
    argv = schema.to_argv({"show": ["dpkg", "bash"], "showformat": "${Package}\n"})
    run = subprocess.run([path, *argv], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and sorted(run.stdout.split()) == ["bash", "dpkg"], (argv, run.stderr)
    every = subprocess.run([path, *schema.to_argv({"show": [], "showformat": "${Package}\n"})],
                           capture_output=True, text=True, check=False)
    assert every.returncode == 0 and {"bash", "dpkg", "coreutils"} <= set(every.stdout.split()), every.stderr


def test_a_choice_written_in_parentheses_is_an_enum(tmp_path: Path) -> None:
    """Universal Ctags, dpkg-buildflags and javadoc write "--output-format=(u-ctags|e-ctags|
    etags|xref|json)", "--append[=(yes|no)]" (as Kotlin's Clikt does): a plain string, so a model
    had only the description to guess from. The truth is ctags, where it is here: the argv built
    for output_format "json" prints the tags as JSON."""
    path, text = _installed_help("ctags", "--output-format=(", "no Universal Ctags here")
    schema = build_tool_schema(describe_help(text.encode()))
    assert schema.input_schema["properties"]["output_format"]["enum"] == ["u-ctags", "e-ctags", "etags", "xref",
                                                                          "json"]
    assert schema.input_schema["properties"]["append"]["enum"] == ["yes", "no", ""]
    (tmp_path / "answer.c").write_text("int answer(void) { return 42; }\n")
    argv = schema.to_argv({"output_format": "json", "f": "-"})
    run = subprocess.run([path, *argv, "answer.c"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, (argv, run.stderr)
    assert json.loads(run.stdout.splitlines()[0])["name"] == "answer"


def test_values_written_bare_between_bars_are_choices() -> None:
    """valgrind writes "--leak-check=no|summary|full  search for memory leaks at exit?  [summary]"
    (so do popt's helps, systemd's "--json=pretty|short|off", setterm's "on|off"): a plain string,
    its default unread. Lower-case values between bars are its choices, and the last bracketed one
    of them its default; kinds of value ("uid|user", "number|name") and ranges ("0-60|force")
    stay names. The truth is valgrind, where it is here: the argv built for leak_check "full"
    runs /bin/true under it, and checks for leaks."""
    setpriv = describe_help(b"Usage: setpriv [options] <program> [<argument>...]\n\n"
                            b"  --ruid=uid|user          set real uid\n  --blank=0-60|force|poke  blank\n")
    assert [o.choices for o in setpriv.options] == [(), ()]
    path, text = _installed_help("valgrind", "--leak-check=no|summary|full", "no valgrind here")
    schema = build_tool_schema(describe_help(text.encode()))
    leak_check = schema.input_schema["properties"]["leak_check"]
    assert (leak_check["enum"], leak_check["default"]) == (["no", "summary", "full"], "summary")
    argv = schema.to_argv({"leak_check": "full", "error_exitcode": 3})
    run = subprocess.run([path, *argv, "/bin/true"], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "HEAP SUMMARY" in run.stderr, (argv, run.stderr[-500:])
