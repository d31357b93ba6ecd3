"""The functions ``dataclasses`` writes, compiled once per installation
(``toolbay.internals.dataclass_code``): these fail when ``dataclasses`` stops compiling them
through ``exec`` of their text, or when a class made from kept code behaves otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Classes of each kind dataclasses writes functions for, made after the code is kept; prints how
# many texts were compiled afresh and what the classes do.
MAKE_CLASSES = """
import json
from toolbay.internals.dataclass_code import keep_compiled_code
kept = keep_compiled_code()
import dataclasses
from dataclasses import dataclass, field

@dataclass(frozen=True, slots=True, order=True)
class Point:
    x: int
    y: int = 2
    tags: tuple[str, ...] = ()

@dataclass
class Bag:
    items: list[int] = field(default_factory=list)
    name: str = "bag"

    def __post_init__(self) -> None:
        self.name = self.name.upper()

try:
    Point(1).x = 3
    frozen = "assigned"
except dataclasses.FrozenInstanceError:
    frozen = "refused"
print(json.dumps([kept.compiled_afresh, repr(Point(1)), Point(1) == Point(1, 2), Point(1) < Point(2),
                  hash(Point(1)) == hash(Point(1, 2)), frozen, repr(Bag()), Bag().items is not Bag().items,
                  Point.__init__.__qualname__, Point.__init__.__code__.co_filename]))
"""


def test_a_second_process_compiles_no_dataclass_function_and_its_classes_behave_alike(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "bytecode")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    runs = []
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", MAKE_CLASSES], capture_output=True, text=True, env=env, timeout=120)
        assert run.returncode == 0, run.stderr
        runs.append(json.loads(run.stdout))
    (first_compiled, *first), (then_compiled, *then) = runs
    assert first_compiled > 5 and then_compiled == 0  # dataclasses compiled its texts through exec
    assert then == first == ["Point(x=1, y=2, tags=())", True, True, True, "refused", "Bag(items=[], name='BAG')", True,
                             "Point.__init__", "<string>"]

