"""``toolbay serve`` reads its own options when they are well formed (toolbay.serve_command), so
that a server starts without typer; whatever it takes, it must read exactly as typer does, and
whatever it does not take goes to typer, which answers as documented.

typer's reading is taken from typer itself: the real ``toolbay`` command table is run (through
typer's test runner) with the server replaced by a recorder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import pytest
from typer.testing import CliRunner

import toolbay.serve_command
from toolbay.cli import TransportName, app
from toolbay.config import Settings
from toolbay.serve_command import TRANSPORTS, serve_options_at_once

PARAMETERS = ("transport", "host", "port", "extensions", "data_dir", "workspace", "config", "allow_insecure")
DEFAULTS: dict[str, Any] = {name: None for name in PARAMETERS} | {"allow_insecure": False}


def as_typer_reads(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: list[dict[str, Any]] = []

    def record(*args: Any) -> None:
        seen.append(dict(zip(PARAMETERS, args, strict=True)))

    monkeypatch.setattr(toolbay.serve_command, "serve", record)
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert len(seen) == 1
    return seen[0]


@pytest.mark.parametrize("argv", [
    [],
    ["--transport", "http", "--host", "0.0.0.0", "--port", "0"],
    ["-t", "sse", "--port=8765", "--host=::1"],
    ["--transport=stdio"],
    ["-e", "tools", "--extensions", "more tools", "--extensions=third", "-e", "./x/../y"],
    ["--data-dir", "~/data", "--workspace=.", "-c", "toolbay.toml"],
    ["--config=conf/a b.toml", "--insecure-no-auth", "--transport", "http"],
    ["--workspace", "/ws", "--data-dir=/d", "--port", "65535", "--extensions", "ext"],
])
def test_the_options_it_takes_are_read_as_typer_reads_them(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = serve_options_at_once(["serve", *argv])
    assert fast is not None
    assert DEFAULTS | fast == as_typer_reads(["serve", *argv], monkeypatch)


@pytest.mark.parametrize("argv", [
    ["--help"],
    ["-h"],
    ["--transport", "tcp"],  # not a transport: typer says which are
    ["--port", "eighty"],
    ["--port", "+80"],
    ["--port"],  # a value is missing
    ["--host"],
    ["--bogus"],
    ["extra"],
    ["-t=http"],  # click reads this as the value "=http"
    ["-thttp"],
    ["--transport", "http", "--transport", "sse"],  # typer keeps the last: left to it
    ["--insecure-no-auth", "--insecure-no-auth"],
    ["--insecure-no-auth=yes"],
    ["--extensions", "--data-dir", "d"],  # a value that looks like an option
    ["--data-dir", ""],
])
def test_anything_else_is_left_to_typer(argv: list[str]) -> None:
    assert serve_options_at_once(["serve", *argv]) is None


def test_other_commands_are_left_to_typer() -> None:
    assert serve_options_at_once(["list", "--extensions", "x"]) is None
    assert serve_options_at_once([]) is None
    assert serve_options_at_once(["--version"]) is None


def test_the_transports_it_takes_are_those_typer_offers_and_settings_accept() -> None:
    # Three spellings of one list (typer needs an enum, the settings a Literal, the fast path
    # neither library): they must not drift apart.
    offered = {transport.value for transport in TransportName}
    assert set(TRANSPORTS) == offered == set(get_args(Settings.model_fields["transport"].annotation))


def test_typer_still_refuses_what_it_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolbay.serve_command, "serve", lambda *args: pytest.fail("served"))
    refused = CliRunner().invoke(app, ["serve", "--transport", "tcp"])
    assert refused.exit_code == 2
    assert "tcp" in refused.output


def test_paths_come_as_given_not_resolved(tmp_path: Path) -> None:
    options = serve_options_at_once(["serve", "--extensions", "rel/tools", "--data-dir", str(tmp_path)])
    assert options == {"extensions": ["rel/tools"], "data_dir": str(tmp_path)}
