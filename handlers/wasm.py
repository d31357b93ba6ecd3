"""WasmHandler: one tool (or one subcommand of a tool) served by a WASI command module.

A call becomes ``argv = [program, *subcommand path, *options from the arguments]``, runs in the
sandbox its tier allows (``toolbay.wasm.sandbox_for``), and its output becomes the result:
stdout as text (and as structured content when it is JSON), a non-zero exit or a trap as an
error the model can read, with stderr and the reason.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from toolbay.errors import WasmRejected
from toolbay.handlers.base import Handler, structured_from_json
from toolbay.handlers.secrets import without_secrets
from toolbay.helptext.places import inside_a_document
from toolbay.kept_patterns import compiled
from toolbay.wasm import RunRequest, RunResult, SandboxLimits, WasmModule, WasmRuntime, sandbox_for
from toolbay.wasm.errors import INVALID_EXIT_STATUS
from toolbay.wasm.progress import ProgressForwarder
from toolbay.wasm.quick import QuickRunRecord
from toolbay.words import CallContext, ToolDefinition, ToolResult
from toolbay.workspace_links import LinkGuard, links_removed
from toolbay.workspace_links import inside as is_under

STDIN_PROPERTY = "stdin"

DEFAULT_LIMITS = SandboxLimits()
NO_WORKSPACE = "this tool is given no workspace folder"
# The server has one, but a tool whose help declares no tier sees no file (``sandbox_for``).
NO_TIER = ("this tool's help declares no 'PermissionLevel:' (read, write or exec), so it is given no workspace "
           "folder")
NO_FILES_HINT = "\n\nNote: {why}, so it cannot see any file. If the error is about a file, pass the file's " \
    "content in the 'stdin' argument instead."
# The same for a call that gave 'stdin' already: it holds one text, not a file's place too.
NO_FILES_HINT_STDIN_TAKEN = "\n\nNote: {why}, so it cannot see any file; it reads only the text given in 'stdin'."
# A path the guest could not open, given as a host path outside the workspace (it sees only that).
OUTSIDE_HINT = ("\n\nNote: this tool sees only the workspace folder, at {guest}; {path} is outside it. Give paths "
                "inside the workspace, relative to it (e.g. 'data/file.txt').")
# The same for a host path into the workspace, passed as given (its parameter names no place).
HOST_PATH_HINT = ("\n\nNote: this tool sees the workspace folder at {guest}, not under its host path: for {path} "
                  "give '{mapped}', or the path relative to the workspace.")
# A tool of the read tier that failed to change a file: it sees the workspace, read-only.
LINK_OUT_HINT = ("\n\nNote: {path} is, or passes through, a link in the workspace that leads out of it; this "
                 "tool sees only the workspace, and does not follow links out of it. Copy the file into the "
                 "workspace, or give one that is inside it.")
READ_ONLY_HINT = ("\n\nNote: this tool's help declares 'PermissionLevel: read', so it sees the workspace "
                  "read-only; a tool that writes files declares 'PermissionLevel: write'.")
_DENIED = re.compile(rb"permission denied|not permitted|read-only file system|\b(?:EACCES|EPERM|EROFS)\b",
                     re.IGNORECASE)
# Words of a parameter's description (or its name) that say its value is a file's place, for a
# schema that does not say ``format: path`` (a clap '<INPUT>', a getopt '--config=CONFIG').
_PATH_WORDS = compiled(r"\b(?:files?|paths?|dir|directory|directories|folders?|filename)\b", re.IGNORECASE)
_PATH_NAMES = frozenset({"input", "output", "infile", "outfile", "src", "dst", "dest", "source", "destination",
                         "config"})
# Another option named in a description ("--text and --file cannot be used together") is no word of its own,
# but where the description says the option is another's alias ("same as --output-file").
_OPTION_NAMED = compiled(r"(?<![\w-])--?[A-Za-z0-9][\w-]*")
_AN_ALIAS = compiled(r"(?i)^\W*(?:same as|alias (?:for|of)|equivalent to|short(?:hand)? for|deprecated:? use)\b")
# Names of a value that is most often text: a place only where its description calls the value
# itself one ("base path for presentation content", "file of patterns", "read the body from this
# file"), not where it speaks of files ("commit message, read from a file with -F", "the text to
# write into the file", "pattern to search for in each file": re-checks found both kinds).
_TEXT_NAMES = frozenset({"text", "content", "contents", "message", "body", "string", "pattern", "regex", "query",
                         "comment", "title", "description", "value", "expression", "expr"})
_CALLS_ITSELF_A_PLACE = compiled(
    r"(?i)^\W*(?:(?:the|a|an)\s+)?(?:[\w-]+\s+){0,2}?(?:files?|paths?|folders?|dir|director(?:y|ies))\b"
    r"|\b(?:from|to|in|into) (?:this|that) file\b|\b(?:files?|paths?) (?:of|to|containing|holding)\b")
# What a property's name gains when another took the help's own name first (a positional
# <INPUT> beside an option --input is ``input_arg``; see ``toolbay.helptext.schema``).
_CLAIMED_SUFFIX = compiled(r"_(?:arg|option|[0-9]+)$")
# How guests say a file was not there or not reachable (wasi-libc, Rust std, Go, getopt tools):
# the hint above is for these errors, not for every failure of a tool without a workspace.
_FILE_ERROR = re.compile(
    rb"no such file|not a directory|capabilities insufficient|pre-?opened|bad file (?:number|descriptor)"
    rb"|permission denied|not permitted|cannot (?:open|read)|can't open|could not open|failed to open"
    rb"|\b(?:ENOENT|ENOTCAPABLE|EBADF|EACCES|EPERM)\b",
    re.IGNORECASE,
)


def _says_file_error(result: RunResult, request: RunRequest) -> bool:
    """Whether the guest's output says a file could not be reached, in its own words: the
    caller's text it echoes does not count (a key "no such file" that jsonkit says is missing,
    an input line a tool quotes in its error), else the hint about files would follow it."""
    said = result.stderr + result.stdout
    if not _FILE_ERROR.search(said):
        return False
    lines = request.stdin.splitlines() if request.stdin else []
    values = [value.encode() for value in request.argv[1:]]
    values += [value.partition(b"=")[2] for value in values if value.startswith(b"-")]  # --key=VALUE
    echoed = {text for text in (*values, *lines) if _FILE_ERROR.search(text)}
    for text in sorted(echoed, key=len, reverse=True):  # the longest first: one may hold another
        said = said.replace(text, b"")
    return _FILE_ERROR.search(said) is not None


_STDIN_SCHEMA = {"type": "string", "description": "Text passed to the program on standard input"}


def with_stdin_property(input_schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``input_schema`` with an optional ``stdin`` string property.

    A schema that already has a ``stdin`` property keeps its own.
    """
    schema = dict(input_schema)
    properties = dict(schema.get("properties") or {})
    properties.setdefault(STDIN_PROPERTY, dict(_STDIN_SCHEMA))
    schema["properties"] = properties
    schema.setdefault("type", "object")
    return schema


def _names_a_path(name: str, schema: Mapping[str, Any]) -> bool:
    """Whether a parameter's value is a file's place: its schema says ``format: path`` (or its
    items do), or a text parameter's description or name says so."""
    items = schema.get("items")
    if schema.get("format") == "path" or (isinstance(items, Mapping) and items.get("format") == "path"):
        return True
    kind = items.get("type") if isinstance(items, Mapping) else schema.get("type")
    if kind != "string":
        return False
    name = _CLAIMED_SUFFIX.sub("", name)  # the name its help gave it
    description = schema.get("description")
    if isinstance(description, str):
        # Its own name in capitals is the value's name, not its kind ("PATH is a sequence of keys").
        description = description.replace(name.upper(), "")
        if not _AN_ALIAS.match(description):
            description = _OPTION_NAMED.sub("", description)
    if name.lower() in _TEXT_NAMES:
        return isinstance(description, str) and _CALLS_ITSELF_A_PLACE.search(description) is not None
    if isinstance(description, str) and inside_a_document(name, description):
        return False  # jsonkit keys --path: "path of the object to list"
    return name in _PATH_NAMES or (isinstance(description, str) and _PATH_WORDS.search(description) is not None)


class WasmHandler(Handler):
    supports_cancellation = True
    sends_nothing_before_its_answer = True
    # A catalog holds thousands of these: no __dict__ each.
    __slots__ = ("runtime", "_module", "_provide", "program_name", "subcommand_path", "to_argv", "limits",
                 "preopens", "env", "_secrets", "_pace", "_may_run_twice", "_tier_missing", "_path_names")

    def __init__(
        self,
        definition: ToolDefinition,
        runtime: WasmRuntime,
        module: WasmModule | Callable[[], WasmModule],
        *,
        program_name: str,
        subcommand_path: Sequence[str] = (),
        to_argv: Callable[[Mapping[str, Any]], list[str]],
        limits: SandboxLimits = DEFAULT_LIMITS,
        workspace: Path | None = None,
        env_allow: Sequence[str] = (),
        host_env: Mapping[str, str] | None = None,
        secrets: Iterable[str] = (),
    ) -> None:
        """``secrets``: credential values the tool is given (in ``host_env``); they are blotted
        out of its results."""
        super().__init__(definition)
        self.runtime = runtime
        # A provider defers compiling (or loading the compiled cache) to the first call, so a
        # warm start with many tools touches no module at all.
        self._module = module if isinstance(module, WasmModule) else None
        self._provide = None if isinstance(module, WasmModule) else module
        self.program_name = program_name
        self.subcommand_path = tuple(subcommand_path)
        self.to_argv = to_argv
        self.limits = limits
        self.preopens, self.env = sandbox_for(
            definition.tier, workspace, env_allow, os.environ if host_env is None else host_env)
        self._secrets = frozenset(secrets)
        self._tier_missing = workspace is not None and definition.tier is None
        # The parameters that name a file's place, worked out on the first call that needs them.
        self._path_names: frozenset[str] | None = None
        self._pace = QuickRunRecord()
        # A run on the event loop that outlives its budget is void and run again: only
        # harmless for a tool that cannot write files.
        self._may_run_twice = not any(preopen.writable for preopen in self.preopens)

    async def handle(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult:
        request = self._request(arguments)
        if isinstance(request, ToolResult):
            return request
        module = self._module
        if module is None:
            provide = self._provide
            if provide is None:
                # Retired before its module was ever loaded: loading now would read whatever
                # sits at the path today (a newer version, or nothing), not this tool's version.
                return ToolResult.error(
                    f"The tool {self.name!r} was replaced or removed while this call was starting. "
                    "Call it again, or call tools/list to see the tools you can use.")
            try:
                module = await self._load(provide)
            except WasmRejected as rejected:
                return ToolResult.error(f"The tool {self.name!r} cannot be loaded: {rejected.reason}.")
        # ``module`` stays referenced until the run ends, so a call in flight finishes on the
        # module it started with even after the handler is closed. The guest's progress lines
        # reach this call's own progress callback, and nobody else's.
        links = LinkGuard.taken([preopen.host_path for preopen in request.preopens if preopen.writable])
        progress = ProgressForwarder(context.report_progress)
        try:
            async with progress.forwarding():
                result = await self.runtime.run_async(
                    module, dataclasses.replace(request, on_progress=progress.from_thread), context.cancelled)
        finally:
            # Cancelled too: a run stopped half-way may have made links as well.
            removed = await links.after() if links is not None else []
        self._pace.ran_on_worker(result.cpu_s, result.waited_s)
        if removed:
            return links_removed(self.name, removed)
        return self._outcome(result, request)

    def expects_quick_answer(self) -> bool:
        return (self._module is not None and self.runtime.quick_budget_s > 0 and self._may_run_twice
                and self._pace.trusted)

    def answer_at_once(self, arguments: Mapping[str, Any], context: CallContext) -> ToolResult | None:
        """Runs on the event loop's thread when this tool has proven quick, sparing the worker
        round trip and the job machinery; ``None`` otherwise, or when the run outlived its
        budget (it is void then, and ``handle`` runs it again). See ``toolbay.wasm.quick``."""
        module = self._module
        if module is None or not self.expects_quick_answer():
            return None
        request = self._request(arguments)
        if isinstance(request, ToolResult):
            return request
        result = self.runtime.run_quick(module, request, self.runtime.quick_budget_s, context.cancelled)
        if result is None:
            self._pace.overran()
            return None
        self._pace.ran_here(result.cpu_s, result.waited_s)
        return self._outcome(result, request)

    def _request(self, arguments: Mapping[str, Any]) -> RunRequest | ToolResult:
        """The run asked for, or the error saying why the arguments make none."""
        options = dict(arguments)
        stdin = options.pop(STDIN_PROPERTY, None)
        if stdin is not None and not isinstance(stdin, str):
            return ToolResult.error(f"The {STDIN_PROPERTY!r} argument must be a string.")
        if self.preopens:
            options = self._as_guest_paths(options)
        try:
            tail = self.to_argv(options)
        except ValueError as error:
            return ToolResult.error(f"Cannot build the command line for {self.name!r}: {error}")
        if any("\x00" in part for part in tail):
            # The chain refuses these first; a C string would end at the NUL, running what was not asked.
            return ToolResult.error(f"Cannot build the command line for {self.name!r}: an argument contains a NUL "
                                    "character (\\u0000).")
        # The program's own options before the subcommand path, a group's after its word.
        around = getattr(tail, "around", None)
        return RunRequest(
            argv=[self.program_name, *(around(self.subcommand_path) if around is not None
                                       else [*self.subcommand_path, *tail])],
            stdin=stdin.encode() if stdin is not None else None,
            env=self.env,
            preopens=self.preopens,
            limits=self.limits,
        )

    def _as_guest_paths(self, options: dict[str, Any]) -> dict[str, Any]:
        """A path argument given as the host's own path into the workspace (the model read it in
        the user's request: "/home/ann/project/data.json") as the guest sees that file
        ("/workspace/data.json"); the guest cannot see host paths. Only for properties that
        name a file's place (``_names_a_path``); any other text stays as given."""
        paths = self._path_names
        if paths is None:
            properties = self.definition.input_schema.get("properties") or {}
            paths = self._path_names = frozenset(name for name, schema in properties.items()
                                                 if isinstance(schema, Mapping) and _names_a_path(name, schema))
        for key, value in options.items():
            if key not in paths:
                continue
            if isinstance(value, str):
                options[key] = self._guest_path(value)
            elif isinstance(value, list):
                options[key] = [self._guest_path(v) if isinstance(v, str) else v for v in value]
        return options

    def _guest_path(self, value: str) -> str:
        if not os.path.isabs(value):
            return value
        mapped = self._mapped(value)
        if mapped is None:
            # The workspace is kept as its real path; the model may know it through a symlink
            # ("/tmp/..." on macOS, a linked project folder): the link's target decides.
            mapped = self._mapped(os.path.realpath(value))
        return value if mapped is None else mapped

    def _mapped(self, value: str) -> str | None:
        for preopen in self.preopens:
            host = os.fspath(preopen.host_path)
            if value == host:
                return preopen.guest_path
            if is_under(value, host):  # (the same path was answered above)
                inside = os.path.relpath(value, host).replace(os.sep, "/")
                if inside == ".." or inside.startswith("../"):
                    return None  # it climbs out again ("WS/../x"): outside, and said so as given
                return f"{preopen.guest_path.rstrip('/')}/{inside}"
        return None

    def _outcome(self, result: RunResult, request: RunRequest) -> ToolResult:
        outcome = tool_result_from_run(self.name, result, self.limits)
        if self._secrets:
            outcome = without_secrets(outcome, self._secrets)
        if not outcome.is_error or result.trap is not None or not _says_file_error(result, request):
            return outcome
        # WASI's wording for "no such file visible" varies by toolchain ("pre-opened file
        # descriptor", "Capabilities insufficient", "Bad file number"): say it plainly.
        if not self.preopens:
            hint = NO_FILES_HINT_STDIN_TAKEN if request.stdin is not None else NO_FILES_HINT
            outcome.text = outcome.text.rstrip() + hint.format(why=NO_TIER if self._tier_missing else NO_WORKSPACE)
            outcome.meta["workspace"] = None
        elif (path := self._host_path_given(request.argv)) is not None:
            mapped, guest = self._guest_path(path), self.preopens[0].guest_path
            hint = OUTSIDE_HINT if mapped == path else HOST_PATH_HINT
            outcome.text = outcome.text.rstrip() + hint.format(guest=guest, path=path, mapped=mapped)
        elif (path := self._link_out_given(request.argv)) is not None:
            # Said as the link, not as the tier: a read-tier tool's note said it sees the
            # workspace read-only, when a link out of the workspace was what it could not follow.
            outcome.text = outcome.text.rstrip() + LINK_OUT_HINT.format(path=path)
        elif not any(preopen.writable for preopen in self.preopens) and _DENIED.search(result.stderr + result.stdout):
            outcome.text = outcome.text.rstrip() + READ_ONLY_HINT
        return outcome

    def _link_out_given(self, argv: Sequence[str]) -> str | None:
        """The first path in ``argv``, as given, that reaches a link in the workspace whose
        target is outside it (the guest's path, or relative to the workspace)."""
        for word in argv[1:_LINKS_LOOKED_AT]:
            path = word.partition("=")[2] if word.startswith("-") else word
            for preopen in self.preopens:
                root = os.fspath(preopen.host_path)
                guest_root = preopen.guest_path.rstrip("/") + "/"
                inside = path[len(guest_root):] if path.startswith(guest_root) else (
                    path if path and not path.startswith("/") else None)
                if inside is not None and _passes_a_link_out(root, inside):
                    return path
        return None

    def _host_path_given(self, argv: Sequence[str]) -> str | None:
        """The first absolute path in ``argv`` that is no path the guest sees, as the model gave
        it: outside the workspace, or into it for a parameter that names no place."""
        guest_roots = tuple(preopen.guest_path.rstrip("/") + "/" for preopen in self.preopens)
        for word in argv[1:]:
            path = word.partition("=")[2] if word.startswith("-") else word
            # Normalised first: the guest's own path climbing out ("/workspace/../etc/x") is
            # outside it too, not a file the tier kept it from.
            if path.startswith("/") and not (posixpath.normpath(path) + "/").startswith(guest_roots) \
                    and len(path) > 1:
                return path
            # A relative path that climbs out of the workspace ("../notes.txt", "a/../../b").
            if path and not path.startswith("/") and posixpath.normpath(path).split("/")[0] == "..":
                return path
        return None

    async def _load(self, provide: Callable[[], WasmModule]) -> WasmModule:
        # anyio's worker threads keep their last job (function, arguments, result) in local
        # variables until their next one: the provider and the module pass through a box
        # emptied here, so a worker left idle holds no module that was replaced meanwhile.
        box: list[Any] = [provide]

        def load() -> None:
            box.append(box.pop()())

        await anyio.to_thread.run_sync(load)
        module: WasmModule = box.pop()
        if self._provide is not None:  # not closed meanwhile: keep it for the next calls
            self._module = module
        return module

    async def close(self) -> None:
        """Lets go of the module (and of the provider, which holds it too) once the handler has
        left the catalog, so the compiled code is freed when the last running call ends."""
        if self._provide is not None:
            self._provide = None
            self._module = None


# Arguments looked at for a link out of the workspace, and a path's parts followed: a call's
# error path runs this on the event loop.
_LINKS_LOOKED_AT = 64
_PARTS_FOLLOWED = 32


def _passes_a_link_out(root: str, inside: str) -> bool:
    """Whether ``inside`` (a path relative to the workspace ``root``) is or passes through a
    symbolic link whose target is outside ``root``."""
    real_root = os.path.realpath(root)
    here = real_root  # where the walk is, its links followed, as the guest's path resolves
    for part in [part for part in inside.split("/") if part not in ("", ".")][:_PARTS_FOLLOWED]:
        if part == "..":
            if here == real_root:
                return False  # climbing out of the workspace is said as a path outside it
            here = os.path.dirname(here)
            continue
        here = os.path.join(here, part)
        try:
            if not os.path.islink(here):
                continue
        except (OSError, ValueError):
            return False
        here = os.path.realpath(here)
        if not is_under(here, real_root):
            return True
    return False


def _decoded(data: bytes, truncated: bool) -> tuple[str, bool]:
    """``data`` as text, and whether it was not UTF-8 (what is not shows as U+FFFD); a
    character cut in two by the output limit is dropped, not counted against it."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError as error:
        if truncated and error.reason == "unexpected end of data" and error.end == len(data):
            text, not_utf8 = _decoded(data[:error.start], truncated=False)
            return text, not_utf8
        return data.decode("utf-8", errors="replace"), True


def tool_result_from_run(tool: str, result: RunResult, limits: SandboxLimits) -> ToolResult:
    """Says how a run went, in words for the model and facts in ``meta``."""
    stdout, stdout_binary = _decoded(result.stdout, result.stdout_truncated)
    stderr, stderr_binary = _decoded(result.stderr, result.stderr_truncated)
    meta: dict[str, Any] = {
        "exit_code": result.exit_code,
        "duration_ms": round(result.duration_s * 1000, 3),
        "stdout_truncated": result.stdout_truncated,
        "stderr_truncated": result.stderr_truncated,
    }
    notes: dict[str, list[str]] = {"stdout": [], "stderr": []}
    # Said, or the model takes the replacement characters for what the program printed.
    for stream, binary in (("stdout", stdout_binary), ("stderr", stderr_binary)):
        if binary:
            meta[f"{stream}_not_utf8"] = True
            notes[stream].append(f"[{stream} is not UTF-8 text: the bytes that are not show as \ufffd]")
    if result.stdout_truncated:
        notes["stdout"].append(f"[stdout truncated: only the first {limits.stdout_limit_bytes} bytes are shown]")
    if result.stderr_truncated:
        notes["stderr"].append(f"[stderr truncated: only the first {limits.stderr_limit_bytes} bytes are shown]")
    if result.ok:
        text = stdout
        if stderr:
            # Warnings and notes a program printed beside its output reach the model too, apart
            # from the output itself (which stays exactly what the program printed, if nothing):
            # a log line is not the result. So do the notes on stderr: joined to the output, they
            # made a JSON result no longer JSON.
            meta["stderr"] = "\n".join([stderr, *notes["stderr"]])
        structured = None
        if not result.stdout_truncated:
            structured, omitted = structured_from_json(stdout)
            if omitted:
                meta["structured_omitted"] = omitted
        return ToolResult(text="\n".join([text, *notes["stdout"]]), structured=structured, meta=meta)
    if result.trap == INVALID_EXIT_STATUS:
        # It ended as it meant to, with a failure's status above 125 (git's 129 for a usage
        # error), which WASI cannot pass on: no stop, and what it wrote says why.
        meta["trap"] = result.trap
        headline = f"{tool} failed with an exit code above 125 (WASI passes 0 to 125 only)."
    elif result.trap is not None:
        meta["trap"] = result.trap
        headline = f"{tool} was stopped: {result.trap}."
    else:
        headline = f"{tool} failed with exit code {result.exit_code}."
    parts = [headline]
    if stderr:
        parts.append(f"stderr:\n{stderr}")
    if stdout:
        parts.append(f"stdout:\n{stdout}")
    parts.extend([*notes["stdout"], *notes["stderr"]])
    return ToolResult(text="\n\n".join(parts), is_error=True, meta=meta)
