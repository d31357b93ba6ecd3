"""Help text in, tool description out: decoding, dialect parsing, schema and argv.

Bytes only come in and plain data goes out: this package imports neither MCP nor
wasmtime, so it is tested on captured texts alone.
"""

from __future__ import annotations

from .model import HelpDescription, OptionSpec, PositionalSpec, SubcommandSpec
from .records import TYPE_CHECKING
from .schema import ToolSchema, build_tool_schema

if TYPE_CHECKING:
    from .describe import describe_help
    from .tree import DescribedCommand, DescribedTree, HelpRun, SkippedCommand, describe_tree

# The most of a program's help that is read: the server keeps this much of a ``--help`` run's
# output, and ``toolbay parse-help`` this much of a file. A parse of 1 MiB of options takes
# seconds; 11 MB took half a minute and a gigabyte.
HELP_BYTES_READ = 1 << 20

# Loaded on first use (PEP 562), not with every import of the package: ``toolbay parse-help``
# describes one text and never needs the command tree, and a server whose descriptions are all
# cached, or a call that builds argv from one, needs neither the tree nor the parser (its
# dialects and their ~120 patterns), only the model and the schema.
_FROM_TREE = frozenset({"DescribedCommand", "DescribedTree", "HelpRun", "SkippedCommand", "describe_tree"})


def __getattr__(name: str) -> object:
    if name in _FROM_TREE:
        from . import tree

        return getattr(tree, name)
    if name == "describe_help":
        from .describe import describe_help

        return describe_help
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "HELP_BYTES_READ",
    "DescribedCommand",
    "DescribedTree",
    "HelpDescription",
    "HelpRun",
    "OptionSpec",
    "PositionalSpec",
    "SkippedCommand",
    "SubcommandSpec",
    "ToolSchema",
    "build_tool_schema",
    "describe_help",
    "describe_tree",
]
