"""Resizes images to fit a box: a Python Fire program whose help and parsing are Fire's own.

With ``TOOLBAY_TRUTH=1`` it prints its truth instead, from the function Fire serves: its
signature (each keyword's default, and its annotation where it has one), not from its help.
"""

from __future__ import annotations

import inspect
import json
import os
import sys

import fire


def resize(*inputs, output="out.png", width=640, scale=1.0, verbose=False, retries: int = 3):
    """Resizes images to fit a box.

    Args:
      inputs: Images to resize.
      output: Where to write the image.
      width: Width of the box in pixels.
      scale: Scale factor.
      verbose: Say what is done.
      retries: Attempts before giving up.
    """
    return f"output={output} width={width} scale={scale} verbose={verbose} retries={retries} inputs={list(inputs)}"


def _truth() -> dict[str, object]:
    kinds = {bool: "boolean", int: "integer", float: "number", str: "string"}
    options, positionals = [], []
    for name, parameter in inspect.signature(resize).parameters.items():
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            positionals.append({"name": name.upper(), "required": False, "variadic": True, "choices": []})
            continue
        kind = kinds[type(parameter.default)]
        switch = kind == "boolean"
        options.append({"names": [f"-{name[0]}", f"--{name}", *([f"--no{name}"] if switch else [])],
                        "takes_value": not switch, "required": False, "choices": [], "repeatable": False,
                        "type": kind, "default": None if switch else str(parameter.default)})
    return {"source": "the signature of resize() in tests/helptext/truth_programs/fire/resize.py, which Fire serves",
            "options": options, "positionals": positionals}


if __name__ == "__main__":
    if os.environ.get("TOOLBAY_TRUTH"):
        truth = _truth()
        items = ",\n".join(f"  {json.dumps(item)}" for item in truth["options"])  # type: ignore[union-attr]
        sys.stdout.write(f'{{\n "source": {json.dumps(truth["source"])},\n "options": [\n{items}\n ],\n'
                         f' "positionals": {json.dumps(truth["positionals"])}\n}}\n')
        sys.exit(0)
    fire.Fire(resize)
