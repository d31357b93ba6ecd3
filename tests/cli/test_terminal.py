"""`toolbay serve` typed at a terminal: it says what it waits for, and Ctrl-C stops it.

A real process on a pseudo-terminal (stdin, stdout and stderr all the terminal, as when a
person runs the command), stopped with a real SIGINT."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM, REPO_ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

# Generous: these bound a wait for an event (a line, an exit), they are not the expected time.
PATIENCE_S = 90
HELP_TIMEOUT_S = 120  # the largest [discovery] help_timeout_s allowed


def _read_until(master: int, wanted: bytes, seen: bytearray) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while wanted not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {wanted!r} in the terminal output: {bytes(seen)!r}"
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the other side closed (the process ended)
                break
            if not chunk:
                break
            seen += chunk
    assert wanted in seen, bytes(seen)


def _drain(master: int, seen: bytearray) -> None:
    while select.select([master], [], [], 0)[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            return
        if not chunk:
            return
        seen += chunk


def _on_a_terminal(*argv: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """``toolbay ARGV`` with a pseudo-terminal for stdin, stdout and stderr; its master end."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolbay", *argv],
        stdin=slave, stdout=slave, stderr=slave, cwd=REPO_ROOT, start_new_session=True,
        env={**os.environ, **(env or {})},
    )
    os.close(slave)
    return process, master


def _serve_on_a_terminal(data_dir: Path, *extra: str, extensions: Path = BUNDLED_EXTENSIONS,
                         env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    return _on_a_terminal("serve", "--extensions", str(extensions), "--data-dir", str(data_dir), *extra, env=env)


def _interrupted_when_seen(process: subprocess.Popen[bytes], master: int, wanted: bytes) -> tuple[int, bytes]:
    """Sends SIGINT once ``wanted`` is on the terminal: the exit status and what it showed."""
    seen = bytearray()
    try:
        _read_until(master, wanted, seen)
        process.send_signal(signal.SIGINT)
        returncode = process.wait(timeout=PATIENCE_S)
        _drain(master, seen)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    assert b"Traceback" not in seen and b"Fatal Python error" not in seen
    return returncode, bytes(seen)


def _interrupt_once_seen(data_dir: Path, wanted: bytes, extensions: Path = BUNDLED_EXTENSIONS,
                         env: dict[str, str] | None = None) -> bytes:
    """Serves on a terminal, sends SIGINT once ``wanted`` is on the terminal, and checks the
    server stopped cleanly: exit status 0, no traceback. Returns what the terminal showed."""
    returncode, seen = _interrupted_when_seen(*_serve_on_a_terminal(data_dir, extensions=extensions, env=env), wanted)
    assert returncode == 0, seen
    return seen


def test_ctrl_c_while_the_progress_bar_is_drawn_gives_the_terminal_its_cursor_back(tmp_path: Path) -> None:
    """The bar hides the cursor; a Ctrl-C during it left the user's shell without one. And the
    server stops at once, not when the help run it is waiting for times out (it ended only then):
    that timeout is set longer than this test waits for the exit."""
    extensions = tmp_path / "tools"
    extensions.mkdir()
    (extensions / "aaa.wasm").write_bytes((FIXTURE_WASM / "echo.wasm").read_bytes())  # done first: the bar appears
    (extensions / "zzz.wasm").write_bytes((FIXTURE_WASM / "spin.wasm").read_bytes())  # its help never ends
    assert PATIENCE_S < HELP_TIMEOUT_S
    shown = _interrupt_once_seen(tmp_path / "data", b"describing tools", extensions,
                                 env={"TOOLBAY_DISCOVERY__HELP_TIMEOUT_S": str(HELP_TIMEOUT_S)})
    hidden = shown.rfind(b"\x1b[?25l")
    assert hidden >= 0, shown
    assert b"\x1b[?25h" in shown[hidden:], shown[-400:]


def test_the_progress_bar_names_the_file_still_being_described(tmp_path: Path) -> None:
    """It named the last file done: for as long as a slow file took, the bar showed the file
    before it, which the user then took for the one the server was waiting on."""
    extensions = tmp_path / "tools"
    extensions.mkdir()
    (extensions / "aaa.wasm").write_bytes((FIXTURE_WASM / "echo.wasm").read_bytes())  # done first
    (extensions / "zzz.wasm").write_bytes((FIXTURE_WASM / "spin.wasm").read_bytes())  # its help never ends
    process, master = _serve_on_a_terminal(tmp_path / "data", extensions=extensions,
                                           env={"TOOLBAY_DISCOVERY__HELP_TIMEOUT_S": str(HELP_TIMEOUT_S)})
    seen = bytearray()
    try:
        _read_until(master, b"1/2", seen)
        after = seen.index(b"1/2")
        deadline = time.monotonic() + PATIENCE_S
        while not re.search(rb"\b(aaa|zzz)\.wasm", seen[after:]) and time.monotonic() < deadline:
            if select.select([master], [], [], 0.2)[0]:  # the rest of the bar's line
                seen += os.read(master, 4096)
        process.send_signal(signal.SIGINT)
        process.wait(timeout=PATIENCE_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    named = re.search(rb"\b(aaa|zzz)\.wasm", seen[after:])
    assert named is not None and named.group(1) == b"zzz", bytes(seen[after:after + 200])


def test_the_bar_shows_from_the_start_and_a_file_described_after_the_start_draws_none(tmp_path: Path) -> None:
    """One slow module showed nothing until it was done; and done after the server's start wait,
    it drew a new bar that nothing stopped: redrawn ten times a second, the cursor hidden, until
    the server ended (an outside check)."""
    extensions = tmp_path / "tools"
    extensions.mkdir()
    (extensions / "slow.py").write_text(
        "import time\ntime.sleep(2)\n\n\ndef get_tool_schemas():\n"
        "    return [{'name': 'slow', 'description': 'Slow.', 'input_schema': {'type': 'object'}}]\n\n\n"
        "def slow():\n    return 'ok'\n", encoding="utf-8")
    process, master = _serve_on_a_terminal(tmp_path / "data", extensions=extensions, env={
        "TOOLBAY_DISCOVERY__START_WAIT_S": "0.2", "TOOLBAY_LOG_LEVEL": "debug"})
    # The module's describing is logged, then the bar would be drawn, on the same thread.
    _, seen = _interrupted_when_seen(process, master, b"described slow.py")
    waiting = seen.index(b"waiting for an MCP client")
    assert re.search(rb"describing tools.*0/1.*slow\.py", seen[:waiting]), seen[:waiting]
    assert b"describing tools" not in seen[waiting:], seen[waiting:]
    assert seen.rfind(b"\x1b[?25l") < waiting  # no hidden cursor after it


def test_serve_on_a_terminal_says_it_waits_for_a_client_and_ctrl_c_stops_it(shared_data_dir: Path) -> None:
    _interrupt_once_seen(shared_data_dir, b"waiting for an MCP client on stdin")


def test_an_http_server_on_a_terminal_says_its_address_at_a_quiet_log_level(shared_data_dir: Path) -> None:
    """With --port 0 and log level warning, the port it chose was said nowhere (an outside check)."""
    process, master = _serve_on_a_terminal(shared_data_dir, "--transport", "http", "--port", "0",
                                           env={"TOOLBAY_LOG_LEVEL": "warning"})
    returncode, seen = _interrupted_when_seen(process, master, b"/mcp (streamable HTTP)")
    assert returncode == 0 and re.search(rb"serving MCP on http://127\.0\.0\.1:[1-9]\d*/mcp", seen), seen


def test_ctrl_c_while_tools_are_being_described_stops_the_server(tmp_path: Path) -> None:
    # An empty data folder: the bundled tools are compiled and described while Ctrl-C comes.
    _interrupt_once_seen(tmp_path / "data", b"compiling and describing")


def test_log_lines_written_while_the_progress_bar_is_drawn_start_lines_of_their_own(tmp_path: Path) -> None:
    """The log went to the stderr the handler was made with, past rich's proxy: "... 2/4
    jsonkit.wasm22:20:43 INFO toolbay.catalog_keeper: serving 9 tools" on one line."""
    extensions = tmp_path / "tools"  # a few, one of them big enough that the bar is drawn
    extensions.mkdir()
    for tool in (BUNDLED_EXTENSIONS / "textkit.wasm", BUNDLED_EXTENSIONS / "hashsum.wasm", FIXTURE_WASM / "echo.wasm"):
        (extensions / tool.name).write_bytes(tool.read_bytes())
    shown = _interrupt_once_seen(tmp_path / "data", b"catalog_keeper: serving", extensions)
    at = shown.index(b"catalog_keeper: serving")
    line_start = shown.rfind(b"\n", 0, at) + 1
    # What is left on that line once the terminal has carried out returns and line erasures.
    visible = re.split(rb"\r|\x1b\[2K", shown[line_start:at])[-1]
    assert b"describing" not in visible and b".wasm" not in visible, shown[line_start:at + 40]


@pytest.mark.parametrize("command", [["list"], ["search", "echo"]])
def test_list_and_search_on_a_terminal_show_progress_while_tools_are_described(
        tmp_path: Path, command: list[str]) -> None:
    """`toolbay list` on a folder of new tools said nothing for as long as they took to describe
    (15 s for 16 large tools, an outside probe); serve showed a bar."""
    extensions = tmp_path / "tools"
    extensions.mkdir()
    (extensions / "aaa.wasm").write_bytes((FIXTURE_WASM / "echo.wasm").read_bytes())  # done first: the bar appears
    (extensions / "zzz.wasm").write_bytes((FIXTURE_WASM / "spin.wasm").read_bytes())  # its help never ends
    process, master = _on_a_terminal(*command, "--extensions", str(extensions), "--data-dir", str(tmp_path / "d"),
                                     env={"TOOLBAY_DISCOVERY__HELP_TIMEOUT_S": str(HELP_TIMEOUT_S)})
    _, seen = _interrupted_when_seen(process, master, b"describing tools")
    hidden = seen.rfind(b"\x1b[?25l")
    assert hidden >= 0 and b"\x1b[?25h" in seen[hidden:], seen[-400:]  # the cursor is given back


def test_a_tools_escape_sequences_are_shown_on_a_terminal_and_passed_on_to_a_pipe(tmp_path: Path) -> None:
    # toolbay call wrote a module's error raw to the terminal: its "\x1b]0;...\x07" set the
    # window's title and "\x1b[2J" cleared the screen.
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "rude.py").write_text(
        "def get_tool_schemas():\n    return [{'name': 'rude', 'description': 'Fails rudely.'}]\n"
        "def rude():\n    print('\\x1b]0;owned\\x07 printed')\n    raise RuntimeError('\\x1b[2J cleared')\n",
        encoding="utf-8")
    argv = ("call", "rude", "--extensions", str(folder), "--data-dir", str(tmp_path / "data"))
    process, master = _on_a_terminal(*argv)
    seen = bytearray()
    try:
        _read_until(master, b"cleared", seen)
        process.wait(timeout=PATIENCE_S)
        _drain(master, seen)
    finally:
        os.close(master)
    assert b"\x1b]0;" not in seen and b"\x1b[2J" not in seen, bytes(seen)
    assert b"\\x1b[2J cleared" in seen
    piped = subprocess.run([sys.executable, "-m", "toolbay", *argv], capture_output=True, cwd=REPO_ROOT, check=False)
    assert b"\x1b[2J cleared" in piped.stderr  # as the tool wrote it, for whatever reads it


@pytest.mark.parametrize(("argv", "hint", "typed", "shown"), [
    (["parse-help", "-"], b"reading the help text from standard input; end it with Ctrl-D",
     b"Usage: greet [OPTIONS] NAME\r\n\r\nOptions:\r\n  -n, --count N  How many times\r\n", b'"count"'),
    # sha256 of "abc\n": the terminal ends the typed line with a newline
    (["call", "hashsum", "--stdin"], b"reading the tool's standard input; end it with Ctrl-D", b"abc", b"edeaaff3f177"),
])
def test_a_command_reading_standard_input_from_a_terminal_says_so(
        shared_data_dir: Path, argv: list[str], hint: bytes, typed: bytes, shown: bytes) -> None:
    # It waited without a word, and looked hung (the front-door check).
    extra = ["--data-dir", str(shared_data_dir)] if argv[0] == "call" else []
    process, master = _on_a_terminal(*argv, *extra)
    seen = bytearray()
    try:
        _read_until(master, hint, seen)
        os.write(master, typed.rstrip(b"\r\n") + b"\r\x04")  # the last line, then Ctrl-D on an empty line: the end
        _read_until(master, shown, seen)
        assert process.wait(timeout=PATIENCE_S) == 0, bytes(seen)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)


def test_the_progress_bar_is_gone_before_the_line_that_says_the_tools_are_served(tmp_path: Path) -> None:
    """The bar was stopped only once the server had started: after "serving 19 tools: ..." it
    was drawn again below that line, a few times, before it was cleared (an outside check)."""
    extensions = tmp_path / "tools"  # new to the data folder: described, with the bar, as the server starts
    extensions.mkdir()
    for tool in (BUNDLED_EXTENSIONS / "textkit.wasm", BUNDLED_EXTENSIONS / "hashsum.wasm", FIXTURE_WASM / "echo.wasm"):
        (extensions / tool.name).write_bytes(tool.read_bytes())
    process, master = _serve_on_a_terminal(tmp_path / "data", extensions=extensions)
    # Said once the server has started, after the bar's last possible drawing.
    returncode, shown = _interrupted_when_seen(process, master, b"waiting for an MCP client")
    assert returncode == 0, shown
    assert b"describing tools" in shown, shown  # the bar was drawn
    found = re.search(rb"catalog_keeper: serving \d+ tools", shown)
    assert found is not None, shown
    served = found.start()
    after = shown[served:]
    assert b"describing tools" not in after and b"3/3" not in after, after
    # Its line cleared, and the cursor shown again, before the line was written.
    assert shown.rfind(b"\x1b[?25h", 0, served) > shown.rfind(b"describing tools", 0, served), shown[-600:]
