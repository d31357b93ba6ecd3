"""Results with the credentials a tool was given blotted out: a tool may use its secrets,
never show them (to the model, the audit file or a job's stored result)."""

from __future__ import annotations

from collections.abc import Iterable

from toolbay.blotting import blot, map_strings, written_forms
from toolbay.words import ToolResult


def without_secrets(result: ToolResult, secrets: Iterable[str]) -> ToolResult:
    """``result`` with every secret the tool was given during the call blotted out: a tool may
    use its credentials, never show them. Found as written and as JSON writes them, in the
    text and in every string (keys too) of the structured content and the metadata."""
    forms = written_forms(secrets)
    if not forms:
        return result

    def scrub(text: str) -> str:
        return blot(text, forms)

    text = scrub(result.text)
    structured, meta = map_strings(result.structured, scrub, keys=True), map_strings(result.meta, scrub, keys=True)
    if text == result.text and structured == result.structured and meta == result.meta:
        return result
    return ToolResult(text=text, structured=structured, is_error=result.is_error, meta=meta)
