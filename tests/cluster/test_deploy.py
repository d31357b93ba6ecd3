"""deploy/: the files an operator starts from are valid as they stand (haproxy's own check,
toolbay's own settings), and the load balancer the cluster tests run is configured as deploy's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from tests.cluster.servers import haproxy_config, need
from tests.conftest import REPO_ROOT
from toolbay.chain import ChainPolicies, ChainSettings
from toolbay.config import load_settings, read_toml

DEPLOY = REPO_ROOT / "deploy"


def test_the_haproxy_configuration_passes_haproxys_own_check() -> None:
    done = subprocess.run([need("haproxy"), "-c", "-f", str(DEPLOY / "haproxy.cfg")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Configuration file is valid" in done.stdout + done.stderr


def test_the_tests_balancer_balances_as_deploys_does() -> None:
    deployed = {line.strip() for line in (DEPLOY / "haproxy.cfg").read_text().splitlines()}
    backend = haproxy_config("fd@0", []).split("backend toolbay", 1)[1]
    for line in backend.strip().splitlines():
        assert line.strip() in deployed, line


def test_the_toolbay_configuration_is_valid_and_names_redis(tmp_path: Path) -> None:
    data = read_toml(DEPLOY / "toolbay.toml")
    # The container's folders, here.
    for key in ("workspace", "data_dir"):
        data[key] = str(tmp_path)
    data["extensions"] = [str(tmp_path)]
    settings = load_settings(None, **data)
    assert settings.cluster.redis == "redis://redis:6379/0"
    chain = ChainSettings.parse(settings.chain)
    # As compose.yaml's first line says: the operator makes the tokens file with the CLI.
    tokens = tmp_path / "tokens.toml"
    made = subprocess.run([sys.executable, "-m", "toolbay", "token", "new", "--client-id", "alice",
                           "--scope", "tools:exec", "--append", str(tokens)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    chain.auth.tokens_file = tokens
    policies = ChainPolicies.from_settings(chain, shared_limits=settings.cluster.redis)
    assert policies.limiter is not None and policies.authenticator.configured


def test_the_compose_file_runs_replicas_redis_with_persistence_and_haproxy() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"redis", "toolbay", "haproxy"}
    assert "--appendonly" in services["redis"]["command"]
    assert services["toolbay"]["deploy"]["replicas"] == 3
    assert "server-template toolbay 3 toolbay:8765" in (DEPLOY / "haproxy.cfg").read_text()
