"""CMake's own help (cmake, ctest, cpack), described and called through the schema's argv.

CMake's parser is the truth: every log level the schema offers is taken (and one it does not
is refused), a value written ``=<...>`` goes joined to its flag, an optional file after a
space goes as the next word, and ctest takes its optional ``=format``. Skipped where CMake is
not installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from toolbay.helptext import build_tool_schema, describe_help

REFUSED = "Invalid level specified for --log-level"


def _program(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"CMake's {name} is not installed here")
    return found


def _schema(program: str) -> Any:
    described = describe_help(subprocess.run([program, "--help"], capture_output=True, timeout=60, check=False).stdout)
    assert described.dialect == "cmake"
    return build_tool_schema(described)


def test_cmake_takes_every_log_level_its_schema_offers_and_a_file_after_a_space(tmp_path: Path) -> None:
    cmake = _program("cmake")
    schema = _schema(cmake)
    properties = schema.input_schema["properties"]
    levels = properties["log_level"]["enum"]
    assert {"ERROR", "STATUS", "DEBUG", "TRACE"} <= set(levels)
    assert properties["Werror"]["enum"] == ["dev", "deprecated"]
    assert not any(name.startswith("=") or "<" in name for name in properties)
    assert not any(prop.get("description", "").startswith("=") for prop in properties.values())
    script = tmp_path / "level.cmake"
    script.write_text('message(STATUS "level check")\n')
    for level in levels:
        argv = schema.to_argv({"log_level": level, "P": str(script), "path_to_source": str(tmp_path)})
        done = subprocess.run([cmake, *argv], capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0 and REFUSED not in done.stderr, (argv, done.stderr)
    refused = subprocess.run([cmake, "--log-level=LOUD", "-P", str(script)], capture_output=True, text=True,
                             timeout=60, check=False)
    assert REFUSED in refused.stderr
    listed = tmp_path / "commands.txt"
    argv = schema.to_argv({"help_command_list": str(listed), "path_to_source": str(tmp_path)})
    subprocess.run([cmake, *argv], capture_output=True, timeout=60, check=True)
    assert "add_executable" in listed.read_text()


def test_ctest_takes_its_optional_format_and_cpack_its_values(tmp_path: Path) -> None:
    ctest = _program("ctest")
    schema = _schema(ctest)
    argv = schema.to_argv({"show_only": "json-v1", "test_dir": str(tmp_path)})
    done = subprocess.run([ctest, *argv], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout)["kind"] == "ctestInfo"
    assert schema.input_schema["properties"]["no_tests"]["enum"] == ["error", "ignore"]
    cpack = _schema(_program("cpack"))
    options = {param.name for param in cpack.params}
    assert {"G", "C", "D", "config", "verbose", "vendor", "help_command"} <= options
