"""Keeps a shelf of books: adds a book, with its authors, tags and copies."""

from __future__ import annotations

from absl import app, flags
from absl_truth import dump_if_asked

FLAGS = flags.FLAGS
flags.DEFINE_string("title", None, "Title of the book to add.", short_name="t")
flags.DEFINE_integer("copies", 1, "How many copies to add.", lower_bound=1)
flags.DEFINE_float("price", 9.5, "Price of one copy in euros.")
flags.DEFINE_boolean("dry_run", False, "Only say what would be done.", short_name="n")
flags.DEFINE_bool("color", True, "Colour the output.")
flags.DEFINE_enum("format", "text", ["text", "json", "csv"], "Output format.")
flags.DEFINE_list("tags", [], "Tags to attach to the book, comma separated.")
flags.DEFINE_spaceseplist("shelves_near", [], "Shelves next to this one, separated by spaces.")
flags.DEFINE_multi_string("author", [], "An author of the book; repeat for several.")
flags.DEFINE_multi_integer("year", [], "A year the book was printed.")
flags.DEFINE_multi_enum("shelf", ["main"], ["main", "attic", "cellar"], "Shelves to put it on.")
flags.DEFINE_integer("max_loans", None, "Most loans at once.", upper_bound=100)
flags.DEFINE_float("discount", 0.0, "Share of the price taken off.", lower_bound=0.0, upper_bound=1.0)
flags.DEFINE_string("db", "/var/lib/shelf.db", "Path to the shelf database.")


def main(argv: list[str]) -> None:
    import json
    import sys

    # What absl made of the command line: a test checks the argv a schema builds against it.
    values = {flag.name: flag.value for flag in FLAGS.flags_by_module_dict()[sys.argv[0]]}
    print(json.dumps({**values, "args": argv[1:]}))


if __name__ == "__main__":
    dump_if_asked(FLAGS)
    app.run(main)
