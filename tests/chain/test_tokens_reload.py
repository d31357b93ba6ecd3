"""A token removed from the tokens file, or its scopes cut, stops working without a restart."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from toolbay.auth import tokens as tokens_module
from toolbay.auth.principal import FirstAccepting
from toolbay.auth.tokens import TokenStore, new_token
from toolbay.chain.authenticate import Authenticator
from toolbay.errors import Unauthenticated

pytestmark = pytest.mark.anyio


def _write(path: Path, entries: dict[str, str]) -> None:
    """The tokens file at ``path`` (TOML, or JSON for a ``.json`` name) holding ``entries``."""
    if path.suffix == ".json":
        path.write_text(json.dumps({"tokens": [{"client_id": client, "sha256": digest, "scopes": ["tools:read"]}
                                               for client, digest in entries.items()]}), encoding="utf-8")
        return
    text = "".join(f'[[tokens]]\nclient_id = "{client}"\nsha256 = "{digest}"\nscopes = ["tools:read"]\n\n'
                   for client, digest in entries.items())
    path.write_text(text, encoding="utf-8")


async def test_a_removed_token_stops_working_and_a_broken_edit_keeps_the_last_good_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(tokens_module, "RELOAD_CHECK_S", 0.0)  # check on every request
    alice, alice_hash = new_token()
    bob, bob_hash = new_token()
    path = tmp_path / "tokens.toml"
    _write(path, {"alice": alice_hash, "bob": bob_hash})
    store = TokenStore.from_file(path)
    assert await store.verify_token(bob) is not None

    _write(path, {"alice": alice_hash})
    os.utime(path, ns=(1, 1))  # a different modification time even on a coarse clock
    assert await store.verify_token(bob) is None
    assert await store.verify_token(alice) is not None

    path.write_text("[[tokens]\nbroken", encoding="utf-8")
    assert await store.verify_token(alice) is not None
    assert "is not valid TOML" in caplog.text and "stay in force" in caplog.text


@pytest.mark.parametrize(("name", "last_one_taken_out"), [
    ("tokens.toml", ""), ("tokens.toml", "# no tokens for now\n"), ("tokens.toml", "tokens = []\n"),
    ("tokens.toml", None), ("tokens.json", ""), ("tokens.json", " \n"), ("tokens.json", '{"tokens": []}'),
    # What an editor that writes a byte order mark leaves (a re-check).
    ("tokens.toml", "\ufeff"), ("tokens.json", "\ufeff\n")])
async def test_taking_out_the_last_token_or_the_file_refuses_every_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, name: str,
    last_one_taken_out: str | None
) -> None:
    """An editor leaves a file empty, or holding only comments, when its last entry is taken
    out: that was read as a broken file, so the token read before stayed in force; so did
    every token of a file removed (an outside check), and of a JSON file emptied (a re-check).
    ``None``: the file removed."""
    monkeypatch.setattr(tokens_module, "RELOAD_CHECK_S", 0.0)
    alice, alice_hash = new_token()
    path = tmp_path / name
    _write(path, {"alice": alice_hash})
    store = TokenStore.from_file(path)
    assert await store.verify_token(alice) is not None
    if last_one_taken_out is None:
        path.unlink()
    else:
        path.write_text(last_one_taken_out, encoding="utf-8")
        os.utime(path, ns=(1, 1))
    assert await store.verify_token(alice) is None
    assert "every token is refused" in caplog.text if last_one_taken_out is None else "holds no tokens" in caplog.text
    _write(path, {"alice": alice_hash})  # put back
    os.utime(path, ns=(2, 2))
    assert await store.verify_token(alice) is not None


async def test_scopes_cut_in_the_tokens_file_are_cut_at_the_next_call_through_the_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The chain remembers a verified token for half a minute (a JWT's signature is costly):
    # an edit of the tokens file must end that at once, or a revoked scope works on.
    monkeypatch.setattr(tokens_module, "RELOAD_CHECK_S", 0.0)
    alice, alice_hash = new_token()
    path = tmp_path / "tokens.toml"
    path.write_text(f'[[tokens]]\nclient_id = "alice"\nsha256 = "{alice_hash}"\nscopes = ["tools:exec"]\n',
                    encoding="utf-8")
    authenticator = Authenticator(verifier=FirstAccepting([TokenStore.from_file(path)]))
    assert (await authenticator.identify("http", alice)).scopes == frozenset({"tools:exec"})

    _write(path, {"alice": alice_hash})  # now tools:read only
    os.utime(path, ns=(1, 1))
    assert (await authenticator.identify("http", alice)).scopes == frozenset({"tools:read"})

    _write(path, {"bob": new_token()[1]})  # alice's token removed
    os.utime(path, ns=(2, 2))
    with pytest.raises(Unauthenticated):
        await authenticator.identify("http", alice)


def test_the_clients_a_reading_changed_are_told_once_and_only_they(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the server tells sessions after an edit of the tokens file (sessions.py): the
    client ids whose entry was added, removed or given other scopes, each once."""
    monkeypatch.setattr(tokens_module, "RELOAD_CHECK_S", 0.0)
    (_, alice), (_, bob), (_, carol) = new_token(), new_token(), new_token()
    path = tmp_path / "tokens.toml"
    _write(path, {"alice": alice, "bob": bob})
    store = FirstAccepting([TokenStore.from_file(path)])
    assert store.take_changed_clients() == frozenset()

    path.write_text(path.read_text(encoding="utf-8").replace('"tools:read"]\n\n[[tokens]]\nclient_id = "bob"',
                                                             '"tools:exec"]\n\n[[tokens]]\nclient_id = "bob"'),
                    encoding="utf-8")
    os.utime(path, ns=(1, 1))
    assert store.take_changed_clients() == frozenset({"alice"})  # bob's entry is as it was
    assert store.take_changed_clients() == frozenset()  # told once

    _write(path, {"bob": bob, "carol": carol})  # alice removed (and back to tools:read), carol added
    os.utime(path, ns=(2, 2))
    assert store.take_changed_clients() == frozenset({"alice", "carol"})

    path.write_text("[[tokens]\nbroken", encoding="utf-8")  # the last good reading stays: nothing changed
    os.utime(path, ns=(3, 3))
    assert store.take_changed_clients() == frozenset()


async def test_a_scope_that_grants_nothing_is_said_at_each_reading_of_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # "tools:exce" started a server that refused its holder's every call, with nothing said.
    from toolbay.chain.policies import ChainPolicies
    from toolbay.chain.settings import ChainSettings

    monkeypatch.setattr(tokens_module, "RELOAD_CHECK_S", 0.0)
    alice, alice_hash = new_token()
    path = tmp_path / "tokens.toml"
    path.write_text(f'[[tokens]]\nclient_id = "alice"\nsha256 = "{alice_hash}"\nscopes = ["tools:exce", "jobs"]\n',
                    encoding="utf-8")
    settings = ChainSettings.model_validate({"auth": {"tokens_file": str(path)}})
    policies = ChainPolicies.from_settings(settings, base_dir=tmp_path)
    assert "the token of 'alice' has the scope 'tools:exce', which grants nothing (did you mean 'tools:exec'?)" \
        in caplog.text
    assert "'jobs'" not in caplog.text  # only tools: scopes grant tools
    caplog.clear()
    path.write_text(path.read_text(encoding="utf-8").replace("tools:exce", "tools:raed"), encoding="utf-8")
    os.utime(path, ns=(1, 1))
    assert policies.verifier is not None and await policies.verifier.verify_token(alice) is not None
    assert "'tools:raed', which grants nothing (did you mean 'tools:read'?)" in caplog.text


def test_a_scope_that_grants_nothing_is_said_once_for_one_reading_though_the_file_is_read_twice(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The server reads the tokens file as it checks its settings before describing tools, and
    again for its chain: each such scope was said twice at every start (an outside check)."""
    from toolbay.chain.policies import ChainPolicies
    from toolbay.chain.settings import ChainSettings

    _, digest = new_token()
    path = tmp_path / "tokens.toml"
    path.write_text(f'[[tokens]]\nclient_id = "alice"\nsha256 = "{digest}"\nscopes = ["tools:exce"]\n',
                    encoding="utf-8")
    settings = ChainSettings.model_validate({"auth": {"tokens_file": str(path)}})
    ChainPolicies.from_settings(settings, base_dir=tmp_path)
    ChainPolicies.from_settings(settings, base_dir=tmp_path)
    assert caplog.text.count("has the scope 'tools:exce', which grants nothing") == 1
