"""A click program whose group in the middle has options of its own, one required: a command
in it is run as ``clickdb [--verbose] db --url URL [--pool N] migrate [--dry-run] NAME``.
Prints what it parsed, as JSON."""

import json

import click

parsed: dict[str, object] = {}


@click.group()
@click.option("--verbose", is_flag=True, help="Talk more.")
def cli(verbose: bool) -> None:
    """Manages things."""
    parsed["verbose"] = verbose


@cli.group()
@click.option("--url", required=True, help="The database's address.")
@click.option("--pool", type=int, default=1, help="Connections at once.")
def db(url: str, pool: int) -> None:
    """Works on the database."""
    parsed.update(url=url, pool=pool)


@db.command()
@click.option("--dry-run", is_flag=True, help="Only say what would change.")
@click.argument("name")
def migrate(dry_run: bool, name: str) -> None:
    """Runs one migration."""
    parsed.update(dry_run=dry_run, name=name)
    print(json.dumps(parsed, sort_keys=True))


if __name__ == "__main__":
    cli()
