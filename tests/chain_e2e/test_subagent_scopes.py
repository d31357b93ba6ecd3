"""A sub-agent is offered, at each turn, the tools its caller may use then.

An outside check cut a token's scopes from tools:exec to tools:read during an agent tool's
first turn: the second sampling request still offered hashsum (exec here), and the model's
call of it was refused. The README says a sub-agent is offered only the tools its caller may
use.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from tests.agents.conftest import ScriptedModel
from tests.chain_e2e.conftest import Tokens, connect, running
from tests.conftest import as_if_run_before
from toolbay.auth import tokens as tokens_module
from toolbay.config import BUNDLED_EXTENSIONS, Settings, load_settings

pytestmark = pytest.mark.anyio

ROLE = """---
name: counter
description: Counts words and hashes text.
tools: [textkit_count, hashsum]
---
You count words and hash texts.
"""


async def test_a_scope_cut_while_a_sub_agent_runs_takes_its_tools_off_the_next_turns_offer(
    make_settings: Callable[[str], Settings], tokens: Tokens, config_dir: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, shared_data_dir: Path,
) -> None:
    monkeypatch.setattr(tokens_module, "RELOAD_CHECK_S", 0.0)  # the file read again at each check
    roles = tmp_path / "roles"
    roles.mkdir()
    (roles / "counter.md").write_text(ROLE, encoding="utf-8")
    tokens_file = config_dir / "tokens.toml"

    def cut_the_operators_scopes(params: types.CreateMessageRequestParams) -> Any:
        blocks = tokens_file.read_text(encoding="utf-8").split("\n\n")
        tokens_file.write_text("\n\n".join(
            block.replace('scopes = ["tools:exec"]', 'scopes = ["tools:read"]') if '"operator"' in block
            else block for block in blocks), encoding="utf-8")
        os.utime(tokens_file, ns=(1, 1))  # a different modification time even on a coarse clock
        return [("textkit_count", {"stdin": "one two"})]

    model = ScriptedModel(cut_the_operators_scopes, "Two words.")
    make_settings("")  # the chain's configuration, written beside the tokens file
    settings = load_settings(config_dir / "toolbay.toml", extensions=[BUNDLED_EXTENSIONS], agents=[roles],
                             data_dir=as_if_run_before(tmp_path / "data", shared_data_dir), port=0)
    capabilities = types.SamplingCapability(tools=types.SamplingToolsCapability())
    async with running(settings) as url:
        with anyio.fail_after(60):
            async with connect(url, tokens["operator"], sampling_callback=model,
                               sampling_capabilities=capabilities) as client:
                result = await client.call_tool("agent_counter", {"task": "Count the words of 'one two'."})
    assert not result.is_error, result
    offered = [sorted(tool.name for tool in request.tools or []) for request in model.requests]
    assert offered == [["hashsum", "textkit_count"], ["textkit_count"]]
