"""The hash index: a warm start does not read unchanged files, and never trusts a changed one."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from toolbay.discovery import sha256_of
from toolbay.hash_index import HashIndex


def _age(path: Path, seconds: float) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_an_unchanged_file_is_not_read_again(tmp_path: Path) -> None:
    tool = tmp_path / "a.wasm"
    tool.write_bytes(b"\0asm one")
    _age(tool, 10)
    first = HashIndex(tmp_path / "index.json", sha256_of)
    assert first.hashes([tool]) == {tool: sha256_of(tool)}
    first.save()
    second = HashIndex(tmp_path / "index.json", sha256_of)
    assert second.hashes([tool]) == {tool: sha256_of(tool)}
    assert second.hashed == 0


def test_a_rewritten_file_is_hashed_again_even_with_the_same_size_and_modification_time(tmp_path: Path) -> None:
    tool = tmp_path / "a.wasm"
    tool.write_bytes(b"\0asm one")
    _age(tool, 10)
    recorded = tool.stat()
    index = HashIndex(tmp_path / "index.json", sha256_of)
    index.hashes([tool])
    index.save()
    # Rewritten in place with the same size, and its old modification time put back (as
    # `touch -r` or an unpacker does): only the change time tells. Without putting the time
    # back, the file would be hashed again merely for having changed recently.
    tool.write_bytes(b"\0asm two")
    os.utime(tool, ns=(recorded.st_atime_ns, recorded.st_mtime_ns))
    now = tool.stat()
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (recorded.st_size, recorded.st_mtime_ns, recorded.st_ino)
    assert now.st_mtime_ns < time.time_ns() - 2 * 10**9, "old enough to be trusted if unchanged"
    again = HashIndex(tmp_path / "index.json", sha256_of)
    assert again.hashes([tool]) == {tool: sha256_of(tool)}
    assert again.hashed == 1


def test_a_recently_written_file_is_never_trusted(tmp_path: Path) -> None:
    tool = tmp_path / "a.wasm"
    tool.write_bytes(b"\0asm one")
    index = HashIndex(tmp_path / "index.json", sha256_of)
    index.hashes([tool])
    index.hashes([tool])
    assert index.hashed == 2


def test_a_missing_or_corrupt_index_only_costs_hashing(tmp_path: Path) -> None:
    tool = tmp_path / "a.wasm"
    tool.write_bytes(b"\0asm one")
    (tmp_path / "index.json").write_text("{not json")
    index = HashIndex(tmp_path / "index.json", sha256_of)
    assert index.hashes([tool, tmp_path / "gone.wasm"]) == {tool: sha256_of(tool)}


def test_an_index_in_the_first_format_is_still_trusted(tmp_path: Path) -> None:
    tool = tmp_path / "a.wasm"
    tool.write_bytes(b"\0asm one")
    _age(tool, 10)
    stat = tool.stat()
    stamp = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]
    (tmp_path / "index.json").write_text(json.dumps({"format": 1, "files": {str(tool): [stamp, "f" * 64]}}))
    index = HashIndex(tmp_path / "index.json", sha256_of)
    assert index.hashes([tool]) == {tool: "f" * 64}  # the recorded hash: the file was not read
    assert index.hashed == 0


def test_an_entry_of_the_wrong_shape_only_costs_hashing(tmp_path: Path) -> None:
    tool = tmp_path / "a.wasm"
    tool.write_bytes(b"\0asm one")
    _age(tool, 10)
    (tmp_path / "index.json").write_text(json.dumps({"format": 2, "files": {str(tool): ["not", "a", "stamp"]}}))
    index = HashIndex(tmp_path / "index.json", sha256_of)
    assert index.hashes([tool]) == {tool: sha256_of(tool)}
    assert index.hashed == 1
