"""toolbay's errors. Every error the library raises on purpose derives from ``ToolbayError``.

    ToolbayError
    ├── ConfigError              a setting is missing or wrong (the CLI prints it and exits 2)
    ├── StorageError             the data folder cannot be used (full disk, no permission)
    ├── NotHelpError             bytes that are not a program's help text (server.helptext)
    │   ├── HelpDidNotEnd            its help run was stopped by a limit
    │   └── NoSubcommandHelp         it lists subcommands, none of whose help could be read
    ├── WasmRejected             a file that cannot be served as a WASI command (server.wasm)
    ├── DuplicateToolName        two sources offer the same tool name (server.catalog)
    └── CallRefused              a call stopped before its tool ran; the model is told why
        ├── UnknownTool
        ├── Unauthenticated
        ├── RateLimited          carries retry_after
        ├── StoreUnavailable     a store shared by replicas cannot be reached; carries retry_after
        │   ├── LimitsUnavailable    the rate limits' (fail closed)
        │   └── JobStoreUnavailable  the jobs' (also a StorageError)
        ├── Forbidden
        ├── InvalidArguments     carries every problem found
        ├── ApprovalDenied
        └── NoSuchJob

Errors carry the context needed to act on them, and ``CallRefused`` knows how to say
itself to a model. They become results the model reads in one place
(``toolbay.outcomes``), never ad hoc.
"""

from __future__ import annotations

from collections.abc import Sequence

# typing.TYPE_CHECKING without importing typing (PEP 781's idiom): ``toolbay parse-help`` imports
# this module and should not pay for typing.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar


class ToolbayError(Exception):
    """Base of every deliberate toolbay error."""


class ConfigError(ToolbayError):
    """A configuration value is missing or invalid."""


class StorageError(ToolbayError):
    """The data folder cannot hold what toolbay must keep (the job database)."""

    def said_to_a_remote_caller(self, data_dir: str) -> str:
        """The message without where the server keeps its data (``data_dir``, absolute): a
        caller over HTTP is told what happened, the log says where (an outside check found the
        path in every token's answer)."""
        said = str(self)
        return said.replace(data_dir, "<the server's data folder>") if data_dir.startswith("/") else said


class StorageDamaged(StorageError):
    """The job database is damaged: writing again will not help until it is replaced."""


class StorageGone(StorageError):
    """The job database was deleted or replaced under the server using it: until it restarts,
    it would write where nobody reads."""


class NotHelpError(ToolbayError):
    """The bytes given are not a program's help text. ``reason`` is one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class HelpDidNotEnd(NotHelpError):
    """The program's help run was stopped (a time or output limit): it never printed a whole
    help text. ``reason`` says which limit."""


class NoSubcommandHelp(NotHelpError):
    """A program's help lists subcommands, and none of their help could be read: it serves no
    tool. ``reason`` says so whole (the root's help was help); ``out_of_time``: some were not
    read for lack of time ([discovery] file_budget_s), and may be another time."""

    def __init__(self, reason: str, *, out_of_time: bool = False) -> None:
        super().__init__(reason)
        self.out_of_time = out_of_time


class WasmRejected(ToolbayError):
    """A file that cannot be served as a WASI preview 1 command, with a one-line reason."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class DuplicateToolName(ToolbayError):
    def __init__(self, name: str, first_origin: str, second_origin: str) -> None:
        super().__init__(
            f"tool name {name!r} is offered by both {first_origin} and {second_origin}; "
            f"keeping the one from {first_origin}"
        )
        self.name = name
        self.first_origin = first_origin
        self.second_origin = second_origin


# How much of a caller's own value a message repeats back: enough to recognise it, never the
# megabyte a hostile or confused caller sent (it would go whole into the model's context).
ECHO_CHARACTERS = 100


def echoed(value: str) -> str:
    """``value`` quoted for a message, cut to ``ECHO_CHARACTERS`` with its length said: its
    secrets hidden before the cut, which would leave part of one no pattern recognises."""
    if len(value) <= ECHO_CHARACTERS:
        return repr(value)
    from toolbay.shortening import start_of  # loaded with the first long value echoed

    start = start_of(value, ECHO_CHARACTERS)
    if not start:
        # Its start is one run of characters longer than the cut (a part of a run is not shown:
        # it could be part of a secret): said as that, not as '' (an outside check).
        return f"'…' ({len(value)} characters, unbroken in the first {ECHO_CHARACTERS}, not shown)"
    return f"{start!r}... ({len(value)} characters)"


class CallRefused(ToolbayError):
    """A call that did not reach its tool. ``message`` is written for the model."""

    code = "refused"

    def __init__(self, message: str, **meta: Any) -> None:
        super().__init__(message)
        self.message = message
        self.meta: dict[str, Any] = dict(meta)


class UnknownTool(CallRefused):
    code = "unknown_tool"

    def __init__(self, name: str, closest: Sequence[str] = (),
                 where_listed: str = "Call tools/list to see the tools you can use.") -> None:
        hint = f" The closest names: {', '.join(closest)}." if closest else ""
        super().__init__(f"There is no tool named {echoed(name)}. {where_listed}{hint}",
                         tool=name[:ECHO_CHARACTERS])
        self.name = name
        self.closest = tuple(closest)
        self.where_listed = where_listed


class NotATask(CallRefused):
    """A task-augmented call of a tool that answers at once (a built-in): refused before it runs."""

    code = "not_a_task"

    def __init__(self, name: str) -> None:
        super().__init__(f"The tool {echoed(name)} answers at once and does not run as a task: call it without "
                         "'task'.", tool=name[:ECHO_CHARACTERS])


class Unauthenticated(CallRefused):
    code = "unauthenticated"


class RateLimited(CallRefused):
    code = "rate_limited"

    def __init__(self, scope: str, limit: str, retry_after: float) -> None:
        super().__init__(
            f"Rate limit {limit} for {scope} reached. Retry after {retry_after:.1f} seconds.",
            retry_after=round(retry_after, 3), limit=limit, scope=scope,
        )
        self.retry_after = retry_after


class QueueFull(CallRefused):
    """A caller already has as many calls waiting for a place as it may: refused, not queued."""

    code = "queue_full"

    def __init__(self, waiting: int) -> None:
        super().__init__(f"You have {waiting} calls waiting for a place to run already ([jobs] max_queued_per_caller): "
                         "wait for some of your jobs to end (job_wait), or cancel some (job_cancel), then call again.",
                         waiting=waiting)


class StoreUnavailable(CallRefused):
    """A store the server shares with its replicas cannot be reached: refused, with when to try again."""

    said: ClassVar[str] = "The server cannot reach a store it needs right now."

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"{self.said} Retry after {retry_after:.0f} seconds.", retry_after=retry_after)


class LimitsUnavailable(StoreUnavailable):
    code = "limits_unavailable"
    said = ("The server cannot check its rate limits right now (their shared store is unreachable), so it "
            "refuses calls until it can.")


class JobStoreUnavailable(StorageError, StoreUnavailable):
    """The shared job store (Redis) cannot be reached: a call about jobs is refused, with when
    to try again, not answered as a crash. What failed and where is the operator's log's."""

    code = "jobs_unavailable"
    said = "The server cannot reach its shared job store right now, so it can neither start nor look up jobs."


class Forbidden(CallRefused):
    code = "forbidden"


class InvalidArguments(CallRefused):
    code = "invalid_arguments"

    def __init__(self, tool: str, problems: list[str]) -> None:
        listing = "\n".join(f"- {p}" for p in problems)
        super().__init__(f"The arguments for {tool!r} are not valid:\n{listing}", problems=problems)
        self.problems = problems


class ApprovalDenied(CallRefused):
    code = "approval_denied"


class NoSuchJob(CallRefused):
    code = "no_such_job"

    def __init__(self, job_id: str) -> None:
        super().__init__(f"There is no job {echoed(job_id)} (it may belong to another caller or have expired).",
                         job_id=job_id[:ECHO_CHARACTERS])
        self.job_id = job_id


def why_no_folder(error: OSError) -> str:
    """What an error from reading a folder says of it, as every folder toolbay is given is
    told about (extension, agents, data folders)."""
    if isinstance(error, FileNotFoundError):
        return "does not exist"
    if isinstance(error, NotADirectoryError):
        return "is a file, not a folder"
    return f"cannot be read ({error.strerror or error})"
