"""Help text in, tool description out: decoding, dialect parsing, schema and argv.

Bytes only come in and plain data goes out: this package imports neither MCP nor
wasmtime, so it is tested on captured texts alone.
"""

from __future__ import annotations

from .describe import describe_help
from .model import HelpDescription, OptionSpec, PositionalSpec, SubcommandSpec
from .schema import ToolSchema, build_tool_schema
from .tree import DescribedCommand, DescribedTree, HelpRun, SkippedCommand, describe_tree

__all__ = [
    "DescribedCommand", "DescribedTree", "HelpDescription", "HelpRun", "OptionSpec", "PositionalSpec",
    "SkippedCommand", "SubcommandSpec", "ToolSchema", "build_tool_schema", "describe_help", "describe_tree",
]
