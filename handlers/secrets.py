"""Results with the credentials a tool was given blotted out: a tool may use its secrets,
never show them (to the model, the audit file or a job's stored result)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from toolbay.words import ToolResult

REDACTED = "[credential redacted]"


def without_secrets(result: ToolResult, secrets: Iterable[str]) -> ToolResult:
    """``result`` with every secret the tool was given during the call blotted out: a tool may
    use its credentials, never show them. Found as written and as JSON writes them (a text
    result that is a JSON document escapes quotes, backslashes and, in ASCII, every other
    letter), in the text and in every string of the structured content and the metadata."""
    # Shorter values would blot out ordinary words.
    candidates = {secret for secret in secrets if len(secret) >= 4}
    forms = sorted({form for secret in candidates for form in (
        secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1])}, key=len, reverse=True)
    if not forms:
        return result

    def scrub(text: str) -> str:
        for form in forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text

    def scrub_all(value: Any) -> Any:
        if isinstance(value, str):
            return scrub(value)
        if isinstance(value, dict):
            return {scrub_all(key): scrub_all(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [scrub_all(item) for item in value]
        return value

    text, structured, meta = scrub(result.text), scrub_all(result.structured), scrub_all(result.meta)
    if text == result.text and structured == result.structured and meta == result.meta:
        return result
    return ToolResult(text=text, structured=structured, is_error=result.is_error, meta=meta)
