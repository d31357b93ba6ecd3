"""A value as Python prints it ("'out.png'", "640", "1.5", "True", "None"), read back safely.

absl and Fire print defaults with ``repr``. ``ast.literal_eval`` would read that, and anything
else Python could parse, with warnings of its own for what its tokenizer finds odd (a help
that shows "'\\d'" with one backslash). Only the plain forms a default takes are read here: a
quoted string (its escapes of backslash and quotes undone), a number, True, False, None.
"""

from __future__ import annotations

from .kept import compiled

_QUOTED = compiled(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")
_ESCAPE = compiled(r"\\([\\'\"])")
_INTEGER = compiled(r"[-+]?\d+")
_NUMBER = compiled(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_WORDS: dict[str, bool | None] = {"True": True, "False": False, "None": None}
NOT_A_LITERAL = object()


def python_literal(text: str) -> object:
    """The value ``text`` spells, or ``NOT_A_LITERAL``."""
    text = text.strip()
    quoted = _QUOTED.fullmatch(text)
    if quoted:
        inner = quoted[1] if quoted[1] is not None else quoted[2]
        return _ESCAPE.sub(r"\1", inner)
    if text in _WORDS:
        return _WORDS[text]
    if _INTEGER.fullmatch(text):
        return int(text)
    if _NUMBER.fullmatch(text):
        return float(text)
    return NOT_A_LITERAL
