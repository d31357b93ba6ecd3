"""Messages from the outside attack run that once gave tracebacks: each must get a JSON-RPC error."""

from __future__ import annotations

HOSTILE_MESSAGES = {
    "100,000 nested arrays": "[" * 100_000 + "]" * 100_000,
    "5,000 nested objects in arguments": '{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": '
    '"hashsum", "arguments": {"text": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}}}",
    # Deeper than pydantic's parser (the SDK's) takes, not than Python's: the HTTP quick lane,
    # parsing with Python's, ran such a call, whose audit line then failed.
    "500 nested arrays in arguments": '{"jsonrpc": "2.0", "id": 14, "method": "tools/call", "params": {"name": '
    '"hashsum", "arguments": {"zz": ' + "[" * 500 + "]" * 500 + "}}}",
    "a lone surrogate": '{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "hashsum", '
    '"arguments": {"text": "\\ud800"}}}',
    # Longer than either JSON reader takes: refused with a null id, its sender waited for its own.
    "an integer of 5,000 digits": '{"jsonrpc": "2.0", "id": 15, "method": "tools/call", "params": {"name": '
    '"hashsum", "arguments": {"text": "a", "n": ' + "9" * 5000 + "}}}",
}
