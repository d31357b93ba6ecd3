"""Every place toolbay reaches past a library's public API, one module per library.

Each exists because the library offers no public way to do what toolbay needs (said in the
module), and each has tests in ``tests/internals/`` that fail when the library changes under
it, so an upgrade has one place to look:

- ``mcp_sdk``: the streamable HTTP transport class the session manager builds; a per-message
  session's connection.
- ``pydantic_models``: building a model instance without validation, slot by slot; models
  built when first used (the default every model's settings fall back to).
- ``wasmtime_capi``: wasmtime's C API where the Python binding stops (standard input from
  bytes, an epoch-deadline callback, one export by name).
- ``sre_code``: the code ``re``'s compiler makes, kept between runs for the help-text parser, for
  the patterns a server compiles as it starts (``toolbay.kept_patterns``), and for those written in
  the bodies of the libraries' modules and classes (``keep_literal_patterns``: a ``re.compile`` of its own).
- ``dataclass_code``: the functions ``dataclasses`` writes for each class, compiled once per
  installation (an ``exec`` of the ``dataclasses`` module's own).
- ``pydantic_plugins``: pydantic's plugin module, one that finds none where no package declares
  a plugin (without ``importlib.metadata``).
"""
