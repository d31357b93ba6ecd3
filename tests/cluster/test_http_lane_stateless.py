"""On a stateless server (``[cluster]``, replicas behind a load balancer) the HTTP quick lane
answers in front of the SDK's session manager: exactly what the SDK answers, with a real Redis,
the real HTTP app and the same requests as tests/protocol/test_http_lane.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.protocol.test_http_lane import answered_alike, assert_answers_a_client_expects, tools_call
from toolbay.auth.tokens import new_token
from toolbay.config import load_settings
from toolbay.wasm import quick

pytestmark = pytest.mark.anyio

# Without sessions, a call with a session id the server does not know (25), with an empty one
# (26), or with another handshake-era version (21) is served like any other: by the lane too.
TAKEN_BY_THE_LANE = {10, 11, 12, 13, 15, 18, 19, 21, 25, 26, 30, 34}


@pytest.fixture(autouse=True)
def _runs_count_as_quick_however_busy_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quick, "QUICK_CPU_S", 60.0)
    monkeypatch.setattr(quick, "QUICK_OWN_S", 60.0)


async def test_the_stateless_lane_answers_as_the_sdk_does(
        redis_url: str, extensions_dir: Path, shared_data_dir: Path, workspace: Path) -> None:
    settings = load_settings(None, extensions=[extensions_dir], data_dir=shared_data_dir, workspace=workspace,
                             cluster={"redis": redis_url})
    by_id, taken = await answered_alike(settings)
    assert taken == len(TAKEN_BY_THE_LANE)
    assert_answers_a_client_expects(by_id)


async def test_the_stateless_lane_answers_each_caller_as_the_sdk_does(
        redis_url: str, extensions_dir: Path, shared_data_dir: Path, workspace: Path, tmp_path: Path) -> None:
    """With tokens: no token and a wrong one are refused before the lane (401), and a caller
    whose scopes do not cover a tool is refused by the same chain, lane or not."""
    operator, operator_hash = new_token()
    textkit_only, textkit_hash = new_token()
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(f"""
[[tokens]]
client_id = "operator"
sha256 = "{operator_hash}"
scopes = ["tools:exec"]

[[tokens]]
client_id = "textkit-only"
sha256 = "{textkit_hash}"
scopes = ["tool:textkit_*"]
""")
    requests = [
        (tools_call(40, "hashsum", {"stdin": "a"}), {}),                                            # the operator
        (tools_call(41, "hashsum", {"stdin": "b"}), {"Authorization": ""}),                          # no token: 401
        (tools_call(42, "hashsum", {"stdin": "c"}), {"Authorization": "Bearer tb_not-a-token"}),     # wrong: 401
        (tools_call(43, "hashsum", {"stdin": "d"}), {"Authorization": f"Bearer {textkit_only}"}),    # not in scope
        (tools_call(44, "textkit_count", {"stdin": "e f"}), {"Authorization": f"Bearer {textkit_only}"}),
    ]
    settings = load_settings(None, extensions=[extensions_dir], data_dir=shared_data_dir, workspace=workspace,
                             cluster={"redis": redis_url}, chain={"auth": {"tokens_file": str(tokens)}})
    base = {"Authorization": f"Bearer {operator}"}
    by_id, taken = await answered_alike(settings, requests, base)
    statuses = [by_id[n][0] for n in range(40, 45)]
    assert statuses == [200, 401, 401, 200, 200]
    assert by_id[40][2]["result"]["isError"] is False
    assert by_id[43][2]["result"]["isError"] is True  # the chain's refusal, in the lane too
    assert by_id[44][2]["result"]["isError"] is False
    assert taken == 3  # the three that reached a tool's chain; the 401s never reach the lane
