"""Hundreds of random adds, replaces and deletes while calls run in parallel.

No call may crash or reach a module that is gone: each one either runs some version of its
tool or is told cleanly that the tool is not there (or was swapped while the call started).
Once the folder is still, one ``refresh_tools`` brings the catalog exactly in line with it.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.reload.conftest import GREET_V1, GREET_V2, HASHSUM, JUNK, WAIT_S, ListChanged, drop, text_of
from toolbay.app import Toolbay
from toolbay.protocol.mcp_server import build_mcp_server

pytestmark = pytest.mark.anyio

SEED = 20260728
OPERATIONS = 300
SLOTS = tuple(f"t{i}" for i in range(6))
CALLERS = 6
POOL = {"greet_v1": GREET_V1, "greet_v2": GREET_V2, "hashsum": HASHSUM, "junk": JUNK}
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
EXPECTED_OUTPUT = {
    "greet_v1": "hello, world (greet v1)",
    "greet_v2": "good day, world (greet v2)",
    "hashsum": EMPTY_SHA256,
}
CLEAN_REFUSALS = ("There is no tool named", "was replaced or removed while this call was starting")


def _write(rng: random.Random, source: Path, target: Path) -> None:
    if rng.random() < 0.5:
        shutil.copyfile(source, target)  # in place, as `cp` does: the watcher may see it half written
    else:
        temporary = target.with_name(f".{target.name}.partial")
        shutil.copyfile(source, temporary)
        os.replace(temporary, target)


async def test_random_changes_under_parallel_calls_end_with_the_catalog_matching_the_folder(
    reload_app: Toolbay, reload_dir: Path,
) -> None:
    rng = random.Random(SEED)
    content: dict[str, str] = {}  # slot -> pool key, as it is on disk now
    outcomes: list[tuple[str, bool, str]] = []
    changed = ListChanged()
    done = anyio.Event()

    async def call_forever(client: Client, caller: int) -> None:
        caller_rng = random.Random(SEED + caller)
        while not done.is_set():
            name = caller_rng.choice(SLOTS)
            result = await client.call_tool(name, {})
            outcomes.append((name, bool(result.is_error), text_of(result)))
            # A client's pause between calls: six callers still call a few times for every
            # change of the folder (flat out, they made thousands of calls to no more effect).
            await anyio.sleep(caller_rng.uniform(0, 0.02))

    async def churn() -> None:
        for _ in range(OPERATIONS):
            slot = rng.choice(SLOTS)
            target = reload_dir / f"{slot}.wasm"
            if slot in content and rng.random() < 0.3:
                target.unlink()
                del content[slot]
            else:
                key = rng.choice(list(POOL))
                _write(rng, POOL[key], target)
                content[slot] = key
            # Bursts and pauses: some pauses outlast the watcher's quiet time, so it rescans and
            # swaps many times while calls run; the bursts make it coalesce.
            await anyio.sleep(rng.uniform(0.04, 0.1) if rng.random() < 0.25 else rng.uniform(0, 0.005))
        done.set()

    async def refresh_now_and_then(client: Client) -> None:
        # Rescans asked for by a client, racing the watcher's own.
        while not done.is_set():
            result = await client.call_tool("refresh_tools", {})
            assert result.is_error is False, text_of(result)
            await anyio.sleep(rng.uniform(0.05, 0.2))

    with anyio.fail_after(60):
        async with Client(build_mcp_server(reload_app, "memory"), mode="legacy", message_handler=changed) as client:
            async with anyio.create_task_group() as group:
                for caller in range(CALLERS):
                    group.start_soon(call_forever, client, caller)
                group.start_soon(refresh_now_and_then, client)
                group.start_soon(churn)

            # Settle: broken files keep whatever good version came before them, which depends on
            # how the watcher batched the changes, so they leave before the final comparison.
            for slot, key in list(content.items()):
                if key == "junk":
                    (reload_dir / f"{slot}.wasm").unlink()
                    del content[slot]
            await client.call_tool("refresh_tools", {})
            listed = {tool.name for tool in (await client.list_tools()).tools}
            final_calls = {slot: await client.call_tool(slot, {}) for slot in SLOTS}

            # The watcher lived through it all: one more file is still noticed.
            seen = changed.count
            drop(GREET_V1, reload_dir, "after.wasm")
            await changed.after(seen, WAIT_S)

    unclean = [o for o in outcomes if o[1] and not any(refusal in o[2] for refusal in CLEAN_REFUSALS)]
    assert not unclean, unclean[:5]
    wrong = [o for o in outcomes if not o[1] and o[2].strip() not in EXPECTED_OUTPUT.values()]
    assert not wrong, wrong[:5]
    ran = sum(1 for o in outcomes if not o[1])
    assert len(outcomes) >= 100 and ran >= 50, (len(outcomes), ran)
    assert changed.count > 0

    builtins = {handler.definition.name for handler in reload_app.keeper.builtins}
    assert listed == builtins | set(content)
    on_disk = {p.stem for p in reload_dir.glob("*.wasm")} - {"after"}
    assert set(content) == on_disk
    for slot in SLOTS:
        result: Any = final_calls[slot]
        if slot in content:
            assert result.is_error is False, (slot, text_of(result))
            assert text_of(result).strip() == EXPECTED_OUTPUT[content[slot]], slot
        else:
            assert "There is no tool named" in text_of(result)
