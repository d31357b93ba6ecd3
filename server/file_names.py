"""Whether a file's name is valid UTF-8, as ``os`` hands names over.

Linux lets a name be any bytes; Python keeps the bytes that are not UTF-8 as lone surrogates
(``os.fsdecode``). Such a name cannot be written in JSON, nor imported as a module, and the
folder watch (watchfiles) gives up whenever anything happens to that file, reading it
included: toolbay names the file and leaves it unread.
"""

from __future__ import annotations

import os


def is_utf8(path: str) -> bool:
    """Whether ``path`` (undecodable bytes kept as surrogates) is valid UTF-8."""
    try:
        path.encode()
    except UnicodeEncodeError:
        return False
    return True


def shown(path: str) -> str:
    """``path`` as a log line can hold it: bytes that are not UTF-8 written as ``\\xNN``."""
    return path if is_utf8(path) else os.fsencode(path).decode("utf-8", "backslashreplace")
