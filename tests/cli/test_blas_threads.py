"""A toolbay command's numpy starts no BLAS thread of its own: OpenBLAS started one for each
further core as numpy loaded (``toolbay search``, a server's first search), 30-60 ms of
processor time on two cores for threads a search does not use (``toolbay.entry``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import BUNDLED_EXTENSIONS

# ``toolbay search`` run as the entry point runs it, saying at its exit how many threads of the
# process are not Python's (OpenBLAS's are not) and whether it loaded numpy.
_SEARCH = (
    "import atexit, json, os, sys, threading\n"
    "sys.argv = ['toolbay', 'search', 'count words', '--extensions', sys.argv[1], '--data-dir', sys.argv[2]]\n"
    "atexit.register(lambda: print(json.dumps([len(os.listdir('/proc/self/task')) - len(threading.enumerate()),\n"
    "                                          'numpy' in sys.modules]), file=sys.stderr))\n"
    "from toolbay.entry import main\n"
    "main()\n"
)


def _native_threads_of_a_search(data: Path, blas_threads: str | None) -> int:
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    if blas_threads is not None:
        env["OPENBLAS_NUM_THREADS"] = blas_threads
    ran = subprocess.run([sys.executable, "-c", _SEARCH, str(BUNDLED_EXTENSIONS), str(data)], env=env,
                         capture_output=True, text=True, timeout=120, check=True)
    native, numpy_loaded = json.loads(ran.stderr.strip().splitlines()[-1])
    assert numpy_loaded, "the search did not load numpy: nothing is measured"
    return int(native)


@pytest.mark.skipif((os.cpu_count() or 1) < 2 or not Path("/proc/self/task").is_dir(),
                    reason="OpenBLAS starts no thread of its own on one core; threads are counted in /proc")
def test_a_search_loads_numpy_without_a_blas_thread_and_a_users_setting_stands(tmp_path: Path) -> None:
    _native_threads_of_a_search(tmp_path, "1")  # describes the tools (compiles, on threads of its own) once
    one_thread = _native_threads_of_a_search(tmp_path, "1")
    assert _native_threads_of_a_search(tmp_path, None) == one_thread
    assert _native_threads_of_a_search(tmp_path, "2") == one_thread + 1  # the user's value, as given
