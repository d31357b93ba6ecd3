"""The settings that shape a call's life: the inline budget and the run limit, checked in pairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolbay.config import load_settings
from toolbay.errors import ConfigError


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "toolbay.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_with_no_configuration_calls_wait_seconds_and_jobs_run_for_minutes() -> None:
    settings = load_settings(None)
    assert settings.jobs.sync_budget_s == 5
    assert settings.run_limit_s == 900


def test_the_old_sandbox_timeout_alone_is_read_as_the_run_limit(tmp_path: Path) -> None:
    settings = load_settings(config(tmp_path, "[sandbox]\ntimeout_s = 120\n"))
    assert settings.run_limit_s == 120


def test_both_names_of_the_run_limit_at_once_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[sandbox\] timeout_s .* and \[jobs\] run_limit_s .* keep only"):
        load_settings(config(tmp_path, "[sandbox]\ntimeout_s = 120\n[jobs]\nrun_limit_s = 600\n"))


@pytest.mark.parametrize("text", [
    "[jobs]\nsync_budget_s = 30\nrun_limit_s = 30\n",
    "[jobs]\nsync_budget_s = 20\n[sandbox]\ntimeout_s = 10\n",
])
def test_a_run_limit_no_longer_than_the_inline_budget_is_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError, match=r"is not longer than \[jobs\] sync_budget_s") as refused:
        load_settings(config(tmp_path, text))
    assert "every call would be stopped before it could go on as a job" in str(refused.value)


def test_an_inline_budget_of_zero_makes_every_call_a_job_and_is_fine(tmp_path: Path) -> None:
    assert load_settings(config(tmp_path, "[jobs]\nsync_budget_s = 0\n")).jobs.sync_budget_s == 0
