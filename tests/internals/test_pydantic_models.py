"""A model built slot by slot (``toolbay.internals.pydantic_models``) is the one pydantic
builds: this fails when pydantic changes the slots every model has."""

from __future__ import annotations

import subprocess
import sys

import mcp_types as types

from toolbay.internals.pydantic_models import trusted_instance


def test_a_trusted_tool_equals_a_validated_one() -> None:
    values = {
        "name": "hashsum", "title": "hashsum", "description": "Digests.",
        "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "execution": None, "output_schema": None, "icons": None,
        "annotations": types.ToolAnnotations(read_only_hint=True), "meta": {"toolbay/tier": "read"},
    }
    assert set(values) == set(types.Tool.model_fields)
    trusted = trusted_instance(types.Tool, dict(values))
    validated = types.Tool(**values)
    assert trusted == validated
    assert trusted.model_fields_set == set(types.Tool.model_fields)
    assert trusted.model_dump(by_alias=True, exclude_none=True) == validated.model_dump(by_alias=True,
                                                                                        exclude_none=True)
    assert trusted.model_dump_json(by_alias=True, exclude_none=True) == validated.model_dump_json(
        by_alias=True, exclude_none=True)


# Runs ``use()`` in 16 threads at once: the first use of a deferred model or adapter.
USE_FROM_16_THREADS_AT_ONCE = """
threads = [threading.Thread(target=use) for _ in range(16)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
"""

# Run in a process of its own: the deferral is for the rest of the process, as in ``toolbay``.
DEFERRED_FIRST_USE = """
import threading
import mcp_types as types
from pydantic import BaseModel, ConfigDict, ValidationError

class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")

class Strict(Loose):
    model_config = ConfigDict(extra="forbid")
    count: int

assert not Strict.__pydantic_complete__ and not types.Tool.__pydantic_complete__, "built when defined"
outcomes = []

def use() -> None:
    try:
        Strict.model_validate({"count": 1, "stray": 2})
        outcomes.append("accepted")
    except ValidationError:
        outcomes.append("refused")

""" + USE_FROM_16_THREADS_AT_ONCE + """
tool = types.Tool.model_validate({"name": "t", "inputSchema": {"type": "object"}})
assert Strict.__pydantic_complete__ and types.Tool.__pydantic_complete__ and tool.input_schema == {"type": "object"}
print(" ".join(sorted(set(outcomes))))
"""


def printed_after_deferring(script: str) -> list[str]:
    """The words ``script`` prints, run in a process of its own after ``defer_model_building``."""
    script = "from toolbay.internals.pydantic_models import defer_model_building\n" \
             "assert defer_model_building()\n" + script
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.split()


def test_with_building_deferred_models_build_on_first_use_and_threads_using_one_at_once_all_see_its_own_rules(
) -> None:
    # A model first used by many threads at once must never be validated by its parent's
    # rules (``extra="allow"``) while it is being built: that is why deferral needs the lock.
    assert printed_after_deferring(DEFERRED_FIRST_USE) == ["refused"]


DEFERRED_ADAPTER = """
import threading
from typing import Literal, Union
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

class Ping(BaseModel):
    method: Literal["ping"]

class Call(BaseModel):
    method: Literal["call"]
    name: str

messages = TypeAdapter(Union[Ping, Call])
eager = TypeAdapter(Union[Ping, Call], config=ConfigDict(defer_build=False))
assert not messages.pydantic_complete, "a type adapter was built when made"
assert eager.pydantic_complete, "an adapter's own defer_build=False was not honoured"
outcomes = []

def use() -> None:
    try:
        outcomes.append(type(messages.validate_python({"method": "call", "name": "x"})).__name__)
        messages.validate_python({"method": "call"})
        outcomes.append("accepted a call without its name")
    except ValidationError:
        outcomes.append("refused")

""" + USE_FROM_16_THREADS_AT_ONCE + """
assert messages.pydantic_complete
assert "Call" in messages.json_schema()["$defs"]
print(" ".join(sorted(set(outcomes))))
"""


def test_with_building_deferred_type_adapters_build_on_first_use_and_keep_their_rules() -> None:
    # The MCP SDK makes type adapters when its modules load (the client's among them, which a
    # server never uses); deferred, they cost nothing until used. Fails if pydantic stops
    # deciding an adapter's deferral in ``TypeAdapter._defer_build``.
    assert printed_after_deferring(DEFERRED_ADAPTER) == ["Call", "refused"]


def test_the_toolbay_command_defers_model_building_and_keeps_the_code_of_dataclasses() -> None:
    # A command that runs defers (one that prints and writes nothing); a --help loads no pydantic at all.
    # It keeps the functions dataclasses writes compiled too (toolbay.internals.dataclass_code).
    script = ("import sys\n"
              "sys.argv = ['toolbay', 'token', 'new', '--client-id', 'a', '--scope', 'tools:read']\n"
              "import toolbay.entry\n"
              "try:\n    toolbay.entry.main()\nexcept SystemExit:\n    pass\n"
              "import pydantic._internal._config as c\nprint(c.config_defaults['defer_build'])\n"
              "import dataclasses\nprint('exec' in vars(dataclasses))\n")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split()[-2:] == ["True", "True"]
