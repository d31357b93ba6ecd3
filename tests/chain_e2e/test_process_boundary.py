"""The chain and its safety checks through the real command: ``python -m server serve``
over stdio and HTTP, and ``toolbay token new``."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import anyio
import httpx2
import pytest
from anyio.streams.text import TextReceiveStream
from mcp import Client, StdioServerParameters
from typer.testing import CliRunner

from tests.chain_e2e.conftest import audit_lines, refusal_of, text_of
from tests.conftest import BUNDLED_EXTENSIONS, REPO_ROOT, patient_start
from toolbay.cli import app as cli_app

pytestmark = pytest.mark.anyio

# The bundled tools may be described here for the first time: the first listing waits for them.
ENV = patient_start({**os.environ, "PYTHONPATH": str(REPO_ROOT)})


def write_config(folder: Path, data_dir: Path, body: str = "") -> Path:
    config = folder / "toolbay.toml"
    config.write_text(f'data_dir = "{data_dir}"\nextensions = "{BUNDLED_EXTENSIONS}"\n{body}', encoding="utf-8")
    return config


async def test_the_chain_holds_on_stdio_with_the_local_scopes_from_the_config(
    tmp_path: Path, shared_data_dir: Path
) -> None:
    config = write_config(tmp_path, shared_data_dir, (
        'tiers = {"hashsum" = "exec"}\n'
        '[chain.auth]\nlocal_scopes = ["tools:read"]\n'
        '[chain.audit]\nfile = "audit.jsonl"\n'
    ))
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolbay", "serve", "--config", str(config)], cwd=str(REPO_ROOT), env=ENV,
    )
    with anyio.fail_after(60):
        async with Client(params, mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            refused = await client.call_tool("hashsum", {"text": "abc"})
            allowed = await client.call_tool("textkit_case", {"to": "upper", "stdin": "abc"})
    assert "hashsum" not in names and "textkit_case" in names
    assert refusal_of(refused)["code"] == "forbidden"
    assert text_of(allowed).strip() == "ABC"
    lines = audit_lines(tmp_path)  # audit.jsonl is relative to the config file
    assert [(line["transport"], line["caller_kind"], line["outcome"]) for line in lines] == [
        ("stdio", "local", "refused:forbidden"), ("stdio", "local", "ok"),
    ]


def serve_http_command(config: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "toolbay", "serve", "--config", str(config),
            "--transport", "http", "--host", "0.0.0.0", "--port", "0", *extra]


async def test_serving_http_beyond_loopback_without_authentication_is_refused(
    tmp_path: Path, shared_data_dir: Path
) -> None:
    config = write_config(tmp_path, shared_data_dir)
    with anyio.fail_after(60):
        completed = await anyio.run_process(serve_http_command(config), env=ENV, cwd=str(REPO_ROOT), check=False)
    message = " ".join(completed.stderr.decode().split())  # the console wraps long lines
    assert completed.returncode == 2
    assert "toolbay: refusing to serve HTTP on 0.0.0.0, which other machines can reach" in message
    assert "without authentication" in message
    assert "--insecure-no-auth" in message


async def test_the_insecure_flag_lets_it_serve_beyond_loopback_on_purpose(
    tmp_path: Path, shared_data_dir: Path
) -> None:
    config = write_config(tmp_path, shared_data_dir)
    command = serve_http_command(config, "--insecure-no-auth")
    async with await anyio.open_process(command, env=ENV, cwd=str(REPO_ROOT), stdout=subprocess.DEVNULL) as process:
        assert process.stderr is not None
        seen = ""
        try:
            with anyio.fail_after(60):
                async for chunk in TextReceiveStream(process.stderr):
                    seen += chunk
                    found = re.search(r"serving MCP on http://0\.0\.0\.0:(\d+)/mcp", seen)
                    if found:
                        break
            assert found, seen
            async with httpx2.AsyncClient() as http:
                with anyio.fail_after(10):
                    health = await http.get(f"http://127.0.0.1:{found.group(1)}/healthz")
        finally:
            process.send_signal(signal.SIGINT)
            with anyio.fail_after(15):
                await process.wait()
    assert health.status_code == 200


def test_token_new_prints_the_token_once_and_only_its_hash_for_the_tokens_file() -> None:
    result = CliRunner().invoke(cli_app, ["token", "new", "--client-id", "ci-bot", "--scope", "tools:read",
                                          "--scope", "tool:textkit_*"])
    assert result.exit_code == 0
    token, _, entry = result.stdout.partition("\n")
    assert token.startswith("tb_") and len(token) > 40
    assert (result.stdout + result.stderr).count(token) == 1
    assert tomllib.loads(entry) == {"tokens": [{
        "client_id": "ci-bot", "sha256": hashlib.sha256(token.encode()).hexdigest(),
        "scopes": ["tools:read", "tool:textkit_*"],
    }]}


def test_token_new_refuses_an_empty_client_id() -> None:
    result = CliRunner().invoke(cli_app, ["token", "new", "--client-id", " ", "--scope", "tools:read"])
    assert result.exit_code == 2
    assert "--client-id and every --scope must be non-empty" in result.stderr
