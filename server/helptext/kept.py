"""The help-text parser's regular expressions, compiled once per installation.

Compiling its ~120 patterns took a third of a ``toolbay parse-help`` run; the compiled code is
kept beside the package's bytecode (``toolbay.internals.sre_code`` says how and why).
"""

from __future__ import annotations

from ..internals.sre_code import KeptPatterns, kept_file_beside

# Named after this module, as a kept file must be: the test suite's pruning drops what is kept
# for a source that is not there (it dropped "patterns", named after none, at every run's start).
KEPT = KeptPatterns(kept_file_beside(__file__, "kept"))

# As ``re.compile``, for patterns written in this package's modules.
compiled = KEPT.compile
