"""The tool-module convention, through the real app: modules described in workers, called in workers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.pytools.conftest import call
from toolbay.app import Toolbay
from toolbay.assembly import assemble
from toolbay.config import Settings
from toolbay.protocol.mcp_server import build_mcp_server

pytestmark = pytest.mark.anyio


async def test_a_single_tool_module_is_served_through_its_same_name_function(pyapp: Toolbay) -> None:
    result = await call(pyapp, "greet", {"name": "Ada"})
    assert not result.is_error
    assert result.text == "Hello, Ada!"


async def test_parameters_are_read_as_the_input_schema(pyapp: Toolbay) -> None:
    definitions = {d.name: d for d in pyapp.catalog.current.definitions()}
    schema = definitions["mathx_add"].input_schema
    assert schema["required"] == ["a", "b"]
    assert set(schema["properties"]) == {"a", "b"}
    assert definitions["mathx_add"].tier is not None and definitions["mathx_add"].tier.value == "read"


async def test_several_tools_go_through_dispatch_and_json_results_are_structured(pyapp: Toolbay) -> None:
    added = await call(pyapp, "mathx_add", {"a": 2, "b": 40})
    assert added.text == "42"
    assert added.structured == {"result": 42}
    stats = await call(pyapp, "mathx_stats", {"values": [1, 2, 3]})
    assert stats.structured == {"count": 3, "sum": 6, "mean": 2.0}


async def test_an_exception_is_a_tool_error_carrying_its_message(pyapp: Toolbay) -> None:
    result = await call(pyapp, "mathx_divide", {"a": 1, "b": 0})
    assert result.is_error
    assert result.text.startswith("cannot divide by zero: pass a non-zero b")
    assert result.meta["error_type"] == "ValueError"
    # The worker carries on serving the module.
    assert (await call(pyapp, "mathx_divide", {"a": 1, "b": 4})).text == "0.25"


async def test_an_async_function_is_awaited_in_the_worker(pyapp: Toolbay) -> None:
    result = await call(pyapp, "asyncy_wait", {"word": "ok"})
    assert result.structured == {"word": "OK"}


async def test_a_name_not_starting_with_the_module_name_is_refused_and_the_rest_served(pyapp: Toolbay) -> None:
    names = pyapp.catalog.current.names()
    assert "badname_ok" in names
    assert "read_file" not in names
    assert (await call(pyapp, "badname_ok")).text == "ok"


async def test_modules_that_fail_to_import_or_are_no_tool_modules_are_skipped_with_their_reason(pyapp: Toolbay) -> None:
    skipped = {s.path.rpartition("/")[2]: s.reason for s in pyapp.skipped_files}
    assert "No module named 'a_module_that_does_not_exist'" in skipped["broken.py"]
    assert "no get_tool_schemas()" in skipped["plain_helper.py"]
    assert "greet.py" not in skipped


async def test_a_long_running_module_becomes_a_job_at_once(pyapp: Toolbay) -> None:
    definitions = {d.name: d for d in pyapp.catalog.current.definitions()}
    assert definitions["slow_nap"].background
    result = await call(pyapp, "slow_nap", {"seconds": 0.01}, follow_jobs=False)
    assert result.structured is not None and "job_id" in result.structured


def test_a_tool_declared_twice_serves_the_first_and_the_note_says_which_was_refused() -> None:
    from toolbay.pytools import module_spec_from

    schema = {"type": "object", "properties": {}}
    spec = module_spec_from("sch", {"has_dispatch": True, "schemas": [
        {"name": "sch_dup", "description": "first", "input_schema": schema},
        {"name": "sch_dup", "description": "second", "input_schema": schema}]})
    assert [(tool.name, tool.description) for tool in spec.tools] == [("sch_dup", "first")]
    assert list(spec.refused) == ["a second 'sch_dup' (schema 2); the first one declared is served"]


BROKEN_SCHEMAS = '''
def get_tool_schemas():
    def tool(name, schema):
        return {"name": name, "description": name, "input_schema": schema}
    return [
        tool("schemy_required", {"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"}),
        tool("schemy_pattern", {"type": "object", "properties": {"a": {"type": "string", "pattern": "(["}}}),
        tool("schemy_fine", {"type": "object", "properties": {"a": {"type": "string"}}}),
        tool("schemy_deep", {"type": "object", "properties": {"a": deep(300)}}),
        tool("schemy_dangling", {"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}),
        tool("schemy_linked", {"type": "object", "properties": {"a": {"$ref": "#/$defs/word"}},
                               "$defs": {"word": {"type": "string"}}}),
        tool("schemy_remote", {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}),
        tool("schemy_anchor", {"type": "object", "properties": {"a": {"$ref": "#nope"}}}),
        tool("schemy_anchored", {"type": "object", "properties": {"a": {"$ref": "#word"}},
                                 "$defs": {"word": {"$anchor": "word", "type": "string"}}}),
        tool("schemy_draft4", {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
                               "properties": {"a": {"type": "number", "minimum": 0, "exclusiveMinimum": True}}}),
        tool("schemy_nan", {"type": "object", "properties": {"a": {"type": "number", "default": float("nan"),
                                                                    "maximum": float("inf")}}}),
        tool("schemy_inf", {"type": "object", "properties": {"a": {"enum": [1, float("-inf")]}}}),
    ]


def deep(levels):
    schema = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"b": schema}}
    return schema


def dispatch(name, args):
    return "fine"
'''


async def test_a_schema_that_is_no_json_schema_is_refused_with_a_note_and_every_other_tool_is_listed(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    """``"required": "a"`` once made the SDK refuse the whole tools/list answer, for every
    client; a broken pattern was found only when the tool was called."""
    (python_dir / "schemy.py").write_text(BROKEN_SCHEMAS)
    async with assemble(make_settings(), watch=False) as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy") as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        fine = await client.call_tool("schemy_fine", {"a": "x"})
    assert {"schemy_fine", "schemy_linked", "schemy_anchored", "greet"} <= listed
    assert not {"schemy_required", "schemy_pattern", "schemy_deep", "schemy_dangling", "schemy_draft4",
                "schemy_remote", "schemy_anchor", "schemy_nan", "schemy_inf"} & listed
    assert fine.is_error is False
    notes = "\n".join(app.keeper.notes())
    assert "'schemy_required': its input_schema is not a valid JSON Schema: 'a' is not of type 'array' at $.required" \
        in notes
    assert "'schemy_pattern': its input_schema is not a valid JSON Schema: '([' is not a 'regex' at " \
        "$.properties.a.pattern" in notes
    assert "'schemy_deep': its input_schema is not a valid JSON Schema: it is nested too deeply to be checked" in notes
    # Served with null in their place (which the meta-schema refuses), and NaN in `list --json`.
    assert "'schemy_nan': its input_schema is not a valid JSON Schema: it holds the number nan at " \
        "$.properties.a.default, which JSON cannot carry" in notes
    assert "it holds the number -inf at $.properties.a.enum[1]" in notes
    # A dangling $ref failed every call ("tell the server's operator"); now the file says so.
    assert "'schemy_dangling': its input_schema is not a valid JSON Schema: its $ref '#/$defs/nope' points at " \
        "nothing in the schema" in notes
    # Elsewhere, or at an anchor it does not have: listed, then every call failed the same way.
    assert "its $ref 'https://example.com/s.json' points at nothing in the schema (nothing is fetched)" in notes
    assert "its $ref '#nope' points at nothing in the schema" in notes
    assert "(it declares $schema 'http://json-schema.org/draft-04/schema#', but tools' input schemas are read as " \
        "JSON Schema 2020-12, MCP's dialect)" in notes


async def test_a_module_whose_get_tool_schemas_raises_is_skipped_saying_so_not_that_it_cannot_be_imported(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    (python_dir / "raising.py").write_text("def get_tool_schemas():\n    raise RuntimeError('no config yet')\n")
    async with assemble(make_settings(), watch=False) as app:
        skipped = {s.path.rpartition("/")[2]: s.reason for s in app.skipped_files}
    assert skipped["raising.py"] == "get_tool_schemas() failed: RuntimeError: no config yet at line 2"
    assert "No module named 'a_module_that_does_not_exist'" in skipped["broken.py"]
    assert skipped["broken.py"].startswith("it cannot be imported: ")


async def test_schemas_from_a_generator_or_beside_a_function_are_served_and_one_not_json_is_said_where(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    """A generator function's schemas, and a schema keeping its function under a key the server
    does not read, refused the whole module: "Object of type generator (function) is not JSON
    serializable". A value that is no JSON under a key the server reads is said where it is."""
    (python_dir / "yielding.py").write_text(
        "def get_tool_schemas():\n"
        "    yield {'name': 'yielding_hi', 'description': 'Says hi', 'input_schema': {'type': 'object'}}\n\n\n"
        "def yielding_hi():\n    return 'hi'\n")
    (python_dir / "handled.py").write_text(
        "def handled_hi():\n    return 'hi'\n\n\n"
        "def get_tool_schemas():\n"
        "    return [{'name': 'handled_hi', 'description': 'Says hi', 'input_schema': {'type': 'object'},\n"
        "             'handler': handled_hi}]\n")
    # ... and a dict's values(), with a registry that holds itself under a key not read (a re-check)
    (python_dir / "registered.py").write_text(
        "REGISTRY = {}\nREGISTRY['self'] = REGISTRY\n\n\ndef registered_hi():\n    return 'hi'\n\n\n"
        "def get_tool_schemas():\n    return {'a': {'name': 'registered_hi', 'description': 'Says hi',\n"
        "                  'input_schema': {'type': 'object'}, 'registry': REGISTRY}}.values()\n")
    # a set is no list of schemas, and is said to be so (a re-check: read as a list of its items)
    (python_dir / "unordered.py").write_text(
        "def get_tool_schemas():\n    return {'unordered_a'}\n")
    # a schema that holds itself is said where (it was "Circular reference detected", naming no
    # key; an outside check), and one used twice is no cycle
    (python_dir / "looped.py").write_text(
        "def get_tool_schemas():\n    schema = {'type': 'object', 'properties': {}}\n"
        "    schema['properties']['again'] = schema\n"
        "    return [{'name': 'looped_a', 'description': 'l', 'input_schema': schema}]\n")
    (python_dir / "shared.py").write_text(
        "def shared_hi():\n    return 'hi'\n\n\nPLAIN = {'type': 'object'}\n\n\ndef get_tool_schemas():\n"
        "    return [{'name': 'shared_hi', 'description': 'Says hi', 'input_schema': PLAIN},\n"
        "            {'name': 'shared_ho', 'description': 'Says ho', 'input_schema': PLAIN}]\n")
    # nested thousands of levels deep: the function did not fail (a re-check: "get_tool_schemas()
    # failed: RecursionError")
    (python_dir / "deep.py").write_text(
        "def get_tool_schemas():\n    schema = node = {'type': 'object'}\n    for _ in range(3000):\n"
        "        node['properties'] = {'x': {'type': 'object'}}\n        node = node['properties']['x']\n"
        "    return [{'name': 'deep_a', 'description': 'd', 'input_schema': schema}]\n")
    (python_dir / "dated.py").write_text(
        "import datetime\n\n\ndef get_tool_schemas():\n"
        "    return [{'name': 'dated_a', 'description': 'd', 'input_schema': {'type': 'object', 'properties': {\n"
        "        'day': {'type': 'string', 'default': datetime.date(2020, 1, 2)}}}}]\n")
    async with assemble(make_settings(), watch=False) as app:
        skipped = {s.path.rpartition("/")[2]: s.reason for s in app.skipped_files}
        answers = [(await call(app, name)).text for name in ("yielding_hi", "handled_hi", "registered_hi")]
        notes = "\n".join(app.keeper.notes())
    assert answers == ["hi", "hi", "hi"]
    assert "handled: 'handled_hi': 'handler' ignored" in notes
    # Each refuses its own tool, as any fault of one schema does (a module's other tools are
    # served: test_one_schema_not_json_refuses_its_tool_and_the_modules_others_are_served).
    assert skipped["dated.py"] == ("it offers no tool: 'dated_a': get_tool_schemas() returned a date at [0]"
                                   "['input_schema']['properties']['day']['default'], which is not JSON (a schema is "
                                   "made of dicts, lists, strings, numbers, booleans and None)")
    assert skipped["looped.py"].endswith("get_tool_schemas() returned a dict that holds itself at [0]"
                                         "['input_schema']['properties']['again'], which is not JSON (a schema is "
                                         "made of dicts, lists, strings, numbers, booleans and None)")
    assert skipped["deep.py"] == ("it offers no tool: 'deep_a': get_tool_schemas() returned a schema at [0] nested "
                                  "too deeply to be read (thousands of levels)")
    assert "yielding.py" not in skipped and "handled.py" not in skipped and "shared.py" not in skipped
    assert skipped["unordered.py"] == "get_tool_schemas() returned set, not a list"


async def test_one_schema_not_json_refuses_its_tool_and_the_modules_others_are_served(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    """One date in one tool's schema refused the whole module, its good tools too (an outside
    check), where any other fault of one schema refuses that tool alone."""
    (python_dir / "mixed.py").write_text(
        "import datetime\n\n\ndef get_tool_schemas():\n"
        "    return [{'name': 'mixed_good', 'description': 'fine', 'input_schema': {'type': 'object'}},\n"
        "            {'name': 'mixed_dated', 'description': 'x', 'input_schema': {'type': 'object', 'properties': {\n"
        "                'd': {'type': 'string', 'default': datetime.date(2024, 1, 1)}}}},\n"
        "            datetime.date(2024, 1, 2),\n"
        "            {'name': 'mixed_huge', 'description': 'x', 'input_schema': {'type': 'object', 'properties': {\n"
        "                'n': {'type': 'integer', 'maximum': 10 ** 5000}}}}]\n\n\n"
        "def dispatch(name, args):\n    return name\n")
    async with assemble(make_settings(), watch=False) as app:
        served = set(app.catalog.current.tools)
        notes = "\n".join(app.keeper.notes())
        good = (await call(app, "mixed_good")).text
    assert "mixed_good" in served and "mixed_dated" not in served
    assert good == "mixed_good"
    assert ("mixed: refused 'mixed_dated': get_tool_schemas() returned a date at [1]['input_schema']['properties']"
            "['d']['default'], which is not JSON") in notes
    assert "mixed: refused schema #3: get_tool_schemas() returned a date at [2], which is not JSON" in notes
    # An integer of more digits than Python writes (it refused the module, said as a failure).
    assert "mixed: refused 'mixed_huge': get_tool_schemas() returned a schema at [3] that cannot be written" in notes


async def test_a_module_with_a_syntax_error_is_skipped_with_one_line_saying_where(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    """The reason was Python's three-line caret display, of which the server's log showed the
    first line only ('File ".../broke.py", line 1')."""
    (python_dir / "typo.py").write_text("def get_tool_schemas(:\n    return []\n")
    async with assemble(make_settings(), watch=False) as app:
        skipped = {s.path.rpartition("/")[2]: s.reason for s in app.skipped_files}
    assert skipped["typo.py"] == "it cannot be imported: SyntaxError: invalid syntax at line 1: def get_tool_schemas(:"


FORGER_AT_IMPORT = '''
import os

_FORGED = b'{"op": "ready", "ok": false}'
for name in os.listdir("/proc/self/fd"):  # every descriptor it did not open
    if int(name) > 2:
        try:
            os.write(int(name), len(_FORGED).to_bytes(4, "big") + _FORGED)
        except OSError:
            pass


def get_tool_schemas():
    return [{"name": "forger", "description": "d", "input_schema": {"type": "object"}}]


def forger():
    return "fine"
'''


async def test_a_module_that_forges_its_workers_answer_as_it_is_imported_is_skipped_saying_so(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    """Its frame was read as the worker's: the module was skipped as 'it cannot be imported: None'."""
    (python_dir / "forger.py").write_text(FORGER_AT_IMPORT)
    async with assemble(make_settings(), watch=False) as app:
        skipped = {s.path.rpartition("/")[2]: s.reason for s in app.skipped_files}
    assert skipped["forger.py"] == ("describing it failed: the module wrote to the worker's own channel to the "
                                    "server (a file descriptor it did not open)")


COMPOSED = '''
def get_tool_schemas():
    base = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    return [{"name": "comp_allof", "description": "d", "input_schema": {"type": "object", "$defs": {"Base": base},
             "allOf": [{"$ref": "#/$defs/Base"}], "properties": {"verbose": {"type": "boolean"}}}},
            {"name": "comp_oneof", "description": "d", "input_schema": {"type": "object", "oneOf": [
             {"properties": {"url": {"type": "string"}}, "required": ["url"]},
             {"properties": {"path": {"type": "string"}}, "required": ["path"]}]}}]

def dispatch(name, args):
    return args
'''


async def test_properties_named_inside_a_composition_are_accepted_and_others_still_refused(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    (python_dir / "comp.py").write_text(COMPOSED, encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        both = await call(app, "comp_allof", {"path": "x", "verbose": True})
        missing = await call(app, "comp_allof", {"verbose": True})
        unknown = await call(app, "comp_allof", {"path": "x", "colour": "red"})
        url = await call(app, "comp_oneof", {"url": "http://x"})
        listed = {d.name: d.input_schema for d in app.catalog.current.definitions()}
    assert not both.is_error and both.structured == {"path": "x", "verbose": True}
    assert missing.is_error and "$.path: missing required property" in missing.text
    assert unknown.is_error and "colour" in unknown.text
    assert not url.is_error and url.structured == {"url": "http://x"}
    assert listed["comp_allof"].get("unevaluatedProperties") is False
    assert "additionalProperties" not in listed["comp_allof"]


def test_long_running_must_be_a_bool_and_anything_else_is_said_and_read_as_false() -> None:
    from toolbay.pytools import module_spec_from

    schemas = [{"name": "lr", "description": "d", "input_schema": {"type": "object"}}]
    worded = module_spec_from("lr", {"has_dispatch": True, "schemas": schemas, "long_running": "no"})
    declared = module_spec_from("lr", {"has_dispatch": True, "schemas": schemas, "long_running": True})
    assert not worded.long_running and declared.long_running
    assert list(worded.refused) == ["LONG_RUNNING = 'no' is not True or False; treated as False"]


async def test_a_module_named_like_a_standard_library_module_is_skipped_saying_so(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    (python_dir / "json.py").write_text(
        'def get_tool_schemas():\n    return [{"name": "json_pretty", "description": "d", '
        '"input_schema": {"type": "object"}}]\n\ndef json_pretty():\n    return "pretty"\n', encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        reasons = {Path(skipped.path).name: skipped.reason for skipped in app.skipped_files}
        served = await call(app, "greet", {"name": "Ada"})  # the other modules are untouched
    assert "shadows Python's standard library module 'json'" in reasons["json.py"]
    assert served.text == "Hello, Ada!"


async def test_a_module_renamed_as_its_refusal_says_is_served_under_its_new_name(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    # The refusal was remembered by the file's content alone: renamed, the same text was refused
    # again as 'json', quoting the old name, until it was edited.
    source = ('def get_tool_schemas():\n    return [{"name": __name__ + "_pretty", "description": "d", '
              '"input_schema": {"type": "object"}}]\n\ndef dispatch(name, arguments):\n    return "pretty"\n')
    (python_dir / "json.py").write_text(source, encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        assert "shadows Python's standard library module 'json'" in \
            {Path(skipped.path).name: skipped.reason for skipped in app.skipped_files}["json.py"]
    (python_dir / "json.py").rename(python_dir / "jsonish.py")
    async with assemble(make_settings(), watch=False) as app:
        skipped = {Path(skipped.path).name: skipped.reason for skipped in app.skipped_files}
        served = await call(app, "jsonish_pretty", {})
    assert "jsonish.py" not in skipped, skipped
    assert served.text == "pretty"


async def test_a_module_named_like_an_installed_package_is_skipped_and_never_stands_for_it_beside_it(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    # yaml.py would otherwise be imported by weather.py as the package, and run in its worker
    # with whatever weather is granted (its credentials).
    (python_dir / "yaml.py").write_text(
        'def get_tool_schemas():\n    return [{"name": "yaml_try", "description": "d", '
        '"input_schema": {"type": "object"}}]\n\ndef yaml_try():\n    return "tried"\n\n'
        'def safe_load(text):\n    return {"stolen": True}\n', encoding="utf-8")
    (python_dir / "weather.py").write_text(
        'import yaml\n\ndef get_tool_schemas():\n    return [{"name": "weather", "description": "d", '
        '"input_schema": {"type": "object"}}]\n\ndef weather():\n'
        '    return {"yaml": yaml.__file__, "loaded": yaml.safe_load("units: metric")}\n', encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        reasons = {Path(skipped.path).name: skipped.reason for skipped in app.skipped_files}
        names = app.catalog.current.names()
        result = await call(app, "weather")
    assert "shadows the installed package 'yaml'" in reasons["yaml.py"]
    assert "yaml_try" not in names
    assert not result.is_error, result.text
    assert result.structured is not None
    assert result.structured["loaded"] == {"units": "metric"}
    assert not Path(result.structured["yaml"]).is_relative_to(python_dir)


def test_a_schema_nesting_past_the_limit_is_refused_before_the_check_recurses() -> None:
    """Near Python's recursion limit the meta-schema check failed, and a finaliser the garbage
    collector ran down there failed too, unreported: a flaky error in another part of the run."""
    from toolbay.pytools.describe import MAX_SCHEMA_DEPTH, schema_problem

    def nested(levels: int) -> dict[str, object]:
        schema: dict[str, object] = {"type": "string"}
        for _ in range(levels):
            schema = {"type": "object", "properties": {"b": schema}}
        return schema

    # Each level of properties is two JSON levels; the outermost object is one.
    fits = nested((MAX_SCHEMA_DEPTH - 1) // 2)
    assert schema_problem({"input_schema": fits}) is None
    too_deep = nested(MAX_SCHEMA_DEPTH // 2 + 1)
    assert schema_problem({"input_schema": too_deep}) == "it is nested too deeply to be checked"


async def test_an_error_in_a_helper_module_names_the_helper_not_the_module_importing_it(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    """A syntax error at line 6 of _helpers.py was reported as helped.py's, at a line of helped.py
    that had nothing wrong; a runtime error at import said no place at all (found by an outside probe)."""
    (python_dir / "_helpers.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 1 +\n")
    (python_dir / "helped.py").write_text("import _helpers\n\n\ndef get_tool_schemas():\n    return []\n")
    (python_dir / "_settings.py").write_text("defaults = {}\n\nregion = defaults['region']\n")
    (python_dir / "configured.py").write_text("import _settings\n\n\ndef get_tool_schemas():\n    return []\n")
    async with assemble(make_settings(), watch=False) as app:
        skipped = {s.path.rpartition("/")[2]: s.reason for s in app.skipped_files}
    assert skipped["helped.py"] == ("it cannot be imported: SyntaxError: invalid syntax in _helpers.py at line 6: "
                                    "return 1 +")
    assert skipped["configured.py"] == "it cannot be imported: KeyError: 'region' in _settings.py at line 3"


MCP_SPELLED = '''
def get_tool_schemas():
    return [
        {"name": "weather_now", "description": "Current weather for a city.",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        {"name": "weather_typo", "description": "Spelt wrong.",
         "input_shema": {"type": "object", "properties": {"city": {"type": "string"}}}, "outputSchema": {}},
    ]


def dispatch(name, args):
    return "sunny in " + args.get("city", "nowhere")
'''


async def test_mcps_input_schema_spelling_is_read_and_keys_not_read_are_said(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    # A definition copied from an MCP server ("inputSchema") was served taking nothing: a call
    # giving its city was refused ("the allowed properties are none"), with nothing said anywhere.
    (python_dir / "weather.py").write_text(MCP_SPELLED)
    async with assemble(make_settings(), watch=False) as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy") as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        answered = await client.call_tool("weather_now", {"city": "Oslo"})
    assert listed["weather_now"].input_schema["required"] == ["city"]
    assert answered.is_error is False and answered.content[0].text == "sunny in Oslo"  # type: ignore[union-attr]
    notes = "\n".join(app.keeper.notes())
    assert "weather: 'weather_typo': 'input_shema', 'outputSchema' ignored (a schema is read for 'name', " \
        "'description' and 'input_schema', or 'inputSchema' or 'parameters' for it)" in notes
    assert "refused 'weather_typo'" not in notes  # it is served


async def test_a_module_that_starts_a_thread_that_is_no_daemon_as_it_is_imported_is_served(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    # Python waits for such a thread at exit: the process that read the module's tools never
    # ended, and the module was skipped, "importing it and calling get_tool_schemas() took over
    # 10 s", for an import of milliseconds (the same module with daemon=True was served).
    (python_dir / "ticker.py").write_text(
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(3600,)).start()\n"
        "def get_tool_schemas():\n"
        "    return [{'name': 'ticker', 'description': 'Says tick.'}]\n"
        "def ticker():\n"
        "    return 'tick'\n")
    async with assemble(make_settings(), watch=False) as app:
        skipped = {s.path.rpartition("/")[2]: s.reason for s in app.skipped_files}
        assert "ticker.py" not in skipped, skipped.get("ticker.py")
        assert (await call(app, "ticker")).text == "tick"


async def test_a_description_of_a_megabyte_is_cut_and_said_to_be(make_settings: Callable[..., Settings],
                                                                  python_dir: Path) -> None:
    # It reached the model whole: every listing, every search_tools answer twice (2 MB each).
    (python_dir / "wordy.py").write_text(
        "def get_tool_schemas():\n"
        "    return [{'name': 'wordy', 'description': 'Counts words. ' + 'blah ' * 200_000}]\n"
        "def wordy():\n"
        "    return 'ok'\n")
    async with assemble(make_settings(), watch=False) as app, \
            Client(build_mcp_server(app, "memory"), mode="legacy") as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        found = await client.call_tool("search_tools", {"query": "counts words"})
    description = listed["wordy"].description or ""
    assert description.startswith("Counts words. blah") and description.endswith(" [...]")
    assert len(description) <= 8000
    assert len(found.content[0].text) < 40_000  # type: ignore[union-attr]
    assert "wordy: 'wordy': its description is 1,000,014 characters; it is served cut to 8,000" in \
        "\n".join(app.keeper.notes())


NESTED = '''
def get_tool_schemas():
    return [{"name": "nest_put", "description": "d", "input_schema": {"type": "object", "properties": {
        "target": {"type": "object", "properties": {"host": {"type": "string"}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "extra": {"type": "object"},
        "rows": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}}}}]

def dispatch(name, args):
    return args
'''


async def test_a_nested_object_is_shown_closed_as_it_is_checked_and_one_left_open_stays_open(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    """A nested object with properties of its own was listed open (no additionalProperties) yet
    a call giving it a key it does not name was refused: a client following the schema it was
    shown had its call refused."""
    (python_dir / "nest.py").write_text(NESTED, encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        listed = {d.name: d.input_schema for d in app.catalog.current.definitions()}["nest_put"]
        unnamed = await call(app, "nest_put", {"target": {"host": "h", "port": 1}})
        in_a_row = await call(app, "nest_put", {"rows": [{"n": 1, "m": 2}]})
        open_ones = await call(app, "nest_put", {"labels": {"any": "x"}, "extra": {"free": 1}, "target": {"host": "h"}})
    target, rows = listed["properties"]["target"], listed["properties"]["rows"]["items"]
    assert target["additionalProperties"] is False and rows["additionalProperties"] is False
    assert listed["properties"]["labels"]["additionalProperties"] == {"type": "string"}
    assert "additionalProperties" not in listed["properties"]["extra"]
    assert unnamed.is_error and "$.target.port" in unnamed.text
    assert in_a_row.is_error and "$.rows[0].m" in in_a_row.text
    assert not open_ones.is_error, open_ones.text


REACHED_THROUGH = '''
from typing import Literal

from pydantic import BaseModel, Field


class Point(BaseModel):
    x: float
    y: float


class Args(BaseModel):
    start: Point
    end: Point | None = None


PT = {"type": "object", "properties": {"v": {"type": "integer"}}}


class Cat(BaseModel):
    kind: Literal["cat"]
    meow: int = 0


class Dog(BaseModel):
    kind: Literal["dog"]
    bark: int = 0


class Pet(BaseModel):
    pet: Cat | Dog = Field(discriminator="kind")


def get_tool_schemas():
    return [{"name": "shapes_dist", "description": "d", "input_schema": Args.model_json_schema()},
            {"name": "shapes_pet", "description": "d", "input_schema": Pet.model_json_schema()},
            {"name": "shapes_branch", "description": "d", "input_schema": {"type": "object", "properties": {
                "o": {"type": "object", "properties": {"k": {"type": "string"}},
                      "if": {"properties": {"k": {"const": "x"}}},
                      "then": {"properties": {"xv": {"type": "integer"}}},
                      "else": {"properties": {"yv": {"type": "integer"}}}}}}},
            {"name": "shapes_mixed", "description": "d", "input_schema": {"type": "object", "properties": {
                "one": {"oneOf": [PT, {"type": "string"}]},
                "both": {"type": "object", "allOf": [{"properties": {"a": {"type": "integer"}}},
                                                     {"properties": {"b": {"type": "integer"}}}]},
                "by_key": {"type": "object", "additionalProperties": PT},
                "old": {"$ref": "#/definitions/pt"},
                "kinds": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
                "definitions": {"pt": PT}}},
            {"name": "shapes_unmet", "description": "d", "input_schema": {"type": "object", "properties": {
                "box": {"type": "object", "properties": {"w": {"type": "number"}}, "required": ["h"]}}}}]


def dispatch(name, args):
    return args
'''


async def test_objects_reached_through_refs_and_compositions_refuse_keys_they_do_not_name(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    """pydantic writes every nested model under $defs, reached by $ref: a misspelt key there
    ("yy" of a Point) was passed to the tool, as under anyOf, oneOf, a nested allOf,
    additionalProperties or patternProperties; the same object under items was refused (an
    outside check). A composition of two members each naming one property takes both, and a
    union of strings and numbers is left as it is."""
    (python_dir / "shapes.py").write_text(REACHED_THROUGH, encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        listed = {d.name: d.input_schema for d in app.catalog.current.definitions()}
        wrong = {name: await call(app, tool, arguments) for name, (tool, arguments) in {
            "$ref": ("shapes_dist", {"start": {"x": 0, "yy": 4, "y": 0}}),
            "anyOf": ("shapes_dist", {"start": {"x": 0, "y": 0}, "end": {"x": 1, "y": 1, "z": 1}}),
            "oneOf": ("shapes_mixed", {"one": {"v": 1, "w": 2}}),
            "allOf": ("shapes_mixed", {"both": {"a": 1, "zz": 2}}),
            "additionalProperties": ("shapes_mixed", {"by_key": {"k": {"v": 1, "w": 2}}}),
            "definitions": ("shapes_mixed", {"old": {"v": 1, "w": 2}})}.items()}
        # A property of another alternative than the one the values choose (a re-check: passed
        # to the tool, with no problem said, though jsonschema refused it).
        other_form = {name: await call(app, tool, arguments) for name, (tool, arguments) in {
            "a discriminated union": ("shapes_pet", {"pet": {"kind": "dog", "bark": 1, "meow": 1}}),
            "if/then/else": ("shapes_branch", {"o": {"k": "x", "yv": 1}})}.items()}
        right = [await call(app, "shapes_dist", {"start": {"x": 0, "y": 0}, "end": None}),
                 await call(app, "shapes_mixed", {"one": "s", "both": {"a": 1, "b": 2}, "by_key": {"k": {"v": 1}},
                                                  "old": {"v": 2}, "kinds": 3}),
                 await call(app, "shapes_pet", {"pet": {"kind": "dog", "bark": 1}}),
                 await call(app, "shapes_branch", {"o": {"k": "x", "xv": 1}}),
                 await call(app, "shapes_branch", {"o": {"k": "y", "yv": 1}})]
    notes = "\n".join(app.keeper.notes())
    for composition, refused in wrong.items():
        assert refused.is_error and "unknown property" in refused.text, (composition, refused.text)
    for form, refused in other_form.items():
        assert refused.is_error and "not a property of the form the other values choose" in refused.text, \
            (form, refused.text)
    assert [answer.is_error for answer in right] == [False] * 5, [answer.text for answer in right]
    shown = listed["shapes_dist"]["properties"]["start"]
    assert shown["$ref"] == "#/$defs/Point" and shown["unevaluatedProperties"] is False
    assert "unevaluatedProperties" not in listed["shapes_mixed"]["properties"]["kinds"]
    assert "shapes_unmet" not in listed
    assert "'shapes_unmet': its input schema requires 'h' at $.box, which its properties do not list" in notes


SECRET_NAMED = '''
def get_tool_schemas():
    key = "sk-live-" + "abcdEFGH1234567890abcdEFGH"
    return [{"name": "keyz_bad", "description": "d", "input_schema": {"type": "object", "properties": {
                "opts": {"type": "object", "properties": {key: {"type": "string"}}}}}},
            {"name": "keyz_good", "description": "d", "input_schema": {"type": "object", "properties": {
                "api_token": {"type": "string", "description": "The token to use"}}}}]

def dispatch(name, args):
    return args
'''


async def test_a_property_named_with_a_secret_is_refused_without_showing_it_and_a_token_parameter_is_served(
        python_dir: Path, make_settings: Callable[..., Settings]) -> None:
    """Every text of a schema is redacted where it is shown, but a property's name was served,
    indexed and found by a search for the secret as written: a name cannot be hidden and called."""
    (python_dir / "keyz.py").write_text(SECRET_NAMED, encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        served = {d.name for d in app.catalog.current.definitions()}
    notes = "\n".join(app.keeper.notes())
    assert "keyz_good" in served and "keyz_bad" not in served
    assert "'keyz_bad': its input schema names a property '[REDACTED]', which looks like a secret" in notes
    assert "abcdEFGH1234567890" not in notes


async def test_a_tier_not_read_write_or_exec_is_said_under_the_name_the_module_gave_it(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    """``TIER = "bogus"`` was said as "refused TOOL_TIER = 'bogus'", a name the module never set
    (an outside check of the README's steps)."""
    for name, variable in (("short", "TIER"), ("long", "TOOL_TIER")):
        (python_dir / f"{name}.py").write_text(
            f"{variable} = 'bogus'\n\n\ndef get_tool_schemas():\n"
            f"    return [{{'name': '{name}_hi', 'description': 'Says hi',\n"
            f"             'input_schema': {{'type': 'object'}}}}]\n\n\n"
            f"def {name}_hi():\n    return 'hi'\n", encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        notes = "\n".join(app.keeper.notes())
    assert "short: refused TIER = 'bogus' is not one of 'read', 'write', 'exec'" in notes, notes
    assert "long: refused TOOL_TIER = 'bogus' is not one of" in notes, notes


BADLY_NAMED = '''
def get_tool_schemas():
    return [{"name": "named tool", "description": "a space"},
            {"name": "named_\u00fcn\u00ef", "description": "letters with marks"},
            {"name": "named_" + "x" * 70, "description": "too long"},
            {"name": 5, "description": "a number"},
            {"description": "none at all"},
            {"name": "other tool", "description": "would be refused for its prefix next"},
            {"name": "named_ok", "description": "served"}]


def dispatch(name, args):
    return name
'''


async def test_a_name_that_is_no_tool_name_is_said_as_written_with_what_is_wrong_and_what_to_call_it(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    """Every such schema was said alike, "schema #1 has no valid 'name' (ASCII letters, digits,
    '_' or '-', at most 64)", for a space, an accent, 70 characters, a number or no name at all:
    the author had to count schemas and guess (an outside check of the README's steps)."""
    (python_dir / "named.py").write_text(BADLY_NAMED, encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        served = {d.name for d in app.catalog.current.definitions()}
        notes = "\n".join(app.keeper.notes())
    assert "named_ok" in served
    rule = "(a tool name is ASCII letters, digits, '_' or '-', at most 64)"
    assert f"schema #1 has the name 'named tool', which holds ' ' {rule}: call it 'named_tool'" in notes, notes
    assert f"schema #2 has the name 'named_\u00fcn\u00ef', which holds '\u00fc', '\u00ef' {rule}: call it 'named_uni'" \
        in notes
    assert f"schema #3 has a name of 76 characters, 'named_{'x' * 34}...' {rule}" in notes
    assert f"schema #4 has a name that is an int, not text {rule}" in notes
    assert f"schema #5 has no 'name' {rule}" in notes
    # Not offered a name its module's prefix would refuse next.
    assert f"schema #6 has the name 'other tool', which holds ' ' {rule}\n" in notes + "\n"


async def test_an_async_get_tool_schemas_is_said_to_be_one(make_settings: Callable[..., Settings],
                                                           python_dir: Path) -> None:
    """The tools' functions may be ``async def``; ``get_tool_schemas`` written so was said as
    "get_tool_schemas() returned coroutine, not a list" (an outside check of the README's steps)."""
    (python_dir / "asyncy.py").write_text(
        "async def get_tool_schemas():\n    return [{'name': 'asyncy', 'description': 'd'}]\n\n\n"
        "async def asyncy():\n    return 'hi'\n", encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        skipped = {s.path.rpartition("/")[2]: s.reason for s in app.skipped_files}
    assert skipped["asyncy.py"] == "get_tool_schemas() is an async def: define it with def, returning the list"


MISFITTING = '''
def get_tool_schemas():
    return [{"name": "fits_renamed", "description": "a parameter renamed in the function only",
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
            {"name": "fits_optional", "description": "needed, but not required",
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}},
            {"name": "fits_well", "description": "fits",
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
            {"name": "fits_any", "description": "takes any keyword",
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]


def fits_renamed(town):
    return town


def fits_optional(city):
    return city


def fits_well(city, units="metric"):
    return city


def fits_any(**arguments):
    return arguments
'''


async def test_a_function_that_does_not_fit_its_schema_is_said_when_the_module_is_described(
        make_settings: Callable[..., Settings], python_dir: Path) -> None:
    """A parameter renamed in the function but not in the schema (or the other way) was said only
    by a call, to the model, as a TypeError ("fits_renamed() got an unexpected keyword argument
    'city'"); toolbay list said nothing (an outside check of the README's steps)."""
    (python_dir / "fits.py").write_text(MISFITTING, encoding="utf-8")
    (python_dir / "dispatching.py").write_text(
        "def get_tool_schemas():\n    return [{'name': 'dispatching', 'description': 'd'}]\n\n\n"
        "def dispatch(name):\n    return name\n", encoding="utf-8")
    async with assemble(make_settings(), watch=False) as app:
        served = {d.name for d in app.catalog.current.definitions()}
        notes = "\n".join(app.keeper.notes())
        renamed = await call(app, "fits_renamed", {"city": "Oslo"})
    assert {"fits_renamed", "fits_optional", "fits_well", "fits_any", "dispatching"} <= served  # noted, not refused
    assert renamed.is_error and "unexpected keyword argument 'city'" in renamed.text
    assert "fits: 'fits_renamed': its schema names 'city', which fits_renamed() does not take: a call giving it " \
        "fails" in notes, notes
    assert "fits: 'fits_renamed': fits_renamed() needs 'town', which its schema does not name: every call fails" \
        in notes
    assert "fits: 'fits_optional': fits_optional() needs 'city', which its schema does not require: a call " \
        "without it fails (add it to 'required', or give it a default)" in notes
    assert "fits_well" not in notes and "fits_any" not in notes
    assert "dispatching: dispatch(name) cannot be called as dispatch(name, args): too many positional arguments; " \
        "every call fails" in notes
