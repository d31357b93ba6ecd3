"""Every wasmtime exception is translated in one place."""

from __future__ import annotations

import inspect

import pytest
import wasmtime

from toolbay.errors import WasmRejected
from toolbay.wasm.errors import MAPPED_EXCEPTIONS, Ending, map_load_errors, map_wasmtime_errors


def wasmtime_exception_classes() -> list[type[BaseException]]:
    return [obj for obj in vars(wasmtime).values()
            if inspect.isclass(obj) and issubclass(obj, BaseException)]


def an_instance_of(cls: type[BaseException]) -> BaseException:
    error = cls("boom")  # type: ignore[call-arg]
    if isinstance(error, wasmtime.ExitTrap):
        error.code = 3
    return error


def test_the_mapping_names_every_exception_class_wasmtime_exports() -> None:
    assert set(wasmtime_exception_classes()) <= set(MAPPED_EXCEPTIONS)


@pytest.mark.parametrize("cls", wasmtime_exception_classes(), ids=lambda c: c.__name__)
def test_every_wasmtime_exception_becomes_an_ending_while_running(cls: type[BaseException]) -> None:
    ending = Ending()
    with map_wasmtime_errors(ending):
        raise an_instance_of(cls)
    assert ending.trap is not None or ending.exit_code == 3


@pytest.mark.parametrize("cls", wasmtime_exception_classes(), ids=lambda c: c.__name__)
def test_every_wasmtime_exception_becomes_a_rejection_while_loading(cls: type[BaseException]) -> None:
    with pytest.raises(WasmRejected), map_load_errors("x.wasm"):
        raise an_instance_of(cls)


def test_other_exceptions_are_not_swallowed() -> None:
    with pytest.raises(KeyError), map_wasmtime_errors(Ending()):
        raise KeyError("not from wasmtime")


def test_the_traceback_of_a_mapped_error_is_dropped() -> None:
    error = wasmtime.Trap("boom")
    with map_wasmtime_errors(Ending()):
        raise error
    assert error.__traceback__ is None
