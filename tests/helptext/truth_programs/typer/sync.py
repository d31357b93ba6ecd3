"""A typer program whose options carry bounds, an enum, a list and switches: typer (0.16 and
later, with rich) prints each option's type in a column of its own ("<int range> [0<=x<=9]").
It prints what typer passed to its function."""

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="Sync notes between folders.", add_completion=False)


class Level(StrEnum):
    low = "low"
    mid = "mid"
    high = "high"


@app.command()
def sync(
    source: Annotated[Path, typer.Argument(help="folder to read")],
    depth: Annotated[int, typer.Option("--depth", "-d", help="how deep", min=0, max=9)] = 2,
    ratio: Annotated[float, typer.Option(help="share kept", min=0.0, max=1.0)] = 0.5,
    workers: Annotated[int, typer.Option(help="threads", min=1)] = 4,
    level: Annotated[Level, typer.Option(help="log level")] = Level.mid,
    exclude: Annotated[list[str] | None, typer.Option("--exclude", "-x", help="patterns to skip")] = None,
    force: Annotated[bool, typer.Option("--force", "-f", help="overwrite")] = False,
    name: Annotated[str, typer.Option(help="job name")] = "notes",
    point: Annotated[tuple[int, int], typer.Option(help="x and y")] = (0, 0),
) -> None:
    print(f"source={source} depth={depth} ratio={ratio} workers={workers} level={level.value} "
          f"exclude={exclude} force={force} name={name} point={point}")


@app.command()
def status() -> None:
    """Show the state of the last sync."""


if __name__ == "__main__":
    app()
