"""A message as the JSON a client is sent, whatever text it carries.

A string may hold a lone UTF-16 surrogate: Python gives a file name's bytes that are not
UTF-8 as such (``os.listdir``, ``os.fsdecode``), and those names reach messages (a skipped
file in ``refresh_tools``'s answer, a tool's note). No UTF-8 holds one, so pydantic refuses to
write the whole message; on stdio that ended the writer, and with it the server. Each such
character is written as U+FFFD instead: the rest of the message, and the connection, go on.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def message_json(message: BaseModel) -> str:
    """``message`` as JSON (by alias, fields left unset left out), a lone surrogate as U+FFFD."""
    try:
        return message.model_dump_json(by_alias=True, exclude_unset=True)
    except PydanticSerializationError:
        plain = message.model_dump(mode="json", by_alias=True, exclude_unset=True)
        # Python's writer puts lone surrogates into its text as they are: found there, replaced.
        return _LONE_SURROGATE.sub(REPLACEMENT, json.dumps(plain, ensure_ascii=False, separators=(",", ":")))
