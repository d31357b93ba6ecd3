"""Prints a program's options as its own parser defines them, as JSON, for checking the corpus.

    python truth.py argparse <module>        # runs the module, catching its ArgumentParser
    python truth.py click <module>:<attr>    # reads a click command's params

Run it with the interpreter the program is installed in. Output: a list of
{"names", "takes_value", "required", "choices"}.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import runpy
import sys


class _Caught(Exception):
    pass


def argparse_truth(module: str) -> list[dict[str, object]]:
    caught: list[argparse.ArgumentParser] = []

    def capture(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> object:
        caught.append(self)
        raise _Caught

    argparse.ArgumentParser.parse_args = capture  # type: ignore[method-assign]
    argparse.ArgumentParser.parse_known_args = capture  # type: ignore[method-assign]
    sys.argv = [module]
    with contextlib.suppress(_Caught, SystemExit):
        runpy.run_module(module, run_name="__main__")
    out = []
    for action in caught[0]._actions if caught else []:
        if not action.option_strings:
            continue
        out.append({
            "names": list(action.option_strings),
            "takes_value": action.nargs != 0,
            "required": bool(action.required),
            "choices": [str(c) for c in action.choices] if action.choices else [],
        })
    return out


def click_truth(target: str) -> list[dict[str, object]]:
    module, attr = target.split(":")
    command = getattr(importlib.import_module(module), attr)
    out = []
    for param in command.params:
        if getattr(param, "param_type_name", "") != "option":
            continue
        choices = list(getattr(param.type, "choices", []) or [])
        out.append({
            "names": list(param.opts) + list(param.secondary_opts),
            "takes_value": not param.is_flag and not param.count,
            "required": bool(param.required),
            "choices": [str(getattr(c, "value", c)) for c in choices],
        })
    return out


if __name__ == "__main__":
    kind, target = sys.argv[1], sys.argv[2]
    print(json.dumps(argparse_truth(target) if kind == "argparse" else click_truth(target)))
