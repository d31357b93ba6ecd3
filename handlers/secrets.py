"""Results with the credentials a tool was given blotted out: a tool may use its secrets,
never show them (to the model, the audit file or a job's stored result)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from toolbay.words import ToolResult

REDACTED = "[credential redacted]"


def without_secrets(result: ToolResult, secrets: Iterable[str]) -> ToolResult:
    """``result`` with every secret the tool was given during the call blotted out: a tool may
    use its credentials, never show them."""
    # Shorter values would blot out ordinary words.
    candidates = {secret for secret in secrets if len(secret) >= 4}
    leaked = [secret for secret in candidates if secret in result.text or secret in json.dumps(result.meta)
              or result.structured is not None and secret in json.dumps(result.structured)]
    if not leaked:
        return result

    def scrub(text: str) -> str:
        for secret in sorted(leaked, key=len, reverse=True):
            text = text.replace(secret, REDACTED)
        return text

    structured = None if result.structured is None else json.loads(scrub(json.dumps(result.structured)))
    meta = json.loads(scrub(json.dumps(result.meta)))
    return ToolResult(text=scrub(result.text), structured=structured, is_error=result.is_error, meta=meta)
