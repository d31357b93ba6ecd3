"""Text from tools and modules made safe to show on a terminal.

A tool module's names, descriptions and errors, a help text's words and a file's name reach
the server's log and the CLI's tables. Written raw, an escape sequence in them acts on the
terminal that shows them: it can set the window's title, move the cursor over earlier lines,
or hide what follows. ``shown`` writes each control character as an escape one can read
(``\\x1b``), tabs and line breaks aside, and so the characters that reorder what follows them
on the line (Unicode's bidirectional overrides and isolates, U+202A-U+202E and U+2066-U+2069):
a description holding "\\u202etxt.exe" showed as "exe.txt", the table saying other than the text.
"""

from __future__ import annotations

import re

# A terminal's escape sequences, as a pattern (each reader compiles it its own way): CSI
# (colours, cursor moves), OSC (titles, hyperlinks; ended by BEL or ST), DCS/SOS/PM/APC strings,
# any other escape with its intermediates, and C1's one-byte CSI. ST is ESC \ or its C1 form.
# Each alternative is linear: no nested repetition. Help texts and search requests are read
# without them.
TERMINAL_CODES = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)

# The strings' C1 forms (U+0090 DCS, U+0098 SOS, U+009D OSC, U+009E PM, U+009F APC, ended as
# above), with ``TERMINAL_CODES``, for text read as Unicode only: one decoded as ISO 8859 has
# U+0080-U+009F for bytes that a Windows code page's text means as letters (cp1252's "ž" is 0x9E),
# and a string is taken up to its end.
C1_STRINGS = (
    r"\x9d[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|[\x90\x98\x9e\x9f][^\x1b\x9c]*(?:\x1b\\|\x9c)?"
)

# The two patterns below are compiled at their first use (``re``'s own cache), not on import:
# ``toolbay parse-help`` imports this module for ``TERMINAL_CODES`` alone, and compiling them
# was 0.7 ms of its run.

# C0 controls but tab and line feed, DEL, the C1 controls (ESC's one-character forms), and the
# bidirectional embeddings, overrides and isolates (the marks U+200E/U+200F, which reorder
# nothing beyond themselves, are kept: right-to-left text uses them).
_CONTROL = r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"


def shown(text: str) -> str:
    """``text`` with every control character but tab and line feed written as ``\\xNN`` (a
    bidirectional override or isolate as ``\\uNNNN``)."""
    return re.sub(_CONTROL, _code, text) if re.search(_CONTROL, text) else text


def _code(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


# Every control character, line breaks included, Unicode's own line and paragraph separators,
# and the bidirectional overrides and isolates.
_BREAKING = r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"


def one_line(text: str) -> str:
    """``text`` with every control character written as an escape, line breaks and tabs too: a
    file's name or a caller's text in a log line cannot begin a line that looks like another
    record ("ok\\n09:99:99 CRITICAL ..." as a file's name)."""
    return re.sub(_BREAKING, _escape, text) if re.search(_BREAKING, text) else text


def _escape(found: re.Match[str]) -> str:
    character = found.group()
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(character) or _code(found)
