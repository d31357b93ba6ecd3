"""SIGTERM, or settings refused, while a first start's compiles run and the settings are still being read.

A stdio server that can guess its settings from its command line forks and begins compiling
before it reads them (``toolbay.first_start``); the parent passes SIGTERM on to the server.
Sent then, it killed the server outright (no shutdown, exit 143); it stops it as Ctrl-C does,
with the status of a server stopped once serving (0; it was 130, a failure to systemd).
The settings' import is held until the signal has been sent: no timing is relied on.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

# Runs ``toolbay serve``, holding the import of a module (HELD_MODULE) until a file exists, or, where the
# hold is on another thread than the main one, until the main thread waits for that thread's import to end
# (as a stopping server does: a real import then ends, where this hold would keep it waiting for a minute),
# unless HOLD_FOR_GOOD is set; a file says when the hold has begun.
SERVE_HELD = """
import importlib.machinery, os, sys, threading, time
def main_thread_waits_for_imports():
    if os.environ.get("HOLD_FOR_GOOD"):
        return False
    frame = sys._current_frames().get(threading.main_thread().ident)
    while frame is not None:
        if frame.f_code.co_name == "wait" and frame.f_code.co_filename.endswith("background_import.py"):
            return True
        frame = frame.f_back
    return False
class Held:
    def __init__(self, loader):
        self.loader = loader
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != os.environ["HELD_MODULE"]:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        spec.loader = cls(spec.loader)
        return spec
    def create_module(self, spec):
        return self.loader.create_module(spec)
    def exec_module(self, module):
        open(os.environ["HELD"], "w").close()
        while not os.path.exists(os.environ["RELEASE"]) and not main_thread_waits_for_imports():
            time.sleep(0.02)
        self.loader.exec_module(module)
sys.meta_path.insert(0, Held)
from toolbay.entry import main
sys.argv = ["toolbay", *sys.argv[1:]]
main()
"""

WAIT_S = 120


# The settings (imported once the server has forked), and the server's own command (imported
# before anything handles SIGTERM: killed by it there, the server ended by the signal, not 0:
# an outside check).
@pytest.mark.parametrize("held_module", ["toolbay.config", "toolbay.serve_command"])
def test_sigterm_while_a_first_start_reads_its_settings_stops_the_server_as_ctrl_c_does(
        tmp_path: Path, held_module: str) -> None:
    held, release = tmp_path / "held", tmp_path / "release"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HELD": str(held), "RELEASE": str(release),
           "HELD_MODULE": held_module}
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE_HELD, "serve", "--data-dir", str(tmp_path / "data")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + WAIT_S
        while not held.exists():
            assert process.poll() is None and time.monotonic() < deadline, "the server ended before its settings"
            time.sleep(0.02)
        process.send_signal(signal.SIGTERM)  # the parent, as a client stops the server it started
        _, stderr = process.communicate(timeout=WAIT_S)
    finally:
        release.touch()
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr  # as once it serves: a stop asked for, done (it was 130)
    assert b"Traceback" not in stderr, stderr


# Runs ``toolbay serve`` and, once the module INTERRUPTED_AFTER has run, holds Python's import lock until the
# main thread waits for it in the weakref callback that drops that module's lock, sends the signal, and lets go:
# the main thread gets the lock back and Python's handler runs at once, inside importlib, as a Ctrl-C did there
# when it came while the MCP SDK loaded on its own thread (an outside check: 2 presses in 11 on a first start).
SERVE_INTERRUPTED_IN_IMPORT_LOCK = """
import _imp, importlib.machinery, os, signal, sys, threading, time
def in_the_lock_callback(main):
    frame = sys._current_frames().get(main)
    return frame is not None and frame.f_code.co_name == "cb" and frame.f_code.co_filename.startswith("<frozen")
def interrupt_there(main, holding):
    _imp.acquire_lock()
    try:
        holding.set()
        while not in_the_lock_callback(main):
            time.sleep(0.001)
        signal.raise_signal(getattr(signal, os.environ["SIGNAL"]))
    finally:
        _imp.release_lock()
class Loader:
    def __init__(self, loader):
        self.loader = loader
    def create_module(self, spec):
        return self.loader.create_module(spec)
    def exec_module(self, module):
        self.loader.exec_module(module)
        holding = threading.Event()
        threading.Thread(target=interrupt_there, args=(threading.get_ident(), holding), daemon=True).start()
        holding.wait()
class Finder:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != os.environ["INTERRUPTED_AFTER"]:
            return None
        sys.meta_path.remove(cls)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        spec.loader = Loader(spec.loader)
        return spec
sys.meta_path.insert(0, Finder)
from toolbay.entry import main
sys.argv = ["toolbay", *sys.argv[1:]]
main()
"""


# The settings' modules; and anyio's asyncio backend, which ``anyio.run`` imported as it started the loop, after
# Python's own Ctrl-C handler was back (over HTTP on a first start, the SDK still loading on its thread).
@pytest.mark.parametrize(("signal_name", "module", "transport"), [
    ("SIGINT", "toolbay.config", ()), ("SIGTERM", "toolbay.config", ()),
    ("SIGINT", "anyio._backends._asyncio", ("--transport", "http", "--port", "0"))])
def test_a_stop_that_comes_inside_the_import_system_while_a_first_start_loads_stops_the_server(
        tmp_path: Path, signal_name: str, module: str, transport: tuple[str, ...]) -> None:
    """Raised there, the interrupt left Python's import lock held: the SDK's import on the other thread never
    ended, nor did the bundled tools' descriptions ("serving 0 files' tools now; 4 more are being described"),
    and the Ctrl-C itself was lost ("Exception ignored in: ... cb"): a server that never served nor stopped."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "SIGNAL": signal_name, "INTERRUPTED_AFTER": module}
    # A first start (an empty data folder): the SDK loads on its thread while the server's modules load here.
    process = subprocess.Popen([sys.executable, "-c", SERVE_INTERRUPTED_IN_IMPORT_LOCK, "serve", "--data-dir",
                                str(tmp_path / "data"), *transport],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                               cwd=tmp_path)
    try:
        _, stderr = process.communicate(timeout=WAIT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    assert b"Exception ignored" not in stderr and b"Traceback" not in stderr, stderr



def test_a_first_start_refused_at_start_ends_without_waiting_for_the_sdk_to_load(tmp_path: Path) -> None:
    """A first start loads the MCP SDK on a thread and compiles the tools on others while it reads its
    settings. Refused then (here a workspace that is not there), it waited for that import to end (up to a
    minute) before it ended, the compiles going on for nothing: a misspelt workspace took 2 s and twice the
    processor time of a start that is no first one to be said. The import is held here until the test
    ends (once it gets that far: a server that waits for it waits its whole minute): the server must end on
    its own, saying why once."""
    held, release = tmp_path / "held", tmp_path / "release"
    missing = tmp_path / "no-such-folder"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HELD": str(held), "RELEASE": str(release),
           "HELD_MODULE": "toolbay.protocol.stdio_serving", "HOLD_FOR_GOOD": "1"}
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE_HELD, "serve", "--data-dir", str(tmp_path / "data"), "--workspace", str(missing)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    try:
        # Under a minute: the time a refused start waited for the import (serve_command._IMPORT_WAIT_S).
        stdout, stderr = process.communicate(timeout=WAIT_S / 3)
    finally:
        release.touch()
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 2
    assert stderr.decode().splitlines() == [f"toolbay: invalid configuration: workspace: {missing} does not exist"]
    assert stdout == b""
