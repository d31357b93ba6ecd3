"""The tool-module convention: what a module's description yields, and what is refused.

A ``.py`` file is a tool module when it defines ``get_tool_schemas()`` returning a list of
``{"name", "description", "input_schema"}`` (``inputSchema``, MCP's name, and ``parameters``
are read as ``input_schema``).
Each name must be the module's name or start with it and ``_`` (``units_convert`` in
``units.py``), so two modules cannot offer the same name; a call goes to ``dispatch(name,
args)`` when the module has one, otherwise to the function of the tool's name, called with
the arguments as keywords. Optional module-level declarations: ``TOOL_TIER`` (or ``TIER``)
= ``"read" | "write" | "exec"`` and ``LONG_RUNNING = True`` (every call becomes a job at once).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolbay.ascii_names import name_safe
from toolbay.closed_objects import close_objects, composed, required_beyond_properties
from toolbay.redaction import is_secret_name, redact_text
from toolbay.words import MAX_DESCRIPTION_CHARS, PermissionTier, bounded_description

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]")
EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True, slots=True)
class PythonToolSpec:
    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ModuleSpec:
    """The tools of one module and what was refused (each a sentence), from its description."""

    module: str
    tools: tuple[PythonToolSpec, ...]
    refused: tuple[str, ...]
    tier: PermissionTier | None
    long_running: bool
    has_cli_main: bool
    # What was read otherwise than written, the tools served all the same (keys ignored, a
    # description cut): no refusal, but the author should know.
    notes: tuple[str, ...] = ()

    @property
    def reason_skipped(self) -> str:
        return "; ".join(self.refused) or "get_tool_schemas() returned no tools"


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"



# How the worker says a schema's value that is not JSON (guest/worker.py's NOT_JSON_SAID; the
# guest imports nothing of the server's).
_NOT_JSON_SAID = "get_tool_schemas() returned "


def module_spec_from(module: str, description: Mapping[str, Any]) -> ModuleSpec:
    """Reads a worker's description of ``module``; never raises for what the module says."""
    refused: list[str] = []
    said: list[str] = []
    tools: list[PythonToolSpec] = []
    seen: set[str] = set()
    functions = set(description.get("functions") or ())
    has_dispatch = bool(description.get("has_dispatch"))
    problems = list(description.get("schema_problems") or ())
    for index, item in enumerate(description.get("schemas") or ()):
        spec = _tool_spec(module, index, item, refused, problems[index] if index < len(problems) else None, said)
        if spec is None:
            continue
        if spec.name in seen:
            refused.append(f"a second {spec.name!r} (schema {index + 1}); the first one declared is served")
            continue
        if not has_dispatch and spec.name not in functions:
            refused.append(f"{spec.name!r}: the module has no dispatch(name, args) and no function {spec.name}()")
            continue
        seen.add(spec.name)
        tools.append(spec)
        said += _misfits(spec, None if has_dispatch else description.get("signatures"))
    dispatch_fault = (description.get("signatures") or {}).get("dispatch") if has_dispatch else None
    if isinstance(dispatch_fault, str):
        said.append(f"{dispatch_fault[:300]}; every call fails")
    declared_tier = description.get("tier")
    tier = PermissionTier.parse(declared_tier) if isinstance(declared_tier, str) else None
    if declared_tier is not None and tier is None:
        written = description.get("tier_name") if description.get("tier_name") in ("TOOL_TIER", "TIER") else "TOOL_TIER"
        refused.append(f"{written} = {declared_tier!r} is not one of 'read', 'write', 'exec'; treated as undeclared")
    long_running = description.get("long_running", False)
    if not isinstance(long_running, bool):
        refused.append(f"LONG_RUNNING = {long_running!r} is not True or False; treated as False")
        long_running = False
    return ModuleSpec(module, tuple(tools), tuple(refused), tier, long_running, bool(description.get("has_cli_main")),
                      tuple(said))


def _misfits(spec: PythonToolSpec, signatures: Any) -> list[str]:
    """Where the tool's function does not fit its schema (a parameter renamed in one of the two):
    said when the module is described, not first by a call's TypeError to the model."""
    found = signatures.get("functions", {}).get(spec.name) if isinstance(signatures, Mapping) else None
    schema = spec.input_schema
    properties = schema.get("properties")
    if not isinstance(found, Mapping) or composed(schema) or not isinstance(properties, Mapping):
        return []
    takes, needs = set(found.get("takes") or ()), list(found.get("needs") or ())
    listed = schema.get("required")
    required: list[Any] = listed if isinstance(listed, list) else []
    said = []
    if unknown := [name for name in properties if name not in takes]:
        said.append(f"{spec.name!r}: its schema names {', '.join(map(repr, unknown))}, which {spec.name}() does "
                    "not take: a call giving it fails")
    if unnamed := [name for name in needs if name not in properties]:
        said.append(f"{spec.name!r}: {spec.name}() needs {', '.join(map(repr, unnamed))}, which its schema does "
                    "not name: every call fails")
    if optional := [name for name in needs if name in properties and name not in required]:
        said.append(f"{spec.name!r}: {spec.name}() needs {', '.join(map(repr, optional))}, which its schema does "
                    "not require: a call without it fails (add it to 'required', or give it a default)")
    return said


# What a schema may call its input schema: the convention's name, MCP's (a definition copied
# from an MCP server), and function calling's.
INPUT_SCHEMA_KEYS = ("input_schema", "inputSchema", "parameters")
SCHEMA_KEYS_READ = frozenset({"name", "description", *INPUT_SCHEMA_KEYS})


# A guard only: a schema nested deeper than 128 levels is refused before it is read here.
_MOST_SCHEMA_DEPTH = 256


def _secret_property_names(schema: Any, depth: int = 0) -> list[str]:
    """Names of properties anywhere in ``schema`` that the audit log's rules would hide."""
    if depth > _MOST_SCHEMA_DEPTH:
        return []
    found: list[str] = []
    if isinstance(schema, Mapping):
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            found += [key for key in properties if isinstance(key, str) and redact_text(key) != key]
        for value in schema.values():
            found += _secret_property_names(value, depth + 1)
    elif isinstance(schema, list):
        for value in schema:
            found += _secret_property_names(value, depth + 1)
    return found


# How much of a refused name is shown: enough to find it in the module, not a page of it.
_NAME_SHOWN = 40


def _what_is_wrong_with(name: Any, given: bool, module: str) -> str:
    """Why ``name`` is no tool name, said so that its author can find it and mend it: every
    schema whose name was wrong (a space, an accent, 80 characters, a number) was said alike,
    "schema #N has no valid 'name'", leaving the author to count schemas and guess."""
    rule = "a tool name is ASCII letters, digits, '_' or '-', at most 64"
    if not given:
        return f"has no 'name' ({rule})"
    if not isinstance(name, str):
        return f"has a name that is {_a(type(name).__name__)}, not text ({rule})"
    if not name:
        return f"has an empty name ({rule})"
    shown = redact_text(name if len(name) <= _NAME_SHOWN else name[:_NAME_SHOWN] + "...")
    if len(name) > 64:
        return f"has a name of {len(name)} characters, {shown!r} ({rule})"
    wrong = sorted(set(_NOT_IN_NAME.findall(name)), key=name.index)
    # The name in the letters it may have, offered only where it would be served as it is: one
    # of another module's prefix, or that reads as a secret, would be refused next.
    suggestion = name_safe(name).strip("_")
    served = suggestion == module or suggestion.startswith(module + "_")
    fix = f": call it {suggestion!r}" if served and _NAME.fullmatch(suggestion) and redact_text(suggestion) == \
        suggestion else ""
    return f"has the name {shown!r}, which holds {', '.join(map(repr, wrong))} ({rule}){fix}"


def input_schema_of(item: Mapping[str, Any]) -> Any:
    """The tool's input schema under the first of its names it uses (None when it has none)."""
    return next((item[key] for key in INPUT_SCHEMA_KEYS if key in item), None)


def _tool_spec(module: str, index: int, item: Any, refused: list[str], problem: str | None,
               said: list[str]) -> PythonToolSpec | None:
    if problem and problem.startswith(_NOT_JSON_SAID):
        # Said as it stands, before anything else of the schema (the worker kept only its name):
        # the value may be in the description, or the schema itself may be the value.
        name = item.get("name") if isinstance(item, Mapping) else None
        which = repr(name) if isinstance(name, str) and _NAME.fullmatch(name) else f"schema #{index + 1}"
        refused.append(f"{which}: {problem}")
        return None
    if not isinstance(item, Mapping):
        refused.append(f"schema #{index + 1} is a {type(item).__name__}, not a dict")
        return None
    name = item.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        refused.append(f"schema #{index + 1} {_what_is_wrong_with(name, 'name' in item, module)}")
        return None
    if is_secret_name(name):
        # As a property's name below: shown to every client as written, and it cannot be hidden.
        refused.append(f"{redact_text(name)!r} looks like a secret itself (a key or token), not a tool's name; "
                       "rename it")
        return None
    if name != module and not name.startswith(module + "_"):
        refused.append(f"{name!r} does not start with the module's name: call it '{module}_...' "
                       "(names must not clash with other modules' tools)")
        return None
    named = [key for key in INPUT_SCHEMA_KEYS if key in item]
    if len(named) > 1:
        said.append(f"{name!r}: its input schema is given as both {named[0]!r} and {named[1]!r}; "
                    f"{named[0]!r} is used")
    unknown = sorted(str(key) for key in item if key not in SCHEMA_KEYS_READ)
    if unknown:
        # Dropped with nothing said, a misspelt "input_shema" served a tool taking nothing.
        said.append(f"{name!r}: {', '.join(repr(key) for key in unknown)} ignored (a schema is read for "
                    "'name', 'description' and 'input_schema', or 'inputSchema' or 'parameters' for it)")
    if "description" in item and not isinstance(item["description"], str):
        said.append(f"{name!r}: its description is {_a(type(item['description']).__name__)}, not text; ignored")
    schema = input_schema_of(item)
    if schema is None:
        schema = EMPTY_SCHEMA
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        refused.append(f"{name!r}: its input_schema must be a JSON Schema of type 'object'")
        return None
    if problem:
        refused.append(f"{name!r}: its input_schema is not a valid JSON Schema: {problem}")
        return None
    if secrets := _secret_property_names(schema):
        # A property's name is shown to every client and indexed for search as written; the
        # audit log's rules hide secrets in text, and a name cannot be hidden and still called.
        refused.append(f"{name!r}: its input schema names a property {redact_text(secrets[0])!r}, which looks "
                       "like a secret itself (a key or token), not the name of one; rename it")
        return None
    schema = {"type": "object", **schema}
    schema.setdefault("properties", {})
    # Validation refuses arguments the schema does not name, at every level it checks
    # (toolbay.chain.validate): the schema a client is shown says so too, of the same objects
    # (a nested object was shown open, and a call giving it a key of its own refused).
    # Properties named inside allOf, anyOf, oneOf or a $ref are named all the same: there,
    # only unevaluatedProperties says it right (additionalProperties would refuse them).
    missing = required_beyond_properties(schema)
    schema = close_objects(schema, lambda part: "unevaluatedProperties" if composed(part) else "additionalProperties")
    if missing is not None:
        # Closed, such an object refuses the very property it requires: no call could pass.
        refused.append(f"{name!r}: its input schema requires {missing}, which its properties do not list: with "
                       "properties a schema does not name refused, no call could give it (list it in "
                       "'properties', or write \"additionalProperties\": true there)")
        return None
    description, cut = bounded_description(item["description"] if isinstance(item.get("description"), str) else "")
    if cut:
        said.append(f"{name!r}: its description is {len(item['description']):,} characters; it is served cut "
                    f"to {MAX_DESCRIPTION_CHARS:,}")
    return PythonToolSpec(name, description, schema)
