"""rich-click 1.9.9 (click 8.5.1, rich 15.0.0): a metavar with "=" in a column of its own in
the options table. Its help, at 100 columns: ``framework_texts/rich-click-1.9.9-build.txt``.
W sets max_content_width. Prints what it parsed, as JSON."""

import json
import os

import rich_click as click

ctx = {"max_content_width": int(os.environ["W"])} if os.environ.get("W") else {}


@click.command(context_settings=ctx)
@click.option("--ratio", type=click.FloatRange(0, 1), default=0.5, help="Cache ratio.")
@click.option("--level", type=click.IntRange(1, 9), default=5, help="Level.")
@click.option("-D", "--define", multiple=True, metavar="KEY=VAL", help="Define a variable.")
@click.option("--size", type=(int, int), help="Width and height.")
@click.option("--shout/--no-shout", " /-S", default=False, help="Shout the log.")
def build(**kw: object) -> None:
    """Build."""
    print(json.dumps(kw))


build()
