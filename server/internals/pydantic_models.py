"""Reaching past pydantic's public API: a model instance built without validation.

``model_construct`` does per-field work that a catalog of thousands of tools pays on every
listing; this sets the four slots every pydantic model has, as its ``__setstate__``
(unpickling) sets them, straight through their descriptors.
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)

_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def trusted_instance(model: type[Model], values: dict[str, Any]) -> Model:
    """An instance of ``model`` holding ``values``, which must have one entry per field of the
    model (unvalidated: only for values toolbay made itself)."""
    instance = model.__new__(model)
    _set_dict(instance, values)
    _set_fields_set(instance, _all_fields(model))
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance


@functools.cache
def _all_fields(model: type[BaseModel]) -> set[str]:
    """One set for every instance: each has all its fields set, and pydantic only ever adds a
    field to it (on assignment), which leaves it as it is."""
    return set(model.model_fields)
