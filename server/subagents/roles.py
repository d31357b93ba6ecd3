"""Role files: ``agents/NAME.md``, a YAML front matter and a Markdown role prompt.

::

    ---
    name: json-reviewer                    # the prompt's name; the tool is agent_json_reviewer
    description: Reviews a JSON file ...   # one line
    arguments:                             # optional
      - name: path
        description: The file to review, relative to the workspace.
        required: true
      - name: strictness
        description: How picky to be.
        choices: [lenient, strict]         # offered by completion/complete; other values refused
    tools: [jsonkit_*, textkit_count]      # name patterns of the tools the role may use
    limits: {turns: 8, time_s: 300}        # optional; the [subagents] defaults otherwise
    ---
    You are a careful reviewer of {{path}} ...

The body is the role prompt; ``{{argument}}`` placeholders are replaced by the values
given (an optional argument not given becomes empty). A placeholder that names no declared
argument, an unknown front-matter key, a bad value: the file is refused with a one-line
reason (``RoleFileError``), and the folder's other roles are served as usual.

This module only parses and renders; it knows nothing of prompts, tools or clients.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from toolbay.errors import echoed, why_no_folder
from toolbay.file_names import is_utf8
from toolbay.kept_patterns import compiled
from toolbay.redaction import redact_text

ROLE_SUFFIX = ".md"
MAX_ROLE_BYTES = 256 * 1024
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,62}"
_NAME = compiled(NAME_PATTERN)
_PLACEHOLDER = compiled(r"\{\{\s*([A-Za-z0-9_-]+)\s*\}\}")
# Characters a role's prompt may have once its values are in: a value goes in at each of its
# placeholders, so a role placing one several times multiplied what a caller sent (two 1.9 MB
# values placed twice made a 15 MB answer; a role of 256 KiB can place one a thousand times).
MAX_PROMPT_CHARS = 4 * 2**20
# libyaml's loader when PyYAML was built with it: about six times less CPU per role file.
_BASE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Names an argument may not take: the agent tool's own ``task``.
RESERVED_ARGUMENTS = frozenset({"task"})


class _KeyTwice(yaml.YAMLError):
    """A key written twice in one mapping, and the line of its second writing (from 0, in the
    front matter)."""

    def __init__(self, key: object, line: int) -> None:
        super().__init__(key, line)
        self.key, self.line = key, line


class _RoleLoader(_BASE_LOADER):  # type: ignore[misc,valid-type]
    """YAML 1.2's booleans: only true and false. YAML 1.1 also reads yes, no, on and off as
    booleans, so ``choices: [yes, off]`` came back as True and False, and the author's ``yes``
    was then refused. A key written twice in one mapping is an error, as YAML 1.2 says: PyYAML
    keeps the last silently, so a role whose ``tools:`` was written twice served the second
    list only, with nothing said."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str | int | float | bool) and key in seen:  # hashable plain keys
                raise _KeyTwice(key, key_node.start_mark.line)
            if isinstance(key, str | int | float | bool):
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


# YAML 1.2's core schema for plain scalars, in place of PyYAML's YAML 1.1: booleans as above;
# numbers as JSON and YAML 1.2 write them (``1e3`` was a string, ``010`` eight, ``1_000`` and
# ``1:30`` numbers); no dates (``choices: [2024-01-01]`` were dates, refused as no word); and no
# merge key (``<<: {...}`` was "could not determine a constructor"; it is an unknown key now).
_YAML_1_1_ONLY = {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
                  "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:merge"}
_RoleLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag not in _YAML_1_1_ONLY]
    for first, resolvers in _BASE_LOADER.yaml_implicit_resolvers.items()
}
_RoleLoader.add_implicit_resolver("tag:yaml.org,2002:bool", compiled(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                  list("tTfF"))
_RoleLoader.add_implicit_resolver("tag:yaml.org,2002:int", compiled(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
                                  list("-+0123456789"))
_RoleLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    compiled(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+.0123456789"))


def _yaml_1_2_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    try:
        if text.startswith(("0o", "0x")):
            return int(text[2:], 8 if text[1] == "o" else 16)
        return int(text, 10)  # "010" is ten
    except ValueError:  # past Python's 4,300 digits: it stopped the reading of every role file
        raise yaml.constructor.ConstructorError(None, None, f"a number of {len(text)} digits is too long",
                                                node.start_mark) from None


def _yaml_1_2_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    text = str(loader.construct_scalar(node))
    special = text.lstrip("+-").lower()
    if special in (".inf", ".nan"):
        return float(("-" if text.startswith("-") else "") + special[1:])
    return float(text)


class _WrittenInt(int):
    """A number of the front matter that keeps how it was written: a choice is that word."""

    written: str


class _WrittenFloat(float):
    written: str


def _keeping_its_text(number: type[_WrittenInt] | type[_WrittenFloat], read: Any) -> Any:
    def construct(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
        value = number(read(loader, node))
        value.written = str(node.value)
        return value

    return construct


# ``choices: [3.10, 3.11]`` were offered as 3.1 and 3.11 (and 010 as 8): a number read for a
# choice is the word as written; for a limit, the number.
_RoleLoader.add_constructor("tag:yaml.org,2002:int", _keeping_its_text(_WrittenInt, _yaml_1_2_int))
_RoleLoader.add_constructor("tag:yaml.org,2002:float", _keeping_its_text(_WrittenFloat, _yaml_1_2_float))
_YAML_LOADER: type[yaml.SafeLoader] = _RoleLoader
_FRONT_MATTER = compiled(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)


class RoleFileError(ValueError):
    """A role file that cannot be served; ``reason`` is one line."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class MissingArguments(ValueError):
    """Required arguments not given, or values outside an argument's choices."""

    def __init__(self, role: str, problems: Sequence[str]) -> None:
        super().__init__(f"role {role!r}: " + "; ".join(problems))
        self.problems = tuple(problems)


def _as_written(value: Any) -> Any:
    """A number of the front matter as its author wrote it, where text is meant."""
    return getattr(value, "written", value) if isinstance(value, _WrittenInt | _WrittenFloat) else value


# Text of the front matter: ``name: 2024`` and ``name: 1e3`` are numbers to YAML, the text as written.
_Text = Annotated[str, BeforeValidator(_as_written)]


class _Argument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: _Text = Field(pattern=rf"^{NAME_PATTERN}$")
    description: _Text = ""
    required: bool = False
    choices: list[str] | None = None

    @field_validator("required", mode="before")
    @classmethod
    def _true_or_false(cls, value: Any) -> Any:
        # Only YAML 1.2's true and false: ``required: yes`` was read as true and "off" as false.
        if not isinstance(value, bool):
            raise ValueError(f"must be true or false, not {value!r} (yes, no, on and off are words in a role file)")
        return value

    @field_validator("choices", mode="before")
    @classmethod
    def _words(cls, value: Any) -> Any:
        if isinstance(value, list):
            # YAML reads `[1, 2]` and `[true]` as numbers and booleans, the words as written
            # (`true`, not Python's `True`, which the caller had to type); a list or mapping
            # stays what it is, and is refused as not a word.
            return [("true" if item else "false") if isinstance(item, bool)
                    else getattr(item, "written", str(item)) if isinstance(item, int | float) else item
                    for item in value]
        return value

    @field_validator("choices")
    @classmethod
    def _each_once(cls, value: list[str] | None) -> list[str] | None:
        # An enum of ["a", "a"] is no valid JSON Schema for some clients' validators.
        seen: set[str] = set()
        for choice in value or ():
            if choice in seen:
                raise ValueError(f"the choice {redact_text(choice)!r} is written twice")
            seen.add(choice)
        return value

    @field_validator("choices")
    @classmethod
    def _no_secret(cls, value: list[str] | None) -> list[str] | None:
        # Choices are shown to every client (completion, the agent tool's schema): one shown
        # redacted could be neither offered nor given ("[REDACTED]" was then refused).
        for choice in value or ():
            if redact_text(choice) != choice:
                raise ValueError(f"the choice {redact_text(choice)!r} looks like a secret, and choices are shown to "
                                 "every client: keep secrets out of role files")
        return value


class _Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Strict: ``turns: true`` was read as 1 turn and ``time_s: "60"`` as a number.
    turns: int | None = Field(None, ge=1, le=200, strict=True)
    time_s: float | None = Field(None, gt=0, le=24 * 3600, strict=True, allow_inf_nan=False)


class _FrontMatter(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: _Text = Field(pattern=rf"^{NAME_PATTERN}$")
    description: _Text = Field(min_length=1, max_length=500)
    arguments: list[_Argument] = Field(default_factory=list)
    tools: list[_Text] = Field(default_factory=list)
    limits: _Limits = Field(default_factory=_Limits)

    @field_validator("description")
    @classmethod
    def _one_line(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("must not be blank: say in a line what the role does")
        if "\n" in value:
            raise ValueError("must be one line")
        return value


@dataclass(frozen=True, slots=True)
class RoleArgument:
    name: str
    description: str
    required: bool
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Role:
    """One parsed role file."""

    name: str
    description: str
    arguments: tuple[RoleArgument, ...]
    # Name patterns (fnmatch) of the tools the role may use.
    tools: tuple[str, ...]
    max_turns: int | None
    time_s: float | None
    body: str
    path: str

    @property
    def tool_name(self) -> str:
        """The delegating tool's name: ``agent_`` and the role's name, hyphens as underscores."""
        return "agent_" + self.name.replace("-", "_")

    def argument(self, name: str) -> RoleArgument | None:
        return next((argument for argument in self.arguments if argument.name == name), None)

    def render(self, values: Mapping[str, Any], shown: Callable[[str], str] = redact_text) -> str:
        """The role prompt with ``values`` in its placeholders; ``MissingArguments`` when a
        required one is missing (or empty) or a value is not among its argument's choices.
        ``shown``: how the role's own text is shown (the values are the caller's own, as given)."""
        problems: list[str] = []
        for argument in self.arguments:
            value = values.get(argument.name)
            given = value is not None and str(value) != ""
            if argument.required and not given:
                about = argument.description or "no description"
                problems.append(f"the argument {argument.name!r} is required ({about})")
            elif given and argument.choices is not None and str(value) not in argument.choices:
                problems.append(f"the argument {argument.name!r} must be one of {', '.join(argument.choices)} "
                                f"(got {echoed(str(value))})")
        if problems:
            # They quote the role's description and choices, shown redacted everywhere else.
            raise MissingArguments(self.name, [redact_text(problem) for problem in problems])

        # The role prompt reaches clients and models (prompts/get, the _subagent envelope,
        # sampling): secret-looking text in it is hidden as in every description served. The
        # caller's own values are left as given.
        # ``shown`` between the placeholders alone: a credential's value equal to an argument's
        # name blotted the placeholder ("{{account}}") and the caller's value with it.
        texts, names, last = [], [], 0
        for placeholder in _PLACEHOLDER.finditer(self.body):
            texts.append(shown(self.body[last:placeholder.start()]))
            names.append(placeholder.group(1))
            last = placeholder.end()
        texts.append(shown(self.body[last:]))
        filled = {name: "" if value is None else str(value) for name, value in values.items()}
        # Measured as it would be sent, the role's text shown (hiding may lengthen it).
        size = sum(map(len, texts)) + sum(len(filled.get(name, "")) for name in names)
        if size > MAX_PROMPT_CHARS:
            raise MissingArguments(self.name, [
                f"the role's prompt with these values would be {size:,} characters, more than the "
                f"{MAX_PROMPT_CHARS:,} a prompt may be (a value goes in at each of its placeholders); send shorter "
                "values"])
        parts = [texts[0]]
        for name, text in zip(names, texts[1:], strict=True):
            parts += [filled.get(name, ""), text]
        return "".join(parts)

    def complete(self, argument: str, prefix: str) -> list[str]:
        """The argument's choices that start with ``prefix`` (case-insensitive), as ``prompts/list``
        shows them (redacted); none when it names none."""
        found = self.argument(argument)
        if found is None or found.choices is None:
            return []
        lowered = prefix.lower()
        shown = dict.fromkeys(redact_text(choice) for choice in found.choices)
        return [choice for choice in shown if choice.lower().startswith(lowered)]


def _yaml_problem(exc: yaml.YAMLError, front_matter: str) -> str:
    """What PyYAML found wrong, its places given as lines of the file: PyYAML counts the lines
    of the front matter it was given, which begins on the file's second line, and names it
    "<unicode string>". Counted here from the place's offset, by the file's own line ends:
    PyYAML also ends a line at U+0085, U+2028 and U+2029 (a re-check)."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return " ".join(str(exc).split())

    def at(mark: Any) -> str:
        if mark is None:
            return ""
        before = front_matter[:mark.index]
        return f" (line {before.count(chr(10)) + 2}, column {len(before) - before.rfind(chr(10))})"

    parts = []
    if exc.context:
        same_place = exc.context_mark is not None and exc.problem_mark is not None \
            and (exc.context_mark.line, exc.context_mark.column) == (exc.problem_mark.line, exc.problem_mark.column)
        parts.append(exc.context + ("" if same_place else at(exc.context_mark)))
    if exc.problem:
        parts.append(exc.problem + at(exc.problem_mark))
    return " ".join(": ".join(parts).split()) or " ".join(str(exc).split())


def parse_role(path: str, text: str) -> Role:
    """The role in ``text`` (the content of the file at ``path``); ``RoleFileError`` when invalid."""
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        # Lines ended by CR alone (classic Mac OS), in part of the file or all of it, read as
        # lines, as CRLF ones are.
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise RoleFileError(path, "no front matter: the file must start with a line '---', the YAML "
                                  "front matter, and a closing line '---'")
    try:
        front_matter = match.group(1)
        if "*" in front_matter and _has_alias(front_matter):
            # An alias repeats what its anchor holds: nested a few levels, 700 bytes made
            # hundreds of megabytes once read (and a server that stopped answering meanwhile).
            raise RoleFileError(path, "front matter uses a YAML alias (*name): write each value out instead")
        data = yaml.load(front_matter, Loader=_YAML_LOADER)  # a safe loader: plain data only
    except _KeyTwice as twice:
        # Its line in the file: the front matter begins on the file's second line.
        raise RoleFileError(path, f"front matter: the key {twice.key!r} is written twice (again on line "
                                  f"{twice.line + 2})") from None
    except yaml.YAMLError as exc:
        raise RoleFileError(path, "front matter is not valid YAML: " + _yaml_problem(exc, front_matter)) from None
    if not isinstance(data, dict):
        raise RoleFileError(path, "front matter must be a YAML mapping (name: ..., description: ...)")
    try:
        front = _FrontMatter.model_validate(data)
    except ValidationError as exc:
        raise RoleFileError(path, _first_problem(exc)) from None
    body = text[match.end():].strip()
    if not body:
        raise RoleFileError(path, "the role prompt (the Markdown after the front matter) is empty")
    names = [argument.name for argument in front.arguments]
    reserved = sorted(RESERVED_ARGUMENTS.intersection(names))
    if reserved:
        raise RoleFileError(path, f"argument {reserved[0]!r} is the agent tool's own (what the sub-agent should "
                                  "do, handed to it apart from the role's text): name the argument otherwise")
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise RoleFileError(path, f"argument {duplicates[0]!r} is declared twice")
    unknown = sorted({found for found in _PLACEHOLDER.findall(body) if found not in names})
    if unknown:
        hint = " (the task is handed to the sub-agent apart from the role, not placed in its text: leave " \
               "{{task}} out)" if unknown[0] in RESERVED_ARGUMENTS else ""
        raise RoleFileError(path, f"placeholder {{{{{unknown[0]}}}}} names no declared argument{hint}")
    for argument in front.arguments:
        if argument.choices is not None and not argument.choices:
            raise RoleFileError(path, f"argument {argument.name!r} has an empty list of choices")
    return Role(
        name=front.name,
        description=front.description,
        arguments=tuple(RoleArgument(a.name, a.description.strip(), a.required,
                                     tuple(a.choices) if a.choices is not None else None)
                        for a in front.arguments),
        tools=tuple(front.tools),
        max_turns=front.limits.turns,
        time_s=front.limits.time_s,
        body=body,
        path=path,
    )


def _has_alias(front_matter: str) -> bool:
    """Whether the YAML holds an alias, read as events (no value is built)."""
    return any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(front_matter, Loader=_BASE_LOADER))


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    location = ".".join(str(part) for part in error["loc"]) or "front matter"
    message = error["msg"]
    if error["type"] == "extra_forbidden":
        # The keys of the part it is in: limits.tokens was told the front matter's own.
        sections: dict[str, type[BaseModel]] = {"limits": _Limits, "arguments": _Argument}
        section = sections.get(str(error["loc"][0]), _FrontMatter)
        message = f"unknown key (known: {', '.join(section.model_fields)})"
    elif error["type"] == "missing":
        message = "is missing"
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return f"front matter {location}: {message}{more}"


@dataclass(frozen=True, slots=True)
class RefusedRole:
    path: str
    reason: str
    # Refused for a name another file has, not for what the file holds.
    lost_its_name: bool = False


@dataclass(frozen=True, slots=True)
class RoleFolders:
    """What the role folders hold: the roles served, and the files refused with their reason."""

    roles: tuple[Role, ...] = ()
    refused: tuple[RefusedRole, ...] = ()


logger = logging.getLogger(__name__)
# Folders already said to be missing: every reload (each rescan) would say it again.
_said_missing: set[str] = set()


def role_files(folders: Iterable[Path]) -> list[str]:
    """The role files in ``folders``, folder order then name order; README.md and hidden files
    are not roles."""
    found: list[str] = []
    for folder in folders:
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as exc:
            # One that does not exist (yet) holds no roles; a mistyped one is said once.
            if str(folder) not in _said_missing:
                _said_missing.add(str(folder))
                logger.warning("agents folder %s %s; no roles from it", folder, why_no_folder(exc))
            continue
        _said_missing.discard(str(folder))
        for entry in entries:
            if is_role_file(entry.path) and _file_or_unreadable(entry):
                found.append(entry.path)
    return found


def _file_or_unreadable(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is a file, or a link that cannot be followed (a loop: ELOOP, which
    stopped the server at start, and every reload; or a link to nothing) or a folder named like
    a role file, which are then read and refused with their reason rather than left unsaid."""
    try:
        return entry.is_file() or entry.is_dir() or (entry.is_symlink() and not os.path.exists(entry.path))
    except OSError:
        return True


def is_role_file(path: str) -> bool:
    name = os.path.basename(path)
    return name.endswith(ROLE_SUFFIX) and not name.startswith(".") and name.lower() != "readme.md"


def _named_after_its_file(role: Role) -> bool:
    return os.path.basename(role.path)[: -len(ROLE_SUFFIX)] == role.name


def read_roles(folders: Iterable[Path]) -> RoleFolders:
    """Reads every role file (blocking). A file named after the role (``NAME.md``) keeps the
    name, else the first file to claim it; another is refused, saying which file has it."""
    roles: dict[str, Role] = {}
    refused: list[RefusedRole] = []
    for path in role_files(folders):
        if not is_utf8(path):
            # Not opened: the folder watch gives up on each access to such a file, and a watch
            # begun again after a rescan that read it gave up again, twice a second for good.
            refused.append(RefusedRole(path, "its path is not valid UTF-8: rename the file (or its folder) to "
                                             "read it"))
            continue
        try:
            with open(path, "rb") as handle:
                raw = handle.read(MAX_ROLE_BYTES + 1)
            if len(raw) > MAX_ROLE_BYTES:
                raise RoleFileError(path, f"larger than {MAX_ROLE_BYTES // 1024} KiB")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RoleFileError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
            role = parse_role(path, text)
            # Keyed by the tool too: foo-bar and foo_bar are two names but one agent_foo_bar.
            kept = roles.get(role.tool_name)
            if kept is not None:
                taken = (f"the role name {role.name!r}" if kept.name == role.name
                         else f"the tool name {role.tool_name!r} (of the role name {role.name!r})")
                if _named_after_its_file(role) and not _named_after_its_file(kept):
                    # json-reviewer.md keeps the name json-reviewer against another file claiming it.
                    refused.append(RefusedRole(kept.path, f"{taken} is taken by {path}, the file of that name",
                                               lost_its_name=True))
                    roles[role.tool_name] = role
                    continue
                refused.append(RefusedRole(path, f"{taken} is already taken by {kept.path}", lost_its_name=True))
                continue
            roles[role.tool_name] = role
        except RoleFileError as error:
            refused.append(RefusedRole(error.path, error.reason))
        except OSError as exc:
            refused.append(RefusedRole(path, f"cannot be read ({exc.strerror or exc})"))
    refused += [RefusedRole(path, "in a folder inside an agents folder: role files are read only directly in "
                                  "it (move the file up, or name its folder in agents)")
                for path in _one_folder_down(folders)]
    return RoleFolders(tuple(roles.values()), tuple(refused))


def _one_folder_down(folders: Iterable[Path]) -> list[str]:
    """Role files in the folders directly inside ``folders``, which are not read: said, rather
    than left to look like roles that were lost (a tool folder's subfolders are said too)."""
    nested: list[str] = []
    for folder in folders:
        with contextlib.suppress(OSError):
            for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
                with contextlib.suppress(OSError):  # each entry on its own: a loop among them
                    if entry.is_dir() and not entry.name.startswith("."):
                        nested += sorted(inner.path for inner in os.scandir(entry.path)
                                         if is_role_file(inner.path) and _file_or_unreadable(inner))
    return nested
