"""The help-text dialects toolbay reads, in the order ties are broken.

Adding one: a module here with a ``Dialect`` subclass, an entry in ``DIALECTS``,
and a folder of real captured help texts under ``tests/helptext/corpus/<name>/``
(a test fails without it).
"""

from __future__ import annotations

from .absl import Absl
from .argh import Argh
from .argparse import Argparse
from .base import Dialect
from .boost import Boost
from .clap import Clap
from .cli11 import Cli11
from .click import Click
from .cmake import Cmake
from .cobra import Cobra
from .commander import Commander
from .cxxopts import Cxxopts
from .docopt import Docopt
from .fire import Fire
from .flaggy import Flaggy
from .generic import Generic
from .gflags import Gflags
from .gnu import Gnu
from .goarg import GoArg
from .goflag import GoFlag
from .jcommander import JCommander
from .kingpin import Kingpin
from .kong import Kong
from .llvm import Llvm
from .picocli import Picocli
from .typer import Typer
from .urfave import Urfave
from .yargs import Yargs

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
