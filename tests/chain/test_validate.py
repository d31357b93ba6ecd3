"""Argument validation: every problem reported, each with its path, in words a model can act on."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from tests.chain.conftest import COUNT_SCHEMA, make_call, run_handler, tool
from toolbay.chain.call import ToolCall
from toolbay.chain.validate import SchemaValidator, Validate
from toolbay.errors import InvalidArguments

pytestmark = pytest.mark.anyio


def problems(arguments: dict[str, Any], schema: dict[str, Any] | None = None) -> list[str]:
    return SchemaValidator().problems(schema or dict(COUNT_SCHEMA), arguments)


async def beside_another_request(work: Callable[[], Awaitable[str]]) -> list[str]:
    """The order in which ``work`` (started first) and another request on the event loop end:
    "answered" first when ``work`` lets the loop run meanwhile."""
    order: list[str] = []

    async def run_work() -> None:
        order.append(await work())

    async def another_request() -> None:
        await anyio.sleep(0.01)
        order.append("answered")

    async with anyio.create_task_group() as group:
        group.start_soon(run_work)
        group.start_soon(another_request)
    return order


def test_valid_arguments_have_no_problems() -> None:
    assert problems({"text": "hi", "count": 2, "mode": "fast"}) == []


def test_a_wrong_type_says_what_was_expected_and_what_came() -> None:
    assert problems({"text": "hi", "count": "abc"}) == ['$.count: expected integer, got "abc" (a string)']


def test_a_missing_required_property_is_named_with_its_type() -> None:
    assert problems({}) == ["$.text: missing required property; expected string"]


def test_an_unknown_property_is_named_with_the_allowed_ones() -> None:
    assert problems({"text": "hi", "colour": "red"}) == [
        "$.colour: unknown property; the allowed properties are text, count, mode"]


def test_unknown_properties_are_refused_even_if_the_schema_allows_them_by_omission() -> None:
    open_schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {}}}}}
    assert problems({"a": {"b": 1, "c": 2}, "d": 3}, open_schema) == [
        "$.a.c: unknown property; the allowed properties are b",
        "$.d: unknown property; the allowed properties are a",
    ]


def test_a_schema_that_declares_no_properties_accepts_none() -> None:
    assert problems({"x": 1}, {"type": "object"}) == ["$.x: unknown property; the allowed properties are none"]


def test_a_schema_that_says_what_to_do_with_extra_properties_is_obeyed() -> None:
    schema = {"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}}
    assert problems({"a": 1, "b": 2}, schema) == []
    assert problems({"a": 1, "b": "x"}, schema) == ['$.b: expected integer, got "x" (a string)']


def test_properties_declared_through_all_of_are_not_unknown() -> None:
    schema = {"type": "object", "allOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}]}
    assert problems({"a": 1, "b": 2}, schema) == []
    assert problems({"a": 1, "c": 2}, schema) == ["$.c: unknown property; the allowed properties are a, b"]


def test_an_enum_lists_the_allowed_values() -> None:
    assert problems({"text": "hi", "mode": "medium"}) == ['$.mode: expected one of "fast", "slow", got "medium"']


@pytest.mark.parametrize(
    ("schema", "value", "sentence"),
    [
        ({"type": "integer", "minimum": 1}, 0, "$.v: expected a number >= 1, got 0"),
        ({"type": "integer", "maximum": 9}, 10, "$.v: expected a number <= 9, got 10"),
        ({"exclusiveMinimum": 0}, 0, "$.v: expected a number > 0, got 0"),
        ({"exclusiveMaximum": 0}, 0, "$.v: expected a number < 0, got 0"),
        ({"multipleOf": 5}, 7, "$.v: expected a multiple of 5, got 7"),
        ({"minLength": 2}, "a", "$.v: expected at least 2 characters, got 1"),
        ({"maxLength": 2}, "abc", "$.v: expected at most 2 characters, got 3"),
        ({"pattern": "^[a-z]+$"}, "A1", '$.v: expected a string matching the pattern ^[a-z]+$, got "A1"'),
        ({"format": "date"}, "2024-13-45", '$.v: expected a valid date, got "2024-13-45"'),
        ({"minItems": 2}, [1], "$.v: expected at least 2 items, got 1"),
        ({"maxItems": 1}, [1, 2], "$.v: expected at most 1 items, got 2"),
        ({"uniqueItems": True}, [1, 1], "$.v: expected every item to be different, but some repeat"),
        ({"const": "x"}, "y", '$.v: expected exactly "x", got "y"'),
        ({"type": ["string", "null"]}, 3, "$.v: expected string or null, got 3 (an integer)"),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 1.5,
         "$.v: expected a value matching one of 2 allowed forms, got 1.5"),
        ({"oneOf": [{"type": "number"}, {"type": "integer"}]}, 1,
         "$.v: expected a value matching exactly one of 2 allowed forms, got 1"),
    ],
)
def test_each_kind_of_problem_is_said_in_words(schema: dict[str, Any], value: Any, sentence: str) -> None:
    assert problems({"v": value}, {"type": "object", "properties": {"v": schema}}) == [sentence]


def test_paths_into_arrays_and_odd_keys_are_written_as_json_paths() -> None:
    schema = {"type": "object", "properties": {"files": {"type": "array", "items": {
        "type": "object", "properties": {"my name": {"type": "string"}}}}}}
    assert problems({"files": [{"my name": "a"}, {"my name": 2}]}, schema) == [
        '$.files[1]["my name"]: expected string, got 2 (an integer)']


def test_every_problem_is_reported_not_just_the_first() -> None:
    found = problems({"count": "x", "mode": "no", "extra": True})
    assert len(found) == 4
    assert [p.split(":")[0] for p in found] == ["$.count", "$.mode", "$.text", "$.extra"]


def test_a_broken_tool_schema_is_reported_as_the_tools_fault() -> None:
    assert problems({}, {"type": "objekt"})[0].startswith("$: the tool's own input schema is broken")


def test_a_ref_to_something_outside_the_schema_is_the_tools_fault_and_nothing_is_fetched() -> None:
    for ref in ("http://127.0.0.1:1/schema.json", "file:///etc/passwd", "#/$defs/missing"):
        schema = {"type": "object", "properties": {"a": {"$ref": ref}}}
        [problem] = problems({"a": 1}, schema)
        assert problem.startswith("$: the tool's own input schema is broken (its $ref ")
        assert ref.removeprefix("#") in problem and problem.endswith("cannot be resolved); tell the server's operator")


def test_a_schema_is_compiled_once_and_reused() -> None:
    validator, schema = SchemaValidator(), dict(COUNT_SCHEMA)
    validator.problems(schema, {"text": "a"})
    compiled = validator._validator(schema)
    validator.problems(schema, {"text": "b"})
    assert validator._validator(schema) is compiled


async def test_invalid_arguments_stop_the_call_before_the_tool_runs() -> None:
    echo = tool()
    with pytest.raises(InvalidArguments) as refused:
        await Validate(SchemaValidator())(make_call(echo, {"count": 0}), run_handler)
    assert echo.calls == 0
    assert refused.value.problems == ["$.count: expected a number >= 1, got 0",
                                      "$.text: missing required property; expected string"]
    assert refused.value.message.startswith("The arguments for 'echo' are not valid:\n- $.count")


async def test_a_value_a_tools_pattern_backtracks_on_is_refused_while_other_requests_are_answered() -> None:
    # A careless e-mail-like pattern: Python's re alone would search this value for hours,
    # holding the event loop (and every other request) all that time.
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^(a|aa)+$"}}}
    careless = tool(schema=schema)

    async def check() -> str:
        with pytest.raises(InvalidArguments) as refused:
            await Validate(SchemaValidator())(make_call(careless, {"name": "a" * 40 + "!"}), run_handler)
        [problem] = refused.value.problems
        assert problem.startswith("$: the arguments could not be checked: the tool's pattern ^(a|aa)+$ takes too long")
        return "refused"

    assert await beside_another_request(check) == ["answered", "refused"] and careless.calls == 0
    # The same tool with a value its pattern matches at once is called as usual.
    await Validate(SchemaValidator())(make_call(careless, {"name": "aaaa"}), run_handler)
    assert careless.calls == 1


def test_nan_and_infinity_are_refused_wherever_they_are() -> None:
    nowhere_bounded = {"type": "object", "properties": {"t": {"type": "number", "minimum": 0, "maximum": 9},
                                                        "list": {"type": "array"}}}
    assert problems({"t": float("nan"), "list": [1.5, float("inf"), -float("inf")]}, nowhere_bounded) == [
        "$.t: NaN is not a JSON number; send a finite number",
        "$.list[1]: Infinity is not a JSON number; send a finite number",
        "$.list[2]: -Infinity is not a JSON number; send a finite number"]


def test_only_arguments_the_quick_check_finds_valid_are_checked_on_the_event_loop() -> None:
    """The rest (schemas with patterns, compositions, refs; wrong arguments) is checked on a
    thread: a caller chooses how long that takes."""
    validator = SchemaValidator()
    plain = {"type": "object", "properties": {"pattern": {"type": "string"}, "n": {"type": "integer"}}}
    assert validator.plainly_valid(plain, {"pattern": "a+", "n": 1})  # a property named "pattern" is no keyword
    assert not validator.plainly_valid(plain, {"n": "one"})
    assert not validator.plainly_valid(plain, {"pattern": "a\u0000"})
    nested = {"type": "object", "properties": {"to": {"type": "array", "items": {"type": "string", "pattern": "@"}}}}
    assert not validator.plainly_valid(nested, {"to": ["a@b"]})
    assert not validator.plainly_valid({"type": "object", "anyOf": [{"required": ["a"]}]}, {"a": 1})


async def test_valid_arguments_reach_the_tool() -> None:
    echo = tool()
    await Validate(SchemaValidator())(make_call(echo, {"text": "hi"}), run_handler)
    assert echo.calls == 1


def test_a_nul_character_anywhere_but_stdin_is_refused_with_its_path() -> None:
    schema = {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}},
                                               "stdin": {"type": "string"}}}
    assert problems({"names": ["ok", "a\u0000b"], "stdin": "x\u0000y"}, schema) == [
        "$.names[1]: contains a NUL character (\\u0000), which cannot be passed to a program as an argument; "
        "remove it"]


def test_properties_declared_through_compositions_and_refs_are_named_as_allowed_and_never_called_unknown() -> None:
    halves = {"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}},
                                         {"properties": {"b": {"type": "integer"}}}]}
    referred = {"type": "object", "$ref": "#/$defs/args", "$defs": {"args": {"properties": {"q": {"type": "string"}}}}}
    conditional = {"type": "object", "properties": {"k": {"type": "string"}},
                   "if": {"properties": {"k": {"const": "a"}}}, "then": {"properties": {"v": {"type": "integer"}}}}
    # A declared property of a failing part is said by its own error, not called unknown.
    assert problems({"b": "notint", "a": "x"}, halves) == ['$.b: expected integer, got "notint" (a string)']
    assert problems({"a": "x", "zz": 1}, halves) == ["$.zz: unknown property; the allowed properties are a, b"]
    assert problems({"q": "hi", "zzz": 1}, referred) == ["$.zzz: unknown property; the allowed properties are q"]
    assert problems({"k": "a", "v": 1, "zzz": 2}, conditional) == [
        "$.zzz: unknown property; the allowed properties are k, v"]


def test_a_refusal_quotes_the_schema_as_callers_are_shown_it_redacted() -> None:
    # Listings and search show a secret written into a schema as [REDACTED]; the refusal of a
    # wrong value quoted the enum and the pattern whole.
    secret, token = "sk-" + "abcdefghijklmnopqrstuvwxyz123456", "xoxb-" + "123456789012-abcdefghijkl"
    schema = {"type": "object", "properties": {"key": {"type": "string", "enum": [secret, "plain"]},
                                               "name": {"type": "string", "pattern": f"^(?!{token}).*$"}}}
    with pytest.raises(InvalidArguments) as refused:
        SchemaValidator().check("t", schema, {"key": "nope", "name": token})
    said = " ".join(refused.value.problems)
    assert '$.key: expected one of "[REDACTED]", "plain", got "nope"' in said and "$.name:" in said
    assert secret not in said and token not in said


def test_unique_items_is_checked_in_one_pass_and_compares_as_json_schema_does() -> None:
    """jsonschema compared items that do not sort (objects) pair by pair on the event loop: 3,000
    small objects (36 KB) held every other request for 11 s, 20,000 for more than six minutes
    (an outside check). 30,000 here; on the pairwise check this test ran past its time limit."""
    schema = {"type": "object", "properties": {"tags": {"type": "array", "uniqueItems": True}}}
    distinct = [{"k": number} for number in range(30_000)]
    assert problems({"tags": distinct}, schema) == []
    repeated = ["$.tags: expected every item to be different, but some repeat"]
    assert problems({"tags": [*distinct, {"k": 29_999}]}, schema) == repeated
    # Equal as JSON Schema says: objects whatever their keys' order, 1 and 1.0, nested alike;
    # 1 and true are different, as are "1" and 1.
    assert problems({"tags": [{"a": 1, "b": [2, {"c": None}]}, {"b": [2.0, {"c": None}], "a": 1}]}, schema) == repeated
    assert problems({"tags": [1, 1.0]}, schema) == repeated
    assert problems({"tags": [1, True, "1", [1], {"1": 1}, None, False, 0]}, schema) == []


def test_a_whole_number_too_large_for_a_float_against_a_fractional_multiple_of_is_checked_exactly() -> None:
    # 10**400 / 0.01 overflowed a float inside jsonschema: an internal error for the caller.
    schema = {"type": "object", "properties": {"x": {"type": "number", "multipleOf": 0.01},
                                               "half": {"type": "number", "multipleOf": 0.5}}}
    assert problems({"x": 10**400}, schema) == []
    assert problems({"half": 10**400 + 1}, schema) == []  # an integer is a multiple of 1/2
    assert problems({"x": 0.305}, schema) == ["$.x: expected a multiple of 0.01, got 0.305"]
    third = {"type": "object", "properties": {"x": {"type": "number", "multipleOf": 0.3}}}
    [refused] = problems({"x": 10**400}, third)  # 10**401 / 3 is no whole number
    assert refused.startswith("$.x: expected a multiple of 0.3, got ")


def _filter_schema(combinator: str) -> dict[str, Any]:
    """A filter expression: and/or/not of conditions, as a search tool's argument may be."""
    branches = [{"type": "object", "properties": {"op": {"const": op}, "args": {"type": "array",
                                                                               "items": {"$ref": "#/$defs/expr"}}},
                 "required": ["op", "args"]} for op in ("and", "or", "not")]
    condition = {"type": "object", "properties": {"field": {"type": "string"}}, "required": ["field"]}
    return {"type": "object", "properties": {"filter": {"$ref": "#/$defs/expr"}},
            "$defs": {"expr": {combinator: [*branches, condition]}}}


def test_the_checks_limit_counts_its_cpu_time_not_its_waiting() -> None:
    """A check waiting for the interpreter's lock or a core on a busy machine is not costly: timed
    by the clock, two checks of about a second of work were refused beside another test run (an
    outside check). Here a keyword starts after the whole limit has passed asleep."""
    from toolbay.chain.schema_keywords import ArgumentsTooCostly, within, wrapped_for_time
    check = wrapped_for_time(lambda *_: "checked")
    with within(0.05):
        time.sleep(0.2)
        assert check(None, None, None, None) == "checked"
        spent_at = time.thread_time() + 0.1
        while time.thread_time() < spent_at:
            pass  # CPU time spent past the limit
        with pytest.raises(ArgumentsTooCostly):
            check(None, None, None, None)


@pytest.mark.parametrize("combinator", ["anyOf", "oneOf"])
def test_a_check_that_would_take_long_is_stopped_at_its_limit_and_said(combinator: str) -> None:
    """A recursive anyOf is checked again for each branch at every level: each level three times
    the last, ten levels (300 bytes) 34 s of the event loop (an outside check). 16 levels are
    some 40 million checks, stopped at a twentieth of a second here."""
    node: dict[str, Any] = {"field": 1}
    for _ in range(16):
        node = {"op": "and", "args": [node]}
    [said] = SchemaValidator(check_limit_s=0.05).problems(_filter_schema(combinator), {"filter": node})
    assert said.startswith("$: the arguments could not be checked against the tool's input schema "
                           "within 0.05 s of CPU time")
    assert "alternatives checked again for each value" in said
    # Many values on a schema without alternatives are said to be that (they were said to be
    # alternatives it did not have: a re-check).
    plain = {"type": "object", "properties": {"n": {"type": "array", "items": {"type": "integer"}}}}
    [many] = SchemaValidator(check_limit_s=0.0).problems(plain, {"n": ["x"] * 20_000})
    assert "(they hold more than 10,000 values, each checked in turn)" in many, many
    # A shallow filter is checked as ever.
    shallow = {"op": "not", "args": [{"field": "name"}]}
    assert SchemaValidator().problems(_filter_schema(combinator), {"filter": shallow}) == []


def test_a_refusal_says_at_most_twenty_problems() -> None:
    # 840,000 wrong items made a refusal of 41 MB, which was redacted on the event loop.
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}},
              "additionalProperties": False}
    said = problems({"a": ["x"] * 100_000, **{f"k{number}": 1 for number in range(100)}}, schema)
    assert len(said) == 21 and said[-1] == "$: more problems than these 20; mend these and send again"
    assert said[0] == '$.a[0]: expected integer, got "x" (a string)'


@pytest.mark.parametrize(("pattern", "reason"), [
    ("(?:" * 5000 + "a" + ")" * 5000, "raised RecursionError: an internal error"),
    ("a" * 80_000 + "|" + "a" * 80_000, "compiled in 4.7 s on the event loop"),
])
def test_a_regex_argument_too_deep_or_too_long_to_compile_is_refused(pattern: str, reason: str) -> None:
    schema = {"type": "object", "properties": {"r": {"type": "string", "format": "regex"}}}
    [said] = problems({"r": pattern}, schema)
    assert said.startswith("$.r: expected a valid regex"), reason
    assert problems({"r": "^[a-z]+(?:-[a-z]+)*$"}, schema) == []


def test_unevaluated_items_and_properties_still_refuse_what_no_keyword_evaluated() -> None:
    # Written again with sets (toolbay.internals.jsonschema_evaluated): 20,000 items took 2 s.
    schema = {"type": "object", "properties": {
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "unevaluatedItems": False},
        "all": {"type": "array", "items": {"type": "integer"}, "unevaluatedItems": False},
        "o": {"type": "object", "allOf": [{"properties": {"x": {"type": "integer"}}}], "unevaluatedProperties": False}}}
    assert problems({"pair": ["a", 1], "all": list(range(20_000)), "o": {"x": 1}}, schema) == []
    assert problems({"pair": ["a", 1, True]}, schema) == [
        "$.pair: Unevaluated items are not allowed (True was unexpected)"]
    assert problems({"o": {"x": 1, "y": 2}}, schema) == [
        "$.o.y: unknown property; the allowed properties are x"]


def test_jsonschemas_private_helpers_that_toolbay_reaches_for_are_still_there() -> None:
    # toolbay.internals.jsonschema_evaluated reaches into jsonschema._utils: a jsonschema that
    # renames or changes them must fail here, not in a user's call.
    import inspect

    import jsonschema._utils as utils

    for name in ("find_evaluated_item_indexes_by_schema", "find_evaluated_property_keys_by_schema"):
        assert list(inspect.signature(getattr(utils, name)).parameters) == ["validator", "instance", "schema"]
    assert utils.extras_msg([1, 2]) == ("1, 2", "were")


def test_a_problem_quoting_a_long_value_is_cut_and_arguments_too_deep_to_check_are_said_to_be() -> None:
    # A keyword without a sentence of its own is said in jsonschema's words, which quote the
    # value: one such problem was megabytes. Arguments nested 190 deep made jsonschema raise
    # RecursionError, an internal error (a re-check). A thousand items quote 22 KB: 30,000
    # took seconds to check, and past the check's time limit on a busy machine.
    schema = {"type": "object", "properties": {"a": {"type": "array", "prefixItems": [{"type": "string"}],
                                                     "contains": {"type": "integer"}, "unevaluatedItems": False}}}
    said = problems({"a": ["s", 1, *(["y" * 20] * 1_000)]}, schema)
    assert said and all(len(sentence) <= 300 for sentence in said)
    assert said[0].startswith("$.a: Unevaluated items are not allowed ('") and said[0].endswith("...")
    nested = {"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}},
              "$defs": {"n": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/n"}}]}}}
    deep: Any = 1
    for _ in range(400):
        deep = [deep]
    [refused] = problems({"a": deep}, nested)
    assert refused == ("$: the arguments are nested too deeply to be checked against the tool's input schema; "
                       "send them less deeply nested")


async def test_costly_checks_run_two_at_once_off_the_event_loop_and_one_a_caller() -> None:
    """Forty costly checks at once, each on a thread of its own, left the event loop a fortieth
    of the interpreter: a ping took 5.6 s; and with two places for all, twenty of one caller's
    held another caller's quick check for 21 s (re-checks). Here each check waits until let go."""
    import threading

    from toolbay.chain.validate import CHECKS_AT_ONCE
    from toolbay.words import Principal

    running: list[str] = []
    most, let_go = 0, threading.Event()
    lock = threading.Lock()

    class Waiting(SchemaValidator):
        def check(self, tool: str, schema: Any, arguments: Any) -> None:
            nonlocal most
            with lock:
                running.append(arguments["who"])
                most = max(most, len(running))
            let_go.wait(30)
            with lock:
                running.remove(arguments["who"])

    stage = Validate(Waiting())
    echo = tool(schema={"type": "object", "properties": {"who": {"type": "string", "pattern": "^[a-z]+$"}}})

    def call_of(who: str) -> ToolCall:
        return make_call(echo, {"who": who}, principal=Principal(id=who))

    async with anyio.create_task_group() as calls:
        try:
            for _ in range(5):  # a burst of one caller's costly checks
                calls.start_soon(stage, call_of("mallory"), run_handler)
            await anyio.sleep(0.05)
            calls.start_soon(stage, call_of("alice"), run_handler)
            with anyio.fail_after(20):
                while True:  # alice's check has the second place, beside one of mallory's
                    with lock:
                        if sorted(running) == ["alice", "mallory"]:
                            break
                    await anyio.sleep(0.01)
        finally:
            let_go.set()
    assert most == CHECKS_AT_ONCE == 2 and echo.calls == 6


@pytest.mark.parametrize("arguments", [{"names": ["ab"] * 800_000},
                                       {"names": ["ab"] * 6_000, "more": [["ab"]] * 6_000}])
async def test_many_values_that_plainly_fit_are_checked_off_the_event_loop(arguments: dict[str, Any]) -> None:
    """The quick check takes time in proportion to the values: a 4 MB list of 800,000 items held
    the event loop 0.6 s a call, every other caller's requests waiting. A few stay on the loop."""
    import threading

    from toolbay.chain.validate import ON_LOOP_VALUES

    checked_on: list[bool] = []

    class Recording(SchemaValidator):
        def check(self, tool: str, schema: Any, arguments: Any) -> None:
            checked_on.append(threading.current_thread() is threading.main_thread())
            super().check(tool, schema, arguments)

    schema = {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}},
                                               "more": {"type": "array"}}}
    echo = tool(schema=schema)
    stage = Validate(Recording())
    await stage(make_call(echo, arguments), run_handler)
    assert checked_on == [False] and echo.calls == 1
    await stage(make_call(echo, {"names": ["ab"] * (ON_LOOP_VALUES - 1)}), run_handler)
    assert checked_on == [False] and echo.calls == 2  # plainly valid on the loop: no check asked


async def test_a_tools_first_call_compiles_its_schema_off_the_event_loop() -> None:
    """Compiling a schema takes time in proportion to its parts (checked against the
    meta-schema, or read as a plain one): a Python module's generated schema of 60,000
    properties held the event loop, and so every other caller's requests (even /healthz), 35 s
    at its tool's first call and after each edit. Which thread compiles is asked, not how long
    the loop waited: how fast a compile is depends on the machine."""
    schema = {"type": "object", "properties": {f"field_{n}": {"type": "string"} for n in range(2_000)}}
    generated = tool(schema=schema)
    stage = Validate(SchemaValidator())
    compiled_on: list[int] = []
    compile_schema = stage.validator.compile

    def compile_watched(compiled_schema: Any) -> None:
        compiled_on.append(threading.get_ident())
        compile_schema(compiled_schema)

    stage.validator.compile = compile_watched  # type: ignore[method-assign]
    await stage(make_call(generated, {"field_1": "x"}), run_handler)
    assert generated.calls == 1 and len(compiled_on) == 1 and compiled_on[0] != threading.get_ident()
    assert stage.validator.compiled(schema)  # compiled once: later calls start at once
    await stage(make_call(generated, {"field_2": "y"}), run_handler)
    assert generated.calls == 2 and len(compiled_on) == 1


def test_a_schema_checked_before_jsonschema_is_loaded_still_has_every_format_jsonschema_checks_checked() -> None:
    # A plain schema's quick check is made before jsonschema is loaded (0.1 s of a first call): it
    # must leave to jsonschema every format jsonschema checks. Fails when jsonschema checks one
    # more than FORMATS_JSONSCHEMA_MAY_CHECK names.
    import jsonschema._format as formats

    from toolbay.chain.schema_keywords import ArgumentsValidator
    from toolbay.chain.validate import FORMATS_JSONSCHEMA_MAY_CHECK

    checkers = (formats.draft3_format_checker, formats.draft4_format_checker, formats.draft6_format_checker,
                formats.draft7_format_checker, formats.draft201909_format_checker, formats.draft202012_format_checker,
                ArgumentsValidator.FORMAT_CHECKER)
    assert set().union(*(checker.checkers for checker in checkers)) <= FORMATS_JSONSCHEMA_MAY_CHECK
    validator = SchemaValidator()
    schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date"},
                                               "file": {"type": "string", "format": "path"}}}
    assert validator.problems(schema, {"when": "2026-12-07", "file": "a.txt"}) == []
    assert validator.problems(schema, {"when": "the seventh", "file": "a.txt"}) == [
        '$.when: expected a valid date, got "the seventh"']
