"""Job results as MCP resources, owner only; a long result answered as a preview plus a
resource_link to the whole. Real SDK client over HTTP, two callers with their own tokens."""

from __future__ import annotations

import shutil
from pathlib import Path

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import FIXTURE_WASM
from tests.jobs_e2e.conftest import Callers, call, http_client, http_server, settings_for, structured, text

pytestmark = pytest.mark.anyio


def _echo_as_a_job(tmp_path: Path, data_dir: Path, callers: Callers, *lines: str) -> Path:
    """A configuration serving echo (stdin back) as a job at once, to tokens of ``callers``."""
    extensions = tmp_path / "extensions"
    extensions.mkdir()
    shutil.copy2(FIXTURE_WASM / "echo.wasm", extensions / "echo.wasm")
    config = tmp_path / "toolbay.toml"
    config.write_text("\n".join([
        f"extensions = [{str(extensions)!r}]", f"data_dir = {str(data_dir)!r}", 'background_tools = ["echo", "slow"]',
        *lines, "[chain.auth]", f"tokens_file = {str(callers.tokens_file)!r}", "",
    ]), encoding="utf-8")
    return config


async def test_a_long_result_is_a_preview_and_a_link_and_results_are_resources_of_their_owner(
        tmp_path: Path, data_dir: Path, callers: Callers) -> None:
    config = _echo_as_a_job(tmp_path, data_dir, callers, "[jobs]", "result_preview_kb = 1")
    long_text = "".join(f"line {n:05d}\n" for n in range(1000))  # 11 KiB
    async with http_server(settings_for(config)) as (url, _):
        async with http_client(url, callers.tokens["alice"]) as alice:
            job_id = structured(await call(alice, "echo", {"stdin": long_text}))["job_id"]
            await call(alice, "job_wait", {"job_id": job_id, "timeout_s": 50})
            answer = await call(alice, "job_result", {"job_id": job_id})
            assert answer.is_error is False
            assert text(answer).startswith("line 00000\n") and len(text(answer)) < 2000
            assert "The whole result is the resource" in text(answer)
            # Sizes a person can tell apart: it said "1 KiB of 10 KiB", and "4 KiB of 4 KiB" of 4,100 bytes.
            assert "[This is the first 1,024 bytes of 10.7 KiB." in text(answer)
            links = [block for block in answer.content if isinstance(block, types.ResourceLink)]
            assert [str(link.uri) for link in links] == [f"toolbay://jobs/{job_id}/result"]

            listed = await alice.list_resources()
            assert [str(r.uri) for r in listed.resources] == [f"toolbay://jobs/{job_id}/result"]
            templates = await alice.list_resource_templates()
            assert [t.uri_template for t in templates.resource_templates] == ["toolbay://jobs/{job_id}/result"]
            whole = await alice.read_resource(links[0].uri)
            assert [c.text for c in whole.contents if isinstance(c, types.TextResourceContents)] == [long_text]

        async with http_client(url, callers.tokens["bob"]) as bob:
            assert (await bob.list_resources()).resources == []
            with pytest.raises(MCPError, match="no job"):
                await bob.read_resource(f"toolbay://jobs/{job_id}/result")


async def test_a_result_of_a_mebibyte_is_read_whole_over_http(tmp_path: Path, data_dir: Path, callers: Callers) -> None:
    """resources/read was answered as an SSE event, and the SDK's client refuses an event past
    1 MiB: a result at the default output limit could not be read whole."""
    config = _echo_as_a_job(tmp_path, data_dir, callers)
    big = "0123456789abcde\n" * (1 << 16)  # 1 MiB, the default output limit
    async with http_server(settings_for(config)) as (url, _), http_client(url, callers.tokens["alice"]) as alice:
        job_id = structured(await call(alice, "echo", {"stdin": big}))["job_id"]
        await call(alice, "job_wait", {"job_id": job_id, "timeout_s": 50})
        whole = await alice.read_resource(f"toolbay://jobs/{job_id}/result")
    assert [c.text for c in whole.contents if isinstance(c, types.TextResourceContents)] == [big]


async def test_a_lost_result_is_an_error_to_read_not_its_content(tmp_path: Path, data_dir: Path,
                                                                 callers: Callers) -> None:
    # The sentence saying the result was lost came back as the resource's text, read as success.
    config = _echo_as_a_job(tmp_path, data_dir, callers)
    big = "0123456789abcde\n" * 32768  # 512 KiB: kept in a file beside the database
    async with http_server(settings_for(config)) as (url, _), http_client(url, callers.tokens["alice"]) as alice:
        job_id = structured(await call(alice, "echo", {"stdin": big}))["job_id"]
        await call(alice, "job_wait", {"job_id": job_id, "timeout_s": 50})
        for kept in (data_dir / "jobs-results").iterdir():
            kept.unlink()
        with pytest.raises(MCPError, match="The result of this job was lost"):
            await alice.read_resource(f"toolbay://jobs/{job_id}/result")


async def test_every_listed_result_can_be_read_and_one_a_row_lacks_is_said_lost(
        tmp_path: Path, data_dir: Path, callers: Callers) -> None:
    """A job ended with no result in its row (edited, damaged) was "not ended yet, call
    job_wait" to job_result and resources/read alike; and a row whose id is not hex (made by
    hand) was listed as a resource that could not be read (an outside check)."""
    import sqlite3

    config = _echo_as_a_job(tmp_path, data_dir, callers)
    async with http_server(settings_for(config)) as (url, _), http_client(url, callers.tokens["alice"]) as alice:
        job_id = structured(await call(alice, "echo", {"stdin": "kept"}))["job_id"]
        await call(alice, "job_wait", {"job_id": job_id, "timeout_s": 50})
        with sqlite3.connect(data_dir / "jobs.sqlite3") as conn:
            for offset, made_by_hand in ((1, "job_made-by-hand"), (2, "a job/by hand?")):
                conn.execute("INSERT INTO jobs SELECT ?, owner, tool, arguments, status, reason, created_at + ?, "
                             "updated_at, started_at, finished_at, NULL, NULL FROM jobs WHERE id = ?",
                             (made_by_hand, offset, job_id))
        listed = [str(r.uri) for r in (await alice.list_resources()).resources]
        assert listed == ["toolbay://jobs/a%20job%2Fby%20hand%3F/result", "toolbay://jobs/job_made-by-hand/result",
                          f"toolbay://jobs/{job_id}/result"]
        with pytest.raises(MCPError, match="The result of job a job/by hand\\? was lost"):
            await alice.read_resource(listed.pop(0))
        with pytest.raises(MCPError, match="The result of job job_made-by-hand was lost: its stored record holds"):
            await alice.read_resource(listed[0])
        answer = await call(alice, "job_result", {"job_id": "job_made-by-hand"})
        assert answer.is_error and "was lost" in text(answer) and "job_wait" not in text(answer)
        assert [c.text for c in (await alice.read_resource(listed[1])).contents
                if isinstance(c, types.TextResourceContents)] == ["kept"]


async def test_a_cancelled_jobs_result_read_as_a_resource_says_it_is_an_error(
        tmp_path: Path, data_dir: Path, callers: Callers) -> None:
    # A resource has no isError: "Job ... was cancelled" read as if it were the job's output.
    config = _echo_as_a_job(tmp_path, data_dir, callers)
    shutil.copy2(FIXTURE_WASM / "slow.wasm", tmp_path / "extensions" / "slow.wasm")
    async with http_server(settings_for(config)) as (url, _), http_client(url, callers.tokens["alice"]) as alice:
        done = structured(await call(alice, "echo", {"stdin": "fine"}))["job_id"]
        await call(alice, "job_wait", {"job_id": done, "timeout_s": 50})
        stopped = structured(await call(alice, "slow", {"ms": 60_000, "busy": True}))["job_id"]
        await call(alice, "job_cancel", {"job_id": stopped, "reason": "enough"})
        await call(alice, "job_wait", {"job_id": stopped, "timeout_s": 50})
        fine = await alice.read_resource(f"toolbay://jobs/{done}/result")
        cancelled = await alice.read_resource(f"toolbay://jobs/{stopped}/result")
    assert [c.text for c in fine.contents if isinstance(c, types.TextResourceContents)] == ["fine"]
    assert fine.meta is not None and fine.meta["toolbay/isError"] is False
    assert "was cancelled: enough" in "".join(
        c.text for c in cancelled.contents if isinstance(c, types.TextResourceContents))
    assert cancelled.meta is not None and cancelled.meta["toolbay/isError"] is True
    assert cancelled.meta["toolbay/reason"] == "enough"
