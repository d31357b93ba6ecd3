"""Anything else: the shared reading alone, which finds "-x, --long <V>" lines wherever they are."""

from __future__ import annotations

from .base import Dialect


class Generic(Dialect):
    name = "generic"

    def detect(self, text: str) -> float:
        return 0.1
