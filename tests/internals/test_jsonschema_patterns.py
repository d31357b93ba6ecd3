"""jsonschema's pattern searches, bounded (``toolbay.internals.jsonschema_patterns``): these fail
when jsonschema stops searching its patterns through the ``re`` of the modules swapped."""

from __future__ import annotations

from typing import Any

import jsonschema._keywords
import jsonschema._utils
import pytest
from jsonschema import Draft202012Validator

from toolbay.internals.jsonschema_patterns import BoundedSearch, PatternTooSlow, install, within

# Backtracks without end: Python's own re needs seconds on 36 "a"s and a "!", and about three
# times as long for every two more.
SLOW_PATTERN = "^(a|aa)+$"
SLOW_TEXT = "a" * 36 + "!"


@pytest.mark.parametrize(("schema", "instance"), [
    ({"pattern": SLOW_PATTERN}, SLOW_TEXT),
    ({"type": "object", "patternProperties": {SLOW_PATTERN: {}}}, {SLOW_TEXT: 1}),
    ({"type": "object", "patternProperties": {SLOW_PATTERN: {}}, "additionalProperties": False}, {SLOW_TEXT: 1}),
    ({"type": "object", "patternProperties": {SLOW_PATTERN: {}}, "unevaluatedProperties": False}, {SLOW_TEXT: 1}),
], ids=["pattern", "patternProperties", "additionalProperties", "unevaluatedProperties"])
def test_every_kind_of_pattern_search_stops_at_the_deadline(schema: dict[str, Any], instance: Any) -> None:
    install()
    assert isinstance(jsonschema._keywords.re, BoundedSearch) and isinstance(jsonschema._utils.re, BoundedSearch)
    with pytest.raises(PatternTooSlow) as slow, within(0.05):
        list(Draft202012Validator(schema).iter_errors(instance))
    assert slow.value.pattern.startswith(SLOW_PATTERN)


def test_patterns_still_match_as_before() -> None:
    install()
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}-\\d+$"}},
              "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False}
    validator = Draft202012Validator(schema)
    assert not list(validator.iter_errors({"code": "ABC-12", "x-size": 3}))
    assert [e.validator for e in validator.iter_errors({"code": "abc-12", "x-size": "3", "other": 1})] == [
        "pattern", "type", "additionalProperties"]


def test_one_deadline_holds_for_all_the_searches_inside_it() -> None:
    install()
    validator = Draft202012Validator({"type": "array", "items": {"type": "string", "pattern": SLOW_PATTERN}})
    with pytest.raises(PatternTooSlow), within(0.05):
        # Each value alone would be cut at the deadline; a thousand of them share it.
        list(validator.iter_errors([SLOW_TEXT] * 1000))
