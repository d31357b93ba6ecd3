"""Puts the parts around a running app: the call chain, jobs, built-in tools, the watcher.

One place, so that every transport and every test gets the same server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from handlers.jobs import job_tools
from handlers.refresh import RefreshToolsHandler
from server.app import Toolbay
from server.chain import ChainPolicies, ChainSettings
from server.job_recovery import read_jobs_recovery
from server.jobs import JobManager, SqliteJobStore
from server.protocol import results
from server.protocol.elicitation import ask_by_elicitation
from server.protocol.job_resources import install as install_job_resources
from server.protocol.tasks import install as install_tasks
from server.types import Transport
from server.watcher import ExtensionWatcher


@asynccontextmanager
async def assemble(app: Toolbay, *, watch: bool = True) -> AsyncIterator[Toolbay]:
    settings = app.settings
    policies = ChainPolicies.from_settings(ChainSettings.parse(settings.chain), ask=ask_by_elicitation)
    app.install_chain(policies)

    async def rescan() -> dict[str, list[str]]:
        change = await app.rescan()
        return {"added": list(change.added), "removed": list(change.removed), "changed": list(change.changed)}

    jobs = settings.jobs
    store = SqliteJobStore(settings.data_dir / "jobs.sqlite3")
    async with JobManager(
        store,
        sync_budget_s=jobs.sync_budget_s,
        max_concurrent=jobs.max_concurrent,
        max_per_caller=jobs.max_per_caller,
        retention_s=jobs.retention_s,
        serving_lock=settings.data_dir / "jobs.serving",
        recover=read_jobs_recovery(app) if jobs.restart_read_jobs else None,
    ) as manager, anyio.create_task_group() as group:
        app.jobs = manager

        def add_tasks(server: Any, transport: Transport) -> None:
            # tasks/result answers exactly what tools/call would have (same _meta names).
            install_tasks(server, manager, owner_of=lambda ctx: app.owner_id_for(ctx, transport),
                          to_call_result=results.tool_result_to_mcp)
            install_job_resources(server, manager, owner_of=lambda ctx: app.owner_id_for(ctx, transport))

        app.add_server_hook(add_tasks)
        preview_bytes = jobs.result_preview_kb * 1024
        app.add_builtins([RefreshToolsHandler(rescan), *job_tools(manager, preview_bytes=preview_bytes)])
        if watch:
            await group.start(ExtensionWatcher(app).run)
        try:
            yield app
        finally:
            group.cancel_scope.cancel()
            app.jobs = None
