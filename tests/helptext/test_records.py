"""The help-text records' ``NamedTuple`` (``toolbay.helptext.records``) makes at run time what
``typing.NamedTuple`` makes: the parser's records, their cache round trip and their tests rely on it."""

from __future__ import annotations

import pickle
import typing

import pytest

from toolbay.helptext import records


class Light(records.NamedTuple):
    """A record."""

    name: str
    sizes: tuple[int, ...] = ()
    note: str | None = None

    def described(self) -> str:
        return f"{self.name}: {self.note or '-'}"

    @classmethod
    def named(cls, name: str) -> Light:
        return cls(name)


# The same body as Light's, deliberately: what typing makes of it is the truth to compare with.
class Typed(typing.NamedTuple):
    """A record."""

    name: str
    sizes: tuple[int, ...] = ()
    note: str | None = None

    def described(self) -> str:
        return f"{self.name}: {self.note or '-'}"

    @classmethod
    def named(cls, name: str) -> Typed:
        return cls(name)


def test_the_record_has_typings_fields_defaults_and_members() -> None:
    assert Light._fields == Typed._fields
    assert Light._field_defaults == Typed._field_defaults
    assert Light.__doc__ == Typed.__doc__
    assert (Light.__module__, Light.__qualname__) == (__name__, "Light")
    assert list(Light.__annotations__) == list(Typed.__annotations__)  # typing's hold ForwardRefs
    light, typed = Light("a", (1, 2)), Typed("a", (1, 2))
    assert tuple(light) == tuple(typed) and repr(light).replace("Light", "Typed") == repr(typed)
    assert light.described() == typed.described() == "a: -"
    assert Light.named("b") == ("b", (), None) and isinstance(Light.named("b"), Light)
    assert light._replace(note="n")._asdict() == typed._replace(note="n")._asdict()
    assert pickle.loads(pickle.dumps(light)) == light
    with pytest.raises(AttributeError):
        light.name = "b"
    with pytest.raises(TypeError):
        Light()


def test_it_is_only_a_base() -> None:
    with pytest.raises(TypeError, match="only a base class"):
        records.NamedTuple("X", [("a", int)])
