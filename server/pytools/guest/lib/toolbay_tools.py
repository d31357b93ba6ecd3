"""Helpers for toolbay Python tool modules: ``from toolbay_tools import get_credential``.

This module exists inside toolbay's tool workers only. A module that should also run outside
toolbay can fall back: ``try: from toolbay_tools import get_credential`` / ``except ImportError``.
"""

from __future__ import annotations

from collections.abc import Callable


class CredentialError(RuntimeError):
    """A credential the tool asked for is not configured, or not granted to this tool."""


# Set by the worker: asks the server for one credential of the tool being called.
_ask: Callable[[str, str, str | None], tuple[str | None, str]] | None = None


def get_credential(name: str, key: str = "api_key", env_var: str | None = None) -> str:
    """The secret ``key`` of credential ``name`` granted to the tool being called.

    The server looks in its configuration (``[credentials.NAME]``), then its credentials file,
    then its environment (``env_var``, else ``NAME_KEY`` in capitals). Raises ``CredentialError``
    naming what to set when none has it, or when the credential is not granted to this tool.
    """
    if _ask is None:
        raise CredentialError("get_credential works only inside a toolbay tool call")
    value, problem = _ask(name, key, env_var)
    if value is None:
        raise CredentialError(problem)
    return value
