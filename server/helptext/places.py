"""Whether a value named "path" is a file's place or a place inside a document.

A ``PATH``, or pflag's ``--path string``, is a file's place by its name alone, but many tools
take a path into a JSON document (``items.0.name``). The help-text parser gives such a value
no ``format: path``, and the sandbox does not map a host path given for it; both ask here.
"""

from __future__ import annotations

from .kept import compiled

# A FILE or DIR is one whatever its description says; a PATH may be a path into a document.
AMBIGUOUS_PATH_NAMES = frozenset({"path", "paths"})
_SPEAKS_OF_FILES = compiled(r"(?i)\b(?:files?|folders?|director(?:y|ies))\b")
# Words that place a value inside a document (not "key", "node" or "JSON": an SSH key, the node
# binary and a JSON config are files).
_SPEAKS_OF_A_DOCUMENT = compiled(r"(?i)\b(?:objects?|fields?|elements?|arrays?|json-?path|xpath|jq|selectors?|"
                                   r"dot-separated|dotted)\b")


def speaks_of_files(text: str) -> bool:
    return _SPEAKS_OF_FILES.search(text) is not None


def inside_a_document(name: str, description: str) -> bool:
    """True for a value named like a path whose description places it inside a document and
    speaks of no file or folder ("path of the object to list")."""
    return (name.lower().lstrip("-") in AMBIGUOUS_PATH_NAMES and _SPEAKS_OF_A_DOCUMENT.search(description) is not None
            and not speaks_of_files(description))
