"""Stage 4, validate: the arguments against the tool's input schema, before anything runs.

Policy: ``SchemaValidator``. Schemas are JSON Schema 2020-12, compiled once per schema
object and cached. Every problem is reported (not just the first), each as one sentence
with its JSON path, written for a model to act on::

    $.count: expected integer, got "abc" (a string)
    $.colour: unknown property; the allowed properties are color, size
    $.name: missing required property; expected string
    $.mode: expected one of "fast", "slow", got "medium"

Unknown properties are refused even when a schema forgot ``additionalProperties: false``:
compiling closes every object schema that declares ``properties`` (and the top-level
object) with ``unevaluatedProperties: false``, which, unlike ``additionalProperties``,
still lets ``allOf``/``$ref`` compositions through. Schemas that say what to do with
extra properties (``additionalProperties``, ``patternProperties``,
``unevaluatedProperties``) are left as they are.

jsonschema is extended for arguments a caller chooses (``toolbay.chain.schema_keywords``): a
time limit on the whole check, ``uniqueItems`` and ``unevaluated*`` in one pass, ``multipleOf``
without overflow, the ``regex`` format bounded.

Patterns are searched with a time limit (``toolbay.internals.jsonschema_patterns``): a value
that makes a tool's pattern backtrack for longer than ``PATTERN_LIMIT_S`` in all is refused;
the whole check has ``CHECK_LIMIT_S`` of its thread's CPU time. Arguments the quick check (``plain_schemas``) does not
find valid are checked off the event loop, so that meanwhile every other request is answered,
and a refusal says at most ``MAX_PROBLEMS`` problems.
"""

from __future__ import annotations

import ast
import contextlib
import json
import math
import re
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import anyio

from toolbay.chain.base import CheckStage, definition_of
from toolbay.chain.call import ToolCall
from toolbay.chain.plain_schemas import Check, compile_plain
from toolbay.closed_objects import close_objects, local_target
from toolbay.errors import InvalidArguments
from toolbay.plain_meta_schema import plainly_valid as plainly_valid_schema
from toolbay.redaction import redact_text
from toolbay.shortening import start_of

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator, ValidationError

# All the pattern searches of one call's arguments together; a real pattern on a real value
# takes microseconds.
PATTERN_LIMIT_S = 0.5
# The whole check of one call's arguments (``toolbay.chain.schema_keywords.within``): real
# arguments take milliseconds at most.
CHECK_LIMIT_S = 2.0
# Problems said in one refusal; more are counted, not said (a million wrong items made a
# refusal of 41 MB, and redacting it took as long again).
MAX_PROBLEMS = 20
# A problem's sentence is cut to this many characters: one that quotes the value (jsonschema's
# own, for keywords without a sentence here) was megabytes for a long array.
MAX_PROBLEM_CHARS = 300
# Checks at once off the event loop: each is Python holding the interpreter's lock, so forty at
# once (a caller's burst of costly arguments) left the event loop a fortieth of it (a ping took
# 5.6 s) and each check's own time limit ran while it waited for its turn. One caller has one
# of them at a time, so that another's checks are not queued behind its burst (twenty costly
# calls held another caller's quick check for 21 s).
CHECKS_AT_ONCE = 2
# Values (items, properties, scalars) past which arguments are checked off the event loop even
# when they plainly fit: the quick check takes time in proportion to them, under a microsecond
# each, and a 4 MB list of 800,000 items held the loop 0.6 s a call.
ON_LOOP_VALUES = 10_000
# Every format jsonschema may check (of any draft, with any of its optional libraries) and
# toolbay's own: the formats a schema's quick check is made for before jsonschema is loaded,
# where a format of these makes the schema not plain, as one jsonschema checks does (a format
# none checks is a note, as ``path`` in most tools' schemas). tests/chain/test_validate.py fails
# when jsonschema checks one more.
FORMATS_JSONSCHEMA_MAY_CHECK = frozenset({
    "color", "date", "date-time", "duration", "email", "host-name", "hostname", "idn-email", "idn-hostname",
    "ip-address", "ipv4", "ipv6", "iri", "iri-reference", "json-pointer", "regex", "relative-json-pointer", "time",
    "uri", "uri-reference", "uri-template", "uuid",
})
_JSON_TYPE_NAMES = {
    bool: "a boolean", int: "an integer", float: "a number", str: "a string",
    list: "an array", dict: "an object", type(None): "null",
}


def close_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` in which objects accept no properties they do not declare
    (``toolbay.closed_objects``), closed with ``unevaluatedProperties``, which lets
    ``allOf``/``$ref`` compositions through."""
    return close_objects(schema, lambda _: "unevaluatedProperties")


def json_path(parts: Iterable[str | int]) -> str:
    path = "$"
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part.isidentifier():
            path += f".{part}"
        else:
            path += f"[{json.dumps(part)}]"
    return path


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    # Secrets hidden before the cut (the message is redacted after, which a cut secret escapes).
    return text if len(text) <= 60 else start_of(text, 57) + "..."


def _kind(value: Any) -> str:
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def _declared(schema: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> list[str]:
    """Property names a schema declares, looking through allOf/anyOf/oneOf, if/then/else and
    the schema's own ``$ref``s (``#/...`` in ``root``), each reference followed once: followed
    afresh at every use, 16 deep, a schema of forty references to itself held a call's refusal
    (and its caller's next calls) for minutes (a re-check)."""
    root = schema if root is None else root
    names: dict[str, None] = {}
    followed: set[str] = set()

    def walk(part: Mapping[str, Any], depth: int) -> None:
        if depth > _DECLARED_DEPTH:
            return
        properties = part.get("properties")
        if isinstance(properties, Mapping):
            names.update(dict.fromkeys(properties))
        members: list[Any] = [member for keyword in ("allOf", "anyOf", "oneOf")
                              if isinstance(group := part.get(keyword), list) for member in group]
        members += [part.get(keyword) for keyword in ("if", "then", "else")]
        reference = part.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/") and reference not in followed:
            followed.add(reference)
            members.append(local_target(root, reference))
        for member in members:
            if isinstance(member, Mapping):
                walk(member, depth + 1)

    walk(schema, 0)
    return list(names)


# How deep _declared looks through compositions (a schema's own nesting, which the meta-schema's
# check bounds already).
_DECLARED_DEPTH = 64


# jsonschema's own list of what it did not expect: "('a', 'b' were unexpected)".
_UNEXPECTED = re.compile(r"\((.*) (?:was|were) unexpected\)")


def _unexpected(error: ValidationError, value: Mapping[str, Any], allowed: list[str]) -> list[str]:
    """The properties no part of the schema declares. jsonschema also counts as unevaluated the
    declared ones of a subschema that failed (a wrong type inside allOf): those are said by
    their own error, not called unknown."""
    named: list[Any] = list(value)
    found = _UNEXPECTED.search(error.message)
    if found is not None:
        with contextlib.suppress(ValueError, SyntaxError):
            named = list(ast.literal_eval(f"({found.group(1)},)"))
    return [str(name) for name in named if name not in allowed]


def _expected_type(schema: Any) -> str:
    if isinstance(schema, Mapping):
        kind = schema.get("type")
        if isinstance(kind, list):
            return " or ".join(kind)
        if isinstance(kind, str):
            return kind
        if "enum" in schema:
            return "one of " + ", ".join(_show(v) for v in schema["enum"])
    return "a value"


def _missing_name(message: str) -> str:
    # jsonschema says "{name!r} is a required property"; the repr is read back exactly.
    try:
        return str(ast.literal_eval(message.removesuffix(" is a required property")))
    except (ValueError, SyntaxError):
        return message


def describe_unsaid(error: ValidationError, root: Mapping[str, Any] | None = None) -> list[str]:
    """Sentences for an error ``describe`` put in no words, where no other error of the
    arguments was said either: the schema refuses them all the same. Properties declared by some
    alternative, but not by the one the other values chose (a "dog" given a cat's "meow"; an
    "else" property where "then" applies): left unsaid, the call passed (a re-check)."""
    value = error.instance
    if error.validator in ("unevaluatedProperties", "additionalProperties") and isinstance(value, Mapping):
        path = list(error.absolute_path)
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        listing = ", ".join(_declared(schema, root)) or "none"
        named = _unexpected(error, value, [])
        if named:
            return [f"{json_path([*path, k])}: not a property of the form the other values choose (each of "
                    f"{listing} belongs to one of the allowed forms)" for k in named[:MAX_PROBLEMS + 1]]
    return [f"{json_path(list(error.absolute_path))}: the value does not fit the tool's input schema "
            f"({start_of(error.message, 200)})"]


def describe(error: ValidationError, root: Mapping[str, Any] | None = None) -> list[str]:
    """One sentence per problem in a jsonschema error (an unknown-property error may hold several).
    ``root``: the whole schema, which the error's part may ``$ref`` into."""
    path = list(error.absolute_path)
    here = json_path(path)
    keyword, expected, value = error.validator, error.validator_value, error.instance
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    if keyword in ("unevaluatedProperties", "additionalProperties") and isinstance(value, Mapping):
        allowed = _declared(schema, root)
        unknown = _unexpected(error, value, allowed)
        listing = ", ".join(allowed) if allowed else "none"
        return [f"{json_path([*path, k])}: unknown property; the allowed properties are {listing}"
                for k in unknown[:MAX_PROBLEMS + 1]]
    if keyword == "required":
        missing = _missing_name(error.message)
        wanted = _expected_type((schema.get("properties") or {}).get(missing))
        return [f"{json_path([*path, missing])}: missing required property; expected {wanted}"]
    if keyword == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else expected
        return [f"{here}: expected {wanted}, got {_show(value)} ({_kind(value)})"]
    sentences = {
        "enum": lambda: f"expected one of {', '.join(_show(v) for v in expected)}, got {_show(value)}",
        "const": lambda: f"expected exactly {_show(expected)}, got {_show(value)}",
        "minimum": lambda: f"expected a number >= {expected}, got {_show(value)}",
        "maximum": lambda: f"expected a number <= {expected}, got {_show(value)}",
        "exclusiveMinimum": lambda: f"expected a number > {expected}, got {_show(value)}",
        "exclusiveMaximum": lambda: f"expected a number < {expected}, got {_show(value)}",
        "multipleOf": lambda: f"expected a multiple of {expected}, got {_show(value)}",
        "minLength": lambda: ("expected a non-empty string, got an empty one" if expected == 1 and value == ""
                              else f"expected at least {expected} characters, got {len(value)}"),
        "maxLength": lambda: f"expected at most {expected} characters, got {len(value)}",
        "pattern": lambda: f"expected a string matching the pattern {expected}, got {_show(value)}",
        "format": lambda: f"expected a valid {expected}, got {_show(value)}",
        "minItems": lambda: f"expected at least {expected} items, got {len(value)}",
        "maxItems": lambda: f"expected at most {expected} items, got {len(value)}",
        "uniqueItems": lambda: "expected every item to be different, but some repeat",
        "anyOf": lambda: f"expected a value matching one of {len(expected)} allowed forms, got {_show(value)}",
        "oneOf": lambda: f"expected a value matching exactly one of {len(expected)} allowed forms, "
                         f"got {_show(value)}",
    }
    make = sentences.get(str(keyword))
    return [f"{here}: {make() if make else error.message}"]


# Standard input is bytes to the program, where a NUL is data; every other value may end up in
# an argument or an environment variable, where C strings end at the first NUL.
_NUL_ALLOWED_AT_TOP = frozenset({"stdin"})


def holds_more_values_than(arguments: Mapping[str, Any], limit: int) -> bool:
    """Whether ``arguments`` hold more than ``limit`` values in all, nested ones counted; the
    walk stops there, so it costs at most ``limit`` steps whatever their size. Arguments are
    parsed JSON: its objects are dicts."""
    seen = 0
    waiting: list[Collection[Any]] = [arguments.values()]
    while waiting:
        items = waiting.pop()
        seen += len(items)
        if seen > limit:
            return True
        for item in items:
            if isinstance(item, dict):
                waiting.append(item.values())
            elif isinstance(item, list):
                waiting.append(item)
    return False


def unpassable_problems(arguments: Mapping[str, Any]) -> list[str]:
    """A sentence for every string holding a NUL character (``"a\\u0000b"``), which would reach
    the program cut at the NUL: what was validated must be what runs. And for every NaN or
    Infinity, which JSON has no word for but lenient parsers (the protocol's among them) take:
    NaN passes ``minimum`` and ``maximum`` alike."""
    found: list[str] = []

    def walk(value: Any, path: list[str | int]) -> None:
        if isinstance(value, float) and not math.isfinite(value):
            number = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
            found.append(f"{json_path(path)}: {number} is not a JSON number; send a finite number")
        elif isinstance(value, str):
            if "\x00" in value:
                found.append(f"{json_path(path)}: contains a NUL character (\\u0000), which cannot be passed "
                             "to a program as an argument; remove it")
        elif isinstance(value, Mapping):
            for key, item in value.items():
                if "\x00" in str(key):
                    found.append(f"{json_path(path)}: a property name contains a NUL character (\\u0000)")
                elif path or key not in _NUL_ALLOWED_AT_TOP:
                    walk(item, [*path, key])
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, [*path, index])

    walk(arguments, [])
    return found


class _Compiled:
    """A schema's quick check and its jsonschema validator, or why the schema is broken.

    A plainly valid schema whose quick check covers it (``plain_meta_schema``, ``plain_schemas``)
    gets its jsonschema validator when first needed: jsonschema's import and a validator were
    about 0.1 s of processor time of every process's first call (``toolbay call``, a server's
    first ``tools/call``), where nearly every call's arguments plainly fit."""

    __slots__ = ("schema", "closed", "_validator", "plainly_fits")

    def __init__(self, schema: Mapping[str, Any], closed: dict[str, Any],
                 validator: Draft202012Validator | str | None, plainly_fits: Check | None) -> None:
        self.schema = schema
        self.closed = closed
        self._validator = validator
        self.plainly_fits = plainly_fits

    @property
    def broken(self) -> str | None:
        """Why the schema is broken, said to the caller; None where it is not (or not checked yet:
        only a plainly valid schema's validator is made later)."""
        return self._validator if isinstance(self._validator, str) else None

    @property
    def validator(self) -> Draft202012Validator | str:
        if self._validator is None:
            # Two threads may both make it: the same validator, and one of them is kept.
            self._validator = _jsonschema_validator(self.closed)
        return self._validator


def _jsonschema_validator(closed: dict[str, Any]) -> Draft202012Validator | str:
    """The jsonschema validator of a closed schema, or why the schema is broken."""
    # jsonschema is loaded with the first schema it checks, not with the server (a start
    # that only lists tools never needs it).
    from jsonschema.exceptions import SchemaError

    from toolbay.chain.schema_keywords import ArgumentsValidator
    from toolbay.internals.jsonschema_patterns import install

    install()
    try:
        ArgumentsValidator.check_schema(closed)
        return ArgumentsValidator(closed, format_checker=ArgumentsValidator.FORMAT_CHECKER)
    except SchemaError as exc:
        return f"$: the tool's own input schema is broken ({exc.message}); tell the server's operator"


class SchemaValidator:
    """Checks arguments against input schemas; compiled validators are cached per schema."""

    def __init__(self, *, max_cached: int = 4096, check_limit_s: float = CHECK_LIMIT_S) -> None:
        self.max_cached = max_cached
        self.check_limit_s = check_limit_s
        # Keyed by id(schema); the entry holds the schema itself, so the id cannot be reused
        # by another object while the entry lives.
        self._compiled: dict[int, _Compiled] = {}

    def problems(self, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> list[str]:
        """Every problem with ``arguments``, one sentence each; empty when they are valid."""
        compiled = self._validator(schema)
        if compiled.broken is not None:
            return [compiled.broken]
        found = unpassable_problems(arguments)
        if not found and compiled.plainly_fits is not None and compiled.plainly_fits(arguments):
            return found  # see toolbay.chain.plain_schemas: a yes there is a yes here
        validator = compiled.validator
        if isinstance(validator, str):
            return [validator]
        from referencing.exceptions import Unresolvable

        from toolbay.chain.schema_keywords import ArgumentsTooCostly
        from toolbay.chain.schema_keywords import within as checked_within
        from toolbay.internals.jsonschema_patterns import PatternTooSlow, within

        unsaid: list[ValidationError] = []
        try:
            with within(PATTERN_LIMIT_S), checked_within(self.check_limit_s):
                for error in validator.iter_errors(arguments):
                    if len(found) > MAX_PROBLEMS:
                        break
                    said = describe(error, schema)
                    found += said
                    if not said:
                        unsaid.append(error)
        except Unresolvable as unresolvable:  # a $ref to what is not in the schema (nothing is fetched)
            return [f"$: the tool's own input schema is broken (its $ref {unresolvable.ref} cannot be resolved); "
                    "tell the server's operator"]
        except PatternTooSlow as slow:
            found.append(f"$: the arguments could not be checked: the tool's pattern {slow.pattern} takes too "
                         f"long on the value given (over {PATTERN_LIMIT_S:g} s); send a shorter or simpler "
                         "value, or tell the server's operator about the pattern")
        except RecursionError:
            found.append("$: the arguments are nested too deeply to be checked against the tool's input schema; "
                         "send them less deeply nested")
        except ArgumentsTooCostly:
            # Said for what made it costly: many values were told of alternatives the schema did
            # not have (a re-check).
            why = (f"they hold more than {ON_LOOP_VALUES:,} values, each checked in turn"
                   if holds_more_values_than(arguments, ON_LOOP_VALUES) else
                   "the schema's checks of them take long: alternatives checked again for each value, long lists "
                   "of allowed values or deep nesting multiply the work")
            found.append(f"$: the arguments could not be checked against the tool's input schema within "
                         f"{self.check_limit_s:g} s of CPU time ({why}); send fewer or less deeply nested values")
        if not found and unsaid:
            # The schema refuses them, and no error was put in words: never a pass.
            found = describe_unsaid(unsaid[0], schema)
        if len(found) > MAX_PROBLEMS:
            found = [*found[:MAX_PROBLEMS], f"$: more problems than these {MAX_PROBLEMS}; mend these and send again"]
        return [problem if len(problem) <= MAX_PROBLEM_CHARS else start_of(problem, MAX_PROBLEM_CHARS - 3) + "..."
                for problem in found]

    def plainly_valid(self, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> bool:
        """Whether the quick check alone finds ``arguments`` valid (``toolbay.chain.plain_schemas``:
        time in proportion to their size, so the event loop may run it); anything else is
        checked by ``check`` off the event loop, since a caller chooses how long that takes."""
        compiled = self._validator(schema)
        return (compiled.plainly_fits is not None and compiled.broken is None
                and not unpassable_problems(arguments) and compiled.plainly_fits(arguments))

    def check(self, tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> None:
        problems = self.problems(schema, arguments)
        if problems:
            # A problem quotes the schema ("expected one of ...", a pattern), which callers are
            # shown redacted everywhere else (listings, search): a secret written into an enum
            # or a pattern came back whole in the refusal of any wrong value.
            raise InvalidArguments(tool, [redact_text(problem) for problem in problems])

    def compiled(self, schema: Mapping[str, Any]) -> bool:
        """Whether ``schema`` is compiled already (a check of it then starts at once)."""
        entry = self._compiled.get(id(schema))
        return entry is not None and entry.schema is schema

    def compile(self, schema: Mapping[str, Any]) -> None:
        """Compiles ``schema`` for the checks to come: blocking, run it on a worker thread."""
        self._validator(schema)

    def _validator(self, schema: Mapping[str, Any]) -> _Compiled:
        """The schema's jsonschema validator (or why the schema is broken) and its quick check."""
        entry = self._compiled.get(id(schema))
        if entry is not None and entry.schema is schema:
            return entry
        closed = close_schema(schema)
        compiled: Draft202012Validator | str | None = None
        # A plainly valid schema the quick check covers whichever formats jsonschema checks: its
        # jsonschema validator is made only for arguments that do not plainly fit (see _Compiled).
        plainly_fits = compile_plain(closed, FORMATS_JSONSCHEMA_MAY_CHECK) if plainly_valid_schema(closed) else None
        if plainly_fits is None:
            compiled = _jsonschema_validator(closed)
            if not isinstance(compiled, str):
                from toolbay.chain.schema_keywords import ArgumentsValidator

                plainly_fits = compile_plain(closed, ArgumentsValidator.FORMAT_CHECKER.checkers)
        if len(self._compiled) >= self.max_cached:
            self._compiled.clear()
        entry = self._compiled[id(schema)] = _Compiled(schema, closed, compiled, plainly_fits)
        return entry


class Validate(CheckStage):
    name = "validate"

    def __init__(self, validator: SchemaValidator) -> None:
        self.validator = validator
        self._checks = anyio.CapacityLimiter(CHECKS_AT_ONCE)
        # A caller's own turn (a lock), and how many of its checks hold or wait for it.
        self._callers: dict[str, tuple[anyio.Lock, int]] = {}

    async def check(self, call: ToolCall) -> None:
        definition = definition_of(call)
        if not self.validator.compiled(definition.input_schema):
            # Compiling checks the schema against the meta-schema, in time in proportion to its
            # parts: a module's generated schema of 60,000 properties held the event loop, and
            # every other caller's requests, 35 s at its tool's first call (and after each edit).
            await anyio.to_thread.run_sync(self.validator.compile, definition.input_schema, limiter=self._checks)
        if not holds_more_values_than(call.arguments, ON_LOOP_VALUES) \
                and self.validator.plainly_valid(definition.input_schema, call.arguments):
            return
        caller = call.principal.id if call.principal is not None else ""
        turn, waiting = self._callers.get(caller) or (anyio.Lock(), 0)
        self._callers[caller] = (turn, waiting + 1)
        try:
            async with turn:
                await anyio.to_thread.run_sync(self.validator.check, definition.name, definition.input_schema,
                                               call.arguments, limiter=self._checks)
        finally:
            turn, waiting = self._callers[caller]
            if waiting == 1:
                del self._callers[caller]
            else:
                self._callers[caller] = (turn, waiting - 1)
