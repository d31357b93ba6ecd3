"""Scopes that built-in tools check besides the tier's (``toolbay.handlers.authoring``): named
here, below both the tools that check them and the chain that knows every scope's name."""

from __future__ import annotations

CREATE_SCOPE = "tools:create"
SHARE_SCOPE = "tools:share"
AUTHORING_SCOPES = (CREATE_SCOPE, SHARE_SCOPE)
