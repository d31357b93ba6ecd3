"""Three real ``toolbay serve --transport http`` replicas on one Redis behind a real haproxy.

Each replica is a subprocess with its own port and data folder, sharing the tool folder and
the configuration file; it is ready when it logs the address it serves (its own line on
stderr), never after a sleep.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.cluster.servers import Haproxy, RedisServer
from tests.conftest import BUNDLED_EXTENSIONS, FIXTURE_WASM, as_if_run_before, patient_start

READY = re.compile(r"serving MCP on http://127\.0\.0\.1:(\d+)/mcp")


@dataclass
class Replica:
    process: subprocess.Popen[str]
    port: int
    log: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """As ``kill -9``: no shutdown, no last writes."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        if self.reader is not None:
            self.reader.join()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.kill()


def start_replica(folder: Path, config: Path, extensions: Path, workspace: Path, env: dict[str, str]) -> Replica:
    folder.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "toolbay", "serve", "--transport", "http", "--port", "0", "--config", str(config),
         "--extensions", str(extensions), "--data-dir", str(folder / "data"), "--workspace", str(workspace)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    assert process.stderr is not None
    log: list[str] = []
    for line in process.stderr:
        log.append(line)
        if match := READY.search(line):
            replica = Replica(process, int(match.group(1)), log)
            break
    else:
        process.wait()
        raise RuntimeError("a replica exited before serving:\n" + "".join(log[-30:]))

    def keep_reading() -> None:
        assert process.stderr is not None
        with process.stderr:
            for line in process.stderr:
                log.append(line)

    replica.reader = threading.Thread(target=keep_reading, daemon=True)
    replica.reader.start()
    return replica


CONFIG = """\
[cluster]
redis = "{redis}"
lease_s = 2

[jobs]
sync_budget_s = {sync_budget_s}

[tiers]
slowread = "read"
slowwrite = "write"
progress = "read"
"""
LIMITS = """
[chain.rate_limits]
global = "{limit}"
"""
# The whole cluster's calls, shared through Redis. Only the limit test comes near it; the
# others make a few calls a second at most.
GLOBAL_LIMIT = 40
GLOBAL_WINDOW = "minute"


@dataclass
class Cluster:
    redis: RedisServer
    replicas: list[Replica]
    balancer: Haproxy
    extensions: Path
    workspace: Path  # the replicas' shared workspace (/workspace to the tools)

    @property
    def url(self) -> str:
        return self.balancer.url


def _copy_if_still_there(source: str, target: str) -> None:
    """Copies one file of the first replica's data folder, which it goes on using while it is
    copied: its background optimiser replaces a module's quickly compiled first code with the
    optimised one, so a file listed a moment ago may be gone (on a busy machine the optimiser
    is still at work then). A replica compiles what its folder lacks."""
    with contextlib.suppress(FileNotFoundError):
        shutil.copy2(source, target)


def start_cluster(folder: Path, redis: RedisServer, compiled: Path, count: int = 3, *, limited: bool = True,
                  extra_tools: tuple[str, ...] = (), sync_budget_s: float = 0.3,
                  environment: dict[str, str] | None = None) -> Cluster:
    """``count`` replicas and haproxy; ``compiled``: a data folder whose compiled modules the
    first replica starts with (``shared_data_dir``), as a server that has run before has them;
    ``limited``: with the global limit (``GLOBAL_LIMIT``); ``extra_tools``: fixture programs
    (names in tests/fixtures/wasm) added to the tool folder; ``sync_budget_s``: short, so the
    tests' slow calls become jobs at once; ``environment``: more variables for the replicas
    (``TOOLBAY_*`` settings)."""
    extensions = folder / "extensions"
    shutil.copytree(BUNDLED_EXTENSIONS, extensions)
    for name in ("slow", "slowread", "slowwrite"):
        shutil.copy(FIXTURE_WASM / "slow.wasm", extensions / f"{name}.wasm")
    for name in extra_tools:
        shutil.copy(FIXTURE_WASM / f"{name}.wasm", extensions / f"{name}.wasm")
    workspace = folder / "workspace"
    workspace.mkdir()
    config = folder / "toolbay.toml"
    text = CONFIG.format(redis=redis.url, sync_budget_s=sync_budget_s)
    if limited:
        text += LIMITS.format(limit=f"{GLOBAL_LIMIT}/{GLOBAL_WINDOW}")
    config.write_text(text, encoding="utf-8")
    env = patient_start({**{k: v for k, v in os.environ.items() if not k.startswith("TOOLBAY_")},
                         **(environment or {})})
    replicas: list[Replica] = []
    try:
        # The first describes the tools into its data folder; the others start from a copy of
        # it, as an image built once would.
        as_if_run_before(folder / "r1" / "data", compiled)
        first = start_replica(folder / "r1", config, extensions, workspace, env)
        replicas.append(first)
        for index in range(2, count + 1):
            shutil.copytree(folder / "r1" / "data", folder / f"r{index}" / "data",
                            ignore=shutil.ignore_patterns("jobs.*"), copy_function=_copy_if_still_there)
            replicas.append(start_replica(folder / f"r{index}", config, extensions, workspace, env))
        balancer = Haproxy(folder / "haproxy", [r.port for r in replicas])
        balancer.start()
    except BaseException:
        for replica in replicas:
            replica.stop()
        raise
    return Cluster(redis, replicas, balancer, extensions, workspace)


@contextmanager
def logs_on_failure(cluster: Cluster) -> Iterator[None]:
    """A failure inside comes with the end of every replica's log (what each one did): an
    assertion, a timeout, or an error the client raised (a connection the balancer closed)."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - each is raised again, with the logs
        tails = "".join(f"\n--- replica {i} (port {r.port}) ---\n" + "".join(r.log[-25:])
                        for i, r in enumerate(cluster.replicas, 1))
        balancer = cluster.balancer.process
        state = "not started" if balancer is None else "running" if balancer.poll() is None \
            else f"exited with {balancer.returncode}"
        raise AssertionError(f"{exc!r}\n--- haproxy: {state} ---{tails}") from exc


def stop_cluster(cluster: Cluster) -> None:
    cluster.balancer.stop()
    for replica in cluster.replicas:
        replica.stop()
