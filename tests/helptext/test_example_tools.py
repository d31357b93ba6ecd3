"""Example Rust (clap derive) and Go (cobra) tools: the schema toolbay derives from their
real ``--help``, run in wasmtime, says what their source declares, field by field.

The declarations are written by hand from the sources (``*.declared.json`` beside the
``.wasm`` files in ``tests/fixtures/helptext_tools/``), never from the describer's output.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.helptext import HelpRun, build_tool_schema, describe_tree
from server.wasm import RunRequest, WasmRuntime

TOOLS = Path(__file__).resolve().parents[1] / "fixtures" / "helptext_tools"
EXAMPLES = ("measure", "shelf")


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WasmRuntime]:
    rt = WasmRuntime(tmp_path_factory.mktemp("wasm-cache"))
    yield rt
    rt.close()


def derived(runtime: WasmRuntime, name: str) -> dict[str, tuple[dict, object]]:
    module = runtime.load(TOOLS / f"{name}.wasm")

    def run_help(argv: list[str]) -> HelpRun:
        result = runtime.run(module, RunRequest(argv=[name, *argv]))
        return HelpRun(result.stdout, result.stderr, result.exit_code)

    return {c.tool_name: (build_tool_schema(c.description).input_schema, c.description)
            for c in describe_tree(run_help, name)}


def test_the_committed_binaries_are_the_ones_listed_in_the_checksums():
    listed = dict(reversed(line.split()) for line in (TOOLS / "SHA256SUMS").read_text().splitlines())
    for name in EXAMPLES:
        assert hashlib.sha256((TOOLS / f"{name}.wasm").read_bytes()).hexdigest() == listed[f"{name}.wasm"]


@pytest.mark.slow
@pytest.mark.timeout(600)  # compiling the 6 MB Go module takes seconds, more on a loaded machine
@pytest.mark.parametrize("name", EXAMPLES)
def test_derived_schemas_match_the_declarations_field_by_field(runtime, name):
    declared = json.loads((TOOLS / f"{name}.declared.json").read_text())["tools"]
    tools = derived(runtime, name)
    assert set(tools) == set(declared)
    wrong = []
    for tool, want in declared.items():
        schema, description = tools[tool]
        props = schema["properties"]
        assert set(props) == set(want["properties"]), tool
        for prop, fields in want["properties"].items():
            for key, value in fields.items():
                if props[prop].get(key) != value:
                    wrong.append(f"{tool}.{prop}.{key}: derived {props[prop].get(key)!r}, declared {value!r}")
        if sorted(schema.get("required", [])) != sorted(want["required"]):
            wrong.append(f"{tool} required: derived {schema.get('required')}, declared {want['required']}")
        if list(description.keywords) != want["keywords"]:
            wrong.append(f"{tool} keywords: derived {description.keywords}, declared {want['keywords']}")
        if description.permission_level != want["permission_level"]:
            wrong.append(f"{tool} permission: derived {description.permission_level}")
    assert not wrong, "\n".join(wrong)
