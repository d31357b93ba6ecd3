"""pydantic's plugin look-up skipped where no package declares a plugin
(``toolbay.internals.pydantic_plugins``): these fail when pydantic stops finding its plugins
through ``pydantic.plugin._loader.get_plugins``, or when a declared plugin is no longer used."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pydantic.plugin._schema_validator as schema_validator

# A model validated after the finder is in place, in a process of its own; prints whether
# importlib.metadata was loaded and what the plugin (if any) saw.
VALIDATE_A_MODEL = """
import sys
from toolbay.internals.pydantic_plugins import find_no_plugins_where_none_is_declared
find_no_plugins_where_none_is_declared()
from pydantic import BaseModel

class Point(BaseModel):
    x: int

assert Point.model_validate({"x": "3"}).x == 3
import json
seen = sys.modules.get("seen_by_plugin")
print(json.dumps(["importlib.metadata" in sys.modules, sorted(seen.SEEN) if seen else None]))
"""

PLUGIN = """
SEEN = set()

class Plugin:
    def new_schema_validator(self, schema, schema_type, schema_type_path, schema_kind, config, plugin_settings):
        SEEN.add(schema_type_path.name)
        return None, None, None

plugin = Plugin()
"""


def _validated(extra_path: Path | None = None) -> list[object]:
    import json

    env = {**os.environ}
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(extra_path), env.get("PYTHONPATH")]))
    completed = subprocess.run([sys.executable, "-c", VALIDATE_A_MODEL], capture_output=True, text=True, env=env,
                               timeout=120)
    assert completed.returncode == 0, completed.stderr
    found: list[object] = json.loads(completed.stdout)
    return found


def test_without_a_declared_plugin_no_package_metadata_is_read_and_a_declared_one_is_still_used(
        tmp_path: Path) -> None:
    # Fails if pydantic stops asking ``_loader.get_plugins`` for its plugins (the module the finder gives).
    assert "from ._loader import get_plugins" in inspect.getsource(schema_validator.create_schema_validator)
    assert _validated() == [False, None]

    (tmp_path / "seen_by_plugin.py").write_text(PLUGIN)
    metadata = tmp_path / "seen_by_plugin-1.0.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text("Metadata-Version: 2.1\nName: seen-by-plugin\nVersion: 1.0\n")
    (metadata / "entry_points.txt").write_text("[pydantic]\nseen = seen_by_plugin:plugin\n")
    assert _validated(tmp_path) == [True, ["Point"]]
