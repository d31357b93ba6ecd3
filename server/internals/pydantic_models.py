"""Reaching past pydantic's public API: a model instance built without validation, and
models built when first used rather than when defined.

``model_construct`` does per-field work that a catalog of thousands of tools pays on every
listing; ``trusted_instance`` sets the four slots every pydantic model has, as its
``__setstate__`` (unpickling) sets them, straight through their descriptors.

``defer_model_building``: the MCP SDK defines some 450 models (three protocol versions of
every message), and pydantic builds each one's validator as its class is defined, about a
third of a second of processor time for every process that imports it, before the server can
answer. Most of them are never used by one server. pydantic's ``defer_build`` setting builds a
model's validator when it is first used instead, but it is set model by model; the models are
the SDK's, so this changes the default that every model's settings fall back to. The SDK's
type adapters (unions of messages, the client's among them) are built as its modules load
too; pydantic decides an adapter's deferral from its own settings only
(``TypeAdapter._defer_build``), so that rule is given the same fallback: about 0.1 s less
processor time to a warm server's first answers (``bench/bench_serve_start.py``).
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

import pydantic.main
from pydantic import BaseModel, TypeAdapter
from pydantic._internal import _config

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


def defer_model_building() -> bool:
    """From now on in this process, models and type adapters defined without a ``defer_build``
    setting of their own build their validators when first used. Only for a process that is
    toolbay's own (the ``toolbay`` command), and only with a pydantic that builds a deferred
    model under a lock (``pydantic.main._rebuild_lock``, 2.14 on): before it, two threads using
    a model for the first time at once could validate with its parent's validator. Whether
    the default was changed."""
    if not hasattr(pydantic.main, "_rebuild_lock") or "defer_build" not in _config.config_defaults:
        return False
    _config.config_defaults["defer_build"] = True
    if isinstance(TypeAdapter.__dict__.get("_defer_build"), property):
        TypeAdapter._defer_build = property(_adapter_defers)  # type: ignore[method-assign,assignment]
    return True


def _adapter_defers(adapter: TypeAdapter[Any]) -> bool:
    # pydantic's own rule (the adapter's config, else its model's), falling back to the default
    # where neither says, as a model's settings do. No lock is needed here: an adapter's
    # validator is its own attribute, with no parent's to be seen while two threads build it.
    config = adapter._config if adapter._config is not None else adapter._model_config
    if config and "defer_build" in config:
        return config["defer_build"] is True
    return _config.config_defaults["defer_build"] is True
