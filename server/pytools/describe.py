"""Describes a Python tool module by importing it in a short-lived, confined worker.

The server never imports tool modules itself: the worker (``guest/worker.py``) imports the
file, calls ``get_tool_schemas()`` and reads the module's declarations, then exits. Blocking:
run it on a worker thread.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO, Any

from toolbay.closed_objects import DATA_KEYWORDS
from toolbay.plain_meta_schema import plainly_valid
from toolbay.pytools.channel import HEADER, WROTE_TO_THE_CHANNEL, frame, new_frame_id
from toolbay.pytools.convention import input_schema_of
from toolbay.pytools.process_cap import PROCESS_CAP
from toolbay.pytools.workers import WorkerSpec, exit_reason, is_installed_module, process_env
from toolbay.stoppable_threads import WorkStopped

# How often a describing worker's run looks whether it is to stop (the server stopping).
_STOP_CHECK_S = 0.1


# The reason a .py file that serves no tool is skipped with (a helper the modules import).
NOT_A_TOOL_MODULE = "not a tool module"


class DescribeFailed(Exception):
    def __init__(self, reason: str, *, lasting: bool = False, with_packages: bool = False,
                 timed_out_after_s: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        # The time limit it ran past: a longer limit may let it finish.
        self.timed_out_after_s = timed_out_after_s
        # True when the file itself says why (no get_tool_schemas): worth caching.
        self.lasting = lasting
        # True when the file says why together with the packages installed (an import that
        # fails or runs past its time): worth caching until either changes.
        self.with_packages = with_packages


def describe_module(spec: WorkerSpec, timeout_s: float,
                    stop: threading.Event | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The module's description and the confinement the worker reported. Raises ``DescribeFailed``,
    or ``WorkStopped`` once ``stop`` is set (the worker is killed)."""
    if spec.module in sys.stdlib_module_names:
        # Imported as "json", it would stand for the standard library's json in the worker, and
        # whatever imports that (the worker itself, jsonschema, the module's own imports) breaks
        # with a message about something else.
        raise DescribeFailed(f"its name shadows Python's standard library module {spec.module!r}, which the "
                             "worker and the libraries it loads need: rename the file (its tools are named "
                             "after it)", lasting=True)
    if is_installed_module(spec.module):
        # Its neighbours in the folder (and the libraries they use) import the package by that
        # name: were the file to stand for it, its code would run in their workers, with the
        # credentials granted to them. The worker puts the folder after the packages, so it
        # cannot; the file itself is refused, saying why, rather than served beside a package
        # it hides in its own worker.
        raise DescribeFailed(f"its name shadows the installed package {spec.module!r}, which other modules import "
                             "by that name: rename the file (its tools are named after it)", with_packages=True)
    frame_id = new_frame_id()
    try:
        completed = _run_once(spec, timeout_s, describe=True, stop=stop, frame_id=frame_id)
    except subprocess.TimeoutExpired:
        raise DescribeFailed(f"importing it and calling get_tool_schemas() took over {timeout_s:g} s "
                             "([python] describe_timeout_s)", with_packages=True, timed_out_after_s=timeout_s) from None
    except OSError as exc:
        raise DescribeFailed(f"cannot start a Python worker: {exc}") from None
    ready = _first_frame(completed.stdout)
    if ready is None:
        stderr = completed.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        detail = f": {' | '.join(stderr)}" if stderr else ""
        raise DescribeFailed(f"describing it failed: {exit_reason(completed.returncode)}{detail}")
    if ready.get("id") != frame_id:  # a frame of the module's own, written where the worker's answer goes
        raise DescribeFailed(f"describing it failed: {WROTE_TO_THE_CHANNEL}", with_packages=True)
    if not ready.get("ok"):
        if ready.get("stage") == "returned":  # what get_tool_schemas() returned is no list of plain schemas
            raise DescribeFailed(str(ready.get("error")), with_packages=True)
        if ready.get("stage") == "describe":  # imported, then get_tool_schemas() (or a declaration) failed
            raise DescribeFailed(f"get_tool_schemas() failed: {ready.get('error')}", with_packages=True)
        raise DescribeFailed(f"it cannot be imported: {ready.get('error')}", with_packages=True)
    description = dict(ready.get("description") or {})
    if "not_a_tool_module" in description:
        raise DescribeFailed(f"{NOT_A_TOOL_MODULE}: {description['not_a_tool_module']}", lasting=True)
    schemas = description.get("schemas")
    if isinstance(schemas, list):
        # Here rather than in the worker, which would import the validator for it (two thirds
        # of a small module's describing); kept with the description, so once per version.
        not_json = {str(index): said for index, said in (description.get("not_json") or {}).items()}
        description["schema_problems"] = [not_json.get(str(index)) or schema_problem(item)
                                          for index, item in enumerate(schemas)]
    return description, dict(ready.get("confinement") or {})


def schema_problem(item: Any) -> str | None:
    """Why a tool's input schema is no valid JSON Schema (2020-12, its patterns included), or
    None: a schema no client can read breaks the listing of every tool, and one that validation
    cannot use, every call of its tool."""
    schema = input_schema_of(item) if isinstance(item, dict) else None
    if not isinstance(schema, dict):
        return None  # the convention says what is wrong with that shape
    if _deeper_than(schema, MAX_SCHEMA_DEPTH):
        # Told before the meta-schema's check recurses: near Python's recursion limit, a finaliser
        # that the garbage collector happens to run there fails too, and nobody can report it.
        return "it is nested too deeply to be checked"
    if (non_finite := _first_non_finite(schema)) is not None:
        # Python's JSON writes them, as NaN and Infinity; the wire's JSON has no such numbers, so
        # clients were sent null there (a schema the meta-schema refuses) and `list --json` NaN.
        value, where = non_finite
        return (f"it holds the number {value} at {where}, which JSON cannot carry "
                "(write it as a string, or leave it out)")
    if plainly_valid(schema):
        return None  # and it holds no $ref
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        declared = schema.get("$schema")
        dialect = (f" (it declares $schema {declared!r}, but tools' input schemas are read as JSON Schema 2020-12, "
                   "MCP's dialect)") if isinstance(declared, str) and "2020-12" not in declared else ""
        return f"{error.message} at {error.json_path}{dialect}"
    except RecursionError:
        return "it is nested too deeply to be checked"
    return _dangling_reference(schema)


# JSON levels (objects and arrays) a tool's input schema may nest: about 60 levels of
# properties, far past any real tool's, and well inside what the check's recursion takes.
MAX_SCHEMA_DEPTH = 128


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests objects and arrays more than ``limit`` deep (walked without recursion)."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            pending.extend((child, depth + 1) for child in node.values() if isinstance(child, dict | list))
        elif isinstance(node, list):
            pending.extend((child, depth + 1) for child in node if isinstance(child, dict | list))
    return False


def _first_non_finite(value: Any) -> tuple[float, str] | None:
    """The first NaN or infinity in ``value`` and its JSON path, or None (walked without recursion)."""
    pending: list[tuple[Any, str]] = [(value, "$")]
    while pending:
        node, path = pending.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return node, path
        if isinstance(node, dict):
            pending.extend((child, f"{path}.{key}") for key, child in reversed(node.items()))
        elif isinstance(node, list):
            pending.extend((child, f"{path}[{index}]") for index, child in reversed(list(enumerate(node))))
    return None


def _dangling_reference(schema: dict[str, Any]) -> str | None:
    """Why a ``$ref`` in the schema points at nothing in it, or None: the meta-schema takes any
    string there, and a dangling one failed every call of the tool instead of this file. That
    includes a reference elsewhere ("https://...", "other.json"): nothing is fetched, at a call
    either. Left alone where a subschema names a base of its own (``$id``)."""
    from referencing import Registry
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    references: list[str] = []
    pending: list[Any] = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            if node is not schema and "$id" in node:
                return None
            if isinstance(reference := node.get("$ref"), str):
                references.append(reference)
            # Values that are data, not schemas, may hold anything, "$ref" keys included.
            pending.extend(value for key, value in node.items() if key not in DATA_KEYWORDS)
    if not references:
        return None
    base = "urn:toolbay:input-schema"
    resolver = Registry().with_resource(base, DRAFT202012.create_resource(schema)).resolver(base_uri=base)
    for reference in references:
        try:
            resolver.lookup(reference)
        except Unresolvable:
            where = "in the schema" if reference.startswith("#") else "in the schema (nothing is fetched)"
            return f"its $ref {reference!r} points at nothing {where}"
    return None


def probe_confinement(spec: WorkerSpec, timeout_s: float) -> dict[str, Any]:
    """What a worker started with ``spec`` reports it is confined by; its module should be a
    harmless one (the ``toolbay_tools`` helper). Empty when the worker could not tell."""
    try:
        completed = _run_once(spec, timeout_s, describe=False, frame_id=new_frame_id())
    except (subprocess.TimeoutExpired, OSError):
        return {}
    ready = _first_frame(completed.stdout) or {}
    return dict(ready.get("confinement") or {})


def _run_once(spec: WorkerSpec, timeout_s: float, *, describe: bool, frame_id: str,
              stop: threading.Event | None = None) -> subprocess.CompletedProcess[bytes]:
    """Starts a worker, sends its init frame, closes its input (so it exits once ready) and
    collects what it wrote. Raises ``subprocess.TimeoutExpired`` past ``timeout_s`` and
    ``WorkStopped`` once ``stop`` is set, the worker killed in both cases."""
    with tempfile.TemporaryDirectory(prefix="toolbay-describe-") as tmp, subprocess.Popen(
            spec.command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=process_env(), start_new_session=True) as process:
        PROCESS_CAP.watch(process.pid, spec.limits.max_processes)
        try:
            message = spec.init_message(tmp, describe=describe, frame_id=frame_id)
            return _exchange(process, message, timeout_s, stop=stop)
        finally:
            # What the module started as it was imported ends with its describing.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            PROCESS_CAP.forget(process.pid)


def _exchange(process: subprocess.Popen[bytes], init: dict[str, Any], timeout_s: float, *,
              stop: threading.Event | None) -> subprocess.CompletedProcess[bytes]:
    # The message (the module's text with it) is written on a thread of its own: communicate,
    # polled with a timeout below, writes its input only on its first try (CPython refuses it
    # again), so a module over a pipe's 64 KB whose worker was slow to start reading never
    # arrived whole and waited out the timeout. communicate is left only the reading.
    worker_input, process.stdin = process.stdin, None
    if worker_input is not None:
        threading.Thread(target=_write_and_close, args=(worker_input, frame(init)),
                         name="toolbay-describe-input", daemon=True).start()
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        try:
            # Output already read is kept between tries (the documented way to poll).
            stdout, stderr = process.communicate(timeout=max(0.0, min(left, _STOP_CHECK_S)))
        except subprocess.TimeoutExpired:
            stopped = stop is not None and stop.is_set()
            if process.poll() is not None:
                # The worker has ended and its output is still open: held by a process the module
                # started as it was imported (os.fork), which would keep this waiting out the
                # whole time limit ("took over 10 s" of an import of milliseconds). It ends with
                # the describing, as the group does below; what the worker wrote is read then.
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                stdout, stderr = process.communicate()
                return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
            if not stopped and time.monotonic() < deadline:
                continue
            # The group: a process the module started holds the worker's output open too.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            if stopped:
                raise WorkStopped from None
            raise subprocess.TimeoutExpired(process.args, timeout_s) from None
        return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def _write_and_close(stream: IO[bytes], data: bytes) -> None:
    """Writes ``data`` whole, then ends the stream; a worker that ended first (killed, or
    failed before reading) is no error here: its exit says what happened."""
    with contextlib.suppress(OSError, ValueError):
        stream.write(data)
    with contextlib.suppress(OSError, ValueError):
        stream.close()


def _first_frame(data: bytes) -> dict[str, Any] | None:
    if len(data) < HEADER.size:
        return None
    (size,) = HEADER.unpack_from(data)
    body = data[HEADER.size:HEADER.size + size]
    if len(body) < size:
        return None
    try:
        message: dict[str, Any] = json.loads(body)
    except ValueError:
        return None
    return message


@functools.cache
def packages_stamp() -> str:
    """What the Python that workers run has installed, as one short string: its version and
    the last change of each site-packages folder (installing or removing a package changes
    it). A failure to import a module is remembered only while this stays the same."""
    parts = [sys.version]
    for folder in site.getsitepackages():
        try:
            parts.append(f"{folder}:{os.stat(folder).st_mtime_ns}")
        except OSError:
            parts.append(f"{folder}:-")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
