"""Makes thumbnails of images.

USAGE: thumbs.py [flags] IMAGE...

Each IMAGE is read and its thumbnail written beside it, named after it.
"""

from __future__ import annotations

from absl import app, flags, logging
from absl_truth import dump_if_asked

FLAGS = flags.FLAGS
flags.DEFINE_integer("size", 128, "Longest side of a thumbnail, in pixels.", lower_bound=16, short_name="s")
flags.DEFINE_enum("fit", "contain", ["contain", "cover", "fill"], "How the image fills the thumbnail.")
flags.DEFINE_float("quality", 0.85, "JPEG quality of the thumbnails, from 0 to 1.")
flags.DEFINE_bool("overwrite", False, "Replace thumbnails that exist already.")
flags.DEFINE_bool("strip_metadata", True, "Leave the images' metadata out of their thumbnails.")
flags.DEFINE_string("suffix", "_thumb", "Added to an image's name to name its thumbnail.")
flags.DEFINE_multi_string("exclude", [], "A glob of images to leave alone.")


def main(argv: list[str]) -> None:
    logging.info("making %d thumbnails", len(argv) - 1)


if __name__ == "__main__":
    dump_if_asked(FLAGS, everything=True)
    app.run(main)
