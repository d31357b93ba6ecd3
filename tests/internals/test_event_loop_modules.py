"""What toolbay reaches into in anyio (``toolbay.internals.event_loop_modules``): ``anyio.run``
imports its event loop's modules as it is called, and a server imports them beforehand, while a
stop is still kept out of the import system's locks. This fails when an anyio upgrade makes
``anyio.run`` import a module the function does not."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT

PROBE = """
import sys
import anyio
from toolbay.internals.event_loop_modules import import_event_loop_modules
import_event_loop_modules()
before = set(sys.modules)
async def nothing():
    pass
anyio.run(nothing, backend_options={"use_uvloop": True})
print(sorted(set(sys.modules) - before))
"""


def test_anyio_run_imports_nothing_the_server_did_not_import_before() -> None:
    found = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                           cwd=REPO_ROOT, timeout=120)
    assert found.stdout.strip() == "[]", found.stdout
