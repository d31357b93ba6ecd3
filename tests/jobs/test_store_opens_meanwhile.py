"""A server's job database is opened while its tools are described (``SqliteJobStore.begin_opening``):
the job manager opened it only once they were, and a new database's file, log and tables (eight
syncs to disk) were made while a first start's client waited for its first listing."""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import BUNDLED_EXTENSIONS
from toolbay.assembly import assemble
from toolbay.config import load_settings
from toolbay.errors import StorageError
from toolbay.jobs import SqliteJobStore

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _waited_for(path: Path, guard_s: float = 30.0) -> bool:
    """Whether ``path`` came to exist (looked for until ``guard_s``, a guard: it comes or not)."""
    end = time.monotonic() + guard_s
    while not path.exists():
        if time.monotonic() > end:
            return False
        time.sleep(0.005)
    return True


async def test_the_job_database_is_made_while_the_tools_are_described(tmp_path: Path) -> None:
    folder = tmp_path / "tools"
    folder.mkdir()
    shutil.copy(BUNDLED_EXTENSIONS / "hashsum.wasm", folder / "hashsum.wasm")
    database = tmp_path / "data" / "jobs.sqlite3"
    seen_while_describing: list[bool] = []

    def describing(outcome: object, total: int, first: str | None) -> None:
        if outcome is None:  # the first describing begins; the event loop waits here meanwhile
            seen_while_describing.append(_waited_for(database))

    settings = load_settings(None, extensions=[folder], agents=[], data_dir=tmp_path / "data")
    async with assemble(settings, watch=False, on_progress=describing) as app:
        assert seen_while_describing == [True]
        assert "hashsum" in {definition.name for definition in app.catalog.current.definitions()}
        assert app.jobs is not None and app.jobs.running_jobs == 0


async def test_a_database_that_cannot_be_opened_is_said_by_open_as_before(tmp_path: Path) -> None:
    (tmp_path / "jobs.sqlite3").mkdir()  # a folder where the file would be
    store = SqliteJobStore(tmp_path / "jobs.sqlite3")
    store.begin_opening()
    with pytest.raises(StorageError, match="cannot open the job database"):
        await store.open()
    await store.aclose()


def _descriptors_open_on(path: Path) -> int:
    opened = 0
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):  # closed meanwhile
            opened += Path(os.readlink(fd)) == path
    return opened


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc")
async def test_a_store_begun_and_never_opened_is_closed_by_aclose(tmp_path: Path) -> None:
    """A start that fails after the store's opening began (the manager never entered) closes
    the connection that opening made."""
    database = tmp_path / "jobs.sqlite3"
    store = SqliteJobStore(database)
    store.begin_opening()
    end = time.monotonic() + 30  # a guard: the connection is made at once
    while _descriptors_open_on(database) == 0 and time.monotonic() < end:
        time.sleep(0.005)
    assert _descriptors_open_on(database) > 0
    await store.aclose()
    assert _descriptors_open_on(database) == 0
