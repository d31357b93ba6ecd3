"""Raw help bytes to clean text: which encoding, and what a terminal would have shown.

Order matters: a BOM is the author's own word, strict UTF-8 is right for nearly
every modern tool (and legacy encodings almost never validate as UTF-8 by
accident), and only then is chardet asked to guess.
"""

from __future__ import annotations

import codecs

from toolbay.control_chars import C1_STRINGS, TERMINAL_CODES

from .kept import compiled
from .records import NamedTuple

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# chardet reads this much at most: enough to be sure, and a 1 MB text stays fast.
_DETECT_SAMPLE = 64 * 1024

_ANSI = compiled(TERMINAL_CODES)  # a terminal's escape sequences (toolbay.control_chars)
# In text read as Unicode, their C1 forms too, and any C1 control left: a terminal may act on them
# (U+008D moves the cursor up a line), and they reached the JSON raw. Text decoded from a code page
# keeps them, see ``C1_STRINGS``.
_ANSI_AND_C1 = compiled(TERMINAL_CODES + "|" + C1_STRINGS)
_C1_CONTROL = compiled(r"[\x80-\x9f]")
# man-style overstrike: "_\bX" (underline) and "X\bX" (bold) show as X.
_OVERSTRIKE = compiled(r".\x08")
_CONTROL = compiled(r"[\x00-\x08\x0b-\x1f\x7f]")


class DecodedText(NamedTuple):
    text: str
    encoding: str
    had_errors: bool


def decode_help(data: bytes) -> DecodedText:
    raw, encoding, had_errors = _to_str(data)
    return DecodedText(clean_terminal_text(raw, unicode=encoding.startswith("utf")), encoding, had_errors)


def _to_str(data: bytes) -> tuple[str, str, bool]:
    for bom, name in _BOMS:
        if data.startswith(bom):
            body = data[len(bom):]
            text = body.decode(name, errors="replace")
            return text, name, "\ufffd" in text and b"\xef\xbf\xbd" not in body
    escaped = _escape_sequence_encoding(data)
    if escaped is not None:
        text = data.decode(escaped, errors="replace")
        return text, escaped, "\ufffd" in text
    wide = _wide_without_bom(data)
    if wide is not None:
        text = data.decode(wide, errors="replace")
        return text, wide, "\ufffd" in text
    try:
        return data.decode("utf-8"), "utf-8", False
    except UnicodeDecodeError:
        pass
    import chardet  # here: most help is UTF-8, and importing chardet is most of parse-help's start

    guess = chardet.detect(data[:_DETECT_SAMPLE])
    codec = _python_codec(guess.get("encoding"))
    if codec is None:
        return data.decode("utf-8", errors="replace"), "utf-8", True
    text = data.decode(_WIDER.get(codec, codec), errors="replace")
    return text, codec, "\ufffd" in text


# Of a sample's code units, the share that must have their zero bytes where UTF-16 or UTF-32
# puts them for mostly-Latin text: ASCII written in UTF-16 LE is valid UTF-8 byte for byte (its
# NULs included), so it was read, and said, as UTF-8.
_WIDE_SHARE = 0.9
_WIDE_FORMS = (("utf-32-le", 4, (1, 2, 3)), ("utf-32-be", 4, (0, 1, 2)), ("utf-16-le", 2, (1,)), ("utf-16-be", 2, (0,)))


def _wide_without_bom(data: bytes) -> str | None:
    """UTF-16 or UTF-32 without a byte order mark, told by where the zero bytes of mostly-Latin
    text are; None for any other text (text in UTF-8 has no zero bytes)."""
    sample = data[:_DETECT_SAMPLE]
    if b"\0" not in sample:
        return None
    for codec, width, zeros in _WIDE_FORMS:
        units = [sample[start:start + width] for start in range(0, len(sample) - width + 1, width)]
        if len(units) < 2:
            continue
        fitting = sum(1 for unit in units if all(unit[place] == 0 for place in zeros)
                      and any(unit[place] != 0 for place in range(width) if place not in zeros))
        if fitting >= _WIDE_SHARE * len(units) and _decodes_as(data, codec):
            return codec
    return None


def _decodes_as(data: bytes, codec: str) -> bool:
    try:
        data.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


# 7-bit encodings that switch character sets with escape sequences: valid UTF-8 byte for byte,
# so they must be recognised before UTF-8 is tried. Terminal colours ("ESC [") are not among them.
_SHIFT_IN = (
    ((b"\x1b$)C",), "iso2022_kr"),
    ((b"\x1b$A", b"\x1b$)A", b"\x1b$)G", b"\x1b$*H"), "iso2022_jp_2"),  # Chinese designations
    ((b"\x1b$B", b"\x1b$@", b"\x1b(J", b"\x1b$(D", b"\x1b(I"), "iso2022_jp_2"),
)


def _escape_sequence_encoding(data: bytes) -> str | None:
    if b"\x1b$" not in data and b"\x1b(J" not in data and b"\x1b(I" not in data:
        return None
    if any(byte >= 0x80 for byte in data[:_DETECT_SAMPLE]):
        return None
    for marks, codec in _SHIFT_IN:
        if any(mark in data for mark in marks) and _decodes_as(data, codec):
            return codec
    return None


# chardet names the narrow standard; tools emit its vendor superset (Windows code pages),
# which decodes everything the narrow one does and more.
_WIDER = {"gb2312": "gb18030", "gbk": "gb18030", "euc_kr": "cp949", "shift_jis": "cp932",
          "euc_jp": "euc_jis_2004", "big5": "big5hkscs"}


def _python_codec(label: str | None) -> str | None:
    if not label:
        return None
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def clean_terminal_text(text: str, *, unicode: bool) -> str:
    """``text`` as a terminal would have shown it; C1 controls are taken for controls only when
    it was read as ``unicode`` (UTF-8, -16, -32), not decoded from a code page."""
    if unicode and _C1_CONTROL.search(text):
        text = _C1_CONTROL.sub("", _ANSI_AND_C1.sub("", text))
    elif "\x1b" in text or "\x9b" in text:
        text = _ANSI.sub("", text)
    if "\x08" in text:
        text = _OVERSTRIKE.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\t" in text:
        text = "\n".join(line.expandtabs(8) for line in text.split("\n"))
    text = _CONTROL.sub("", text)
    # Non-breaking spaces would defeat column detection.
    text = text.replace("\u00a0", " ").replace("\ufeff", "")
    return "\n".join(line.rstrip() for line in text.split("\n"))
