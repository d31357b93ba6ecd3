"""Warm worker processes that run one Python tool module each, and the pool that keeps them.

A worker is ``python -I guest/start.py`` (which runs ``guest/worker.py``) with nothing of the
server's environment, confined by the spec it is started with (``guest/worker.py`` applies it
before importing the module).
The pool keeps up to ``max_workers`` per module, starts them on demand, keeps them for the
next call, and throws away one that died, overran or was cancelled mid-call: the next call
starts a fresh one. A worker serves one call at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.machinery
import json
import logging
import os
import shutil
import signal
import site
import sys
import tempfile
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from toolbay.flooding import FLOOD_FACTOR, FLOOD_FLOOR, flood_mark
from toolbay.pytools.channel import HEADER, WROTE_TO_THE_CHANNEL, Answers, frame, new_frame_id
from toolbay.pytools.convention import SCHEMA_KEYS_READ
from toolbay.pytools.process_cap import PROCESS_CAP
from toolbay.pytools.stderr_log import StderrSource, stderr_log

logger = logging.getLogger(__name__)

WORKER_SCRIPT = Path(__file__).resolve().parent / "guest" / "worker.py"
# What is run: it runs WORKER_SCRIPT from its kept bytecode (a script run by path is compiled anew each start).
WORKER_START = WORKER_SCRIPT.parent / "start.py"
_GONE = "the module was replaced or removed; call tools/list to see the tools you can use"
# Room for the JSON around a result of ``output_limit`` characters (each may take 6 bytes escaped).
_FRAME_SLACK = 64 * 1024

_SITE_PACKAGES = [path for path in site.getsitepackages() if os.path.isdir(path)]
# The guest's own library (``toolbay_tools``), on every worker's path.
GUEST_LIBRARY = WORKER_SCRIPT.parent / "lib"


def is_installed_module(name: str) -> bool:
    """Whether a worker would find a top-level module ``name`` outside the tool folders: an
    installed package, or toolbay's guest library."""
    return importlib.machinery.PathFinder.find_spec(name, [*_SITE_PACKAGES, str(GUEST_LIBRARY)]) is not None
# Answers a worker's request for a credential: (name, key, env_var) -> (value, problem).
CredentialLookup = Callable[[str, str, str | None], Awaitable[tuple[str | None, str]]]


# The worker's frames are written by its own code alone; a module that writes into the same
# descriptor (found by trying them all) garbles them. The worker is then killed (``call``).
_WROTE_TO_THE_CHANNEL = f"{WROTE_TO_THE_CHANNEL}; the worker was stopped"
_NOT_A_MESSAGE = f"it sent something that is not one of toolbay's messages: {_WROTE_TO_THE_CHANNEL}"
_NOT_THIS_CALLS = f"it sent an answer that was not this call's: {_WROTE_TO_THE_CHANNEL}"


class WorkerFailed(Exception):
    """The worker could not give an answer (it died, overran, was cancelled, or would not start).
    ``trap``: a runaway stopped ("timed out after 900 s"), as a job records it, as a wasm tool's."""

    def __init__(self, reason: str, *, trap: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.trap = trap


class ModuleReplaced(WorkerFailed):
    """The module was replaced (or removed) before the call could start in one of its workers:
    nothing ran, so the call may go to the version now served."""

    def __init__(self) -> None:
        super().__init__(_GONE)


@dataclass(frozen=True, slots=True)
class WorkerLimits:
    timeout_s: float = 10.0
    memory_mb: int = 256
    output_limit: int = 1 << 20
    start_timeout_s: float = 10.0
    max_processes: int = 64  # in the worker's process group, the worker included (``process_cap``)


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """How to start a worker for one module version."""

    path: str
    module: str
    limits: WorkerLimits = field(default_factory=WorkerLimits)
    # Folders the module may read, and read and write (its own temporary folder is added).
    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    network: bool = False
    confine: bool = True
    cwd: str | None = None
    python: str = sys.executable
    # The module's text as described, run in place of the file's (which may have changed since).
    source: str | None = None

    def init_message(self, tmp: str, *, describe: bool, frame_id: str) -> dict[str, Any]:
        """``frame_id``: the id the worker's answer to it (``ready``) carries (``toolbay.pytools.channel``)."""
        confine = None
        if self.confine:
            confine = {"memory_mb": self.limits.memory_mb, "read": list(self.read),
                       "write": [*self.write, tmp], "tmp": tmp, "may_write": bool(self.write),
                       "network": self.network}
        return {
            "op": "init", "id": frame_id, "path": self.path, "module": self.module, "source": self.source,
            "describe": describe, "tmp": tmp,
            "cwd": self.cwd or tmp, "confine": confine, "output_limit": self.limits.output_limit,
            "flood": [FLOOD_FACTOR, FLOOD_FLOOR],  # toolbay.flooding's rule, which the worker cannot import
            "schema_keys": sorted(SCHEMA_KEYS_READ),  # and the keys of a schema the server reads
            "env": {"PATH": os.defpath, "LANG": "C.UTF-8", "HOME": tmp, "TMPDIR": tmp},
            "site": _SITE_PACKAGES,
        }

    def command(self) -> list[str]:
        # -S: no site scan at start (it reads every .pth file, a third of a start-up); the worker
        # puts the server's site-packages on its path itself, so modules import what it has.
        return [self.python, "-I", "-S", "-X", "utf8", str(WORKER_START)]


def process_env() -> dict[str, str]:
    """The environment a worker process starts with (the module's own comes with ``init``).
    glibc gives each thread that allocates a malloc arena of its own, 64 MiB of address space:
    under ``[sandbox] memory_mb`` (an address-space limit) 256 MiB then allowed 7 threads; two
    arenas shared by all leave room for about 20 (each thread's stack takes 8 MiB)."""
    return {"PATH": os.defpath, "LANG": "C.UTF-8", "MALLOC_ARENA_MAX": "2"}


def _ended(pid: int) -> os.waitid_result | None:
    """How the child ``pid`` ended, or None while it runs; asked of the system without reaping it
    (the event loop's child watcher does). Raises ``ChildProcessError`` once it has been reaped."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)


def exit_reason(returncode: int | None) -> str:
    if returncode is None:
        return "the worker stopped answering"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        hint = {"SIGKILL": " (it may have run out of memory)",
                # A recursion past the stack's end (sys.setrecursionlimit raised) ends so, as does a
                # fault in a compiled extension.
                "SIGSEGV": " (a crash: a recursion deeper than its stack, or a fault in compiled code)"}.get(name, "")
        return f"the worker process was killed by {name}{hint}"
    return f"the worker process exited with status {returncode}"


class Worker:
    """One running worker process, ready for calls once ``start`` returned."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.process: anyio.abc.Process | None = None
        self._answers: Answers | None = None  # the reading end of the pipe the worker answers down
        self._calls: int | None = None  # the writing end of the pipe the worker reads calls from
        # Removed by ``kill``; no finalizer, which could run on any thread at collection.
        self._tmp = tempfile.mkdtemp(prefix="toolbay-py-")
        self.confinement: dict[str, Any] = {}
        self.healthy = False
        self._stderr: StderrSource | None = None
        self.generation = 0  # its pool's generation when it started (see ``WorkerPool.renew``)
        self.idle_turn = 0  # how often it went idle: a retirement planned for an earlier turn is void

    def alive(self) -> bool:
        """Whether the process has not ended (killed while idle: the OOM killer, a kill, a timer
        a call left behind that ended it). Asked of the system without reaping it: the event
        loop's child watcher may not have seen it end yet."""
        process = self.process
        if process is None or process.returncode is not None or self._stopped_by_server():
            return False
        try:
            return _ended(process.pid) is None
        except ChildProcessError:  # reaped already: it has ended
            return False

    def _stopped_by_server(self) -> bool:
        """Whether the server has killed it (a flood, too many processes) from another thread.
        Asked first: a killed process with threads shows as ended to nobody until the last of
        them has gone, and a call handed to it meanwhile failed with the reason of its stop, a
        flood the call had nothing to do with."""
        if self._stderr is not None and self._stderr.flooded:
            return True
        return self.process is not None and PROCESS_CAP.crowded(self.process.pid) is not None

    def _hide(self, secret: str) -> None:
        if self._stderr is not None:
            self._stderr.hide(secret)

    async def start(self) -> None:
        # Its stderr (and fd 1, which the worker points there) goes to the server's log, bounded.
        errors_read, errors_write = os.pipe()
        # Its calls go down a pipe of the server's own, one way: uvloop (the served event loop)
        # makes a child's standard input a socket, open both ways, and a module that wrote into
        # the worker's copy of it (fd 3) wrote to the server, whose loop then dropped the
        # worker's input with a traceback in the log; the next call failed. Into a pipe's
        # reading end nothing can be written.
        calls_read, calls_write = os.pipe()
        # Its answers come up one of the server's own too, whose waiting bytes the server can
        # ask for between calls (``Answers.pending``).
        answers_read, answers_write = os.pipe()
        try:
            self.process = await anyio.open_process(
                self.spec.command(), stdin=calls_read, stdout=answers_write, stderr=errors_write,
                env=process_env(), start_new_session=True,
            )
        except BaseException:
            for fd in (errors_read, calls_write, answers_read):
                os.close(fd)
            raise
        finally:
            for fd in (errors_write, calls_read, answers_write):
                os.close(fd)
        os.set_blocking(calls_write, False)
        self._calls = calls_write
        self._answers = await Answers.open(answers_read)
        PROCESS_CAP.watch(self.process.pid, self.spec.limits.max_processes)
        pid = self.process.pid

        def stop_the_flood() -> None:  # on the log's thread: a signal needs no event loop
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)

        # The log's thread also sees the worker end (a pidfd), and then stops what it started: a
        # process it forked kept its pipes open, and a call whose worker had ended waited out its
        # time limit, then said it had timed out.
        self._stderr = stderr_log().watch(errors_read, self.spec.module, flood_mark(self.spec.limits.output_limit),
                                          stop_the_flood, pid)
        init_id = new_frame_id()
        await self._send(self.spec.init_message(self._tmp, describe=False, frame_id=init_id))
        with anyio.move_on_after(self.spec.limits.start_timeout_s) as scope:
            ready = await self._receive(init_id)
        if scope.cancelled_caught:
            await self.kill()
            raise WorkerFailed(f"the module did not finish importing within {self.spec.limits.start_timeout_s:g} s")
        self.confinement = dict(ready.get("confinement") or {})
        if not ready.get("ok"):
            await self.kill()
            raise WorkerFailed(f"the module cannot be imported: {ready.get('error')}")
        self.healthy = True

    async def call(self, tool: str, arguments: Mapping[str, Any], env: Mapping[str, str],
                   credentials: CredentialLookup) -> dict[str, Any]:
        """The worker's ``result`` frame. Raises ``WorkerFailed``; on any failure or
        cancellation the worker is killed (its state is unknown) and must not be reused."""
        self.healthy = False
        timeout = self.spec.limits.timeout_s
        for secret in env.values():  # credentials given as variables: never logged as written
            self._hide(secret)
        if self._stderr is not None:
            self._stderr.read = 0  # a flood is counted from the call's start (see StderrSource)
        call_id = new_frame_id()
        try:
            await self._send({"op": "call", "id": call_id, "tool": tool, "args": dict(arguments), "env": dict(env)})
            with anyio.move_on_after(timeout) as scope:
                while True:
                    message = await self._receive(call_id)
                    if message.get("op") == "credential":
                        value, problem = await credentials(
                            str(message.get("name")), str(message.get("key") or "api_key"), message.get("env_var"))
                        if value is not None:
                            self._hide(value)  # before the worker has it, so before it can write it
                        await self._send({"op": "credential", "id": call_id, "value": value, "problem": problem})
                        continue
                    break
            if scope.cancelled_caught:
                raise WorkerFailed(f"it was stopped after the time limit of {timeout:g} s",
                                   trap=f"timed out after {timeout:g} s")
        except BaseException:
            await self.kill()
            raise
        if message.get("fatal"):
            await self.kill()
        else:
            self.healthy = True
        return message

    def _status_now(self) -> int | None:
        """The worker's exit status if it has ended and is not reaped yet (without reaping it)."""
        assert self.process is not None
        with contextlib.suppress(ChildProcessError):  # reaped already: its status is gone
            info = _ended(self.process.pid)
            if info is not None:
                return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        return None

    def why_it_ended(self) -> str:
        """Why the worker ended, asked of the system without reaping it (the event loop's child
        watcher reaps it)."""
        assert self.process is not None
        if self._stderr is not None and self._stderr.flooded:
            return (f"the tool went on writing to its standard output or error (not print: os.write, a C "
                    f"library, a subprocess) past {self._stderr.flood_mark} bytes, and was stopped")
        crowded = PROCESS_CAP.crowded(self.process.pid)
        if crowded is not None:
            return (f"it ran {crowded} processes at once, over the limit of {self.spec.limits.max_processes} "
                    "([python] max_processes); they were all stopped")
        returncode = self.process.returncode
        return exit_reason(returncode if returncode is not None else self._status_now())

    async def _send(self, message: Mapping[str, Any]) -> None:
        assert self._calls is not None
        unsent = memoryview(frame(message))
        try:
            while unsent:
                try:
                    unsent = unsent[os.write(self._calls, unsent):]
                except BlockingIOError:  # the pipe is full: the worker has not read it all yet
                    await anyio.wait_writable(self._calls)
        except (anyio.ClosedResourceError, OSError) as exc:  # it ended (a broken pipe)
            raise WorkerFailed(await self._death()) from exc

    async def _receive(self, frame_id: str) -> dict[str, Any]:
        """The worker's next frame, which must answer the server's message ``frame_id``."""
        assert self._answers is not None
        try:
            (size,) = HEADER.unpack(await self._answers.receive_exactly(HEADER.size))
            if size > self.spec.limits.output_limit * 6 + _FRAME_SLACK:
                # The worker cuts what it returns to the output limit: no answer of its own is this long.
                raise WorkerFailed(f"it sent a frame of {size} bytes, longer than any answer within the output limit: "
                                   f"{_WROTE_TO_THE_CHANNEL}")
            message = json.loads(await self._answers.receive_exactly(size))
        except (anyio.EndOfStream, anyio.ClosedResourceError) as exc:
            raise WorkerFailed(await self._death()) from exc
        except ValueError as exc:  # not JSON, or not UTF-8
            raise WorkerFailed(_NOT_A_MESSAGE) from exc
        if not isinstance(message, dict):
            raise WorkerFailed(_NOT_A_MESSAGE)
        if message.get("id") != frame_id:
            raise WorkerFailed(_NOT_THIS_CALLS)
        return message

    def unfit(self) -> str | None:
        """Why the worker cannot take another call (it ended, or wrote more than its answers),
        or None."""
        if not self.alive():
            return self.why_it_ended()
        if self.said_more():
            return f"it wrote more than its answer: {WROTE_TO_THE_CHANNEL}"
        return None

    def said_more(self) -> bool:
        """Whether the worker has written more than the answers taken from it: after its call's
        answer, a frame the module wrote (late, from a thread) would be read as the next call's."""
        return self._answers is not None and self._answers.pending()

    async def _death(self) -> str:
        assert self.process is not None
        with anyio.move_on_after(2):
            await self.process.wait()
        return self.why_it_ended()

    async def kill(self) -> None:
        self.healthy = False
        process = self.process
        if process is not None:
            # The group, even when the worker has ended already: what the tool started is in it
            # (and its seccomp filter keeps it there), and would run on.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await process.wait()
        if process is not None:
            PROCESS_CAP.forget(process.pid)
            with anyio.CancelScope(shield=True):
                await process.aclose()
        if self._calls is not None:
            anyio.notify_closing(self._calls)
            os.close(self._calls)
            self._calls = None
        if self._answers is not None:
            self._answers.close()
        shutil.rmtree(self._tmp, ignore_errors=True)


@dataclass(eq=False)
class _Waiter:
    """A call waiting for a worker: handed one that finished a call (``worker``), or the place of
    one that stopped, to start a new worker in (``slot``); woken with neither, the pool closed."""

    caller: str
    woken: anyio.Event
    worker: Worker | None = None
    slot: bool = False


class IdleWorkers:
    """The idle workers of every module, oldest first, kept to ``limit`` in all (``[python]
    max_idle_workers``): past it the one idle longest is stopped, whatever its module.

    ``worker_idle_s`` alone let a large folder hold a process for each module called once
    (100 modules: 101 workers, about 1.6 GB, for five minutes); the modules in use keep theirs."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._idle: OrderedDict[Worker, WorkerPool] = OrderedDict()

    def __len__(self) -> int:
        return len(self._idle)

    def went_idle(self, worker: Worker, pool: WorkerPool) -> None:
        self._idle[worker] = pool
        self._idle.move_to_end(worker)
        while len(self._idle) > self.limit:
            oldest, its_pool = self._idle.popitem(last=False)
            its_pool.retire_now(oldest, "more workers idle than [python] max_idle_workers")

    def left(self, worker: Worker) -> None:
        """``worker`` is idle no more: taken by a call, or stopped."""
        self._idle.pop(worker, None)


class WorkerPool:
    """The warm workers of one module version.

    Calls waiting for a worker are served fairly by caller: a freed worker goes to the waiting
    call whose caller holds the fewest of this module's workers, the longest waiting first
    among equals. First come first served, one caller's batch of calls held every worker for
    as long as it had calls, and another caller's one quick call waited behind all of them."""

    def __init__(self, spec: WorkerSpec, max_workers: int = 2, idle_s: float = 0.0,
                 idle_workers: IdleWorkers | None = None) -> None:
        """``idle_workers``: the server's count of idle workers, which this pool's join."""
        self.spec = spec
        self._idle_workers = idle_workers if idle_workers is not None else IdleWorkers(max_workers)
        self.max_workers = max_workers
        # A worker idle this long is stopped (0: never): sixty modules called once each held
        # sixty processes, 800 MiB, for as long as the server ran.
        self.idle_s = idle_s
        self._idle: list[Worker] = []
        self._busy: set[Worker] = set()
        self._count = 0  # workers running or starting, and places handed to a waiting call
        self._waiting: list[_Waiter] = []
        self._held: Counter[str] = Counter()  # workers each caller has now
        self._closed = False
        self._generation = 0
        self.started = 0  # workers started so far (restarts included)
        self.last_confinement: dict[str, Any] = {}
        self._retiring: set[asyncio.Task[None]] = set()  # kills of idle workers under way
        # Every credential value handed to this module's workers: a module may keep one (an API
        # client made at the first call) and show it in a later call, of any of its tools.
        self.secrets_handed_out: set[str] = set()

    @property
    def waiting(self) -> int:
        """Calls waiting for a worker now."""
        return len(self._waiting)

    async def call(self, tool: str, arguments: Mapping[str, Any], env: Mapping[str, str],
                   credentials: CredentialLookup, caller: str = "",
                   waiting: Callable[[], Awaitable[None]] | None = None) -> dict[str, Any]:
        """Runs ``tool`` in a worker; ``caller``: whom the call is for (fairness among callers);
        ``waiting``: told once the call has to wait for a worker (all of them busy)."""
        if self._closed:
            raise ModuleReplaced()
        worker = await self._acquire(caller, waiting)
        self._busy.add(worker)
        try:
            return await worker.call(tool, arguments, env, credentials)
        finally:
            self._busy.discard(worker)
            await self._release(worker, caller)

    async def _acquire(self, caller: str, waiting: Callable[[], Awaitable[None]] | None = None) -> Worker:
        while True:
            if not self._waiting:  # nobody is before this call
                if self._idle:
                    worker = self._idle.pop()
                    self._idle_workers.left(worker)
                    why = worker.unfit()  # before the kill, which forgets a crowd's count
                    if why is not None:
                        # It ended while idle, or wrote after its answer: the call would have
                        # failed, blamed on its tool, though nothing of it ran. A new worker
                        # takes its place and the call.
                        await worker.kill()
                        logger.warning("a worker of %s cannot take another call (%s); a new one takes the next call",
                                       self.spec.module, why)
                        return await self._start(caller)
                    self._held[caller] += 1
                    return worker
                if self._count < self.max_workers:
                    self._count += 1
                    return await self._start(caller)
            waiter = _Waiter(caller, anyio.Event())
            self._waiting.append(waiter)
            try:
                if waiting is not None:
                    await waiting()
                    waiting = None  # said once
                await waiter.woken.wait()
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await self._give_back(waiter)
                raise
            if waiter.worker is not None:
                self._held[caller] += 1
                return waiter.worker
            if waiter.slot:
                return await self._start(caller)
            if self._closed:
                raise ModuleReplaced()

    async def _start(self, caller: str) -> Worker:
        """Starts a worker in a place already counted (``_count``) for ``caller``."""
        worker = Worker(self.spec)
        worker.generation = self._generation
        try:
            await worker.start()
        except BaseException:  # cancelled while importing, too: nothing may be left running
            await worker.kill()
            self._free_place()
            raise
        self.started += 1
        self.last_confinement = worker.confinement
        self._held[caller] += 1
        return worker

    async def _give_back(self, waiter: _Waiter) -> None:
        """A waiting call cancelled: what it was handed goes to the next one."""
        if waiter in self._waiting:
            self._waiting.remove(waiter)
        elif waiter.worker is not None:
            await self._release(waiter.worker)
        elif waiter.slot:
            self._free_place()

    def _next_waiter(self) -> _Waiter | None:
        if not self._waiting:
            return None
        chosen = min(self._waiting, key=lambda w: self._held[w.caller])  # min keeps the first of equals
        self._waiting.remove(chosen)
        return chosen

    def _free_place(self) -> None:
        """A worker's place freed: handed to the next waiting call, which starts one in it."""
        waiter = self._next_waiter()
        if waiter is None:
            self._count -= 1
            return
        waiter.slot = True
        waiter.woken.set()

    async def _release(self, worker: Worker, caller: str | None = None) -> None:
        """Gives ``worker`` back after a call for ``caller``: the caller still counts it while the
        next waiting call is chosen, so that another caller's call goes first where they tie."""
        try:
            # Alive too: a worker the server killed meanwhile (a flood after its call returned)
            # went straight to the next waiting call, which failed with that flood's reason.
            fit = worker.healthy and not self._closed and worker.generation == self._generation and worker.alive()
            if fit and worker.said_more():
                logger.warning("a worker of %s wrote more than its answer to a call: %s", self.spec.module,
                               _WROTE_TO_THE_CHANNEL)
                fit = False
            if fit:
                waiter = self._next_waiter()
                if waiter is None:
                    self._idle.append(worker)
                    self._retire_when_idle(worker)
                    self._idle_workers.went_idle(worker, self)
                else:
                    waiter.worker = worker
                    waiter.woken.set()
                return
            await worker.kill()
            self._free_place()
        finally:
            if caller is not None:
                self._held[caller] -= 1
                if self._held[caller] <= 0:
                    del self._held[caller]

    def _retire_when_idle(self, worker: Worker) -> None:
        """Stops ``worker`` once it has been idle ``idle_s``, unless a call took it meanwhile."""
        if self.idle_s <= 0:
            return
        worker.idle_turn += 1
        asyncio.get_running_loop().call_later(self.idle_s, self._retire, worker, worker.idle_turn)

    def _retire(self, worker: Worker, turn: int) -> None:
        if worker.idle_turn != turn or worker not in self._idle:
            return  # taken by a call since (and maybe idle again, on a later turn), or stopped
        self.retire_now(worker, f"idle {self.idle_s:g} s")

    def retire_now(self, worker: Worker, why: str) -> None:
        """Stops ``worker``, idle now, for ``why``."""
        self._idle.remove(worker)
        self._idle_workers.left(worker)
        self._count -= 1  # nobody waits while a worker is idle: its place is simply free
        logger.debug("stopping an idle worker of %s (%s)", self.spec.module, why)
        self._retiring.add(task := asyncio.get_running_loop().create_task(worker.kill()))
        task.add_done_callback(self._retiring.discard)

    def pids(self) -> list[int]:
        """The process ids of the workers alive now, idle and busy."""
        workers = [*self._idle, *self._busy]
        return [w.process.pid for w in workers if w.process is not None and w.process.returncode is None]

    async def renew(self) -> None:
        """No worker started before now serves another call: the idle ones stop now, the busy
        ones when their call ends. For a sibling module that changed, which they imported."""
        self._generation += 1
        idle, self._idle = self._idle, []
        for worker in idle:
            self._idle_workers.left(worker)
            await worker.kill()
            self._free_place()

    async def close(self) -> None:
        """Stops the idle workers; busy ones stop when their call ends."""
        self._closed = True
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:  # told the module is gone
            waiter.woken.set()
        idle, self._idle = self._idle, []
        for worker in idle:
            self._idle_workers.left(worker)
            await worker.kill()
            self._count -= 1
        for retiring in list(self._retiring):  # an idle worker's stop under way: ended, not left to the loop's end
            with contextlib.suppress(Exception):
                await retiring
