"""Python tool modules: described and run in worker processes, never in the server.

- ``convention``: what a tool module must define, and the tools its description yields.
- ``describe``: imports a module in a short-lived worker and reports its description.
- ``workers``: warm worker processes per module, with limits, cancellation and restarts.
- ``confinement``: what this kernel lets a worker enforce (Landlock, network namespace).
- ``credentials``: secrets for tools, from configuration, a private file or the environment.
- ``guest/``: the files run inside a worker (the worker loop, Landlock, ``toolbay_tools``).
"""

from toolbay.pytools.convention import ModuleSpec, PythonToolSpec, module_spec_from
from toolbay.pytools.workers import WorkerFailed, WorkerLimits, WorkerPool, WorkerSpec

__all__ = [
    "ModuleSpec", "PythonToolSpec", "WorkerFailed", "WorkerLimits", "WorkerPool", "WorkerSpec", "module_spec_from",
]
