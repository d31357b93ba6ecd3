"""rich-click 1.9.9: metavars of several shapes in the options table. Its help, at 110 columns:
``framework_texts/rich-click-1.9.9-metavars.txt``. Prints what it parsed, as JSON."""

import json

import rich_click as click


@click.command()
@click.option("--a1", metavar="key=value", help="Lower.")
@click.option("--a2", metavar="HOST[:PORT]", help="Opt port.")
@click.option("--a3", metavar="N..M", help="Range.")
@click.option("--a4", metavar="NAME=VALUE", help="Env.")
@click.option("--a5", metavar="USER@HOST", help="At.")
@click.option("--a6", metavar="SRC:DST:MODE", help="Vol.")
@click.option("--a7", metavar="K=V,K=V", help="Many.")
@click.option("--a8", metavar="A/B/C", help="Path.")
@click.argument("target", required=False)
def main(**kw: object) -> None:
    """Does things."""
    print(json.dumps(kw, sort_keys=True))


if __name__ == "__main__":
    main()
