"""Truth for an absl program, from absl's own flag objects (``TOOLBAY_TRUTH=1``).

The program calls ``dump_if_asked(FLAGS, everything)`` before ``app.run``: with
``TOOLBAY_TRUTH=1`` it prints the flags its ``--help`` lists (those its main module defines)
or, with ``everything``, those ``--helpfull`` lists (every module's), as the corpus's
``truth.json`` holds them, and exits. absl defines no positionals: the program takes what is
left of argv itself, so the truth has none to give.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from absl import app, flags
from absl.flags import _helpers


def _item(flag: flags.Flag) -> dict[str, Any]:
    names = [f"--{flag.name}"]
    if flag.short_name:
        names.insert(0, f"-{flag.short_name}")
    parser = flag.parser
    choices = list(getattr(parser, "enum_values", None) or getattr(getattr(parser, "_parser", None),
                                                                  "enum_values", None) or [])
    if flag.boolean:
        names.append(f"--no{flag.name}")
        return {"names": names, "takes_value": False, "required": False, "choices": [], "repeatable": False,
                "type": "boolean", "default": None}
    base = getattr(parser, "_parser", parser)  # a multi flag parses each value with its item's parser
    kind = {"IntegerParser": "integer", "FloatParser": "number"}.get(type(base).__name__, "string")
    multi = isinstance(flag, flags.MultiFlag)
    default = None if multi or flag.default in (None, "", []) else flag.default
    if isinstance(default, list):
        default = ",".join(map(str, default))
    return {"names": names, "takes_value": True, "required": False, "choices": choices, "repeatable": multi,
            "type": kind, "default": None if default is None else str(default)}


def dump_if_asked(values: flags.FlagValues, everything: bool = False) -> None:
    if not os.environ.get("TOOLBAY_TRUTH"):
        return
    main = sys.argv[0]
    if everything:
        app.define_help_flags()  # app.run defines them, as --helpfull lists them
        # --flagfile and --undefok live apart from every module's flags: absl's own help
        # reads them from there too (FlagValues.get_help).
        found = [values[name] for name in values] + [_helpers.SPECIAL_FLAGS[name] for name in _helpers.SPECIAL_FLAGS]
    else:
        found = list(values.flags_by_module_dict().get(main, []))
    seen: dict[str, flags.Flag] = {}
    for flag in found:
        seen.setdefault(flag.name, flag)
    truth = {"source": f"absl flag definitions of `{os.path.basename(main)}`",
             "options": [_item(flag) for _, flag in sorted(seen.items())]}
    # One option a line, as the corpus's other truth files are written.
    items = ",\n".join(f"  {json.dumps(item)}" for item in truth["options"])
    print(f'{{\n "source": {json.dumps(truth["source"])},\n "options": [\n{items}\n ]\n}}')
    sys.exit(0)
