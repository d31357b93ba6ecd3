"""A real stdio server asked for JSON logs and console traces: every line it writes on stderr
is one JSON object (a log record with its level, logger, message and the call's tool and
request id, or a span), stdout carries only the protocol (the SDK's client reads it), and no
argument value reaches either."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import REPO_ROOT, patient_start

pytestmark = pytest.mark.anyio

SECRET = "argument-value-5be1d0"
CONFIG = """\
log_format = "json"

[telemetry]
traces = "console"

[chain.approval]
tiers = ["read", "write", "exec"]
when_unsupported = "allow"
"""


ANSWERS: list[str] = []


async def errs_once(context: Any, params: Any) -> types.ErrorData | types.ElicitResult:
    """A client that errs the first time it is asked for approval (the server logs it and
    refuses that call), then approves."""
    ANSWERS.append(params.message)
    if len(ANSWERS) == 1:
        return types.ErrorData(code=-32603, message="nobody here to ask")
    return types.ElicitResult(action="accept")


async def test_json_logs_and_console_spans_go_to_stderr_one_object_a_line(
        tmp_path: Path, extensions_dir: Path, shared_data_dir: Path) -> None:
    config = tmp_path / "toolbay.toml"
    config.write_text(CONFIG, encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbay", "serve", "--config", str(config), "--extensions", str(extensions_dir),
              "--data-dir", str(shared_data_dir)],
        cwd=str(REPO_ROOT), env=patient_start({**os.environ, "PYTHONPATH": str(REPO_ROOT)}))
    stderr_path = tmp_path / "stderr.txt"
    with stderr_path.open("w", encoding="utf-8") as stderr, anyio.fail_after(300):
        async with Client(stdio_client(params, errlog=stderr), mode="legacy", elicitation_callback=errs_once) \
                as client:
            refused = await client.call_tool("hashsum", {"text": SECRET})
            result = await client.call_tool("hashsum", {"text": SECRET})
    assert refused.is_error and (refused.meta or {})["toolbay/refusal"]["code"] == "approval_denied"
    assert not result.is_error  # stdout held nothing but the protocol, or the client would have failed

    lines = [line for line in stderr_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    objects = [json.loads(line) for line in lines]  # every line, not some: one object each
    records = [o for o in objects if "level" in o]
    spans = [o for o in objects if "context" in o and "name" in o]
    assert len(records) + len(spans) == len(objects)
    assert all({"time", "level", "logger", "message"} <= r.keys() for r in records)
    # ISO 8601 in UTC, as the audit log's times: logging's own form said no time zone.
    assert all(datetime.fromisoformat(r["time"]).utcoffset() == timedelta(0) for r in records)
    asked = [r for r in records if r["message"].startswith("the client's answer to the approval of hashsum")]
    assert len(asked) == 1 and asked[0]["tool"] == "hashsum" and asked[0]["level"] == "INFO"
    assert asked[0]["logger"] == "toolbay.protocol.elicitation" and asked[0]["request_id"]
    names = {s["name"] for s in spans}
    assert {"toolbay.call", "authenticate", "validate", "approve", "toolbay.run"} <= names
    # With its provider global, the SDK's own span of the request is the call span's parent.
    call = next(s for s in spans if s["name"] == "toolbay.call")
    sdk = next(s for s in spans if s["name"] == "tools/call hashsum")
    assert call["parent_id"] == sdk["context"]["span_id"]
    assert call["resource"]["attributes"]["service.name"] == "toolbay"
    assert SECRET not in "\n".join(lines)
