"""Messages from the outside attack run that once gave tracebacks: each must get a JSON-RPC error."""

from __future__ import annotations

HOSTILE_MESSAGES = {
    "100,000 nested arrays": "[" * 100_000 + "]" * 100_000,
    "5,000 nested objects in arguments": '{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": '
    '"hashsum", "arguments": {"text": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}}}",
    "a lone surrogate": '{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "hashsum", '
    '"arguments": {"text": "\\ud800"}}}',
}
