"""The version a program says it is when asked ``--version``.

Programs print it in their own words on the first line: "rg 14.1.0", "jq-1.7.1",
"git version 2.39.2", "go version go1.19.8", "textkit 0.4.0 (wasm32-wasi)", "v20.11.1". The first dotted
number on the first non-empty line is the version; a first line without one (a
banner, a copyright) says none.
"""

from __future__ import annotations

from .kept import compiled
from .model import HelpDescription

_VERSION = compiled(r"(?<![\d.])v?(\d+(?:\.\d+)+(?:[-+~][0-9A-Za-z.+~-]*[0-9A-Za-z])?)(?![\w.]*\w)")
_FIRST_LINE_MAX = 200  # longer is prose, not a version line


def version_in(output: str) -> str | None:
    """The version named on the first line of ``output``, or None."""
    first = next((line.strip() for line in output.splitlines() if line.strip()), "")
    if len(first) > _FIRST_LINE_MAX:
        return None
    found = _VERSION.search(first)
    return found.group(1) if found else None


def version_flag(description: HelpDescription) -> str | None:
    """The flag that prints the version, if the program lists one that takes no value."""
    return next((o.long for o in description.options
                 if o.long in ("--version", "-version") and not o.takes_value), None)
