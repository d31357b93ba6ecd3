"""A write that the disk refuses leaves the old file whole and nothing beside it.

The disk is made full for a child process the way the kernel makes it for any process: a file
size limit (RLIMIT_FSIZE) under which a write past 4 KiB fails with EFBIG, as a full disk
fails with ENOSPC. Each store then writes something larger over something it wrote before.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="file size limits are POSIX")

LIMIT_BYTES = 4096

CHILD = textwrap.dedent("""
    import json, resource, signal, sys
    from pathlib import Path
    from toolbay.atomic_files import write_whole
    from toolbay.hash_index import HashIndex
    from toolbay.pytools.cache import PythonDescriptionCache

    folder, limit = Path(sys.argv[1]), int(sys.argv[2])
    source, cache, index_file = folder / "tool.py", PythonDescriptionCache(folder / "cache"), folder / "hashes.json"
    # What was there before the disk filled up.
    write_whole(source, b"OLD = 1\\n")
    cache.put("abc", {"tools": ["old"]})
    index = HashIndex(index_file, hasher=lambda path: "h")
    index.hashes([source])
    index.save()
    many = [folder / f"{'long-name-' * 10}{n}.py" for n in range(40)]
    for path in many:
        path.write_bytes(b"")

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    outcomes = {}
    try:
        write_whole(source, b"NEW = 1  #" + b"x" * 2 * limit)
        outcomes["source"] = "written"
    except OSError as error:
        outcomes["source"] = type(error).__name__
    cache.put("abc", {"tools": ["new"], "padding": "x" * 2 * limit})  # a cache says nothing
    index.hashes(many)
    index.save()  # nor does the index: a warning
    print(json.dumps(outcomes))
""")


def test_a_refused_write_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path), str(LIMIT_BYTES)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"source": "OSError"}
    assert (tmp_path / "tool.py").read_bytes() == b"OLD = 1\n"
    assert json.loads((tmp_path / "cache" / "abc.json").read_text())["tools"] == ["old"]
    assert str(tmp_path / "tool.py") in json.loads((tmp_path / "hashes.json").read_text())["files"]
    left = sorted(path.name for path in tmp_path.rglob("*") if "long-name" not in path.name)
    assert left == ["abc.json", "cache", "hashes.json", "tool.py"], left
