"""A toolbay Python tool worker: imports one tool module, confined, and serves its calls.

Run by path (``python -I worker.py``), never imported by the server. The server speaks to it
over the standard input and output it was started with, in frames (4-byte big-endian length,
then a JSON object); before the module is imported those two descriptors move elsewhere, so a
module that prints (even from C) cannot corrupt the frames: fd 1 becomes the worker's stderr,
and ``print`` goes to a bounded buffer per call.

Frames from the server: ``init`` (once), then ``call``s, each answered by a ``result``;
during a call the worker may send ``credential`` requests, each answered by the server.
"""

from __future__ import annotations

import _thread
import collections.abc
import contextlib
import contextvars
import ctypes
import errno
import fcntl
import importlib.util
import io
import json
import os
import re
import resource
import signal
import struct
import sys
import threading
from collections.abc import Awaitable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a module that needs it imports it)
if TYPE_CHECKING:
    from typing import Any, NoReturn

# asyncio, inspect and traceback are imported when first needed: asyncio alone is most of a
# worker's start-up otherwise.

_GUEST = os.path.dirname(os.path.abspath(__file__))
_CLONE_NEWNET = 0x40000000
_HEADER = struct.Struct(">I")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

_PR_SET_PDEATHSIG = 1
_SIGKILL = 9
# How much of a tool's exception message becomes its error: a message may repeat a whole argument.
_ERROR_CHARACTERS = 4096
_THREADS_LIMITED = (" (the worker's limits: each thread's stack counts against its memory, [sandbox] memory_mb, "
                    "and each thread against its processes, [python] max_processes; start fewer threads)")
# Set once the worker's files are confined (Landlock): a PermissionError then says so, or it
# reads as the file's own permissions.
_files_confined = False
# Set once the worker is kept off the network (its own namespace, Landlock's TCP rules, UNIX
# sockets refused): a refused connection then says so, where it read as a bare "[Errno 13]
# Permission denied" (an outside check).
_network_withheld = False
_NO_NETWORK = (" (toolbay gives this tool no network: [python] network_allow names the modules that may use "
               "it; a module without it has its own empty network and may not open UNIX sockets)")
# Errors a connection withheld so ends in: refused by Landlock or the filter, no route in an empty
# network, no name server to ask.
_WITHHELD_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ECONNREFUSED})
_CONFINED_FILES = (" (toolbay confines this tool's files, [python] confine: it reads its own folder, Python's "
                   "files and a few system files, reads or writes the workspace as its tier allows, and writes "
                   "its TMPDIR; nothing else)")


def _die_with_the_server() -> None:
    """The worker is killed when the server dies, however it dies (kill -9 included): left
    running, it would finish a call the server can no longer record, which the next server
    then reports as unfinished, or runs again beside it. Linux only; elsewhere a no-op."""
    server = os.getppid()
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != server:  # the server died before the line above: nobody is waiting
        os._exit(1)


def _out_of_reach(fd: int) -> int:
    """A copy of ``fd`` at a number no module reaches by accident, closed on exec: low numbers
    (3, 4, ...) are what a loop over descriptors or a library given a wrong number writes to
    or closes (``os.closerange(3, 256)`` closed the worker's channels, and its next read failed
    with a traceback). High, but under the process's limit, past which no descriptor opens."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, max(3, min(soft, 1024) - 16))
    except OSError:  # a limit too low for that: the lowest free number does
        copy = os.dup(fd)
        os.set_inheritable(copy, False)
        return copy


_die_with_the_server()
_in_fd = _out_of_reach(0)
_out_fd = _out_of_reach(1)
try:
    _null = os.open(os.devnull, os.O_RDWR)
except OSError:  # no /dev/null to open (a container's mode 600): an empty pipe, read to its end at once
    _null, _null_writer = os.pipe()
    os.close(_null_writer)
os.dup2(_null, 0)
os.dup2(2, 1)
os.close(_null)
# The id of the server's message being answered: every frame sent carries it (see
# ``toolbay.pytools.channel``): the ``init``'s, then each ``call``'s.
_frame_id: str | None = None


def _read_exactly(size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(_in_fd, size)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _leave_if_forked() -> None:
    """A fork of the worker that reaches the wire (a tool that called os.fork() and returned in
    both processes, or forked at import) ends here: the wire is the worker's. Read or written
    by two processes, every later answer would go to the call before it, another caller's too."""
    if _forked:
        os._exit(0)


def receive() -> dict[str, Any]:
    _leave_if_forked()
    (size,) = _HEADER.unpack(_read_exactly(4))
    message: dict[str, Any] = json.loads(_read_exactly(size))
    return message


def send(message: dict[str, Any]) -> None:
    _leave_if_forked()
    text = json.dumps({**message, "id": _frame_id}, ensure_ascii=False, default=str)
    try:
        body = text.encode()
    except UnicodeEncodeError:
        # A module's text (a result, an error, what it printed) may hold lone surrogates,
        # which UTF-8 cannot carry: they go as U+FFFD, as undecodable bytes do, rather than
        # ending the worker.
        body = _LONE_SURROGATE.sub("\ufffd", text).encode()
    data = _HEADER.pack(len(body)) + body
    while data:
        written = os.write(_out_fd, data)
        data = data[written:]


# A call that goes on printing far past its limit is flooding, not finishing: the print raises
# ``_Flooded`` and the call ends with an error, rather than running to its time limit (15
# minutes by default). The rule is the server's (toolbay.flooding), handed over in the init
# message as [factor, floor]: the mark is factor times the larger of the limit and the floor.
_flood: tuple[int, int] | None = None


class _Flooded(BaseException):
    """Raised by a print past the flood mark. A BaseException, so that a tool's own ``except
    Exception`` around its printing does not swallow it."""


class _Bounded(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters and counts the rest."""

    def __init__(self, limit: int, name: str) -> None:
        self.limit = limit
        self.name = name
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0
        self.flood_mark = _flood[0] * max(limit, _flood[1]) if _flood is not None else None

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        if self.flood_mark is not None and self.dropped > self.flood_mark:
            raise _Flooded(f"the tool went on writing to {self.name} far past its output limit "
                           f"({self.limit} characters kept, {self.dropped} more dropped) and was stopped")
        return len(text)

    def getvalue(self) -> str:
        return "".join(self.parts)


class _CallOutput:
    """What one call printed and wrote to sys.stderr; ``open`` while the call runs."""

    __slots__ = ("printed", "errors", "open")

    def __init__(self, printed_limit: int, errors_limit: int = 64 * 1024) -> None:
        self.printed = _Bounded(printed_limit, "stdout")
        self.errors = _Bounded(errors_limit, "stderr")
        self.open = True


# The call whose code is running in this context: set by ``call``, copied into the asyncio
# tasks that call makes, so a task that runs on during a later call still writes as its own.
_writer: contextvars.ContextVar[_CallOutput | None] = contextvars.ContextVar("toolbay_call_output", default=None)
# Threads inherit no context: each is given the call of the code that started it (see
# ``_start_new_thread``), so a thread, or a Timer's next thread, started by a thread of an
# earlier call still writes as that call's.
_thread_owner = threading.local()
_running: _CallOutput | None = None  # the call under way (credentials are asked for within one)


def _output_of_now() -> _CallOutput | None:
    """The call that what is written now belongs to, or None (the server's log): the call whose
    code, asyncio tasks or threads write it while that call runs. Output of a thread or task
    of an earlier call is never another call's result (over HTTP it might be another caller's)."""
    if _forked:
        return None
    own = _writer.get()
    if own is None:
        own = getattr(_thread_owner, "output", None)
    return own if own is not None and own.open else None


_forked = False  # this process is a fork of the worker (multiprocessing): its call buffers are copies


def _forget_calls_in_a_fork() -> None:
    """A forked child's copy of a call's buffer is never sent: what it writes goes to the log.
    Nor does it keep the channel to the server: held open by a child (``os.fork``,
    ``multiprocessing``), the channel did not end when the worker did, and the server, which
    learns of a worker's death by that end, waited out the call's time limit after a crash."""
    global _forked
    _forked = True
    for channel in (_in_fd, _out_fd):
        with contextlib.suppress(OSError):
            os.close(channel)


os.register_at_fork(after_in_child=_forget_calls_in_a_fork)


def _handing_down_the_call(start: Any) -> Any:
    """``start`` (a function that starts a thread running its first argument) made to give the
    new thread the call of the code that starts it."""

    def started(function: Any, *rest: Any, **options: Any) -> Any:
        owner = _output_of_now()

        def run(*args: Any, **kwargs: Any) -> Any:
            _thread_owner.output = owner
            return function(*args, **kwargs)

        return start(run, *rest, **options)

    return started


def _hand_down_calls_to_threads() -> None:
    """Every way Python starts a thread goes through ``_thread``; threading keeps its own
    reference to the starting function (``_start_new_thread`` up to 3.12,
    ``_start_joinable_thread`` after), so that one is replaced too. Before the module is
    imported, once. ``tests/pytools/test_call_output.py`` fails if a Python moves it."""
    _thread.start_new_thread = _handing_down_the_call(_thread.start_new_thread)
    for name in ("_start_new_thread", "_start_joinable_thread"):
        if hasattr(threading, name):
            setattr(threading, name, _handing_down_the_call(getattr(threading, name)))


class _Routed(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` for the worker's whole life, so that a logging handler
    made at import (which keeps the stream it saw) writes into each call's result: a call's
    own writes go to its buffer, anything else to the worker's stderr (the server's log)."""

    def __init__(self, part: str, log: Any) -> None:
        self._part = part
        self._log = log

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    # What works on a real stream goes on working, to the worker's stderr (the server's log):
    # faulthandler.enable() asks for a file descriptor, some libraries write bytes to .buffer.
    def fileno(self) -> int:
        descriptor: int = self._log.fileno()
        return descriptor

    @property
    def buffer(self) -> Any:
        return self._log.buffer

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # as a real text stream says, at the module's own line
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        output = _output_of_now()
        if output is None:
            self._log.write(text)
            self._log.flush()
            return len(text)
        written: int = getattr(output, self._part).write(text)
        return written


# -- confinement -------------------------------------------------------------------------


def _limit_memory(memory_mb: int) -> int | None:
    """Caps the address space at what the interpreter uses now plus ``memory_mb``."""
    try:
        with open("/proc/self/status") as status:
            used_kb = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
        limit = used_kb * 1024 + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        return limit
    except (OSError, ValueError, StopIteration):
        return None


def _leave_network() -> bool:
    """Moves this process into a new, empty network namespace (no interface but a down
    loopback), where the kernel lets it (root, or user namespaces)."""
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.unshare(_CLONE_NEWNET) == 0)


def _readable_roots(module_dir: str) -> list[str]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, module_dir, os.path.join(_GUEST, "lib")}
    roots.update(entry for entry in sys.path if entry and entry != "/" and os.path.exists(entry))
    roots.update(os.path.dirname(os.path.realpath(entry)) for entry in list(roots) if os.path.islink(entry))
    roots.update(("/usr/lib", "/usr/local/lib", "/lib", "/lib64", "/usr/share/zoneinfo", "/etc/localtime",
                  "/etc/ssl", "/etc/ca-certificates", "/usr/share/ca-certificates", "/dev/null", "/dev/urandom",
                  "/dev/random", "/dev/zero", "/proc/self", os.path.realpath(sys.executable),
                  # What mimetypes.guess_type reads (the accounts in /etc/passwd stay closed).
                  "/etc/mime.types",
                  # A virtual environment's Python, started by the tool, reads it first.
                  os.path.join(os.path.dirname(os.path.dirname(sys.executable)), "pyvenv.cfg")))
    return sorted(roots)


def _about_the_network(exc: BaseException, frames: Any) -> bool:
    """Whether ``exc`` is a connection refused or gone nowhere: an error of the socket module's
    (a name not resolved), or a permission or route error, with no file named, raised in the
    socket module or its users (http, urllib, ssl, asyncio), or on a line that opens, connects or
    sends on a socket."""
    if type(exc).__name__ == "gaierror":
        return True
    if not isinstance(exc, OSError) or exc.filename is not None or exc.errno not in _WITHHELD_ERRNOS:
        return False
    return any(f.filename.endswith(("socket.py", "ssl.py")) or "/http/" in f.filename or "/urllib" in f.filename
               or "/asyncio/" in f.filename for f in frames) \
        or bool(frames and re.search(r"\b(?:connect|socket|sendto|bind|urlopen|create_connection)\b",
                                     frames[-1].line or ""))


def confine(spec: dict[str, Any], module_dir: str) -> dict[str, Any]:
    """Applies what the server asked for and says what is really enforced."""
    enforced: dict[str, Any] = {"memory": _limit_memory(int(spec["memory_mb"])) is not None}
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    network = bool(spec.get("network"))
    enforced["netns"] = False if network else _leave_network()
    enforced["files"] = enforced["tcp"] = False
    sys.path.insert(0, _GUEST)
    try:
        import capabilities  # the sibling files: this folder is on the path only for these imports
        import landlock
        import seccomp
    finally:
        sys.path.remove(_GUEST)
    if spec.get("landlock", True):
        read = _readable_roots(module_dir) + list(spec.get("read", ()))
        # /dev/null takes what any tier throws away (subprocess.DEVNULL, a library's quiet mode).
        write = [*spec.get("write", ()), "/dev/null"]
        # No symbolic links in the folders it may write but its own temp folder: one leading out
        # of the workspace is followed by the next program a person runs there.
        no_links = [path for path in spec.get("write", ()) if path != spec.get("tmp")]
        try:
            enforced.update(landlock.restrict(read, write, block_tcp=not network, no_links=no_links))
        except OSError as exc:
            enforced["landlock_error"] = str(exc)
    # What Landlock does not govern: files' owners, modes, times and extended attributes, and
    # UNIX sockets (see seccomp.py).
    enforced["metadata"] = False
    try:
        enforced["metadata"] = seccomp.install(may_write=bool(spec.get("may_write")), network=network)
    except OSError as exc:
        enforced["seccomp_error"] = str(exc)
    # Last: the network namespace and the filter needed them.
    try:
        enforced["capabilities"] = capabilities.drop() & ~sum(1 << kept for kept in capabilities.KEPT) == 0
    except OSError as exc:
        enforced["capabilities"] = False
        enforced["capabilities_error"] = str(exc)
    return enforced


# -- the module ----------------------------------------------------------------------------


def _in_folder_of(path: str, filename: str | None) -> bool:
    return bool(filename) and os.path.dirname(os.path.abspath(str(filename))) == os.path.dirname(
        os.path.abspath(path))


def _place(path: str, filename: str | None, lineno: int | None) -> str:
    """" at line N", or " in HELPER.py at line N" for a file of the module's folder that is not
    the module itself."""
    where = f" at line {lineno}" if lineno else ""
    if filename and os.path.abspath(filename) != os.path.abspath(path) and _in_folder_of(path, filename):
        where = f" in {os.path.basename(filename)}{where}"
    return where


def _linked_out_of_its_folder(path: str) -> bool:
    """Whether the module's file is a link to a file of another folder."""
    return os.path.dirname(os.path.realpath(path)) != os.path.realpath(os.path.dirname(os.path.abspath(path)))


def _deepest_line(exc: BaseException, path: str) -> int | None:
    """The line of the module's own code (its text, run under its path) an error came from last."""
    import traceback

    lines = [frame.lineno for frame in traceback.extract_tb(exc.__traceback__) if frame.filename == path]
    return lines[-1] if lines else None


def load(path: str, name: str, source: str | None) -> Any:
    """The module at ``path``; with ``source``, that text is run as the module (the version the
    server described), not the file's present content."""
    module_dir = os.path.dirname(path)
    # A module may import its siblings, but after the installed packages: a file of the folder
    # named like a package (``yaml.py``) must not stand for it in the workers of the modules
    # beside it, which would run its code with their credentials (the server refuses such a
    # file as a tool module, but a helper is never described).
    sys.path.append(module_dir)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if source is None:
        spec.loader.exec_module(module)
    else:
        exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)  # noqa: S102
    return module


# How a schema's value that is not JSON is said: the server says it as it stands, not as a fault
# of the input schema's JSON Schema (the value may be in the description).
NOT_JSON_SAID = "get_tool_schemas() returned "


class NotToolSchemas(TypeError):
    """What ``get_tool_schemas()`` returned is no list of schemas (said as it stands, not as an error
    the function raised)."""


def describe(module: Any, keys_read: frozenset[str] = frozenset()) -> dict[str, Any]:
    """What the server needs of ``module``; ``keys_read``: the keys of a schema the server reads
    (a value under any other key, which it ignores, need not be JSON)."""
    get_schemas = getattr(module, "get_tool_schemas", None)
    if not callable(get_schemas):
        return {"not_a_tool_module": "it defines no get_tool_schemas() function"}
    schemas = get_schemas()
    if isinstance(schemas, collections.abc.Iterator | collections.abc.ValuesView):
        schemas = list(schemas)  # a generator function, map(), a dict's values(): read once, as a list
    if isinstance(schemas, collections.abc.Coroutine):
        # Said as the fault it is: "returned coroutine, not a list" left the author to guess
        # (the tools' own functions may be async; this one is called once, plainly).
        schemas.close()  # never awaited, and not to be said so on stderr as well
        raise NotToolSchemas("get_tool_schemas() is an async def: define it with def, returning the list")
    if not isinstance(schemas, list | tuple):
        raise NotToolSchemas(f"get_tool_schemas() returned {type(schemas).__name__}, not a list")
    schemas = [_plain_schema(item, keys_read) for item in schemas]
    # A schema holding what JSON cannot carry (a date as a default) refuses its own tool, as any
    # other fault of one schema does; it refused the whole module, its good tools too.
    not_json: dict[int, str] = {}
    try:
        json.dumps(schemas)  # must be plain data
    except (RecursionError, TypeError, ValueError):
        for index, item in enumerate(schemas):  # each on its own: the others are served
            if (said := _why_not_json(index, item)) is not None:
                not_json[index] = said
                name = item.get("name") if isinstance(item, dict) else None
                schemas[index] = {"name": name if isinstance(name, str) else None}
    names = [item.get("name") for item in schemas if isinstance(item, dict)]
    tier_name = next((name for name in ("TOOL_TIER", "TIER") if hasattr(module, name)), None)
    return {
        "schemas": list(schemas),
        "not_json": not_json,  # by the index of the schema
        "has_dispatch": callable(getattr(module, "dispatch", None)),
        "functions": [n for n in names if isinstance(n, str) and callable(getattr(module, n, None))],
        # What each tool's function takes, for notes on a schema it does not fit (read by the
        # server's convention; a call would fail only when it came, with a TypeError).
        "signatures": _signatures(module, names),
        "tier": getattr(module, tier_name) if tier_name else None,
        "tier_name": tier_name,  # which of the two it wrote, named in a note on a wrong value
        "long_running": getattr(module, "LONG_RUNNING", False),
        "has_cli_main": callable(getattr(module, "cli_main", None)),
        "doc": (module.__doc__ or "").strip().split("\n\n")[0][:500],
    }


def _signatures(module: Any, names: list[Any]) -> dict[str, Any]:
    """``dispatch``'s fault if it cannot be called as ``dispatch(name, args)``, else each tool
    function's keyword parameters (``takes``) and those without a default (``needs``); one
    taking ``**kwargs``, or whose signature cannot be read (a C function), is left out."""
    import inspect  # here: a describing worker reads it, a calling worker never needs it

    def signature(function: Any) -> inspect.Signature | None:
        try:
            return inspect.signature(function)
        except (TypeError, ValueError):
            return None

    dispatch = getattr(module, "dispatch", None)
    if callable(dispatch):
        found = signature(dispatch)
        try:
            if found is not None:
                found.bind("name", {})
        except TypeError as exc:
            return {"dispatch": f"dispatch{found} cannot be called as dispatch(name, args): {exc}"}
        return {}
    by_name: dict[str, Any] = {}
    keywords = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    for name in names:
        found = signature(getattr(module, name, None)) if isinstance(name, str) else None
        if found is None or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in found.parameters.values()):
            continue
        parameters = [p for p in found.parameters.values() if p.kind in keywords]
        by_name[name] = {"takes": [p.name for p in parameters],
                         "needs": [p.name for p in parameters if p.default is inspect.Parameter.empty]}
    return {"functions": by_name}


def _plain_schema(item: Any, keys_read: frozenset[str]) -> Any:
    """``item`` without values that are not JSON under keys the server ignores (a function kept
    beside its schema): kept as None, so that the server still says the key is ignored."""
    if not isinstance(item, dict) or not keys_read:
        return item
    return {key: (None if key not in keys_read and not _is_json(value) else value) for key, value in item.items()}


def _is_json(value: Any) -> bool:
    """Whether ``json.dumps`` takes ``value`` (not a function, nor a registry that holds itself)."""
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _why_not_json(index: int, item: Any) -> str | None:
    """Why schema ``index`` cannot be written as JSON, or None where it can."""
    try:
        json.dumps(item)
    except RecursionError:
        # The function did not fail: what it returned is nested deeper than JSON is written here.
        return f"{NOT_JSON_SAID}a schema at [{index}] nested too deeply to be read (thousands of levels)"
    except (TypeError, ValueError) as error:
        if (place := _not_json(item)) is None:  # an integer of more digits than Python writes
            return f"{NOT_JSON_SAID}a schema at [{index}] that cannot be written as JSON: {error}"
        where = f"[{index}]" + ("" if place[0] == "the top" else place[0])
        return (f"{NOT_JSON_SAID}{place[1]} at {where}, which is not JSON (a schema is made of dicts, lists, "
                "strings, numbers, booleans and None)")
    return None


def _not_json(value: Any) -> tuple[str, str] | None:
    """Where in ``value`` (``[1]['handler']``) the first thing ``json.dumps`` refuses is, and what
    it is: a value of another type, a key of one, or a dict or list inside itself (a schema that
    holds itself, said as "Circular reference detected", naming no tool); None where there is none."""
    # Depth first, each container on the current path marked until its items are done: a value
    # met twice on different paths is JSON (written twice), only one inside itself is not.
    pending: list[tuple[str, Any] | int] = [("", value)]
    on_path: set[int] = set()
    done: set[int] = set()
    while pending:
        top = pending.pop()
        if isinstance(top, int):  # every item of this container is done
            on_path.discard(top)
            done.add(top)
            continue
        where, item = top
        if item is None or isinstance(item, str | bool | int | float):
            continue
        if isinstance(item, dict | list | tuple):
            if id(item) in on_path:
                return where or "the top", f"{_a(type(item).__name__)} that holds itself"
            if id(item) in done:
                continue
            on_path.add(id(item))
            pending.append(id(item))
        if isinstance(item, dict):
            for key, inner in reversed(item.items()):
                if not (key is None or isinstance(key, str | bool | int | float)):
                    return where or "the top", f"a key of type {type(key).__name__}"
                pending.append((f"{where}[{key!r}]", inner))
        elif isinstance(item, list | tuple):
            pending.extend((f"{where}[{index}]", inner) for index, inner in reversed(list(enumerate(item))))
        else:
            return where or "the top", _a(type(item).__name__)
    return None


_files_read: set[str] | None = None  # while the module is imported and described: the files it opened to read


def _note_files_read(event: str, args: tuple[Any, ...]) -> None:
    """An audit hook (it cannot be removed: it records only while ``_files_read`` is a set)."""
    if _files_read is None or event != "open" or not args or not isinstance(args[0], str):
        return
    mode, flags = (args[1], args[2]) if len(args) > 2 else (None, None)
    reading = not any(c in mode for c in "wax+") if isinstance(mode, str) \
        else isinstance(flags, int) and flags & os.O_ACCMODE == os.O_RDONLY  # os.open's event: flags, no mode
    if reading:
        _files_read.add(os.path.abspath(args[0]))  # a relative path is the working directory's


def _helpers_imported(path: str, read: set[str]) -> dict[str, str]:
    """The files of the module's folder that importing and describing it loaded or read (its
    helpers: ``from shared_schemas import ...``, a package beside it, a ``spec.json`` its schemas
    are built from), each with the sha256 of its content: the description may be built from
    them, so it holds only while they are unchanged."""
    import hashlib

    folder = os.path.realpath(os.path.dirname(path)) + os.sep
    own = os.path.realpath(path)
    helpers: dict[str, str] = {}
    files = [getattr(module, "__file__", None) for module in list(sys.modules.values())]
    for file in [*files, *sorted(read)]:
        if not isinstance(file, str) or file.endswith(".pyc"):
            continue
        real = os.path.realpath(file)
        if real == own or not real.startswith(folder) or real[len(folder):] in helpers or not os.path.isfile(real):
            continue
        try:
            with open(real, "rb") as handle:
                helpers[os.path.relpath(real, folder)] = hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            continue
    return helpers


_loop: Any = None  # the worker's event loop, made for the first async tool


def _settle(value: Any) -> Any:
    global _loop
    if isinstance(value, Awaitable):
        if _loop is None:
            import asyncio

            _loop = asyncio.new_event_loop()
        return _loop.run_until_complete(value)
    return value


def _ask_credential(name: str, key: str, env_var: str | None) -> tuple[str | None, str]:
    if _running is None:  # at import, or from a thread after its call: no call to ask for
        return None, ("get_credential works only while a tool is being called (not while the module is "
                      "imported, nor after its call has returned)")
    send({"op": "credential", "name": name, "key": key, "env_var": env_var})
    answer = receive()
    return answer.get("value"), str(answer.get("problem") or "")


def call(module: Any, message: dict[str, Any], base_env: dict[str, str], output_limit: int,
         cwd: str | None = None) -> dict[str, Any]:
    global _running
    if cwd is not None:  # whatever an earlier call (or a thread of one) did to the directory
        with contextlib.suppress(OSError):
            os.chdir(cwd)
    output = _CallOutput(output_limit)
    _running = output
    token = _writer.set(output)
    timer_before = signal.getitimer(signal.ITIMER_REAL)
    try:
        return _call(module, message, base_env, output_limit, output)
    finally:
        output.open = False
        if timer_before == (0.0, 0.0) and signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):
            # An alarm the call set (signal.alarm, a timeout decorator) and did not cancel: left
            # to run, it went off in a later call, maybe another caller's, as that call's error.
            signal.setitimer(signal.ITIMER_REAL, 0)
        _writer.reset(token)
        _running = None
        if cwd is not None:
            with contextlib.suppress(OSError):
                os.chdir(cwd)


def _call(module: Any, message: dict[str, Any], base_env: dict[str, str], output_limit: int,
          output: _CallOutput) -> dict[str, Any]:
    name, arguments = message["tool"], message.get("args") or {}
    os.environ.clear()
    os.environ.update(base_env)
    os.environ.update(message.get("env") or {})
    printed, errors = output.printed, output.errors
    try:
        # What this call writes reaches ``output`` through the routed streams (``_Routed``).
        dispatch = getattr(module, "dispatch", None)
        if callable(dispatch):
            value = _settle(dispatch(name, arguments))
        else:
            function = getattr(module, name, None)
            if not callable(function):
                return {"op": "result", "ok": False,
                        "error": f"the module has no function {name}() and no dispatch()"}
            value = _settle(function(**arguments))
    except _Flooded as flooded:
        return {"op": "result", "ok": False, "error": str(flooded), **_written(printed, errors)}
    except SystemExit as exit_:
        return {"op": "result", "ok": False, "error": f"the tool called sys.exit({exit_.code!r})",
                **_written(printed, errors)}
    except MemoryError as exc:
        # Python's own has no words; one the tool raised itself says what it meant.
        said = "the tool ran out of memory (the worker's memory limit was reached)" if not exc.args \
            else f"MemoryError: {_words_of(exc)[:_ERROR_CHARACTERS]}"
        return {"op": "result", "ok": False, "fatal": True, "error": said}
    except BaseException as exc:  # the module's own fault: its message is the tool error
        import traceback

        frames = traceback.extract_tb(exc.__traceback__)
        where = next((f"{os.path.basename(f.filename)}:{f.lineno}" for f in reversed(frames)
                      if f.filename == getattr(module, "__file__", None)), None)
        said = _words_of(exc)
        if len(said) > _ERROR_CHARACTERS:  # a message that repeats a 5 MB argument back
            said = f"{said[:_ERROR_CHARACTERS]}... (cut: the message has {len(said)} characters)"
        if len(frames) > _DEEP_FRAMES and isinstance(exc, SystemError):
            # Past a raised sys.setrecursionlimit, the stack's end is said by Python as "error
            # return without exception set" (a SystemError), which names no cause.
            said += f" (after {len(frames):,} nested calls: a recursion deeper than the worker's stack allows)"
        if isinstance(exc, PermissionError) and _files_confined and exc.filename is not None:
            # About a file only: a refused connection or signal is no matter of the files' grant.
            said += _CONFINED_FILES
        if _network_withheld and _about_the_network(exc, frames):
            said += _NO_NETWORK
        if isinstance(exc, RuntimeError) and "can't start new thread" in said:
            # Python names no cause: each thread's stack counts against the memory limit, and each
            # thread against the processes the worker may have.
            said += _THREADS_LIMITED
        answer = {"op": "result", "ok": False, "error": said, "error_type": type(exc).__name__, "where": where,
                  **_written(printed, errors)}
        if isinstance(exc, OSError) and isinstance(exc.filename, str):
            answer["error_path"] = os.path.abspath(exc.filename)  # which file: the server's notes depend on it
        return answer
    return _result(value, printed, errors, output_limit)


def _written(printed: _Bounded, errors: _Bounded) -> dict[str, Any]:
    """What a call that failed printed and wrote to sys.stderr, with how much of each was dropped
    past its limit (a flood stopped was said to be cut only in the error's words)."""
    written: dict[str, Any] = {"stderr": errors.getvalue(), "printed": printed.getvalue()}
    if printed.dropped:
        written["printed_dropped"] = printed.dropped
    if errors.dropped:
        written["stderr_dropped"] = errors.dropped
    return written


_GROUP_SAID = 8
# Nested calls past which a failure is said to be a recursion too deep (Python's own limit is 1,000).
_DEEP_FRAMES = 5_000


def _words_of(exc: BaseException, said: list[int] | None = None) -> str:
    """What ``exc`` says. An exception group's own message is only a count ("unhandled errors
    in a TaskGroup (2 sub-exceptions)"): its exceptions are said too, each with its kind, at most
    ``_GROUP_SAID`` in all however wide and deep the groups nest (each level repeating the
    ones below it made 45 million characters of a group five wide and nine deep)."""
    said = [_GROUP_SAID] if said is None else said
    try:
        if isinstance(exc, BaseExceptionGroup):
            inner = []
            for sub in exc.exceptions:
                if said[0] <= 0:
                    inner.append("...")
                    break
                if not isinstance(sub, BaseExceptionGroup):
                    said[0] -= 1  # the exceptions themselves are counted, not the groups holding them
                words = _words_of(sub, said)
                kind = type(sub).__name__
                inner.append(words if isinstance(sub, KeyError | BaseExceptionGroup) or words == kind
                             else f"{kind}: {words}")
            return f"{exc}: {'; '.join(inner)}"
        # A KeyError's message is only the key ("'missing'"): said with its kind, it reads.
        return f"{type(exc).__name__}: {exc}" if isinstance(exc, KeyError) else str(exc) or type(exc).__name__
    except BaseException:  # noqa: BLE001 - its __str__ raised (which ended the worker): its kind is what is left
        return f"{type(exc).__name__} (its message could not be made into text)"


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def _result(value: Any, printed: _Bounded, errors: _Bounded, output_limit: int) -> dict[str, Any]:
    # What it printed and wrote to sys.stderr (warnings, notes: logging writes there), beside
    # its result, and kept when its result is refused as well.
    said: dict[str, Any] = {}
    if printed.kept:
        said["printed"] = printed.getvalue()
    if errors.kept:
        said["stderr"] = errors.getvalue()
    result: dict[str, Any] = {"op": "result", "ok": True, **said}
    if printed.kept:
        result["printed_dropped"] = printed.dropped
    if errors.dropped:
        result["stderr_dropped"] = errors.dropped
    if value is None:
        return {**result, "text": said.get("printed", ""), "truncated": printed.dropped > 0}
    if isinstance(value, str):
        return {**result, "text": value[:output_limit], "truncated": len(value) > output_limit}
    if isinstance(value, bytes):
        text = value.decode("utf-8", errors="replace")
        # Said, or the model takes the replacement characters for what the tool returned.
        not_utf8 = {"not_utf8": True} if "\ufffd" in text and "\ufffd".encode() not in value else {}
        return {**result, "text": text[:output_limit], "truncated": len(text) > output_limit, **not_utf8}
    try:
        # NaN and Infinity are not JSON: written as such, no client could read the result.
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return {"op": "result", "ok": False, **said,
                "error": f"the tool returned {_a(type(value).__name__)}, which is not JSON: {exc}"}
    except RecursionError:
        return {"op": "result", "ok": False, **said,
                "error": f"the tool returned {_a(type(value).__name__)} nested too deeply to be written as JSON"}
    except MemoryError:
        # Written out, its JSON would not fit in the worker's memory: the worker's own end said
        # only "exited with status 1". It is over the output limit by far (said so, as below).
        return {"op": "result", "ok": False, "fatal": True,
                "error": "the tool's result is too large to be written as JSON within the worker's memory limit "
                         f"(the output limit is {output_limit} characters)"}
    if len(text) > output_limit:
        # Cut as a text result is (the note says so), not refused: a job's hour of work ended
        # "failed" for a result of 1.5 MB of rows. Cut, it is text, not structured content.
        return {**result, "text": text[:output_limit], "truncated": True, "cut_json": len(text)}
    # The result once, as text: the server reads the structured content from it (a flag says
    # it is JSON), rather than a second copy of the value in the same frame.
    return {**result, "text": text, "json": True}


def _end_now(code: int) -> NoReturn:
    """Ends a worker whose describing is done (or failed) at once: a thread the module started
    as it was imported and did not make a daemon kept Python from ending (it waits for such
    threads at exit), so the describing waited out its time limit and the module was skipped,
    'took over 10 s', for an import of milliseconds. The answer is written already (``send``
    writes straight to the wire)."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def main() -> int:
    global _frame_id
    init = receive()
    _frame_id = init.get("id")
    path, name = init["path"], init["module"]
    sys.path.extend(entry for entry in init.get("site") or () if entry not in sys.path)
    base_env = dict(init.get("env") or {})
    os.environ.clear()
    os.environ.update(base_env)
    if init.get("tmp"):
        os.environ["TMPDIR"] = base_env["TMPDIR"] = init["tmp"]
    if init.get("cwd"):
        with contextlib.suppress(OSError):
            os.chdir(init["cwd"])
    # Before confining: confined, the worker may not write the bytecode Python keeps of it, and
    # compiled it at every start where no installer had written it.
    sys.path.insert(0, os.path.join(_GUEST, "lib"))
    import toolbay_tools

    enforced = confine(init["confine"], os.path.dirname(path)) if init.get("confine") else {}
    global _files_confined, _network_withheld
    _files_confined = bool(enforced.get("files"))
    _network_withheld = bool(enforced.get("netns") or enforced.get("tcp") or enforced.get("metadata")) \
        and not (init.get("confine") or {}).get("network")
    toolbay_tools._ask = _ask_credential
    stage = "import"
    # From here on, what the module writes to sys.stdout and sys.stderr is routed (``_Routed``);
    # while it is imported and described, no call is under way: the server's log has it.
    sys.stdout, sys.stderr = _Routed("printed", sys.stderr), _Routed("errors", sys.stderr)
    _hand_down_calls_to_threads()
    global _files_read
    if init.get("describe"):
        _files_read = set()
        sys.addaudithook(_note_files_read)
    try:
        module = load(path, name, init.get("source"))
        stage = "describe"
        description = describe(module, frozenset(init.get("schema_keys") or ())) if init.get("describe") else {}
        if description.get("schemas") is not None:
            description["helpers"] = _helpers_imported(path, _files_read or set())
        _files_read = None
    except BaseException as exc:  # an import that fails is the file's diagnostic, not a crash
        if isinstance(exc, SystemExit):
            doing = "being imported" if stage == "import" else "describing its tools"
            error = f"it called sys.exit({exc.code!r}) while {doing}"
        elif isinstance(exc, NotToolSchemas):
            error, stage = str(exc), "returned"
        elif isinstance(exc, SyntaxError):  # one line (a log line and a note show one): where, and what
            where = _place(path, exc.filename, exc.lineno)
            line = f": {exc.text.strip()}" if exc.text and exc.text.strip() else ""
            error = f"{type(exc).__name__}: {exc.msg}{where}{line}"
        else:
            import traceback

            error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            # The deepest line of the module's folder it passed through: the module's own, or a
            # helper's it imports (blamed on the module, it read as the module's line).
            ours = [frame for frame in traceback.extract_tb(exc.__traceback__)
                    if _in_folder_of(path, frame.filename)]
            if ours:
                error += _place(path, ours[-1].filename, ours[-1].lineno)
        if _linked_out_of_its_folder(path) and stage == "import":
            # The server read the file for this worker, which may not read it itself: a link to
            # /etc/passwd said its first line in the SyntaxError, and a file of NAME=value lines
            # its values in a NameError. Of such a file, the kind of error and its line only.
            lineno = exc.lineno if isinstance(exc, SyntaxError) else _deepest_line(exc, path)
            error = f"{type(exc).__name__}{_place(path, None, lineno)} (the file is linked from outside its folder: " \
                    "its text is not shown)"
        send({"op": "ready", "ok": False, "error": error, "stage": stage, "confinement": enforced})
        _end_now(1)
    send({"op": "ready", "ok": True, "description": description, "confinement": enforced})
    if init.get("describe"):
        _end_now(0)
    output_limit = int(init.get("output_limit", 1 << 20))
    global _flood
    factor, floor = init["flood"]
    _flood = (int(factor), int(floor))
    while True:
        try:
            message = receive()
        except EOFError:
            return 0
        if message.get("op") != "call":
            continue
        _frame_id = message.get("id")
        answer = call(module, message, base_env, output_limit, init.get("cwd"))
        send(answer)
        if answer.get("fatal"):
            return 3


if __name__ == "__main__":
    sys.exit(main())
