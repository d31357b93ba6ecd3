"""The refusal of a request's parameters names the fields and their problems, a few in its
message and up to twenty in its data, and counts the rest."""

from __future__ import annotations

import mcp.types as types
import pydantic
import pytest

from toolbay.protocol.invalid_params import invalid_params_error


def test_many_problems_are_named_a_few_at_a_time_and_the_rest_counted() -> None:
    fields = {f"field{number}": (str, ...) for number in range(25)}
    model = pydantic.create_model("Params", **fields)  # type: ignore[call-overload]
    with pytest.raises(pydantic.ValidationError) as caught:
        model.model_validate({})
    error = invalid_params_error("tools/call", caught.value).error
    assert error.code == -32602
    assert error.message.startswith("Invalid tools/call parameters: field0: Field required; field1: Field required")
    assert error.message.endswith("(and 22 more)")
    assert isinstance(error.data, dict) and len(error.data["errors"]) == 20


def test_a_missing_params_and_a_union_s_members_are_said_as_a_caller_writes_them() -> None:
    model = pydantic.create_model(  # type: ignore[call-overload]
        "Request", params=(pydantic.create_model("Params", token=(str | int, ...)), ...))
    for given, said in (({}, "params: Field required"),
                        ({"params": {"token": [1]}}, "token: Input should be a valid string")):
        with pytest.raises(pydantic.ValidationError) as caught:
            model.model_validate(given)
        message = invalid_params_error("tools/call", caught.value).error.message
        assert message.startswith(f"Invalid tools/call parameters: {said}"), message
        assert ".str" not in message and ".int" not in message


def test_the_sdk_s_union_members_are_not_named_and_one_field_s_problems_are_one() -> None:
    """pydantic names the member models of a union in a problem's place
    (``ref.PromptReference.name``), and a field failing each member was named once per member
    (an outside probe)."""
    with pytest.raises(pydantic.ValidationError) as caught:
        types.CompleteRequestParams.model_validate({"ref": {"type": "ref/prompt", "name": 5},
                                                    "argument": {"name": "a", "value": "b"}})
    message = invalid_params_error("completion/complete", caught.value).error.message
    assert message == "Invalid completion/complete parameters: ref.name: Input should be a valid string"
    with pytest.raises(pydantic.ValidationError) as caught:
        types.CompleteRequestParams.model_validate({"ref": {"type": "ref/nope"},
                                                    "argument": {"name": "a", "value": "b"}})
    message = invalid_params_error("completion/complete", caught.value).error.message
    assert message.startswith("Invalid completion/complete parameters: ref.type: Input should be 'ref/resource' or "
                              "'ref/prompt'; "), message  # no member is meant: each one's problems are said
    assert "Reference" not in message
    with pytest.raises(pydantic.ValidationError) as caught:
        types.PaginatedRequestParams.model_validate({"_meta": {"progressToken": [1]}})
    error = invalid_params_error("tools/list", caught.value).error
    assert error.message == ("Invalid tools/list parameters: _meta.progressToken: "
                             "Input should be a valid string or a valid integer")


def test_a_client_s_own_keys_are_said_back_short_and_with_their_controls_escaped() -> None:
    """The keys of ``arguments`` came back whole: 25 keys of 200 KB made a 4.6 MB answer, and a
    key holding a newline or a right-to-left override came back as sent (an outside probe)."""
    arguments = {"k" * 200_000: 1, "x" * 50_000: 2, "evil\u202e\nkey": 3}
    with pytest.raises(pydantic.ValidationError) as caught:
        types.GetPromptRequestParams.model_validate({"name": "p", "arguments": arguments})
    error = invalid_params_error("prompts/get", caught.value).error
    assert len(error.message) < 400, len(error.message)
    assert f"arguments.{'k' * 40}…: Input should be a valid string" in error.message
    assert "arguments.evil\\u202e\\u000akey" in error.message
    assert "\n" not in error.message and "\u202e" not in error.message


@pytest.mark.parametrize("key", ["str", "int", "none", "PromptReference", "Tool", "a[0]", "k\x1b[31m"])
def test_a_client_s_key_that_looks_like_a_type_s_name_keeps_its_place(key: str) -> None:
    """Keys such as ``str`` or ``a[0]`` were taken for pydantic's names of union members and
    dropped: the problem was said of ``arguments`` as a whole (an outside probe)."""
    params = {"name": "p", "arguments": {"fine": "yes", key: 5}}
    with pytest.raises(pydantic.ValidationError) as caught:
        types.GetPromptRequestParams.model_validate(params)
    message = invalid_params_error("prompts/get", caught.value, params).error.message
    shown = key.replace("\x1b", "\\u001b")
    assert message == f"Invalid prompts/get parameters: arguments.{shown}: Input should be a valid string"


def test_an_object_expected_is_said_so_once_not_as_each_member_s_class() -> None:
    """``"ref": "str"`` was told "a valid dictionary or instance of PromptReference or a valid
    dictionary or instance of ResourceTemplateReference" (an outside probe)."""
    params = {"ref": "str", "argument": {"name": "a", "value": "b"}}
    with pytest.raises(pydantic.ValidationError) as caught:
        types.CompleteRequestParams.model_validate(params)
    error = invalid_params_error("completion/complete", caught.value, params).error
    assert error.message == "Invalid completion/complete parameters: ref: Input should be an object"
