"""Reading a help's words where no bracket is open: "[-a | -b]", "<A B>", "{a,b}", "(x)" are whole."""

from __future__ import annotations

from collections.abc import Iterator

OPENING = "<[{("
CLOSING = ">]})"


def outside_brackets(text: str) -> Iterator[tuple[int, str]]:
    """Each character of ``text`` that stands where no bracket is open, with its index. A
    closing bracket with none open is taken as it comes (help texts are not always balanced)."""
    depth = 0
    for index, ch in enumerate(text):
        if ch in OPENING:
            depth += 1
        elif ch in CLOSING:
            depth = max(0, depth - 1)
        elif depth == 0:
            yield index, ch
