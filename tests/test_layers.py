"""Imports run down the layers, and no module imports itself back through others.

The layers, from the bottom up (a module may import its own layer and those below):

0. shared words: plain data, errors and the list of extension points
1. engines: the wasm runtime, the help-text describer, job stores and the job manager,
   configuration, token verification, caches, search
2. handlers: one class per kind of tool
3. catalog and discovery: scanning, describing, the catalog and its keeper, the watcher,
   the registry of connected sessions
4. the call chain
5. the app
6. protocol: MCP wiring and transports
7. the CLI, and the assembly that builds everything for it

A module that is in no layer fails the test: place it here when you add it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import REPO_ROOT

# Longest prefix wins. Module names are as installed (server/ is toolbay, handlers/ is toolbay.handlers).
LAYERS: dict[str, int] = {
    "toolbay": 0,  # the package itself: its version
    "toolbay.words": 0,
    "toolbay.ascii_names": 0,
    "toolbay.file_names": 0,  # whether a file's name is valid UTF-8
    "toolbay.null_device": 0,  # /dev/null, or what stands for it where it cannot be opened
    "toolbay.parsed_text": 0,  # a file's TOML or JSON past what the reader takes (nesting, digits), said as malformed
    "toolbay.small_files": 0,  # a configuration or tokens file read with a bound, never waiting on a FIFO
    "toolbay.deep_json": 0,  # JSON from outside read with no garbage collected while the reader is deep
    "toolbay.blotting": 0,  # values blotted out of text, strings mapped through JSON-like values
    "toolbay.reading": 0,  # how characters are read as words, alike for search and the credential blot
    "toolbay.redaction": 0,  # secret-looking text hidden in arguments, metadata and role prompts
    "toolbay.kept_patterns": 0,  # the patterns of toolbay's own modules, compiled once per installation
    "toolbay.tool_files": 0,  # a tool's file read without blocking, and never past the size a tool can be
    "toolbay.shortening": 0,  # a caller's arguments, secrets hidden, cut to what a log line can hold
    "toolbay.atomic_files": 0,  # files replaced whole or not at all
    "toolbay.workspace_links": 0,  # links a tool left leading out of the folders it may write, removed
    "toolbay.freed_memory": 0,  # memory glibc holds after a compile, given back
    "toolbay.stoppable_threads": 0,  # blocking work on worker threads, told to stop when cancelled
    "toolbay.errors": 0,
    "toolbay.defaults": 0,  # folders and values a server needs before it reads its settings
    "toolbay.close_names": 0,  # the names closest to one that names nothing
    "toolbay.closed_objects": 0,  # which objects of an input schema refuse properties they do not name
    "toolbay.plain_meta_schema": 0,  # input schemas plainly valid by the meta-schema, before jsonschema
    "toolbay.outcomes": 0,
    "toolbay.hooks": 0,
    "toolbay.flooding": 0,  # when a tool's output is a flood: one rule for wasm and Python tools
    "toolbay.logs": 0,
    "toolbay.wasm": 1,
    "toolbay.wasm.progress": 1,  # the guest's progress lines on stderr
    "toolbay.helptext": 1,
    "toolbay.jobs": 1,
    "toolbay.config": 1,
    "toolbay.auth": 1,
    "toolbay.description_cache": 1,
    "toolbay.hash_index": 1,
    "toolbay.cache_pruning": 1,
    "toolbay.internals": 1,
    "toolbay.internals.sre_code": 0,  # re's compiled code kept between runs (the standard library only)
    "toolbay.search": 1,
    "toolbay.subagents": 1,  # role files, the delegation decision, the sampling loop
    "toolbay.pytools": 1,
    "toolbay.cluster": 1,  # [cluster] redis: the shared job store, catalog notices (imported only then)
    "toolbay.metrics": 1,  # Prometheus counters of one server
    "toolbay.tracing": 1,  # [telemetry] traces: the OpenTelemetry tracer provider, or none
    "toolbay.handlers": 2,
    "toolbay.catalog": 3,
    "toolbay.tool_folders": 3,  # which extension folder a tool's file is in, and whether it is still there
    "toolbay.discovery": 3,
    "toolbay.listing_format": 3,
    "toolbay.catalog_keeper": 3,
    "toolbay.first_start": 3,  # a first start's compiles, begun before the server is assembled
    "toolbay.subagents.library": 3,  # the roles served, as agent_* handlers, reloaded with the catalog
    "toolbay.watcher": 3,
    "toolbay.sessions": 3,
    "toolbay.seen_catalogs": 3,  # what each session last saw of the catalog, for refresh_tools
    "toolbay.job_recovery": 3,  # a crashed server's read-tier jobs, from the catalog
    "toolbay.chain": 4,
    "toolbay.loop_turns": 1,  # quick runs take turns on the event loop, in order of arrival
    "toolbay.app": 5,
    "toolbay.protocol": 6,
    "toolbay.assembly": 7,
    "toolbay.commands": 7,
    "toolbay.cli": 7,
    "toolbay.entry": 7,
    "toolbay.jobs_cli": 7,
    "toolbay.cli_running": 7,
    "toolbay.token_lines": 7,  # what token new reads of the configuration, and the lines it prints for it
    "toolbay.cli_command": 7,  # the class of every command: its help
    "toolbay.detach": 7,  # serve over stdio forks so jobs outlive the client
    "toolbay.start_up_collector": 7,  # the collector paused while a server imports
    "toolbay.serve_command": 7,  # serve, started by the entry point without typer
    "toolbay.start_interrupts": 7,  # Ctrl-C while a server starts, raised out of the import system's locks
    "toolbay.__main__": 7,
}
SOURCES = {"toolbay": REPO_ROOT / "server", "toolbay.handlers": REPO_ROOT / "handlers"}


def module_files() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


def layer_of(module: str) -> int | None:
    prefix = module
    while prefix:
        if prefix in LAYERS:
            return LAYERS[prefix]
        prefix = prefix.rpartition(".")[0]
    return None


def _imports(tree: ast.AST, known: set[str], *, runtime_only: bool) -> Iterator[str]:
    for node in ast.walk(tree):
        if runtime_only and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []  # imports only for the type checker cannot make a circle at run time
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.split(".")[0] == "toolbay")
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "toolbay":
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                yield submodule if submodule in known else node.module


def import_graph(*, runtime_only: bool) -> dict[str, set[str]]:
    files = module_files()
    known = set(files)
    return {module: set(_imports(ast.parse(path.read_text(encoding="utf-8")), known, runtime_only=runtime_only))
            for module, path in files.items()}


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in graph.get(module, ()):
            if target not in graph:
                continue
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_every_module_has_a_layer() -> None:
    assert [module for module in sorted(module_files()) if layer_of(module) is None] == []


def test_no_module_imports_one_from_a_layer_above() -> None:
    upward = []
    for module, targets in sorted(import_graph(runtime_only=False).items()):
        own = layer_of(module)
        for target in sorted(targets):
            theirs = layer_of(target)
            if own is not None and theirs is not None and theirs > own:
                upward.append(f"{module} (layer {own}) imports {target} (layer {theirs})")
    assert upward == []


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert import_circles(import_graph(runtime_only=True)) == []


def test_the_checker_sees_an_upward_import_and_a_circle() -> None:
    """The checks above can fail: an engine importing the app, and two modules in a circle."""
    graph = {"toolbay.wasm.a": {"toolbay.app"}, "toolbay.app": {"toolbay.wasm.a"}}
    assert layer_of("toolbay.wasm.a") == 1 and layer_of("toolbay.app") == 5
    assert import_circles(graph) == [["toolbay.app", "toolbay.wasm.a"]]
