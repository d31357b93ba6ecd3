"""The help-text dialects toolbay reads, in the order ties are broken.

Adding one: a ``Dialect`` subclass in the module of its language here (or a module of its own
for a new language), an entry in ``DIALECTS``, and a folder of real captured help texts under
``tests/helptext/corpus/<name>/`` (a test fails without it).
"""

from __future__ import annotations

from .base import Dialect
from .clap import Clap
from .cpp import Boost, Cli11, Cmake, Cxxopts, Gflags, Llvm
from .generic import Generic
from .gnu import Gnu
from .go import Cobra, Flaggy, GoArg, GoFlag, Kingpin, Kong, Urfave
from .java import JCommander, Picocli
from .javascript import Commander, Yargs
from .python import Absl, Argh, Argparse, Click, Docopt, Fire, Typer

DIALECTS: tuple[Dialect, ...] = (
    Fire(), Flaggy(), Typer(), Click(), Argparse(), Clap(), Cobra(), Kingpin(), Kong(), GoArg(), Urfave(), Absl(),
    Llvm(), Cli11(), Cxxopts(), Boost(), Cmake(), Picocli(), JCommander(), Gflags(), Gnu(), GoFlag(), Docopt(),
    Commander(), Yargs(), Argh(), Generic(),
)


# A library's marks show in its first screens; a huge text is not searched to its end.
_DETECT_SAMPLE = 32 * 1024


def pick_dialect(text: str) -> Dialect:
    sample = text[:_DETECT_SAMPLE]
    best, best_score = DIALECTS[-1], 0.0
    for dialect in DIALECTS:
        score = dialect.detect(sample)
        if score > best_score and score >= dialect.min_score:
            best, best_score = dialect, score
    return best


__all__ = ["DIALECTS", "Dialect", "pick_dialect"]
