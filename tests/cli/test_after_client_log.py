"""A stdio server that runs on after its client has gone writes its log to the data folder's
after-client.log: appended to, and started afresh (one older file kept) once it is large."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT
from toolbay.detach import AFTER_CLIENT_LOG_MAX_BYTES

# Run in a child: stay_after_client replaces the process's standard streams.
CHILD = """
import sys
from pathlib import Path
from toolbay.detach import stay_after_client
print("to the client", file=sys.stderr, flush=True)
stay_after_client(Path(sys.argv[1]))
print("after the client", file=sys.stderr, flush=True)
print("nothing on stdout", flush=True)
"""


def run_child(log: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CHILD, str(log)], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"})


def test_what_is_written_after_the_client_has_gone_is_appended_to_the_log(tmp_path: Path) -> None:
    log = tmp_path / "after-client.log"
    log.write_text("an earlier server\n")
    child = run_child(log)
    assert child.returncode == 0, child.stderr
    assert (child.stderr, child.stdout) == ("to the client\n", "")  # the client's pipes are let go
    assert log.read_text() == "an earlier server\nafter the client\n"


def test_a_large_log_is_started_afresh_keeping_one_older_file(tmp_path: Path) -> None:
    log = tmp_path / "after-client.log"
    log.write_text("x" * (AFTER_CLIENT_LOG_MAX_BYTES + 1))
    assert run_child(log).returncode == 0
    assert log.read_text() == "after the client\n"
    assert (tmp_path / "after-client.log.1").stat().st_size == AFTER_CLIENT_LOG_MAX_BYTES + 1
