"""The refusal of a request's parameters names the fields and their problems, a few in its
message and up to twenty in its data, and counts the rest."""

from __future__ import annotations

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
