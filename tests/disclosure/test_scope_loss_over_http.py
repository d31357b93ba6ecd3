"""A catalog tool a session found leaves its listing when the caller may no longer search the
folder, and does not come back unfound when the right does: over streamable HTTP, one session
whose bearer token is replaced mid-session (a refreshed JWT with fewer scopes, then more)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.chain_e2e.conftest import BASE_TOML, config_dir, mint, running, signing_key, tokens  # noqa: F401
from tests.disclosure.test_catalog_folders import CONNECTED_MODULE, VAULT_MODULE
from tests.disclosure.test_search_first import listed, names, search
from toolbay.config import load_settings

pytestmark = pytest.mark.anyio


async def test_a_found_catalog_tool_ends_with_the_right_to_search_its_folder(
        config_dir: Path, tokens: object, tmp_path: Path, mint: Callable[..., str]) -> None:  # noqa: F811
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    for folder in (notes, vault):
        folder.mkdir()
    (notes / "notes.py").write_text(CONNECTED_MODULE, encoding="utf-8")
    (vault / "vault.py").write_text(VAULT_MODULE, encoding="utf-8")
    config = config_dir / "toolbay.toml"
    config.write_text(BASE_TOML + f'\n[disclosure]\nmode = "search-first"\ncatalog = ["{vault}"]\ncatalog_allow = []\n',
                      encoding="utf-8")
    settings = load_settings(config, extensions=[notes, vault], agents=[], data_dir=tmp_path / "data", port=0)
    may_search = mint("bob", scope="tools:exec catalog:vault")
    may_not = mint("bob", scope="tools:exec")
    with anyio.fail_after(60):
        async with running(settings) as url, \
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {may_search}"},
                                   timeout=httpx2.Timeout(30, read=60)) as http, \
                Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy") as client:
            assert names(await search(client, "open the vault")) == ["vault_open"]
            found = await listed(client)
            http.headers["Authorization"] = f"Bearer {may_not}"
            without_the_right = await listed(client)
            http.headers["Authorization"] = f"Bearer {may_search}"
            with_it_again = await listed(client)
    assert "pin" in found["vault_open"].input_schema["properties"]
    assert "vault_open" not in without_the_right
    assert "vault_open" not in with_it_again  # to be found again, not brought back
