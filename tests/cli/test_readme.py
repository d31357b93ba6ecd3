"""The README is the front door: its references must match the code."""

from __future__ import annotations

import re

from typer.main import get_command

from tests.conftest import REPO_ROOT
from toolbay.cli import app
from toolbay.config import Settings
from toolbay.words import PermissionTier

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_in_the_configuration_reference() -> None:
    missing = []
    for name, field in Settings.model_fields.items():
        annotation = field.annotation
        nested = getattr(annotation, "model_fields", None)
        if name == "chain":
            assert "[chain." in README
        elif nested:
            missing += [f"[{name}] {sub}" for sub in nested if f"`[{name}] {sub}`" not in README]
        elif f"`{name}`" not in README:
            missing.append(name)
    assert missing == []


def test_every_cli_option_is_in_the_command_line_reference() -> None:
    group = get_command(app)
    missing = []
    for name, command in group.commands.items():
        assert f"toolbay {name}" in README, name
        for param in command.params:
            for opt in param.opts:
                if opt.startswith("--") and opt != "--help" and opt not in README:
                    missing.append(f"{name} {opt}")
    assert missing == []


def test_the_readme_test_command_is_what_ci_runs() -> None:
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    command = re.search(r"^uv run pytest.*$", ci, re.MULTILINE)
    assert command is not None and re.search(rf"^{re.escape(command.group(0))}\s", README, re.MULTILINE)


def test_the_readme_serve_command_is_what_mcp_json_starts() -> None:
    """Claude Code starts what .mcp.json says: the same command the README gives."""
    import json

    server = json.loads((REPO_ROOT / ".mcp.json").read_text())["mcpServers"]["toolbay"]
    assert server["command"] == "uv" and server["args"][:1] == ["run"]
    started = [arg for arg in server["args"][1:] if arg not in ("--quiet", "--no-dev")][:2]  # uv's own options
    assert " ".join(["uv", "run", *started]) + " " in README


def test_the_tier_spellings_the_readme_lists_are_the_ones_accepted() -> None:
    paragraph = README[README.index("- `TOOL_TIER` (or `TIER`) is read"):]
    paragraph = paragraph[:paragraph.index("counts as undeclared")]
    listed = re.findall(r"`([a-z]+(?:-[a-z]+)?)`", paragraph.split("accepted spellings")[0])
    assert {"readonly", "read-only", "ro", "rw", "execute"} <= set(listed), listed
    for spelling in listed:
        for written in (spelling, spelling.upper(), spelling.replace("-", "_")):
            assert PermissionTier.parse(written) is not None, written
    assert PermissionTier.parse("readable") is None and PermissionTier.parse("all") is None
