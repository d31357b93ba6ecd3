"""toolbay's own lines in a help text: ``Keywords:``, ``PermissionLevel:``, ``Execution:``.

They are read (and taken out of the text) before any dialect sees it, so no dialect
mistakes them for a heading or for prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolbay.words import PermissionTier

_KEYWORDS = re.compile(r"^[ \t]*keywords?[ \t]*:[ \t]*(\S.*)$", re.IGNORECASE | re.MULTILINE)
_PERMISSION = re.compile(r"^[ \t]*permission[ _-]?(?:level|tier)?[ \t]*:[ \t]*(\S+)[ \t]*$",
                         re.IGNORECASE | re.MULTILINE)
_EXECUTION = re.compile(r"^[ \t]*execution[ \t]*:[ \t]*(\S+)[ \t]*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Conventions:
    keywords: tuple[str, ...] = ()
    permission_level: str | None = None
    background: bool = False


def take_conventions(text: str) -> tuple[str, Conventions]:
    """Returns the text without the convention lines, and what they said."""
    keywords: list[str] = []
    for match in _KEYWORDS.finditer(text):
        for word in re.split(r"[,\s]+", match.group(1)):
            word = word.strip().strip(".;")
            if word and word.lower() not in (k.lower() for k in keywords):
                keywords.append(word)
    permission = None
    for match in _PERMISSION.finditer(text):
        tier = PermissionTier.parse(match.group(1).strip(".;"))
        if tier is not None:
            permission = tier.value
    background = any(m.group(1).strip(".;").lower() in ("background", "long", "long-running", "async")
                     for m in _EXECUTION.finditer(text))
    for pattern in (_KEYWORDS, _PERMISSION, _EXECUTION):
        text = pattern.sub("", text)
    return text, Conventions(tuple(keywords), permission, background)
