"""Which objects of an input schema are closed (``toolbay.closed_objects``), walked once."""

from __future__ import annotations

from typing import Any

import pytest

from toolbay import closed_objects
from toolbay.closed_objects import close_objects


def test_a_reference_is_followed_once_however_often_it_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Six lines ("A": anyOf [$ref A] * N) were followed afresh at every use, 16 deep: N = 8 took
    minutes in the server's describing, which held every other file's (an outside check)."""
    looked_up: list[str] = []
    target = closed_objects.local_target

    def counting(root: Any, reference: str) -> Any:
        looked_up.append(reference)
        return target(root, reference)

    monkeypatch.setattr(closed_objects, "local_target", counting)
    schema = {"type": "object", "properties": {"v": {"$ref": "#/$defs/A"}, "w": {"$ref": "#/$defs/A"}},
              "$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}] * 40 + [{"properties": {"x": {}}}]}}}
    closed = close_objects(schema, lambda _: "unevaluatedProperties")
    assert looked_up == ["#/$defs/A"]
    assert closed["properties"]["v"]["unevaluatedProperties"] is False  # A may be an object: its last member


def test_an_object_reached_through_an_anchor_is_closed_where_it_is_used() -> None:
    """Only JSON pointers were followed: "$ref": "#pt" to an "$anchor" left the object open, and a
    key it does not name reached the tool (a re-check)."""
    schema = {"type": "object", "properties": {"o": {"$ref": "#pt"}, "n": {"$ref": "#count"}},
              "$defs": {"P": {"$anchor": "pt", "type": "object", "properties": {"a": {"type": "integer"}}},
                        "C": {"$anchor": "count", "type": "integer"}}}
    closed = close_objects(schema, lambda _: "unevaluatedProperties")
    assert closed["properties"]["o"]["unevaluatedProperties"] is False
    assert "unevaluatedProperties" not in closed["properties"]["n"]  # an integer: nothing to close


def test_the_properties_a_refusal_names_are_found_following_each_reference_once() -> None:
    """A refused key's message lists the properties the schema declares: that walk followed each
    $ref afresh at every use, 16 deep, and forty references to itself held the call's refusal,
    and its caller's next calls, for minutes (a re-check)."""
    from toolbay.chain.validate import _declared

    class Counted(dict[str, Any]):
        looks = 0

        def get(self, key: str, default: Any = None) -> Any:
            if key == "properties":
                Counted.looks += 1
            return super().get(key, default)

    schema = Counted({"type": "object", "properties": {"p": {"type": "integer"}}, "allOf": [{"$ref": "#/$defs/A"}],
                      "$defs": {"A": Counted({"then": {"allOf": [{"$ref": "#/$defs/A"}] * 40},
                                              "properties": {"q": {}}})}})
    assert _declared(schema) == ["p", "q"]
    assert Counted.looks == 2  # the schema, and A once
