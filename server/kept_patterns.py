"""Regular expressions of toolbay's own modules that a server compiles as it starts, compiled once
per installation rather than in every process (``toolbay.internals.sre_code`` says how and why).

The secret-hiding patterns (``toolbay.redaction``) alone, about 40 of them, took 20 to 30 ms of
every server's start on the two-core machine measured, before its first listing. Only patterns
written in the source belong here: one built from what a caller or a configuration gives (a
credential's value) would be written to the file.
"""

from __future__ import annotations

from toolbay.internals.sre_code import KeptPatterns, kept_file_beside

KEPT = KeptPatterns(kept_file_beside(__file__, "kept_patterns"))

# As ``re.compile``, for a pattern written in toolbay's source.
compiled = KEPT.compile
