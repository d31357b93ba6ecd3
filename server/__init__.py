"""toolbay: an MCP server that turns WebAssembly command-line programs and Python modules into tools for AI models.

The package is laid out in layers, each importing only from its own layer or below (checked by
``tests/test_layers.py``); ``toolbay.hooks`` lists every place the app can be extended.
"""

__version__ = "0.1.0"
