"""Reaching past jsonschema's public API: ``unevaluatedItems`` and ``unevaluatedProperties``
with sets.

jsonschema's two keywords ask, for each item or property, whether it is in the list of those
evaluated (``index not in evaluated_item_indexes``): with ``items`` or ``additionalProperties``
beside them every one is evaluated, and 20,000 of them (a 60 KB request) took 2 s of the event
loop, 4 MiB hours (an outside check). They are written again here as jsonschema writes them
(4.26), but for the set; which items were evaluated is still jsonschema's own answer, through
its private ``_utils.find_evaluated_item_indexes_by_schema`` and
``find_evaluated_property_keys_by_schema``, which no public API offers.
tests/chain/test_validate.py fails when those helpers change their names or signatures.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema import ValidationError
from jsonschema._utils import (
    extras_msg,
    find_evaluated_item_indexes_by_schema,
    find_evaluated_property_keys_by_schema,
)

# Extras named in a message; more are counted (a message naming 30,000 items was 720 KB).
_NAMED = 20


def _named(extras: list[Any]) -> tuple[str, str]:
    said, verb = extras_msg(extras[:_NAMED])
    return (said if len(extras) <= _NAMED else f"{said} and {len(extras) - _NAMED} more"), \
        ("were" if len(extras) > 1 else verb)


def unevaluated_items(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "array"):
        return
    evaluated = set(find_evaluated_item_indexes_by_schema(validator, instance, schema))
    extras = [item for index, item in enumerate(instance) if index not in evaluated]
    if extras:
        said, verb = _named(extras)
        yield ValidationError(f"Unevaluated items are not allowed ({said} {verb} unexpected)")


def unevaluated_properties(validator: Any, unevaluated: Any, instance: Any,
                           schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    evaluated = set(find_evaluated_property_keys_by_schema(validator, instance, schema))
    extras = [name for name in instance if name not in evaluated
              and any(True for _ in validator.descend(instance[name], unevaluated, path=name, schema_path=name))]
    if not extras:
        return
    if unevaluated is False:
        said, verb = _named(sorted(extras, key=str))
        yield ValidationError(f"Unevaluated properties are not allowed ({said} {verb} unexpected)")
    else:
        said, verb = _named(extras)
        yield ValidationError(f"Unevaluated properties are not valid under the given schema ({said} {verb} "
                              "unevaluated and invalid)")
