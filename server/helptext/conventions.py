"""toolbay's own lines in a help text: ``Keywords:``, ``PermissionLevel:``, ``Execution:``.

They are read (and taken out of the text) before any dialect sees it, so no dialect
mistakes them for a heading or for prose.
"""

from __future__ import annotations

import re

from .kept import compiled
from .records import NamedTuple

_KEYWORDS = compiled(r"^[ \t]*keywords?[ \t]*:[ \t]*(\S.*)$", re.IGNORECASE | re.MULTILINE)
_PERMISSION = compiled(r"^[ \t]*permission[ _-]?(?:level|tier)?[ \t]*:[ \t]*(\S+)[ \t]*$",
                         re.IGNORECASE | re.MULTILINE)
_EXECUTION = compiled(r"^[ \t]*execution[ \t]*:[ \t]*(\S+)[ \t]*$", re.IGNORECASE | re.MULTILINE)
# clap joins the lines of a doc comment, so the convention lines may arrive inside one line of
# prose: "Text tools. Keywords: text, grep PermissionLevel: read". Mid-line, only the exact
# spellings count; a keyword list then ends at the next convention word or sentence end.
# The value is read a word at a time (spaces, then a character that is not one): the end of it
# is then looked for after each word, not at each space of a long run of them (quadratic).
_JOINED = compiled(r"(?<=\S)[ \t]+(Keywords|PermissionLevel|Execution):[ \t]*"
                     r"((?:[ \t]*[^ \t\n])*?)(?=[ \t]+(?:Keywords|PermissionLevel|Execution):|[ \t]*$)",
                     re.MULTILINE)
_TIERS = compiled(r"(?i)^(read|write|exec|execute|admin)\b\.?")


# ``Execution:`` values that make every call a job, and those that say it runs inline as any does.
_BACKGROUND = ("background", "long", "long-running", "async")
_INLINE = ("inline", "foreground", "sync", "synchronous")


class Conventions(NamedTuple):
    keywords: tuple[str, ...] = ()
    permission_level: str | None = None
    background: bool = False


def _split_joined(text: str) -> str:
    """Puts joined convention words back on lines of their own."""
    if "Keywords:" not in text and "PermissionLevel:" not in text and "Execution:" not in text:
        return text

    def own_line(match: re.Match[str]) -> str:
        key, value = match.group(1), match.group(2).strip()
        if key != "Keywords":
            tier = _TIERS.match(value) if key == "PermissionLevel" else re.match(r"\S+", value)
            if tier is None:
                return match.group(0)
            rest = value[tier.end():].strip()
            return f"\n{key}: {tier.group(0).rstrip('.')}" + (f"\n{rest}" if rest else "")
        return f"\n{key}: {value}"

    return _JOINED.sub(own_line, text)


def take_conventions(text: str) -> tuple[str, Conventions]:
    """Returns the text without the convention lines, and what they said."""
    text = _split_joined(text)
    keywords: list[str] = []
    for match in _KEYWORDS.finditer(text):
        for word in re.split(r"[,\s]+", match.group(1)):
            word = word.strip().strip(".;")
            if word and word.lower() not in (k.lower() for k in keywords):
                keywords.append(word)
    permission = None
    for match in _PERMISSION.finditer(text):
        # Loaded only for a help text that declares a tier: `toolbay parse-help` runs in loops
        # over help texts, and the server's vocabulary module is a twentieth of its start.
        from toolbay.words import PermissionTier

        tier = PermissionTier.parse(match.group(1).strip(".;"))
        if tier is not None:
            permission = tier.value
    background = any(m.group(1).strip(".;").lower() in _BACKGROUND for m in _EXECUTION.finditer(text))
    for pattern in (_KEYWORDS, _PERMISSION, _EXECUTION):
        text = pattern.sub("", text)
    return text, Conventions(tuple(keywords), permission, background)


def unknown_tiers(text: str) -> list[str]:
    """The values of ``PermissionLevel:`` lines in ``text`` that name no tier ("rwx", "readonly!"):
    such a tool is served as undeclared, which its author would not guess from the help alone."""
    if "ermission" not in text:  # "Permission", "permission"
        return []
    from toolbay.words import PermissionTier

    words = (match.group(1).strip(".;") for match in _PERMISSION.finditer(_split_joined(text)))
    return list(dict.fromkeys(word for word in words if PermissionTier.parse(word) is None))


def unknown_executions(text: str) -> list[str]:
    """The values of ``Execution:`` lines in ``text`` that toolbay does not read ("backgroud"):
    such a tool's calls run inline, where its author meant them to become jobs at once."""
    if "xecution" not in text:  # "Execution", "execution"
        return []
    words = (match.group(1).strip(".;") for match in _EXECUTION.finditer(_split_joined(text)))
    return list(dict.fromkeys(word for word in words if word.lower() not in _BACKGROUND + _INLINE))
