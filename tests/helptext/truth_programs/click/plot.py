"""A click program whose options take several values after one flag (nargs=2, a tuple type),
beside the kinds every click program has. It prints what click parsed, as JSON, so that a test
can compare it with the values a call gave."""

import json

import click


@click.command()
@click.option("--origin", type=int, nargs=2, help="Where the plot starts, x then y.")
@click.option("--label", type=(str, float), help="A label and its size.")
@click.option("--param", type=(str, str), multiple=True, help="A name and its value, passed to the style.")
@click.option("--scale", type=click.FloatRange(0.5, 4.0), default=1.0, show_default=True, help="How much to enlarge.")
@click.option("--color", type=click.Choice(["red", "green", "blue"]), default="red", help="Line colour.")
@click.option("--tag", multiple=True, help="A tag to attach; give it again for more.")
@click.option("--grid/--no-grid", default=True, help="Draw a grid.")
@click.option("--title", required=True, help="The plot's title.")
@click.argument("files", nargs=-1)
def plot(origin: tuple[int, int] | None, label: tuple[str, float] | None, param: tuple[tuple[str, str], ...],
         scale: float, color: str, tag: tuple[str, ...], grid: bool, title: str, files: tuple[str, ...]) -> None:
    """Plot the points of FILES."""
    click.echo(json.dumps({"origin": origin, "label": label, "param": [list(pair) for pair in param],
                           "scale": scale, "color": color, "tag": list(tag), "grid": grid, "title": title,
                           "files": list(files)}))


if __name__ == "__main__":
    plot()
